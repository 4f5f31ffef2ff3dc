"""The joint span + dependency decoder against brute-force enumeration of every lexicalized binary
tree on small inputs, and against `cky` and `eisner` at the extremes of lam."""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_lal.decode import JointResult, cky, eisner, joint, joint_batch
from decode_cases import SETTINGS, TOL, binary_trees, crosses, draw_scores, rng_from


@st.composite
def problems(draw, max_n: int = 5):
    """(chart [n+1, n+1, L], arcs [n+1, n+1], lam) with entries that are never read set to NaN."""
    rng = rng_from(draw)
    n = draw(st.integers(0, max_n))
    L = draw(st.integers(2, 4))
    tied = draw(st.booleans())
    chart = draw_scores(rng, (n + 1, n + 1, L), tied)
    arcs = draw_scores(rng, (n + 1, n + 1), tied)
    chart[np.tril_indices(n + 1)] = np.nan  # the lower triangle and the diagonal
    chart[..., 0] = np.nan  # label 0 counts 0 whatever it holds
    arcs[0] = np.nan
    np.fill_diagonal(arcs, np.nan)
    lam = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
    return chart, arcs, lam


# ----------------------------------------------------------------------------- brute force


@lru_cache(maxsize=None)
def lexicalized_trees(i: int, j: int):
    """Every binary bracketing of words i..j-1 with every head choice, as
    (head, spans, arcs): head 0-based, spans a tuple of (i, j), arcs a tuple of (dependent, head)
    in the 1-based numbering of `eisner`."""
    if j == i + 1:
        return ((i, ((i, j),), ()),)
    out = []
    for k in range(i + 1, j):
        for hl, sl, al in lexicalized_trees(i, k):
            for hr, sr, ar in lexicalized_trees(k, j):
                spans = ((i, j),) + sl + sr
                out.append((hl, spans, al + ar + ((hr + 1, hl + 1),)))  # the left child heads
                out.append((hr, spans, al + ar + ((hl + 1, hr + 1),)))  # the right child heads
    return tuple(out)


def label_value(chart, i: int, j: int, root: bool) -> float:
    """Best value over the admissible labels of one span (the root must be labelled)."""
    real = [float(x) for x in chart[i, j, 1:]]
    return max(real) if root else max([0.0] + real)


def brute_joint(chart, arcs, lam, no_cross=(), require=()) -> float:
    """Best objective over every labelled lexicalized binary tree (that no `no_cross` or
    `require` span crosses and that has every `require` span as a labelled node; -inf if none).
    The label part is a sum of per-span terms whose labels are chosen independently, so its
    maximum over the labellings of a tree is the sum of the per-span maxima (checked against
    full enumeration below)."""
    n = chart.shape[0] - 1
    if n == 0:
        return 0.0
    constraints = list(no_cross) + list(require)
    best = -np.inf
    for head, spans, deps in lexicalized_trees(0, n):
        if any(crosses(s, c) for s in spans for c in constraints):
            continue
        if any(tuple(r) not in spans for r in require):
            continue
        labels = sum(
            label_value(chart, i, j, (i, j) == (0, n) or (i, j) in require) for i, j in spans
        )
        arc_score = float(arcs[head + 1, 0]) + sum(float(arcs[d, h]) for d, h in deps)
        best = max(best, labels + lam * arc_score)
    return best


def brute_joint_full(chart, arcs, lam) -> float:
    """As `brute_joint`, enumerating every labelling of every tree too (tiny inputs only)."""
    n, L = chart.shape[0] - 1, chart.shape[2]
    best = -np.inf
    for head, spans, deps in lexicalized_trees(0, n):
        arc_score = float(arcs[head + 1, 0]) + sum(float(arcs[d, h]) for d, h in deps)
        for labels in itertools.product(range(L), repeat=len(spans)):
            if labels[0] == 0:  # the root (0, n) comes first and must be labelled
                continue
            value = sum(float(chart[i, j, lab]) for (i, j), lab in zip(spans, labels) if lab)
            best = max(best, value + lam * arc_score)
    return best


