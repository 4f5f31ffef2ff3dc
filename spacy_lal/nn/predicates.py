"""The (sentence, predicate) rows of semantic role labelling and the heads that find predicates.

DeepAtt (Tan et al., 2018, "Deep Semantic Role Labeling with Self-Attention";
:mod:`spacy_lal.nn.deepatt`) labels the roles of one predicate at a time; the paper is given gold
predicates. To run on raw text the component also needs the predicates and their senses, hence
:class:`PredicateIdentifier` and :class:`SenseClassifier` (not in the paper). All three are trained
with :func:`label_smoothed_cross_entropy` (the paper's objective, eq. 13-15 with label smoothing).

Data layout
-----------
* Token vectors come precomputed from a tok2vec layer: ``tokvecs`` float ``(N, T, d_in)`` for N
  sentences padded to T, with ``mask`` bool ``(N, T)``, True on real tokens. Masks must be prefix
  (left-aligned) masks, as produced by :func:`~spacy_lal.nn.embeddings.lengths_to_mask`: DeepAtt's
  recurrent sub-layer relies on it.
* SRL runs once per (sentence, predicate) pair ("row"). ``rows`` ``(R,)`` gives each row's sentence
  (an index into the N sentences), ``positions`` ``(R,)`` the predicate's token index in it;
  :func:`predicate_rows` builds both from per-sentence predicate lists. ``DeepAtt.forward``
  gathers rows itself *after* the input projection, so the projection runs once per sentence
  instead of once per predicate; :func:`expand_predicates` is the standalone gather for callers
  that want the row tensors. With ``DeepAttConfig.sentence_layers`` (late fusion, not in the
  paper) the gather comes after the lowest layers, which then run once per sentence.
"""

from __future__ import annotations

import itertools
from typing import Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .dropout import Dropout

__all__ = [
    "PredicateIdentifier",
    "SenseClassifier",
    "label_smoothed_cross_entropy",
    "predicate_rows",
    "expand_predicates",
    "gather_tokens",
    "predicate_indicator",
]


