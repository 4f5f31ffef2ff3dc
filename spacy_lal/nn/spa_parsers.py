"""The parsers of sequence-preserved attention dependency parsing (Zhou et al. 2018, "RNN-Based
Sequence-Preserved Attention for Dependency Parsing", SPA-DP), plain torch, over the word
representations ``r_0 .. r_n`` of :class:`~spacy_lal.nn.spa_encoder.SpaEncoder` (eq. 27; index 0 =
ROOT). Arc scores follow the decoders' layout (``scores[b, d, h]``, :mod:`spacy_lal.nn.biaffine`).

* Graph-based parsing as head selection (eq. 8-10): :class:`HeadSelectionScorer` (bilinear or
  concat score), labels by :class:`~spacy_lal.nn.biaffine.BiaffineLabelScorer`, loss
  :func:`~spacy_lal.nn.biaffine.dependency_loss`; together :class:`SpaGraphParser`.
* Transition-based parsing (eq. 4-7): :class:`TransitionClassifier` over the configuration
  features of the arc-standard system (``spacy_lal.decode.arc_standard``), loss
  :func:`transition_loss`; together :class:`SpaTransitionParser`.

Paper sizes: graph-based, BiLSTM 400 and rescan GRU 100; transition-based, 700 and 700; tag vectors
50; 30% word and tag dropout. Those are the defaults of the parsers.
"""

from __future__ import annotations

from typing import Callable, Literal, NamedTuple, Optional

import numpy as np
import torch
from torch import Tensor, nn

from .biaffine import BiaffineLabelScorer, Reduction, dependency_loss, reduce_sentences
from .host import to_host
from .spa_encoder import EncoderKind, SpaEncoder

__all__ = [
    "HeadSelectionScorer",
    "SpaGraphOutput",
    "SpaGraphParser",
    "SpaTransitionParser",
    "TransitionClassifier",
    "transition_loss",
]


# ----------------------------------------------------------------------------- graph-based


class HeadSelectionScorer(nn.Module):
    """Head selection scores, eq. 8: ``s(r_j, r_i)`` for head ``j`` of dependent ``i``.

    - ``"bilinear"``: ``r_j^T W r_i`` (the paper's better one; W starts at zero, as the biaffine
      scorer's, so training starts from uniform head distributions);
    - ``"concat"``: ``v^T max(0, W (r_j (+) r_i) + b)``.

    Softmax over the candidate heads (eq. 9) and the cross-entropy (eq. 10) are
    :func:`~spacy_lal.nn.biaffine.dependency_loss`; a tree is made by the decoders.

    Args:
        d_in: size of ``r``.
        score: ``"bilinear"`` or ``"concat"``.
        d_hidden: hidden size of the concat score.
    """

    def __init__(self, d_in: int, score: Literal["bilinear", "concat"] = "bilinear",
                 d_hidden: int = 100) -> None:
        super().__init__()
        if score not in ("bilinear", "concat"):
            raise ValueError(f"score must be 'bilinear' or 'concat', got {score!r}")
        self.score = score
        if score == "bilinear":
            self.W = nn.Parameter(torch.zeros(d_in, d_in))
        else:
            self.head = nn.Linear(d_in, d_hidden)  # W = [W_head, W_dep], b
            self.dep = nn.Linear(d_in, d_hidden, bias=False)
            self.v = nn.Linear(d_hidden, 1, bias=False)

    def forward(self, reprs: Tensor) -> Tensor:
        """``(B, T + 1, d_in)`` -> ``(B, T + 1, T + 1)`` ``scores[b, d, h]`` (row = dependent, column =
        head, index 0 = ROOT), finite everywhere; mask with :func:`~spacy_lal.nn.biaffine.arc_mask`."""
        if self.score == "bilinear":
            return torch.einsum("bhi,ij,bdj->bdh", reprs, self.W, reprs)
        hidden = torch.relu(self.head(reprs).unsqueeze(1) + self.dep(reprs).unsqueeze(2))
        return self.v(hidden).squeeze(-1)


class SpaGraphOutput(NamedTuple):
    """reprs: ``(B, T + 1, d)`` word representations (eq. 27); arc_scores: ``(B, T + 1, T + 1)``."""

    reprs: Tensor
    arc_scores: Tensor


