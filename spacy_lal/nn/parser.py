"""The Label Attention parser model (Mrini et al. sec. 3): encoder, LAL, span and biaffine scorers.

Pipeline for a batch of ``B`` sentences padded to ``T`` words::

    token vectors (B, T, d_input) (tok2vec [; tag embeddings] [; CharLSTM], joined in spaCy)
      -> InputEmbedding: [content ; position] with start/stop sentinels   (B, T+2, d_model)
      -> FactoredEncoder: N factored self-attention layers (K&K sec. 3)     (B, T+2, d_model)
      -> LabelAttentionLayer (eq. 1-4) [+ position-wise FFN]                (B, T+2, d_lal)
      -> SpanScorer: eq. 5 per head + eq. 6                                 chart (B, T+1, T+1, L)
      -> BiaffineArcScorer: eq. 10 over positions 0..T (0 = root)           arcs (B, T+1, T+1)
         (reading the LAL output as in the paper, or with ``dep_input="encoder"`` the encoder output)

Decoding happens outside this module (``spacy_lal.decode``); the losses take the decoded structures
as index tensors: :meth:`LabelAttentionParserModel.loss` implements eq. 12,
``L = w_c L_c + w_d L_d`` with ``L_c`` the hinge loss (eq. 9) and ``L_d`` the cross-entropy (eq. 11).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Dict, List, Literal, Optional, Tuple

import torch
from torch import Tensor, nn

from .attention import FactoredEncoder
from .biaffine import BiaffineArcScorer, BiaffineLabelScorer, dependency_loss
from .embeddings import InputEmbedding, sentinel_mask
from .label_attention import CombineKind, LabelAttentionDetails, LabelAttentionLayer, QueryKind
from .span import SpanScorer, hinge_loss, span_features

__all__ = ["LabelAttentionParserModel", "ParserConfig", "ParserOutput"]


@dataclass
class ParserOutput:
    """Result of :meth:`LabelAttentionParserModel.forward`.

    Attributes:
        annotations: ``(B, T+2, d_lal)`` final token representations ``[start, w_1..w_n, stop, pad]``.
        chart: ``(B, T+1, T+1, n_span_labels)`` span label scores (label 0 = empty = 0; zero outside
            each sentence's spans). Slice ``chart[b, :n+1, :n+1]`` for ``spacy_lal.decode.cky``.
            None when the forward pass was asked for ``packed_spans``.
        packed_spans: with ``forward(..., packed_spans=True)``, the scores of the real spans only,
            ``(P, n_span_labels - 1)`` (see :meth:`SpanScorer.packed`), else None.
        arc_scores: ``(B, T+1, T+1)`` biaffine arc scores ``[b, d, h]`` (0 = root), or None when the
            model has no dependency part. Slice ``[b, :n+1, :n+1]`` for the dependency decoders.
        lengths: ``(B,)`` number of words.
        dep_features: ``(B, T+2, d)`` what the dependency scorers read: ``annotations`` (the
            paper), or the encoder output with ``dep_input="encoder"``.
        label_attention: the LAL's attention weights / per-head outputs when requested.
        encoder_attention: per-layer ``(B, H, T+2, T+2)`` self-attention probabilities when requested.
    """

    annotations: Tensor
    chart: Optional[Tensor]
    arc_scores: Optional[Tensor]
    lengths: Tensor
    packed_spans: Optional[Tensor] = None
    dep_features: Optional[Tensor] = None
    label_attention: Optional[LabelAttentionDetails] = None
    encoder_attention: List[Tensor] = field(default_factory=list)


@dataclass(frozen=True)
class ParserConfig:
    """Hyperparameters of :class:`LabelAttentionParserModel`, each default written here once.

    The defaults are sized for CPU training; the papers' values are given in brackets.
    """

    #: Longest sentence, in words, the learned position table covers [300 in benepar].
    max_length: int = 512
    #: Encoder width [1024]; ``d_positional`` of it is position [512], the rest content.
    d_model: int = 256
    #: Position part of ``d_model`` (None = ``d_model // 2``).
    d_positional: Optional[int] = None
    #: Factored self-attention layers [K&K 8; Mrini et al. 3].
    n_layers: int = 2
    #: Self-attention heads [8].
    n_heads: int = 8
    #: Self-attention query/key/value size per head [64].
    d_kv: int = 32
    #: Encoder feed-forward hidden size [2048].
    d_ff: int = 512
    #: Label attention heads [one per syntactic category: 112 on the PTB]; None = one per
    #: non-empty span label (per dependency label for a dependency-only model).
    n_lal_heads: Optional[int] = None
    #: LAL query/key/value size [128].
    lal_d_kv: int = 32
    #: LAL per-head output size [128]; even (eq. 5 splits it in half).
    lal_d_proj: int = 32
    #: ``"vector"`` [paper] or ``"matrix"`` (Table 2 ablation).
    lal_query: QueryKind = "vector"
    #: ``"concat"`` [paper] or ``"project"`` (Table 2 ablation).
    lal_combine: CombineKind = "concat"
    #: Position-wise feed-forward layer after the LAL [yes, Table 1].
    lal_ffn: bool = True
    #: Its hidden size.
    lal_d_ff: int = 256
    #: Residual dropout of each LAL head [0: the best model drops it].
    lal_residual_dropout: float = 0.0
    #: Hidden size of the span MLP, eq. 6 [250].
    d_span_hidden: int = 250
    #: What the dependency scorers read: ``"lal"`` [paper: the LAL output, shared with the spans]
    #: or ``"encoder"`` (the encoder output under the LAL: the arcs then need not pass through
    #: the per-label bottleneck; docs/ablations.md).
    dep_input: Literal["lal", "encoder"] = "lal"
    #: Biaffine arc MLP size [Dozat & Manning 500].
    d_arc: int = 256
    #: Biaffine label MLP size [Dozat & Manning 100].
    d_dep_label: int = 128
    #: Encoder dropouts [0.2, 0.1, 0.2].
    attention_dropout: float = 0.2
    relu_dropout: float = 0.1
    residual_dropout: float = 0.2
    #: Feature dropout on the projected token vectors [0.4 on words].
    input_dropout: float = 0.2
    #: Dropout on the biaffine MLP outputs [Dozat & Manning 0.33].
    dep_dropout: float = 0.2
    #: Weights of eq. 12 [1, 1].
    span_loss_weight: float = 1.0
    dep_loss_weight: float = 1.0
    #: ``"sum"`` over the batch's sentences or ``"mean"``. Sum, because spaCy's own components
    #: (tagger, morphologizer, parser) send unnormalised per-token gradients into a shared
    #: tok2vec: a mean over ~30 sentences made the parser's share of that gradient ~13x smaller in
    #: norm than the tagger's and morphologizer's, so the shared BiLSTM learned to tag, not to parse
    #: (docs/results.md, "What held the parser back"). Adam makes the torch layers' own steps independent
    #: of this scale.
    loss_reduction: Literal["mean", "sum"] = "sum"

    def __post_init__(self) -> None:
        if self.max_length < 1:
            raise ValueError(f"max_length must be >= 1, got {self.max_length}")
        if self.lal_d_proj % 2:
            raise ValueError(f"lal_d_proj must be even (eq. 5 splits each head in half), got {self.lal_d_proj}")
        d_positional = self.d_model // 2 if self.d_positional is None else self.d_positional
        if not 0 < d_positional < self.d_model:
            raise ValueError(f"need 0 < d_positional < d_model, got {d_positional} / {self.d_model}")
        if self.dep_input not in ("lal", "encoder"):
            raise ValueError(f"dep_input must be 'lal' or 'encoder', got {self.dep_input!r}")

    @classmethod
    def with_dropout(cls, dropout: float, **overrides: Any) -> "ParserConfig":
        """One dropout rate for the encoder's attention, residual, input and dependency MLP
        dropouts, halved for the ReLU dropout as in Kitaev & Klein."""
        rates = dict(attention_dropout=dropout, relu_dropout=dropout / 2, residual_dropout=dropout,
                     input_dropout=dropout, dep_dropout=dropout)
        return cls(**{**rates, **overrides})

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class LabelAttentionParserModel(nn.Module):
    """Joint constituency + dependency parser with a Label Attention Layer (Mrini et al. 2020).

    Args:
        d_input: size of the upstream token vectors (any spaCy tok2vec width, with tag and
            character features already concatenated by the spaCy architecture).
        n_span_labels: number of constituent labels *including* the empty label 0 (unary chains are
            collapsed labels, Kitaev & Klein sec. 2.1). 0 = no constituency part (dependencies
            only): ``chart`` is then an empty ``(B, T+1, T+1, 0)`` tensor and there is no span loss.
        n_dep_labels: dependency labels (0 = unlabelled arcs only).
        dependency: build the biaffine dependency part (eq. 10-11).
        config: the hyperparameters (:class:`ParserConfig`); ``overrides`` replace single fields.
    """

    def __init__(
        self,
        d_input: int,
        n_span_labels: int,
        *,
        n_dep_labels: int = 0,
        dependency: bool = True,
        config: Optional[ParserConfig] = None,
        **overrides: Any,
    ) -> None:
        super().__init__()
        if n_span_labels < 0 or (n_span_labels == 0 and not dependency):
            raise ValueError("the model needs span labels (n_span_labels >= 1) and/or dependency=True")
        config = replace(config or ParserConfig(), **overrides)
        self.config = config
        d_positional = config.d_model // 2 if config.d_positional is None else config.d_positional
        d_content = config.d_model - d_positional
        self.max_length = config.max_length
        self.n_span_labels = n_span_labels
        self.n_dep_labels = n_dep_labels
        n_lal_heads = config.n_lal_heads
        if n_lal_heads is None:  # one head per label (Mrini et al. sec. 4.1)
            n_lal_heads = max(1, n_span_labels - 1 if n_span_labels > 0 else n_dep_labels)

        self.embedding = InputEmbedding(
            d_input, d_content, d_positional, config.max_length, input_dropout=config.input_dropout
        )
        self.encoder = FactoredEncoder(
            d_content, d_positional, n_layers=config.n_layers, n_heads=config.n_heads, d_kv=config.d_kv,
            d_ff=config.d_ff, attention_dropout=config.attention_dropout, relu_dropout=config.relu_dropout,
            residual_dropout=config.residual_dropout,
        )
        self.label_attention = LabelAttentionLayer(
            config.d_model, n_lal_heads, d_kv=config.lal_d_kv, d_proj=config.lal_d_proj, query=config.lal_query,
            combine=config.lal_combine, attention_dropout=config.attention_dropout,
            residual_dropout=config.lal_residual_dropout, ffn=config.lal_ffn, d_ff=config.lal_d_ff,
            relu_dropout=config.relu_dropout, ffn_residual_dropout=config.lal_residual_dropout,
        )
        d_lal = self.label_attention.d_out
        # Eq. 5 splits each head-specific vector in half. With combine="project" there are no head
        # slices and the output keeps the [content ; position] layout, so we split the whole vector
        # into even/odd coordinates as Kitaev & Klein (footnote 2) do.
        if config.lal_combine == "concat":
            self.span_heads, span_split = n_lal_heads, "halves"
        else:
            self.span_heads, span_split = 1, "interleave"
        self.span_split = span_split
        self.span_scorer: Optional[SpanScorer] = None
        if n_span_labels > 0:
            self.span_scorer = SpanScorer(d_lal, n_span_labels, config.d_span_hidden, n_heads=self.span_heads,
                                          split=span_split)
        self.arc_scorer: Optional[BiaffineArcScorer] = None
        self.dep_label_scorer: Optional[BiaffineLabelScorer] = None
        if dependency:
            d_dep = config.d_model if config.dep_input == "encoder" else d_lal
            self.arc_scorer = BiaffineArcScorer(d_dep, config.d_arc, config.dep_dropout)
            if n_dep_labels > 0:
                self.dep_label_scorer = BiaffineLabelScorer(d_dep, n_dep_labels, config.d_dep_label,
                                                            config.dep_dropout)

    # ------------------------------------------------------------------------------------------
    def _lengths(self, token_vectors: Tensor, lengths: Optional[Tensor], mask: Optional[Tensor]) -> Tensor:
        if lengths is None:
            if mask is None:
                lengths = torch.full((token_vectors.shape[0],), token_vectors.shape[1], dtype=torch.long)
            else:
                # Masks are assumed left-aligned (padding at the end), as spaCy/Thinc pad.
                lengths = mask.long().sum(-1)
        lengths = lengths.to(device=token_vectors.device, dtype=torch.long)
        if lengths.numel():
            longest = int(lengths.max())
            if longest > self.max_length:
                raise ValueError(
                    f"sentence of {longest} tokens exceeds the model's max_length={self.max_length} "
                    "(size of the learned position embeddings); split or skip it"
                )
            if longest > token_vectors.shape[1] or int(lengths.min()) < 0:
                raise ValueError("lengths must lie in [0, T] for token_vectors of shape (B, T, d)")
        return lengths

    def forward(
        self,
        token_vectors: Tensor,
        lengths: Optional[Tensor] = None,
        *,
        mask: Optional[Tensor] = None,
        return_attention: bool = False,
        packed_spans: bool = False,
    ) -> ParserOutput:
        """Score spans and arcs.

        Args:
            token_vectors: ``(B, T, d_input)`` float, right-padded.
            lengths: ``(B,)`` words per sentence; or give ``mask`` ``(B, T)`` bool; neither = all T.
            return_attention: fill ``label_attention`` and ``encoder_attention`` of the output.
            packed_spans: score the real spans only (``packed_spans`` of the output, no
                ``chart``): what decoding needs, without the padded chart.

        Raises:
            ValueError: a sentence is longer than ``max_length``.
        """
        lengths = self._lengths(token_vectors, lengths, mask)
        T = token_vectors.shape[1]
        x = self.embedding(token_vectors, lengths)
        positions = sentinel_mask(lengths, T)
        encoder_attention: List[Tensor] = []
        if return_attention:
            x, encoder_attention = self.encoder(x, positions, return_attention=True)
            annotations, details = self.label_attention(x, positions, return_details=True)
        else:
            x = self.encoder(x, positions)
            annotations, details = self.label_attention(x, positions), None
        chart = packed = None
        if self.span_scorer is None:  # dependency-only model: an empty chart keeps the output type uniform
            chart = annotations.new_zeros((annotations.shape[0], T + 1, T + 1, 0))
        elif packed_spans:
            packed = self.span_scorer.packed(annotations, lengths)
        else:
            chart = self.span_scorer(annotations, lengths)
        dep_features = x if self.config.dep_input == "encoder" else annotations
        arc_scores = self.arc_scorer(dep_features[:, :-1]) if self.arc_scorer is not None else None
        return ParserOutput(annotations=annotations, chart=chart, arc_scores=arc_scores, lengths=lengths,
                            packed_spans=packed, dep_features=dep_features, label_attention=details,
                            encoder_attention=encoder_attention)

    def dep_label_scores(self, output: ParserOutput, heads: Tensor) -> Tensor:
        """Dependency label scores ``(B, T+1, n_dep_labels)`` for the given heads ``(B, T+1)``
        (gold heads for the loss, decoded heads for prediction)."""
        if self.dep_label_scorer is None:
            raise ValueError("this model has no dependency label classifier (n_dep_labels=0 or dependency=False)")
        features = output.annotations if output.dep_features is None else output.dep_features
        return self.dep_label_scorer(features[:, :-1], heads.to(features.device))

    def span_features(self, output: ParserOutput) -> Tensor:
        """Materialised span vectors of eq. 5, ``(B, T+1, T+1, d_lal)`` (for head contributions)."""
        return span_features(output.annotations, self.span_heads, self.span_split)  # type: ignore[arg-type]

    def loss(
        self,
        output: ParserOutput,
        gold_spans: Optional[Tensor],
        pred_spans: Optional[Tensor],
        pred_cost: Tensor | float = 0.0,
        gold_heads: Optional[Tensor] = None,
        gold_dep_labels: Optional[Tensor] = None,
        head_weights: Optional[Tensor] = None,
        label_weights: Optional[Tensor] = None,
    ) -> Tuple[Tensor, Dict[str, Tensor]]:
        """Joint loss, eq. 12: ``L = w_c L_c + w_d L_d``.

        Args:
            output: the forward output.
            gold_spans: ``(k, 4)`` rows ``(batch_idx, i, j, label)`` of the gold trees; None = no
                span loss (e.g. a dependency-only model).
            pred_spans: ``(m, 4)`` rows of the loss-augmented CKY predictions (``decode.cky(chart,
                gold)``), computed on ``output.chart`` detached.
            pred_cost: ``(B,)`` Hamming costs of the predictions (:func:`~spacy_lal.nn.span.hamming_cost`).
            gold_heads: ``(B, T+1)`` gold heads (index 0 / padding ignored); None = no dependency loss.
            gold_dep_labels: ``(B, T+1)`` gold dependency label ids (required with a label classifier).
            head_weights, label_weights: soft targets, distributions over heads ``(B, T+1, T+1)``
                and over the labels of the arcs to ``gold_heads`` ``(B, T+1, L)`` (see
                :func:`~spacy_lal.nn.biaffine.dependency_loss`); None = the gold ones alone.

        Returns:
            ``(total, {"span": L_c, "dep": L_d})`` (each only when computed).
        """
        parts: Dict[str, Tensor] = {}
        total = output.chart.new_zeros(())
        if gold_spans is not None:
            if self.span_scorer is None:
                raise ValueError("gold_spans given but the model has no constituency part (n_span_labels=0)")
            if pred_spans is None:
                raise ValueError("pred_spans (the loss-augmented prediction) is required with gold_spans")
            span_loss = hinge_loss(output.chart, gold_spans, pred_spans, pred_cost, reduction=self.config.loss_reduction)
            parts["span"] = span_loss
            total = total + self.config.span_loss_weight * span_loss
        if gold_heads is not None:
            if output.arc_scores is None:
                raise ValueError("gold_heads given but the model has no dependency part")
            label_scores = None
            if self.dep_label_scorer is not None:
                if gold_dep_labels is None:
                    raise ValueError("gold_dep_labels is required: the model has a dependency label classifier")
                # Unknown heads (-1) are skipped by the loss; any valid index stands in for them.
                label_scores = self.dep_label_scores(output, gold_heads.clamp(min=0))
            gold_heads = gold_heads.to(output.arc_scores.device)
            if gold_dep_labels is not None:
                gold_dep_labels = gold_dep_labels.to(output.arc_scores.device)
            dep_loss, _ = dependency_loss(output.arc_scores, output.lengths, gold_heads, label_scores,
                                          gold_dep_labels, reduction=self.config.loss_reduction,
                                          head_weights=head_weights, label_weights=label_weights)
            parts["dep"] = dep_loss
            total = total + self.config.dep_loss_weight * dep_loss
        return total, parts