def predicate_rows(
    predicates: Sequence[Sequence[int]], device: torch.device | str | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Flatten per-sentence predicate positions into rows.

    ``predicates[i]`` lists the predicate token indices of sentence i (may be empty). Returns
    ``rows`` (R,) long (sentence index of each row) and ``positions`` (R,) long (predicate index),
    R = total number of predicates, in sentence-then-list order. The only Python iteration is over
    the sentences' lists (to flatten them), never over tokens.
    """
    counts = torch.tensor([len(p) for p in predicates], dtype=torch.long, device=device)
    rows = torch.repeat_interleave(torch.arange(len(predicates), device=device), counts)
    positions = torch.tensor(list(itertools.chain.from_iterable(predicates)), dtype=torch.long, device=device)
    return rows, positions


def predicate_indicator(positions: torch.Tensor, length: int) -> torch.Tensor:
    """Predicate mask m (bool ``(R, length)``) from predicate indices ``(R,)`` ("Pipeline": m_t = 1
    on the predicate, 0 elsewhere). A negative index gives an all-zero row (no predicate)."""
    return torch.arange(length, device=positions.device).unsqueeze(0) == positions.unsqueeze(1)


def expand_predicates(
    tokvecs: torch.Tensor, mask: torch.Tensor, rows: torch.Tensor, positions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Expand sentences to (sentence, predicate) rows by gathering along the batch dimension.

    ``tokvecs`` (N, T, d), ``mask`` (N, T), ``rows``/``positions`` (R,) as from
    :func:`predicate_rows`. Returns ``(tokvecs[rows] (R, T, d), mask[rows] (R, T),
    predicate_mask (R, T) bool)``. One ``index_select`` per tensor (differentiable: gradients of
    rows sharing a sentence are summed back into it).
    """
    x = tokvecs.index_select(0, rows)
    m = mask.index_select(0, rows)
    return x, m, predicate_indicator(positions, tokvecs.shape[1])


def gather_tokens(tokvecs: torch.Tensor, rows: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """The vectors ``tokvecs[rows[r], positions[r]]``: ``(R, d)`` from ``(N, T, d)``."""
    flat = tokvecs.reshape(-1, tokvecs.shape[-1])
    return flat.index_select(0, rows * tokvecs.shape[1] + positions)


def label_smoothed_cross_entropy(
    logits: torch.Tensor,
    targets: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    epsilon: float = 0.1,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> torch.Tensor:
    """Cross-entropy against label-smoothed targets (paper, "Settings and Regularization", after
    Szegedy et al., 2016), the objective of eq. 13-15 when ``epsilon = 0``.

    The target distribution puts ``1 - epsilon`` on the gold label and spreads ``epsilon`` evenly
    over the other ``K - 1`` labels, as in the authors' implementation (THUMT). So per token

        loss = -(1 - eps) * log p_y - eps / (K - 1) * sum_{k != y} log p_k.

    (``F.cross_entropy(label_smoothing=eps)`` instead spreads eps over all K labels.) No constant
    is subtracted, so the minimum is the entropy of the smoothed target, not 0.

    ``logits`` (..., K), ``targets`` (...) long. Tokens with ``mask`` False (padding) or target
    ``ignore_index`` are excluded. ``reduction``: "mean" (over counted tokens; 0 if none), "sum",
    or "none" (per-token losses, 0 where excluded).
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    n_classes = logits.shape[-1]
    keep = targets != ignore_index
    if mask is not None:
        keep = keep & mask.bool()
    safe_targets = targets.masked_fill(~keep, 0)
    logp = F.log_softmax(logits.float(), dim=-1)
    gold = logp.gather(-1, safe_targets.unsqueeze(-1)).squeeze(-1)
    if epsilon > 0.0 and n_classes > 1:
        others = logp.sum(-1) - gold
        loss = -(1.0 - epsilon) * gold - (epsilon / (n_classes - 1)) * others
    else:
        loss = -gold
    loss = loss * keep
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / keep.sum().clamp(min=1)


class _MLP(nn.Module):
    """One ReLU hidden layer: the token vectors the heads read are already contextual."""

    def __init__(self, d_in: int, d_hidden: int, d_out: int, dropout: float) -> None:
        super().__init__()
        self.hidden = nn.Linear(d_in, d_hidden)
        self.dropout = Dropout(dropout)
        self.out = nn.Linear(d_hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.dropout(F.relu(self.hidden(x))))


class PredicateIdentifier(nn.Module):
    """Per-token predicate classifier over the token vectors (no predicate mask).

    ``n_classes = 2`` is binary (0 = not a predicate, 1 = predicate); more classes make it a small
    tagger (e.g. verbal / nominal predicates). A one-hidden-layer MLP: the token vectors are
    already contextual, so no further context layer.
    """

    def __init__(self, d_in: int, n_classes: int = 2, d_hidden: int = 128, dropout: float = 0.1) -> None:
        super().__init__()
        self.n_classes = n_classes
        self.mlp = _MLP(d_in, d_hidden, n_classes, dropout)

    def forward(self, tokvecs: torch.Tensor) -> torch.Tensor:
        """``tokvecs`` (N, T, d_in) -> logits (N, T, n_classes)."""
        return self.mlp(tokvecs)

    def loss(
        self,
        logits: torch.Tensor,
        targets: torch.Tensor,
        mask: torch.Tensor,
        *,
        label_smoothing: float = 0.0,
        reduction: str = "mean",
    ) -> torch.Tensor:
        """Cross-entropy over real tokens (``mask`` (N, T)); ``targets`` (N, T) long, -100 ignored."""
        return label_smoothed_cross_entropy(
            logits, targets, mask, epsilon=label_smoothing, reduction=reduction
        )


class SenseClassifier(nn.Module):
    """Predicts the roleset sense suffix ("01", "02", ...) of each predicate.

    Classes are sense ids seen in training (the component owns the suffix <-> id table and builds
    "lemma.suffix"). Input: the predicate token's vector, gathered from the token vectors.
    """

    def __init__(self, d_in: int, n_senses: int, d_hidden: int = 128, dropout: float = 0.1) -> None:
        super().__init__()
        self.n_senses = n_senses
        self.mlp = _MLP(d_in, d_hidden, n_senses, dropout)

    def forward(self, tokvecs: torch.Tensor, rows: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """``tokvecs`` (N, T, d_in); ``rows``, ``positions`` (R,) as from :func:`predicate_rows`.
        Returns logits (R, n_senses)."""
        return self.mlp(gather_tokens(tokvecs, rows, positions))

    def loss(
        self,
        logits: torch.Tensor,
        targets: torch.Tensor,
        *,
        allowed: Optional[torch.Tensor] = None,
        label_smoothing: float = 0.0,
        reduction: str = "mean",
    ) -> torch.Tensor:
        """Cross-entropy, ``targets`` (R,) long; -100 (e.g. a sense unseen in training) ignored.

        ``allowed`` (R, n_senses) bool: the softmax of each row runs over its allowed classes only
        (the rolesets of the predicate's lemma: the classes are suffixes all lemmas share, so
        the plain softmax also pushes down "02" of a lemma that has no roleset 02). A row's
        target class always counts as allowed, and a row with an ignored target is not
        restricted. Not with label smoothing, which spreads mass over every class."""
        if allowed is not None:
            if label_smoothing:
                raise ValueError("a sense loss restricted to allowed classes takes no label smoothing")
            known = targets != -100
            allowed = allowed.clone()
            allowed[~known] = True
            allowed[known, targets[known]] = True
            logits = logits.masked_fill(~allowed, float("-inf"))
        return label_smoothed_cross_entropy(logits, targets, epsilon=label_smoothing, reduction=reduction)
