"""The frame inventory as data (``pipeline/srl/inventory.py``, ``adapter.FrameChoices``): per row,
the sense classes that form one of the lemma's rolesets with the prior's bonus, and the labels
each roleset allows; the adapter chooses from them."""
import math

import numpy
import spacy

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.doc import propbank
from spacy_lal.pipeline.srl.adapter import FrameScores
from spacy_lal.pipeline.srl.inventory import frame_choices, frame_lemma, learn_phrasal_adverbs
from spacy_lal.pipeline.srl.targets import SENSE_PRIOR_SMOOTHING
from spacy_lal.pipeline.units import Unit

LABELS = ["O", "B-ARG0", "I-ARG0", "B-ARG2", "I-ARG2", "B-ARG4", "I-ARG4", "B-ARGM-TMP", "I-ARGM-TMP", "B-V", "I-V"]
SENSES = ["01", "04", "05", "99"]


def choices_for(words, lemmas, positions, sense_counts=None, prior=0.0, deps=None, heads=None):
    nlp = spacy.blank("en")
    doc = spacy.tokens.Doc(nlp.vocab, words=words, lemmas=lemmas, deps=deps, heads=heads)
    unit = Unit(0, 0, len(doc), tuple(range(len(doc))))
    scores = FrameScores([0] * len(positions), positions, [numpy.zeros((len(doc), len(LABELS)))] * len(positions),
                         [numpy.zeros(len(SENSES), dtype="float32")] * len(positions))
    return frame_choices("lal_srl", [doc], [unit], scores, labels=LABELS, senses=SENSES, sense_lemmas={},
                         sense_counts=sense_counts or {}, sense_prior=prior)


def test_a_lemmas_rolesets_are_its_allowed_classes_and_their_roles():
    choices = choices_for(["I", "borrowed", "it", "yesterday"], ["I", "borrow", "it", "yesterday"], [1])
    assert choices.constrained.tolist() == [True]
    # borrow has borrow.01 alone: class "01" is allowed, with ARG0-ARG3 and every modifier.
    assert numpy.isfinite(choices.sense_bonus[0]).tolist() == [True, False, False, False]
    assert choices.rolesets[0][0] == "borrow.01" and choices.rolesets[0][choices.fallback] == "borrow.01"
    allowed = dict(zip(LABELS, choices.role_masks[0, 0].tolist()))
    assert allowed["B-ARG0"] and allowed["B-ARG2"] and allowed["B-ARGM-TMP"] and allowed["B-V"] and allowed["O"]
    assert not allowed["B-ARG4"] and not allowed["I-ARG4"]  # borrow.01 defines no ARG4
    sense_scores = numpy.asarray([0.0, 9.0, 9.0, 9.0])  # the head prefers classes that are no roleset
    assert choices.choose(0, sense_scores) == 0


def test_the_fallback_and_the_unconstrained_row():
    choices = choices_for(["He", "zorbled", "pick"], ["he", "zorble", "pick"], [1, 2])
    assert choices.constrained.tolist() == [False, True]
    assert choices.choose(0, numpy.zeros(len(SENSES))) is None  # no roleset: no sense
    # pick.01 forms class "01"; with no sense scores the row takes the lemma's first roleset.
    assert choices.choose(1, None) == choices.fallback
    assert choices.rolesets[1][choices.fallback] == propbank.rolesets("pick")[0].id


def test_a_nominal_predicate_takes_the_rolesets_that_list_it_as_an_alias():
    # "evacuation" has no frame file; evacuate.01 lists it as a noun alias. The prior counts
    # the roleset under its own lemma.
    words = ["The", "evacuation", "of", "the", "town"]
    choices = choices_for(words, ["the", "evacuation", "of", "the", "town"], [1],
                          sense_counts={"evacuate": {"01": 4}}, prior=0.5)
    assert choices.constrained.tolist() == [True]
    assert choices.rolesets[0][0] == "evacuate.01" and choices.rolesets[0][choices.fallback] == "evacuate.01"
    assert choices.sense_bonus[0, 0] == 0.5 * math.log(4 + SENSE_PRIOR_SMOOTHING)
    assert choices.choose(0, numpy.asarray([0.0, 9.0, 9.0, 9.0])) == 0
    allowed = dict(zip(LABELS, choices.role_masks[0, 0].tolist()))
    assert allowed["B-ARG0"] and allowed["B-ARG2"] and not allowed["B-ARG4"]


