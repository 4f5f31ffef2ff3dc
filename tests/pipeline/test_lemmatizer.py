"""lal_lemmatizer: spaCy's trainable lemmatizer with spaCy's English rule lemmatizer beside it,
on tables read from package data (spacy_lal/pipeline/lemmatizer/)."""
import filecmp
import json
import sys
import warnings
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_lal.pipeline.lemmatizer import tables
from spacy_lal.pipeline.lemmatizer.component import RuleBackedLemmatizer
from spacy_lal.pipeline.lemmatizer.rules import EnglishRules
from spacy_lal.pretrained import pipeline_path, shipped_pipelines

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import upgrade_lemmatizer  # noqa: E402

VERBS = ROOT / "tests" / "data" / "lemmas" / "inflected_verbs.jsonl"


def tagged(vocab, words, pos, morphs=None) -> Doc:
    return Doc(vocab, words=words, pos=pos, morphs=morphs or [""] * len(words))


def test_tables_load_from_package_data_without_spacy_lookups_data(monkeypatch):
    monkeypatch.setitem(sys.modules, "spacy_lookups_data", None)  # importing it would fail
    tables.english_lookups.cache_clear()
    try:
        lookups = tables.english_lookups()
        assert tables.TABLES_PATH.parent == Path(tables.__file__).resolve().parents[2] / "data"
        assert set(tables.TABLE_NAMES) <= set(lookups.tables)
        assert "repair" in lookups.get_table("lemma_index")["verb"]
        assert lookups.get_table("lemma_exc")["verb"]["went"] == ["go"]
        assert "WordNet" in tables.read_tables()["notice"]
    finally:
        tables.english_lookups.cache_clear()


def test_rules_are_spacy_rules_on_our_tables(nlp):
    rules = EnglishRules(nlp.vocab)
    doc = tagged(nlp.vocab, ["repairing", "went", "studies", "regards"], ["VERB", "VERB", "VERB", "NOUN"],
                 ["VerbForm=Ger", "Tense=Past|VerbForm=Fin", "Number=Sing|Person=3|Tense=Pres|VerbForm=Fin",
                  "Number=Ptan"])
    assert [rules.lemma(t) for t in doc] == ["repair", "go", "study", "regards"]  # a plurale tantum stays


def test_combination_replaces_only_unknown_trained_lemmas(nlp):
    rules = EnglishRules(nlp.vocab)
    doc = tagged(nlp.vocab, ["repairing", "Thank", "need", "PM", "fought", "They"],
                 ["VERB", "VERB", "VERB", "NOUN", "VERB", "PRON"],
                 ["VerbForm=Ger", "Mood=Imp|VerbForm=Fin", "Mood=Ind|Tense=Pres|VerbForm=Fin", "Number=Sing",
                  "Tense=Past|VerbForm=Fin", "Case=Nom|Number=Plur|Person=3|PronType=Prs"])
    trained = ["repaire", "thank", "need", "p.m.", "fought", "they"]
    combined = [rules.combine(t, lemma) for t, lemma in zip(doc, trained)]
    # "repaire" is no verb: the rules' "repair" is; "thank", "need" are known verbs and stay
    # (the rules would give "Thank", "nee"); "p.m." is no plain word, which the index cannot
    # judge; "fought" is an exception of the tables; PRON has no tables.
    assert combined == ["repair", "thank", "need", "p.m.", "fight", "they"]
    # rules_first: the rules' lemma where the index knows it, the trained one otherwise.
    noun = tagged(nlp.vocab, ["PERFORMANCE", "Blorfs"], ["NOUN", "NOUN"], ["Number=Sing", "Number=Plur"])
    assert [rules.combine(t, t.text, rules_first=True) for t in noun] == ["performance", "Blorfs"]
    # A known noun in capitals loses them either way ("cased"); an unknown word keeps its form.
    assert [rules.combine(t, t.text) for t in noun] == ["performance", "Blorfs"]


def test_capitals_of_position_and_emphasis_are_not_kept_in_lemmas(nlp):
    rules = EnglishRules(nlp.vocab)
    words = ["Close", "the", "Board", "NOW", ",", "Keep", "FREE", "ENRON", "NASA", "II", "Board", "."]
    pos = ["VERB", "DET", "NOUN", "ADV", "PUNCT", "VERB", "ADJ", "NOUN", "PROPN", "NUM", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, pos=pos, sent_starts=[True] + [False] * 11)
    lemmas = [rules.cased(t, t.text) for t in doc]
    # Verbs always; a known noun, adjective or adverb in capitals, or capitalised first in its
    # sentence; not "Board" inside a sentence, an unknown word, a proper noun or a numeral.
    assert lemmas == ["close", "the", "Board", "now", ",", "keep", "free", "ENRON", "NASA", "II", "Board", "."]
    doc[2].is_sent_start = True
    assert rules.cased(doc[2], "Board") == "board"