def check_structure(result: JointResult, chart, arcs, lam, require=()) -> None:
    """The spans form a pre-order full binary tree, the heads are those of a head assignment of
    that tree, and the returned score is the objective of the returned structure."""
    n = chart.shape[0] - 1
    spans, heads = result.spans, result.heads
    assert spans.dtype == np.int32 and spans.shape == (max(2 * n - 1, 0), 3)
    assert heads.dtype == np.int64 and heads.shape == (n + 1,) and heads[0] == -1
    if n == 0:
        assert result.score == 0.0
        return
    rows = [tuple(int(x) for x in row) for row in spans]
    pos = 0

    def walk(i: int, j: int) -> int:
        """Check the subtree over (i, j) starting at rows[pos]; return its head (1-based)."""
        nonlocal pos
        a, b, lab = rows[pos]
        assert (a, b) == (i, j)
        assert 0 <= lab < chart.shape[2]
        assert lab != 0 or (i, j) != (0, n), "the root must be labelled"
        assert lab != 0 or (i, j) not in require, "a required span must be labelled"
        pos += 1
        if j == i + 1:
            return i + 1
        k = rows[pos][1]  # the left child (i, k) comes next
        assert i < k < j
        left, right = walk(i, k), walk(k, j)
        assert heads[right] == left or heads[left] == right, (i, j, heads)
        return left if heads[right] == left else right

    root_dep = walk(0, n)
    assert pos == len(rows)
    assert heads[root_dep] == 0 and np.count_nonzero(heads[1:] == 0) == 1
    labels = sum(float(chart[i, j, lab]) for i, j, lab in rows if lab)
    arc_score = sum(float(arcs[d, heads[d]]) for d in range(1, n + 1))
    assert result.score == pytest.approx(labels + lam * arc_score, abs=TOL)
    # Each label is the best for its span (the label choice is independent of the rest).
    for i, j, lab in rows:
        value = 0.0 if lab == 0 else float(chart[i, j, lab])
        need = (i, j) == (0, n) or (i, j) in require
        assert value == pytest.approx(label_value(chart, i, j, need), abs=TOL)


def arc_total(arcs, heads) -> float:
    return sum(float(arcs[d, heads[d]]) for d in range(1, len(heads)))


# ----------------------------------------------------------------------------- exactness


@SETTINGS
@given(problems())
def test_joint_matches_brute_force(problem):
    chart, arcs, lam = problem
    result = joint(chart, arcs, lam)
    check_structure(result, chart, arcs, lam)
    assert result.score == pytest.approx(brute_joint(chart, arcs, lam), abs=TOL)


@settings(max_examples=25, deadline=None)
@given(problems(max_n=3))
def test_factorized_brute_force_is_full_enumeration(problem):
    chart, arcs, lam = problem
    if chart.shape[0] == 1:
        return
    assert brute_joint(chart, arcs, lam) == pytest.approx(brute_joint_full(chart, arcs, lam))


@SETTINGS
@given(problems(max_n=12))
def test_lam_zero_is_cky(problem):
    chart, arcs, _ = problem
    result = joint(chart, arcs, 0.0)
    check_structure(result, chart, arcs, 0.0)
    assert result.score == pytest.approx(cky(chart).score, abs=TOL)


@SETTINGS
@given(problems(max_n=12))
def test_large_lam_gives_eisner_tree(problem):
    """With integer arcs and lam above the whole range of label scores, the arc score dominates:
    the heads score exactly as Eisner's best projective tree with one root dependent. With real
    arcs the gap is bounded by that range / lam."""
    chart, arcs, _ = problem
    n = chart.shape[0] - 1
    labelled = np.nan_to_num(chart[..., 1:][np.triu_indices(n + 1, 1)])
    spread = 2 * n * float(np.abs(labelled).max(initial=0.0)) + 1.0  # > max - min label score
    best = arc_total(arcs, eisner(arcs))
    ints = np.array_equal(np.nan_to_num(arcs), np.round(np.nan_to_num(arcs)))
    lam = spread if ints else 1e3
    result = joint(chart, arcs, lam)
    check_structure(result, chart, arcs, lam)
    got = arc_total(arcs, result.heads)
    assert got <= best + TOL
    if ints:
        assert got == pytest.approx(best, abs=TOL)
    else:
        assert got >= best - spread / lam - TOL


# ----------------------------------------------------------------------------- constraints


