"""The dependency step the graph-based parsers share after scoring (``parser/adapter.py``,
``spa/adapter.py``): each unit's arc scores cut from the padded batch, its heads by Eisner
(projective) or Chu-Liu-Edmonds (Mrini et al. eq. 10-11; Zhou et al. 2018, sec. 3.3), then the
best label of each decoded arc, the root label on root arcs only.
"""
from typing import Callable, List, Optional, Sequence

import numpy
import torch

from ..decode import chu_liu_edmonds_batch, eisner_batch
from ..nn.host import to_host

GRAPH_DECODERS = ("eisner", "mst")


def unit_arcs(arc_scores: numpy.ndarray, lengths: Sequence[int]) -> List[numpy.ndarray]:
    """Per unit of n words, its contiguous (n+1, n+1) arc scores (row 0: the root)."""
    return [numpy.ascontiguousarray(arc_scores[b, : n + 1, : n + 1]) for b, n in enumerate(lengths)]


def decode_heads(arcs: List[numpy.ndarray], decoder: str) -> List[numpy.ndarray]:
    """Heads (n+1,) of each unit, heads[0] = -1: "mst" (Chu-Liu-Edmonds) or "eisner"."""
    return list((chu_liu_edmonds_batch if decoder == "mst" else eisner_batch)(arcs))


def label_arcs(
    heads: Sequence[numpy.ndarray],
    lengths: Sequence[int],
    width: int,
    label_scores: Callable[[torch.Tensor], torch.Tensor],
    root_label: Optional[int],
    device: Optional[torch.device] = None,
) -> List[numpy.ndarray]:
    """The label id of each decoded arc: ``label_scores`` maps the (B, width) padded heads
    (column 0 unused) to (B, width, labels) scores of the arcs they choose."""
    padded = numpy.zeros((len(heads), width), dtype="int64")
    for b, h in enumerate(heads):
        padded[b, 1 : len(h)] = h[1:]
    scores = to_host(label_scores(torch.as_tensor(padded, device=device)))
    return [pick_labels(heads[b], scores[b, 1 : n + 1], root_label) for b, n in enumerate(lengths)]


def pick_labels(heads: numpy.ndarray, scores: numpy.ndarray, root_label: Optional[int]) -> numpy.ndarray:
    """The best label of each word's arc; the root label goes on root arcs, and only there."""
    if root_label is not None:
        scores = scores.copy()
        is_root = heads[1:] == 0
        scores[is_root] = -numpy.inf
        scores[is_root, root_label] = 0.0
        scores[~is_root, root_label] = -numpy.inf
    return scores.argmax(axis=1)
