"""Constituent labels as chart ids, and the gold label charts lal_parser trains on.

A collapsed unary chain is one label, its labels joined outermost first ("S::VP"); label id 0
is "no constituent" in every chart; a tree that is a single preterminal gets the root label
``ROOT_ONLY``, since CKY wants a labelled root. Prediction reads labels back with
:func:`label_to_chain`, so this codec is shared by training (:func:`tree_target`), decoding
(``component.py``) and ``spacy_lal.interpret``.

Trees are used only where the predicted tokens are the gold tokens (the case for corpora made
by ``python -m spacy_lal convert`` read with ``gold_preproc`` or with words from the treebank):
a span of gold tokens has no exact counterpart in other tokens.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.training import Example

from ...doc.extensions import stored_trees
from ..gold import same_tokens
from ..units import Unit

EMPTY = 0  # label id of "no constituent" in every chart
ROOT_ONLY = "TOP"  # root label of trees that are a single preterminal (CKY wants a labelled root)
CHAIN_SEP = "::"  # joins a collapsed unary chain, outermost first: "S::VP"


def chain_to_label(labels: Sequence[str]) -> str:
    """One label for a unary chain (outermost first)."""
    return CHAIN_SEP.join(labels)


def label_to_chain(label: str) -> Tuple[str, ...]:
    """The chain a label stands for, without ``ROOT_ONLY``."""
    return tuple(part for part in label.split(CHAIN_SEP) if part != ROOT_ONLY)


def chain_of_id(label_id: int, labels: Sequence[str]) -> Tuple[str, ...]:
    """The chain of a model label id (``labels[label_id - 1]``; ``()`` for ``EMPTY``)."""
    return label_to_chain(labels[label_id - 1]) if label_id != EMPTY else ()


def label_chains(labels: Sequence[str]) -> List[Tuple[str, ...]]:
    """The chain of every model label id, indexed by the id: read once for a batch of spans."""
    return [chain_of_id(label_id, labels) for label_id in range(len(labels) + 1)]


def gold_trees_by_start(example: Example) -> Dict[int, Tuple[int, list]]:
    """Gold trees keyed by their first token in the *predicted* Doc (empty if tokens differ)."""
    if not same_tokens(example):
        return {}
    return {start: (n, spans) for start, n, spans in stored_trees(example.y)}


def tree_target(
    unit: Unit, trees: Dict[int, Tuple[int, list]], label_ids: Dict[str, int]
) -> Tuple[Optional[numpy.ndarray], int]:
    """The gold label chart of ``unit`` ((n+1, n+1) int32, 0 = no constituent) and the number of
    gold spans whose label is unknown (scored as empty). None if the unit has no usable tree."""
    gold = trees.get(unit.start)
    n = len(unit)
    if gold is None or gold[0] != n or unit.end - unit.start != n:
        return None, 0
    chart = numpy.zeros((n + 1, n + 1), dtype="int32")
    unknown = 0
    for start, end, labels in gold[1]:
        label = label_ids.get(chain_to_label(labels))
        if label is None:
            unknown += 1
        else:
            chart[start, end] = label
    if chart[0, n] == EMPTY:
        chart[0, n] = label_ids.get(ROOT_ONLY, EMPTY)
    return chart, unknown