@SETTINGS
@given(problems(max_n=6), st.data())
def test_constraints_match_brute_force(problem, data):
    """Constraints from one random tree (so they can all hold) as in `cky`: the result obeys
    them, is the constrained optimum, and its heads are a head assignment of its tree."""
    chart, arcs, lam = problem
    n = chart.shape[0] - 1
    if n == 0:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    trees = binary_trees(0, n)
    tree = trees[rng.integers(len(trees))]
    no_cross = [s for s in tree if rng.random() < 0.3]
    require = [s for s in tree if rng.random() < 0.3]
    result = joint(chart, arcs, lam, no_cross=no_cross, require=require)
    check_structure(result, chart, arcs, lam, require)
    nodes = {(i, j) for i, j, _ in result.spans.tolist()}
    for span in no_cross + require:
        assert not any(crosses(span, s) for s in nodes)
        assert span in nodes
    assert result.score == pytest.approx(
        brute_joint(chart, arcs, lam, no_cross, require), abs=TOL
    )
    # lam = 0 is the constrained CKY; the same constraints in a batch give the same result.
    assert joint(chart, arcs, 0.0, no_cross=no_cross, require=require).score == pytest.approx(
        cky(chart, no_cross=no_cross, require=require).score, abs=TOL
    )
    (batched,) = joint_batch([chart], [arcs], lam, no_cross=[no_cross], require=[require])
    np.testing.assert_array_equal(batched.spans, result.spans)
    np.testing.assert_array_equal(batched.heads, result.heads)


def test_unsatisfiable_constraints():
    chart, arcs = np.zeros((4, 4, 3), np.float32), np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match=r"joint: constraints cannot all hold: span \(0, 2\) crosses span \(1, 3\)"):
        joint(chart, arcs, require=[(0, 2), (1, 3)])
    with pytest.raises(ValueError, match="crosses"):
        joint(chart, arcs, no_cross=[(0, 2)], require=[(1, 3)])
    with pytest.raises(ValueError, match=r"joint_batch: sentence\[1\]: constraints cannot all hold"):
        joint_batch([chart, chart], [arcs, arcs], no_cross=[None, [(0, 2), (1, 3)]])
    with pytest.raises(ValueError, match=r"joint: require: span \(2, 5\) is not a span of a 3-word"):
        joint(chart, arcs, require=[(2, 5)])
    with pytest.raises(ValueError, match="no_cross has 1 entries for 2 charts"):
        joint_batch([chart, chart], [arcs, arcs], no_cross=[[(0, 2)]])


def test_required_span_labelled_even_against_the_scores():
    """A required span is labelled though every label scores below 0, and the heads stay the
    lexical heads of the tree it forces."""
    chart = np.full((4, 4, 3), -1.0, np.float32)
    chart[0, 3, 1] = 1.0
    chart[0, 2, 1:] = 5.0  # wants ((0 1) 2)
    arcs = np.zeros((4, 4), np.float32)
    result = joint(chart, arcs, require=[(1, 3)])
    rows = [tuple(r) for r in result.spans.tolist()]
    assert rows == [(0, 3, 1), (0, 1, 0), (1, 3, 1), (1, 2, 0), (2, 3, 0)]
    check_structure(result, chart, arcs, 1.0, [(1, 3)])


# ----------------------------------------------------------------------------- API


@settings(max_examples=20, deadline=None)
@given(st.lists(problems(max_n=8), min_size=0, max_size=6))
def test_batch_equals_single(batch):
    lam = 0.7
    results = joint_batch([c for c, _, _ in batch], [a for _, a, _ in batch], lam)
    assert len(results) == len(batch)
    for (chart, arcs, _), got in zip(batch, results):
        want = joint(chart, arcs, lam)
        np.testing.assert_array_equal(got.spans, want.spans)
        np.testing.assert_array_equal(got.heads, want.heads)
        assert got.score == want.score


def test_small_sentences():
    empty = joint(np.zeros((1, 1, 3), np.float32), np.zeros((1, 1), np.float32))
    assert empty.spans.shape == (0, 3) and empty.heads.tolist() == [-1] and empty.score == 0.0
    chart = np.full((2, 2, 3), np.nan, np.float32)
    chart[0, 1, 1:] = [-5.0, -2.0]
    arcs = np.full((2, 2), np.nan, np.float32)
    arcs[1, 0] = 3.0
    one = joint(chart, arcs, 0.5)
    assert one.spans.tolist() == [[0, 1, 2]]  # the root is labelled even when every label is < 0
    assert one.heads.tolist() == [-1, 0]
    assert one.score == pytest.approx(-2.0 + 0.5 * 3.0)