def test_the_phrasal_lemma_and_the_prior_bonus():
    words = ["She", "picked", "it", "up"]
    choices = choices_for(words, ["she", "pick", "it", "up"], [1], deps=["nsubj", "ROOT", "obj", "compound:prt"],
                          heads=[1, 1, 1, 1], sense_counts={"pick_up": {"05": 3}}, prior=0.5)
    assert choices.rolesets[0][1] == "pick_up.04" and choices.rolesets[0][2] == "pick_up.05"
    assert choices.sense_bonus[0, 2] == 0.5 * math.log(3 + SENSE_PRIOR_SMOOTHING)
    assert choices.sense_bonus[0, 1] == 0.5 * math.log(0 + SENSE_PRIOR_SMOOTHING)
    # Equal head scores: the prior decides; a far better head score overrides it.
    assert choices.choose(0, numpy.zeros(len(SENSES), dtype="float32")) == 2
    assert choices.choose(0, numpy.asarray([0, 5, 0, 0], dtype="float32")) == 1


def _look_forward_doc(words, deps, heads, lemmas=None):
    nlp = spacy.blank("en")
    lemmas = lemmas or [w.lower() for w in words]
    return spacy.tokens.Doc(nlp.vocab, words=words, lemmas=lemmas, deps=deps, heads=heads)


def test_an_adverb_makes_the_phrasal_lemma_only_where_the_table_lists_the_pair():
    # UD-EWT: "forward" in "look forward to" is the verb's advmod, not compound:prt.
    doc = _look_forward_doc(["We", "look", "forward", "to", "it"], ["nsubj", "ROOT", "advmod", "case", "obl"],
                            [1, 1, 1, 4, 1])
    assert frame_lemma(doc[1], {}) == "look"
    assert frame_lemma(doc[1], {}, {"look_forward"}) == "look_forward"
    # An adverb before the verb, or a pair the table lacks, leaves the verb's lemma.
    before = _look_forward_doc(["They", "back", "went"], ["nsubj", "advmod", "ROOT"], [2, 2, 2], ["they", "back", "go"])
    assert frame_lemma(before[2], {}, {"go_back"}) == "go"
    assert frame_lemma(doc[1], {}, {"go_back"}) == "look"
    # A particle child is phrasal without the table, as before.
    up = _look_forward_doc(["She", "picked", "it", "up"], ["nsubj", "ROOT", "obj", "compound:prt"], [1, 1, 1, 1],
                           ["she", "pick", "it", "up"])
    assert frame_lemma(up[1], {}) == "pick_up"


def test_the_ud_label_a_clear_scheme_parse_stores_is_read():
    """In spaCy's scheme ("clear") the UD label is stored beside ``dep_``: an adverb the clear
    scheme relabels still makes the phrasal lemma, a UD particle under another label too."""
    from spacy_lal.pipeline.parser.clear import UD_ATTR, register_ud_extensions

    register_ud_extensions()
    doc = _look_forward_doc(["We", "look", "forward", "to", "it"], ["nsubj", "ROOT", "npadvmod", "prep", "pobj"],
                            [1, 1, 1, 1, 3])
    assert frame_lemma(doc[1], {}, {"look_forward"}) == "look"
    doc[2]._.set(UD_ATTR, ["advmod", -1])
    assert doc[2]._.ud_dep == "advmod"
    assert frame_lemma(doc[1], {}, {"look_forward"}) == "look_forward"
    up = _look_forward_doc(["She", "picked", "it", "up"], ["nsubj", "ROOT", "dobj", "advmod"], [1, 1, 1, 1],
                           ["she", "pick", "it", "up"])
    assert frame_lemma(up[1], {}) == "pick"
    up[3]._.set(UD_ATTR, ["compound:prt", -2])
    assert frame_lemma(up[1], {}) == "pick_up"


