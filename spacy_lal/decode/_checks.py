"""Input validation shared by the decoders, at the Python boundary (the Cython cores trust their
inputs): score arrays, the error messages that name the offending argument, and constraint spans.
See `spacy_lal.decode` for the conventions checked here."""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence, Tuple

import numpy as np

Span = Tuple[int, int]


def _scores(value: Any, ndim: int, where: str) -> np.ndarray:
    """`value` as a C-contiguous float32 array of `ndim` dimensions, or a clear error."""
    if (type(value) is np.ndarray and value.dtype == np.float32 and value.ndim == ndim
            and value.flags.c_contiguous):
        return value  # the common case, kept cheap: decoding a short sentence takes microseconds
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as err:
        raise TypeError(f"{where} must be an array of scores: {err}") from None
    if arr.dtype.kind != "f":
        raise TypeError(f"{where} must be a real floating-point array, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{where} must have {ndim} dimensions, got shape {arr.shape}")
    with np.errstate(over="ignore"):  # out-of-range values become inf and are reported as such
        return np.ascontiguousarray(arr, dtype=np.float32)


def _square(value: Any, where: str) -> np.ndarray:
    arr = _scores(value, 2, where)
    if arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
        raise ValueError(
            f"{where} must be square [n + 1, n + 1] (index 0 is the root), got shape {arr.shape}"
        )
    return arr


def _nonfinite(where: str) -> ValueError:
    return ValueError(
        f"{where} holds NaN or infinite scores where the decoder reads them "
        "(possibly after conversion to float32)"
    )


def _batch_where(name: str, batch: bool, i: int, arg: str) -> str:
    return f"{name}: {arg}[{i}]" if batch else f"{name}: {arg}"


def _chart(value: Any, where: str) -> np.ndarray:
    """A span chart [n + 1, n + 1, L] with label 0 (empty) and at least one real label."""
    arr = _scores(value, 3, where)
    n = arr.shape[0] - 1
    if arr.shape[1] != n + 1 or n < 0:
        raise ValueError(f"{where} must have shape [n + 1, n + 1, L], got {arr.shape}")
    if arr.shape[2] < 2:
        raise ValueError(
            f"{where} needs label 0 (empty) and at least one real label, got L = {arr.shape[2]}"
        )
    return arr


def _check_parallel(name: str, count: int, **lists: Optional[Sequence[Any]]) -> None:
    for arg, value in lists.items():
        if value is not None and len(value) != count:
            raise ValueError(f"{name}: {arg} has {len(value)} entries for {count} charts")


# ----------------------------------------------------------------------------- constraint spans


def _spans_array(spans: Any, n: int, where: str) -> np.ndarray:
    """Constraint spans as an int64 [m, 2] array of valid (start, end) fenceposts."""
    arr = np.asarray(spans if not isinstance(spans, (set, frozenset)) else sorted(spans))
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.dtype.kind not in "iu" or arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{where} must be (start, end) integer pairs, got {spans!r}")
    bad = (arr[:, 0] < 0) | (arr[:, 0] >= arr[:, 1]) | (arr[:, 1] > n)
    if bad.any():
        a, b = arr[np.argmax(bad)]
        raise ValueError(f"{where}: span ({a}, {b}) is not a span of a {n}-word sentence")
    return arr.astype(np.int64, copy=False)


def _first_crossing(spans: np.ndarray) -> Optional[Tuple[Span, Span]]:
    a, b = spans[:, 0], spans[:, 1]
    cross = (a[:, None] < a[None, :]) & (a[None, :] < b[:, None]) & (b[:, None] < b[None, :])
    if not cross.any():
        return None
    x, y = np.argwhere(cross)[0]
    return (int(a[x]), int(b[x])), (int(a[y]), int(b[y]))


def _infeasible(
    where: str, n: int, gold: Optional[np.ndarray], force: bool, cons: Optional[np.ndarray]
) -> ValueError:
    """Explain why the constraints admit no tree (only called after the core found none)."""
    spans = np.zeros((0, 2), dtype=np.int64) if cons is None else cons[:, :2].astype(np.int64)
    if force and gold is not None:
        if gold[0, n] == 0:
            return ValueError(f"{where}: force_gold needs a labelled gold root span (0, {n})")
        if cons is not None:
            for a, b, req in cons:
                if req and gold[a, b] == 0:
                    return ValueError(
                        f"{where}: required span ({a}, {b}) is not a gold constituent"
                    )
        gold_spans = np.argwhere(np.triu(gold, 1) != 0)
        spans = np.concatenate([spans, gold_spans])
    pair = _first_crossing(spans)
    if pair is not None:
        return ValueError(
            f"{where}: constraints cannot all hold: span {pair[0]} crosses span {pair[1]}"
        )
    return ValueError(f"{where}: constraints admit no tree")  # pragma: no cover


def _constraint_rows(
    no_cross: Optional[Sequence[Optional[Iterable[Span]]]],
    require: Optional[Sequence[Optional[Iterable[Span]]]],
    i: int,
    n: int,
    name: str,
    batch: bool,
) -> Optional[np.ndarray]:
    """Sentence i's constraints as the cores take them: int32 [m, 3] rows (start, end,
    required), or None without any."""
    parts = []
    for arg, value, flag in (("no_cross", no_cross, 0), ("require", require, 1)):
        if value is not None and value[i] is not None:
            spans = _spans_array(value[i], n, _batch_where(name, batch, i, arg))
            if len(spans):
                part = np.empty((len(spans), 3), dtype=np.int32)
                part[:, :2] = spans
                part[:, 2] = flag
                parts.append(part)
    return np.ascontiguousarray(np.concatenate(parts)) if parts else None
