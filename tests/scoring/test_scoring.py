"""Scorers against numbers derived by hand from the reference definitions.

EVALB: evalb.c + COLLINS.prm; UD: conll18_ud_eval.py v1.2; SRL: srl-eval.pl
(CoNLL-2005). The fixtures in tests/data/scoring were also run through the real
tools; their outputs are quoted where used.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_lal.corpora.ptb import read_trees
from spacy_lal.scoring.evalb import COLLINS, EvalbParams, evalb, score_tree_files
from spacy_lal.scoring.srl_eval import (
    Argument,
    SrlFormatError,
    parse_props,
    score_props_files,
    score_srl,
)
from spacy_lal.scoring.ud import UDError, parse_conllu, score_ud

DATA = Path(__file__).parents[1] / "data" / "scoring"
ROOT = Path(__file__).parents[2]


def run_evalb(gold: str, test: str, params: EvalbParams = COLLINS):
    return evalb(read_trees(gold), read_trees(test), params)


# --- EVALB ------------------------------------------------------------------------------


def test_evalb_top_function_tags_and_advp_prt():
    # After deleting TOP and the "." word: S(0,4) NP(0,2) VP(2,4) PRT~ADVP(3,4).
    # NP-SBJ is cut to NP; PRT = ADVP (EQ_LABEL) -> 4/4 matched. Tags: RP vs RB wrong.
    result = run_evalb(
        "(TOP (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PRT (RP down))) (. .)))",
        "(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat) (ADVP (RB down))) (. .)))",
    )
    (sent,) = result.sentences
    assert (sent.matched, sent.gold_brackets, sent.test_brackets) == (4, 4, 4)
    assert sent.length == 5  # "." counts for the length (only -NONE- does not)
    assert (sent.words, sent.correct_tags) == (4, 3)
    assert result.all.f1 == 1.0 and result.all.complete_match == 1.0


def test_evalb_unary_chain_brackets_count_separately():
    # Gold S(0,1) S(0,1) VP(0,1): three brackets of one extent; test S VP: two.
    # Gold brackets take test brackets greedily: S-S, S-(none), VP-VP -> 2 matched.
    result = run_evalb("(TOP (S (S (VP (VB Go))) (. !)))", "(TOP (S (VP (VB Go)) (. !)))")
    assert (result.all.matched, result.all.gold_brackets, result.all.test_brackets) == (2, 3, 2)
    assert result.all.recall == pytest.approx(2 / 3)
    assert result.all.precision == 1.0
    assert result.all.complete_match == 0.0


def test_evalb_duplicate_brackets_are_a_multiset():
    # Gold NP(0,1) twice; test once -> 3 of 4 gold brackets, 3 of 3 test brackets.
    gold = "(TOP (S (NP (NP (NN a))) (VP (VB b))))"
    single = "(TOP (S (NP (NN a)) (VP (VB b))))"
    result = run_evalb(gold, single)
    assert (result.all.matched, result.all.gold_brackets, result.all.test_brackets) == (3, 4, 3)
    result = run_evalb(single, gold)
    assert (result.all.matched, result.all.gold_brackets, result.all.test_brackets) == (3, 3, 4)


def test_evalb_punctuation_only_constituent_disappears():
    # PRN covers "," and ":" only: after deleting them it is empty, so deleted.
    result = run_evalb(
        "(TOP (S (NP (NN a)) (PRN (, ,) (: --)) (VP (VB b))))",
        "(TOP (S (NP (NN a)) (VP (VB b))))",
    )
    assert (result.all.matched, result.all.gold_brackets, result.all.test_brackets) == (3, 3, 3)
    assert result.all.complete_match == 1.0
    assert result.sentences[0].length == 4  # punctuation counts for the length


def test_evalb_none_elements():
    # Words left: "go" only. NP-SBJ and the object NP cover -NONE- only: deleted.
    # Length counts "go" and "." but not the two -NONE- words.
    result = run_evalb(
        "(TOP (S (NP-SBJ (-NONE- *)) (VP (VB go) (NP (-NONE- *T*-1))) (. .)))",
        "(TOP (S (VP (VB go)) (. .)))",
    )
    (sent,) = result.sentences
    assert (sent.length, sent.words) == (2, 1)
    assert (sent.matched, sent.gold_brackets, sent.test_brackets) == (2, 2, 2)


def test_evalb_crossing_brackets():
    # gold S(0,5) NP(0,1) VP(1,5) NP(2,3) PP(3,5) NP(4,5)
    # test S(0,5) NP(0,2) VP(2,5) NP(2,3) PP(3,5) NP(4,5): 4 matched;
    # test NP(0,2) crosses gold VP(1,5) (0 < 1 < 2 < 5): 1 crossing.
    result = run_evalb(
        "(TOP (S (NP (NN a)) (VP (VB b) (NP (NN c)) (PP (IN d) (NP (NN e))))))",
        "(TOP (S (NP (NN a) (VB b)) (VP (NP (NN c)) (PP (IN d) (NP (NN e))))))",
    )
    (sent,) = result.sentences
    assert (sent.matched, sent.gold_brackets, sent.test_brackets, sent.crossing) == (4, 6, 6, 1)
    assert result.all.no_crossing == 0.0 and result.all.two_or_less_crossing == 1.0


def test_evalb_unlabelled_root_is_a_bracket():
    # evalb.c reads "( (S" as a bracket labelled "", which no DELETE_LABEL removes.
    gold = "( (S (NP (NN a)) (VP (VB b))))"
    result = run_evalb(gold, gold)
    assert (result.all.matched, result.all.gold_brackets) == (4, 4)
    result = run_evalb(gold, "(TOP (S (NP (NN a)) (VP (VB b))))")
    assert (result.all.matched, result.all.gold_brackets, result.all.test_brackets) == (3, 4, 3)


def test_evalb_errors_and_empty_sentences_are_reported_not_counted():
    gold = "\n".join(
        [
            "(TOP (S (NP (NN x)) (VP (VB y))))",
            "(TOP (S (NP (NN x)) (VP (VB y))))",
            "(TOP (S (NP (NN x)) (VP (VB y))))",
            "(TOP (S (, ,) (. .)))",
        ]
    )
    test = "\n".join(
        [
            "(TOP (S (NP (NN x)) (VP (VB y) (NN z))))",  # 3 words: length error
            "(TOP (S (NP (NN x)) (VP (VB q))))",  # word error
            "(TOP (S (. .)))",  # no word left: skipped
            "(TOP (S (. .)))",  # empty gold and test: skipped
        ]
    )
    result = run_evalb(gold, test)
    assert [(s.id, s.status, s.message) for s in result.errors] == [
        (1, 1, "Length unmatch (2|3)"),
        (2, 1, "Words unmatch (y|q)"),
        (3, 2, "No words in the test sentence"),
        (4, 2, "No words in the test sentence"),
    ]
    totals = result.all
    assert (totals.sentences, totals.error_sentences, totals.skip_sentences) == (4, 2, 2)
    assert totals.valid_sentences == 0 and totals.gold_brackets == 0
    assert (totals.precision, totals.recall, totals.f1, totals.complete_match) == (0, 0, 0, 0)


def test_evalb_number_of_trees_must_match():
    with pytest.raises(ValueError, match="Number of trees differs: 2 gold, 1 test"):
        run_evalb("(S (NN a)) (S (NN b))", "(S (NN a))")


def test_evalb_cutoff_counts_punctuation_in_length():
    # 40 words and a final "." have length 41: out of the len<=40 block.
    long = "(TOP (S " + " ".join("(NN w)" for _ in range(40)) + " (. .)))"
    short = "(TOP (S (NN w) (. .)))"
    result = run_evalb(long + "\n" + short, long + "\n" + short)
    assert [s.length for s in result.sentences] == [41, 2]
    assert result.all.sentences == 2 and result.cutoff.sentences == 1
    assert result.all.words == 41  # 40 + 1 after deleting punctuation


def test_evalb_fixture_equals_evalb_output():
    # evalb -p COLLINS.prm evalb_gold.mrg evalb_test.mrg prints (All):
    # 9 sentences, 3 errors, 1 skipped, 5 valid; R 80.95 P 85.00 F 82.93;
    # complete match 40.00, average crossing 0.20, tagging accuracy 93.33;
    # totals: 17 matched, 21 gold, 20 test, 1 crossing, 15 words, 14 tags.
    result = score_tree_files(DATA / "evalb_gold.mrg", DATA / "evalb_test.mrg")
    a = result.all
    assert (a.sentences, a.error_sentences, a.skip_sentences, a.valid_sentences) == (9, 3, 1, 5)
    assert (a.matched, a.gold_brackets, a.test_brackets, a.crossing) == (17, 21, 20, 1)
    assert (a.words, a.correct_tags) == (15, 14)
    assert [round(100 * x, 2) for x in (a.recall, a.precision, a.f1, a.complete_match)] == [
        80.95,
        85.00,
        82.93,
        40.00,
    ]
    assert round(a.average_crossing, 2) == 0.20
    assert round(100 * a.tagging_accuracy, 2) == 93.33
    assert [s.id for s in result.errors] == [6, 7, 8, 9]


def test_evalb_gold_against_gold():
    result = score_tree_files(DATA / "evalb_gold.mrg", DATA / "evalb_gold.mrg")
    # Sentence 8 is punctuation only: EVALB skips it even against itself.
    assert [s.id for s in result.errors] == [8]
    assert result.all.f1 == result.all.complete_match == result.all.tagging_accuracy == 1.0


# --- CoNLL 2018 UD ----------------------------------------------------------------------

GOLD_CONLLU = """\
# text = vámonos al mar.
1-2\tvámonos\t_\t_\t_\t_\t_\t_\t_\t_
1\tvamos\tir\tVERB\t_\t_\t0\troot\t_\t_
2\tnos\tnosotros\tPRON\t_\t_\t1\tobj\t_\t_
3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_
3\ta\ta\tADP\t_\t_\t5\tcase\t_\t_
4\tel\tel\tDET\t_\t_\t5\tdet\t_\t_
5\tmar\tmar\tNOUN\t_\t_\t1\tobl:arg\t_\t_
5.1\tir\tir\tVERB\t_\t_\t_\t_\t1:conj\t_
6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_