def test_a_tables_phrasal_lemma_stands_for_a_verb_only_with_its_particle():
    # EWT train's table maps "stir" and "pick" to the phrasal lemma most of their uses had.
    table = {"stir": "stir_up", "pick": "pick_up", "takeover": "take_over"}

    def doc(words, lemmas, deps, heads, pos):
        return spacy.tokens.Doc(spacy.blank("en").vocab, words=words, lemmas=lemmas, deps=deps, heads=heads, pos=pos)

    stir = doc(["Stir", "in", "the", "sugar"], ["stir", "in", "the", "sugar"], ["ROOT", "case", "det", "obl"],
               [0, 3, 3, 0], ["VERB", "ADP", "DET", "NOUN"])
    assert frame_lemma(stir[0], table) == "stir"
    card = doc(["She", "picked", "a", "card"], ["she", "pick", "a", "card"], ["nsubj", "ROOT", "det", "obj"],
               [1, 1, 3, 1], ["PRON", "VERB", "DET", "NOUN"])
    assert frame_lemma(card[1], table) == "pick"
    up = doc(["She", "picked", "it", "up"], ["she", "pick", "it", "up"], ["nsubj", "ROOT", "obj", "compound:prt"],
             [1, 1, 1, 1], ["PRON", "VERB", "PRON", "ADP"])
    assert frame_lemma(up[1], table) == "pick_up"
    # A noun whose roleset is phrasal keeps the table's lemma.
    noun = doc(["The", "takeover", "failed"], ["the", "takeover", "fail"], ["det", "nsubj", "ROOT"], [1, 2, 2],
               ["DET", "NOUN", "VERB"])
    assert frame_lemma(noun[1], table) == "take_over"


def test_the_phrasal_adverbs_are_the_pairs_gold_senses_chose_more_often_than_not():
    def frame(words, lemmas, deps, heads, sense):
        doc = _look_forward_doc(words, deps, heads, lemmas)
        return doc[1], sense

    rows = [
        frame(["We", "look", "forward"], ["we", "look", "forward"], ["nsubj", "ROOT", "advmod"], [1, 1, 1], "look_forward.03"),
        frame(["We", "went", "back"], ["we", "go", "back"], ["nsubj", "ROOT", "advmod"], [1, 1, 1], "go.02"),
        frame(["We", "went", "back"], ["we", "go", "back"], ["nsubj", "ROOT", "advmod"], [1, 1, 1], "go_back.01"),
        # "quickly" forms no PropBank lemma with "run"; a frame without a sense counts for nothing.
        frame(["We", "ran", "quickly"], ["we", "run", "quickly"], ["nsubj", "ROOT", "advmod"], [1, 1, 1], "run.02"),
        frame(["We", "look", "forward"], ["we", "look", "forward"], ["nsubj", "ROOT", "advmod"], [1, 1, 1], None),
    ]
    tokens, senses = zip(*rows)
    # go_back: once of twice, not more often than not.
    assert learn_phrasal_adverbs(tokens, senses, {}) == ["look_forward"]
    # Lemmas are mapped as frame_lemma maps them.
    assert learn_phrasal_adverbs(tokens[1:3], senses[1:3], {"go": "went"}) == []


def test_a_verb_keeps_a_lemmatizers_lemma_that_propbank_has():
    # The table maps the form "found" to find (it is learned without a lemmatizer); a lemmatizer
    # that gives "founded" the lemma "found" means found.01.
    table = {"found": "find", "decision": "decide"}

    def token(word, lemma, pos):
        doc = spacy.tokens.Doc(spacy.blank("en").vocab, words=["She", word, "it"], pos=["PRON", pos, "PRON"],
                               lemmas=None if lemma is None else ["she", lemma, "it"])
        return doc[1]

    assert frame_lemma(token("founded", "found", "VERB"), table) == "found"
    # Without a lemma the key is the form, which the table maps.
    assert frame_lemma(token("found", None, "VERB"), table) == "find"
    # A noun, and a lemma PropBank has no rolesets of, go through the table.
    assert frame_lemma(token("decision", "decision", "NOUN"), table) == "decide"
    assert frame_lemma(token("found", "found", "NOUN"), table) == "find"
