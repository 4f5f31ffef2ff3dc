"""The parser's torch layer: runs ``LabelAttentionParserModel`` for spaCy, and is where the
parser decodes.

Training: the forward pass scores the batch, runs the loss-augmented CKY that the hinge loss
needs (eq. 9, on the detached chart) and returns the joint loss of eq. 12 computed by
``LabelAttentionParserModel.loss``. Keeping the losses in torch avoids copying charts of
``(sentences, n+1, n+1, labels)`` gradients between frameworks.

Prediction (:meth:`ParserAdapter.decode`): CKY for the tree and Eisner / Chu-Liu-Edmonds for the
dependencies, or both at once with the joint decoder (``spacy_lal.decode``), then the
dependency labels on the decoded arcs (the root label on the root arc only).
"""
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import torch

from ...decode import cky_batch, joint_batch
from ...logs import log_once
from ...nn.host import to_host
from ...nn.int8 import int8_copy
from ...nn.parser import LabelAttentionParserModel, ParserOutput
from ...nn.span import fencepost_vectors
from ..arcs import GRAPH_DECODERS, decode_heads, label_arcs, unit_arcs
from ..torch_bridge import PerUnit, eval_mode

DEPENDENCY_DECODERS = GRAPH_DECODERS + ("joint",)

# Taken only to make an int8 copy (once per parser): threads that decode at once wait for the one
# making it instead of each copying and quantizing the parser. Module-level: a lock on the adapter
# would stop it from being deep-copied and pickled (spaCy does both).
_COPY_LOCK = threading.Lock()


@dataclass
class ParserTargets:
    """Gold structures for a batch of units (see ``gold.py``)."""

    charts: List[Optional[numpy.ndarray]]  # (n+1, n+1) int32 label charts; None = no tree loss
    heads: numpy.ndarray  # (B, T+1) int64; 0 = root, -1 = unknown, [:, 0] unused
    labels: numpy.ndarray  # (B, T+1) int64; -1 = unknown
    # Soft targets (a teacher's distributions mixed in, ``soft_targets.py``): per dependent, a
    # distribution over heads (B, T+1, T+1) and over the labels of its arc to ``heads`` (B, T+1,
    # L), float32, one-hot on the hard targets where there is nothing to mix; None = hard only.
    head_weights: Optional[numpy.ndarray] = None
    label_weights: Optional[numpy.ndarray] = None


# The parser's cfg key of its Linear layers' measured input peaks (``measure_int8_peaks``).
INT8_PEAKS = "int8_peaks"


@dataclass
class ParserBatch:
    """What the component passes along with the units: targets in training; otherwise how to
    decode (the component's settings) and whether to keep what ``spacy_lal.interpret`` reads."""

    targets: Optional[ParserTargets] = None
    # The component's settings, for prediction.
    dependency_decoder: Optional[str] = None
    joint_weight: Optional[float] = None
    root_label: Optional[int] = None  # dependency label id reserved for root arcs
    details: bool = False
    quantized: bool = False  # decode with int8 weights in the wider Linear layers (``quantized_copy``)
    # The Linear layers' measured input peaks (``nn.int8.input_peaks``), which the int8 copy is
    # smoothed with; None: measured never, the wider layers alone int8 and unsmoothed.
    int8_peaks: Optional[Dict[str, List[float]]] = None
    # Per unit, (start, end) word spans the tree must have as constituents / must not cross
    # (``constraints.py``: already consistent); None = no constraints.
    require: Optional[List[List[Tuple[int, int]]]] = None
    no_cross: Optional[List[List[Tuple[int, int]]]] = None
    # Return the scores that decoding reads (``ParserScores``) instead of decoding them: for an
    # ensemble (``ensemble.py``), which decodes its members' averaged scores.
    scores_only: bool = False

    def select(self, rows: Sequence[int], width: int) -> "ParserBatch":
        """The batch of ``rows`` (a length-sorted chunk), targets padded to ``width``."""
        pick = lambda per_unit: None if per_unit is None else [per_unit[b] for b in rows]  # noqa: E731
        targets = self.targets
        if targets is not None:
            targets = ParserTargets(
                [targets.charts[b] for b in rows], targets.heads[rows, :width], targets.labels[rows, :width],
                None if targets.head_weights is None else targets.head_weights[rows, :width, :width],
                None if targets.label_weights is None else targets.label_weights[rows, :width],
            )
        return replace(self, targets=targets, require=pick(self.require), no_cross=pick(self.no_cross))


