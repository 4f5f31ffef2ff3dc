"""CPU decoders for the parsers: CKY over span charts, Eisner and Chu-Liu-Edmonds over arc scores,
joint span + dependency decoding (lexicalized CKY), BIO Viterbi over token label scores, and the
arc-standard transition system (oracle and greedy decoding; NumPy, in `arc_standard`).

The cores are Cython (`_cky`, `_eisner`, `_joint`, `_mst`, `_viterbi`, `_span_viterbi`) and decode
without the GIL;
this module validates inputs at the Python boundary. Every decoder has a `*_batch` form that takes a list of
sentences of mixed lengths and decodes them all in one GIL-free loop; the single-sentence forms are
batches of one.

Input conventions, shared by all decoders:
- Scores must be real floating-point arrays (float16/32/64; anything else raises TypeError: integer
  arrays are rejected because they are usually label charts passed by mistake). They are converted
  to C-contiguous float32, without a copy when they already are. torch CPU tensors work through
  `numpy.asarray`.
- Every score the decoder reads must be finite (ValueError otherwise; checked in the core at no
  measurable cost). Entries that are never read may hold anything, e.g. -inf masks: the lower
  triangle, the diagonal and label 0 of a CKY chart, the diagonal and row 0 of an arc matrix.
- n = 0 (an empty sentence) is valid everywhere and decodes to the empty structure.
"""
from __future__ import annotations

import numbers
import operator
from typing import Any, Iterable, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _cky, _eisner, _joint, _mst, _span_viterbi, _viterbi, arc_standard
from .arc_standard import (
    ArcStandard,
    ArcStandardConfigs,
    DependencyParse,
    NonProjectiveError,
    OracleBatch,
    OracleSequence,
    apply_transitions,
    arc_standard_greedy_batch,
    arc_standard_oracle,
    arc_standard_oracle_batch,
    is_projective,
    projectivize,
)

__all__ = [
    "CKYResult",
    "cky",
    "cky_batch",
    "eisner",
    "eisner_batch",
    "chu_liu_edmonds",
    "chu_liu_edmonds_batch",
    "JointResult",
    "joint",
    "joint_batch",
    "BIOScheme",
    "CORE_ROLES",
    "bio_viterbi",
    "bio_viterbi_batch",
    "bio_argmax",
    "bio_argmax_batch",
    "repair_bio",
    "span_viterbi",
    "span_viterbi_batch",
    *arc_standard.__all__,
]

Span = Tuple[int, int]

#: PropBank's numbered (core) roles, which a frame has at most once each (He et al. 2017, sec. 3.3;
#: `bio_viterbi(..., unique_roles=CORE_ROLES)`). ARG1-DSP stands in for ARG1 and counts on its own.
CORE_ROLES = ("ARG0", "ARG1", "ARG1-DSP", "ARG2", "ARG3", "ARG4", "ARG5", "ARGA")


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


# ----------------------------------------------------------------------------- validation helpers


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


# ----------------------------------------------------------------------------- CKY


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


def _check_parallel(name: str, count: int, **lists: Optional[Sequence[Any]]) -> None:
    for arg, value in lists.items():
        if value is not None and len(value) != count:
            raise ValueError(f"{name}: {arg} has {len(value)} entries for {count} charts")


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
        arr = _scores(chart, 3, _batch_where(_name, batch, i, "charts" if batch else "chart"))
        n = arr.shape[0] - 1
        if arr.shape[1] != n + 1 or n < 0:
            raise ValueError(
                f"{_batch_where(_name, batch, i, 'charts' if batch else 'chart')} must have shape "
                f"[n + 1, n + 1, L], got {arr.shape}"
            )
        if arr.shape[2] < 2:
            raise ValueError(
                f"{_batch_where(_name, batch, i, 'charts' if batch else 'chart')} needs label 0 "
                f"(empty) and at least one real label, got L = {arr.shape[2]}"
            )
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


# ----------------------------------------------------------------------------- dependencies


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


# ----------------------------------------------------------------------------- joint


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
        where = _batch_where(_name, batch, i, "charts" if batch else "chart")
        arr = _scores(chart, 3, where)
        n = arr.shape[0] - 1
        if arr.shape[1] != n + 1 or n < 0:
            raise ValueError(f"{where} must have shape [n + 1, n + 1, L], got {arr.shape}")
        if arr.shape[2] < 2:
            raise ValueError(
                f"{where} needs label 0 (empty) and at least one real label, got L = {arr.shape[2]}"
            )
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


# ----------------------------------------------------------------------------- BIO


