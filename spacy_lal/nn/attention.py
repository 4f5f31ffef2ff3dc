"""Factored (content/position partitioned) self-attentive encoder (Kitaev & Klein 2018, sec. 2-3).

Every vector is ``x = [x_c ; x_p]`` (content, position) and every parameter matrix is block-diagonal
(K&K sec. 3): ``W x = [W_c x_c ; W_p x_p]``. Hence query-key products decompose as
``q . k = q_c . k_c + q_p . k_p`` -- the content and position logits are *summed* before the
softmax, and the resulting distribution is applied to both the content and the position values
(K&K Figure 4). The position-wise feed-forward sublayer is split the same way. Each sublayer is
``LayerNorm(x + Dropout_res(SubLayer(x)))`` (K&K sec. 2.2).

Paper hyperparameters (K&K Table 8): ``d_model`` 1024 (512 content + 512 position), 8 layers
(4 with ELMo; Mrini et al. use 3 above XLNet), 8 heads, ``d_kv`` 64, ``d_ff`` 2048, attention dropout
0.2, ReLU dropout 0.1, residual dropout 0.2. The defaults here are CPU-sized: ``d_model`` 256,
2 layers, 8 heads, ``d_kv`` 32, ``d_ff`` 512.

:class:`MultiHeadSelfAttention` is the unfactored multi-head self-attention of DeepAtt (Tan et al.
2018, section "Self-Attention", eq. 1-4). Both attentions split a fused query/key/value projection
into heads (:func:`split_heads`), exclude padded keys (:func:`masked_softmax`) and concatenate the
heads' outputs (:func:`merge_heads`).
"""

from __future__ import annotations

import math
from typing import Tuple, Union

import torch
from torch import Tensor, nn

from .dropout import Dropout, FeatureDropout, dropout

__all__ = [
    "split_heads",
    "merge_heads",
    "masked_softmax",
    "orthogonal_blocks_",
    "MultiHeadSelfAttention",
    "PartitionedLinear",
    "FactoredSelfAttention",
    "PartitionedFeedForward",
    "FactoredEncoderLayer",
    "FactoredEncoder",
]


