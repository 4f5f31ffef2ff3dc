"""The static oracle of the arc-standard system (`arc_standard`; Nivre 2008): the transitions that
build a gold tree, with the features (eq. 4) of the configuration each is taken in, flattened over a
batch for teacher forcing (eq. 7). NumPy only.

Non-projective gold trees: the arc-standard system only builds projective trees, so the static
oracle raises `NonProjectiveError` for them. `arc_standard_oracle_batch(..., non_projective=...)`
is the policy hook: "raise", "skip" (the sentence gives no training configurations) or
"projectivize" (`projectivize`: lift arcs until the tree is projective, labels kept); either way the
result counts the non-projective trees it met.
"""
from __future__ import annotations

from typing import Any, List, Literal, NamedTuple, Sequence, Tuple

import numpy as np

from .arc_standard import N_FEATURES, ArcStandard, ArcStandardConfigs
from .dependencies import _nonprojective_words, _tree, is_projective, projectivize

__all__ = [
    "NonProjectiveError",
    "OracleBatch",
    "OracleSequence",
    "arc_standard_oracle",
    "arc_standard_oracle_batch",
]

NonProjectivePolicy = Literal["raise", "skip", "projectivize"]


class NonProjectiveError(ValueError):
    """A gold tree that the arc-standard system cannot build (crossing arcs)."""


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
