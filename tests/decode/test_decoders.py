"""Decoders against brute-force enumeration of every tree / sequence on small inputs."""
from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_lal.decode import (
    CORE_ROLES,
    BIOScheme,
    bio_argmax,
    bio_argmax_batch,
    bio_viterbi,
    bio_viterbi_batch,
    chu_liu_edmonds,
    chu_liu_edmonds_batch,
    cky,
    cky_batch,
    eisner,
    eisner_batch,
    repair_bio,
)
from decode_cases import (
    SCHEMES,
    SETTINGS,
    TOL,
    bio_case,
    binary_trees,
    crosses,
    draw_scores,
    rng_from,
    valid_sequences,
)

# ----------------------------------------------------------------------------- CKY


def span_value(chart, gold, i, j, label) -> float:
    value = 0.0 if label == 0 else float(chart[i, j, label])
    if gold is not None and label != gold[i, j]:
        value += 1.0
    return value


def brute_cky(chart, gold=None, no_cross=(), require=(), full_labels=False):
    """Best objective (score + cost if gold) over all labelled binary trees, or None if none."""
    n, L = chart.shape[0] - 1, chart.shape[2]
    best = None
    for tree in binary_trees(0, n):
        if any(crosses(s, c) for s in tree for c in list(no_cross) + list(require)):
            continue
        if any(tuple(r) not in tree for r in require):
            continue
        options = []
        for i, j in tree:
            low = 1 if (i, j) == (0, n) or (i, j) in require else 0
            options.append([span_value(chart, gold, i, j, lab) for lab in range(low, L)])
        if full_labels:  # every labelling, not just the best label per span
            total = max(sum(combo) for combo in itertools.product(*options))
        else:
            total = sum(max(o) for o in options)
        best = total if best is None else max(best, total)
    return best


def check_tree(result, chart, gold=None, loss=False):
    """The result is a pre-order full binary tree whose score and cost are what it says."""
    n = chart.shape[0] - 1
    spans = result.spans
    assert spans.dtype == np.int32 and spans.shape == (max(2 * n - 1, 0), 3)
    if n == 0:
        return
    assert tuple(spans[0, :2]) == (0, n) and spans[0, 2] != 0

    def walk(pos, i, j):  # pre-order: returns the next position
        assert tuple(spans[pos, :2]) == (i, j)
        if j == i + 1:
            return pos + 1
        k = spans[pos + 1, 1]
        assert spans[pos + 1, 0] == i and i < k < j
        return walk(walk(pos + 1, i, k), k, j)

    assert walk(0, 0, n) == len(spans)
    score = sum(0.0 if l == 0 else float(chart[i, j, l]) for i, j, l in spans)
    assert result.score == pytest.approx(score, abs=TOL)
    cost = sum(int(l != gold[i, j]) for i, j, l in spans) if loss else 0
    assert result.cost == cost


@st.composite
def cky_case(draw, max_n=6, max_labels=4):
    rng = rng_from(draw)
    n = draw(st.integers(1, max_n))
    L = draw(st.integers(2, max_labels))
    chart = draw_scores(rng, (n + 1, n + 1, L), draw(st.booleans()))
    return rng, chart


def random_gold(rng: np.random.Generator, n: int, L: int, flat: float = 0.4) -> np.ndarray:
    """A gold label chart from a random binary tree whose internal spans are sometimes dropped."""
    trees = binary_trees(0, n)
    tree = trees[rng.integers(len(trees))]
    gold = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i, j in tree:
        if (i, j) == (0, n) or rng.random() > flat:
            gold[i, j] = rng.integers(1, L)
    return gold


def random_tree_gold(rng: np.random.Generator, n: int, L: int) -> np.ndarray:
    """A gold label chart from a random binary tree grown top-down (random_gold enumerates all trees:
    too many for long sentences), 40% of its inner spans unlabelled."""
    gold = np.zeros((n + 1, n + 1), dtype=np.int64)
    stack = [(0, n)]
    while stack:
        i, j = stack.pop()
        gold[i, j] = rng.integers(1, L) if (i, j) == (0, n) or rng.random() < 0.6 else 0
        if j > i + 1:
            k = int(rng.integers(i + 1, j))
            stack += [(i, k), (k, j)]
    return gold


