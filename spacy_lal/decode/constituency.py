"""CKY over fencepost span charts: the best binarized constituency tree of a chart of span-label
scores, loss-augmented by the Hamming cost against a gold chart or forced to the gold tree, under
span constraints (no_cross, require). Inputs are validated here; `_cky` decodes."""
from __future__ import annotations

from typing import Any, Iterable, NamedTuple, Optional, Sequence

import numpy as np

from . import _cky
from ._checks import (
    Span,
    _batch_where,
    _chart,
    _check_parallel,
    _constraint_rows,
    _infeasible,
    _nonfinite,
)

__all__ = ["CKYResult", "cky", "cky_batch"]


class CKYResult(NamedTuple):
    """The best binarized tree of a chart.

    spans: int32 [2n - 1, 3] rows (start, end, label) in pre-order (a parent before its children,
        left child before right child); label 0 marks the spans added by binarization. The root
        (0, n) comes first. Empty ([0, 3]) for n = 0.
    score: the model score of the tree, sum of chart[start, end, label] over its spans with label 0
        counting 0. Never includes the loss augmentation.
    cost: the Hamming cost against the gold chart (spans of the tree whose label differs from
        gold[start, end]) when decoding loss-augmented; 0 otherwise. The augmented objective that
        loss-augmented decoding maximises is score + cost, so the hinge loss of a sentence is
        max(0, score + cost - gold_score), gold_score from `force_gold=True`.
    """

    spans: np.ndarray
    score: float
    cost: int


def cky_batch(
    charts: Sequence[Any],
    golds: Optional[Sequence[Any]] = None,
    *,
    force_gold: bool = False,
    no_cross: Optional[Sequence[Iterable[Span]]] = None,
    require: Optional[Sequence[Iterable[Span]]] = None,
    _name: str = "cky_batch",
) -> list[CKYResult]:
    """Best binarized tree of each chart, in one GIL-free call; see `cky` for the semantics.

    golds, no_cross and require, when given, are sequences parallel to `charts` (an entry may be
    None / empty for a sentence without gold or constraints).
    """
    batch = _name == "cky_batch"
    if isinstance(charts, np.ndarray):
        raise TypeError(f"{_name}: charts must be a list of arrays, not one array")
    _check_parallel(_name, len(charts), golds=golds, no_cross=no_cross, require=require)
    if force_gold and (golds is None or any(g is None for g in golds)):
        raise ValueError(f"{_name}: force_gold=True needs a gold chart for every sentence")
    mode = _cky.MODE_FORCED if force_gold else (_cky.MODE_ARGMAX if golds is None else _cky.MODE_LOSS)

    arrays: list[np.ndarray] = []
    gold_arrays: list[Optional[np.ndarray]] = []
    cons_arrays: list[Optional[np.ndarray]] = []
    for i, chart in enumerate(charts):
        arr = _chart(chart, _batch_where(_name, batch, i, "charts" if batch else "chart"))
        n = arr.shape[0] - 1
        arrays.append(arr)
        gold = None if golds is None else golds[i]
        if gold is not None:
            where = _batch_where(_name, batch, i, "golds" if batch else "gold")
            gold = np.asarray(gold)
            if gold.dtype.kind not in "iu":
                raise TypeError(f"{where} must be an integer label chart, got dtype {gold.dtype}")
            if gold.shape != (n + 1, n + 1):
                raise ValueError(f"{where} must have shape {(n + 1, n + 1)}, got {gold.shape}")
            gold = np.ascontiguousarray(gold, dtype=np.int32)
        gold_arrays.append(gold)
        cons_arrays.append(_constraint_rows(no_cross, require, i, n, _name, batch))

    spans, scores, costs, status = _cky.cky_batch(arrays, gold_arrays, cons_arrays, mode)
    if status.any():
        i = int(np.flatnonzero(status)[0])
        chart_where = _batch_where(_name, batch, i, "charts" if batch else "chart")
        code = status[i]
        if code == _cky.NONFINITE:
            raise _nonfinite(chart_where)
        if code == _cky.BAD_GOLD:
            L = arrays[i].shape[2]
            raise ValueError(
                f"{_batch_where(_name, batch, i, 'golds' if batch else 'gold')} holds labels "
                f"outside [0, {L}) above the diagonal"
            )
        raise _infeasible(
            _batch_where(_name, batch, i, "sentence") if batch else _name,
            arrays[i].shape[0] - 1, gold_arrays[i], force_gold, cons_arrays[i],
        )
    return [CKYResult(s, float(sc), int(c)) for s, sc, c in zip(spans, scores, costs)]


def cky(
    chart: Any,
    gold: Any = None,
    *,
    force_gold: bool = False,
    no_cross: Iterable[Span] = (),
    require: Iterable[Span] = (),
) -> CKYResult:
    """Best binarized tree of a fencepost chart of span-label scores.

    chart: [n + 1, n + 1, L] scores; chart[i, j, l] scores label l on the span of tokens i..j-1
        (i < j; other entries are ignored). Label 0 is the empty label: chart[i, j, 0] is taken as
        0 whatever it holds. L >= 2.
    A tree is a full binary bracketing of 0..n: 2n - 1 spans, each with a label; its score is the
    sum of its span scores. The root (0, n) takes a non-empty label (also for n = 1).
    gold: int [n + 1, n + 1] label chart (0 = not a gold constituent; entries with i < j must be in
        [0, L), others are ignored). Without force_gold: loss-augmented decoding, maximising
        score + cost with cost = number of tree spans whose label differs from gold[i, j].
    force_gold: return the gold tree: gold spans with their gold label, label 0 elsewhere. A flat
        gold constituent can be binarized in several ways, all with the same score (label-0 spans
        score 0); one of them is returned. The gold root must be labelled.
    no_cross: (start, end) spans that no tree span may cross (partially overlap), e.g. named
        entities. In a full binary tree such a span is necessarily a node, possibly labelled 0.
    require: (start, end) spans that must be constituents: nodes with a non-empty label.
    Ties go to the empty label, then to the lowest label and the leftmost split.
    Raises ValueError when the constraints (with the gold spans when forcing) cross one another.
    """
    listify = lambda spans: None if spans is None else [spans]  # noqa: E731
    return cky_batch(
        [chart],
        None if gold is None else [gold],
        force_gold=force_gold,
        no_cross=listify(no_cross),
        require=listify(require),
        _name="cky",
    )[0]
