"""Sequence-preserved attention dependency parsing (Zhou et al. 2018, "RNN-Based Sequence-Preserved
Attention for Dependency Parsing", SPA-DP), plain torch.

A sentence of n words is read as positions ``0 .. n``, 0 being the artificial ROOT ``w_0`` (a
learned vector), so every representation tensor is ``(B, T + 1, d)`` with index 0 = root, and arc
scores follow the decoders' layout (``scores[b, d, h]``, :mod:`spacy_lal.nn.biaffine`).

* SCAN (eq. 1-3, 11): a BiLSTM over the token vectors ``t_i``, optionally concatenated with tag
  embeddings (eq. 1); dropout on both embeddings (the paper: 30% each). :class:`Scan`.
* RESCAN (eq. 15-26): for every word ``i`` a GRU first reads ``h_i`` (the target, eq. 15-18 with
  ``i = 0``) and then its left context and, with a second GRU, its right context, either from the
  target outwards (ToB, eq. 25) or from the sentence boundary inwards (BoT, eq. 26); the final
  GRU states are the attentional representation (eq. 19, 23, 24). :class:`SequencePreservedRescan`.
  Baseline: vanilla attention (eq. 12-14), :class:`VanillaAttention`.
* The word representation is ``r_i = SCAN_i (+) RESCAN_i`` (eq. 27); :class:`SpaEncoder` picks
  the variant: ``"birnn"`` (SCAN only), ``"attention"``, ``"tob"`` or ``"bot"`` (Table 2).
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

from typing import Callable, List, Literal, NamedTuple, Optional

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .biaffine import BiaffineLabelScorer, dependency_loss
from .dropout import Dropout
from .embeddings import lengths_to_mask

__all__ = [
    "ENCODERS",
    "HeadSelectionScorer",
    "Scan",
    "SequencePreservedRescan",
    "SpaEncoder",
    "SpaGraphOutput",
    "SpaGraphParser",
    "SpaTransitionParser",
    "TransitionClassifier",
    "VanillaAttention",
    "transition_loss",
]

EncoderKind = Literal["birnn", "attention", "tob", "bot"]
ENCODERS = ("birnn", "attention", "tob", "bot")
Reduction = Literal["mean", "sum", "none"]


def _check_batch(tokens: Tensor, lengths: Tensor) -> None:
    if tokens.dim() != 3:
        raise ValueError(f"token vectors must be (B, T, d), got shape {tuple(tokens.shape)}")
    if lengths.shape != (tokens.shape[0],):
        raise ValueError(f"lengths must be ({tokens.shape[0]},), got shape {tuple(lengths.shape)}")
    if lengths.numel() and (int(lengths.min()) < 0 or int(lengths.max()) > tokens.shape[1]):
        raise ValueError(f"lengths must be in [0, {tokens.shape[1]}], got {lengths.tolist()}")


def _reduce(per_sentence: Tensor, reduction: Reduction) -> Tensor:
    if reduction == "mean":
        return per_sentence.mean()
    if reduction == "sum":
        return per_sentence.sum()
    if reduction == "none":
        return per_sentence
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


# ----------------------------------------------------------------------------- SCAN


class Scan(nn.Module):
    """The SCAN step, eq. 11 (= eq. 2-3): ``h_i = RNN^F(t_0..t_i) (+) RNN^B(t_i..t_n)``, a BiLSTM (the
    paper found LSTM cells better than GRUs here) over ``t_i`` of eq. 1.

    ``t_i`` is the upstream token vector, concatenated with a tag embedding when ``n_tags > 0``;
    ``t_0`` (ROOT) is a learned vector and the extra tag id ``n_tags``.

    Args:
        d_in: size of the token vectors.
        d_hidden: LSTM size per direction (output ``2 * d_hidden``).
        n_tags: number of tags (0: no tag embeddings); tag ids are in ``[0, n_tags)``.
        d_tag: tag embedding size (paper: 50).
        word_dropout, tag_dropout: dropout on the token vectors and on the tag embeddings (paper:
            0.3 each).
        n_layers: stacked BiLSTM layers (paper: 1).
    """

    def __init__(self, d_in: int, d_hidden: int, *, n_tags: int = 0, d_tag: int = 50,
                 word_dropout: float = 0.3, tag_dropout: float = 0.3, n_layers: int = 1) -> None:
        super().__init__()
        self.n_tags = n_tags
        self.root = nn.Parameter(torch.randn(d_in) * d_in**-0.5)
        self.tag_embed: Optional[nn.Embedding] = nn.Embedding(n_tags + 1, d_tag) if n_tags > 0 else None
        self.word_dropout = Dropout(word_dropout)
        self.tag_dropout = Dropout(tag_dropout)
        d_t = d_in + (d_tag if n_tags > 0 else 0)
        self.lstm = nn.LSTM(d_t, d_hidden, num_layers=n_layers, batch_first=True, bidirectional=True)
        self.d_out = 2 * d_hidden

    def forward(self, tokens: Tensor, lengths: Tensor, tag_ids: Optional[Tensor] = None) -> Tensor:
        """Args:
            tokens: ``(B, T, d_in)`` vectors of words ``1 .. T``.
            lengths: ``(B,)`` long, words per sentence.
            tag_ids: ``(B, T)`` long (required iff the module embeds tags; padding ignored).

        Returns:
            ``(B, T + 1, 2 d_hidden)``, index 0 = ROOT, zero at padding positions.
        """
        _check_batch(tokens, lengths)
        B, T, _ = tokens.shape
        root = self.root.to(tokens.dtype).expand(B, 1, -1)
        t = torch.cat([root, self.word_dropout(tokens)], dim=1)
        if self.tag_embed is not None:
            if tag_ids is None:
                raise ValueError("this Scan embeds tags: tag_ids is required")
            if tag_ids.shape != (B, T):
                raise ValueError(f"tag_ids must be {(B, T)}, got {tuple(tag_ids.shape)}")
            real = lengths_to_mask(lengths, T)
            tag_ids = tag_ids.long().masked_fill(~real, 0)
            if tag_ids.numel() and (int(tag_ids.min()) < 0 or int(tag_ids.max()) >= self.n_tags):
                raise ValueError(f"tag ids must be in [0, {self.n_tags})")
            root_tag = tag_ids.new_full((B, 1), self.n_tags)
            tags = self.tag_embed(torch.cat([root_tag, tag_ids], dim=1))
            t = torch.cat([t, self.tag_dropout(tags)], dim=-1)
        elif tag_ids is not None:
            raise ValueError("tag_ids given, but this Scan was built without tags (n_tags=0)")
        packed = pack_padded_sequence(t, (lengths + 1).cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=T + 1)
        return h


# ----------------------------------------------------------------------------- RESCAN


def _rescan_positions(lengths: Tensor, n_positions: int, direction: str, side: str):
    """For every target ``(b, i)``, ``i <= n_b``, the positions its GRU reads, in order.

    Returns ``(index, seq_lengths, b, i)``: ``index`` ``(K, L)`` long, flat indices into the
    ``(B * n_positions)`` rows of ``h`` (padded with 0), ``seq_lengths`` ``(K,)``, and the
    target's sentence and position. Eq. 25 (ToB) and eq. 26 (BoT):

    - ToB left ``[i, i-1, .., 0]``, right ``[i, i+1, .., n]``;
    - BoT left ``[i, 0, 1, .., i-1]``, right ``[i, n, n-1, .., i+1]``.
    """
    valid = lengths_to_mask(lengths + 1, n_positions)
    b, i = valid.nonzero(as_tuple=True)
    n = lengths[b]
    seq_lengths = i + 1 if side == "left" else n - i + 1
    t = torch.arange(int(seq_lengths.max()), device=lengths.device).unsqueeze(0)  # time step
    i_, n_ = i.unsqueeze(1), n.unsqueeze(1)
    if direction == "tob":
        pos = i_ - t if side == "left" else i_ + t
    else:
        pos = torch.where(t == 0, i_, t - 1 if side == "left" else n_ - t + 1)
    inside = t < seq_lengths.unsqueeze(1)
    index = torch.where(inside, b.unsqueeze(1) * n_positions + pos, torch.zeros_like(pos))
    return index, seq_lengths, b, i


def _gru_last_states(gru: nn.GRU, inputs: Tensor, index: Tensor, seq_lengths: Tensor) -> Tensor:
    """The last state of ``gru`` (one layer, zero initial state) over each sequence of rows of
    ``inputs``: sequence ``k`` reads ``inputs[index[k, t]]`` for ``t < seq_lengths[k]``.

    Every position is read by ``O(n)`` sequences, so its input projection ``W_ih x + b_ih`` is
    computed once and gathered, and only the recurrent part runs per step: the same function as
    ``gru`` over the gathered sequences (``_gru_last_states`` == ``gru(...)[1]``), a fraction of
    its cost when the input is wider than the state. The steps run over all sequences at once,
    sorted by length so that the sequences still running are a prefix (the packed layout).
    """
    projected = nn.functional.linear(inputs, gru.weight_ih_l0, gru.bias_ih_l0)
    packed = pack_padded_sequence(index, seq_lengths.cpu(), batch_first=True, enforce_sorted=False)
    sizes = packed.batch_sizes.tolist()
    state = projected.new_zeros(sizes[0], gru.hidden_size)
    finished: List[Tensor] = []
    offset = 0
    for t, size in enumerate(sizes):
        x_r, x_z, x_n = projected.index_select(0, packed.data[offset:offset + size]).chunk(3, dim=-1)
        offset += size
        state = state[:size]
        h_r, h_z, h_n = nn.functional.linear(state, gru.weight_hh_l0, gru.bias_hh_l0).chunk(3, dim=-1)
        reset = torch.sigmoid(x_r + h_r)  # G_tau, eq. 20
        update = torch.sigmoid(x_z + h_z)  # 1 - a_i, eq. 16/21
        candidate = torch.tanh(x_n + reset * h_n)  # m~_i, eq. 18/22
        state = (1 - update) * candidate + update * state  # m_i, eq. 17
        finished.append(state[sizes[t + 1] if t + 1 < len(sizes) else 0:])
    return torch.cat(finished[::-1]).index_select(0, packed.unsorted_indices)


class SequencePreservedRescan(nn.Module):
    """The RESCAN step with sequence-preserved attention, eq. 15-26.

    The attention of eq. 15-22 is a GRU (eq. 23): the reset gate is ``G_tau``, the update gate the
    attention ``a_i`` (eq. 16, 21), the candidate state the local representation ``m~_i`` (eq. 18,
    22) and the hidden state the attentional representation ``m_i`` (eq. 17). Its first input is
    the target ``u = h_i`` read from a zero state (the ``i = 0`` cases of eq. 15-18), then the
    context; the result is the last state (eq. 19). Left and right contexts have their own GRU
    (eq. 24), read target-to-boundary (``"tob"``, eq. 25) or boundary-to-target (``"bot"``, eq. 26).

    All targets of all sentences (ROOT included: its representation is used as a head and on the
    stack) form one batch of sequences per side, so the ``O(n^2)`` GRU steps of a sentence run as
    ``n + 1`` batched steps (:func:`_gru_last_states`). Memory: ``O(sum_b n_b^2 * d_hidden)``.

    Args:
        d_in: size of the SCAN output ``h``.
        d_hidden: GRU size per side (paper: 100 graph-based, 700 transition-based).
        direction: ``"tob"`` or ``"bot"``.
    """

    def __init__(self, d_in: int, d_hidden: int, direction: Literal["tob", "bot"] = "bot") -> None:
        super().__init__()
        if direction not in ("tob", "bot"):
            raise ValueError(f"direction must be 'tob' or 'bot', got {direction!r}")
        self.direction = direction
        self.left = nn.GRU(d_in, d_hidden)
        self.right = nn.GRU(d_in, d_hidden)
        self.d_out = 2 * d_hidden

    def forward(self, h: Tensor, lengths: Tensor) -> Tensor:
        """Args:
            h: ``(B, T + 1, d_in)`` SCAN output, index 0 = ROOT.
            lengths: ``(B,)`` words per sentence.

        Returns:
            ``(B, T + 1, 2 d_hidden)``: ``RESCAN_L (+) RESCAN_R`` (eq. 24), zero at padding.
        """
        B, T1, d = h.shape
        out = h.new_zeros(B, T1, self.d_out)
        if B == 0:
            return out
        flat = h.reshape(B * T1, d)
        halves = []
        for side, gru in (("left", self.left), ("right", self.right)):
            index, seq_lengths, b, i = _rescan_positions(lengths, T1, self.direction, side)
            halves.append(_gru_last_states(gru, flat, index, seq_lengths))
        out[b, i] = torch.cat(halves, dim=-1)
        return out


class VanillaAttention(nn.Module):
    """Vanilla attention, eq. 12-14 (the paper's baseline): ``s_ij = MLP(h_i (+) h_j)`` with one tanh
    hidden layer, ``a_ij = softmax_j s_ij`` over positions ``0 .. n``, ``m_i = sum_j a_ij h_j``.

    Args:
        d_in: size of ``h``.
        d_hidden: MLP hidden size.
    """

    def __init__(self, d_in: int, d_hidden: int = 100) -> None:
        super().__init__()
        # W (h_i (+) h_j) = W_i h_i + W_j h_j: the pair scores need no (T, T, 2 d_in) concatenation.
        self.query = nn.Linear(d_in, d_hidden)
        self.key = nn.Linear(d_in, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)
        self.d_out = d_in

    def forward(self, h: Tensor, lengths: Tensor) -> Tensor:
        """``(B, T + 1, d_in)`` -> ``m``, ``(B, T + 1, d_in)``, zero at padding."""
        T1 = h.shape[1]
        valid = lengths_to_mask(lengths + 1, T1)
        scores = self.v(torch.tanh(self.query(h).unsqueeze(2) + self.key(h).unsqueeze(1))).squeeze(-1)
        attention = torch.softmax(scores.masked_fill(~valid.unsqueeze(1), float("-inf")), dim=-1)
        return (attention @ h) * valid.unsqueeze(-1).to(h.dtype)


class SpaEncoder(nn.Module):
    """Word representations ``r_0 .. r_n`` (eq. 27): SCAN, then one of the paper's variants (Table 2).

    - ``"birnn"``: ``r_i = h_i`` (the BiRNN baseline);
    - ``"attention"``: ``r_i = h_i (+) m_i`` with vanilla attention (eq. 12-14);
    - ``"tob"`` / ``"bot"``: ``r_i = h_i (+) RESCAN_i`` (eq. 24-27).

    Args:
        d_in: size of the token vectors.
        encoder: the variant.
        d_scan: BiLSTM size per direction.
        d_rescan: rescan GRU size per side (tob/bot).
        d_attention: MLP hidden size of vanilla attention.
        n_tags, d_tag, word_dropout, tag_dropout, scan_layers: see :class:`Scan`.
    Attribute ``d_out``: size of ``r``.
    """

    def __init__(self, d_in: int, encoder: EncoderKind = "bot", *, d_scan: int = 400,
                 d_rescan: int = 100, d_attention: int = 100, n_tags: int = 0, d_tag: int = 50,
                 word_dropout: float = 0.3, tag_dropout: float = 0.3, scan_layers: int = 1) -> None:
        super().__init__()
        if encoder not in ENCODERS:
            raise ValueError(f"encoder must be one of {ENCODERS}, got {encoder!r}")
        self.kind = encoder
        self.scan = Scan(d_in, d_scan, n_tags=n_tags, d_tag=d_tag, word_dropout=word_dropout,
                         tag_dropout=tag_dropout, n_layers=scan_layers)
        self.rescan: Optional[nn.Module] = None
        if encoder in ("tob", "bot"):
            self.rescan = SequencePreservedRescan(self.scan.d_out, d_rescan, encoder)
        elif encoder == "attention":
            self.rescan = VanillaAttention(self.scan.d_out, d_attention)
        self.d_out = self.scan.d_out + (self.rescan.d_out if self.rescan is not None else 0)

    def forward(self, tokens: Tensor, lengths: Tensor, tag_ids: Optional[Tensor] = None) -> Tensor:
        """``(B, T, d_in)`` word vectors -> ``(B, T + 1, d_out)``, index 0 = ROOT, zero at padding."""
        h = self.scan(tokens, lengths, tag_ids)
        if self.rescan is None:
            return h
        return torch.cat([h, self.rescan(h, lengths)], dim=-1)


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
            return y.float().cpu().numpy()

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
    return _reduce(per_sentence, reduction)


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