class BIOScheme:
    """The BIO label set of an SRL tagger and its constraints.

    labels: "O" (exactly once), "B-<role>" and "I-<role>", e.g. "B-ARG0", "I-C-ARG1", "B-R-ARG0".
    The role "V" is the predicate's. Constraints on a sequence:
    - I-X only after B-X or I-X (so never at the start; an I-X without B-X in the set never occurs);
    - with a predicate p: token p is B-V and no other token is B-V, so the only V span starts at p
      (it may continue with I-V to the right).
    """

    def __init__(self, labels: Sequence[str]):
        self.labels: tuple[str, ...] = tuple(labels)
        index = {}
        for i, label in enumerate(self.labels):
            if not isinstance(label, str):
                raise TypeError(f"BIOScheme: labels must be strings, got {label!r}")
            if label in index:
                raise ValueError(f"BIOScheme: duplicate label {label!r}")
            if label != "O" and not (label[:2] in ("B-", "I-") and len(label) > 2):
                raise ValueError(f"BIOScheme: {label!r} is neither 'O' nor 'B-<role>' / 'I-<role>'")
            index[label] = i
        if "O" not in index:
            raise ValueError("BIOScheme: the label set needs 'O'")
        self.index: dict[str, int] = index
        kinds = [_viterbi.KIND_O if lab == "O" else
                 _viterbi.KIND_B if lab.startswith("B-") else _viterbi.KIND_I
                 for lab in self.labels]
        self.kinds = np.array(kinds, dtype=np.int32)
        self.begin = np.array(
            [index.get("B-" + lab[2:], -1) if k == _viterbi.KIND_I else -1
             for lab, k in zip(self.labels, kinds)],
            dtype=np.int32,
        )
        self.outside: int = index["O"]
        self.b_v: int = index.get("B-V", -1)
        self.i_v: int = index.get("I-V", -1)
        self.tables = (self.kinds, self.begin, self.outside, self.b_v, self.i_v)
        # Roles as segments read them: (B-X, I-X or -1) per B-X label, in label order.
        inside = {lab[2:]: i for i, lab in enumerate(self.labels) if lab.startswith("I-")}
        self.roles = np.array(
            [(i, inside.get(lab[2:], -1)) for i, lab in enumerate(self.labels) if lab.startswith("B-")],
            dtype=np.int32,
        ).reshape(-1, 2)
        self.v_role: int = int(np.flatnonzero(self.roles[:, 0] == self.b_v)[0]) if self.b_v >= 0 else -1

    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"BIOScheme({list(self.labels)!r})"

    def started(self, sequence: Sequence[int], roles: Iterable[str]) -> dict[str, int]:
        """How many spans of each of ``roles`` a label sequence starts (its B- labels)."""
        counts = {role: 0 for role in roles}
        for label in sequence:
            name = self.labels[label]
            if name.startswith("B-") and name[2:] in counts:
                counts[name[2:]] += 1
        return counts

    def allowed(self, prev: Optional[int], label: int) -> bool:
        """Whether `label` may follow `prev` (None: at the start). Ignores the predicate rules."""
        if self.kinds[label] != _viterbi.KIND_I:
            return True
        return prev is not None and prev in (label, int(self.begin[label]))

    def is_valid(self, sequence: Sequence[int], predicate: Optional[int] = None) -> bool:
        """Whether a label sequence satisfies every constraint."""
        prev = None
        for t, label in enumerate(sequence):
            if not self.allowed(prev, label):
                return False
            if predicate is not None and (label == self.b_v) != (t == predicate):
                return False
            prev = label
        return True


def _predicate(scheme: BIOScheme, predicate: Any, n: int, where: str) -> int:
    if predicate is None:
        return -1
    try:
        p = operator.index(predicate)
    except TypeError:
        raise TypeError(f"{where}: predicate must be an int or None, got {predicate!r}") from None
    if not 0 <= p < n:
        raise ValueError(f"{where}: predicate {p} is not a token of a {n}-token sentence")
    if scheme.b_v < 0:
        raise ValueError(f"{where}: a predicate was given but the scheme has no 'B-V' label")
    return p