1\tA\t_\tNOUN\t_\t_\t3\tnsubj\t_\t_
2\tB\t_\tVERB\t_\t_\t0\troot\t_\t_
3\tC\t_\tNOUN\t_\t_\t2\tobj\t_\t_
4\tD\t_\tADV\t_\t_\t1\tadvmod\t_\t_

"""


def conllu_rows(text: str, changes: dict) -> str:
    """Replace (HEAD, DEPREL) of the words of the first sentence by their ID."""
    first, rest = text.split("\n\n", 1)
    lines = []
    for line in first.splitlines():
        cols = line.split("\t")
        if cols[0] in changes:
            cols[6], cols[7] = changes[cols[0]]
        lines.append("\t".join(cols))
    return "\n".join(lines) + "\n\n" + rest


def test_ud_gold_against_gold():
    gold = parse_conllu(GOLD_CONLLU)
    # 6 + 4 words: MWT lines and the empty node 5.1 are not words.
    assert len(gold.words) == 10
    result = score_ud(gold, gold)
    for prf in (result.uas, result.las, result.uas_nopunct, result.las_nopunct):
        assert prf.precision == prf.recall == prf.f1 == 1.0


def test_ud_multiword_tokens_subtypes_nonprojective_punct():
    # Sentence 2 is non-projective (arc D<-A spans B, whose head is the root) and
    # predicted right. In sentence 1: "el" gets a wrong head, "." a wrong head,
    # "nos" a wrong label; "mar" obl vs gold obl:arg is right (subtypes ignored).
    system = conllu_rows(
        GOLD_CONLLU, {"2": ("1", "iobj"), "4": ("1", "det"), "5": ("1", "obl"), "6": ("5", "punct")}
    )
    result = score_ud(parse_conllu(GOLD_CONLLU), parse_conllu(system))
    # UAS: vamos nos a mar + A B C D = 8 of 10; LAS: also loses nos -> 7 of 10.
    assert (result.uas.correct, result.uas.gold, result.uas.system) == (8, 10, 10)
    assert (result.las.correct, result.las.gold, result.las.system) == (7, 10, 10)
    assert result.uas.f1 == result.uas.precision == result.uas.recall == 0.8
    # Without the gold PUNCT word ".": 9 words, 8 and 7 correct.
    assert (result.uas_nopunct.correct, result.uas_nopunct.gold, result.uas_nopunct.system) == (8, 9, 9)
    assert (result.las_nopunct.correct, result.las_nopunct.gold) == (7, 9)
    assert result.las_per_type["obl"].f1 == 1.0
    assert (result.las_per_type["obj"].gold, result.las_per_type["obj"].system) == (2, 1)


def test_ud_different_tokenization_aligned_like_the_official_scorer():
    # The system has "vámonos" as one word. The multi-word span "vámonos" holds
    # gold [vamos, nos] and system [vámonos]: no common FORM, nothing aligned. Then
    # a, el (inside "al" on both sides, LCS), mar and "." align: 4 words.
    system = """\
