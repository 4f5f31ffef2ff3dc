"""Biaffine dependency scoring (Dozat & Manning 2017; Mrini et al. eq. 10-11).

Token representations are the encoder output at positions ``0 .. T`` (``[start, w_1 .. w_T]``): the
start sentinel plays the ROOT, so index 0 = root and index ``d`` = word ``d`` (1-based), matching
the decoder contract of ``spacy_lal.decode`` (``scores[d, h]`` = score of head ``h`` for dependent
``d``).

Arc scores, eq. 10 (``h^(d)``, ``h^(h)``: separate one-layer perceptrons of the word vectors):

    alpha[d, h] = h^(d)_d^T W h^(h)_h + U^T h^(d)_d + V^T h^(h)_h + b

Labels: ``P(l | d, h)`` from a biaffine label classifier (Dozat & Manning sec. 3.1, the classifier
used by Zhou & Zhao's parser on which Mrini et al. build):

    s[d, h, l] = h'^(d)_d^T W_l h'^(h)_h + U_l^T [h'^(d)_d ; h'^(h)_h] + b_l

Loss, eq. 11: ``L_d = -sum_d [log P(h_d | d) + log P(l_d | d, h_d)]`` over the words of a sentence.

Paper values: Dozat & Manning use 500-d arc and 100-d label MLPs (Zhou & Zhao: 1024 / 250). Here
the defaults are 256 / 128.
"""

from __future__ import annotations

from typing import Literal, Optional, Tuple

import torch
from torch import Tensor, nn

from .dropout import Dropout
from .embeddings import lengths_to_mask

__all__ = [
    "MLP", "BiaffineArcScorer", "BiaffineLabelScorer", "dependency_loss", "arc_mask", "reduce_sentences",
]

Reduction = Literal["mean", "sum", "none"]


