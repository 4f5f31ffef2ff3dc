"""The encoders of sequence-preserved attention dependency parsing (Zhou et al. 2018, "RNN-Based
Sequence-Preserved Attention for Dependency Parsing", SPA-DP), plain torch.

A sentence of n words is read as positions ``0 .. n``, 0 being the artificial ROOT ``w_0`` (a
learned vector), so every representation tensor is ``(B, T + 1, d)`` with index 0 = root.

* SCAN (eq. 1-3, 11): a BiLSTM over the token vectors ``t_i``, optionally concatenated with tag
  embeddings (eq. 1); dropout on both embeddings (the paper: 30% each). :class:`Scan`.
* RESCAN (eq. 15-26): for every word ``i`` a GRU first reads ``h_i`` (the target, eq. 15-18 with
  ``i = 0``) and then its left context and, with a second GRU, its right context, either from the
  target outwards (ToB, eq. 25) or from the sentence boundary inwards (BoT, eq. 26); the final
  GRU states are the attentional representation (eq. 19, 23, 24). :class:`SequencePreservedRescan`.
  Baseline: vanilla attention (eq. 12-14), :class:`VanillaAttention`.
* The word representation is ``r_i = SCAN_i (+) RESCAN_i`` (eq. 27); :class:`SpaEncoder` picks
  the variant: ``"birnn"`` (SCAN only), ``"attention"``, ``"tob"`` or ``"bot"`` (Table 2).

The parsers on top are in :mod:`spacy_lal.nn.spa_parsers`.
"""

from __future__ import annotations

from typing import List, Literal, Optional

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .dropout import Dropout
from .embeddings import lengths_to_mask

__all__ = [
    "ENCODERS",
    "Scan",
    "SequencePreservedRescan",
    "SpaEncoder",
    "VanillaAttention",
]

EncoderKind = Literal["birnn", "attention", "tob", "bot"]
ENCODERS = ("birnn", "attention", "tob", "bot")


def _check_batch(tokens: Tensor, lengths: Tensor) -> None:
    if tokens.dim() != 3:
        raise ValueError(f"token vectors must be (B, T, d), got shape {tuple(tokens.shape)}")
    if lengths.shape != (tokens.shape[0],):
        raise ValueError(f"lengths must be ({tokens.shape[0]},), got shape {tuple(lengths.shape)}")
    if lengths.numel() and (int(lengths.min()) < 0 or int(lengths.max()) > tokens.shape[1]):
        raise ValueError(f"lengths must be in [0, {tokens.shape[1]}], got {lengths.tolist()}")


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
        """``(B, T, d_in)`` word vectors -> ``(B, T + 1, d_out)``, index 0 = ROOT, zero at padding.
        ``lengths`` may be on another device than ``tokens`` (the masks are built on ``tokens``')."""
        lengths = lengths.to(tokens.device)
        h = self.scan(tokens, lengths, tag_ids)
        if self.rescan is None:
            return h
        return torch.cat([h, self.rescan(h, lengths)], dim=-1)

