"""The arc-standard transition system (spacy_lal.decode.arc_standard): legal sequences build
well-formed trees, the static oracle reproduces projective trees (random ones and every projective
tree of EWT train), greedy decoding always gives a single-rooted labelled tree."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_lal.decode import (
    ArcStandard,
    ArcStandardConfigs,
    NonProjectiveError,
    apply_transitions,
    arc_standard_greedy_batch,
    arc_standard_oracle,
    arc_standard_oracle_batch,
    is_projective,
    projectivize,
)

ROOT = Path(__file__).parents[2]  # the repository (this file is tests/decode/...)
ASSET_DIRS = [Path(p) for p in os.environ.get("SPACY_LAL_ASSETS", "").split(os.pathsep) if p] + [
    ROOT / ".." / "shared" / "assets",
    ROOT / "assets",
]
ASSETS = next((p.resolve() for p in ASSET_DIRS if (p / "UD_English-EWT").is_dir()), None)


# ----------------------------------------------------------------------------- independent checks


def check_tree(heads: np.ndarray, labels: np.ndarray, n: int, n_labels: int,
               root_label: Optional[int] = None) -> None:
    """Assert a well-formed single-rooted labelled tree over words 1..n (written from the
    definition, without the module's helpers)."""
    assert heads.shape == labels.shape == (n + 1,)
    assert heads[0] == -1 and labels[0] == -1
    for d in range(1, n + 1):
        assert 0 <= heads[d] <= n and heads[d] != d
        assert 0 <= labels[d] < n_labels
        node, steps = d, 0
        while node != 0:
            node, steps = heads[node], steps + 1
            assert steps <= n, f"word {d} is on a cycle: {heads}"
    if n:
        assert sum(1 for d in range(1, n + 1) if heads[d] == 0) == 1
    if root_label is not None:
        for d in range(1, n + 1):
            assert (labels[d] == root_label) == (heads[d] == 0)


def projective_by_definition(heads: np.ndarray) -> bool:
    """Every word between a head and its dependent descends from the head (ROOT arc included)."""
    n = len(heads) - 1

    def dominates(h: int, w: int) -> bool:
        while w != -1:
            if w == h:
                return True
            w = heads[w] if w else -1
        return False

    return all(dominates(heads[d], w) for d in range(1, n + 1)
               for w in range(min(d, heads[d]) + 1, max(d, heads[d])))


@st.composite
def projective_trees(draw, max_words: int = 12) -> np.ndarray:
    """Any single-rooted projective tree: a head, and the words left and right of it split into
    contiguous runs, each a projective subtree attached to it."""
    n = draw(st.integers(0, max_words))
    heads = np.full(n + 1, -1, dtype=np.int64)

    def build(lo: int, hi: int, head: int) -> None:  # words lo..hi-1, one subtree under `head`
        k = draw(st.integers(lo, hi - 1))
        heads[k] = head
        for a, b in ((lo, k), (k + 1, hi)):
            while a < b:
                end = draw(st.integers(a + 1, b))
                build(a, end, k)
                a = end

    if n:
        build(1, n + 1, 0)
    return heads


@st.composite
def any_trees(draw, max_words: int = 10) -> np.ndarray:
    """Any single-rooted tree: words attached in a random order to an already attached node."""
    n = draw(st.integers(1, max_words))
    order = draw(st.permutations(list(range(1, n + 1))))
    heads = np.full(n + 1, -1, dtype=np.int64)
    heads[order[0]] = 0
    for j, w in enumerate(order[1:], start=1):
        heads[w] = order[draw(st.integers(0, j - 1))]
    return heads


def labelled(draw, heads: np.ndarray, n_labels: int, root_label: Optional[int]) -> np.ndarray:
    labels = np.full(len(heads), -1, dtype=np.int64)
    others = [lab for lab in range(n_labels) if lab != root_label]
    for d in range(1, len(heads)):
        is_root = root_label is not None and heads[d] == 0
        labels[d] = root_label if is_root else draw(st.sampled_from(others))
    return labels


SYSTEMS = [ArcStandard(1), ArcStandard(3), ArcStandard(4, root_label=2)]


# ----------------------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(data=st.data(), lengths=st.lists(st.integers(0, 12), min_size=1, max_size=5),
       which=st.integers(0, len(SYSTEMS) - 1))
