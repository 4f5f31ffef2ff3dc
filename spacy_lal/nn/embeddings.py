"""Input representations of the encoder (Kitaev & Klein 2018, sec. 2.2, 3 and 5.1).

The encoder input of position ``t`` is the factored vector ``z_t = [c_t ; p_t]`` (K&K sec. 3):

* ``c_t`` (content, ``d_content`` wide) = projection of the upstream token vector (any spaCy
  tok2vec output) + optional POS-tag embedding + optional CharLSTM word encoding (sec. 5.1);
* ``p_t`` (position, ``d_positional`` wide) = a learned position embedding (appendix A.3: learned
  embeddings worked better than sinusoids).

Every sentence is wrapped in a *start* and a *stop* sentinel (K&K sec. 2.2) so that the fencepost
differences of the span representation (Mrini et al. eq. 5) are defined at both sentence edges; the
sentinels get learned content vectors. For a batch padded to ``T`` words the encoder sees ``T + 2``
positions laid out as ``[start, w_1 .. w_n, stop, pad ..]`` per sentence (the stop token sits at
index ``n + 1``, which differs per sentence).
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence

from .dropout import Dropout, FeatureDropout

__all__ = [
    "CharLSTM",
    "PositionEmbedding",
    "InputEmbedding",
    "lengths_to_mask",
    "sentinel_mask",
]


def lengths_to_mask(lengths: Union[Tensor, Sequence[int]], max_len: Optional[int] = None) -> Tensor:
    """Boolean mask ``(B, max_len)``, True where ``position < length`` (``max_len`` defaults to
    the longest length)."""
    lengths = torch.as_tensor(lengths, dtype=torch.long)
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() else 0
    positions = torch.arange(max_len, device=lengths.device)
    return positions.unsqueeze(0) < lengths.unsqueeze(1)


def sentinel_mask(lengths: Tensor, n_words: int) -> Tensor:
    """Mask ``(B, n_words + 2)`` of the valid encoder positions (start, words, stop)."""
    return lengths_to_mask(lengths + 2, n_words + 2)


class CharLSTM(nn.Module):
    """Character-level BiLSTM word encoder (Kitaev & Klein sec. 5.1, "CharLSTM").

    Each word is read independently by a bidirectional LSTM over its characters; the final forward
    and backward hidden states are concatenated into a ``d_out`` vector that is used in place of
    (or added to) the tag embedding. Paper values: character embeddings of size 64, dropout 0.2 on
    the character embeddings; the output is ``d_content`` (512 in the paper).

    Args:
        n_chars: size of the character vocabulary, id 0 is padding.
        d_out: output size (even: half per direction).
        d_char: character embedding size.
        char_dropout: dropout on the character embeddings (paper: 0.2).
    """

    def __init__(self, n_chars: int, d_out: int, d_char: int = 64, char_dropout: float = 0.2) -> None:
        super().__init__()
        if d_out % 2:
            raise ValueError(f"CharLSTM d_out must be even (one half per direction), got {d_out}")
        self.d_out = d_out
        self.embed = nn.Embedding(n_chars, d_char, padding_idx=0)
        self.dropout = Dropout(char_dropout)
        self.lstm = nn.LSTM(d_char, d_out // 2, batch_first=True, bidirectional=True)

    def forward(self, char_ids: Tensor, word_mask: Tensor) -> Tensor:
        """Encode words.

        Args:
            char_ids: ``(B, T, C)`` long, character ids right-padded with 0.
            word_mask: ``(B, T)`` bool, the real words (padding words are not run through the LSTM).

        Returns:
            ``(B, T, d_out)``; zero at padding words.
        """
        B, T, _ = char_ids.shape
        out = char_ids.new_zeros((B, T, self.d_out), dtype=self.embed.weight.dtype)
        words = char_ids[word_mask]  # (N, C): run only real words, batched together
        if words.shape[0] == 0:
            return out
        # A word with no characters (should not happen) is read as one padding character so that
        # packing is defined; pack_padded_sequence needs the lengths on the CPU.
        n_chars = (words != 0).sum(-1).clamp(min=1)
        packed = pack_padded_sequence(
            self.dropout(self.embed(words)), n_chars.cpu(), batch_first=True, enforce_sorted=False
        )
        _, (h_n, _) = self.lstm(packed)  # h_n: (2, N, d_out/2), already in the input order
        out[word_mask] = torch.cat([h_n[0], h_n[1]], dim=-1)
        return out


class PositionEmbedding(nn.Module):
    """Learned position embeddings ``p_t`` for positions ``0 .. max_length + 1`` (K&K appendix A.3).

    ``max_length`` counts words; the two extra positions are the start/stop sentinels.
    """

    def __init__(self, max_length: int, d_positional: int) -> None:
        super().__init__()
        self.max_length = max_length
        self.embed = nn.Embedding(max_length + 2, d_positional)

    def forward(self, n_positions: int, device: torch.device) -> Tensor:
        """Return ``(n_positions, d_positional)``; positions beyond the table (only ever padding,
        the caller checks the real lengths) reuse the last row."""
        positions = torch.arange(n_positions, device=device).clamp(max=self.max_length + 1)
        return self.embed(positions)


class InputEmbedding(nn.Module):
    """Build the factored encoder input ``[content ; position]`` with start/stop sentinels.

    Args:
        d_input: size of the upstream token vectors.
        d_content: content half of ``d_model`` (paper: 512).
        d_positional: position half of ``d_model`` (paper: 512).
        max_length: longest sentence (in words) the position table covers.
        input_dropout: feature dropout on the projected token vectors (paper, word embeddings: 0.4).

    Tag embeddings and the CharLSTM are token features of the spaCy architecture
    (``spacy-lal.TagEmbed.v1``, ``spacy-lal.CharLSTM.v1``), concatenated with the tok2vec output
    before they reach this layer: one input route for every model.
    """

    def __init__(
        self,
        d_input: int,
        d_content: int,
        d_positional: int,
        max_length: int,
        *,
        input_dropout: float = 0.2,
    ) -> None:
        super().__init__()
        self.d_content = d_content
        self.d_positional = d_positional
        self.max_length = max_length
        self.project = nn.Linear(d_input, d_content)
        self.input_dropout = FeatureDropout(input_dropout)
        # Learned content vectors of the start (row 0) and stop (row 1) sentinels.
        self.sentinels = nn.Parameter(torch.randn(2, d_content) * d_content**-0.5)
        self.positions = PositionEmbedding(max_length, d_positional)
        # One LayerNorm over the whole factored vector, as in the reference implementation of the
        # self-attentive parser (normalisation does not multiply by a parameter matrix, so it does
        # not break the factoring of K&K sec. 3).
        self.layer_norm = nn.LayerNorm(d_content + d_positional)

    def forward(self, token_vectors: Tensor, lengths: Tensor) -> Tensor:
        """Args:
            token_vectors: ``(B, T, d_input)`` float.
            lengths: ``(B,)`` long, number of words per sentence (``<= T``).

        Returns:
            ``(B, T + 2, d_content + d_positional)``: ``[start, w_1 .. w_n, stop, pad ..]``.
        """
        B, T, _ = token_vectors.shape
        content = self.input_dropout(self.project(token_vectors))

        # Lay out [start, words, stop, pad] without Python loops: shift the words right by one and
        # place the sentinels with position masks (the stop index n + 1 differs per sentence).
        pos = torch.arange(T + 2, device=token_vectors.device).unsqueeze(0)  # (1, T+2)
        n = lengths.unsqueeze(1)
        is_word = ((pos >= 1) & (pos <= n)).unsqueeze(-1)
        is_start = (pos == 0).unsqueeze(-1).to(content.dtype)
        is_stop = (pos == n + 1).unsqueeze(-1).to(content.dtype)
        shifted = torch.nn.functional.pad(content, (0, 0, 1, 1))  # (B, T+2, d_content)
        content = (
            torch.where(is_word, shifted, torch.zeros_like(shifted))
            + is_start * self.sentinels[0]
            + is_stop * self.sentinels[1]
        )
        position = self.positions(T + 2, token_vectors.device).unsqueeze(0).expand(B, -1, -1)
        return self.layer_norm(torch.cat([content, position.to(content.dtype)], dim=-1))