@SETTINGS
@given(cky_case())
def test_cky_argmax_matches_brute_force(case):
    _, chart = case
    result = cky(chart)
    check_tree(result, chart)
    assert result.score == pytest.approx(brute_cky(chart), abs=TOL)


@SETTINGS
@given(cky_case(max_n=4, max_labels=3))
def test_cky_matches_brute_force_over_every_labelling(case):
    rng, chart = case
    gold = random_gold(rng, chart.shape[0] - 1, chart.shape[2])
    assert cky(chart).score == pytest.approx(brute_cky(chart, full_labels=True), abs=TOL)
    result = cky(chart, gold)
    assert result.score + result.cost == pytest.approx(
        brute_cky(chart, gold, full_labels=True), abs=TOL
    )


@SETTINGS
@given(cky_case())
def test_cky_loss_augmented_matches_brute_force(case):
    rng, chart = case
    n, L = chart.shape[0] - 1, chart.shape[2]
    gold = random_tree_gold(rng, n, L)
    result = cky(chart, gold)
    check_tree(result, chart, gold, loss=True)
    assert result.score + result.cost == pytest.approx(brute_cky(chart, gold), abs=TOL)


@SETTINGS
@given(cky_case())
def test_cky_forced_gold_is_the_gold_tree(case):
    rng, chart = case
    n, L = chart.shape[0] - 1, chart.shape[2]
    gold = random_gold(rng, n, L)
    result = cky(chart, gold, force_gold=True)
    check_tree(result, chart)
    assert result.cost == 0
    labelled = {(i, j): l for i, j, l in result.spans.tolist() if l != 0}
    expected = {(i, j): int(gold[i, j]) for i in range(n + 1) for j in range(i + 1, n + 1)
                if gold[i, j]}
    assert labelled == expected
    gold_score = sum(float(chart[i, j, l]) for (i, j), l in expected.items())
    assert result.score == pytest.approx(gold_score, abs=TOL)
    # The gold tree never beats the loss-augmented optimum (the hinge loss is >= 0).
    augmented = cky(chart, gold)
    assert augmented.score + augmented.cost >= result.score - TOL


@SETTINGS
@given(cky_case(), st.data())
def test_cky_constraints_match_brute_force(case, data):
    rng, chart = case
    n = chart.shape[0] - 1
    # Constraints taken from one random tree are satisfiable together.
    trees = binary_trees(0, n)
    tree = trees[rng.integers(len(trees))]
    no_cross = [s for s in tree if rng.random() < 0.3]
    require = [s for s in tree if rng.random() < 0.3]
    result = cky(chart, no_cross=no_cross, require=require)
    check_tree(result, chart)
    tree_spans = {(i, j): l for i, j, l in result.spans.tolist()}
    for span in no_cross:
        assert not any(crosses(span, s) for s in tree_spans)
    for span in require:
        assert tree_spans.get(span, 0) != 0
    assert result.score == pytest.approx(brute_cky(chart, None, no_cross, require), abs=TOL)
    if data.draw(st.booleans()):
        gold = random_gold(rng, n, chart.shape[2])
        result = cky(chart, gold, no_cross=no_cross, require=require)
        check_tree(result, chart, gold, loss=True)
        assert result.score + result.cost == pytest.approx(
            brute_cky(chart, gold, no_cross, require), abs=TOL
        )


def test_cky_unsatisfiable_constraints():
    chart = np.zeros((4, 4, 3), dtype=np.float32)
    with pytest.raises(ValueError, match=r"\(0, 2\) crosses span \(1, 3\)"):
        cky(chart, require=[(0, 2), (1, 3)])
    with pytest.raises(ValueError, match="crosses"):
        cky(chart, no_cross=[(0, 2)], require=[(1, 3)])
    with pytest.raises(ValueError, match="crosses"):  # crossing no_cross spans cannot both hold
        cky(chart, no_cross=[(0, 2), (1, 3)])
    gold = np.zeros((4, 4), dtype=np.int32)
    gold[0, 3] = gold[0, 2] = 1
    with pytest.raises(ValueError, match=r"required span \(1, 3\) is not a gold"):
        cky(chart, gold, force_gold=True, require=[(1, 3)])
    with pytest.raises(ValueError, match="crosses"):
        cky(chart, gold, force_gold=True, no_cross=[(1, 3)])
    gold[1, 3] = 2
    with pytest.raises(ValueError, match="crosses"):
        cky(chart, gold, force_gold=True)
    with pytest.raises(ValueError, match="gold root"):
        cky(chart, np.zeros((4, 4), dtype=np.int32), force_gold=True)