@dataclass
class UnitDetails:
    """What the label attention computed for one unit of n words (``spacy_lal.interpret``)."""

    attention: numpy.ndarray  # (H, n+2) head-to-word attention over [start, words, stop]
    fences: numpy.ndarray  # (n+1, d) fencepost vectors of the heads' outputs (eq. 5)
    chart: Optional[numpy.ndarray]  # (n+1, n+1, L) span label scores; None without a tree head


@dataclass
class DecodedParses(PerUnit):
    """Per unit: spans (2n-1, 3) pre-order (start, end, label), heads (n+1,) with heads[0] = -1,
    dependency label ids (n,), and the details when asked for."""

    spans: List[Optional[numpy.ndarray]]
    heads: List[Optional[numpy.ndarray]]
    dep_labels: List[Optional[numpy.ndarray]]
    details: List[Optional[UnitDetails]]


@dataclass(eq=False)
class ArcLabeller:
    """One chunk's dependency label scores for heads chosen later (``ParserScores``): its output
    is kept until then. ``rows`` units, padded to ``width`` (T+1)."""

    score: Callable[[torch.Tensor], torch.Tensor]  # (rows, width) padded heads -> (rows, width, labels)
    module: torch.nn.Module  # the adapter: scored in eval mode, as in ``decode``
    rows: int
    width: int

    def __call__(self, padded_heads: numpy.ndarray) -> numpy.ndarray:
        """Label scores ``(rows, width, labels)`` of the arcs of ``padded_heads`` (column 0 unused)."""
        with eval_mode(self.module), torch.inference_mode():
            return to_host(self.score(torch.as_tensor(padded_heads)))


@dataclass
class ParserScores(PerUnit):
    """Per unit of n words, what ``ParserAdapter.decode`` decodes (``ParserBatch.scores_only``):
    the span chart (n+1, n+1, L) and arc scores (n+1, n+1) (None without that head), and its
    chunk's ``ArcLabeller`` with the unit's row in it (None without dependency labels)."""

    charts: List[Optional[numpy.ndarray]]
    arcs: List[Optional[numpy.ndarray]]
    labellers: List[Optional[Tuple[ArcLabeller, int]]]