def test_random_legal_sequences_build_well_formed_trees(data, lengths, which):
    system = SYSTEMS[which]
    configs = ArcStandardConfigs(lengths, system)
    steps = np.zeros(len(lengths), dtype=np.int64)
    while not configs.done.all():
        rows = np.flatnonzero(~configs.done)
        legal = configs.legal(rows)
        assert legal.any(1).all(), "a non-terminal configuration without a legal transition"
        choice = [data.draw(st.sampled_from(np.flatnonzero(row).tolist())) for row in legal]
        configs.apply(rows, np.array(choice))
        steps[rows] += 1
    assert (steps == 2 * np.array(lengths)).all()  # n shifts and n arcs
    assert not configs.legal().any()  # terminal: nothing is legal
    for n, (heads, labels) in zip(lengths, configs.parses()):
        check_tree(heads, labels, n, system.n_labels, system.root_label)
        assert projective_by_definition(heads)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), which=st.integers(0, len(SYSTEMS) - 1))
def test_oracle_reproduces_random_projective_trees(data, which):
    system = SYSTEMS[which]
    heads = data.draw(projective_trees())
    labels = labelled(data.draw, heads, system.n_labels, system.root_label)
    n = len(heads) - 1
    assert is_projective(heads)
    seq = arc_standard_oracle(heads, labels, system)
    assert seq.transitions.shape == (2 * n,) and seq.features.shape == (2 * n, 4)
    parse = apply_transitions(n, seq.transitions, system)
    assert parse.heads.tolist() == heads.tolist()
    assert parse.labels.tolist() == labels.tolist()
    if n:
        assert seq.features[0].tolist() == [-1, -1, 0, 1]  # Table 1's initial configuration
        assert seq.transitions[0] == system.SHIFT


@settings(max_examples=80, deadline=None)
@given(lengths=st.lists(st.integers(0, 15), min_size=1, max_size=6),
       which=st.integers(0, len(SYSTEMS) - 1), seed=st.integers(0, 2**31))
def test_greedy_decoding_with_random_scores_gives_single_rooted_trees(lengths, which, seed):
    system = SYSTEMS[which]
    rng = np.random.default_rng(seed)
    shadow = ArcStandardConfigs(lengths, system)  # where the decoder should be
    calls = []

    def score(rows, features):
        calls.append(len(rows))
        assert features.tolist() == shadow.features(rows).tolist()
        legal = shadow.legal(rows)
        s = rng.normal(size=(len(rows), system.n_transitions))
        s[~legal & (rng.random(s.shape) < 0.5)] = -np.inf  # illegal entries are never read
        shadow.apply(rows, np.where(legal, s, -np.inf).argmax(1))  # the best legal transition
        return s

    parses = arc_standard_greedy_batch(lengths, score, system)
    assert len(calls) == 2 * max(lengths)
    for n, (heads, labels), expected in zip(lengths, parses, shadow.parses()):
        check_tree(heads, labels, n, system.n_labels, system.root_label)
        assert heads.tolist() == expected.heads.tolist()
        assert labels.tolist() == expected.labels.tolist()


def test_greedy_decoding_follows_the_scores():
    """Scoring the oracle's transitions highest makes the greedy decoder rebuild the gold trees."""
    system = ArcStandard(3, root_label=0)
    gold = [
        (np.array([-1, 2, 0, 2, 3]), np.array([-1, 1, 0, 2, 1])),
        (np.array([-1, 0]), np.array([-1, 0])),
        (np.array([-1, 3, 3, 0, 5, 3, 5]), np.array([-1, 1, 1, 0, 2, 2, 1])),
        (np.array([-1]), np.array([-1])),
    ]
    seqs = [arc_standard_oracle(h, lab, system).transitions for h, lab in gold]
    step = [0]

    def score(rows, features):
        s = np.random.default_rng(step[0]).normal(size=(len(rows), system.n_transitions))
        s[np.arange(len(rows)), [seqs[r][step[0]] for r in rows]] = 10.0
        step[0] += 1
        return s

    parses = arc_standard_greedy_batch([len(h) - 1 for h, _ in gold], score, system)
    for (heads, labels), parse in zip(gold, parses):
        assert parse.heads.tolist() == heads.tolist()
        assert parse.labels.tolist() == labels.tolist()


