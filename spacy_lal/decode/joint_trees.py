"""Joint constituency and dependency decoding: the best binarized tree of a span chart and the best
projective dependency tree over an arc matrix, decoded together so that each is the other's lexical
heads (lexicalized CKY, the "joint span" decoder of Zhou and Zhao 2019). Inputs are validated here;
`_joint` decodes.
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable, NamedTuple, Optional, Sequence

import numpy as np

from . import _joint
from ._checks import (
    Span,
    _batch_where,
    _chart,
    _check_parallel,
    _constraint_rows,
    _infeasible,
    _nonfinite,
    _square,
)

__all__ = ["JointResult", "joint", "joint_batch"]


class JointResult(NamedTuple):
    """The best jointly decoded constituency tree and dependency tree of a sentence.

    spans: int32 [2n - 1, 3] rows (start, end, label) in pre-order, as `CKYResult.spans`.
    heads: int64 [n + 1] as `eisner`: heads[d] = head of word d (words 1..n, word d covering the
        fenceposts d - 1..d), 0 for the root's single dependent, heads[0] = -1.
    score: sum of chart[start, end, label] over the spans (label 0 counting 0) + lam * the sum
        of arcs[d, heads[d]] over d = 1..n.
    """

    spans: np.ndarray
    heads: np.ndarray
    score: float


def _lam(lam: Any, where: str) -> float:
    if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, numbers.Real):
        raise TypeError(f"{where}: lam must be a real number, got {lam!r}")
    value = float(lam)
    if not np.isfinite(value):
        raise ValueError(f"{where}: lam must be finite, got {lam!r}")
    return value


def joint_batch(
    charts: Sequence[Any],
    arcs: Sequence[Any],
    lam: float = 1.0,
    *,
    no_cross: Optional[Sequence[Iterable[Span]]] = None,
    require: Optional[Sequence[Iterable[Span]]] = None,
    _name: str = "joint_batch",
) -> list[JointResult]:
    """`joint` over lists of charts and arc matrices of mixed sizes, in one GIL-free call;
    no_cross and require, when given, are parallel to `charts` (entries may be None), as in
    `cky_batch`."""
    batch = _name == "joint_batch"
    for arg, value in (("charts", charts), ("arcs", arcs)):
        if isinstance(value, np.ndarray):
            raise TypeError(f"{_name}: {arg} must be a list of arrays, not one array")
    if len(arcs) != len(charts):
        raise ValueError(f"{_name}: {len(arcs)} arc matrices for {len(charts)} charts")
    _check_parallel(_name, len(charts), no_cross=no_cross, require=require)
    lam = _lam(lam, _name)
    chart_arrays: list[np.ndarray] = []
    arc_arrays: list[np.ndarray] = []
    cons_arrays: list[Optional[np.ndarray]] = []
    for i, (chart, arc) in enumerate(zip(charts, arcs)):
        arr = _chart(chart, _batch_where(_name, batch, i, "charts" if batch else "chart"))
        n = arr.shape[0] - 1
        arc_where = _batch_where(_name, batch, i, "arcs")
        arc = _square(arc, arc_where)
        if arc.shape[0] != n + 1:
            raise ValueError(
                f"{arc_where} must have shape {(n + 1, n + 1)} to match the chart's {arr.shape}, "
                f"got {arc.shape}"
            )
        chart_arrays.append(arr)
        arc_arrays.append(arc)
        cons_arrays.append(_constraint_rows(no_cross, require, i, n, _name, batch))
    spans, heads, scores, status = _joint.joint_batch(chart_arrays, arc_arrays, cons_arrays, lam)
    if status.any():
        i = int(np.flatnonzero(status)[0])
        if status[i] == _joint.INFEASIBLE:
            raise _infeasible(
                _batch_where(_name, batch, i, "sentence") if batch else _name,
                chart_arrays[i].shape[0] - 1, None, False, cons_arrays[i],
            )
        arg = "arcs" if status[i] == _joint.NONFINITE_ARCS else ("charts" if batch else "chart")
        raise _nonfinite(_batch_where(_name, batch, i, arg))
    return [JointResult(s, h, float(sc)) for s, h, sc in zip(spans, heads, scores)]


def joint(
    chart: Any,
    arcs: Any,
    lam: float = 1.0,
    *,
    no_cross: Iterable[Span] = (),
    require: Iterable[Span] = (),
) -> JointResult:
    """Best constituency tree and dependency tree decoded together, consistent with each other
    (lexicalized CKY; the "joint span" decoder of Zhou and Zhao 2019), exact, O(n^4) time and
    O(n^3) memory (8 bytes per (span, word): 32 MB at n = 200).

    chart: [n + 1, n + 1, L] span-label scores, as `cky` (label 0 empty, L >= 2).
    arcs: [n + 1, n + 1] arc scores, as `eisner` (arcs[d, h], index 0 the root; row 0 and the
        diagonal ignored).
    lam: weight of the arc scores (finite; 0 gives `cky`'s best score).
    Every node of the binarized tree has a lexical head: word i for a leaf (i, i + 1), the head of
    one of its children for an inner node, the other child's head depending on it; the head of the
    whole sentence is the root's only dependent. So the dependency tree is projective with one
    root dependent, and every projective such tree arises with some bracketing. Maximises the
    label score of the tree (as `cky`: best label per span, the root labelled) + lam * the arc
    score of the dependency tree (root arc included).
    no_cross, require: constraint spans with `cky`'s semantics (no tree span crosses a no_cross
        span; a require span is a labelled node). The dependency tree stays the lexical heads of
        the constrained tree. Constraints that cross each other raise ValueError naming the pair.
    Ties: empty label, then lowest label; leftmost split; lowest head; leftmost root dependent.
    """
    return joint_batch([chart], [arcs], lam, no_cross=[no_cross], require=[require], _name="joint")[0]
