"""spacy-lal.EWTTokenizer.v1 (issue #35): one parametrized case list per rule of the module
docstring (input text -> expected tokens), spaCy's behaviour kept where EWT agrees, the registry
and its entry point, serialization with a pipeline, and the multi-word token groups."""
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc

from spacy_lal.tokenizer import (
    APOSTROPHE_CLITICS,
    BARE_CLITICS,
    HYPHEN_PREFIXES,
    MULTIWORD_FORMS,
    create_ewt_tokenizer,
    multiword_token_spans,
)

CONFIG = {"nlp": {"tokenizer": {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}}}
ROOT = Path(__file__).resolve().parents[2]
EWT = ROOT / ".." / "shared" / "assets" / "UD_English-EWT"


@pytest.fixture(scope="module")
def ewt():
    return spacy.blank("en", config=CONFIG)


@pytest.fixture(scope="module")
def default():
    return spacy.blank("en")


def tokens(nlp, text):
    return [t.text for t in nlp.tokenizer(text) if not t.is_space]


RULES = {
    "1 runs of ! and ?": [
        ("Thanks!! Debra", ["Thanks", "!!", "Debra"]),
        ("wow!!!", ["wow", "!!!"]),
        ("really?!", ["really", "?!"]),
        ("what!?", ["what", "!?"]),
        ("decade.? Now", ["decade", ".?", "Now"]),
        ("why????", ["why", "????"]),
        ("!!! Now", ["!!!", "Now"]),
        ("camera...?", ["camera", "...", "?"]),
        ("about T.V.? Do", ["about", "T.V.", "?", "Do"]),
        ("fine! Then.", ["fine", "!", "Then", "."]),
    ],
    "2 runs of a symbol": [
        ("<< File: TEXT.htm >>", ["<<", "File", ":", "TEXT.htm", ">>"]),
        ("<<MEH-risk Oct 20>>", ["<<", "MEH", "-", "risk", "Oct", "20", ">>"]),
        ("use. ==================== Kenneth", ["use", ".", "====================", "Kenneth"]),
        ("Dave ______________ This", ["Dave", "______________", "This"]),
        ("seems. *** Several", ["seems", ".", "***", "Several"]),
        ("Work hard. Make $$$.", ["Work", "hard", ".", "Make", "$$$", "."]),
        ("name of it)) I", ["name", "of", "it", "))", "I"]),
        ("the claim. ‘’Should", ["the", "claim", ".", "‘’", "Should"]),
        ("Pakistan,’’ says", ["Pakistan", ",", "’’", "says"]),
        ("them,'' Nadereh", ["them", ",", "''", "Nadereh"]),
        ("genuine. ----== Posted", ["genuine", ".", "----==", "Posted"]),
        ("go ===> there", ["go", "===>", "there"]),
    ],
    "3 closing before opening bracket": [
        ("file: Stocks.pdf)(See attached", ["file", ":", "Stocks.pdf", ")", "(", "See", "attached"]),
        ('Email: "Julie"<julie...@bellsouth.net>',
         ["Email", ":", '"', "Julie", '"', "<", "julie...@bellsouth.net", ">"]),
        ("Email: dharmad...@gmail.com", ["Email", ":", "dharmad...@gmail.com"]),
        ("(see http://www.x.com/a.html)", ["(", "see", "http://www.x.com/a.html", ")"]),
    ],
    "4 hyphens at a word's edge": [
        ("actually -for volumes", ["actually", "-", "for", "volumes"]),
        ("regional powers -Russia and", ["regional", "powers", "-", "Russia", "and"]),
        ("from 1:30 -2:30 to", ["from", "1:30", "-", "2:30", "to"]),
        ("I've read the book- it's", ["I", "'ve", "read", "the", "book", "-", "it", "'s"]),
        ("your speech-- something", ["your", "speech", "--", "something"]),
        ("--Ron", ["--", "Ron"]),
    ],
    "5 bound prefixes keep their hyphen": [
        ("an e-mail sent", ["an", "e-mail", "sent"]),
        ("E-mail: x", ["E-mail", ":", "x"]),
        ("non-stop co-workers", ["non-stop", "co-workers"]),
        ("pre-war and post-war Iraq", ["pre-war", "and", "post-war", "Iraq"]),
        ("anti-American re-run", ["anti-American", "re-run"]),
        ("in the mid-1980s", ["in", "the", "mid-1980s"]),
        ("mid-2004", ["mid-2004"]),
        ("pro-same-gender marriage", ["pro-same", "-", "gender", "marriage"]),
        ("well-informed self-rule", ["well", "-", "informed", "self", "-", "rule"]),
        ("Shaikh Abdullah al-Ani", ["Shaikh", "Abdullah", "al", "-", "Ani"]),
        ("state-of-the-art", ["state", "-", "of", "-", "the", "-", "art"]),
        ("humid-weather", ["humid", "-", "weather"]),
    ],
    "6 letter and number across a hyphen": [
        ("flew the F-102 Delta", ["flew", "the", "F", "-", "102", "Delta"]),
        ("an X-940 camera", ["an", "X", "-", "940", "camera"]),
    ],
    "7 phone numbers": [
        ("call 713-853-3989 (Phone)", ["call", "713-853-3989", "(", "Phone", ")"]),
        ("the number: 1-800-991-9019 the", ["the", "number", ":", "1-800-991-9019", "the"]),
        ("(713) 345-9945 Fax", ["(", "713", ")", "345-9945", "Fax"]),
        ("contact Joan (3-5213), Bert", ["contact", "Joan", "(", "3-5213", ")", ",", "Bert"]),
        ("at 713-853-1696.", ["at", "713-853-1696", "."]),
        ("in 1969-1970.", ["in", "1969", "-", "1970", "."]),
        ("about 5-10 days", ["about", "5", "-", "10", "days"]),
    ],
    "8 slash between words": [
        ("email and/or phone", ["email", "and", "/", "or", "phone"]),
        ("JPY/USD rate", ["JPY", "/", "USD", "rate"]),
        ("coffee w/o sugar", ["coffee", "w/o", "sugar"]),
        ("the l/c wording", ["the", "l/c", "wording"]),
        ("I/S and w/out", ["I/S", "and", "w/out"]),
    ],
    "9 bracket opening inside a word": [
        ("your account(s) by", ["your", "account", "(", "s", ")", "by"]),
        ("the date(s) set", ["the", "date", "(", "s", ")", "set"]),
    ],
    "10 times and thousands": [
        ("@ 7:30PM vs.", ["@", "7:30", "PM", "vs."]),
        ("at 11AM EDT", ["at", "11", "AM", "EDT"]),
        ("at 11:30am", ["at", "11:30", "am"]),
        ("at 2:30 p.m. Tuesday", ["at", "2:30", "p.m.", "Tuesday"]),
        ("at 5pm.", ["at", "5", "pm", "."]),
        ("pay 65k + 10k", ["pay", "65", "k", "+", "10", "k"]),
        ("at 75-80k.", ["at", "75", "-", "80", "k", "."]),
        ("was $180.9m.", ["was", "$", "180.9", "m", "."]),
        ("2.7m long", ["2.7", "m", "long"]),
    ],
    "11 a number keeps its 's": [
        ("in the 60's because", ["in", "the", "60's", "because"]),
        ("the 1990's", ["the", "1990's"]),
        ("Bush's plan", ["Bush", "'s", "plan"]),
    ],
    "12 special cases EWT does not have": [
        ("The post id I am", ["The", "post", "id", "I", "am"]),
        ("on Wed. 6/14", ["on", "Wed.", "6/14"]),
        ("they wed in May", ["they", "wed", "in", "May"]),
        ("(Former Worker): He", ["(", "Former", "Worker", ")", ":", "He"]),
        ("hello :) bye", ["hello", ":)", "bye"]),
    ],
    "13 abbreviations": [
        ("Sat. Sept. 23", ["Sat.", "Sept.", "23"]),
        ("Thur. or Fri.", ["Thur.", "or", "Fri."]),
        ("to Ft. Detrick", ["to", "Ft.", "Detrick"]),
        ("Lt. General Barno", ["Lt.", "General", "Barno"]),
        ("Pimenov ext. 37625", ["Pimenov", "ext.", "37625"]),
        ("good care, etc. can", ["good", "care", ",", "etc", ".", "can"]),
    ],
    "14 contractions in capitals": [
        ("PLEASE DON'T USE", ["PLEASE", "DO", "N'T", "USE"]),
        ("WHY CANT U", ["WHY", "CA", "NT", "U"]),
        ("I'M HERE", ["I", "'M", "HERE"]),
        ("GONNA GO", ["GON", "NA", "GO"]),
    ],
    "15 more multi-word forms": [
        ("I wanna know", ["I", "wan", "na", "know"]),
        ("Wanna go?", ["Wan", "na", "go", "?"]),
        ("I'm outta here!", ["I", "'m", "out", "ta", "here", "!"]),
    ],
    "16 clitic after a backtick": [
        ("Yo mama`s so fat", ["Yo", "mama", "`s", "so", "fat"]),
    ],
    "17 file names": [
        ("<<ld2d-#69366-1.DOC>>", ["<<", "ld2d-#69366-1.DOC", ">>"]),
        ("See ENRON.XLS and enrongss.xls.", ["See", "ENRON.XLS", "and", "enrongss.xls", "."]),
        ("(See attached file: Para13-7-01.doc)", ["(", "See", "attached", "file", ":", "Para13-7-01.doc", ")"]),
    ],
    "18 emoji": [
        ("Love it \U0001F468\u200d\U0001F469\u200d\U0001F467 and", ["Love", "it", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "and"]),
        ("from \U0001F1FA\U0001F1F8 ok", ["from", "\U0001F1FA\U0001F1F8", "ok"]),
        ("see you \U0001F44D\U0001F3FD!", ["see", "you", "\U0001F44D\U0001F3FD", "!"]),
        ("I \u2764\ufe0fNY", ["I", "\u2764\ufe0f", "NY"]),
        ("great\U0001F600 1\ufe0f\u20e3", ["great", "\U0001F600", "1\ufe0f\u20e3"]),
        ("\u2764\ufe0f\u2764\ufe0f wow", ["\u2764\ufe0f", "\u2764\ufe0f", "wow"]),
        ("lol \U0001F602\U0001F602\U0001F602", ["lol", "\U0001F602\U0001F602\U0001F602"]),  # rule 2: a run
    ],
    "19 ? and ! between words": [
        ("a nice day?Grimy rooms", ["a", "nice", "day", "?", "Grimy", "rooms"]),
        ("is it?how", ["is", "it", "?", "how"]),
        ("the room!it was", ["the", "room", "!", "it", "was"]),
        ("wow!!!Great", ["wow", "!!!", "Great"]),
        ("see index.php?id=3 or http://x.com/a?b=c", ["see", "index.php?id=3", "or", "http://x.com/a?b=c"]),
    ],
    "20 two-digit years": [
        ("class of '68, and", ["class", "of", "'68", ",", "and"]),
        ("the '73 oil crisis", ["the", "'73", "oil", "crisis"]),
        ("in '99.", ["in", "'99", "."]),
        ("'Hello' he said", ["'", "Hello", "'", "he", "said"]),
        ("'1984' is", ["'", "1984", "'", "is"]),
    ],
    "21 hyphen before $, Yahoo!": [
        ("from $10,000-$20,000 per", ["from", "$", "10,000", "-", "$", "20,000", "per"]),
        ("prices ($4-$6) have", ["prices", "(", "$", "4", "-", "$", "6", ")", "have"]),
        ("price -$0.05 at", ["price", "-", "$", "0.05", "at"]),
        ("alerts with Yahoo! Messenger", ["alerts", "with", "Yahoo!", "Messenger"]),
    ],
}
CASES = [(rule, text, expected) for rule, cases in RULES.items() for text, expected in cases]


