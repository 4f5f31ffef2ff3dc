"""Gold targets for one unit (sentence) of a training Example.

Trees are used only where the predicted tokens are the gold tokens (the case for corpora made
by ``python -m spacy_lal convert`` read with ``gold_preproc`` or with words from the treebank):
a span of gold tokens has no exact counterpart in other tokens. Dependencies go through spaCy's
alignment, so they still train where the tokenizations differ.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import ORTH
from spacy.training import Example

from ..doc.extensions import stored_trees
from .labels import EMPTY, ROOT_ONLY, chain_to_label
from .units import Unit, sentence_ranges

def same_tokens(example: Example) -> bool:
    x, y = example.x, example.y
    # The ORTH hashes, compared in numpy: a Python loop over the tokens made a Token object per
    # word, 7% of a training step of the labeller.
    return len(x) == len(y) and bool(numpy.array_equal(x.to_array(ORTH), y.to_array(ORTH)))


def training_sentences(example: Example) -> List[range]:
    """The sentences to train on: the gold sentences where the predicted tokens are the gold
    tokens (and gold boundaries are set), otherwise the sentences of the predicted Doc."""
    if same_tokens(example) and example.reference.has_annotation("SENT_START"):
        return sentence_ranges(example.reference)
    return sentence_ranges(example.predicted)


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


def dependency_target(
    unit: Unit,
    aligned_heads: Sequence[Optional[int]],
    aligned_deps: Sequence[Optional[str]],
    label_ids: Dict[str, int],
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Gold heads (0 = root, words numbered from 1; -1 = unknown) and label ids (-1 = unknown)
    for the words of ``unit``. Heads outside the unit (pieces of long sentences, alignment
    gaps) are unknown: the loss skips them."""
    position = {token: k + 1 for k, token in enumerate(unit.words)}
    heads = numpy.full(len(unit), -1, dtype="int64")
    labels = numpy.full(len(unit), -1, dtype="int64")
    for k, token in enumerate(unit.words):
        head = aligned_heads[token]
        if head is None:
            continue
        heads[k] = 0 if head == token else position.get(head, -1)
        if heads[k] >= 0 and aligned_deps[token] is not None:
            labels[k] = label_ids.get(aligned_deps[token], -1)
    return heads, labels
