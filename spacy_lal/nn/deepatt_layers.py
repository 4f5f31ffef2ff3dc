"""The layers of DeepAtt (Tan et al., 2018, "Deep Semantic Role Labeling with Self-Attention").

Each of DeepAtt's N identical layers (:class:`DeepAttLayer`) is a nonlinear sub-layer followed by
multi-head self-attention (eq. 1-4, :class:`~spacy_lal.nn.attention.MultiHeadSelfAttention`), each
as ``LayerNorm(X + Dropout(SubLayer(X)))`` (eq. 10, "Deep Topology"; the dropout placement is from
"Settings and Regularization"). The nonlinear sub-layer is one of (section "Nonlinear Sub-Layers"):

* :class:`FFNSublayer`: ``ReLU(X W1) W2`` (eq. 9);
* :class:`RNNSublayer`: a BiLSTM whose directions are summed (eq. 5-7);
* :class:`CNNSublayer`: a gated linear unit over a convolution (eq. 8).

Sub-layer weights are orthogonal at init (section "Initialization"). Inputs are ``(R, T, d)`` rows
with prefix masks ``(R, T)`` (see :mod:`spacy_lal.nn.predicates`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from .attention import MultiHeadSelfAttention, orthogonal_blocks_
from .dropout import Dropout

if TYPE_CHECKING:  # deepatt.py builds the layers, so it cannot be imported from here at run time
    from .deepatt import DeepAttConfig

__all__ = ["DeepAttLayer", "FFNSublayer", "RNNSublayer", "CNNSublayer"]


class FFNSublayer(nn.Module):
    """Feed-forward sub-layer ``ReLU(X W1) W2`` (eq. 9), dropout on the ReLU hidden layer."""

    def __init__(self, d_model: int, d_ff: int, relu_dropout: float = 0.0) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff)
        self.w2 = nn.Linear(d_ff, d_model)
        self.dropout = Dropout(relu_dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for lin in (self.w1, self.w2):
            nn.init.orthogonal_(lin.weight)
            nn.init.zeros_(lin.bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:  # noqa: ARG002
        return self.w2(self.dropout(F.relu(self.w1(x))))


def _reverse_within_lengths(lengths: torch.Tensor, t: int) -> torch.Tensor:
    """Index (B, T) that reverses each row's first ``lengths[b]`` positions and leaves padding in
    place. It is an involution, so the same index undoes the reversal."""
    pos = torch.arange(t, device=lengths.device).unsqueeze(0)
    lengths = lengths.unsqueeze(1)
    return torch.where(pos < lengths, lengths - 1 - pos, pos)


class RNNSublayer(nn.Module):
    """Recurrent sub-layer: a BiLSTM whose directions are summed (eq. 5-7), width d.

    The backward LSTM runs over each sentence reversed *within its length* (a gather, no packing),
    so it starts at the last real token and padding never leaks into real positions; this needs
    prefix masks. Two unidirectional cuDNN-able LSTMs, no host synchronisation for lengths.
    """

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.fwd = nn.LSTM(d_model, d_model, batch_first=True)
        self.bwd = nn.LSTM(d_model, d_model, batch_first=True)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for lstm in (self.fwd, self.bwd):
            orthogonal_blocks_(lstm.weight_ih_l0, 4)  # one matrix per gate
            orthogonal_blocks_(lstm.weight_hh_l0, 4)
            nn.init.zeros_(lstm.bias_ih_l0)
            nn.init.zeros_(lstm.bias_hh_l0)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        index = _reverse_within_lengths(mask.sum(1), x.shape[1]).unsqueeze(-1).expand_as(x)
        h_fwd, _ = self.fwd(x)  # eq. 5
        h_bwd, _ = self.bwd(x.gather(1, index))  # eq. 6, in reversed order
        return h_fwd + h_bwd.gather(1, index)  # eq. 7


class CNNSublayer(nn.Module):
    """Convolutional sub-layer: gated linear unit ``(X*W) . sigmoid(X*V)`` with filter width k
    (eq. 8, Dauphin et al., 2016). Padded positions are zeroed first so that they act like the
    zero padding at the sentence edges (padding invariance)."""

    def __init__(self, d_model: int, width: int = 3) -> None:
        super().__init__()
        if width % 2 != 1:
            raise ValueError(f"width must be odd, got {width}")
        # W and V fused in one convolution with 2d output channels; F.glu splits them.
        self.conv = nn.Conv1d(d_model, 2 * d_model, width, padding=width // 2)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        orthogonal_blocks_(self.conv.weight, 2)  # W and V; each flattened to (d, d * k)
        nn.init.zeros_(self.conv.bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x.masked_fill(~mask.unsqueeze(-1), 0.0)
        return F.glu(self.conv(x.transpose(1, 2)), dim=1).transpose(1, 2)


def _make_sublayer(config: DeepAttConfig) -> nn.Module:
    if config.sublayer == "ffn":
        return FFNSublayer(config.d_model, config.d_ff, config.relu_dropout)
    if config.sublayer == "rnn":
        return RNNSublayer(config.d_model)
    return CNNSublayer(config.d_model, config.conv_width)


class DeepAttLayer(nn.Module):
    """One of the N identical layers: nonlinear sub-layer, then self-attention sub-layer, each
    ``LayerNorm(X + Dropout(SubLayer(X)))`` (eq. 10; layer normalization after the residual
    connection, dropout before it, "Deep Topology" / "Settings and Regularization")."""

    def __init__(self, config: DeepAttConfig) -> None:
        super().__init__()
        self.nonlinear = _make_sublayer(config)
        self.norm1 = nn.LayerNorm(config.d_model)
        self.attention = MultiHeadSelfAttention(config.d_model, config.n_heads, config.attention_dropout)
        self.norm2 = nn.LayerNorm(config.d_model)
        self.dropout = Dropout(config.residual_dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.dropout(self.nonlinear(x, mask)))
        return self.norm2(x + self.dropout(self.attention(x, key_mask)))
