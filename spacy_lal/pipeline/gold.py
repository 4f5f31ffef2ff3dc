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


def soft_target_weights(
    units: Sequence[Unit],
    soft: Sequence[Dict[int, Tuple[List[Tuple[int, float]], List[Tuple[str, float]]]]],
    heads: numpy.ndarray,
    labels: numpy.ndarray,
    label_ids: Dict[str, int],
    weight: float,
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Head and label target distributions ``(B, T+1, T+1)``, ``(B, T+1, L)`` of the units: on
    each known target (``heads``, ``labels`` as :func:`dependency_target` gives them, padded like
    the batch; ``label_ids``: the parser's label ids by name) ``1 - weight`` of the mass, and ``weight`` spread as the teacher's distribution
    (``soft[doc_index]``: dependent -> head and label probabilities, as
    ``doc.extensions.soft_arc_targets`` reads them, Doc token indices; only for Examples whose
    predicted words are the reference's) where the word has one. The teacher's heads outside the
    unit and labels the parser lacks drop out and the rest is renormalised; where nothing is
    left, or the word has no distribution, its target stays one-hot."""
    rows, width = heads.shape
    head_weights = numpy.zeros((rows, width, width), dtype="float32")
    label_weights = numpy.zeros((rows, width, len(label_ids)), dtype="float32")
    known = heads >= 0
    b_idx, d_idx = numpy.nonzero(known)
    head_weights[b_idx, d_idx, heads[known]] = 1.0
    has_label = labels >= 0
    b_lab, d_lab = numpy.nonzero(has_label)
    label_weights[b_lab, d_lab, labels[has_label]] = 1.0
    for b, unit in enumerate(units):
        targets = soft[unit.doc_index]
        if not targets:
            continue
        position = {token: k + 1 for k, token in enumerate(unit.words)}
        for k, token in enumerate(unit.words):
            d = k + 1
            if token not in targets or heads[b, d] < 0:
                continue
            head_pairs, label_pairs = targets[token]
            head_dist = {}
            for head, p in head_pairs:
                h = 0 if head == token else position.get(head)
                if h is not None and h != d:
                    head_dist[h] = head_dist.get(h, 0.0) + p
            mass = sum(head_dist.values())
            if mass > 0:
                head_weights[b, d] *= 1.0 - weight
                for h, p in head_dist.items():
                    head_weights[b, d, h] += weight * p / mass
            if labels[b, d] < 0:
                continue
            label_dist = {label_ids[name]: p for name, p in label_pairs if name in label_ids}
            mass = sum(label_dist.values())
            if mass > 0:
                label_weights[b, d] *= 1.0 - weight
                for label, p in label_dist.items():
                    label_weights[b, d, label] += weight * p / mass
    return head_weights, label_weights