def _bio_inputs(
    scores: Sequence[Any], scheme: BIOScheme, predicates: Optional[Sequence[Any]], name: str, batch: bool
) -> Tuple[list[np.ndarray], np.ndarray]:
    """Validated [n, L] float32 score matrices and int32 predicates (-1 for none)."""
    if not isinstance(scheme, BIOScheme):
        raise TypeError(f"{name}: scheme must be a BIOScheme, got {type(scheme).__name__}")
    if isinstance(scores, np.ndarray):
        raise TypeError(f"{name}: scores must be a list of arrays, not one array")
    if predicates is not None and len(predicates) != len(scores):
        raise ValueError(f"{name}: {len(predicates)} predicates for {len(scores)} sentences")
    arrays = []
    preds = np.empty(len(scores), dtype=np.int32)
    for i, s in enumerate(scores):
        where = _batch_where(name, batch, i, "scores")
        arr = _scores(s, 2, where)
        if arr.shape[1] != len(scheme):
            raise ValueError(f"{where} must have shape [n, {len(scheme)}], got {arr.shape}")
        arrays.append(arr)
        preds[i] = _predicate(scheme, None if predicates is None else predicates[i],
                              arr.shape[0], where)
    return arrays, preds


def _bio_batch(
    scores: Sequence[Any], scheme: BIOScheme, predicates: Optional[Sequence[Any]],
    viterbi: bool, name: str, batch: bool, unique_roles: Iterable[str] = (),
) -> list[list[int]]:
    arrays, preds = _bio_inputs(scores, scheme, predicates, name, batch)
    labels, status = _viterbi.bio_batch(arrays, scheme.tables, preds, viterbi)
    if status.any():
        i = int(np.flatnonzero(status)[0])
        raise _nonfinite(_batch_where(name, batch, i, "scores"))  # the only possible failure
    out = [row.tolist() for row in labels]
    unique = tuple(dict.fromkeys(unique_roles))
    if unique:
        out = [_unique_roles(arr, scheme, int(p), row, unique) for arr, p, row in zip(arrays, preds, out)]
    return out


def bio_viterbi_batch(
    scores: Sequence[Any],
    scheme: BIOScheme,
    predicates: Optional[Sequence[Optional[int]]] = None,
    unique_roles: Iterable[str] = (),
) -> list[list[int]]:
    """`bio_viterbi` over a list of [n, L] score matrices, in one GIL-free call (and one more
    call per sentence whose best sequence repeats one of ``unique_roles``)."""
    return _bio_batch(scores, scheme, predicates, True, "bio_viterbi_batch", True, unique_roles)


def _unique_roles(scores: np.ndarray, scheme: BIOScheme, predicate: int, best: list[int],
                  unique: Tuple[str, ...]) -> list[int]:
    """The best sequence in which no role of ``unique`` starts twice, given ``best``, the best
    sequence without that constraint. Constraining all of ``unique`` costs 2^k states per label,
    so only the roles found repeated are constrained, and the search is redone with any role
    that then repeats: a best sequence that repeats none of ``unique`` is the constrained optimum,
    since every sequence that satisfies the constraints satisfies the looser ones searched."""
    constrained: list[str] = []
    while True:
        repeated = [role for role, count in scheme.started(best, unique).items() if count > 1]
        if not repeated:
            return best
        constrained += [role for role in repeated if role not in constrained]
        bits = np.full(len(scheme), -1, dtype=np.int32)
        for k, role in enumerate(constrained):
            if "B-" + role in scheme.index:
                bits[scheme.index["B-" + role]] = k
        labels, status = _viterbi.bio_unique(scores, scheme.tables, predicate, bits, len(constrained))
        if status:  # scores were checked finite, and O may always follow: never infeasible
            raise RuntimeError(f"bio_viterbi: constrained decoding failed (status {status})")
        best = labels.tolist()


def bio_viterbi(
    scores: Any, scheme: BIOScheme, predicate: Optional[int] = None, unique_roles: Iterable[str] = ()
) -> list[int]:
    """Best valid BIO sequence (label indices into `scheme.labels`), by constrained Viterbi, O(nL).

    scores: [n, L] per-token label scores; the sequence score is the sum of its token scores.
    predicate: token index of the predicate, or None for no V constraint (see `BIOScheme`).
    unique_roles: roles (e.g. `CORE_ROLES`) that may start at most once: the best sequence under
    that constraint too, O(n 2^k L) for the k of them the unconstrained best repeats.
    Returns [] for n = 0.
    """
    return _bio_batch([scores], scheme, [predicate], True, "bio_viterbi", False, unique_roles)[0]


def bio_argmax_batch(
    scores: Sequence[Any], scheme: BIOScheme, predicates: Optional[Sequence[Optional[int]]] = None
) -> list[list[int]]:
    """`bio_argmax` over a list of [n, L] score matrices, in one GIL-free call."""
    return _bio_batch(scores, scheme, predicates, False, "bio_argmax_batch", True)