def lemmatizer_with_tree(nlp_blank, mode, form="making", lemma="make"):
    """A lal_lemmatizer whose only edit tree is the one of ``form`` -> ``lemma``."""
    component = nlp_blank.add_pipe("lal_lemmatizer", config={"mode": mode})
    return component, component.trees.add(form, lemma)


@pytest.mark.parametrize("mode,expected", [
    ("trained", ["They", "are", "repaire", "it"]),   # spaCy's trainable_lemmatizer: backoff orth
    ("rules", ["they", "are", "repair", "it"]),      # spaCy's rule lemmatizer: AUX/PRON lowercased
    ("combined", ["They", "are", "repair", "it"]),
])
def test_component_modes(mode, expected):
    nlp = spacy.blank("en")
    component, tree = lemmatizer_with_tree(nlp, mode)
    doc = tagged(nlp.vocab, ["They", "are", "repairing", "it"], ["PRON", "AUX", "VERB", "PRON"],
                 ["", "", "VerbForm=Ger", ""])
    component.set_annotations([doc], [numpy.array([-1, -1, tree, -1])])
    assert [t.lemma_ for t in doc] == expected


def test_preset_lemmas_are_kept_unless_overwrite():
    nlp = spacy.blank("en")
    component, tree = lemmatizer_with_tree(nlp, "combined")
    doc = tagged(nlp.vocab, ["repairing"], ["VERB"], ["VerbForm=Ger"])
    doc[0].lemma_ = "given"
    component.set_annotations([doc], [numpy.array([tree])])
    assert doc[0].lemma_ == "given"
    component.overwrite = True
    component.set_annotations([doc], [numpy.array([tree])])
    assert doc[0].lemma_ == "repair"


def test_rules_mode_needs_no_model_and_tokens_without_pos_do_not_warn():
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_lemmatizer", config={"mode": "rules"})  # never initialized: the model is not run
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # spaCy's rule lemmatizer warns (W108) for a token without POS
        doc = nlp("They Went")
    assert [t.lemma_ for t in doc] == ["they", "went"]  # spaCy's output without POS: lowercased