def split_heads(qkv: Tensor, n_heads: int) -> Tuple[Tensor, Tensor, Tensor]:
    """Queries, keys and values ``(B, H, T, d_head)`` each, from a fused ``(B, T, 3 * H * d_head)``
    projection laid out ``[q ; k ; v]``, every part head by head (views of a contiguous one)."""
    B, T, d = qkv.shape
    # Sizes spelled out, not -1: an empty batch (no rows) cannot infer them.
    q, k, v = qkv.reshape(B, T, 3, n_heads, d // (3 * n_heads)).permute(2, 0, 3, 1, 4)
    return q, k, v


def merge_heads(y: Tensor) -> Tensor:
    """``(B, H, T, d_head)`` head outputs -> ``(B, T, H * d_head)``, the heads side by side."""
    B, H, T, d_head = y.shape
    return y.transpose(1, 2).reshape(B, T, H * d_head)  # not -1: see split_heads


def masked_softmax(logits: Tensor, key_mask: Tensor) -> Tensor:
    """Softmax over the keys (last dimension) of ``logits``, leaving out the keys where ``key_mask``
    (bool, broadcast to ``logits``) is False; each row needs one True.

    ``logits`` is filled in place: callers pass a fresh tensor, and the ``(B, H, T, T)`` scores are
    not copied once more (autograd allows it: the scaling before it keeps no output for backward).
    """
    return torch.softmax(logits.masked_fill_(~key_mask, float("-inf")), dim=-1)


def orthogonal_blocks_(weight: Tensor, n_blocks: int) -> None:
    """Orthogonal init of each of ``n_blocks`` row blocks of a fused weight (Tan et al.,
    "Initialization": sub-layer weights are random orthogonal matrices; fused q/k/v or LSTM gates
    are separate matrices in the paper's formulation, so each block gets its own)."""
    with torch.no_grad():
        for block in weight.chunk(n_blocks, dim=0):
            nn.init.orthogonal_(block)


class MultiHeadSelfAttention(nn.Module):
    """Multi-head scaled dot-product self-attention (Tan et al. 2018, section "Self-Attention",
    eq. 1-4).

    Scores are scaled by sqrt(d / h), the per-head width, as in Vaswani et al. (2017) and the
    authors' implementation (eq. 1 writes sqrt(d)). Padded keys are excluded; padded queries still
    get (ignored) outputs. Dropout on the attention weights ("Settings and Regularization").
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        self.d_model = d_model
        self.n_heads = n_heads
        self.dropout = dropout
        self.qkv = nn.Linear(d_model, 3 * d_model)  # W_i^Q, W_i^K, W_i^V of all heads, fused
        self.out = nn.Linear(d_model, d_model)  # W of eq. 4
        self.reset_parameters()

    def reset_parameters(self) -> None:
        orthogonal_blocks_(self.qkv.weight, 3)
        nn.init.orthogonal_(self.out.weight)
        nn.init.zeros_(self.qkv.bias)
        nn.init.zeros_(self.out.bias)

    def forward(self, x: Tensor, key_mask: Tensor) -> Tensor:
        """``x`` (B, T, d), ``key_mask`` (B, T) bool (True = may be attended to; each row needs
        one True). Returns (B, T, d)."""
        q, k, v = split_heads(self.qkv(x), self.n_heads)
        key_mask = key_mask[:, None, None, :]
        # eq. 1-2 for all heads at once: y is (B, h, T, d/h)
        if self.training and self.dropout > 0.0:
            # SDPA would draw its dropout mask with torch's slow Bernoulli sampling
            # (spacy_lal.nn.dropout); the same sums, written out.
            scores = (q @ k.transpose(-1, -2)).div_(q.shape[-1] ** 0.5)  # in place: fresh tensors
            y = dropout(masked_softmax(scores, key_mask), self.dropout) @ v
        else:
            y = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=key_mask)
        return self.out(merge_heads(y))  # eq. 3-4


class PartitionedLinear(nn.Module):
    """Block-diagonal linear map ``[W_c x_c + b_c ; W_p x_p + b_p]`` (K&K sec. 3)."""

    def __init__(self, d_in_content: int, d_in_position: int, d_out_content: int, d_out_position: int,
                 bias: bool = True) -> None:
        super().__init__()
        self.d_in_content = d_in_content
        self.content = nn.Linear(d_in_content, d_out_content, bias=bias)
        self.position = nn.Linear(d_in_position, d_out_position, bias=bias)

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        """Return the content and position outputs separately (callers often keep them apart)."""
        return self.content(x[..., : self.d_in_content]), self.position(x[..., self.d_in_content:])


class FactoredSelfAttention(nn.Module):
    """Factored multi-head self-attention sublayer (K&K sec. 2.2.1 and 3), with residual + LayerNorm.

    Each head has queries/keys/values of size ``d_kv``, half computed from the content half of the
    input and half from the position half. Head outputs are projected back to ``d_content`` and
    ``d_positional`` by separate output matrices ``W_O`` (summing the per-head projections, as in
    K&K's ``MultiHead(X) = sum_n SingleHead_n(X)``, is the same as one matrix on the concatenation).

    Args:
        d_content, d_positional: the two halves of ``d_model``.
        n_heads: number of heads (paper: 8).
        d_kv: query/key/value size per head, even (paper: 64).
        attention_dropout: dropout on the attention probabilities (paper: 0.2).
        residual_dropout: feature dropout before the residual connection (paper: 0.2).
    """

    def __init__(self, d_content: int, d_positional: int, n_heads: int = 8, d_kv: int = 32,
                 attention_dropout: float = 0.2, residual_dropout: float = 0.2) -> None:
        super().__init__()
        if d_kv % 2:
            raise ValueError(f"d_kv must be even (half content, half position), got {d_kv}")
        self.n_heads = n_heads
        self.d_kv = d_kv
        half = n_heads * d_kv // 2
        # Q, K and V for all heads in one block-diagonal matmul (3 * half outputs per partition).
        self.qkv = PartitionedLinear(d_content, d_positional, 3 * half, 3 * half, bias=False)
        self.out = PartitionedLinear(half, half, d_content, d_positional, bias=False)
        self.attention_dropout = Dropout(attention_dropout)
        self.residual_dropout = FeatureDropout(residual_dropout)
        self.layer_norm = nn.LayerNorm(d_content + d_positional)

    def forward(self, x: Tensor, mask: Tensor, return_attention: bool = False
                ) -> Union[Tensor, Tuple[Tensor, Tensor]]:
        """Args:
            x: ``(B, T, d_model)``.
            mask: ``(B, T)`` bool, True at valid positions (padding keys are never attended to).
            return_attention: also return the probabilities ``(B, H, T_query, T_key)``.
        """
        qkv_c, qkv_p = self.qkv(x)
        q_c, k_c, v_c = split_heads(qkv_c, self.n_heads)  # (B, H, T, d_kv/2) each
        q_p, k_p, v_p = split_heads(qkv_p, self.n_heads)
        # Factored logits: content and position dot products are summed before the softmax.
        logits = (q_c @ k_c.transpose(-1, -2) + q_p @ k_p.transpose(-1, -2)) / math.sqrt(self.d_kv)
        # Every row has >= 1 valid key (the start token).
        probs = masked_softmax(logits, mask[:, None, None, :])
        dropped = self.attention_dropout(probs)
        # One distribution, applied to both the content and the position values (K&K Figure 4).
        y_c = self.out.content(merge_heads(dropped @ v_c))
        y_p = self.out.position(merge_heads(dropped @ v_p))
        y = self.layer_norm(x + self.residual_dropout(torch.cat([y_c, y_p], dim=-1)))
        return (y, probs) if return_attention else y


class PartitionedFeedForward(nn.Module):
    """Position-wise feed-forward sublayer, split into content and position parts (K&K sec. 2.2.2, 3).

    ``FF(x) = W_2 relu(W_1 x + b_1) + b_2`` with block-diagonal ``W_1`` and ``W_2`` (``d_ff`` split in
    halves), then ``LayerNorm(x + Dropout_res(FF(x)))``.
    """

    def __init__(self, d_content: int, d_positional: int, d_ff: int = 512, relu_dropout: float = 0.1,
                 residual_dropout: float = 0.2) -> None:
        super().__init__()
        self.w1 = PartitionedLinear(d_content, d_positional, d_ff // 2, d_ff // 2)
        self.w2 = PartitionedLinear(d_ff // 2, d_ff // 2, d_content, d_positional)
        self.relu_dropout = FeatureDropout(relu_dropout)
        self.residual_dropout = FeatureDropout(residual_dropout)
        self.layer_norm = nn.LayerNorm(d_content + d_positional)

    def forward(self, x: Tensor) -> Tensor:
        h_c, h_p = self.w1(x)
        h = self.relu_dropout(torch.relu(torch.cat([h_c, h_p], dim=-1)))
        y_c, y_p = self.w2(h)
        return self.layer_norm(x + self.residual_dropout(torch.cat([y_c, y_p], dim=-1)))


class FactoredEncoderLayer(nn.Module):
    """One encoder layer: factored self-attention then partitioned feed-forward (K&K Figure 2)."""

    def __init__(self, d_content: int, d_positional: int, n_heads: int = 8, d_kv: int = 32, d_ff: int = 512,
                 attention_dropout: float = 0.2, relu_dropout: float = 0.1, residual_dropout: float = 0.2) -> None:
        super().__init__()
        self.attention = FactoredSelfAttention(d_content, d_positional, n_heads, d_kv,
                                               attention_dropout, residual_dropout)
        self.feed_forward = PartitionedFeedForward(d_content, d_positional, d_ff, relu_dropout, residual_dropout)

    def forward(self, x: Tensor, mask: Tensor, return_attention: bool = False
                ) -> Union[Tensor, Tuple[Tensor, Tensor]]:
        if return_attention:
            y, probs = self.attention(x, mask, return_attention=True)
            return self.feed_forward(y), probs
        return self.feed_forward(self.attention(x, mask))


class FactoredEncoder(nn.Module):
    """Stack of ``n_layers`` factored encoder layers (K&K: 8; Mrini et al.: 3 over XLNet).

    Args:
        d_content, d_positional: halves of ``d_model`` (defaults of the parser: 128 + 128; paper
            512 + 512).
        n_layers: number of layers (default 2; papers 2-8, Mrini et al. Table 5).
        n_heads, d_kv, d_ff, attention_dropout, relu_dropout, residual_dropout: see the sublayers.
    """

    def __init__(self, d_content: int, d_positional: int, n_layers: int = 2, n_heads: int = 8, d_kv: int = 32,
                 d_ff: int = 512, attention_dropout: float = 0.2, relu_dropout: float = 0.1,
                 residual_dropout: float = 0.2) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            FactoredEncoderLayer(d_content, d_positional, n_heads, d_kv, d_ff, attention_dropout, relu_dropout,
                                 residual_dropout)
            for _ in range(n_layers)
        )

    def forward(self, x: Tensor, mask: Tensor, return_attention: bool = False
                ) -> Union[Tensor, Tuple[Tensor, list]]:
        """``x``: ``(B, T, d_model)``, ``mask``: ``(B, T)`` bool. Returns ``(B, T, d_model)`` (and the
        list of per-layer attention probabilities ``(B, H, T, T)`` if asked)."""
        attentions = []
        for layer in self.layers:
            if return_attention:
                x, probs = layer(x, mask, return_attention=True)
                attentions.append(probs)
            else:
                x = layer(x, mask)
        return (x, attentions) if return_attention else x