class SpaGraphParser(nn.Module):
    """Graph-based SPA-DP: :class:`SpaEncoder`, head selection (eq. 8-10) and a biaffine label
    classifier on the same representations.

    Args:
        d_in: size of the token vectors.
        n_labels: number of dependency labels.
        encoder, d_scan, d_rescan, d_attention, n_tags, d_tag, word_dropout, tag_dropout:
            :class:`SpaEncoder` (paper: BiLSTM 400, GRU 100).
        score, d_score: :class:`HeadSelectionScorer`.
        d_label, label_dropout: :class:`~spacy_lal.nn.biaffine.BiaffineLabelScorer`.
    """

    def __init__(self, d_in: int, n_labels: int, *, encoder: EncoderKind = "bot",
                 score: Literal["bilinear", "concat"] = "bilinear", d_scan: int = 400,
                 d_rescan: int = 100, d_attention: int = 100, d_score: int = 100,
                 d_label: int = 100, label_dropout: float = 0.0, n_tags: int = 0,
                 d_tag: int = 50, word_dropout: float = 0.3, tag_dropout: float = 0.3) -> None:
        super().__init__()
        self.encoder = SpaEncoder(d_in, encoder, d_scan=d_scan, d_rescan=d_rescan,
                                  d_attention=d_attention, n_tags=n_tags, d_tag=d_tag,
                                  word_dropout=word_dropout, tag_dropout=tag_dropout)
        self.arc_scorer = HeadSelectionScorer(self.encoder.d_out, score, d_score)
        self.label_scorer = BiaffineLabelScorer(self.encoder.d_out, n_labels, d_label, label_dropout)

    def forward(self, tokens: Tensor, lengths: Tensor, tag_ids: Optional[Tensor] = None) -> SpaGraphOutput:
        reprs = self.encoder(tokens, lengths, tag_ids)
        return SpaGraphOutput(reprs, self.arc_scorer(reprs))

    def label_scores(self, reprs: Tensor, heads: Tensor) -> Tensor:
        """``(B, T + 1, n_labels)`` label scores of each word for its head in ``heads`` ``(B, T + 1)``."""
        return self.label_scorer(reprs, heads)

    def loss(self, tokens: Tensor, lengths: Tensor, gold_heads: Tensor, gold_labels: Tensor,
             tag_ids: Optional[Tensor] = None, reduction: Reduction = "mean") -> Tensor:
        """Eq. 10 plus the label cross-entropy: per-sentence sums, averaged over sentences
        (``"mean"``). ``gold_heads``/``gold_labels`` ``(B, T + 1)``, index 0 and padding ignored,
        -1 = unknown (left out); see :func:`~spacy_lal.nn.biaffine.dependency_loss`."""
        out = self(tokens, lengths, tag_ids)
        labels = self.label_scores(out.reprs, gold_heads)
        return dependency_loss(out.arc_scores, lengths, gold_heads, labels, gold_labels, reduction)[0]


# ----------------------------------------------------------------------------- transition-based


