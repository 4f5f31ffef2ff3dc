"""lal_srl's ``auxiliary_frames`` (issue #51): frames of auxiliary and modal rolesets without
arguments are left out of doc._.srl by default, kept when asked for, when given and when scored."""
import pytest

import spacy_lal
from spacy_lal.doc import propbank
from spacy_lal.evaluation import keep_auxiliary_frames
from spacy_lal.pipeline.srl.predicate_marking import mark_predicates

# Auxiliaries of every kind PropBank 3.4 annotates: be.03, do.01, have.01, modal go.04 and have.02.
TEXTS = [
    "The cars were sold last week.",
    "Did you see the game?",
    "Has anyone seen my keys?",
    "We are going to need a bigger boat.",
    "I have to leave early because my train was cancelled.",
    "She has been working here since 2010.",
]

pytestmark = pytest.mark.skipif("en_lal_ewt" not in spacy_lal.shipped_pipelines(), reason="the shipped pipeline is not built")


@pytest.fixture(scope="module")
def nlp():
    return spacy_lal.load()


def frames(nlp, keep):
    srl = nlp.get_pipe("lal_srl")
    before = srl.cfg["auxiliary_frames"]
    srl.cfg["auxiliary_frames"] = keep
    try:
        return [[(f.predicate.i, f.sense, str(f)) for f in doc._.srl] for doc in nlp.pipe(TEXTS)]
    finally:
        srl.cfg["auxiliary_frames"] = before


def is_clutter(doc_frames_entry, doc):
    i, sense, _ = doc_frames_entry
    frame = next(f for f in doc._.srl if f.predicate.i == i)
    return propbank.is_auxiliary(sense) and not frame.arguments


def test_auxiliary_rolesets_are_read_from_the_frame_files():
    auxiliary = {r for r in ("be.01", "be.03", "do.01", "do.02", "have.01", "have.02", "have.03", "go.04", "go.01")
                 if propbank.is_auxiliary(r)}
    assert auxiliary == {"be.03", "do.01", "have.01", "have.02", "go.04"}
    assert not propbank.is_auxiliary(None) and not propbank.is_auxiliary("nonesuch.01")


def test_left_out_by_default_and_kept_on_request(nlp):
    assert nlp.get_pipe("lal_srl").cfg["auxiliary_frames"] is False
    kept = frames(nlp, True)
    dropped = frames(nlp, False)
    docs = list(nlp.pipe(TEXTS))  # the default: auxiliary frames without arguments left out
    for text, all_frames, default, doc in zip(TEXTS, kept, dropped, docs):
        nlp.get_pipe("lal_srl").cfg["auxiliary_frames"] = True
        full = nlp(text)
        nlp.get_pipe("lal_srl").cfg["auxiliary_frames"] = False
        expected = [f for f in all_frames if not is_clutter(f, full)]
        assert default == expected, text
        assert [(f.predicate.i, f.sense) for f in doc._.srl] == [(i, s) for i, s, _ in expected]
    # The labeller does find PropBank's auxiliary frames here, so the setting has work to do.
    assert sum(len(a) - len(d) for a, d in zip(kept, dropped)) >= 3
    # ... and what is left has none without arguments.
    for doc in docs:
        assert not [f for f in doc._.srl if propbank.is_auxiliary(f.sense) and not f.arguments]


def test_a_given_auxiliary_predicate_keeps_its_frame(nlp):
    doc = nlp.make_doc("The cars were sold last week.")
    mark_predicates(doc, [2, 3])  # "were", "sold"
    for _, pipe in nlp.pipeline:
        doc = pipe(doc)
    assert [f.predicate.i for f in doc._.srl] == [2, 3]


def test_evaluation_keeps_every_frame(nlp):
    srl = nlp.get_pipe("lal_srl")
    try:
        keep_auxiliary_frames(nlp)
        assert srl.cfg["auxiliary_frames"] is True
    finally:
        srl.cfg["auxiliary_frames"] = False


def test_the_setting_is_checked():
    import spacy

    from spacy_lal.pipeline.srl.component import SemanticRoleLabeler

    blank = spacy.blank("en")
    with pytest.raises(ValueError, match="auxiliary_frames"):  # spaCy's config check
        blank.add_pipe("lal_srl", config={"auxiliary_frames": "yes"})
    srl = blank.add_pipe("lal_srl")
    with pytest.raises(ValueError, match="auxiliary_frames must be true or false"):
        SemanticRoleLabeler(blank.vocab, srl.model, auxiliary_frames="yes")
    with pytest.raises(ValueError, match="auxiliary_frames must be true or false"):
        srl.configure(auxiliary_frames=1)
