"""lal_srl's ``whose_phrases`` (relatives.py): a *whose* phrase is one R- argument, as PropBank
annotates it, where the dependencies give the phrase."""
import spacy
from spacy.tokens import Doc

from spacy_lal.doc.frames import FrameData
from spacy_lal.pipeline.srl.relatives import whose_phrases


def make_doc(words, heads, deps, pos):
    return Doc(spacy.blank("en").vocab, words=words, heads=heads, deps=deps, pos=pos)


def stolen_doc():
    # The woman whose car was stolen called the police .  (UD-EWT's analysis)
    return make_doc(
        ["The", "woman", "whose", "car", "was", "stolen", "called", "the", "police", "."],
        [1, 6, 3, 5, 5, 1, 6, 8, 6, 6],
        ["det", "nsubj", "nmod:poss", "nsubj:pass", "aux:pass", "acl:relcl", "ROOT", "det", "obj", "punct"],
        ["DET", "NOUN", "PRON", "NOUN", "AUX", "VERB", "VERB", "DET", "NOUN", "PUNCT"],
    )


def sister_doc():
    # I have a friend whose older sister lives in Paris .
    return make_doc(
        ["I", "have", "a", "friend", "whose", "older", "sister", "lives", "in", "Paris", "."],
        [1, 1, 3, 1, 6, 6, 7, 3, 9, 7, 1],
        ["nsubj", "ROOT", "det", "obj", "nmod:poss", "amod", "nsubj", "acl:relcl", "case", "obl", "punct"],
        ["PRON", "VERB", "DET", "NOUN", "PRON", "ADJ", "NOUN", "VERB", "ADP", "PROPN", "PUNCT"],
    )


def test_a_lone_whose_grows_to_its_phrase_and_the_pieces_inside_go():
    doc = sister_doc()
    frame = FrameData(7, "live.01", ((2, 4, "ARG0"), (4, 5, "R-ARG0"), (5, 7, "ARG0"), (8, 10, "ARGM-LOC")))
    (fixed,) = whose_phrases(doc, [frame])
    assert fixed.arguments == ((2, 4, "ARG0"), (4, 7, "R-ARG0"), (8, 10, "ARGM-LOC"))
    assert fixed.predicate == 7 and fixed.sense == "live.01"


def test_an_antecedent_joined_to_the_phrase_is_split_for_the_clauses_predicate_only():
    doc = stolen_doc()
    stolen = FrameData(5, "steal.01", ((0, 4, "ARG1"),))
    called = FrameData(6, "call.02", ((0, 4, "ARG0"), (7, 9, "ARG1")))  # not the clause's predicate
    fixed_stolen, fixed_called = whose_phrases(doc, [stolen, called])
    assert fixed_stolen.arguments == ((0, 2, "ARG1"), (2, 4, "R-ARG1"))
    assert fixed_called == called


def test_a_whose_phrase_labelled_as_its_antecedent_is_the_reference_role():
    doc = sister_doc()
    frame = FrameData(7, "live.01", ((2, 4, "ARG0"), (4, 7, "ARG0"), (8, 10, "ARGM-LOC")))
    (fixed,) = whose_phrases(doc, [frame])
    assert fixed.arguments == ((2, 4, "ARG0"), (4, 7, "R-ARG0"), (8, 10, "ARGM-LOC"))
    # Another role before it, no argument before it, or the predicate of another clause: unchanged.
    for other in (
        FrameData(7, "live.01", ((2, 4, "ARG1"), (4, 7, "ARG0"))),
        FrameData(7, "live.01", ((4, 7, "ARG0"), (8, 10, "ARGM-LOC"))),
        FrameData(1, "have.03", ((0, 1, "ARG0"), (4, 7, "ARG0"))),
    ):
        assert whose_phrases(doc, [other])[0] == other


def test_frames_without_a_whose_phrase_are_the_same_objects():
    doc = stolen_doc()
    right = FrameData(5, "steal.01", ((0, 2, "ARG1"), (2, 4, "R-ARG1")))
    assert whose_phrases(doc, [right])[0] is right
    plain = make_doc(["Dogs", "bark", "."], [1, 1, 1], ["nsubj", "ROOT", "punct"], ["NOUN", "VERB", "PUNCT"])
    frames = [FrameData(1, "bark.01", ((0, 1, "ARG0"),))]
    assert whose_phrases(plain, frames) is frames


def test_nothing_changes_where_the_dependencies_do_not_give_the_phrase():
    # "whose" heads nothing after it (a parse that attached it elsewhere): no phrase to grow to.
    doc = make_doc(
        ["I", "have", "a", "friend", "whose", "sister", "lives", "here"],
        [1, 1, 3, 1, 3, 6, 3, 6],
        ["nsubj", "ROOT", "det", "obj", "nmod", "nsubj", "acl:relcl", "advmod"],
        ["PRON", "VERB", "DET", "NOUN", "PRON", "NOUN", "VERB", "ADV"],
    )
    frame = FrameData(6, "live.01", ((2, 4, "ARG0"), (4, 5, "R-ARG0"), (5, 6, "ARG0")))
    assert whose_phrases(doc, [frame]) == [frame]


def test_a_grown_phrase_that_would_cross_another_argument_is_left_alone():
    doc = sister_doc()
    frame = FrameData(7, "live.01", ((4, 5, "R-ARG0"), (6, 9, "ARG0")))  # "sister lives in": crosses
    assert whose_phrases(doc, [frame]) == [frame]

