"""scripts/experiments/tree_arc_disagreement.py (docs/decoders.md): an arc that hangs a child
constituent on a sibling's word, not on its parent's head, counted by which head gold takes."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "experiments"))
from tree_arc_disagreement import disagreements  # noqa: E402

# Mary borrowed a book from the library .  (S (NP Mary) (VP borrowed (NP a book) (PP from (NP the library))) .)
SPANS = [(0, 8, ("S",)), (0, 1, ("NP",)), (1, 7, ("VP",)), (2, 4, ("NP",)), (4, 7, ("PP",)), (5, 7, ("NP",))]
HEADS = [1, 1, 3, 1, 6, 6, 3, 1]  # library -> book: an nmod across the VP's PP
DEPS = ["nsubj", "root", "det", "obj", "case", "det", "nmod", "punct"]


def test_the_pp_hung_on_the_sibling_noun_is_found_and_judged_by_gold():
    verb_gold = HEADS[:6] + [1, 1]
    assert disagreements(HEADS, DEPS, verb_gold, [(0, 8, SPANS)]) == {("VP", "PP", "nmod"): {"tree": 1}}
    assert disagreements(HEADS, DEPS, HEADS, [(0, 8, SPANS)]) == {("VP", "PP", "nmod"): {"arc": 1}}


def test_arcs_that_follow_the_tree_and_conventional_sibling_arcs_are_not_counted():
    consistent = HEADS[:6] + [1, 1]
    assert disagreements(consistent, DEPS, consistent, [(0, 8, SPANS)]) == {}
    conj = DEPS[:6] + ["conj", "punct"]  # UD hangs conjuncts and cc on a sibling by convention
    assert disagreements(HEADS, conj, HEADS, [(0, 8, SPANS)]) == {}
    # a tree stored at a later token: its spans are relative to it
    shifted = [h + 3 for h in HEADS]
    assert disagreements([0, 1, 2] + shifted, ["x"] * 3 + DEPS, [0, 1, 2] + shifted, [(3, 8, SPANS)]) == {
        ("VP", "PP", "nmod"): {"arc": 1}}
