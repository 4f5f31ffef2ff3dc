"""CoNLL-U multi-word tokens (issue #35): the reader keeps the range lines
(``doc.user_data["multiword_tokens"]``), the writer puts them back (SpaceAfter on the range
line, as the UD format has it), and Docs without them (a tokenizer's) get EWT's groups."""
from pathlib import Path
from typing import List, Tuple

import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_lal.corpora import read_conllu, read_conllx, write_conllu
from spacy_lal.corpora._common import CorpusFormatError
from spacy_lal.corpora.export import multiword_ranges
from spacy_lal.corpora.parse_output import to_text

ROOT = Path(__file__).resolve().parents[2]
EWT = ROOT / ".." / "shared" / "assets" / "UD_English-EWT"

SAMPLE = """# newdoc id = d1
# sent_id = d1-1
# text = We cannot go, it's Bush's.
1\tWe\twe\tPRON\tPRP\t_\t3\tnsubj\t_\t_
2-3\tcannot\t_\t_\t_\t_\t_\t_\t_\t_
2\tcan\tcan\tAUX\tMD\t_\t4\taux\t_\t_
3\tnot\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
4\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
5\t,\t,\tPUNCT\t,\t_\t4\tpunct\t_\t_
6-7\tit's\t_\t_\t_\t_\t_\t_\t_\t_
6\tit\tit\tPRON\tPRP\t_\t8\tnsubj\t_\t_
7\t's\tbe\tAUX\tVBZ\t_\t8\tcop\t_\t_
8-9\tBush's\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No
8\tBush\tBush\tPROPN\tNNP\t_\t4\tparataxis\t_\t_
9\t's\t's\tPART\tPOS\t_\t8\tcase\t_\t_
10\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_

# sent_id = d1-2
# text = Vámonos al mar
1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_
1\tVamos\tir\tVERB\t_\t_\t0\troot\t_\t_
2\tnos\tnosotros\tPRON\t_\t_\t1\tobj\t_\t_
3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_
3\ta\ta\tADP\t_\t_\t5\tcase\t_\t_
4\tel\tel\tDET\t_\t_\t5\tdet\t_\t_
5\tmar\tmar\tNOUN\t_\t_\t1\tobl\t_\t_

# sent_id = d1-3
# text = No ranges here.
1\tNo\tno\tDET\tDT\t_\t2\tdet\t_\t_
2\tranges\trange\tNOUN\tNNS\t_\t0\troot\t_\t_
3\there\there\tADV\tRB\t_\t2\tadvmod\t_\tSpaceAfter=No
4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_

"""


# What the reader keeps of SAMPLE beside the words: ids and the multi-word tokens (word offsets).
SAMPLE_USER_DATA = [
    {"doc_id": "d1", "sent_id": "d1-1", "multiword_tokens": ((1, 3, "cannot"), (5, 7, "it's"), (7, 9, "Bush's"))},
    {"doc_id": "d1", "sent_id": "d1-2", "multiword_tokens": ((0, 2, "Vámonos"), (2, 4, "al"))},
    {"doc_id": "d1", "sent_id": "d1-3", "multiword_tokens": ()},
]


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "mwt.conllu"
    path.write_text(SAMPLE, encoding="utf8")
    return path


def token_lines(text: str) -> List[Tuple[str, str, bool]]:
    """(ID, FORM, SpaceAfter=No?) of every token and word line, and the # text lines."""
    out = []
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) == 10 and "." not in cols[0]:
            out.append((cols[0], cols[1], "SpaceAfter=No" in cols[9].split("|")))
        elif line.startswith("# text ="):
            out.append((line, "", False))
    return out


def test_reader_keeps_the_ranges(sample, vocab):
    docs = list(read_conllu(sample, vocab))
    assert docs[0].user_data["multiword_tokens"] == ((1, 3, "cannot"), (5, 7, "it's"), (7, 9, "Bush's"))
    assert docs[1].user_data["multiword_tokens"] == ((0, 2, "Vámonos"), (2, 4, "al"))
    assert docs[2].user_data["multiword_tokens"] == ()
    # The words are the Doc's tokens, as before.
    assert [t.text for t in docs[0]] == ["We", "can", "not", "go", ",", "it", "'s", "Bush", "'s", "."]
    assert docs[0].text == "We cannot go, it's Bush's. "


def test_writer_writes_range_lines(sample, vocab):
    text = to_text(read_conllu(sample, vocab), "conllu")
    assert "2-3\tcannot\t_\t_\t_\t_\t_\t_\t_\t_\n2\tcan\t" in text
    # SpaceAfter=No on the range line, not on its last word.
    assert "8-9\tBush's\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n" in text
    assert "9\t's\t's\tPART\tPOS\t_\t8\tcase\t_\t_\n" in text
    # A surface form that is not its words' text comes back as it was read.
    assert "1-2\tVámonos\t" in text and "3-4\tal\t" in text


