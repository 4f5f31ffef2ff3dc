"""A BiLSTM that reads each sentence of a padded batch only up to its length.

``torch.nn.LSTM`` over a padded batch lets the backward direction start on the padding of
every shorter sentence, so a sentence's vectors depend on the longest sentence it is batched
with (spaCy's ``spacy.TorchBiLSTMEncoder.v1`` runs it that way). :class:`PackedLSTM` packs the
batch first: the same parameters, and outputs that do not depend on the batch.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

__all__ = ["PackedLSTM"]


class PackedLSTM(nn.LSTM):
    """``nn.LSTM`` (same parameters and state dict) whose forward takes the lengths.

    ``forward(x, lengths)``: ``x`` ``(T, B, d_in)`` time-major and right-padded, ``lengths``
    ``(B,)``; returns ``(y, None)`` with ``y`` ``(T, B, d_out)``, zero past each length.
    """

    def forward(self, x: Tensor, lengths: Optional[Tensor] = None) -> Tuple[Tensor, None]:  # type: ignore[override]
        if lengths is None:
            return super().forward(x)[0], None
        packed = pack_padded_sequence(x, lengths.cpu(), enforce_sorted=False)
        y, _ = super().forward(packed)
        return pad_packed_sequence(y, total_length=x.shape[0])[0], None