class TransitionClassifier(nn.Module):
    """The transition classifier, eq. 4-6: ``y = W_2 max(0, W_1 phi(c) + b_1) + b_2`` with
    ``phi(c) = r_s3 (+) r_s2 (+) r_s1 (+) r_b1``; an empty slot takes a learned padding vector of its
    own.

    ``W_1 phi(c)`` is computed as ``sum_slot W_1^slot r_slot`` from per-position projections
    (:meth:`project`, once per batch), so scoring a configuration costs a gather and a sum: the
    same function, and much cheaper when greedy decoding scores a batch ``2n`` times.

    Args:
        d_in: size of ``r``.
        n_transitions: number of transitions (``ArcStandard(L).n_transitions`` = 1 + 2L; the
            paper's unlabelled classifier has 3).
        d_hidden: hidden size ``d_h``.
    """

    N_SLOTS = 4  # s3, s2, s1, b1

    def __init__(self, d_in: int, n_transitions: int, d_hidden: int = 200) -> None:
        super().__init__()
        self.d_in = d_in
        self.padding = nn.Parameter(torch.randn(self.N_SLOTS, d_in) * d_in**-0.5)
        self.hidden = nn.Linear(self.N_SLOTS * d_in, d_hidden)
        self.output = nn.Linear(d_hidden, n_transitions)

    def project(self, reprs: Tensor) -> Tensor:
        """``(B, T + 1, d_in)`` -> ``(B * (T + 1) + 1, 4, d_hidden)``: ``W_1^slot r_p`` for every
        position and slot, the last row holding the padding vectors' projections."""
        B, T1, d = reprs.shape
        if d != self.d_in:
            raise ValueError(f"representations must have size {self.d_in}, got {d}")
        W = self.hidden.weight.view(-1, self.N_SLOTS, d)  # phi = [r_s3; r_s2; r_s1; r_b1]
        positions = torch.einsum("bd,hsd->bsh", reprs.reshape(B * T1, d), W)
        padding = torch.einsum("sd,hsd->sh", self.padding, W)
        return torch.cat([positions, padding.unsqueeze(0)], dim=0)

    def score(self, table: Tensor, n_positions: int, rows: Tensor, features: Tensor) -> Tensor:
        """Scores ``y`` (eq. 5) ``(K, n_transitions)`` of configurations given by ``rows`` ``(K,)``
        (sentence of each) and ``features`` ``(K, 4)`` (positions of s3, s2, s1, b1, -1 = empty);
        ``table`` from :meth:`project`, ``n_positions`` = ``T + 1``."""
        if features.dim() != 2 or features.shape[1] != self.N_SLOTS or rows.shape != features.shape[:1]:
            raise ValueError(
                f"features must be (K, 4) and rows (K,), got {tuple(features.shape)} and {tuple(rows.shape)}"
            )
        n_rows = (table.shape[0] - 1) // n_positions
        if features.numel() and (int(features.max()) >= n_positions or int(features.min()) < -1
                                 or int(rows.min()) < 0 or int(rows.max()) >= n_rows):
            raise ValueError(
                f"configuration features must be positions in [-1, {n_positions}) of sentences "
                f"in [0, {n_rows})"
            )
        index = torch.where(features >= 0, rows.unsqueeze(1) * n_positions + features,
                            torch.full_like(features, table.shape[0] - 1))
        slots = torch.arange(self.N_SLOTS, device=table.device)
        hidden = table[index, slots].sum(1) + self.hidden.bias
        return self.output(torch.relu(hidden))

    def forward(self, reprs: Tensor, rows: Tensor, features: Tensor) -> Tensor:
        """Scores of the configurations ``(rows, features)`` of a batch with representations
        ``reprs`` ``(B, T + 1, d_in)``; see :meth:`score`."""
        return self.score(self.project(reprs), reprs.shape[1], rows.long(), features.long())

    def scorer(self, reprs: Tensor) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The ``score(rows, features)`` callback of ``spacy_lal.decode.arc_standard_greedy_batch``
        for a batch with representations ``reprs`` (no gradients; NumPy in and out)."""
        with torch.no_grad():
            table = self.project(reprs)
        n_positions = reprs.shape[1]

        def score(rows: np.ndarray, features: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                y = self.score(table, n_positions, torch.as_tensor(rows, device=table.device),
                               torch.as_tensor(features, device=table.device))
            return to_host(y)

        return score


def transition_loss(scores: Tensor, gold: Tensor, rows: Tensor, n_sentences: int,
                    reduction: Reduction = "mean") -> Tensor:
    """Eq. 7: ``-sum_i ln P_{a_i}`` over the configurations of each sentence (softmax of eq. 6 over
    all transitions), averaged over the sentences with ``"mean"`` (the scale of
    :func:`~spacy_lal.nn.biaffine.dependency_loss`); ``"sum"``; ``"none"``: ``(n_sentences,)``.

    Args:
        scores: ``(K, n_transitions)``; gold: ``(K,)`` gold transitions; rows: ``(K,)`` sentence of
            each configuration, in ``[0, n_sentences)``.
    """
    nll = nn.functional.cross_entropy(scores, gold.long(), reduction="none")
    per_sentence = nll.new_zeros(n_sentences).index_add(0, rows.long(), nll)
    return reduce_sentences(per_sentence, reduction)


class SpaTransitionParser(nn.Module):
    """Transition-based SPA-DP: :class:`SpaEncoder` and :class:`TransitionClassifier`.

    Training is teacher-forced: the configurations of the static oracle
    (``spacy_lal.decode.arc_standard_oracle_batch``: rows, features, transitions) are all scored
    at once. Decoding: ``arc_standard_greedy_batch(lengths, model.scorer(reprs), system)``.

    Args:
        d_in: size of the token vectors.
        n_transitions: ``ArcStandard(n_labels).n_transitions``.
        d_hidden: classifier hidden size.
        encoder, d_scan, d_rescan, ...: :class:`SpaEncoder` (paper: 700 and 700).
    """

    def __init__(self, d_in: int, n_transitions: int, *, encoder: EncoderKind = "bot",
                 d_scan: int = 700, d_rescan: int = 700, d_attention: int = 100,
                 d_hidden: int = 200, n_tags: int = 0, d_tag: int = 50,
                 word_dropout: float = 0.3, tag_dropout: float = 0.3) -> None:
        super().__init__()
        self.encoder = SpaEncoder(d_in, encoder, d_scan=d_scan, d_rescan=d_rescan,
                                  d_attention=d_attention, n_tags=n_tags, d_tag=d_tag,
                                  word_dropout=word_dropout, tag_dropout=tag_dropout)
        self.classifier = TransitionClassifier(self.encoder.d_out, n_transitions, d_hidden)

    def forward(self, tokens: Tensor, lengths: Tensor, tag_ids: Optional[Tensor] = None) -> Tensor:
        """The word representations ``(B, T + 1, d)``."""
        return self.encoder(tokens, lengths, tag_ids)

    def scorer(self, reprs: Tensor) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        return self.classifier.scorer(reprs)

    def loss(self, tokens: Tensor, lengths: Tensor, rows: Tensor, features: Tensor,
             gold_transitions: Tensor, tag_ids: Optional[Tensor] = None,
             reduction: Reduction = "mean") -> Tensor:
        """Eq. 7 over the oracle configurations (``rows``, ``features``, ``gold_transitions``, as
        ``OracleBatch`` gives them) of the batch."""
        reprs = self(tokens, lengths, tag_ids)
        scores = self.classifier(reprs, rows, features)
        return transition_loss(scores, gold_transitions, rows, tokens.shape[0], reduction)