@pytest.mark.parametrize("rule,text,expected", CASES, ids=[f"{r.split()[0]}:{t}" for r, t, _ in CASES])
def test_rule(ewt, rule, text, expected):
    assert tokens(ewt, text) == expected


# spaCy's own behaviour, which EWT shares: the same tokens from both tokenizers.
KEPT = [
    "I don't like it.",
    "We cannot go, it's Bush's plan.",
    "Mr. Smith paid $5.00 at 10:30 on Jan. 5, 2001 (U.S.).",
    "I'd've gone to http://www.euci.com/pdf/trans_expn.pdf.",
    "She said \"no\"... and left :)",
    "Email john.doe@enron.com or call me at 5.",
    "Rock 'n' roll, y'all: o'clock, 5-year plan, 3:30 - 4:00",
    "Hmm... e.g. the cats' food; i.e. theirs.",
    "It's $10/hour -- not 5%!",
]


@pytest.mark.parametrize("text", KEPT)
def test_keeps_spacy_where_ewt_agrees(ewt, default, text):
    assert tokens(ewt, text) == tokens(default, text)


def test_hyphen_prefixes_are_whole_word_parts():
    assert all(p.isalpha() and p == p.lower() for p in HYPHEN_PREFIXES)
    assert {"e", "non", "pre", "anti", "re", "mid", "post", "co"} <= set(HYPHEN_PREFIXES)


