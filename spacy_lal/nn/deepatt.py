"""DeepAtt semantic role labeller (Tan et al., 2018, "Deep Semantic Role Labeling with Self-Attention").

Plain torch modules; the spaCy component wraps them. References to "the paper" are to Tan et al.;
sections are named as in the paper (it has no section numbers), equations are numbered as there.
SRL runs once per (sentence, predicate) pair ("row"); the row layout, the predicate and sense heads
and the label-smoothed loss are in :mod:`spacy_lal.nn.predicates`. Outputs are logits;
softmax/argmax/Viterbi decoding is done by ``spacy_lal.decode``.

Model (section "Deep Attentional Neural Network for SRL", "Pipeline")
---------------------------------------------------------------------
``x_t = [e(x_t); e(m_t)]`` (the token vector and a 2-entry predicate-mask embedding) is projected to
``d``; the timing signal (eq. 11-12) is added; then N identical layers, each a nonlinear sub-layer
(FFN eq. 9, BiLSTM eq. 5-7 or GLU convolution eq. 8) followed by multi-head self-attention
(eq. 1-4), each sub-layer as ``LayerNorm(X + Dropout(SubLayer(X)))`` (eq. 10, "Deep Topology"; the
dropout placement is from "Settings and Regularization"; the layers are in
:mod:`spacy_lal.nn.deepatt_layers`); a softmax layer over BIO labels (eq. 15) trained with label
smoothing. Optionally a Label Attention Layer (Mrini et al., 2020, eq. 1-4;
``spacy_lal.nn.label_attention``) is put between the top attention sub-layer and the softmax layer.
With ``DeepAttConfig.sentence_layers`` (late fusion, not in the paper) the rows are gathered after
the lowest layers, which then run once per sentence.

Long inputs: no maximum length. The timing signal is computed for any length (see
``spacy_lal.nn.timing``); attention costs O(T^2) memory per head and row, which is what bounds T.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .deepatt_layers import DeepAttLayer
from .dropout import Dropout
from .predicates import label_smoothed_cross_entropy, predicate_indicator
from .timing import TimingSignal

__all__ = ["DeepAttConfig", "DeepAtt"]

SUBLAYERS = ("ffn", "rnn", "cnn")
TOP_LAYERS = ("softmax", "lal")


@dataclass(frozen=True)
class DeepAttConfig:
    """Hyperparameters of :class:`DeepAtt`. The defaults are a small CPU-friendly model;
    :meth:`paper` gives the paper's setting ("Settings and Regularization").

    Dropout rates are drop probabilities (the paper gives keep probabilities: 0.8 before residual
    connections, 0.9 on attention weights and on the FFN ReLU hidden layer).
    """

    n_layers: int = 4
    d_model: int = 128
    n_heads: int = 4
    d_ff: int = 256
    #: Nonlinear sub-layer: "ffn" (eq. 9), "rnn" (BiLSTM, eq. 5-7) or "cnn" (GLU, eq. 8).
    sublayer: str = "ffn"
    #: Width of the predicate-mask embedding e(m_t) (paper: 100, like the word embedding).
    d_mask: int = 32
    #: Predicate-distance embedding: each token also gets a learned vector for its signed offset
    #: from the predicate, clipped to [-max_distance, max_distance]; 0 = off (the paper). Not in
    #: the paper, whose 10 layers can find the predicate through the mask alone; a shallow stack
    #: on a predicate-blind sentence encoder (late fusion) learns "before/after the verb" faster
    #: when it is given.
    max_distance: int = 0
    #: GLU filter width k (paper: 3). Must be odd so that the output keeps the input's length.
    conv_width: int = 3
    #: Dropout before each residual connection (paper: keep 0.8).
    residual_dropout: float = 0.2
    #: Dropout on the attention weights (paper: keep 0.9).
    attention_dropout: float = 0.1
    #: Dropout on the FFN ReLU hidden layer (paper: keep 0.9).
    relu_dropout: float = 0.1
    #: Dropout on the input (projection + timing signal). Not stated in the paper; the authors'
    #: implementation applies the residual dropout there, as in Vaswani et al. (2017).
    input_dropout: float = 0.2
    #: Label smoothing epsilon for :meth:`DeepAtt.loss` (paper: 0.1).
    label_smoothing: float = 0.1
    #: "softmax" (paper) or "lal": a Label Attention Layer before the softmax layer.
    top_layer: str = "softmax"
    #: LAL heads; None = one head per output (BIO role) label, as in Mrini et al. (2020).
    lal_n_heads: int | None = None
    #: LAL query/key width per head.
    lal_d_kv: int = 32
    #: LAL per-head output width (the per-token output is n_heads * lal_d_proj wide).
    lal_d_proj: int = 16
    #: Dropout on the LAL attention weights.
    lal_dropout: float = 0.1
    #: Position-wise feed-forward layer after the LAL (Mrini et al. Table 1 "PFL"; their best
    #: model keeps it; without it each head's contribution stays traceable).
    lal_ffn: bool = True
    #: Hidden width of that feed-forward layer; None = ``d_ff``.
    lal_d_ff: int | None = None
    #: Late fusion: the first ``sentence_layers`` of the ``n_layers`` run once per sentence,
    #: before the predicate is known, and the predicate's signal is added to their output; only
    #: the layers above them run once per predicate. 0 = the paper (every layer per predicate).
    #: A sentence with P predicates then costs its lower layers once instead of P times.
    sentence_layers: int = 0

    def __post_init__(self) -> None:
        if self.sublayer not in SUBLAYERS:
            raise ValueError(f"sublayer must be one of {SUBLAYERS}, got {self.sublayer!r}")
        if self.top_layer not in TOP_LAYERS:
            raise ValueError(f"top_layer must be one of {TOP_LAYERS}, got {self.top_layer!r}")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        if self.conv_width % 2 != 1:
            raise ValueError(f"conv_width must be odd, got {self.conv_width}")
        if self.n_layers < 0:
            raise ValueError(f"n_layers must be >= 0, got {self.n_layers}")
        if self.sentence_layers and not 0 < self.sentence_layers < self.n_layers:
            raise ValueError(
                f"sentence_layers must be 0 or leave a predicate-aware layer above it (fewer than "
                f"n_layers = {self.n_layers}), got {self.sentence_layers}"
            )
        if self.max_distance < 0:
            raise ValueError(f"max_distance must be >= 0, got {self.max_distance}")
        if not 0.0 <= self.label_smoothing < 1.0:
            raise ValueError(f"label_smoothing must be in [0, 1), got {self.label_smoothing}")

    @classmethod
    def paper(cls, **overrides: Any) -> DeepAttConfig:
        """The paper's CoNLL setting: 10 layers, d = 200, 8 heads, h_f = 800, mask embedding 100,
        dropout 0.2 / 0.1 / 0.1, label smoothing 0.1, FFN sub-layers (its best variant)."""
        base = cls(
            n_layers=10,
            d_model=200,
            n_heads=8,
            d_ff=800,
            sublayer="ffn",
            d_mask=100,
            conv_width=3,
            residual_dropout=0.2,
            attention_dropout=0.1,
            relu_dropout=0.1,
            input_dropout=0.2,
            label_smoothing=0.1,
        )
        return replace(base, **overrides)

    @classmethod
    def cpu(cls, **overrides: Any) -> DeepAttConfig:
        """The small default: 4 layers, d = 128, 4 heads, h_f = 256."""
        return replace(cls(), **overrides)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _key_mask(mask: torch.Tensor) -> torch.Tensor:
    """The keys each row may attend to. A row without tokens would have no key to attend to
    (softmax over nothing = NaN); let it attend everywhere instead, its outputs are padding anyway."""
    return mask | ~mask.any(1, keepdim=True)


class DeepAtt(nn.Module):
    """DeepAtt SRL tagger over precomputed token vectors; one row per (sentence, predicate).

    Args:
        d_in: width of the token vectors (the tok2vec output).
        n_labels: number of BIO role labels (the softmax layer's size, eq. 15).
        config: hyperparameters; default :meth:`DeepAttConfig.cpu`.

    Input layer ("Pipeline"): ``x_t = [e(x_t); e(m_t)]`` projected to d. The projection is
    computed as ``W_x e(x_t) + W_m e(m_t) + b``, which is the same linear map as projecting the
    concatenation but lets the token part be computed once per sentence before rows are gathered.
    The paper has no projection (its 100 + 100 embedding widths equal d = 200); we need one because
    d_in is whatever the tok2vec produces. The authors' implementation multiplies the embeddings
    by sqrt(d) to match the timing signal's scale; with a learned projection whose init preserves
    the input's scale (std d_in^-1/2) that rescaling is not needed.
    """

    def __init__(self, d_in: int, n_labels: int, config: DeepAttConfig | None = None) -> None:
        super().__init__()
        config = config if config is not None else DeepAttConfig.cpu()
        self.config = config
        self.d_in = d_in
        self.n_labels = n_labels
        d = config.d_model
        self.input_proj = nn.Linear(d_in, d)  # W_x (and the bias b)
        self.mask_embed = nn.Embedding(2, config.d_mask)  # e(m_t), m_t in C = {0, 1}
        self.mask_proj = nn.Linear(config.d_mask, d, bias=False)  # W_m
        self.distance_embed: nn.Embedding | None = None
        if config.max_distance:
            self.distance_embed = nn.Embedding(2 * config.max_distance + 1, d)
        self.timing = TimingSignal(d)
        self.input_dropout = Dropout(config.input_dropout)
        self.layers = nn.ModuleList(DeepAttLayer(config) for _ in range(config.n_layers))
        self.top: nn.Module | None = None
        d_top = d
        if config.top_layer == "lal":
            self.top, d_top = self._make_label_attention(config, n_labels)
        self.output = nn.Linear(d_top, n_labels)  # W_o of eq. 15
        self.reset_parameters()

    @classmethod
    def paper(cls, d_in: int, n_labels: int, **overrides: Any) -> DeepAtt:
        """A model with the paper's hyperparameters (:meth:`DeepAttConfig.paper`)."""
        return cls(d_in, n_labels, DeepAttConfig.paper(**overrides))

    @staticmethod
    def _make_label_attention(config: DeepAttConfig, n_labels: int) -> tuple[nn.Module, int]:
        """The LAL top layer (Mrini et al., 2020, sec. 2, eq. 1-4) with one head per BIO role
        label unless ``config.lal_n_heads`` says otherwise; returns it and its output width
        (``n_heads * lal_d_proj``). Imported here so the plain model does not depend on it."""
        from .label_attention import LabelAttentionLayer

        layer = LabelAttentionLayer(
            config.d_model,
            config.lal_n_heads if config.lal_n_heads is not None else n_labels,
            d_kv=config.lal_d_kv,
            d_proj=config.lal_d_proj,
            attention_dropout=config.lal_dropout,
            residual_dropout=0.0,  # Mrini et al. Table 1: their best model drops it
            ffn=config.lal_ffn,
            d_ff=config.lal_d_ff if config.lal_d_ff is not None else config.d_ff,
            relu_dropout=config.relu_dropout,
        )
        return layer, layer.d_out

    def reset_parameters(self) -> None:
        """Paper, "Initialization": sub-layer weights orthogonal (done in the sub-layers); other
        weights Gaussian with mean 0 and std fan_in^-1/2 (the paper writes "variance 1/sqrt(d)";
        the authors' implementation uses std d^-1/2), biases 0. The mask embedding gets std 1 so
        that, after W_m, the predicate signal is as large as the token signal from the start."""
        nn.init.normal_(self.input_proj.weight, std=self.d_in**-0.5)
        nn.init.zeros_(self.input_proj.bias)
        nn.init.normal_(self.mask_embed.weight, std=1.0)
        nn.init.normal_(self.mask_proj.weight, std=self.config.d_mask**-0.5)
        if self.distance_embed is not None:
            nn.init.normal_(self.distance_embed.weight, std=1.0)  # on the scale of the mask signal
        nn.init.normal_(self.output.weight, std=self.output.in_features**-0.5)
        nn.init.zeros_(self.output.bias)

    def embed(
        self,
        tokvecs: torch.Tensor,
        mask: torch.Tensor,
        predicates: torch.Tensor,
        rows: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Input layer: projection of ``[e(x); e(m)]`` plus timing signal, with input dropout.
        Returns the (R, T, d) input of the first layer and the (R, T) row mask."""
        self._check_inputs(tokvecs, mask)
        mask = mask.bool()
        h = self.input_proj(tokvecs)  # once per sentence
        if rows is not None:
            h = h.index_select(0, rows)
            mask = mask.index_select(0, rows)
        return self.input_dropout(self.timing(self._add_predicate_signal(h, predicates))), mask

    def _check_inputs(self, tokvecs: torch.Tensor, mask: torch.Tensor) -> None:
        if tokvecs.dim() != 3 or tokvecs.shape[-1] != self.d_in:
            raise ValueError(f"tokvecs must be (N, T, {self.d_in}), got {tuple(tokvecs.shape)}")
        if mask.shape != tokvecs.shape[:2]:
            raise ValueError(f"mask must be {tuple(tokvecs.shape[:2])}, got {tuple(mask.shape)}")

    def _add_predicate_signal(self, h: torch.Tensor, predicates: torch.Tensor) -> torch.Tensor:
        """``h`` (R, T, d) plus ``W_m e(m_t)`` and the distance embedding, if any, of each row."""
        t = h.shape[1]
        if predicates.dim() == 1:
            pred_mask = predicate_indicator(predicates, t)
        elif predicates.shape == h.shape[:2]:
            pred_mask = predicates.bool()  # an explicit m (e.g. multi-token predicates)
        else:
            raise ValueError(
                f"predicates must be (R,) indices or an (R, T) mask, got {tuple(predicates.shape)}"
            )
        # W_m e(m) takes only two values: project the 2-row table once, then look rows up.
        mask_table = self.mask_proj(self.mask_embed.weight)  # (2, d)
        h = h + F.embedding(pred_mask.long(), mask_table)
        if self.distance_embed is not None:
            # A multi-token predicate is measured from its first token; a row without a
            # predicate (index < 0, or an empty mask) gets the offsets from position 0.
            anchor = predicates if predicates.dim() == 1 else pred_mask.long().argmax(1)
            k = self.config.max_distance
            offset = torch.arange(t, device=h.device).unsqueeze(0) - anchor.clamp(min=0).unsqueeze(1)
            h = h + self.distance_embed(offset.clamp(-k, k) + k)
        return h

    def encode(
        self,
        tokvecs: torch.Tensor,
        mask: torch.Tensor,
        predicates: torch.Tensor,
        rows: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Hidden states of the top attention sub-layer (or of the LAL), ``(R, T, d_top)``,
        and the row mask ``(R, T)``. Arguments as in :meth:`forward`."""
        n_sentence = self.config.sentence_layers
        if n_sentence:
            h, mask = self._encode_sentences(tokvecs, mask, predicates, rows)
        else:
            h, mask = self.embed(tokvecs, mask, predicates, rows)
        key_mask = _key_mask(mask)
        for layer in self.layers[n_sentence:]:
            h = layer(h, mask, key_mask)
        if self.top is not None:
            h = self.top(h, key_mask)
        return h, mask

    def _encode_sentences(
        self,
        tokvecs: torch.Tensor,
        mask: torch.Tensor,
        predicates: torch.Tensor,
        rows: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Late fusion (``config.sentence_layers``): the input layer without ``e(m)`` and the
        lower layers, once for each sentence that has a row, then the predicate's signal added
        to each row. Returns the (R, T, d) input of the first predicate-aware layer and the row
        mask."""
        self._check_inputs(tokvecs, mask)
        mask = mask.bool()
        if rows is not None:  # sentences without predicates are left out
            sentences, rows = torch.unique(rows, return_inverse=True)
            tokvecs, mask = tokvecs.index_select(0, sentences), mask.index_select(0, sentences)
        h = self.input_dropout(self.timing(self.input_proj(tokvecs)))
        key_mask = _key_mask(mask)
        for layer in self.layers[: self.config.sentence_layers]:
            h = layer(h, mask, key_mask)
        if rows is not None:
            h, mask = h.index_select(0, rows), mask.index_select(0, rows)
        return self._add_predicate_signal(h, predicates), mask

    def forward(
        self,
        tokvecs: torch.Tensor,
        mask: torch.Tensor,
        predicates: torch.Tensor,
        rows: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Role logits ``(R, T, n_labels)`` (eq. 15 before the softmax).

        Args:
            tokvecs: float (N, T, d_in) token vectors.
            mask: bool (N, T), True on real tokens (prefix masks).
            predicates: long (R,) predicate token index per row (negative = none), or an
                (R, T) 0/1 predicate mask m.
            rows: long (R,) sentence index of each row. None: the N sentences are the rows
                (R = N), i.e. already expanded. Otherwise sentences are gathered after the input
                projection (cheaper than
                :func:`~spacy_lal.nn.predicates.expand_predicates` + ``rows=None``, same result).

        Logits at padded positions are meaningless; mask them (the row mask is
        ``mask[rows]``).
        """
        h, _ = self.encode(tokvecs, mask, predicates, rows)
        return self.output(h)

    def loss(
        self,
        logits: torch.Tensor,
        targets: torch.Tensor,
        mask: torch.Tensor,
        *,
        reduction: str = "mean",
    ) -> torch.Tensor:
        """Label-smoothed cross-entropy (epsilon = ``config.label_smoothing``) over real tokens;
        see :func:`~spacy_lal.nn.predicates.label_smoothed_cross_entropy`. ``mask`` is the row
        mask (R, T)."""
        return label_smoothed_cross_entropy(
            logits, targets, mask, epsilon=self.config.label_smoothing, reduction=reduction
        )