def test_known_structure():
    """Label scores that want ((0 1) 2) and arcs that want 2 <- 1 -> 3 give exactly that."""
    chart = np.zeros((4, 4, 2), np.float32)
    chart[0, 3, 1] = 1.0
    chart[0, 2, 1] = 1.0
    arcs = np.full((4, 4), -5.0, np.float32)
    arcs[2, 1] = arcs[3, 1] = arcs[1, 0] = 1.0
    result = joint(chart, arcs)
    assert [tuple(r) for r in result.spans.tolist()] == [
        (0, 3, 1), (0, 2, 1), (0, 1, 0), (1, 2, 0), (2, 3, 0)
    ]
    assert result.heads.tolist() == [-1, 0, 1, 1]
    assert result.score == pytest.approx(2.0 + 3.0)


def test_accepts_other_float_types_and_masks():
    rng = np.random.default_rng(1)
    chart = rng.normal(size=(5, 5, 3))
    arcs = rng.normal(size=(5, 5))
    want = joint(chart.astype(np.float32), arcs.astype(np.float32))
    chart[np.tril_indices(5)] = -np.inf
    arcs[0] = np.inf
    np.fill_diagonal(arcs, -np.inf)
    got = joint(np.asfortranarray(chart), arcs)  # float64, Fortran order: converted
    np.testing.assert_array_equal(got.heads, want.heads)
    np.testing.assert_array_equal(got.spans, want.spans)


def _ok(n=3, L=2):
    return np.zeros((n + 1, n + 1, L), np.float32), np.zeros((n + 1, n + 1), np.float32)


def _with(array, index, value):
    array = array.copy()
    array[index] = value
    return array


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: joint(_ok()[0], _ok(4)[1]), ValueError, r"joint: arcs must have shape \(4, 4\)"),
        (lambda: joint(_ok()[0][:, :3], _ok()[1]), ValueError, r"joint: chart must have shape"),
        (lambda: joint(_ok(L=1)[0], _ok()[1]), ValueError, "at least one real label"),
        (lambda: joint(_ok()[0][0], _ok()[1]), ValueError, "3 dimensions"),
        (lambda: joint(_ok()[0], _ok()[1][:, :3]), ValueError, r"joint: arcs must be square"),
        (lambda: joint(_ok()[0].astype(int), _ok()[1]), TypeError, "floating-point"),
        (lambda: joint(_ok()[0], _ok()[1].astype(np.int32)), TypeError, "floating-point"),
        (lambda: joint(_with(_ok()[0], (0, 2, 1), np.nan), _ok()[1]), ValueError,
         "joint: chart holds NaN"),
        (lambda: joint(_with(_ok()[0], (0, 3, 1), np.inf), _ok()[1]), ValueError,
         "joint: chart holds NaN"),
        (lambda: joint(_ok()[0], _with(_ok()[1], (2, 1), np.inf)), ValueError,
         "joint: arcs holds NaN"),
        (lambda: joint(_ok()[0], _with(_ok()[1], (3, 0), np.nan)), ValueError,
         "joint: arcs holds NaN"),
        (lambda: joint(_ok()[0], _with(_ok()[1], (0, 1), np.inf)), None, None),  # row 0: unread
        (lambda: joint(*_ok(), lam=np.inf), ValueError, "lam must be finite"),
        (lambda: joint(*_ok(), lam="1"), TypeError, "lam must be a real number"),
        (lambda: joint(*_ok(), lam=True), TypeError, "lam must be a real number"),
        (lambda: joint_batch([_ok()[0]], []), ValueError, "0 arc matrices for 1 charts"),
        (lambda: joint_batch(_ok()[0], [_ok()[1]]), TypeError, "list of arrays"),
        (lambda: joint_batch([_ok()[0], _ok()[0]], [_ok()[1], _ok(2)[1]]), ValueError,
         r"joint_batch: arcs\[1\] must have shape"),
        (lambda: joint_batch([_ok()[0], _ok()[0]], [_ok()[1], _with(_ok()[1], (1, 2), np.inf)]),
         ValueError, r"joint_batch: arcs\[1\] holds NaN"),
    ],
)
def test_validation_errors(call, error, match):
    if error is None:
        call()
        return
    with pytest.raises(error, match=match):
        call()
