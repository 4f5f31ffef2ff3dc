"""The SPA parser's torch layer: runs ``SpaGraphParser`` or ``SpaTransitionParser`` (Zhou et al.
2018, ``spacy_lal.nn.spa_parsers``) for spaCy, and is where ``lal_spa_parser`` decodes.

Training: the graph-based parser's loss is head selection plus the label cross-entropy (eq. 10)
on the gold heads; the transition-based parser's is eq. 7 over the static oracle's
configurations, which the component computes (``SpaTargets.oracle``) so that its policy for
non-projective trees and its counts stay on the spaCy side.

Prediction (:meth:`SpaAdapter.decode`): graph-based, Chu-Liu-Edmonds ("mst") or Eisner over the
head scores, then the best label of each decoded arc (the root label on the root arc only);
transition-based, greedy labelled arc-standard parsing (``spacy_lal.decode.arc_standard``).
"""
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

import numpy
import torch

from ...decode import ArcStandard, arc_standard_greedy_batch
from ...nn.host import to_host
from ...nn.spa_parsers import SpaGraphParser, SpaTransitionParser
from ..arcs import decode_heads, label_arcs, unit_arcs
from ..torch_bridge import PerUnit

TRANSITION_DECODERS = ("greedy",)

# One unit's oracle run: its configurations' features (K, 4) and gold transitions (K,).
UnitOracle = Tuple[numpy.ndarray, numpy.ndarray]


@dataclass
class SpaTargets:
    """Gold structures for a batch of units.

    heads, labels: (B, T+1) int64 gold heads (0 = root) and label ids, -1 = unknown, column 0
        unused (graph-based training).
    oracle: per unit, the static oracle's configurations and transitions (transition-based
        training); units left out by the non-projective policy, or without a complete
        single-rooted gold tree, have none.
    """

    heads: numpy.ndarray
    labels: numpy.ndarray
    oracle: Optional[List[UnitOracle]] = None


@dataclass
class SpaBatch:
    """What the component passes along with the units: targets in training; otherwise how to
    decode. ``root_label``: the dependency label id reserved for root arcs (None: any)."""

    targets: Optional[SpaTargets] = None
    decoder: Optional[str] = None  # the component's setting, for prediction
    root_label: Optional[int] = None

    def select(self, rows: Sequence[int], width: int) -> "SpaBatch":
        """The batch of ``rows`` (a length-sorted chunk, ``torch_bridge.forward_units``), targets
        padded to ``width``."""
        if self.targets is None:
            return self
        t = self.targets
        oracle = None if t.oracle is None else [t.oracle[b] for b in rows]
        return SpaBatch(SpaTargets(t.heads[rows, :width], t.labels[rows, :width], oracle), self.decoder, self.root_label)


@dataclass
class DecodedDependencies(PerUnit):
    """Per unit of n words: heads (n+1,) int64 with heads[0] = -1 (0 = root) and label ids (n,)."""

    heads: List[numpy.ndarray]
    labels: List[numpy.ndarray]


class SpaAdapter(torch.nn.Module):
    """Runs a SPA parser for spaCy: the loss in training, decoding otherwise.

    ``parser`` (the saved weights' key) is a ``SpaGraphParser`` or a ``SpaTransitionParser``;
    ``n_labels``: the dependency labels (the transition system's labels).
    """

    #: Losses are sums over the units (per-token gradients of the same scale as spaCy's tagger
    #: sends a shared tok2vec, as ``ParserConfig.loss_reduction``); chunks are added up to match.
    loss_reduction = "sum"

    def __init__(self, parser: torch.nn.Module, n_labels: int) -> None:
        super().__init__()
        if not isinstance(parser, (SpaGraphParser, SpaTransitionParser)):
            raise TypeError(f"SpaAdapter: parser must be a SpaGraphParser or SpaTransitionParser, got {parser!r}")
        self.parser = parser
        self.n_labels = n_labels

    @property
    def transition_based(self) -> bool:
        return isinstance(self.parser, SpaTransitionParser)

    def forward(
        self, padded: torch.Tensor, lengths: torch.Tensor, batch: SpaBatch
    ) -> Union[torch.Tensor, DecodedDependencies]:
        """The batch's loss in training (``batch.targets`` set), its decoded heads otherwise."""
        if batch.targets is None:
            return self.decode(padded, lengths, batch)
        return self.loss(padded, lengths, batch.targets)

    def loss(self, padded: torch.Tensor, lengths: torch.Tensor, targets: SpaTargets) -> torch.Tensor:
        """Sum over the units of each one's summed loss (eq. 10 + labels, or eq. 7)."""
        device = padded.device
        if not self.transition_based:
            heads = torch.as_tensor(targets.heads, device=device)
            labels = torch.as_tensor(targets.labels, device=device)
            return self.parser.loss(padded, lengths, heads, labels, reduction=self.loss_reduction)
        if targets.oracle is None:
            raise ValueError("SpaAdapter: a transition-based parser trains on oracle targets")
        rows = numpy.concatenate([numpy.full(len(t), b) for b, (_, t) in enumerate(targets.oracle)])
        features = numpy.concatenate([f for f, _ in targets.oracle])
        transitions = numpy.concatenate([t for _, t in targets.oracle])
        as_long = lambda a: torch.as_tensor(a, dtype=torch.long, device=device)  # noqa: E731
        return self.parser.loss(padded, lengths, as_long(rows), as_long(features), as_long(transitions),
                                reduction=self.loss_reduction)

    def decode(self, padded: torch.Tensor, lengths: torch.Tensor, batch: SpaBatch) -> DecodedDependencies:
        """The dependency trees of the batch: greedy arc-standard parsing for a transition-based
        parser; for a graph-based one CLE ("mst") or Eisner, then each arc's best label (the
        component validated ``batch.decoder``)."""
        n_words = lengths.tolist()
        if self.transition_based:
            system = ArcStandard(self.n_labels, batch.root_label)
            parses = arc_standard_greedy_batch(n_words, self.parser.scorer(self.parser(padded, lengths)), system)
            return DecodedDependencies([p.heads for p in parses], [p.labels[1:] for p in parses])
        output = self.parser(padded, lengths)
        heads = decode_heads(unit_arcs(to_host(output.arc_scores), n_words), batch.decoder)
        score = lambda padded_heads: self.parser.label_scores(output.reprs, padded_heads)  # noqa: E731
        labels = label_arcs(heads, n_words, output.arc_scores.shape[1], score, batch.root_label, padded.device)
        return DecodedDependencies(list(heads), labels)
