"""The Label Attention Layer (Mrini et al., "Rethinking Self-Attention", sec. 2, eq. 1-4).

For head ``i`` and input ``X`` (one row per position, ``d_model`` wide):

    K_i = X W^K_i                                   (eq. 2)
    V_i = X W^V_i                                   (eq. 4)
    a_i = softmax(q_i K_i^T / sqrt(d))              (eq. 1)   one *learned query vector* per head
    c_i = a_i V_i                                   (eq. 3)   one context vector per head

so each head has one attention *vector* over the words (not a matrix), and one context vector per
sentence. "The context vector gets added to each individual input vector making for one residual
connection per head [...] We project the resulting matrix of word vectors to a lower dimension
before normalizing" (sec. 2, Figures 3-4). Per head and position ``t``:

    y_{t,i} = LayerNorm(W_red (x_t + Dropout_res(W_O c_i)))        (d_proj wide)
    y_t     = [y_{t,1} ; ... ; y_{t,H}]                            (H * d_proj wide)

``W_O`` (``d_kv -> d_model``) brings the context vector to the size of the input so it can be added;
like the authors' released implementation it is shared by the heads (the per-head parameters are
``q_i``, ``W^K_i``, ``W^V_i``). ``W_red`` (``d_model -> d_proj``) is the projection "to a lower
dimension" and is also shared. Head outputs are concatenated, not mixed (Figure 4), so every head's
slice of ``y_t`` is identifiable -- the basis of the interpretability analysis (sec. 4.5).

An optional position-wise feed-forward sublayer follows (``LayerNorm(y + FF(y))``); Mrini et al.
Table 1 ablates it ("PFL") together with the residual dropout ("RD"); their best parser keeps the
PFL and drops RD, which are the defaults here. Table 2 ablates the two novelties:

* ``query="matrix"``: a query matrix ``W^Q_i`` applied to the words replaces the query vector, so
  each head has a word-to-word attention matrix and one context vector per position;
* ``combine="project"``: head contexts are concatenated and projected by one matrix back to
  ``d_model`` with a single residual connection and LayerNorm, as in self-attention (output
  ``d_model`` wide instead of ``H * d_proj``).

``query="matrix", combine="project"`` is plain (unfactored) multi-head self-attention with ``H`` heads.

Paper values: one head per syntactic category (112 for the PTB), ``d_kv`` = ``d_proj`` = 128. The
defaults here are CPU-sized: ``d_kv`` 32, ``d_proj`` 32, ``d_ff`` 256.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Optional, Tuple, Union

import torch
from torch import Tensor, nn

from .dropout import Dropout, FeatureDropout

__all__ = ["LabelAttention", "LabelAttentionLayer", "LabelAttentionDetails"]

QueryKind = Literal["vector", "matrix"]
CombineKind = Literal["concat", "project"]


@dataclass
class LabelAttentionDetails:
    """What the Label Attention Layer computed, for interpretation (Mrini et al. sec. 4.5-4.6).

    Attributes:
        attention: head-to-word attention weights ``a_i`` (eq. 1). ``(B, H, T)`` with query vectors;
            ``(B, H, T, T)`` (query position, key position) with ``query="matrix"``. Zero on padding.
        context: context vectors ``c_i`` (eq. 3): ``(B, H, d_kv)``, or ``(B, H, T, d_kv)`` with
            ``query="matrix"``.
        head_outputs: per-head word representations ``y_{t,i}`` before the feed-forward layer,
            ``(B, T, H, d_proj)``, or None with ``combine="project"`` (heads are mixed).
    """

    attention: Tensor
    context: Tensor
    head_outputs: Optional[Tensor]


class LabelAttention(nn.Module):
    """Label attention sublayer, eq. 1-4, with the ablation switches of Mrini et al. Table 2.

    Args:
        d_model: input size.
        n_heads: number of heads ``H`` (paper: one per label).
        d_kv: size of query/key/value vectors (``d`` of eq. 1; paper 128).
        d_proj: per-head output size after the reduction (paper 128). Unused with ``combine="project"``.
        query: ``"vector"`` (learned query vectors, eq. 1) or ``"matrix"`` (ablation: ``W^Q`` on the words).
        combine: ``"concat"`` (per-head residual, reduction, LayerNorm, concatenation) or ``"project"``
            (ablation: self-attention-style projection of all heads, one residual connection).
        attention_dropout: dropout on the attention weights.
        residual_dropout: feature dropout on each head's output before its residual connection
            (Mrini et al. best model: 0, i.e. off).

    Parameters created (so the ablations change the parameter set):
        ``query`` ``(H, d_kv)`` [vector] or ``w_q`` ``(H, d_model, d_kv)`` [matrix];
        ``w_k``, ``w_v`` ``(H, d_model, d_kv)``; ``w_o``: ``Linear(d_kv, d_model)`` [concat] or
        ``Linear(H * d_kv, d_model)`` [project]; ``reduce``: ``Linear(d_model, d_proj)`` [concat only];
        ``layer_norm`` over ``d_proj`` [concat] or ``d_model`` [project].
    """

    def __init__(self, d_model: int, n_heads: int, d_kv: int = 32, d_proj: int = 32,
                 query: QueryKind = "vector", combine: CombineKind = "concat",
                 attention_dropout: float = 0.2, residual_dropout: float = 0.0) -> None:
        super().__init__()
        if query not in ("vector", "matrix"):
            raise ValueError(f"query must be 'vector' or 'matrix', got {query!r}")
        if combine not in ("concat", "project"):
            raise ValueError(f"combine must be 'concat' or 'project', got {combine!r}")
        if n_heads < 1:
            raise ValueError(f"n_heads must be >= 1, got {n_heads}")
        self.d_model, self.n_heads, self.d_kv, self.d_proj = d_model, n_heads, d_kv, d_proj
        self.query_kind: QueryKind = query
        self.combine: CombineKind = combine

        def per_head_matrix() -> nn.Parameter:
            w = torch.empty(n_heads, d_model, d_kv)
            for h in range(n_heads):  # init only: same scale as an nn.Linear(d_model, d_kv)
                nn.init.xavier_uniform_(w[h])
            return nn.Parameter(w)

        if query == "vector":
            self.query = nn.Parameter(torch.randn(n_heads, d_kv) * d_kv**-0.5)
        else:
            self.w_q = per_head_matrix()
        self.w_k = per_head_matrix()
        self.w_v = per_head_matrix()
        if combine == "concat":
            self.w_o = nn.Linear(d_kv, d_model, bias=False)
            self.reduce = nn.Linear(d_model, d_proj, bias=False)
            self.layer_norm = nn.LayerNorm(d_proj)
        else:
            self.w_o = nn.Linear(n_heads * d_kv, d_model, bias=False)
            self.layer_norm = nn.LayerNorm(d_model)
        self.attention_dropout = Dropout(attention_dropout)
        self.residual_dropout = FeatureDropout(residual_dropout)

    @property
    def d_out(self) -> int:
        """Output size: ``H * d_proj`` (concat) or ``d_model`` (project)."""
        return self.n_heads * self.d_proj if self.combine == "concat" else self.d_model

    def forward(self, x: Tensor, mask: Tensor, return_details: bool = False
                ) -> Union[Tensor, Tuple[Tensor, LabelAttentionDetails]]:
        """Args:
            x: ``(B, T, d_model)``.
            mask: ``(B, T)`` bool, True at valid positions.
            return_details: also return a :class:`LabelAttentionDetails`.

        Returns:
            ``(B, T, d_out)`` (zero at padding positions), and the details if asked.
        """
        B, T, _ = x.shape
        key_mask = ~mask[:, None, :]  # (B, 1, T)
        scale = 1.0 / math.sqrt(self.d_kv)
        if self.query_kind == "vector":
            # Eq. 1-4 with the products reassociated, so keys and values (B, H, T, d_kv) are never
            # built: q_h . (W_K^h x_t) = (W_K^h q_h) . x_t, and sum_t a_t W_V^h x_t =
            # W_V^h (sum_t a_t x_t). Same values up to float rounding, far fewer operations.
            key_query = torch.einsum("hdk,hk->dh", self.w_k, self.query)  # (d_model, H)
            logits = (x @ key_query).transpose(1, 2) * scale  # eq. 1, (B, H, T)
            logits = logits.masked_fill(key_mask, float("-inf"))
            attention = torch.softmax(logits, dim=-1)
            attended = self.attention_dropout(attention) @ x  # (B, H, d_model)
            context = torch.einsum("bhd,hdk->bhk", attended, self.w_v)  # eq. 3-4, (B, H, d_kv)
        else:
            k = torch.einsum("btd,hdk->bhtk", x, self.w_k)  # eq. 2, (B, H, T, d_kv)
            v = torch.einsum("btd,hdk->bhtk", x, self.w_v)  # eq. 4
            q = torch.einsum("btd,hdk->bhtk", x, self.w_q)
            logits = torch.einsum("bhsk,bhtk->bhst", q, k) * scale  # (B, H, T_query, T_key)
            logits = logits.masked_fill(key_mask[:, :, None, :], float("-inf"))
            attention = torch.softmax(logits, dim=-1)
            context = torch.einsum("bhst,bhtk->bhsk", self.attention_dropout(attention), v)

        head_outputs: Optional[Tensor] = None
        if self.combine == "concat":
            if self.query_kind == "vector":
                # W_red is linear without bias, so W_red(x_t + o_i) = W_red x_t + W_red o_i: the
                # per-head sum never materialises a (B, T, H, d_model) tensor.
                if self.training and self.residual_dropout.p > 0:
                    # Residual dropout masks each head's W_O c_i independently (per sentence and
                    # per (head, feature)), so W_O c_i is built: (B, H, d_model).
                    o = self.residual_dropout(self.w_o(context).unsqueeze(1)).squeeze(1)
                    reduced = self.reduce(o)
                else:
                    # Without it W_red W_O c_i is one (d_proj, d_kv) product: the (B, H, d_model)
                    # tensor between them, a d_kv-deep product torch runs slowly, was a fifth
                    # of the Label Attention Layer's prediction time.
                    reduced = context @ (self.reduce.weight @ self.w_o.weight).T
                head_outputs = _layer_norm_of_sums(self.reduce(x), reduced, self.layer_norm)
            else:
                # W_O c_i for every head and word, residual dropout masking each head on its own.
                o = self.w_o(context)
                o = self.residual_dropout(o.transpose(1, 2))  # (B, T, H, d_model)
                head_outputs = self.layer_norm(self.reduce(x.unsqueeze(2) + o))
            # head_outputs: one residual connection + LayerNorm per head, (B, T, H, d_proj)
            y = head_outputs.reshape(B, T, self.n_heads * self.d_proj)  # concatenation (Figure 4)
        else:
            if self.query_kind == "vector":
                o = self.w_o(context.reshape(B, 1, -1)).expand(B, T, self.d_model)
            else:
                o = self.w_o(context.transpose(1, 2).reshape(B, T, -1))
            y = self.layer_norm(x + self.residual_dropout(o))
        y = y * mask.unsqueeze(-1).to(y.dtype)
        if return_details:
            return y, LabelAttentionDetails(attention=attention, context=context, head_outputs=head_outputs)
        return y


def _layer_norm_of_sums(words: Tensor, heads: Tensor, layer_norm: nn.LayerNorm) -> Tensor:
    """``layer_norm(words[:, :, None] + heads[:, None])``, ``(B, T, H, d)``, from ``words`` ``(B, T,
    d)`` and ``heads`` ``(B, H, d)`` without normalising each of the B T H rows of d (8 in the
    shipped parser) on its own, which torch does slowly for short rows (a third of the Label
    Attention Layer's time). A row's mean is the sum of the two means; with both parts centred,
    its variance is ``var(w) + var(h) + 2 mean(w * h)``, the cross terms of all pairs in one
    batched product. The same values up to float rounding (about 1e-5 on the shipped weights)."""
    d = words.shape[-1]
    words = words - words.mean(-1, keepdim=True)
    heads = heads - heads.mean(-1, keepdim=True)
    variance = (words.pow(2).mean(-1).unsqueeze(2) + heads.pow(2).mean(-1).unsqueeze(1)
                + torch.bmm(words, heads.transpose(1, 2)).mul_(2 / d))  # (B, T, H)
    scale = torch.rsqrt(variance.add_(layer_norm.eps)).unsqueeze(-1)
    if layer_norm.weight is not None:  # the gain, applied to the parts rather than to the B T H rows
        words, heads = words * layer_norm.weight, heads * layer_norm.weight
    centred = words.unsqueeze(2) + heads.unsqueeze(1)
    return centred * scale if layer_norm.bias is None else torch.addcmul(layer_norm.bias, centred, scale)


class LabelAttentionLayer(nn.Module):
    """Label attention sublayer + optional position-wise feed-forward sublayer (Mrini et al. sec. 2).

    Args:
        d_model, n_heads, d_kv, d_proj, query, combine, attention_dropout, residual_dropout:
            see :class:`LabelAttention`.
        ffn: add the position-wise feed-forward layer ("PFL", Table 1; default on, as in the best
            model). Without it the head contributions can be traced to the span vectors (Figure 6).
        d_ff: hidden size of the feed-forward layer.
        relu_dropout: dropout on its hidden layer.
        ffn_residual_dropout: feature dropout before its residual connection.
    """

    def __init__(self, d_model: int, n_heads: int, d_kv: int = 32, d_proj: int = 32,
                 query: QueryKind = "vector", combine: CombineKind = "concat",
                 attention_dropout: float = 0.2, residual_dropout: float = 0.0,
                 ffn: bool = True, d_ff: int = 256, relu_dropout: float = 0.1,
                 ffn_residual_dropout: float = 0.0) -> None:
        super().__init__()
        self.attention = LabelAttention(d_model, n_heads, d_kv, d_proj, query, combine,
                                        attention_dropout, residual_dropout)
        d_out = self.attention.d_out
        self.ffn: Optional[nn.ModuleDict] = None
        if ffn:
            self.ffn = nn.ModuleDict({
                "w1": nn.Linear(d_out, d_ff),
                "w2": nn.Linear(d_ff, d_out),
                "layer_norm": nn.LayerNorm(d_out),
            })
        self.relu_dropout = FeatureDropout(relu_dropout)
        self.ffn_residual_dropout = FeatureDropout(ffn_residual_dropout)

    @property
    def d_out(self) -> int:
        return self.attention.d_out

    @property
    def n_heads(self) -> int:
        return self.attention.n_heads

    def forward(self, x: Tensor, mask: Tensor, return_details: bool = False
                ) -> Union[Tensor, Tuple[Tensor, LabelAttentionDetails]]:
        """``x``: ``(B, T, d_model)``, ``mask``: ``(B, T)``. Returns ``(B, T, d_out)`` (+ details)."""
        y, details = self.attention(x, mask, return_details=True)
        if self.ffn is not None:
            h = self.relu_dropout(torch.relu(self.ffn["w1"](y)))
            y = self.ffn["layer_norm"](y + self.ffn_residual_dropout(self.ffn["w2"](h)))
            y = y * mask.unsqueeze(-1).to(y.dtype)
        return (y, details) if return_details else y