class ParserAdapter(torch.nn.Module):
    """Runs ``LabelAttentionParserModel`` for spaCy: the loss in training, decoding otherwise."""

    def __init__(self, parser: LabelAttentionParserModel) -> None:
        super().__init__()
        self.parser = parser
        # The int8 copy for quantized decoding, made on first use with the peaks it was made with;
        # a plain dict, so that it is no submodule (not saved, not trained) and training can drop it.
        self._copies: Dict[str, Tuple[Optional[Dict[str, List[float]]], LabelAttentionParserModel]] = {}

    def forward(
        self, padded: torch.Tensor, lengths: torch.Tensor, batch: ParserBatch
    ) -> Union[torch.Tensor, DecodedParses]:
        """The batch's loss in training (``batch.targets`` set), its decoded parses otherwise."""
        if batch.targets is None:
            quantized = batch.quantized and self._can_quantize(padded.device)
            model = self._quantized(batch.int8_peaks) if quantized else self.parser
            with torch.inference_mode():
                output = model(padded, lengths, return_attention=batch.details, packed_spans=True)
                return self.decode(output, batch)
        self._copies.clear()  # the weights change
        return self.loss(self.parser(padded, lengths), batch.targets)

    @property
    def loss_reduction(self) -> str:
        """How the loss combines the batch's units ("sum" or "mean"): chunks are joined to match."""
        return self.parser.config.loss_reduction

    def _can_quantize(self, device: torch.device) -> bool:
        """int8 decoding is CPU only (``nn/int8.py``): elsewhere the parser decodes
        in floating point, saying so once (at INFO: the shipped pipelines are saved with
        ``quantize`` on, and float on a GPU is their documented behaviour)."""
        if device.type == "cpu":
            return True
        log_once(f"lal_parser: quantize is set, but int8 decoding runs on CPUs only; on {device} the parser "
                 "decodes in floating point")
        return False

    def _quantized(self, peaks: Optional[Dict[str, List[float]]]) -> LabelAttentionParserModel:
        made = self._copies.get("int8")
        if made is None or made[0] is not peaks:
            with _COPY_LOCK:
                made = self._copies.get("int8")  # made by another thread while this one waited
                if made is None or made[0] is not peaks:
                    made = self._copies["int8"] = (peaks, quantized_copy(self.parser, peaks))
        return made[1]

    def loss(self, output: ParserOutput, targets: ParserTargets) -> torch.Tensor:
        """Eq. 12 for the batch; the hinge loss's loss-augmented trees come from CKY."""
        device = output.chart.device
        gold_spans = pred_spans = None
        costs = torch.zeros(len(targets.charts), device=device)
        rows = [b for b, gold in enumerate(targets.charts) if gold is not None]
        if self.parser.span_scorer is not None and rows:
            lengths = output.lengths.tolist()
            chart = to_host(output.chart)
            subcharts = [numpy.ascontiguousarray(chart[b, : lengths[b] + 1, : lengths[b] + 1]) for b in rows]
            golds = [targets.charts[b] for b in rows]
            gold_rows, pred_rows = [], []
            cost_values = numpy.zeros(len(lengths), dtype="float32")
            for b, gold, result in zip(rows, golds, cky_batch(subcharts, golds)):
                cost_values[b] = result.cost
                keep = result.spans[result.spans[:, 2] != 0]
                pred_rows.append(numpy.column_stack([numpy.full(len(keep), b), keep]))
                i, j = numpy.nonzero(gold)
                gold_rows.append(numpy.column_stack([numpy.full(len(i), b), i, j, gold[i, j]]))
            gold_spans = torch.as_tensor(numpy.concatenate(gold_rows), dtype=torch.long, device=device)
            pred_spans = torch.as_tensor(numpy.concatenate(pred_rows), dtype=torch.long, device=device)
            costs = torch.as_tensor(cost_values, device=device)
        has_arcs = self.parser.arc_scorer is not None
        total, _ = self.parser.loss(
            output,
            gold_spans,
            pred_spans,
            costs,
            gold_heads=torch.as_tensor(targets.heads, device=device) if has_arcs else None,
            gold_dep_labels=torch.as_tensor(targets.labels, device=device) if has_arcs else None,
            head_weights=_tensor(targets.head_weights, device) if has_arcs else None,
            label_weights=_tensor(targets.label_weights, device) if has_arcs else None,
        )
        return total

    def decode(self, output: ParserOutput, batch: ParserBatch) -> Union[DecodedParses, ParserScores]:
        """Trees and dependencies of the batch, as ``batch`` says to decode them (the component
        validated its settings); with ``batch.scores_only``, the scores instead (``ParserScores``)."""
        lengths = output.lengths.tolist()
        n_units = len(lengths)
        charts = arcs = None
        if self.parser.span_scorer is not None:
            charts = _charts(to_host(output.packed_spans), lengths, self.parser.n_span_labels)
        if self.parser.arc_scorer is not None:
            arcs = unit_arcs(to_host(output.arc_scores), lengths)
        score = label_heads = None
        if self.parser.dep_label_scorer is not None:
            score = lambda padded_heads: self.parser.dep_label_scores(output, padded_heads)  # noqa: E731
            width = output.arc_scores.shape[1]
            label_heads = lambda heads: label_arcs(heads, lengths, width, score, batch.root_label)  # noqa: E731
        if batch.scores_only:
            labeller = None if score is None else ArcLabeller(score, self, n_units, output.arc_scores.shape[1])
            return ParserScores(
                [None] * n_units if charts is None else charts,
                [None] * n_units if arcs is None else arcs,
                [None if labeller is None else (labeller, b) for b in range(n_units)],
            )
        spans, heads, labels = decode_scores(n_units, charts, arcs, batch, label_heads)
        details: List[Optional[UnitDetails]] = [None] * n_units
        if batch.details:
            details = self._details(output, charts)
        return DecodedParses(spans, heads, labels, details)

    def _details(self, output: ParserOutput, charts: Optional[List[numpy.ndarray]]) -> List[Optional[UnitDetails]]:
        found = output.label_attention
        attention = to_host(found.attention)  # (B, H, T+2)
        head_outputs = found.head_outputs  # (B, T+2, H, d_proj), before any feed-forward layer
        B, T2 = head_outputs.shape[:2]
        fences = to_host(fencepost_vectors(head_outputs.reshape(B, T2, -1), head_outputs.shape[2]))
        return [
            UnitDetails(attention[b, :, : n + 2], fences[b, : n + 1], None if charts is None else charts[b])
            for b, n in enumerate(output.lengths.tolist())
        ]


