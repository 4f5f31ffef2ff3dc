"""Span representations, label scores, tree scores and the hinge loss (Mrini et al. eq. 5-9).

Indexing. The encoder output ``Y`` has ``T + 2`` positions ``[start, w_1 .. w_n, stop, pad ..]``
(see :mod:`spacy_lal.nn.embeddings`). Fencepost ``k`` (``0 <= k <= n``) lies between word ``k`` and
word ``k + 1`` (1-based words), so span ``(i, j)`` (fenceposts, end exclusive, covering words
``i+1 .. j`` = 0-based tokens ``i .. j-1``) is bounded by encoder positions ``i`` / ``i + 1`` on the
left and ``j`` / ``j + 1`` on the right. Following Gaddy et al. / Kitaev & Klein (sec. 2.3), each
vector is split into a forward half ``f`` and a backward half ``b``; the forward annotation of
fencepost ``k`` is ``f`` of position ``k`` (the start sentinel for ``k = 0``) and its backward
annotation is ``b`` of position ``k + 1`` (the stop sentinel for ``k = n``). Eq. 5 is then

    s(i, j) = [ f_j - f_i ; b_{i+1} - b_{j+1} ]        (positions)

and, because Mrini et al. split "each head-specific word vector at the middle" (sec. 2), this is
done *per head* of the Label Attention Layer and the per-head span vectors are concatenated:
``s(i, j) = [f^1_j - f^1_i ; b^1_{i+1} - b^1_{j+1} ; ... ; f^H_j - f^H_i ; b^H_{i+1} - b^H_{j+1}]``.
(The sign of the backward difference is immaterial after the linear map of eq. 6.)

Efficiency. With the fencepost vector ``e_k = [f^1_k ; -b^1_{k+1} ; ... ]`` every span vector is a
difference ``s(i, j) = e_j - e_i``. As eq. 6 starts with a linear map, ``W_1 s(i, j) + b_1 =
W_1 e_j - W_1 e_i + b_1``: the chart is computed from ``T + 1`` projected fenceposts without ever
materialising the ``(B, T+1, T+1, H * d_proj)`` span vectors (which for 112 heads would not fit in
memory). :func:`span_features` materialises them for inspection and tests.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn

from .biaffine import Reduction, reduce_sentences
from .dropout import Dropout
from .embeddings import lengths_to_mask

__all__ = [
    "fencepost_vectors",
    "span_features",
    "span_mask",
    "SpanScorer",
    "tree_score",
    "hamming_cost",
    "hinge_loss",
    "head_contributions",
]

SplitKind = Literal["halves", "interleave"]


def fencepost_vectors(annotations: Tensor, n_heads: int = 1, split: SplitKind = "halves") -> Tensor:
    """Fencepost vectors ``e_k`` such that the eq. 5 span vector is ``s(i, j) = e_j - e_i``.

    Args:
        annotations: ``(B, T + 2, D)`` encoder output with start/stop sentinels; ``D`` divisible by
            ``2 * n_heads``.
        n_heads: number of head-specific slices of ``D`` each split in half (1 = the whole vector,
            as in Kitaev & Klein).
        split: ``"halves"``: first half of each slice is forward, second half backward (Mrini et
            al.); ``"interleave"``: even coordinates forward, odd backward (K&K footnote 2, needed
            when the vector is a factored ``[content ; position]`` vector, so that neither direction
            gets only content or only position).

    Returns:
        ``(B, T + 1, D)``: per head ``[f_k ; -b_{k+1}]``, heads concatenated in order.
    """
    B, T2, D = annotations.shape
    if D % (2 * n_heads):
        raise ValueError(f"annotation size {D} is not divisible by 2 * n_heads = {2 * n_heads}")
    per_head = annotations.reshape(B, T2, n_heads, D // n_heads)
    if split == "halves":
        fwd, bwd = per_head.chunk(2, dim=-1)
    elif split == "interleave":
        fwd, bwd = per_head[..., 0::2], per_head[..., 1::2]
    else:
        raise ValueError(f"split must be 'halves' or 'interleave', got {split!r}")
    e = torch.cat([fwd[:, :-1], -bwd[:, 1:]], dim=-1)  # (B, T+1, H, D/H)
    return e.reshape(B, T2 - 1, D)


def span_features(annotations: Tensor, n_heads: int = 1, split: SplitKind = "halves") -> Tensor:
    """Materialised span vectors of eq. 5: ``out[b, i, j] = s(i, j)``, shape ``(B, T+1, T+1, D)``.

    Only entries with ``i < j <= n`` are meaningful. Memory is ``O(B T^2 D)``: meant for inspection
    (head contributions) and tests; :class:`SpanScorer` does not call it.
    """
    e = fencepost_vectors(annotations, n_heads, split)
    return e.unsqueeze(1) - e.unsqueeze(2)


def span_mask(lengths: Tensor, n_words: int) -> Tensor:
    """``(B, T+1, T+1)`` bool, True for the spans ``0 <= i < j <= n`` of each sentence."""
    k = torch.arange(n_words + 1, device=lengths.device)
    upper = k.unsqueeze(0) > k.unsqueeze(1)  # (i, j): j > i
    in_sentence = lengths_to_mask(lengths + 1, n_words + 1)  # fencepost j <= n
    return upper.unsqueeze(0) & in_sentence.unsqueeze(1)


class SpanScorer(nn.Module):
    """Span label scores, eq. 6: ``S(i, j) = W_2 ReLU(LN(W_1 s_ij + b_1)) + b_2``.

    The chart has ``n_labels`` entries per span; label 0 is the empty label whose score is fixed at
    0 (Kitaev & Klein sec. 2.1), so ``W_2`` only produces the ``n_labels - 1`` other scores.

    Args:
        d_in: size of the encoder annotations (the span vectors have the same size).
        n_labels: number of labels including the empty label 0.
        d_hidden: hidden size of the MLP (Kitaev & Klein / Zhou & Zhao: 250).
        n_heads: head-specific slices for eq. 5 (the label attention heads; 1 = whole vector).
        split: see :func:`fencepost_vectors`.
        dropout: dropout after the ReLU (0 in the papers' equations; available for regularisation).
    """

    def __init__(self, d_in: int, n_labels: int, d_hidden: int = 250, n_heads: int = 1,
                 split: SplitKind = "halves", dropout: float = 0.0) -> None:
        super().__init__()
        if n_labels < 1:
            raise ValueError("n_labels counts the empty label 0 and must be >= 1")
        self.n_labels, self.n_heads, self.split = n_labels, n_heads, split
        self.w1 = nn.Linear(d_in, d_hidden)
        self.layer_norm = nn.LayerNorm(d_hidden)
        self.dropout = Dropout(dropout)
        self.w2 = nn.Linear(d_hidden, n_labels - 1)

    def forward(self, annotations: Tensor, lengths: Tensor) -> Tensor:
        """Args:
            annotations: ``(B, T + 2, d_in)`` (with sentinels).
            lengths: ``(B,)`` number of words.

        Returns:
            chart ``(B, T+1, T+1, n_labels)``: ``chart[b, i, j, l] = s(i, j, l)`` for ``i < j <= n_b``;
            0 for label 0 and for every entry outside the sentence's spans.
        """
        B, T2, _ = annotations.shape
        n_fence = T2 - 1
        u = self._project_fenceposts(annotations)
        # Only the upper triangle i < j holds spans: score those pairs alone (half the MLP work).
        i, j = torch.triu_indices(n_fence, n_fence, offset=1, device=annotations.device)
        scores = self._mlp(u[:, j] - u[:, i])  # (B, P, L - 1)
        chart = scores.new_zeros((B, n_fence * n_fence, self.n_labels))
        chart[:, i * n_fence + j, 1:] = scores  # empty label 0 stays exactly 0
        chart = chart.view(B, n_fence, n_fence, self.n_labels)
        valid = span_mask(lengths, n_fence - 1)  # drop spans reaching into the padding
        return chart * valid.unsqueeze(-1).to(chart.dtype)


    def packed(self, annotations: Tensor, lengths: Tensor) -> Tensor:
        """The scores of the real spans only, for decoding: ``(P, n_labels - 1)`` (label 0 left
        out), the spans ``0 <= i < j <= n_b`` of each sentence in turn, each sentence's in
        ``torch.triu_indices(n_b + 1, n_b + 1, 1)`` order. Same values as :meth:`forward` gives
        for those spans, without the padded chart (no work on padding, a fraction of the memory).
        """
        u = self._project_fenceposts(annotations)  # (B, T+1, d_hidden)
        B, n_fence, d_hidden = u.shape
        # The padded length's pairs in row-major order, kept where j <= n_b: for each sentence
        # that is exactly triu_indices(n_b + 1, n_b + 1, 1), in the same order. Two gathers for
        # the whole chunk instead of three small operations per sentence.
        i, j = torch.triu_indices(n_fence, n_fence, offset=1, device=u.device)
        rows, pairs = (j <= lengths.to(u.device).unsqueeze(1)).nonzero(as_tuple=True)
        flat = u.reshape(B * n_fence, d_hidden)
        first = rows * n_fence
        spans = flat.index_select(0, first + j[pairs])
        return self._mlp(spans.sub_(flat.index_select(0, first + i[pairs])))

    def _project_fenceposts(self, annotations: Tensor) -> Tensor:
        """``W_1 e_k`` for every fencepost: eq. 6's first layer is linear, so ``W_1 s(i, j) =
        W_1 e_j - W_1 e_i`` and the span vectors of eq. 5 are never built."""
        e = fencepost_vectors(annotations, self.n_heads, self.split)
        return nn.functional.linear(e, self.w1.weight)

    def _mlp(self, projected: Tensor) -> Tensor:
        """Eq. 6 from ``W_1 s(i, j)``: the label scores of labels 1..L-1."""
        return self.w2(self.dropout(torch.relu(self.layer_norm(projected + self.w1.bias))))


def _check_spans(spans: Tensor, name: str) -> Tensor:
    if spans.dim() != 2 or spans.shape[1] != 4:
        raise ValueError(f"{name} must be an index tensor of shape (k, 4): (batch_idx, i, j, label)")
    return spans.long()


def tree_score(chart: Tensor, spans: Tensor) -> Tensor:
    """Tree scores, eq. 7: ``s(T) = sum_{(i, j, l) in T} s(i, j, l)``, for every sentence of a batch.

    Args:
        chart: ``(B, T+1, T+1, L)``.
        spans: ``(k, 4)`` integer rows ``(batch_idx, i, j, label)`` -- the spans of one tree per
            sentence (label-0 spans, e.g. those added by binarization, may be included: they score
            ``chart[..., 0]``, which is 0 in every chart built by :class:`SpanScorer`).

    Returns:
        ``(B,)``, differentiable w.r.t. ``chart``.
    """
    spans = _check_spans(spans, "spans").to(chart.device)
    b, i, j, label = spans.unbind(1)
    return chart.new_zeros(chart.shape[0]).index_add(0, b, chart[b, i, j, label])


def hamming_cost(pred_spans: Tensor, gold_chart: Tensor) -> Tensor:
    """Hamming cost ``Delta(T, T*)`` of predicted trees (eq. 8), as counted by loss-augmented CKY.

    One unit for every predicted span whose label differs from the gold label of that span
    (``gold_chart[b, i, j]``, 0 where there is no gold constituent) -- the same augmentation as
    ``spacy_lal.decode.cky(chart, gold)``, so ``s(pred) + cost`` is the augmented score.

    Args:
        pred_spans: ``(k, 4)`` rows ``(batch_idx, i, j, label)``, all spans of the predicted trees.
        gold_chart: ``(B, T+1, T+1)`` integer gold label chart.

    Returns:
        ``(B,)`` float cost.
    """
    pred_spans = _check_spans(pred_spans, "pred_spans").to(gold_chart.device)
    b, i, j, label = pred_spans.unbind(1)
    wrong = (gold_chart[b, i, j].long() != label).to(torch.get_default_dtype())
    return wrong.new_zeros(gold_chart.shape[0]).index_add(0, b, wrong)


def hinge_loss(chart: Tensor, gold_spans: Tensor, pred_spans: Tensor, pred_cost: Tensor | float,
               reduction: Reduction = "mean") -> Tensor:
    """Structured hinge loss, eq. 8-9: ``max(0, s(T^) + Delta(T^, T*) - s(T*))`` per sentence.

    ``T^`` is the loss-augmented prediction (argmax of ``s(T) + Delta(T, T*)``, found by the CKY
    decoder), so this equals eq. 9 exactly when the decoder is exact; it is zero when the gold tree
    wins by the margin. Gradients flow into ``chart`` only (+1 on the predicted spans, -1 on the gold
    spans, for sentences with positive loss); the decoded structures are constants.

    Args:
        chart: ``(B, T+1, T+1, L)`` span label scores (label 0 = empty, scoring 0).
        gold_spans: ``(k, 4)`` rows ``(batch_idx, i, j, label)`` of the gold trees.
        pred_spans: ``(m, 4)`` rows of the loss-augmented predicted trees.
        pred_cost: ``(B,)`` Hamming cost of each predicted tree (see :func:`hamming_cost`), or a
            scalar applied to every sentence.
        reduction: ``"mean"`` (default): average over the ``B`` sentences, so the learning rate does
            not depend on the batch size (Kitaev & Klein's training loop divides the summed loss by
            the number of sentences); ``"sum"``: sum over sentences; ``"none"``: ``(B,)``.
    """
    cost = torch.as_tensor(pred_cost, dtype=chart.dtype, device=chart.device)
    margin = tree_score(chart, pred_spans) + cost - tree_score(chart, gold_spans)
    return reduce_sentences(torch.relu(margin), reduction)


def head_contributions(span_vectors: Tensor, n_heads: int, normalize: bool = True) -> Tensor:
    """Contribution of each label attention head to span vectors (Mrini et al. Figure 6, sec. 4.5).

    Each head owns a contiguous ``D / n_heads`` slice of a span vector (concatenation, eq. 5 per
    head). The contribution of a head is the mean absolute value of its slice ("averaging"),
    normalised to sum to 1 over the heads ("normalization"). Meaningful without the position-wise
    feed-forward layer, which mixes the heads.

    Args:
        span_vectors: ``(..., D)`` e.g. from :func:`span_features`.
        n_heads: number of heads.
        normalize: divide by the sum over heads.

    Returns:
        ``(..., n_heads)``.
    """
    D = span_vectors.shape[-1]
    per_head = span_vectors.reshape(*span_vectors.shape[:-1], n_heads, D // n_heads)
    contrib = per_head.abs().mean(-1)
    if normalize:
        contrib = contrib / contrib.sum(-1, keepdim=True).clamp(min=torch.finfo(contrib.dtype).tiny)
    return contrib
