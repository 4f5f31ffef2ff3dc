"""`spacy_lal.decode` re-exports the decoders of its modules, and the result types it names are the
ones the decoders return (the other tests check what the results hold)."""
from __future__ import annotations

import importlib
from typing import Tuple

import numpy as np

import spacy_lal.decode as decode
from spacy_lal.decode import (
    ArcStandard,
    CKYResult,
    DependencyParse,
    JointResult,
    OracleBatch,
    OracleSequence,
    apply_transitions,
    arc_standard_greedy_batch,
    arc_standard_oracle,
    arc_standard_oracle_batch,
    cky,
    joint,
)


def test_every_exported_name_comes_from_a_decode_module():
    assert len(set(decode.__all__)) == len(decode.__all__)
    for name in decode.__all__:
        value = getattr(decode, name)
        if name == "CORE_ROLES":
            assert value is importlib.import_module("spacy_lal.decode.bio").CORE_ROLES
            continue
        module = importlib.import_module(value.__module__)
        assert value.__module__.startswith("spacy_lal.decode."), name
        assert getattr(module, name) is value
        assert name in module.__all__, f"{name} is not in {value.__module__}.__all__"
    assert decode.Span == Tuple[int, int]


def test_the_cython_cores_are_reachable_as_attributes():
    """benchmarks/decoders.py times the cores directly (`decode._cky.cky_batch`, ...)."""
    entries = {"_cky": "cky_batch", "_joint": "joint_batch", "_eisner": "eisner_batch",
               "_mst": "chu_liu_edmonds_batch", "_viterbi": "bio_batch",
               "_span_viterbi": "span_viterbi_batch"}
    for core, entry in entries.items():
        assert callable(getattr(getattr(decode, core), entry))


def test_result_types():
    rng = np.random.default_rng(0)
    n, L = 4, 3
    chart = rng.normal(size=(n + 1, n + 1, L)).astype(np.float32)
    arcs = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
    tree = cky(chart)
    assert isinstance(tree, CKYResult) and tree._fields == ("spans", "score", "cost")
    both = joint(chart, arcs)
    assert isinstance(both, JointResult) and both._fields == ("spans", "heads", "score")

    system = ArcStandard(2, root_label=0)
    heads, labels = [-1, 2, 0, 2], [-1, 1, 0, 1]
    sequence = arc_standard_oracle(heads, labels, system)
    assert isinstance(sequence, OracleSequence) and sequence.features.shape == (6, 4)
    batch = arc_standard_oracle_batch([heads, heads], [labels, labels], system)
    assert isinstance(batch, OracleBatch) and batch.kept.tolist() == [0, 1]
    parse = apply_transitions(3, sequence.transitions, system)
    assert isinstance(parse, DependencyParse)
    assert parse.heads.tolist() == heads and parse.labels.tolist() == labels
    greedy = arc_standard_greedy_batch([3, 0], lambda rows, feats: np.zeros((len(rows), 5)), system)
    assert all(isinstance(p, DependencyParse) for p in greedy)
    assert greedy[1].heads.tolist() == [-1]
