"""The arc-standard transition system (Nivre 2004; Zhou et al. 2018, Table 1) and greedy batched
decoding, in NumPy (no torch, no spaCy); its static oracle is `arc_standard_oracle`.

Conventions are those of the other dependency decoders (`eisner`, `chu_liu_edmonds`): a sentence of
n words has positions 0..n, 0 being the artificial ROOT; `heads` is int64 [n + 1] with heads[0] = -1
and heads[d] the head of word d; `labels` is int64 [n + 1] with labels[0] = -1.

Configurations c = (sigma, beta, A) (Table 1): initially sigma = [0], beta = [1..n], A empty; the
terminal configuration has sigma = [0] and beta empty. The buffer is always a suffix of the
sentence, so it is stored as the index of its first word. Transitions, with s1 the top of the stack,
s2 the one below it and b1 the first word of the buffer:

- SHIFT: move b1 onto the stack. Needs a non-empty buffer.
- LEFT-ARC(l): add s1 -l-> s2 (s1 heads s2) and pop s2. Needs |sigma| >= 2 and s2 != ROOT.
- RIGHT-ARC(l): add s2 -l-> s1 (s2 heads s1) and pop s1. Needs |sigma| >= 2, and when s2 is ROOT,
  an empty buffer: ROOT takes its one dependent last, so every terminal tree is single-rooted.

The names follow Nivre (2004, 2008): the arc points left or right. Zhou et al. name them by the
head's side instead: their ARC_L (pop s1, s2 its head) is RIGHT-ARC here, their ARC_R is LEFT-ARC.
Every non-terminal configuration has a legal transition, and every sentence takes exactly 2n
transitions (n shifts, n arcs), so a batch of sentences runs in lock step until its shortest
sentences finish.

Transitions are integers for a system with L labels: SHIFT = 0, LEFT-ARC(l) = 1 + l, RIGHT-ARC(l)
= 1 + L + l (`ArcStandard` encodes and decodes them). With L = 1 these are the three actions of the
paper's unlabelled classifier (eq. 5-6).

Configuration features (eq. 4) are the positions (s3, s2, s1, b1), -1 marking an empty slot.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, List, NamedTuple, Optional, Sequence

import numpy as np

__all__ = [
    "ArcStandard",
    "ArcStandardConfigs",
    "DependencyParse",
    "apply_transitions",
    "arc_standard_greedy_batch",
]

SHIFT, LEFT_ARC, RIGHT_ARC = 0, 1, 2  # transition kinds
N_FEATURES = 4  # s3, s2, s1, b1 (eq. 4)

ScoreFn = Callable[[np.ndarray, np.ndarray], Any]


class ArcStandard:
    """The labelled transition set: SHIFT = 0, LEFT-ARC(l) = 1 + l, RIGHT-ARC(l) = 1 + L + l.

    n_labels: L >= 1 (one label for unlabelled parsing).
    root_label: if given, the label of the arc from ROOT, and only of it: RIGHT-ARC from ROOT must
        carry it and no other arc may (so a UD "root" label can only mark the root). The oracle
        checks gold trees against it.
    """

    SHIFT = 0

    def __init__(self, n_labels: int, root_label: Optional[int] = None) -> None:
        n_labels = _int(n_labels, "ArcStandard: n_labels")
        if n_labels < 1:
            raise ValueError(f"ArcStandard: n_labels must be >= 1, got {n_labels}")
        if root_label is not None:
            root_label = _int(root_label, "ArcStandard: root_label")
            if not 0 <= root_label < n_labels:
                raise ValueError(f"ArcStandard: root_label {root_label} is not in [0, {n_labels})")
            if n_labels < 2:
                raise ValueError("ArcStandard: a root_label needs another label for the other arcs")
        self.n_labels = n_labels
        self.root_label = root_label
        self.n_transitions = 1 + 2 * n_labels

    def __repr__(self) -> str:
        return f"ArcStandard(n_labels={self.n_labels}, root_label={self.root_label})"

    def left_arc(self, label: int) -> int:
        return 1 + self._label(label)

    def right_arc(self, label: int) -> int:
        return 1 + self.n_labels + self._label(label)

    def kind(self, transitions: Any) -> np.ndarray:
        """SHIFT (0), LEFT_ARC (1) or RIGHT_ARC (2) of each transition id."""
        t = np.asarray(transitions, dtype=np.int64)
        return np.where(t == 0, SHIFT, np.where(t <= self.n_labels, LEFT_ARC, RIGHT_ARC))

    def label(self, transitions: Any) -> np.ndarray:
        """The label of each arc transition id (-1 for SHIFT)."""
        t = np.asarray(transitions, dtype=np.int64)
        return np.where(t == 0, -1, (t - 1) % self.n_labels)

    def name(self, transition: int) -> str:
        """Readable form: "SHIFT", "LEFT-ARC(3)", "RIGHT-ARC(0)"."""
        t = self._transition(transition)
        if t == 0:
            return "SHIFT"
        return f"{'LEFT' if t <= self.n_labels else 'RIGHT'}-ARC({(t - 1) % self.n_labels})"

    def _label(self, label: int) -> int:
        label = _int(label, "ArcStandard: label")
        if not 0 <= label < self.n_labels:
            raise ValueError(f"ArcStandard: label {label} is not in [0, {self.n_labels})")
        return label

    def _transition(self, transition: int) -> int:
        t = _int(transition, "ArcStandard: transition")
        if not 0 <= t < self.n_transitions:
            raise ValueError(f"ArcStandard: transition {t} is not in [0, {self.n_transitions})")
        return t


class DependencyParse(NamedTuple):
    """heads, labels: int64 [n + 1]; heads[0] = labels[0] = -1."""

    heads: np.ndarray
    labels: np.ndarray


class ArcStandardConfigs:
    """A batch of arc-standard configurations, one per sentence, advanced together (vectorised
    over the sentences; a step costs a few NumPy operations whatever the batch size).

    lengths: number of words of each sentence (0 allowed: already terminal).
    system: the transition set (labels, root label).
    """

    def __init__(self, lengths: Sequence[int], system: ArcStandard) -> None:
        if not isinstance(system, ArcStandard):
            raise TypeError(f"ArcStandardConfigs: system must be an ArcStandard, got {system!r}")
        n = _lengths(lengths, "ArcStandardConfigs: lengths")
        self.system = system
        self.lengths = n
        B = len(n)
        T = int(n.max()) if B else 0
        self.stack = np.zeros((B, T + 1), dtype=np.int64)  # stack[b, :size[b]], bottom first
        self.size = np.ones(B, dtype=np.int64)
        self.buffer = np.ones(B, dtype=np.int64)  # first word of the buffer; n + 1 = empty
        self.heads = np.full((B, T + 1), -1, dtype=np.int64)
        self.labels = np.full((B, T + 1), -1, dtype=np.int64)
        self._rows = np.arange(B)

    @property
    def done(self) -> np.ndarray:
        """bool [B]: terminal configurations (stack [ROOT], empty buffer)."""
        return (self.size == 1) & (self.buffer > self.lengths)

    def _top(self, k: int, rows: np.ndarray) -> np.ndarray:
        """The k-th word from the top of the stack (k = 1: s1), -1 when the stack is shorter."""
        size = self.size[rows]
        depth = size - k
        return np.where(depth >= 0, self.stack[rows, np.maximum(depth, 0)], -1)

    def features(self, rows: Optional[np.ndarray] = None) -> np.ndarray:
        """int64 [K, 4]: (s3, s2, s1, b1) of the configurations `rows` (default all), -1 = empty."""
        rows = self._rows if rows is None else rows
        b1 = self.buffer[rows]
        b1 = np.where(b1 <= self.lengths[rows], b1, -1)
        return np.stack([self._top(3, rows), self._top(2, rows), self._top(1, rows), b1], axis=1)

    def legal(self, rows: Optional[np.ndarray] = None) -> np.ndarray:
        """bool [K, n_transitions]: the transitions whose preconditions hold (none if terminal)."""
        rows = self._rows if rows is None else rows
        system = self.system
        L = system.n_labels
        buffer_full = self.buffer[rows] <= self.lengths[rows]
        two = self.size[rows] >= 2
        s2 = self._top(2, rows)
        legal = np.zeros((len(rows), system.n_transitions), dtype=bool)
        legal[:, 0] = buffer_full
        legal[:, 1:1 + L] = (two & (s2 != 0))[:, None]
        from_root = two & (s2 == 0) & ~buffer_full
        legal[:, 1 + L:] = (two & (s2 != 0))[:, None]
        if system.root_label is None:
            legal[:, 1 + L:] |= from_root[:, None]
        else:
            r = system.root_label
            legal[:, 1 + r] = False
            legal[:, 1 + L + r] = from_root
        return legal

    def apply(self, rows: np.ndarray, transitions: np.ndarray) -> None:
        """Take transitions[k] in configuration rows[k] (rows distinct); an illegal transition
        raises ValueError naming the sentence and the step."""
        rows = np.asarray(rows, dtype=np.int64)
        transitions = np.asarray(transitions, dtype=np.int64)
        if transitions.shape != rows.shape:
            raise ValueError(
                f"ArcStandardConfigs.apply: {transitions.shape} transitions for {rows.shape} rows"
            )
        if len(rows) == 0:
            return
        system = self.system
        if transitions.min() < 0 or transitions.max() >= system.n_transitions:
            raise ValueError(
                f"ArcStandardConfigs.apply: transitions must be in [0, {system.n_transitions})"
            )
        ok = self.legal(rows)[np.arange(len(rows)), transitions]
        if not ok.all():
            k = int(np.flatnonzero(~ok)[0])
            b = int(rows[k])
            stack = self.stack[b, :self.size[b]].tolist()
            raise ValueError(
                f"ArcStandardConfigs.apply: {system.name(int(transitions[k]))} is not legal in "
                f"sentence {b} (stack {stack}, buffer from {int(self.buffer[b])} of "
                f"{int(self.lengths[b])} words)"
            )
        kind = system.kind(transitions)
        label = system.label(transitions)
        size = self.size[rows]
        s1 = self._top(1, rows)
        s2 = self._top(2, rows)

        r = rows[kind == SHIFT]
        self.stack[r, self.size[r]] = self.buffer[r]
        self.size[r] += 1
        self.buffer[r] += 1

        m = kind == LEFT_ARC
        r = rows[m]
        self.heads[r, s2[m]] = s1[m]
        self.labels[r, s2[m]] = label[m]
        self.stack[r, size[m] - 2] = s1[m]
        self.size[r] -= 1

        m = kind == RIGHT_ARC
        r = rows[m]
        self.heads[r, s1[m]] = s2[m]
        self.labels[r, s1[m]] = label[m]
        self.size[r] -= 1

    def parses(self) -> List[DependencyParse]:
        """The trees built so far, one per sentence (complete once `done` holds)."""
        return [DependencyParse(self.heads[b, :n + 1].copy(), self.labels[b, :n + 1].copy())
                for b, n in enumerate(self.lengths.tolist())]


def _int(value: Any, where: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where} must be an int, got {value!r}") from None


def _lengths(lengths: Sequence[int], where: str) -> np.ndarray:
    arr = np.asarray(lengths)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ValueError(f"{where} must be a 1-d sequence of ints, got {lengths!r}")
    arr = arr.astype(np.int64)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{where} must be >= 0, got {int(arr.min())}")
    return arr


def apply_transitions(n: int, transitions: Sequence[int], system: ArcStandard) -> DependencyParse:
    """Run a transition sequence from the initial configuration of an n-word sentence; it must be
    legal throughout and end in the terminal configuration (ValueError otherwise)."""
    n = _int(n, "apply_transitions: n")
    configs = ArcStandardConfigs([n], system)
    row = np.zeros(1, dtype=np.int64)
    for step, t in enumerate(np.asarray(transitions, dtype=np.int64).reshape(-1)):
        if configs.done[0]:
            raise ValueError(f"apply_transitions: transition {step} comes after the terminal configuration")
        try:
            configs.apply(row, np.array([t]))
        except ValueError as err:
            raise ValueError(f"apply_transitions: step {step}: {err}") from None
    if not configs.done[0]:
        raise ValueError("apply_transitions: the sequence stops before the terminal configuration")
    return configs.parses()[0]


# ----------------------------------------------------------------------------- greedy decoding


def arc_standard_greedy_batch(
    lengths: Sequence[int], score: ScoreFn, system: ArcStandard
) -> List[DependencyParse]:
    """Greedy arc-standard parsing of a batch: at each step, one call scores the current
    configuration of every unfinished sentence, and each takes its best legal transition.

    score(rows, features) -> [K, n_transitions] real scores: rows int64 [K] are the sentences
        (indices into the batch) still parsing, features int64 [K, 4] their (s3, s2, s1, b1)
        positions (-1 = empty slot). Scores of illegal transitions are never read (may be -inf);
        a legal one that is NaN or infinite raises ValueError.
    Returns a single-rooted tree with labels for every sentence (n = 0: heads = labels = [-1]).
    Ties go to the lowest transition id (SHIFT, then LEFT-ARC, then RIGHT-ARC; lowest label).
    """
    if not isinstance(system, ArcStandard):
        raise TypeError(f"arc_standard_greedy_batch: system must be an ArcStandard, got {system!r}")
    configs = ArcStandardConfigs(lengths, system)
    while True:
        rows = np.flatnonzero(~configs.done)
        if rows.size == 0:
            return configs.parses()
        scores = np.asarray(score(rows, configs.features(rows)))
        if scores.dtype.kind != "f":
            raise TypeError(f"arc_standard_greedy_batch: scores must be real floats, got {scores.dtype}")
        if scores.shape != (len(rows), system.n_transitions):
            raise ValueError(
                f"arc_standard_greedy_batch: score() returned shape {scores.shape}, expected "
                f"{(len(rows), system.n_transitions)}"
            )
        legal = configs.legal(rows)
        if not np.isfinite(scores[legal]).all():
            raise ValueError(
                "arc_standard_greedy_batch: score() returned NaN or infinite scores for legal transitions"
            )
        best = np.where(legal, scores, -np.inf).argmax(1)
        configs.apply(rows, best)