class MLP(nn.Module):
    """One-layer perceptron ``Dropout(ReLU(W x + b))`` producing dependent/head representations."""

    def __init__(self, d_in: int, d_out: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout(torch.relu(self.linear(x)))


class BiaffineArcScorer(nn.Module):
    """Arc scores of eq. 10 for all (dependent, head) pairs.

    Args:
        d_in: size of the token representations.
        d_arc: size of the dependent/head MLP outputs.
        dropout: dropout on the MLP outputs.
    """

    def __init__(self, d_in: int, d_arc: int = 256, dropout: float = 0.0) -> None:
        super().__init__()
        self.dep_mlp = MLP(d_in, d_arc, dropout)
        self.head_mlp = MLP(d_in, d_arc, dropout)
        self.W = nn.Parameter(torch.zeros(d_arc, d_arc))  # zero init as Dozat & Manning (stable start)
        self.U = nn.Parameter(torch.zeros(d_arc))
        self.V = nn.Parameter(torch.zeros(d_arc))
        self.b = nn.Parameter(torch.zeros(1))  # 1-d, not 0-d: Thinc's optimizers take arrays

    def forward(self, tokens: Tensor) -> Tensor:
        """Args:
            tokens: ``(B, T + 1, d_in)``, index 0 = root.

        Returns:
            ``(B, T+1, T+1)``: ``scores[b, d, h]`` = score of head ``h`` for dependent ``d``. Finite
            everywhere (the decoders reject non-finite input); use :func:`arc_mask` to mask.
        """
        hd = self.dep_mlp(tokens)
        hh = self.head_mlp(tokens)
        bilinear = torch.einsum("bdi,ij,bhj->bdh", hd, self.W, hh)
        return bilinear + (hd @ self.U).unsqueeze(2) + (hh @ self.V).unsqueeze(1) + self.b


class BiaffineLabelScorer(nn.Module):
    """Biaffine dependency label classifier, ``P(l | d, h)`` of eq. 11.

    Args:
        d_in: size of the token representations.
        n_labels: number of dependency labels.
        d_label: size of the dependent/head MLP outputs.
        dropout: dropout on the MLP outputs.
    """

    def __init__(self, d_in: int, n_labels: int, d_label: int = 128, dropout: float = 0.0) -> None:
        super().__init__()
        self.n_labels = n_labels
        self.dep_mlp = MLP(d_in, d_label, dropout)
        self.head_mlp = MLP(d_in, d_label, dropout)
        self.W = nn.Parameter(torch.zeros(n_labels, d_label, d_label))
        self.U = nn.Linear(2 * d_label, n_labels)  # linear term on [dep ; head] + bias b_l

    def forward(self, tokens: Tensor, heads: Tensor) -> Tensor:
        """Label scores for one head per dependent (the gold heads in training, decoded ones at
        prediction), so only ``O(T L)`` scores are built.

        Args:
            tokens: ``(B, T + 1, d_in)``, index 0 = root.
            heads: ``(B, T + 1)`` head index of each dependent; entries of the root row and of
                padding (any value, e.g. -1) are ignored (clamped into range).

        Returns:
            ``(B, T+1, n_labels)``: ``scores[b, d, l]`` for the pair ``(d, heads[b, d])``.
        """
        hd = self.dep_mlp(tokens)
        hh_all = self.head_mlp(tokens)
        B, T1, d = hh_all.shape
        idx = heads.long().clamp(0, T1 - 1)
        hh = hh_all.gather(1, idx.unsqueeze(-1).expand(-1, -1, d))
        # h_d^T W_l h_h as (W_l h_h) . h_d: W_l h_h for every label in one product, once per
        # token that heads others (under half of them), gathered for its dependents and dotted
        # with them in one batched product. The same sum as einsum("bdi,lij,bdj->bdl"), which
        # runs about 2x slower on CPU; a loop over the labels ran 2.5x slower at a prediction
        # chunk's size (about 300 dependents: 4 small operations per label).
        flat_heads = (idx + torch.arange(B, device=idx.device).unsqueeze(1) * T1).reshape(-1)
        unique, inverse = torch.unique(flat_heads, return_inverse=True)
        head_vectors = hh_all.reshape(B * T1, d).index_select(0, unique)
        n_labels = self.W.shape[0]
        per_head = (head_vectors @ self.W.reshape(n_labels * d, d).T).view(-1, n_labels, d)  # (U, L, d)
        dependents = hd.reshape(B * T1, d, 1)
        bilinear = torch.bmm(per_head.index_select(0, inverse), dependents)  # (B * T1, L, 1)
        return bilinear.view(B, T1, n_labels) + self.U(torch.cat([hd, hh], dim=-1))

    def all_pairs(self, tokens: Tensor) -> Tensor:
        """Label scores for every (dependent, head) pair: ``(B, T+1, T+1, n_labels)`` ``[b, d, h, l]``
        (for joint decoding; memory ``O(B T^2 L)``)."""
        hd = self.dep_mlp(tokens)
        hh = self.head_mlp(tokens)
        bilinear = torch.einsum("bdi,lij,bhj->bdhl", hd, self.W, hh)
        d_label = hd.shape[-1]
        u_dep, u_head = self.U.weight[:, :d_label], self.U.weight[:, d_label:]
        return (bilinear + (hd @ u_dep.T).unsqueeze(2) + (hh @ u_head.T).unsqueeze(1)
                + self.U.bias)


def arc_mask(lengths: Tensor, n_words: int) -> Tensor:
    """``(B, T+1, T+1)`` bool: True where ``h`` is a possible head of ``d`` -- ``1 <= d <= n``,
    ``0 <= h <= n``, ``h != d`` (no self loops; the decoders never produce one)."""
    valid = lengths_to_mask(lengths + 1, n_words + 1)  # positions 0..n
    k = torch.arange(n_words + 1, device=lengths.device)
    dependent = valid & (k > 0).unsqueeze(0)
    not_self = k.unsqueeze(0) != k.unsqueeze(1)
    return dependent.unsqueeze(2) & valid.unsqueeze(1) & not_self.unsqueeze(0)


def reduce_sentences(per_sentence: Tensor, reduction: Reduction) -> Tensor:
    """A batch's loss from its ``(B,)`` per-sentence losses: ``"mean"`` over the sentences, so that
    the learning rate does not depend on the batch size and the parsers' losses (this module's,
    :func:`~spacy_lal.nn.span.hinge_loss`, SPA-DP's) are on one scale; ``"sum"``; ``"none"``."""
    if reduction == "mean":
        return per_sentence.mean()
    if reduction == "sum":
        return per_sentence.sum()
    if reduction == "none":
        return per_sentence
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def dependency_loss(arc_scores: Tensor, lengths: Tensor, gold_heads: Tensor,
                    label_scores: Optional[Tensor] = None, gold_labels: Optional[Tensor] = None,
                    reduction: Reduction = "mean", head_weights: Optional[Tensor] = None,
                    label_weights: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """Cross-entropy of eq. 11: ``-log P(h_d | d) - log P(l_d | d, h_d)`` summed over the words.

    With soft targets (a teacher's distributions mixed into the gold ones, for distillation) the
    cross-entropy is taken against a distribution instead of one gold head or label:
    ``-sum_h q(h | d) log P(h | d) - sum_l r(l | d) log P(l | d, h_d)``; one-hot ``q`` and ``r``
    give eq. 11 again.

    Args:
        arc_scores: ``(B, T+1, T+1)`` from :class:`BiaffineArcScorer`.
        lengths: ``(B,)`` number of words.
        gold_heads: ``(B, T+1)`` gold head of each dependent (index 0 and padding ignored; -1 =
            unknown: the word is left out).
        label_scores: ``(B, T+1, L)`` label scores for the *gold* heads, or None (unlabelled).
        gold_labels: ``(B, T+1)`` gold label ids (index 0 and padding ignored; -1 = unknown).
        head_weights: ``(B, T+1, T+1)`` ``q``, each known dependent's row a distribution over its
            heads (weights on impossible heads are ignored), or None (the gold head, one-hot).
        label_weights: ``(B, T+1, L)`` ``r``, over the labels of the arc to the gold head, or None.
        reduction: ``"mean"``: per-sentence sums averaged over sentences (same scale as
            :func:`~spacy_lal.nn.span.hinge_loss`, so eq. 12 adds comparable quantities); ``"sum"``;
            ``"none"``: ``(B,)``.

    Returns:
        ``(loss, per_sentence)`` where ``per_sentence`` is ``(B,)``.
    """
    B, T1, _ = arc_scores.shape
    words = lengths_to_mask(lengths + 1, T1) & (torch.arange(T1, device=lengths.device) > 0)
    # Rows that are not dependents (root, padding) stay unmasked: a fully -inf row would give NaN
    # log-probabilities whose (zero-weighted) backward still yields NaN gradients.
    mask = arc_mask(lengths, T1 - 1) | ~words.unsqueeze(-1)
    log_p = torch.log_softmax(arc_scores.masked_fill(~mask, float("-inf")), dim=-1)
    # A negative gold head or label means "unknown" (e.g. a word the gold tokenization does not
    # align to): that word, or its label, is left out of the loss.
    known = words & (gold_heads >= 0)
    if head_weights is None:
        heads = gold_heads.long().clamp(0, T1 - 1)
        nll = -log_p.gather(2, heads.unsqueeze(-1)).squeeze(-1)  # (B, T+1)
    else:
        nll = -(head_weights.to(log_p.dtype) * log_p.masked_fill(~mask, 0.0)).sum(-1)
    if label_scores is not None:
        if gold_labels is None:
            raise ValueError("gold_labels is required with label_scores")
        log_q = torch.log_softmax(label_scores, -1)
        if label_weights is None:
            labels = gold_labels.long().clamp(0, label_scores.shape[-1] - 1)
            label_nll = -log_q.gather(2, labels.unsqueeze(-1)).squeeze(-1)
        else:
            label_nll = -(label_weights.to(log_q.dtype) * log_q).sum(-1)
        nll = nll + torch.where(gold_labels >= 0, label_nll, torch.zeros_like(label_nll))
    per_sentence = torch.where(known, nll, torch.zeros_like(nll)).sum(-1)
    return reduce_sentences(per_sentence, reduction), per_sentence