def test_round_trip_is_identical(sample, vocab, tmp_path):
    docs = list(read_conllu(sample, vocab))
    write_conllu(docs, tmp_path / "out.conllu")
    out = (tmp_path / "out.conllu").read_text(encoding="utf8")
    # Range lines, forms, SpaceAfter and # text (spelled by the surface forms: "Vámonos al mar").
    assert token_lines(out) == token_lines(SAMPLE)
    again = list(read_conllu(tmp_path / "out.conllu", vocab))
    assert [d.user_data for d in docs] == [d.user_data for d in again] == SAMPLE_USER_DATA
    assert [[t.text for t in d] for d in again] == [[t.text for t in d] for d in docs] == [
        ["We", "can", "not", "go", ",", "it", "'s", "Bush", "'s", "."], ["Vamos", "nos", "a", "el", "mar"],
        ["No", "ranges", "here", "."],
    ]


def test_words_only(sample, vocab, tmp_path):
    docs = list(read_conllu(sample, vocab))
    write_conllu(docs[:1], tmp_path / "words.conllu", multiword_tokens=False)
    text = (tmp_path / "words.conllu").read_text(encoding="utf8")
    assert not any("-" in wid for wid, _, _ in token_lines(text))
    assert "3\tnot\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n" in text
    assert "9\t's\t's\tPART\tPOS\t_\t8\tcase\t_\tSpaceAfter=No\n" in text
    assert "# text = We cannot go, it's Bush's.\n" in text


def test_docs_without_ranges_get_ewt_groups(vocab):
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}}})
    doc = nlp("I don't know, we cannot go: it's Bush's, dont you think?")
    assert "multiword_tokens" not in doc.user_data
    with pytest.warns(UserWarning, match="no dependency annotation"):
        lines = token_lines(to_text([doc], "conllu"))
    ranges = [(wid, form, no_space) for wid, form, no_space in lines if "-" in wid]
    assert ranges == [
        ("2-3", "don't", False),
        ("7-8", "cannot", False),
        ("11-12", "it's", False),
        ("13-14", "Bush's", True),
        ("16-17", "dont", False),
    ]
    # The words of a range carry no SpaceAfter; the ids count words.
    assert ("14", "'s", False) in lines and ("15", ",", False) in lines
    # The end of the Doc: no SpaceAfter=No (UD forbids it where a new document starts).
    assert lines[-1] == ("20", "?", False)


def test_stored_ranges_that_no_longer_fit_are_left_out(vocab):
    doc = Doc(vocab, words=["I", "do", "n't", "go"], spaces=[True, False, True, False])
    doc.user_data["multiword_tokens"] = [[1, 3, "don't"], [2, 4, "n'tgo"], [0, 2, "I do"], [3, 9, "x"]]
    assert multiword_ranges(doc) == {1: (3, "don't")}
    doc.user_data["multiword_tokens"] = ()
    assert multiword_ranges(doc) == {}  # read from CoNLL-U without ranges: none, not EWT's
    del doc.user_data["multiword_tokens"]
    assert multiword_ranges(doc) == {1: (3, "don't")}


def test_ranges_survive_docbin(sample, vocab):
    docs = list(read_conllu(sample, vocab))
    again = list(DocBin(docs=docs, store_user_data=True).get_docs(vocab))
    assert [d.user_data for d in again] == SAMPLE_USER_DATA
    # Written from the DocBin's Docs: SAMPLE's lines (range lines, forms, SpaceAfter, # text).
    assert token_lines(to_text(again, "conllu")) == token_lines(SAMPLE)


def test_range_beyond_the_sentence_is_an_error(tmp_path, vocab):
    path = tmp_path / "bad.conllu"
    path.write_text("1-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\tdo\tAUX\tVBP\t_\t0\troot\t_\t_\n"
                    "2\tn't\tnot\tPART\tRB\t_\t1\tadvmod\t_\t_\n", encoding="utf8")
    with pytest.raises(CorpusFormatError, match=r"bad.conllu, line 1: expected a range of word ids up to 2"):
        list(read_conllu(path, vocab))


def test_conllx_has_no_ranges(tmp_path, vocab):
    path = tmp_path / "x.conll"
    path.write_text("1\tThe\tthe\tDT\tDT\t_\t2\tNMOD\t_\t_\n2\tcat\tcat\tNN\tNN\t_\t0\tROOT\t_\t_\n", encoding="utf8")
    (doc,) = read_conllx(path, vocab)
    assert "multiword_tokens" not in doc.user_data


@pytest.mark.skipif(not EWT.exists(), reason="needs ../shared/assets/UD_English-EWT")
@pytest.mark.parametrize("split", ["train", "dev"])
def test_ewt_round_trip(split, vocab, tmp_path):
    """EWT's first 400 sentences read and written again: range lines, forms, SpaceAfter and
    # text come back identical (EWT's range lines hold only SpaceAfter in MISC, besides
    CorrectSpaceAfter, which is not kept)."""
    gold = (EWT / f"en_ewt-ud-{split}.conllu").read_text(encoding="utf8")
    blocks = gold.split("\n\n")[:400]
    first = tmp_path / "first.conllu"
    first.write_text("\n\n".join(blocks) + "\n\n", encoding="utf8")
    docs = list(read_conllu(first, vocab))
    assert len(docs) == 400
    write_conllu(docs, tmp_path / "out.conllu")
    out = (tmp_path / "out.conllu").read_text(encoding="utf8")
    expected = token_lines(first.read_text(encoding="utf8"))
    assert sum("-" in wid for wid, _, _ in expected) > 20
    assert token_lines(out) == expected