def test_cky_small_sentences_and_label_zero():
    empty = cky(np.zeros((1, 1, 2), dtype=np.float32))
    assert empty.spans.shape == (0, 3) and empty.score == 0.0 and empty.cost == 0
    chart = np.full((2, 2, 3), -5.0, dtype=np.float32)
    chart[0, 1, 0] = 100.0  # label 0 scores 0 whatever the chart says
    chart[0, 1, 2] = -1.0
    result = cky(chart)
    assert result.spans.tolist() == [[0, 1, 2]] and result.score == pytest.approx(-1.0)
    # Entries that are never read may be non-finite (e.g. masks).
    chart = np.random.default_rng(0).normal(size=(4, 4, 3)).astype(np.float32)
    chart[..., 0] = np.nan
    chart[np.tril_indices(4)] = -np.inf
    check_tree(cky(chart), chart)


def reference_cky(chart, gold=None):
    """Plain-Python CKY with the documented tie-breaking (empty label, then lowest label, then
    leftmost split): the exact spans the vectorised core must return."""
    n, L = chart.shape[0] - 1, chart.shape[2]
    best, label, split = {}, {}, {}
    for w in range(1, n + 1):
        for i in range(n - w + 1):
            j = i + w
            lab, val = None, -np.inf
            for l in range(0 if (i, j) != (0, n) else 1, L):
                v = 0.0 if l == 0 else float(chart[i, j, l])
                if gold is not None and l != gold[i, j]:
                    v += 1.0
                if v > val:
                    lab, val = l, v
            km, m = None, -np.inf
            for k in range(i + 1, j):
                if best[i, k] + best[k, j] > m:
                    km, m = k, best[i, k] + best[k, j]
            best[i, j] = val + (m if w > 1 else 0.0)
            label[i, j], split[i, j] = lab, km
    spans, stack = [], [(0, n)] if n else []
    while stack:
        i, j = stack.pop()
        spans.append([i, j, label[i, j]])
        if j > i + 1:
            stack += [(split[i, j], j), (i, split[i, j])]
    return spans


@SETTINGS
@given(st.data())
def test_cky_vector_kernels_match_reference(data):
    # Sizes around the SIMD widths (labels in blocks of 4 / 16, starts in blocks of 4 / 8), many
    # ties; masks where nothing is read; exact spans against the scalar reference.
    rng = rng_from(data.draw)
    n = data.draw(st.integers(1, 19))
    L = data.draw(st.sampled_from([2, 3, 4, 5, 8, 15, 16, 17, 20, 33, 40]))
    chart = draw_scores(rng, (n + 1, n + 1, L), data.draw(st.booleans()))
    if data.draw(st.booleans()):
        chart[..., 0] = np.nan
        chart[np.tril_indices(n + 1)] = -np.inf
    assert cky(chart).spans.tolist() == reference_cky(chart)
    gold = random_tree_gold(rng, n, L)
    result = cky(chart, gold)
    assert result.spans.tolist() == reference_cky(chart, gold)
    check_tree(result, chart, gold, loss=True)
    # A NaN or inf at any label position of any span that is read is reported.
    i = int(rng.integers(0, n))
    j = int(rng.integers(i + 1, n + 1))
    chart[i, j, rng.integers(1, L)] = rng.choice([np.nan, np.inf, -np.inf])
    for g in (None, gold):
        with pytest.raises(ValueError, match="NaN or infinite"):
            cky(chart, g)
    with pytest.raises(ValueError, match="NaN or infinite"):
        cky(chart, gold, force_gold=True)


# ----------------------------------------------------------------------------- dependencies