@settings(max_examples=150, deadline=None)
@given(heads=any_trees())
def test_is_projective_and_projectivize(heads):
    assert is_projective(heads) == projective_by_definition(heads)
    lifted = projectivize(heads)
    assert projective_by_definition(lifted)
    n = len(heads) - 1
    check_tree(lifted, np.r_[-1, np.zeros(n, dtype=np.int64)], n, 1)  # still single-rooted
    if projective_by_definition(heads):
        assert lifted.tolist() == heads.tolist()
    else:  # lifting only moves heads up the tree
        for d in range(1, n + 1):
            h = heads[d]
            while h not in (lifted[d], 0):
                h = heads[h]
            assert h == lifted[d]


# ----------------------------------------------------------------------------- non-projective policy


NONPROJ_HEADS = np.array([-1, 3, 4, 0, 3])  # 1 <- 3 and 2 <- 4 cross: (1, 3) vs (2, 4)
NONPROJ_LABELS = np.array([-1, 1, 1, 0, 1])


def test_oracle_rejects_non_projective_trees():
    system = ArcStandard(2)
    assert not is_projective(NONPROJ_HEADS)
    with pytest.raises(NonProjectiveError, match="not projective"):
        arc_standard_oracle(NONPROJ_HEADS, NONPROJ_LABELS, system)
    with pytest.raises(NonProjectiveError, match="sentence 1 is not projective"):
        arc_standard_oracle_batch([[-1, 0], NONPROJ_HEADS], [[-1, 0], NONPROJ_LABELS], system)


def test_non_projective_policy_skip_and_projectivize():
    system = ArcStandard(2)
    heads = [np.array([-1, 2, 0]), NONPROJ_HEADS, np.array([-1, 0, 1])]
    labels = [np.array([-1, 1, 0]), NONPROJ_LABELS, np.array([-1, 0, 1])]
    skip = arc_standard_oracle_batch(heads, labels, system, non_projective="skip")
    assert skip.n_nonprojective == 1
    assert skip.kept.tolist() == [0, 2]
    assert sorted(set(skip.rows.tolist())) == [0, 2] and len(skip.rows) == 4 + 4
    lift = arc_standard_oracle_batch(heads, labels, system, non_projective="projectivize")
    assert lift.n_nonprojective == 1 and lift.kept.tolist() == [0, 1, 2]
    mine = lift.rows == 1
    parse = apply_transitions(4, lift.transitions[mine], system)
    assert parse.heads.tolist() == projectivize(NONPROJ_HEADS).tolist() == [-1, 3, 3, 0, 3]
    assert parse.labels.tolist() == NONPROJ_LABELS.tolist()
    for flat, one in ((skip, 0), (skip, 2)):
        ref = arc_standard_oracle(heads[one], labels[one], system)
        assert flat.transitions[flat.rows == one].tolist() == ref.transitions.tolist()
        assert flat.features[flat.rows == one].tolist() == ref.features.tolist()


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("heads, match", [
    ([-1, 2, 1], "cycle"),
    ([-1, 0, 0], "2 dependents of ROOT"),
    ([-1, 1], "not another position"),
    ([-1, 5], "not another position"),
    ([[-1, 0]], "1-d int array"),
    ([-1.0, 0.0], "1-d int array"),
])
def test_oracle_rejects_bad_trees(heads, match):
    with pytest.raises(ValueError, match=match):
        arc_standard_oracle(heads, [-1] + [0] * (len(heads) - 1), ArcStandard(1))


