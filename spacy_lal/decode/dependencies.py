"""Dependency trees: the best projective tree (Eisner 1996) and the best non-projective tree
(Chu-Liu-Edmonds) over a matrix of arc scores, both with exactly one dependent of the root, and
projectivity (is_projective, projectivize).

Conventions, shared with `arc_standard`: a sentence of n words has positions 0..n, 0 being the
artificial root; heads is int64 [n + 1] with heads[0] = -1 and heads[d] the head of word d; arc
scores are [n + 1, n + 1] with scores[d, h] the score of head h for dependent d.
Inputs are validated here; `_eisner` and `_mst` decode.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _eisner, _mst
from ._checks import _batch_where, _nonfinite, _square

__all__ = [
    "eisner",
    "eisner_batch",
    "chu_liu_edmonds",
    "chu_liu_edmonds_batch",
    "is_projective",
    "projectivize",
]


def _arc_batch(core: Any, scores: Sequence[Any], name: str, batch: bool) -> list[np.ndarray]:
    if isinstance(scores, np.ndarray):
        raise TypeError(f"{name}: scores must be a list of arrays, not one array")
    arrays = [
        _square(s, _batch_where(name, batch, i, "scores")) for i, s in enumerate(scores)
    ]
    heads, status = core(arrays)
    if status.any():
        raise _nonfinite(_batch_where(name, batch, int(np.flatnonzero(status)[0]), "scores"))
    return heads


def eisner_batch(scores: Sequence[Any]) -> list[np.ndarray]:
    """`eisner` over a list of matrices of mixed sizes, in one GIL-free call."""
    return _arc_batch(_eisner.eisner_batch, scores, "eisner_batch", True)


def eisner(scores: Any) -> np.ndarray:
    """Best projective dependency tree with exactly one dependent of the root (Eisner, O(n^3)).

    scores: [n + 1, n + 1], scores[d, h] = score of head h for dependent d; index 0 is the
        artificial root. Row 0 and the diagonal are ignored.
    Returns heads: int64 [n + 1], heads[d] = head of d, heads[0] = -1 ([-1] for n = 0).
    Ties go to the leftmost split and the leftmost root dependent.
    """
    return _arc_batch(_eisner.eisner_batch, [scores], "eisner", False)[0]


def chu_liu_edmonds_batch(scores: Sequence[Any]) -> list[np.ndarray]:
    """`chu_liu_edmonds` over a list of matrices of mixed sizes, in one GIL-free call."""
    return _arc_batch(_mst.chu_liu_edmonds_batch, scores, "chu_liu_edmonds_batch", True)


def chu_liu_edmonds(scores: Any) -> np.ndarray:
    """Best non-projective dependency tree with exactly one dependent of the root, O(n^2).

    Exact maximum spanning arborescence under the single-root constraint (Tarjan's dense
    Chu-Liu-Edmonds with root arcs ranked below all others; see `_mst.pyx`).
    scores, returns: as `eisner`.
    """
    return _arc_batch(_mst.chu_liu_edmonds_batch, [scores], "chu_liu_edmonds", False)[0]


# ----------------------------------------------------------------------------- projectivity


def _tree(heads: Any, where: str) -> np.ndarray:
    """heads as int64 [n + 1], checked to be a tree over 0..n rooted at 0 (heads[0] ignored)."""
    arr = np.asarray(heads)
    if arr.ndim != 1 or arr.size < 1 or (arr.size > 1 and arr.dtype.kind not in "iu"):
        raise ValueError(f"{where}: heads must be a 1-d int array [n + 1], got {heads!r}")
    arr = arr.astype(np.int64)
    arr[0] = -1
    n = arr.size - 1
    words = np.arange(1, n + 1)
    bad = (arr[1:] < 0) | (arr[1:] > n) | (arr[1:] == words)
    if bad.any():
        d = int(np.flatnonzero(bad)[0]) + 1
        raise ValueError(f"{where}: word {d} has head {int(arr[d])}, not another position 0..{n}")
    # Acyclic iff following heads from every word reaches ROOT within n steps.
    node = arr.copy()
    node[0] = 0
    for _ in range(max(n.bit_length(), 1)):
        node = np.where(node > 0, node[np.maximum(node, 0)], node)  # pointer doubling
    if (node[1:] != 0).any():
        d = int(np.flatnonzero(node[1:] != 0)[0]) + 1
        raise ValueError(f"{where}: word {d} is on a cycle or hangs below one (heads {arr.tolist()})")
    return arr


def _nonprojective_words(heads: np.ndarray) -> np.ndarray:
    """Dependents whose arc crosses another arc (the ROOT arc included), for a valid tree."""
    n = heads.size - 1
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    d = np.arange(1, n + 1)
    lo = np.minimum(d, heads[1:])
    hi = np.maximum(d, heads[1:])
    # arcs (a, b), (c, e) cross iff a < c < b < e
    cross = (lo[:, None] < lo[None, :]) & (lo[None, :] < hi[:, None]) & (hi[:, None] < hi[None, :])
    return d[(cross | cross.T).any(1)]


def is_projective(heads: Any) -> bool:
    """Whether a dependency tree (heads [n + 1] as the decoders give them; heads[0] ignored) has
    no crossing arcs, the arc from ROOT (position 0) included. Raises ValueError for a non-tree."""
    return _nonprojective_words(_tree(heads, "is_projective")).size == 0


def projectivize(heads: Any) -> np.ndarray:
    """A projective tree close to `heads`: while arcs cross, the shortest crossing arc is lifted to
    its head's head (Nivre and Nilsson 2005, lifting without label encoding). Projective trees come
    back unchanged; the result is int64 [n + 1] with heads[0] = -1."""
    arr = _tree(heads, "projectivize").copy()
    while True:
        bad = _nonprojective_words(arr)
        if bad.size == 0:
            return arr
        # Arcs from ROOT cannot be lifted. Of two crossing arcs at least one has a head that is
        # neither ROOT nor a root dependent (arcs from ROOT and from one word never cross), so
        # lifting those keeps a single-rooted tree single-rooted. Every lift moves a subtree
        # closer to ROOT, so this terminates.
        bad = bad[arr[bad] != 0]
        keeps_root = bad[arr[arr[bad]] != 0]
        if keeps_root.size:
            bad = keeps_root
        d = bad[np.argmin(np.abs(bad - arr[bad]))]
        arr[d] = arr[arr[d]]