def decode_scores(
    n_units: int,
    charts: Optional[List[numpy.ndarray]],
    arcs: Optional[List[numpy.ndarray]],
    batch: ParserBatch,
    label_heads: Optional[Callable[[List[numpy.ndarray]], List[numpy.ndarray]]],
) -> Tuple[List[Optional[numpy.ndarray]], List[Optional[numpy.ndarray]], List[Optional[numpy.ndarray]]]:
    """Spans, heads and dependency label ids of ``n_units`` units from their charts and arc
    scores (either may be None: no such head), as ``batch`` says to decode them: the joint
    decoder, or CKY and Eisner / Chu-Liu-Edmonds, with the batch's constraints;
    ``label_heads`` gives the label ids of the decoded heads. ``ParserAdapter.decode``'s step,
    and the ensemble's on averaged scores (``ensemble.py``)."""
    spans: List[Optional[numpy.ndarray]] = [None] * n_units
    heads: List[Optional[numpy.ndarray]] = [None] * n_units
    labels: List[Optional[numpy.ndarray]] = [None] * n_units
    if batch.dependency_decoder == "joint" and charts is not None and arcs is not None:
        results = joint_batch(charts, arcs, batch.joint_weight, require=batch.require, no_cross=batch.no_cross)
        spans = [result.spans for result in results]
        heads = [result.heads for result in results]
    else:
        if charts is not None:
            spans = [result.spans for result in cky_batch(charts, require=batch.require, no_cross=batch.no_cross)]
        if arcs is not None:
            heads = decode_heads(arcs, batch.dependency_decoder)
    if label_heads is not None:
        labels = label_heads(heads)
    return spans, heads, labels


def quantized_copy(parser: LabelAttentionParserModel,
                    peaks: Optional[Dict[str, List[float]]] = None) -> LabelAttentionParserModel:
    """A copy of ``parser`` for CPU inference with int8 Linear layers (``nn/int8.py``: weights
    int8, each input row quantized on its own, so a sentence's scores do not depend on its
    batch): with measured input ``peaks``, every layer 64 wide or more, smoothed; without, those
    256 wide or more. The span MLP's first layer stays float: its weight is applied to fencepost
    vectors directly (``SpanScorer._project_fenceposts``). What it costs and buys: docs/speed.md,
    "int8 prediction" and "Smoothed int8"."""
    return int8_copy(parser, keep_float={"span_scorer.w1"}, peaks=peaks)  # type: ignore[return-value]


@lru_cache(maxsize=512)
def _spans_of(n_fenceposts: int) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The (i, j) of the spans i < j over ``n_fenceposts``, in ``SpanScorer.packed``'s order."""
    return numpy.triu_indices(n_fenceposts, k=1)


def _charts(packed: numpy.ndarray, lengths: List[int], n_labels: int) -> List[numpy.ndarray]:
    """Per sentence, the ``(n+1, n+1, n_labels)`` chart the decoders take, from the packed scores
    of its real spans (label 0 and the cells outside the spans stay 0)."""
    charts = []
    offset = 0
    for n in lengths:
        i, j = _spans_of(n + 1)
        chart = numpy.zeros((n + 1, n + 1, n_labels), dtype="float32")
        chart[i, j, 1:] = packed[offset : offset + len(i)]
        offset += len(i)
        charts.append(chart)
    return charts


def _tensor(array: Optional[numpy.ndarray], device: torch.device) -> Optional[torch.Tensor]:
    return None if array is None else torch.as_tensor(array, device=device)