@pytest.fixture(scope="module")
def trained_tiny(tmp_path_factory):
    """A tiny trainable_lemmatizer pipeline, initialized and saved (spaCy's own component)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("trainable_lemmatizer", config={"min_tree_freq": 1})
    pairs = [("They", "they", "PRON"), ("were", "be", "AUX"), ("making", "make", "VERB"), ("cakes", "cake", "NOUN")]
    examples = []
    for _ in range(2):
        ref = Doc(nlp.vocab, words=[w for w, _, _ in pairs], lemmas=[l for _, l, _ in pairs], pos=[p for *_, p in pairs])
        examples.append(Example(nlp.make_doc(ref.text), ref))
    nlp.initialize(lambda: examples)
    path = tmp_path_factory.mktemp("lemmatizer") / "nlp"
    nlp.to_disk(path)
    return path


def test_an_upgraded_trainable_lemmatizer_keeps_its_files_and_lemmas(trained_tiny, tmp_path):
    old = spacy.load(trained_tiny)
    upgraded = tmp_path / "nlp"
    import shutil

    shutil.copytree(trained_tiny, upgraded)
    upgrade_lemmatizer.upgrade(upgraded)
    with pytest.raises(ValueError, match="already lal_lemmatizer"):
        upgrade_lemmatizer.upgrade(upgraded)
    new = spacy.load(upgraded, config={"components": {"trainable_lemmatizer": {"mode": "trained"}}})
    assert isinstance(new.get_pipe("trainable_lemmatizer"), RuleBackedLemmatizer)
    text = "They were making cakes"
    assert [t.lemma_ for t in new(text)] == [t.lemma_ for t in old(text)]
    new.to_disk(tmp_path / "saved")  # saved again: spaCy's files, byte for byte
    same = filecmp.dircmp(trained_tiny / "trainable_lemmatizer", tmp_path / "saved" / "trainable_lemmatizer")
    assert same.left_list == same.right_list and not same.diff_files


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "  Hello  \n world "])
def test_empty_and_whitespace_docs(trained_tiny, tmp_path, text):
    nlp = spacy.load(trained_tiny, config={"components": {"trainable_lemmatizer": {"factory": "lal_lemmatizer"}}})
    assert nlp.get_pipe("trainable_lemmatizer").mode == "combined"
    doc = nlp(text)
    assert len(doc) == len(nlp.make_doc(text))
    assert all(t.lemma_ for t in doc if not t.is_space)
    assert [d.text for d in nlp.pipe([text, text])] == [text, text]


def test_only_english_takes_the_rules():
    with pytest.raises(ValueError, match="English"):
        spacy.blank("de").add_pipe("lal_lemmatizer")
    spacy.blank("de").add_pipe("lal_lemmatizer", config={"mode": "trained"})
    with pytest.raises(ValueError, match="mode"):
        spacy.blank("en").add_pipe("lal_lemmatizer", config={"mode": "lookup"})


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
def test_the_shipped_pipeline_on_the_verb_list():
    """The shipped lemmatizer is lal_lemmatizer (upgraded by scripts/upgrade_lemmatizer.py); its
    combination gets at least as many of the hand-checked inflected verbs as the rule lemmatizer
    alone and as the trained one, with the pipeline's own POS and morphology."""
    shipped = pipeline_path("en_lal_ewt")
    assert spacy.util.load_config(shipped / "config.cfg")["components"]["trainable_lemmatizer"]["factory"] == "lal_lemmatizer"
    nlp = spacy.load(shipped, exclude=["lal_parser", "lal_srl"])
    items = [json.loads(line) for line in VERBS.read_text(encoding="utf8").splitlines()]
    assert len(items) >= 35
    lemmatizer = nlp.get_pipe("trainable_lemmatizer")
    correct = {}
    for mode in ("trained", "rules", "combined"):
        lemmatizer.mode = mode
        docs = nlp.pipe(item["text"] for item in items)
        correct[mode] = sum(next(t.lemma_ for t in doc if t.text == item["word"]) == item["lemma"]
                            for doc, item in zip(docs, items))
    assert correct["combined"] >= correct["rules"] and correct["combined"] >= correct["trained"], correct
    lemmatizer.mode = "combined"
    doc = nlp("We travelled there and they hyped it while repairing the car.")
    assert [t.lemma_ for t in doc if t.pos_ == "VERB"] == ["travel", "hype", "repair"]


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
@pytest.mark.parametrize("mode", ["combined", "trained", "rules"])
def test_the_fast_path_gives_spacys_choices_and_the_rules_combination(mode, everyday_texts):
    """The component's own loops (no Token per word, memos per word) give what spaCy's
    EditTreeLemmatizer chooses and writes, then EnglishRules.combine on each token."""
    from spacy.pipeline.edit_tree_lemmatizer import EditTreeLemmatizer

    nlp = spacy.load(pipeline_path("en_lal_ewt"), exclude=["lal_parser", "lal_srl", "trainable_lemmatizer"])
    lemmatizer = spacy.load(pipeline_path("en_lal_ewt"), exclude=["lal_parser", "lal_srl"]).get_pipe("trainable_lemmatizer")
    lemmatizer.mode = mode
    texts = everyday_texts + [json.loads(line)["text"] for line in VERBS.read_text(encoding="utf8").splitlines()]
    docs = list(nlp.pipe(texts * 2))  # every word twice: the second time from the memos
    reference = [doc.copy() for doc in docs]
    guesses = lemmatizer.predict(docs)
    if mode != "rules":
        scores = lemmatizer.model.predict(docs)
        expected = EditTreeLemmatizer._scores2guesses_top_k_equals_1(lemmatizer, reference, scores)
        assert all(numpy.array_equal(got, want) for got, want in zip(guesses, expected))
    lemmatizer.set_annotations(docs, guesses)
    if mode != "rules":
        EditTreeLemmatizer.set_annotations(lemmatizer, reference, guesses)
    for doc in reference:
        for token in doc:
            if mode == "combined":
                token.lemma_ = lemmatizer.rules.combine(token, token.lemma_)
            elif mode == "rules":
                token.lemma_ = lemmatizer.rules.lemma(token) or token.lower_
    assert [[t.lemma_ for t in doc] for doc in docs] == [[t.lemma_ for t in doc] for doc in reference]


def test_the_memos_follow_the_trees_and_stay_out_of_pickles():
    import pickle

    nlp = spacy.blank("en")
    component, tree = lemmatizer_with_tree(nlp, "combined")
    doc = tagged(nlp.vocab, ["repairing"], ["VERB"], ["VerbForm=Ger"])
    component.set_annotations([doc], [numpy.array([tree])])
    assert doc[0].lemma_ == "repair" and component._memo("_applies")
    assert not pickle.loads(pickle.dumps(component))._memo("_applies")
    component.trees = type(component.trees)(nlp.vocab.strings)  # as loading other trees does
    assert not component._memo("_applies")
    other = component.trees.add("making", "mak")  # the same tree id, another tree
    doc = tagged(nlp.vocab, ["making"], ["VERB"], ["VerbForm=Ger"])
    component.mode = "trained"
    component.set_annotations([doc], [numpy.array([other])])
    assert other == tree and doc[0].lemma_ == "mak"
