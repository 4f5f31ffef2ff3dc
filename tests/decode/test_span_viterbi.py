"""The span-level BIO Viterbi (`span_viterbi`) against brute force over every valid BIO sequence
whose labelled runs are allowed spans (or, with a finite penalty, over every valid sequence less
the penalty of each run off the spans), and against `bio_viterbi` when every span is allowed."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_lal.decode import BIOScheme, bio_viterbi, span_viterbi, span_viterbi_batch
from decode_cases import SETTINGS, TOL, bio_case, binary_trees, rng_from, valid_sequences


def runs(labels: tuple[str, ...], sequence) -> list[tuple[int, int]]:
    """The (start, end) of each B-X I-X ... run of a valid sequence, from the label strings."""
    out, start = [], None
    for t, label in enumerate([labels[k] for k in sequence] + ["O"]):
        if label.startswith("I-"):
            continue
        if start is not None:
            out.append((start, t))
        start = t if label.startswith("B-") else None
    return out


def random_spans(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """The spans of a random binary tree, some dropped, plus a few arbitrary (crossing) ones."""
    trees = binary_trees(0, n)
    spans = [s for s in trees[rng.integers(len(trees))] if rng.random() < 0.7]
    for _ in range(rng.integers(0, 3)):
        a = int(rng.integers(0, n))
        spans.append((a, int(rng.integers(a + 1, n + 1))))
    return spans


@SETTINGS
@given(bio_case(max_n=6), st.data())
def test_span_viterbi_matches_brute_force(case, data):
    labels, scores, predicate = case
    n = scores.shape[0]
    spans = random_spans(rng_from(data.draw), n)
    scheme = BIOScheme(labels)
    allowed = set(spans) | {(t, t + 1) for t in range(n)}
    seqs = [s for s in valid_sequences(labels, n, predicate) if set(runs(labels, s)) <= allowed]
    out = span_viterbi(scores, scheme, spans, predicate)
    assert scheme.is_valid(out, predicate)
    assert set(runs(labels, out)) <= allowed, f"{out}: an argument is not an allowed span"
    best = max(float(scores[np.arange(n), s].astype(np.float64).sum()) for s in seqs)
    assert float(scores[np.arange(n), out].astype(np.float64).sum()) == pytest.approx(best, abs=TOL)


@SETTINGS
@given(bio_case(max_n=6), st.data(), st.sampled_from([0.0, 0.3, 1.0, 4.0]))
def test_penalty_matches_brute_force(case, data, penalty):
    labels, scores, predicate = case
    n = scores.shape[0]
    spans = random_spans(rng_from(data.draw), n)
    scheme = BIOScheme(labels)
    allowed = set(spans) | {(t, t + 1) for t in range(n)}

    def objective(seq) -> float:
        off = sum(1 for run in runs(labels, seq) if run not in allowed)
        return float(scores[np.arange(n), seq].astype(np.float64).sum()) - penalty * off

    out = span_viterbi(scores, scheme, spans, predicate, penalty=penalty)
    assert scheme.is_valid(out, predicate)
    best = max(objective(s) for s in valid_sequences(labels, n, predicate))
    assert objective(out) == pytest.approx(best, abs=TOL)


def test_penalty_weighs_the_scores_against_the_spans():
    """The tokens prefer one A0 over (0, 3), which is not allowed; (0, 2) + (2, 3) as two A0s
    lose 0.5: under a penalty of 0.4 the run off the spans wins, under 0.6 the split does."""
    scheme = BIOScheme(["O", "B-V", "I-V", "B-A0", "I-A0", "B-A1", "I-A1"])
    scores = np.full((4, 7), -3.0, np.float32)
    scores[0, 3] = scores[1, 4] = scores[2, 4] = 0.0
    scores[2, 3] = -0.5
    scores[3, 1] = 0.0
    spans = [(0, 2)]
    names = lambda out: [scheme.labels[k] for k in out]  # noqa: E731
    assert names(span_viterbi(scores, scheme, spans, 3, penalty=0.4)) == ["B-A0", "I-A0", "I-A0", "B-V"]
    assert names(span_viterbi(scores, scheme, spans, 3, penalty=0.6)) == ["B-A0", "I-A0", "B-A0", "B-V"]
    assert span_viterbi(scores, scheme, spans, 3, penalty=0.6) == span_viterbi(scores, scheme, spans, 3)
    assert span_viterbi(scores, scheme, spans, 3, penalty=0.0) == bio_viterbi(scores, scheme, 3)
    batch = span_viterbi_batch([scores, scores[:2]], scheme, [spans, []], [3, None], penalty=0.4)
    assert batch == [span_viterbi(scores, scheme, spans, 3, penalty=0.4), span_viterbi(scores[:2], scheme, [], None, penalty=0.4)]


@SETTINGS
@given(bio_case(max_n=8))
def test_every_span_allowed_is_bio_viterbi(case):
    labels, scores, predicate = case
    n = scores.shape[0]
    scheme = BIOScheme(labels)
    every = [(a, b) for a in range(n) for b in range(a + 1, n + 1)]
    out = span_viterbi(scores, scheme, every, predicate)
    want = bio_viterbi(scores, scheme, predicate)
    assert scheme.is_valid(out, predicate)
    got_score = scores[np.arange(n), out].astype(np.float64).sum()
    assert got_score == pytest.approx(scores[np.arange(n), want].astype(np.float64).sum(), abs=TOL)


def test_known_sequence_and_batch():
    scheme = BIOScheme(["O", "B-V", "I-V", "B-A0", "I-A0", "B-A1", "I-A1"])
    scores = np.full((5, 7), -3.0, np.float32)
    scores[:, 0] = -1.0
    # The tokens want [B-A0 I-A0 I-A0] [B-V] O, but (0, 3) is not allowed: (0, 2) and (2, 3) are.
    scores[0, 3] = scores[1, 4] = scores[2, 4] = 0.0
    scores[2, 3] = -0.5
    scores[3, 1] = 0.0
    out = span_viterbi(scores, scheme, [(0, 2), (1, 4)], predicate=3)
    assert [scheme.labels[k] for k in out] == ["B-A0", "I-A0", "B-A0", "B-V", "O"]
    assert span_viterbi(scores, scheme, [(0, 3)], predicate=3)[:3] == [3, 4, 4]
    rng = np.random.default_rng(2)
    batch = [rng.normal(size=(n, 7)).astype(np.float32) for n in (0, 1, 6, 3)]
    spans = [[], [], [(0, 4), (2, 6)], [(0, 3)]]
    preds = [None, 0, 4, None]
    assert span_viterbi_batch(batch, scheme, spans, preds) == [
        span_viterbi(s, scheme, a, p) for s, a, p in zip(batch, spans, preds)
    ]
    assert span_viterbi(np.zeros((0, 7), np.float32), scheme, []) == []


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda s: span_viterbi(np.zeros((3, 5), np.float32), s, [(0, 4)]), ValueError,
         r"span_viterbi: spans: span \(0, 4\) is not a span of a 3-word"),
        (lambda s: span_viterbi(np.zeros((3, 5), np.float32), s, [(1, 1)]), ValueError, "is not a span"),
        (lambda s: span_viterbi(np.zeros((3, 4), np.float32), s, []), ValueError, r"shape \[n, 5\]"),
        (lambda s: span_viterbi(np.zeros((3, 5), np.int64), s, []), TypeError, "floating-point"),
        (lambda s: span_viterbi(np.full((3, 5), np.nan, np.float32), s, []), ValueError, "NaN"),
        (lambda s: span_viterbi(np.zeros((3, 5), np.float32), s, [], predicate=3), ValueError,
         "not a token"),
        (lambda s: span_viterbi(np.zeros((3, 5), np.float32), "x", []), TypeError, "BIOScheme"),
        (lambda s: span_viterbi_batch([np.zeros((3, 5), np.float32)], s, []), ValueError,
         "0 span lists for 1 sentences"),
        (lambda s: span_viterbi(np.zeros((3, 5), np.float32), s, [], penalty=-1.0), ValueError,
         "penalty must be a number >= 0"),
        (lambda s: span_viterbi(np.zeros((3, 5), np.float32), s, [], penalty=float("nan")), ValueError,
         "penalty must be a number >= 0"),
    ],
)
def test_validation_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(BIOScheme(["O", "B-V", "I-V", "B-ARG0", "I-ARG0"]))


@pytest.mark.parametrize("penalty", [float("inf"), 1.0, 0.0])
def test_a_tie_goes_to_the_shorter_segment(penalty):
    """[O B-A0], [B-A0 I-A0] and [B-A0 B-A0] all score 2; O comes first, then the shorter segment,
    with any penalty (the allowed span (0, 2) costs nothing)."""
    scheme = BIOScheme(["O", "B-V", "I-V", "B-A0", "I-A0"])
    scores = np.full((2, 5), -5.0, np.float32)
    scores[0, 0] = scores[0, 3] = scores[1, 3] = scores[1, 4] = 1.0
    out = span_viterbi(scores, scheme, [(0, 2)], penalty=penalty)
    assert [scheme.labels[k] for k in out] == ["O", "B-A0"]