def bio_argmax(scores: Any, scheme: BIOScheme, predicate: Optional[int] = None) -> list[int]:
    """Per-token argmax (ties to the lowest label), then `repair_bio`."""
    return _bio_batch([scores], scheme, [predicate], False, "bio_argmax", False)[0]


def repair_bio(
    labels: Sequence[int], scheme: BIOScheme, predicate: Optional[int] = None
) -> list[int]:
    """Make a label sequence valid for `scheme`, left to right, each token after its repaired left
    neighbour:
    - with a predicate: its token becomes B-V; B-V elsewhere becomes O; I-V becomes O unless it
      continues the predicate's V span;
    - an I-X that does not follow B-X or I-X becomes B-X, as conlleval reads it (O if the scheme has
      no B-X).
    Valid sequences are returned unchanged.
    """
    if not isinstance(scheme, BIOScheme):
        raise TypeError(f"repair_bio: scheme must be a BIOScheme, got {type(scheme).__name__}")
    arr = np.array(labels, dtype=np.int64).reshape(-1)
    if arr.size and (arr.min() < 0 or arr.max() >= len(scheme)):
        raise ValueError(f"repair_bio: labels must be in [0, {len(scheme)})")
    out = np.ascontiguousarray(arr, dtype=np.int32)
    _viterbi.repair(out, scheme.tables, _predicate(scheme, predicate, len(out), "repair_bio"))
    return out.tolist()


# ----------------------------------------------------------------------------- span-level BIO


def _allowed_spans(spans: Any, n: int, where: str) -> np.ndarray:
    """The allowed segments with every single word added, int32 [m, 2], in the order the core
    reads them: by end, then by increasing length."""
    arr = _spans_array(spans, n, where)
    singles = np.stack([np.arange(n), np.arange(1, n + 1)], axis=1)
    arr = np.unique(np.concatenate([arr, singles]), axis=0)
    order = np.lexsort((arr[:, 0] - arr[:, 1], arr[:, 1]))  # end, then length (start descending)
    return np.ascontiguousarray(arr[order], dtype=np.int32)


def span_viterbi_batch(
    scores: Sequence[Any],
    scheme: BIOScheme,
    spans: Sequence[Iterable[Span]],
    predicates: Optional[Sequence[Optional[int]]] = None,
) -> list[list[int]]:
    """`span_viterbi` over a list of [n, L] score matrices and their allowed spans, in one
    GIL-free call."""
    return _span_batch(scores, scheme, spans, predicates, "span_viterbi_batch", True)


def span_viterbi(
    scores: Any, scheme: BIOScheme, spans: Iterable[Span], predicate: Optional[int] = None
) -> list[int]:
    """Best valid BIO sequence (label indices) whose arguments are all allowed spans, exact.

    scores: [n, L] per-token label scores (the BIO decoders' objective: the sum of the sequence's
        token scores, so a segment (a, b) labelled X scores B-X on a and I-X on a+1..b-1).
    spans: the allowed (start, end) segments, e.g. the constituents of a tree; they may overlap
        or cross each other; every single word is allowed as well.
    predicate: as in `bio_viterbi` (its word starts the only V segment, which is an allowed span).
    Every labelled run of the result (B-X I-X ...) is an allowed span or a single word; with every
    span allowed the result scores as `bio_viterbi`'s. Semi-Markov Viterbi, O(n + m R) for m
    spans and R roles. Ties: O first, then the shorter segment, then the lower role.
    Returns [] for n = 0.
    """
    return _span_batch([scores], scheme, [spans], [predicate], "span_viterbi", False)[0]


def _span_batch(
    scores: Sequence[Any], scheme: BIOScheme, spans: Sequence[Any],
    predicates: Optional[Sequence[Any]], name: str, batch: bool,
) -> list[list[int]]:
    arrays, preds = _bio_inputs(scores, scheme, predicates, name, batch)
    if len(spans) != len(scores):
        raise ValueError(f"{name}: {len(spans)} span lists for {len(scores)} sentences")
    span_arrays = [
        _allowed_spans(spans[i], arr.shape[0], _batch_where(name, batch, i, "spans"))
        for i, arr in enumerate(arrays)
    ]
    labels, status = _span_viterbi.span_viterbi_batch(
        arrays, span_arrays, scheme.roles, scheme.outside, scheme.v_role, preds
    )
    if status.any():  # every single word is allowed, so only non-finite scores fail
        raise _nonfinite(_batch_where(name, batch, int(np.flatnonzero(status)[0]), "scores"))
    return [out.tolist() for out in labels]