def test_tokens_cover_the_text(ewt):
    text = "Thanks!! <<ld2d-#69366-1.DOC>> e-mail 713-853-3989, DON'T wanna (2pm-5pm) -for me.?"
    doc = ewt.tokenizer(text)
    assert doc.text == text


# -- registry, entry point, serialization ---------------------------------------------------------


def test_registered(ewt):
    assert spacy.registry.tokenizers.get("spacy-lal.EWTTokenizer.v1") is create_ewt_tokenizer
    assert ewt.config["nlp"]["tokenizer"] == {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}


def test_entry_point_in_a_fresh_process():
    """spaCy finds the tokenizer through the spacy_tokenizers entry point, without an import of
    spacy_lal by the caller."""
    installed = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="spacy_tokenizers")}
    assert installed.get("spacy-lal.EWTTokenizer.v1") == "spacy_lal.tokenizer:create_ewt_tokenizer"
    code = (
        "import spacy\n"
        f"nlp = spacy.blank('en', config={CONFIG!r})\n"
        "print('|'.join(t.text for t in nlp('e-mail me!!')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "e-mail|me|!!"


SAMPLES = [text for cases in RULES.values() for text, _ in cases] + KEPT


def test_saved_pipeline_loads_with_it(ewt, tmp_path):
    ewt.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.config["nlp"]["tokenizer"] == {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}
    assert [tokens(loaded, t) for t in SAMPLES] == [tokens(ewt, t) for t in SAMPLES]


def test_tokenizer_files_carry_the_rules(ewt, default):
    """The rules live in the tokenizer's own files: a pipeline whose config names spaCy's
    tokenizer tokenizes as ours once it reads them (as `spacy.load` does)."""
    other = spacy.blank("en")
    other.tokenizer.from_bytes(ewt.tokenizer.to_bytes())
    assert [tokens(other, t) for t in SAMPLES] == [tokens(ewt, t) for t in SAMPLES]
    assert [tokens(other, t) for t in SAMPLES] != [tokens(default, t) for t in SAMPLES]


# -- multi-word tokens ---------------------------------------------------------------------------

GROUPS = [
    ("I don't like it.", ["don't"]),
    ("We cannot go.", ["cannot"]),
    ("I'm sure it's Bush's.", ["I'm", "it's", "Bush's"]),
    ("I'd've gone", ["I'd've"]),
    ("it’s DON'T Mama`s", ["it’s", "DON'T", "Mama`s"]),
    ("dont cant Im gonna wanna", ["dont", "cant", "Im", "gonna", "wanna"]),
    ("I've got 3m and 60's", ["I've"]),
    ("it's", ["it's"]),
    ("Richard Sanders' letter", ["Sanders'"]),
    ("the Sanders' .", []),  # no word after it
    ("as 'terrorists' just", []),  # a single quote opened before: it closes
    ("the account(s) and 'boys'", []),
    ("e-mail - can not", []),
]


@pytest.mark.parametrize("text,expected", GROUPS)
def test_multiword_token_spans(ewt, text, expected):
    assert [span.text for span in multiword_token_spans(ewt(text))] == expected


def test_multiword_groups_need_attached_tokens(ewt):
    doc = Doc(ewt.vocab, words=["do", "n't", "can", "not", "it", "s"], spaces=[True, True, False, True, False, True])
    assert [span.text for span in multiword_token_spans(doc)] == ["cannot", "its"]
    doc = Doc(ewt.vocab, words=["3", "m", "(", "s", "I", "m"], spaces=[False, True, False, True, False, False])
    assert [span.text for span in multiword_token_spans(doc)] == ["Im"]


def test_recorded_clitics():
    assert {"'s", "n't", "'m", "'ll", "'ve", "'re", "'d"} == APOSTROPHE_CLITICS
    assert {"nt", "s", "m", "not", "na", "ta"} <= BARE_CLITICS
    assert MULTIWORD_FORMS["cannot"] == ("can", "not") and MULTIWORD_FORMS["gonna"] == ("gon", "na")
    assert "id" not in MULTIWORD_FORMS and "wed" not in MULTIWORD_FORMS


# -- against EWT (dev: the check; the rules come from train) ---------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not EWT.exists(), reason="needs ../shared/assets/UD_English-EWT")
def test_ewt_dev_words_and_tokens():
    sys.path.insert(0, str(ROOT / "scripts"))
    from tokenization_diff import evaluate, prf, read_documents

    docs = read_documents(EWT / "en_ewt-ud-dev.conllu")
    result = evaluate(docs, spacy.blank("en", config=CONFIG).tokenizer, "ewt")
    assert prf(result.words)[2] >= 99.0
    assert prf(result.tokens)[2] >= 99.3


@pytest.mark.parametrize("name", ["en_lal_ewt", "en_lal_ewt_trf"])
def test_shipped_pipelines_tokenize_with_every_rule(ewt, name):
    """The shipped pipelines read their tokenizer from their files, not from this module: the
    files must carry the current rules (rewrite them with ``ewt_tokenizer(nlp).to_disk``)."""
    shipped = spacy.blank("en")
    shipped.tokenizer.from_disk(ROOT / "spacy_lal" / "pipelines" / name / "tokenizer")
    assert [tokens(shipped, t) for t in SAMPLES] == [tokens(ewt, t) for t in SAMPLES]