@lru_cache(maxsize=None)
def single_root_trees(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All heads arrays [T, n + 1] of single-root trees over n words, and which are projective."""
    trees, projective = [], []
    for heads in itertools.product(range(n + 1), repeat=n):
        heads = (-1,) + heads
        if any(heads[d] == d for d in range(1, n + 1)) or heads.count(0) != 1:
            continue
        ancestors = []
        for d in range(1, n + 1):
            seen, h = {d}, heads[d]
            while h > 0 and h not in seen:
                seen.add(h)
                h = heads[h]
            if h != 0:
                break  # cycle
            ancestors.append(seen | {0})
        else:
            trees.append(heads)
            # Projective: every token between a head and its dependent descends from the head.
            projective.append(all(
                all(heads[d] in ancestors[t - 1] for t in range(min(d, heads[d]) + 1,
                                                                max(d, heads[d])) if t > 0)
                for d in range(1, n + 1)
            ))
    return np.array(trees, dtype=np.int64), np.array(projective)


def tree_score(scores: np.ndarray, heads: np.ndarray) -> np.ndarray:
    n = scores.shape[0] - 1
    return scores[np.arange(1, n + 1), heads[..., 1:]].astype(np.float64).sum(-1)


def check_heads(heads: np.ndarray, n: int, projective: bool):
    trees, proj = single_root_trees(n)
    assert heads.dtype == np.int64 and heads.shape == (n + 1,)
    match = (trees == heads).all(1)
    assert match.any(), f"{heads} is not a single-root tree"
    if projective:
        assert proj[match.argmax()], f"{heads} is not projective"


@st.composite
def arc_case(draw, max_n=6):
    rng = rng_from(draw)
    n = draw(st.integers(1, max_n))
    return draw_scores(rng, (n + 1, n + 1), draw(st.booleans()))


@SETTINGS
@given(arc_case())
def test_eisner_matches_brute_force(scores):
    n = scores.shape[0] - 1
    heads = eisner(scores)
    check_heads(heads, n, projective=True)
    trees, proj = single_root_trees(n)
    best = tree_score(scores, trees[proj]).max()
    assert tree_score(scores, heads) == pytest.approx(best, abs=TOL)


@SETTINGS
@given(arc_case())
def test_chu_liu_edmonds_matches_brute_force(scores):
    n = scores.shape[0] - 1
    heads = chu_liu_edmonds(scores)
    check_heads(heads, n, projective=False)
    trees, _ = single_root_trees(n)
    best = tree_score(scores, trees).max()
    assert tree_score(scores, heads) == pytest.approx(best, abs=TOL)


def test_single_root_beats_greedy_root_attachment():
    # Every word prefers the root: the unconstrained optimum would attach all of them to it.
    scores = np.zeros((4, 4), dtype=np.float32)
    scores[1:, 0] = 10.0
    for decode in (eisner, chu_liu_edmonds):
        heads = decode(scores)
        assert heads[0] == -1 and (heads == 0).sum() == 1


def test_arc_decoders_small_sentences_and_masks():
    for decode in (eisner, chu_liu_edmonds):
        assert decode(np.zeros((1, 1), dtype=np.float32)).tolist() == [-1]
        assert decode(np.zeros((2, 2), dtype=np.float32)).tolist() == [-1, 0]
        scores = np.random.default_rng(1).normal(size=(5, 5)).astype(np.float32)
        scores[0] = np.nan  # row 0 and the diagonal are never read
        np.fill_diagonal(scores, -np.inf)
        check_heads(decode(scores), 4, projective=decode is eisner)


# ----------------------------------------------------------------------------- BIO


@SETTINGS
@given(bio_case())
def test_bio_viterbi_matches_brute_force(case):
    labels, scores, predicate = case
    n = scores.shape[0]
    scheme = BIOScheme(labels)
    seqs = valid_sequences(labels, n, predicate)
    out = bio_viterbi(scores, scheme, predicate)
    assert isinstance(out, list) and len(out) == n
    assert (seqs == out).all(1).any(), f"{out} is not valid"
    assert scheme.is_valid(out, predicate)
    best = scores[np.arange(n), seqs].astype(np.float64).sum(1).max()
    assert scores[np.arange(n), out].sum() == pytest.approx(best, abs=TOL)


UNIQUE_SCHEME = ["O", "B-V", "I-V", "B-ARG0", "I-ARG0", "B-ARG1", "I-ARG1", "B-ARGM-TMP", "I-ARGM-TMP"]


def role_starts(labels, seqs: np.ndarray, role: str) -> np.ndarray:
    return (seqs == labels.index("B-" + role)).sum(1)


@SETTINGS
@given(st.data())
def test_bio_viterbi_with_unique_roles_matches_brute_force(data):
    labels = tuple(UNIQUE_SCHEME)
    rng = rng_from(data.draw)
    n = data.draw(st.integers(1, 5))
    predicate = data.draw(st.none() | st.integers(0, n - 1))
    scores = draw_scores(rng, (n, len(labels)), False)
    # Make the unconstrained best repeat the core roles often.
    scores[:, labels.index("B-ARG1")] += data.draw(st.sampled_from([0.0, 2.0]))
    scores[:, labels.index("B-ARG0")] += data.draw(st.sampled_from([0.0, 2.0]))
    scheme = BIOScheme(labels)
    seqs = valid_sequences(labels, n, predicate)
    seqs = seqs[(role_starts(labels, seqs, "ARG0") <= 1) & (role_starts(labels, seqs, "ARG1") <= 1)]
    out = bio_viterbi(scores, scheme, predicate, unique_roles=CORE_ROLES)
    assert scheme.is_valid(out, predicate)
    assert all(count <= 1 for count in scheme.started(out, CORE_ROLES).values()), out
    best = scores[np.arange(n), seqs].astype(np.float64).sum(1).max()
    assert scores[np.arange(n), out].sum() == pytest.approx(best, abs=TOL)
    # ARGM roles are not core: they may repeat.
    plain = bio_viterbi(scores, scheme, predicate)
    if all(count <= 1 for count in scheme.started(plain, CORE_ROLES).values()):
        assert out == plain


def test_bio_viterbi_unique_roles_relabels_the_weaker_repeat():
    labels = UNIQUE_SCHEME
    scheme = BIOScheme(labels)
    scores = np.full((4, len(labels)), -5.0, dtype=np.float32)
    scores[0, labels.index("B-ARG0")] = 0.0
    scores[1, labels.index("B-V")] = 0.0
    scores[2, labels.index("B-ARG1")] = 0.0  # ARG1 first, ARGM-TMP second
    scores[2, labels.index("B-ARGM-TMP")] = -1.0
    scores[3, labels.index("B-ARG1")] = 0.5  # the theme: the surer ARG1
    assert bio_viterbi(scores, scheme, 1) == [3, 1, 5, 5]
    assert bio_viterbi(scores, scheme, 1, unique_roles=CORE_ROLES) == [3, 1, 7, 5]
    assert bio_viterbi_batch([scores, scores[:2]], scheme, [1, 1], unique_roles=["ARG1"]) == [[3, 1, 7, 5], [3, 1]]
    with pytest.raises(ValueError, match="bio_viterbi: scores"):
        bio_viterbi(np.full((2, len(labels)), np.nan, dtype=np.float32), scheme, unique_roles=CORE_ROLES)


@SETTINGS
@given(bio_case())
def test_bio_argmax_is_repaired_argmax(case):
    labels, scores, predicate = case
    scheme = BIOScheme(labels)
    out = bio_argmax(scores, scheme, predicate)
    argmax = scores.argmax(1).tolist()
    assert (valid_sequences(labels, len(out), predicate) == out).all(1).any()
    assert out == repair_bio(argmax, scheme, predicate)
    if scheme.is_valid(argmax, predicate):
        assert out == argmax


def test_repair_bio_rules():
    scheme = BIOScheme(["O", "B-V", "I-V", "B-A0", "I-A0", "I-A1"])
    O, BV, IV, BA, IA, IA1 = range(6)
    assert repair_bio([IA, IA, O, IA], scheme) == [BA, IA, O, BA]  # conlleval
    assert repair_bio([IA1, O], scheme) == [O, O]  # no B-A1 in the scheme
    assert repair_bio([O, IA, BV, IV], scheme) == [O, BA, BV, IV]  # no predicate: V is ordinary
    assert repair_bio([BV, O, BA, IV], scheme, predicate=2) == [O, O, BV, IV]
    assert repair_bio([O, IV, O, O], scheme, predicate=2) == [O, O, BV, O]
    assert repair_bio([], scheme) == []


def test_bio_scheme_validation():
    with pytest.raises(ValueError, match="needs 'O'"):
        BIOScheme(["B-A", "I-A"])
    with pytest.raises(ValueError, match="duplicate"):
        BIOScheme(["O", "B-A", "B-A"])
    with pytest.raises(ValueError, match="neither"):
        BIOScheme(["O", "ARG0"])
    no_v = BIOScheme(["O", "B-A", "I-A"])
    with pytest.raises(ValueError, match="no 'B-V'"):
        bio_viterbi(np.zeros((3, 3), dtype=np.float32), no_v, 1)
    with pytest.raises(ValueError, match="not a token"):
        bio_viterbi(np.zeros((3, 3), dtype=np.float32), BIOScheme(SCHEMES[0][:3]), 3)
    with pytest.raises(ValueError, match=r"shape \[n, 3\]"):
        bio_viterbi(np.zeros((3, 4), dtype=np.float32), no_v)
    assert bio_viterbi(np.zeros((0, 3), dtype=np.float32), no_v) == []
    assert bio_argmax(np.zeros((0, 3), dtype=np.float32), no_v) == []


# ----------------------------------------------------------------------------- batches


def test_batches_equal_single_calls():
    rng = np.random.default_rng(7)
    lengths = [0, 1, 5, 17, 3, 40, 2]
    charts = [rng.normal(size=(n + 1, n + 1, 5)).astype(np.float32) for n in lengths]
    golds = [random_gold(rng, n, 5) if 0 < n <= 8 else None for n in lengths]
    for got, chart in zip(cky_batch(charts), charts):
        want = cky(chart)
        assert np.array_equal(got.spans, want.spans) and got.score == want.score
    for got, chart, gold in zip(cky_batch(charts, golds), charts, golds):
        want = cky(chart, gold)
        assert np.array_equal(got.spans, want.spans) and got[1:] == want[1:]
    arcs = [rng.normal(size=(n + 1, n + 1)).astype(np.float32) for n in lengths]
    for batch, single in ((eisner_batch, eisner), (chu_liu_edmonds_batch, chu_liu_edmonds)):
        for got, scores in zip(batch(arcs), arcs):
            assert np.array_equal(got, single(scores))
    scheme = BIOScheme(SCHEMES[0])
    tokens = [rng.normal(size=(n, 5)).astype(np.float32) for n in lengths]
    preds = [None if n == 0 else n // 2 for n in lengths]
    assert bio_viterbi_batch(tokens, scheme, preds) == [
        bio_viterbi(s, scheme, p) for s, p in zip(tokens, preds)
    ]
    assert bio_argmax_batch(tokens, scheme) == [bio_argmax(s, scheme) for s in tokens]
    assert cky_batch([]) == [] and eisner_batch([]) == [] and bio_viterbi_batch([], scheme) == []


def test_batches_run_concurrently():
    # The cores release the GIL and allocate their own workspaces: threads must not interfere.
    rng = np.random.default_rng(3)
    charts = [rng.normal(size=(n + 1, n + 1, 20)).astype(np.float32) for n in range(1, 60)]
    arcs = [rng.normal(size=(n + 1, n + 1)).astype(np.float32) for n in range(1, 60)]
    want = ([r.spans for r in cky_batch(charts)], chu_liu_edmonds_batch(arcs), eisner_batch(arcs))
    with ThreadPoolExecutor(4) as pool:
        jobs = [(pool.submit(cky_batch, charts), pool.submit(chu_liu_edmonds_batch, arcs),
                 pool.submit(eisner_batch, arcs)) for _ in range(4)]
        for c, m, e in jobs:
            assert all(np.array_equal(a.spans, b) for a, b in zip(c.result(), want[0]))
            assert all(np.array_equal(a, b) for a, b in zip(m.result(), want[1]))
            assert all(np.array_equal(a, b) for a, b in zip(e.result(), want[2]))


# ----------------------------------------------------------------------------- validation


def test_inputs_are_converted():
    chart = np.random.default_rng(0).normal(size=(4, 4, 3))
    assert np.array_equal(cky(chart).spans, cky(chart.astype(np.float32)).spans)
    assert np.array_equal(cky(np.asfortranarray(chart)).spans, cky(chart).spans)
    arcs = np.random.default_rng(0).normal(size=(4, 4))
    assert np.array_equal(eisner(arcs.tolist()), eisner(arcs.astype(np.float16)))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: cky(np.zeros((3, 3, 2), dtype=np.int64)), TypeError, "floating-point"),
        (lambda: cky(np.zeros((3, 3, 2), dtype=np.complex64)), TypeError, "floating-point"),
        (lambda: cky(np.zeros((3, 3))), ValueError, "3 dimensions"),
        (lambda: cky(np.zeros((3, 4, 2))), ValueError, r"\[n \+ 1, n \+ 1, L\]"),
        (lambda: cky(np.zeros((3, 3, 1))), ValueError, "L = 1"),
        (lambda: cky(np.full((3, 3, 2), np.nan)), ValueError, "cky: chart holds NaN"),
        (lambda: cky(np.full((3, 3, 2), np.inf)), ValueError, "NaN or infinite"),
        (lambda: cky(np.full((3, 3, 2), 1e300)), ValueError, "float32"),
        (lambda: cky(np.zeros((3, 3, 2)), np.zeros((3, 3))), TypeError, "integer label chart"),
        (lambda: cky(np.zeros((3, 3, 2)), np.zeros((2, 2), int)), ValueError, r"\(3, 3\)"),
        (lambda: cky(np.zeros((3, 3, 2)), np.full((3, 3), 2)), ValueError, r"outside \[0, 2\)"),
        (lambda: cky(np.zeros((3, 3, 2)), force_gold=True), ValueError, "needs a gold"),
        (lambda: cky(np.zeros((3, 3, 2)), no_cross=[(1, 1)]), ValueError, r"\(1, 1\) is not"),
        (lambda: cky(np.zeros((3, 3, 2)), require=[(0, 3)]), ValueError, r"\(0, 3\) is not"),
        (lambda: cky(np.zeros((3, 3, 2)), require=["ab"]), ValueError, "integer pairs"),
        (lambda: cky_batch([np.zeros((2, 2, 2)), np.full((3, 3, 2), np.nan)]), ValueError,
         r"cky_batch: charts\[1\]"),
        (lambda: cky_batch([np.zeros((2, 2, 2))], [None, None]), ValueError, "2 entries"),
        (lambda: cky_batch(np.zeros((2, 2, 2, 2))), TypeError, "list of arrays"),
        (lambda: eisner(np.zeros((3, 4))), ValueError, "square"),
        (lambda: eisner(np.zeros((0, 0))), ValueError, "square"),
        (lambda: eisner(np.zeros(3)), ValueError, "2 dimensions"),
        (lambda: eisner(np.full((3, 3), np.nan)), ValueError, "eisner: scores holds NaN"),
        (lambda: chu_liu_edmonds(np.array([[0, 0], [np.inf, 0]])), ValueError, "NaN or inf"),
        (lambda: chu_liu_edmonds_batch([np.zeros((2, 2)), "x"]), TypeError,
         r"scores\[1\] must be a real floating"),
        (lambda: eisner([[0, 1], [2]]), TypeError, "array of scores"),
        (lambda: bio_viterbi(np.full((2, 3), np.nan), BIOScheme(["O", "B-A", "I-A"])),
         ValueError, "NaN"),
        (lambda: bio_argmax(np.full((2, 3), -np.inf), BIOScheme(["O", "B-A", "I-A"])),
         ValueError, "NaN"),
        (lambda: bio_viterbi(np.zeros((2, 3)), ["O", "B-A", "I-A"]), TypeError, "BIOScheme"),
        (lambda: bio_viterbi_batch([np.zeros((2, 3))], BIOScheme(["O", "B-A", "I-A"]), [0, 1]),
         ValueError, "2 predicates for 1"),
        (lambda: repair_bio([0, 7], BIOScheme(["O", "B-A", "I-A"])), ValueError, r"\[0, 3\)"),
    ],
)
def test_validation_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