def test_bad_labels_transitions_and_scores():
    system = ArcStandard(2, root_label=0)
    with pytest.raises(ValueError, match=r"labels must be in \[0, 2\)"):
        arc_standard_oracle([-1, 0], [-1, 2], system)
    with pytest.raises(ValueError, match="root label"):
        arc_standard_oracle([-1, 0], [-1, 1], system)
    with pytest.raises(ValueError, match="another label"):
        ArcStandard(1, root_label=0)
    with pytest.raises(ValueError, match="RIGHT-ARC\\(0\\) is not legal"):
        apply_transitions(2, [0, system.right_arc(0)], system)  # ROOT would take word 1 too early
    with pytest.raises(ValueError, match="stops before"):
        apply_transitions(2, [0], system)
    with pytest.raises(ValueError, match="after the terminal"):
        apply_transitions(1, [0, system.right_arc(0), 0], system)
    with pytest.raises(ValueError, match="non_projective must be"):
        arc_standard_oracle_batch([], [], system, non_projective="lift")
    with pytest.raises(ValueError, match=r"returned shape \(1, 3\)"):
        arc_standard_greedy_batch([2], lambda rows, f: np.zeros((len(rows), 3)), system)
    with pytest.raises(ValueError, match="NaN or infinite"):
        arc_standard_greedy_batch([2], lambda rows, f: np.full((len(rows), 5), np.nan), system)
    with pytest.raises(TypeError, match="real floats"):
        arc_standard_greedy_batch([2], lambda rows, f: np.zeros((len(rows), 5), dtype=int), system)
    assert [system.name(t) for t in range(5)] == [
        "SHIFT", "LEFT-ARC(0)", "LEFT-ARC(1)", "RIGHT-ARC(0)", "RIGHT-ARC(1)"]
    assert arc_standard_greedy_batch([], lambda r, f: None, system) == []


# ----------------------------------------------------------------------------- EWT


def read_ewt_train() -> Tuple[List[np.ndarray], List[np.ndarray], ArcStandard]:
    from spacy_lal.corpora.conllu import read_ud_sentences

    sents = list(read_ud_sentences(ASSETS / "UD_English-EWT" / "en_ewt-ud-train.conllu"))
    names = sorted({dep for s in sents for dep in s.deps})
    index = {name: i for i, name in enumerate(names)}
    # The reader gives 0-based heads, the root pointing at itself; the decoders 0 = ROOT.
    heads = [np.array([-1] + [0 if h == i else h + 1 for i, h in enumerate(s.heads)]) for s in sents]
    labels = [np.array([-1] + [index[dep] for dep in s.deps]) for s in sents]
    return heads, labels, ArcStandard(len(names), root_label=index["root"])


@pytest.mark.slow  # the whole EWT train split
@pytest.mark.skipif(ASSETS is None, reason="needs the EWT treebank (../shared/assets or SPACY_LAL_ASSETS)")
def test_oracle_reproduces_every_projective_ewt_train_tree():
    heads, labels, system = read_ewt_train()
    flags = np.array([projective_by_definition(h) for h in heads])
    oracle = arc_standard_oracle_batch(heads, labels, system, non_projective="skip")
    assert oracle.n_nonprojective == int((~flags).sum())
    assert oracle.kept.tolist() == np.flatnonzero(flags).tolist()
    print(f"EWT train: {flags.sum()} projective, {(~flags).sum()} non-projective trees")
    # Replay all oracle sequences at once, in lock step, and compare with the gold trees.
    kept = oracle.kept
    lengths = np.array([len(heads[i]) - 1 for i in kept])
    seqs = np.split(oracle.transitions, np.cumsum(2 * lengths)[:-1])
    table = np.zeros((len(kept), 2 * lengths.max()), dtype=np.int64)
    for j, seq in enumerate(seqs):
        table[j, :len(seq)] = seq
    configs = ArcStandardConfigs(lengths, system)
    for step in range(table.shape[1]):
        rows = np.flatnonzero(2 * lengths > step)
        configs.apply(rows, table[rows, step])
    assert configs.done.all()
    parses = configs.parses()
    wrong = [int(i) for i, p in zip(kept, parses)
             if p.heads.tolist() != heads[i].tolist() or p.labels.tolist() != labels[i].tolist()]
    assert wrong == [], f"{len(wrong)} of {len(kept)} projective trees not reproduced, e.g. {wrong[:5]}"
    assert len(kept) > 0.95 * len(heads)