1\tvámonos\t_\tVERB\t_\t_\t0\troot\t_\t_
2-3\tal\t_\t_\t_\t_\t_\t_\t_\t_
2\ta\t_\tADP\t_\t_\t4\tcase\t_\t_
3\tel\t_\tDET\t_\t_\t4\tdet\t_\t_
4\tmar\t_\tNOUN\t_\t_\t1\tobl\t_\t_
5\t.\t_\tPUNCT\t_\t_\t1\tpunct\t_\t_

"""
    gold_first = GOLD_CONLLU.split("\n\n")[0] + "\n\n"
    result = score_ud(parse_conllu(gold_first), parse_conllu(system))
    assert (result.words.correct, result.words.gold, result.words.system) == (4, 6, 5)
    # a and el: heads "mar" aligned on both sides -> right. mar and ".": their
    # system head "vámonos" is not aligned to gold "vamos" -> wrong.
    assert (result.uas.correct, result.uas.gold, result.uas.system) == (2, 6, 5)
    assert result.uas.f1 == pytest.approx(2 * 2 / 11)
    assert result.uas.precision == pytest.approx(2 / 5)
    assert result.las.correct == 2


def test_ud_rejects_what_the_official_scorer_rejects():
    line = "{}\tw\t_\tX\t_\t_\t{}\tdep\t_\t_"
    with pytest.raises(UDError, match="cycle"):
        parse_conllu("\n".join([line.format(1, 2), line.format(2, 1), line.format(3, 0)]) + "\n\n")
    with pytest.raises(UDError, match="exactly one root"):
        parse_conllu("\n".join([line.format(1, 0), line.format(2, 0)]) + "\n\n")
    with pytest.raises(UDError, match="outside"):
        parse_conllu(line.format(1, 2) + "\n\n")
    with pytest.raises(UDError, match="10 tab-separated"):
        parse_conllu("1\tw\t_\n\n")
    with pytest.raises(UDError, match="differ"):
        one = parse_conllu(line.format(1, 0) + "\n\n")
        other = parse_conllu(line.format(1, 0).replace("\tw\t", "\tv\t") + "\n\n")
        score_ud(one, other)


# --- srl-eval.pl --------------------------------------------------------------------------


def test_srl_fixture_equals_srl_eval():
    # srl-eval.pl srl_gold.props srl_pred.props prints: 2 sentences, 3 propositions,
    # perfect 33.33; Overall 2 correct, 1 excess, 2 missed, P 66.67 R 50.00 F1 57.14;
    # A0 1/0/1, A1 1/0/0, AM-TMP 0/0/1, R-A0 0/1/0; V 2/0/1 (excluded).
    # By hand: prop "say" has the discontinuous A1 + C-A1 and V, all right: perfect.
    # Prop "go": R-A0 excess, A0 right, AM-TMP missed. Sentence 2: the gold prop of
    # "run" has no predicted prop: A0 (and V) missed; the predicted "be" is skipped.
    result = score_props_files(DATA / "srl_gold.props", DATA / "srl_pred.props")
    o = result.overall
    assert (result.sentences, result.propositions, result.perfect_propositions) == (2, 3, 1)
    assert (o.correct, o.excess, o.missed) == (2, 1, 2)
    assert [round(100 * x, 2) for x in (o.precision, o.recall, o.f1, result.perfect)] == [
        66.67,
        50.0,
        57.14,
        33.33,
    ]
    per_label = {k: (v.correct, v.excess, v.missed) for k, v in result.per_label.items()}
    assert per_label == {"A0": (1, 0, 1), "A1": (1, 0, 0), "AM-TMP": (0, 0, 1), "R-A0": (0, 1, 0)}
    v = result.excluded["V"]
    assert (v.correct, v.excess, v.missed) == (2, 0, 1)
    assert len(result.warnings) == 2


def test_srl_gold_against_gold():
    gold = parse_props((DATA / "srl_gold.props").read_text())
    result = score_srl(gold, gold)
    assert result.overall.f1 == result.perfect == 1.0


def props(*columns: str) -> str:
    """Sentence text from whitespace-separated columns (first: the targets)."""
    rows = zip(*(column.split() for column in columns))
    return "\n".join(" ".join(row) for row in rows) + "\n\n"


def test_srl_continuation_arguments_are_one_argument():
    gold = props("- - go - -", "(A1* *) (V*) (C-A1*) *")
    (sentence,) = parse_props(gold)
    (prop,) = sentence.propositions
    assert prop.arguments == (Argument("A1", ((0, 2), (3, 4))), Argument("V", ((2, 3),)))
    # Only the head piece: extent (0,2) is not the gold extent (0,4): 1 excess, 1 missed.
    half = props("- - go - -", "(A1* *) (V*) * *")
    result = score_srl(parse_props(gold), parse_props(half))
    assert (result.overall.correct, result.overall.excess, result.overall.missed) == (0, 1, 1)
    # Same extent, different pieces: still wrong.
    other = props("- - go - -", "(A1*) * (V*) (C-A1*) *")
    result = score_srl(parse_props(gold), parse_props(other))
    assert (result.overall.correct, result.overall.excess, result.overall.missed) == (0, 1, 1)
    # A C-A1 without an A1 before it is a plain A1.
    (sentence,) = parse_props(props("go - -", "(V*) (C-A1*) *"))
    assert sentence.propositions[0].arguments[1] == Argument("A1", ((1, 2),))


def test_srl_reference_arguments_and_v_exclusion():
    gold = props("go - - - -", "(V*) * (A0*) (R-A0*) *")
    # R-A0 labelled A0: wrong (R- is a label of its own); V is excluded, so a wrong
    # V changes nothing overall but shows in the excluded table.
    pred = props("go - - - -", "(V* *) (A0*) (A0*) *")
    result = score_srl(parse_props(gold), parse_props(pred))
    assert (result.overall.correct, result.overall.excess, result.overall.missed) == (1, 1, 1)
    assert result.per_label["R-A0"].missed == 1
    v = result.excluded["V"]
    assert (v.correct, v.excess, v.missed) == (0, 1, 1)
    assert result.perfect == 0.0
    only_v_wrong = props("go - - - -", "(V* *) (A0*) (R-A0*) *")
    result = score_srl(parse_props(gold), parse_props(only_v_wrong))
    assert result.overall.f1 == 1.0 and result.perfect == 1.0


def test_srl_nested_brackets_and_errors():
    # Nested phrases are arguments too: A1 (0,3) and A0 (1,2).
    (sentence,) = parse_props(props("- - - go", "(A1* (A0*) *) (V*)"))
    assert [a.label for a in sentence.propositions[0].arguments] == ["A1", "A0", "V"]
    with pytest.raises(SrlFormatError, match="do not align"):
        score_srl(parse_props(props("go -", "(V*) *")), parse_props(props("go", "(V*)")))
    with pytest.raises(SrlFormatError, match="Number of sentences"):
        score_srl(parse_props(props("go", "(V*)")), [])
    with pytest.raises(SrlFormatError, match="unclosed"):
        parse_props(props("go -", "(V* (A0*"))
    with pytest.raises(SrlFormatError, match="2 target verbs but 1 argument columns"):
        parse_props(props("go go", "(V*) (V*)"))


# --- spaCy scorers ------------------------------------------------------------------------


@pytest.fixture
def nlp():
    import spacy

    import spacy_lal.scoring.spacy_scorers  # noqa: F401  (registers the scorers)

    return spacy.blank("en")


def test_registered_names():
    from spacy.util import registry

    import spacy_lal.scoring.spacy_scorers  # noqa: F401

    for name in (
        "spacy-lal.constituency_scorer.v1",
        "spacy-lal.dependency_scorer.v1",
        "spacy-lal.srl_scorer.v1",
    ):
        assert callable(registry.scorers.get(name)())


def _parsed(nlp, words, heads, deps, pos, spaces=None):
    from spacy.tokens import Doc

    return Doc(nlp.vocab, words=words, spaces=spaces, heads=heads, deps=deps, pos=pos)


def test_spacy_dependency_scorer(nlp):
    from spacy.training import Example
    from spacy.util import registry

    scorer = registry.scorers.get("spacy-lal.dependency_scorer.v1")()
    words = ["I", "saw", "it", "."]
    pos = ["PRON", "VERB", "PRON", "PUNCT"]
    gold = _parsed(nlp, words, [1, 1, 1, 1], ["nsubj", "ROOT", "obj", "punct"], pos)
    pred = _parsed(nlp, words, [1, 1, 1, 2], ["nsubj", "ROOT", "iobj", "punct"], pos)
    scores = scorer([Example(pred, gold)])
    # UAS 3/4 ("." wrong), LAS 2/4; without "." 3/3 and 2/3.
    assert scores["dep_uas"] == 0.75 and scores["dep_las"] == 0.5
    assert scores["dep_uas_nopunct"] == 1.0
    assert scores["dep_las_nopunct"] == pytest.approx(2 / 3)
    assert scores["dep_las_per_type"]["obj"]["r"] == 0.0
    # Another tokenization of the same text: "saw it" split differently.
    split = _parsed(
        nlp, ["I", "sa", "w", "it", "."], [1, 1, 1, 1, 1], ["nsubj", "ROOT", "dep", "obj", "punct"],
        ["PRON", "VERB", "X", "PRON", "PUNCT"], spaces=[True, False, True, False, False],
    )
    scores = scorer([Example(split, gold)])
    # Aligned by characters: I, it, "." (gold 4 words, system 5). Their system head
    # "sa" covers only part of "saw", so it is aligned to nothing: 0 correct.
    assert scores["dep_uas"] == 0.0


def test_spacy_constituency_and_srl_scorers(nlp):
    from spacy.training import Example
    from spacy.util import registry

    from spacy_lal.doc.extensions import set_frames, set_tree
    from spacy_lal.doc.frames import FrameData

    def doc_with(words, tags, spans, frames=()):
        from spacy.tokens import Doc

        doc = Doc(nlp.vocab, words=words, tags=tags)
        set_tree(doc[:], spans)
        set_frames(doc, frames)
        return doc

    words = ["The", "cat", "sat", "."]
    tags = ["DT", "NN", "VBD", "."]
    gold_spans = [(0, 4, ("S",)), (0, 2, ("NP",)), (2, 3, ("VP",))]
    gold = doc_with(words, tags, gold_spans, [FrameData(2, None, ((0, 2, "ARG0"),))])
    pred = doc_with(words, tags, [(0, 4, ("S",)), (0, 3, ("NP",))], [FrameData(2, None, ((1, 2, "ARG0"),))])
    trees = registry.scorers.get("spacy-lal.constituency_scorer.v1")()
    srl = registry.scorers.get("spacy-lal.srl_scorer.v1")()
    same = trees([Example(gold, gold)])
    assert same == {"tree_p": 1.0, "tree_r": 1.0, "tree_f": 1.0, "tree_exact": 1.0}
    # Gold S(0,3) NP(0,2) VP(2,3) after deleting "."; predicted S(0,3) NP(0,3).
    scores = trees([Example(pred, gold)])
    assert scores["tree_p"] == 0.5 and scores["tree_r"] == pytest.approx(1 / 3)
    assert scores["tree_exact"] == 0.0
    # Another tokenization ("ca" + "t"): brackets compared in character offsets,
    # S(0,11) NP(0,7) VP(8,11) on both sides ("." deleted) -> all matched.
    from spacy.tokens import Doc

    retok = Doc(nlp.vocab, words=["The", "ca", "t", "sat", "."], spaces=[True, False, True, False, False],
                tags=["DT", "NN", "NN", "VBD", "."])
    set_tree(retok[:], [(0, 5, ("S",)), (0, 3, ("NP",)), (3, 4, ("VP",))])
    assert trees([Example(retok, gold)]) == same
    assert srl([Example(gold, gold)]) == {"srl_p": 1.0, "srl_r": 1.0, "srl_f": 1.0, "srl_perfect": 1.0}
    scores = srl([Example(pred, gold)])
    assert scores["srl_p"] == scores["srl_r"] == scores["srl_perfect"] == 0.0


# --- command line --------------------------------------------------------------------------


def test_cli_json(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "spacy_lal", "score", "trees", "--json", "--allow-errors",
         str(DATA / "evalb_gold.mrg"), str(DATA / "evalb_test.mrg")],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    report = json.loads(out.stdout)
    assert report["all"]["f1"] == 82.93 and report["all"]["recall"] == 80.95
    assert [e["id"] for e in report["errors"]] == [6, 7, 8, 9]
    assert "sentence 6: error: Length unmatch (2|3)" in out.stderr


def test_cli_main_in_process(tmp_path, capsys):
    from spacy_lal.__main__ import main

    assert main(["score", "srl", str(DATA / "srl_gold.props"), str(DATA / "srl_pred.props")]) == 0
    assert "Percentage of perfect props :  33.33" in capsys.readouterr().out
    gold = tmp_path / "gold.conllu"
    gold.write_text(GOLD_CONLLU, encoding="utf8")
    assert main(["score", "deps", "--json", str(gold), str(gold)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["las"]["f1"] == report["uas_nopunct"]["f1"] == 100.0
    # A malformed file is a clear error, exit status 1.
    assert main(["score", "srl", str(DATA / "srl_gold.props"), str(DATA / "evalb_gold.mrg")]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_spacy_dependency_scorer_ignores_label_case(nlp):
    from spacy.training import Example
    from spacy.util import registry

    scorer = registry.scorers.get("spacy-lal.dependency_scorer.v1")()
    words = ["I", "saw", "it"]
    pos = ["PRON", "VERB", "PRON"]
    gold = _parsed(nlp, words, [1, 1, 1], ["nsubj", "root", "obj"], pos)
    pred = _parsed(nlp, words, [1, 1, 1], ["nsubj", "ROOT", "OBJ"], pos)
    assert scorer([Example(pred, gold)])["dep_las"] == 1.0
