"""BIO sequences of semantic role labelling: the label set and its constraints (`BIOScheme`), the
best valid sequence by constrained Viterbi (optionally with core roles that start at most once,
He et al. 2017, sec. 3.3), per-token argmax with repair, and the best valid sequence whose
arguments are all allowed spans (span-level, semi-Markov Viterbi). Inputs are validated here;
`_viterbi` and `_span_viterbi` decode.
"""
from __future__ import annotations

import math
import numbers
import operator
from typing import Any, Iterable, Optional, Sequence, Tuple

import numpy as np

from . import _span_viterbi, _viterbi
from ._checks import Span, _batch_where, _nonfinite, _scores, _spans_array

__all__ = [
    "BIOScheme",
    "CORE_ROLES",
    "bio_viterbi",
    "bio_viterbi_batch",
    "bio_argmax",
    "bio_argmax_batch",
    "repair_bio",
    "span_viterbi",
    "span_viterbi_batch",
]

#: PropBank's numbered (core) roles, which a frame has at most once each (He et al. 2017, sec. 3.3;
#: `bio_viterbi(..., unique_roles=CORE_ROLES)`). ARG1-DSP stands in for ARG1 and counts on its own.
CORE_ROLES = ("ARG0", "ARG1", "ARG1-DSP", "ARG2", "ARG3", "ARG4", "ARG5", "ARGA")


class BIOScheme:
    """The BIO label set of an SRL tagger and its constraints.

    labels: "O" (exactly once), "B-<role>" and "I-<role>", e.g. "B-ARG0", "I-C-ARG1", "B-R-ARG0".
    The role "V" is the predicate's. Constraints on a sequence:
    - I-X only after B-X or I-X (so never at the start; an I-X without B-X in the set never occurs);
    - with a predicate p: token p is B-V and no other token is B-V, so the only V span starts at p
      (it may continue with I-V to the right).
    """

    def __init__(self, labels: Sequence[str]) -> None:
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


def _span_table(spans: Any, n: int, where: str) -> np.ndarray:
    """The allowed spans of two or more words, int32 [m, 2] by end, as the core reads them (ties
    between them are settled by comparison, not by their order); single words are always allowed
    and need no entry."""
    arr = _spans_array(spans, n, where)
    ends, starts = np.divmod(np.unique(arr[:, 1] * (n + 1) + arr[:, 0]), n + 1)  # by end, no repeats
    several = ends - starts > 1
    return np.ascontiguousarray(np.stack([starts[several], ends[several]], axis=1), dtype=np.int32)


def _penalty(penalty: Any, name: str) -> float:
    if isinstance(penalty, bool) or not isinstance(penalty, numbers.Real) or not penalty >= 0:
        raise ValueError(f"{name}: penalty must be a number >= 0 (inf: allowed spans only), got {penalty!r}")
    return float(penalty)


def span_viterbi_batch(
    scores: Sequence[Any],
    scheme: BIOScheme,
    spans: Sequence[Iterable[Span]],
    predicates: Optional[Sequence[Optional[int]]] = None,
    penalty: float = math.inf,
) -> list[list[int]]:
    """`span_viterbi` over a list of [n, L] score matrices and their allowed spans, in one
    GIL-free call."""
    return _span_batch(scores, scheme, spans, predicates, penalty, "span_viterbi_batch", True)


def span_viterbi(
    scores: Any, scheme: BIOScheme, spans: Iterable[Span], predicate: Optional[int] = None,
    penalty: float = math.inf,
) -> list[int]:
    """Best valid BIO sequence (label indices) whose arguments are all allowed spans, exact.

    scores: [n, L] per-token label scores (the BIO decoders' objective: the sum of the sequence's
        token scores, so a segment (a, b) labelled X scores B-X on a and I-X on a+1..b-1).
    spans: the allowed (start, end) segments, e.g. the constituents of a tree; they may overlap
        or cross each other; every single word is allowed as well.
    predicate: as in `bio_viterbi` (its word starts the only V segment, which is an allowed span).
    penalty: what a labelled run of several words over a span that is not allowed costs, taken
        from the sequence's score; inf (default): such runs are never chosen. A finite penalty
        trades the scores' evidence against the spans (0: `bio_viterbi`'s optimum); every span of
        the sentence is then a candidate, and for each role only the best start off the spans
        matters, which a running maximum keeps.
    With an infinite penalty every labelled run of the result (B-X I-X ...) is an allowed span or
    a single word; with every span allowed the result scores as `bio_viterbi`'s. Semi-Markov
    Viterbi, O(n R + m R) for m spans and R roles. Ties: O first, then the shorter segment, then
    the lower role. Returns [] for n = 0.
    """
    return _span_batch([scores], scheme, [spans], [predicate], penalty, "span_viterbi", False)[0]


def _span_batch(
    scores: Sequence[Any], scheme: BIOScheme, spans: Sequence[Any],
    predicates: Optional[Sequence[Any]], penalty: Any, name: str, batch: bool,
) -> list[list[int]]:
    arrays, preds = _bio_inputs(scores, scheme, predicates, name, batch)
    penalty = _penalty(penalty, name)
    if len(spans) != len(scores):
        raise ValueError(f"{name}: {len(spans)} span lists for {len(scores)} sentences")
    # Rows of one sentence (one per predicate) share its span list: one table for all of them.
    tables, made = [], {}
    for i, arr in enumerate(arrays):
        key = (id(spans[i]), arr.shape[0])
        if key not in made:
            made[key] = _span_table(spans[i], arr.shape[0], _batch_where(name, batch, i, "spans"))
        tables.append(made[key])
    labels, status = _span_viterbi.span_viterbi_batch(
        arrays, tables, penalty, scheme.roles, scheme.outside, scheme.v_role, preds
    )
    if status.any():  # every single word is allowed, so only non-finite scores fail
        raise _nonfinite(_batch_where(name, batch, int(np.flatnonzero(status)[0]), "scores"))
    return [out.tolist() for out in labels]
