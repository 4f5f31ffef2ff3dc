"""The arc-standard transition system (Nivre 2004; Zhou et al. 2018, Table 1), its static oracle and
greedy batched decoding, in NumPy (no torch, no spaCy).

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

Non-projective gold trees: the arc-standard system only builds projective trees, so the static
oracle raises `NonProjectiveError` for them. `arc_standard_oracle_batch(..., non_projective=...)`
is the policy hook: "raise", "skip" (the sentence gives no training configurations) or
"projectivize" (`projectivize`: lift arcs until the tree is projective, labels kept); either way the
result counts the non-projective trees it met.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, List, Literal, NamedTuple, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "ArcStandard",
    "ArcStandardConfigs",
    "DependencyParse",
    "NonProjectiveError",
    "OracleBatch",
    "OracleSequence",
    "apply_transitions",
    "arc_standard_greedy_batch",
    "arc_standard_oracle",
    "arc_standard_oracle_batch",
    "is_projective",
    "projectivize",
]

SHIFT, LEFT_ARC, RIGHT_ARC = 0, 1, 2  # transition kinds
N_FEATURES = 4  # s3, s2, s1, b1 (eq. 4)

NonProjectivePolicy = Literal["raise", "skip", "projectivize"]
ScoreFn = Callable[[np.ndarray, np.ndarray], Any]


class NonProjectiveError(ValueError):
    """A gold tree that the arc-standard system cannot build (crossing arcs)."""


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


class OracleSequence(NamedTuple):
    """The static oracle's run over one sentence: 2n transitions and the features (eq. 4) of the
    configuration each was taken in, int64 [2n] and [2n, 4] (s3, s2, s1, b1; -1 = empty)."""

    transitions: np.ndarray
    features: np.ndarray


class OracleBatch(NamedTuple):
    """Every oracle configuration of a batch, flat, ready for teacher forcing (eq. 7).

    rows: int64 [K], the sentence (index into the batch) of each configuration.
    features: int64 [K, 4], its (s3, s2, s1, b1) positions, -1 for an empty slot.
    transitions: int64 [K], the gold transition.
    kept: int64, the sentences that gave configurations (all but the skipped ones).
    n_nonprojective: how many gold trees were non-projective (skipped or projectivized).
    """

    rows: np.ndarray
    features: np.ndarray
    transitions: np.ndarray
    kept: np.ndarray
    n_nonprojective: int


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


# ----------------------------------------------------------------------------- trees


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


# ----------------------------------------------------------------------------- oracle


def _gold(heads: Any, labels: Any, system: ArcStandard, where: str) -> Tuple[np.ndarray, np.ndarray]:
    h = _tree(heads, where)
    n = h.size - 1
    lab = np.asarray(labels)
    if lab.shape != h.shape or (lab.size > 1 and lab.dtype.kind not in "iu"):
        raise ValueError(f"{where}: labels must be an int array of shape {h.shape}, got {labels!r}")
    lab = lab.astype(np.int64)
    lab[0] = -1
    if n and (lab[1:].min() < 0 or lab[1:].max() >= system.n_labels):
        raise ValueError(f"{where}: labels must be in [0, {system.n_labels})")
    if n and int((h[1:] == 0).sum()) != 1:
        raise ValueError(
            f"{where}: the tree has {int((h[1:] == 0).sum())} dependents of ROOT; the arc-standard "
            "system builds trees with exactly one"
        )
    if system.root_label is not None and n:
        r = system.root_label
        if ((lab[1:] == r) != (h[1:] == 0)).any():
            raise ValueError(f"{where}: label {r} (the root label) must mark exactly the ROOT arc")
    return h, lab


def _run_oracle(heads: List[np.ndarray], labels: List[np.ndarray], system: ArcStandard,
                where: str) -> List[OracleSequence]:
    """Static oracle over valid projective single-rooted trees, all sentences in lock step."""
    lengths = np.array([h.size - 1 for h in heads], dtype=np.int64)
    B = len(heads)
    T = int(lengths.max()) if B else 0
    gold_head = np.full((B, T + 1), -1, dtype=np.int64)
    gold_label = np.full((B, T + 1), -1, dtype=np.int64)
    missing = np.zeros((B, T + 1), dtype=np.int64)  # dependents not attached yet
    for b, (h, lab) in enumerate(zip(heads, labels)):
        gold_head[b, :h.size] = h
        gold_label[b, :h.size] = lab
        np.add.at(missing[b], h[1:], 1)
    configs = ArcStandardConfigs(lengths, system)
    L = system.n_labels
    steps_t: List[np.ndarray] = []
    steps_f: List[np.ndarray] = []
    steps_r: List[np.ndarray] = []
    while True:
        rows = np.flatnonzero(~configs.done)
        if rows.size == 0:
            break
        feats = configs.features(rows)
        s2, s1 = feats[:, 1], feats[:, 2]
        has2 = s2 >= 0
        s1c, s2c = np.maximum(s1, 0), np.maximum(s2, 0)
        left = has2 & (s2 != 0) & (gold_head[rows, s2c] == s1)
        right = has2 & ~left & (gold_head[rows, s1c] == s2) & (missing[rows, s1c] == 0)
        t = np.where(left, 1 + gold_label[rows, s2c], np.where(right, 1 + L + gold_label[rows, s1c], 0))
        stuck = (t == 0) & (feats[:, 3] < 0)
        if stuck.any():  # only for non-projective trees, which the callers filter out
            raise NonProjectiveError(f"{where}: sentence {int(rows[stuck][0])} is not projective")
        dep = np.where(left, s2, s1)
        arc = left | right
        np.add.at(missing, (rows[arc], gold_head[rows[arc], dep[arc]]), -1)
        configs.apply(rows, t)
        steps_t.append(t)
        steps_f.append(feats)
        steps_r.append(rows)
    if not steps_r:
        return [OracleSequence(np.zeros(0, np.int64), np.zeros((0, N_FEATURES), np.int64))] * B
    rows_all = np.concatenate(steps_r)
    order = np.argsort(rows_all, kind="stable")  # per sentence, in step order
    t_all = np.concatenate(steps_t)[order]
    f_all = np.concatenate(steps_f)[order]
    bounds = np.cumsum(2 * lengths)[:-1]
    return [OracleSequence(t, f) for t, f in zip(np.split(t_all, bounds), np.split(f_all, bounds))]


def arc_standard_oracle(heads: Any, labels: Any, system: ArcStandard) -> OracleSequence:
    """The static oracle's 2n transitions for a projective single-rooted gold tree, and the
    features of the configuration each one is taken in.

    Prefers LEFT-ARC when s1 heads s2, then RIGHT-ARC when s2 heads s1 and s1 has all its
    dependents, else SHIFT (Nivre 2008). heads, labels: int [n + 1] (index 0 ignored).
    Raises NonProjectiveError for a non-projective tree, ValueError for anything that is not a
    single-rooted tree with labels in range.
    """
    h, lab = _gold(heads, labels, system, "arc_standard_oracle")
    if not is_projective(h):
        raise NonProjectiveError(
            f"arc_standard_oracle: the tree {h.tolist()} is not projective (arcs of words "
            f"{_nonprojective_words(h).tolist()} cross); projectivize it or skip it"
        )
    return _run_oracle([h], [lab], system, "arc_standard_oracle")[0]


def arc_standard_oracle_batch(
    heads: Sequence[Any],
    labels: Sequence[Any],
    system: ArcStandard,
    *,
    non_projective: NonProjectivePolicy = "raise",
) -> OracleBatch:
    """`arc_standard_oracle` over a batch, flattened for teacher forcing (see `OracleBatch`).

    non_projective: what a non-projective gold tree does: "raise" (NonProjectiveError naming
        the sentence), "skip" (it gives no configurations and is left out of `kept`) or
        "projectivize" (`projectivize` first). `n_nonprojective` counts them.
    """
    where = "arc_standard_oracle_batch"
    if non_projective not in ("raise", "skip", "projectivize"):
        raise ValueError(
            f"{where}: non_projective must be 'raise', 'skip' or 'projectivize', got {non_projective!r}"
        )
    if len(labels) != len(heads):
        raise ValueError(f"{where}: {len(labels)} label arrays for {len(heads)} trees")
    trees, labs, kept = [], [], []
    n_nonprojective = 0
    for i, (h, lab) in enumerate(zip(heads, labels)):
        h, lab = _gold(h, lab, system, f"{where}: sentence {i}")
        if _nonprojective_words(h).size:
            n_nonprojective += 1
            if non_projective == "raise":
                raise NonProjectiveError(f"{where}: sentence {i} is not projective")
            if non_projective == "skip":
                continue
            h = projectivize(h)
        trees.append(h)
        labs.append(lab)
        kept.append(i)
    sequences = _run_oracle(trees, labs, system, where)
    kept_arr = np.array(kept, dtype=np.int64)
    counts = np.array([len(s.transitions) for s in sequences], dtype=np.int64)
    if not sequences or counts.sum() == 0:
        empty = np.zeros(0, dtype=np.int64)
        return OracleBatch(empty, np.zeros((0, N_FEATURES), np.int64), empty, kept_arr, n_nonprojective)
    return OracleBatch(
        np.repeat(kept_arr, counts),
        np.concatenate([s.features for s in sequences]),
        np.concatenate([s.transitions for s in sequences]),
        kept_arr,
        n_nonprojective,
    )


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
