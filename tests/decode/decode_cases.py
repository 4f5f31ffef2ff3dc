"""Hypothesis cases and brute-force helpers shared by the decoder tests of this folder (a helper
module, not a test module: hypothesis strategies and settings are needed where the tests are
defined, in their decorators, which fixtures cannot reach)."""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOL = 1e-4


def rng_from(draw) -> np.random.Generator:
    """A numpy generator seeded by hypothesis (so failures shrink to a reproducible seed)."""
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


def draw_scores(rng: np.random.Generator, shape, tied: bool) -> np.ndarray:
    if tied:
        return rng.integers(-2, 3, size=shape).astype(np.float32)
    return rng.normal(size=shape).astype(np.float32)


@lru_cache(maxsize=None)
def binary_trees(i: int, j: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every full binary bracketing of i..j as a tuple of spans."""
    if j == i + 1:
        return (((i, j),),)
    out = []
    for k in range(i + 1, j):
        for left in binary_trees(i, k):
            for right in binary_trees(k, j):
                out.append(((i, j),) + left + right)
    return tuple(out)


def crosses(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]


SCHEMES = [
    ["O", "B-V", "I-V", "B-ARG0", "I-ARG0"],
    ["B-ARG0", "O", "I-ARG1", "I-ARG0", "B-V"],  # I-ARG1 has no B-ARG1; no I-V
    ["O", "B-A", "I-A", "B-C-A", "I-C-A"],  # no V at all
]


@lru_cache(maxsize=None)
def valid_sequences(labels: tuple[str, ...], n: int, predicate) -> np.ndarray:
    """All valid sequences, from the label strings alone (independent of BIOScheme)."""
    seqs = np.array(list(itertools.product(range(len(labels)), repeat=n)), dtype=np.int64)
    ok = np.ones(len(seqs), dtype=bool)
    for t in range(n):
        for l, lab in enumerate(labels):
            if lab.startswith("I-"):
                here = seqs[:, t] == l
                if t == 0:
                    ok &= ~here
                else:
                    prev = [labels[p] for p in seqs[:, t - 1]]
                    ok &= ~here | np.array([p in ("B-" + lab[2:], lab) for p in prev])
        if predicate is not None:
            is_bv = seqs[:, t] == labels.index("B-V")
            ok &= is_bv if t == predicate else ~is_bv
    return seqs[ok]


@st.composite
def bio_case(draw, max_n=5):
    rng = rng_from(draw)
    labels = tuple(draw(st.sampled_from(SCHEMES)))
    n = draw(st.integers(1, max_n))
    predicate = draw(st.none() | st.integers(0, n - 1)) if "B-V" in labels else None
    scores = draw_scores(rng, (n, len(labels)), draw(st.booleans()))
    return labels, scores, predicate
