"""Gold targets for one unit (sentence) of a training Example, shared by the components: which
sentences to train on, and dependency targets (lal_parser, lal_spa_parser). The constituency
parser's gold charts are ``parser/charts.py``'s.

Dependencies go through spaCy's alignment, so they still train where the tokenizations differ.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import ORTH
from spacy.training import Example

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
