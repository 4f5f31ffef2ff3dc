"""Sinusoidal timing signal (position encoding) of Vaswani et al. (2017).

DeepAtt (Tan et al., 2018, section "Position Encoding", eq. 11-12) adds this parameter-free signal
to the input of the first layer:

    timing(t, 2i)     = sin(t / 10000^(2i/d))
    timing(t, 2i + 1) = cos(t / 10000^(2i/d))

Channels are interleaved exactly as in the equations (sin on even channels, cos on odd ones), not
concatenated as in some tensor2tensor variants. Positions are 0-based.

Long inputs: the signal is defined for every position, so there is no maximum length. The table is
computed lazily and cached; a longer input than any seen before just extends the cache. What the
model does with positions it never saw in training is up to how well it learned to use relative
offsets (the paper does not test extrapolation). Positions are computed in float64 before casting,
so the phase of the lowest-wavelength channels stays accurate for long documents (float32 loses
precision of ``t * freq`` once t is in the millions).
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["timing_signal", "TimingSignal"]


def timing_signal(
    length: int,
    channels: int,
    *,
    max_timescale: float = 1.0e4,
    device: torch.device | str | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Return the timing signal of eq. 11-12 as a ``(length, channels)`` tensor.

    ``max_timescale`` is the 10000 of the equations. An odd ``channels`` gets a last sin channel
    (its cos partner would be channel ``channels``, which does not exist).
    """
    if length < 0 or channels < 0:
        raise ValueError(f"length and channels must be >= 0, got {length}, {channels}")
    # float64 for the phase: see the module docstring on long inputs.
    pos = torch.arange(length, dtype=torch.float64, device=device).unsqueeze(1)  # (T, 1)
    two_i = torch.arange(0, channels, 2, dtype=torch.float64, device=device)  # (ceil(C/2),)
    inv_freq = torch.exp(-two_i / max(channels, 1) * math.log(max_timescale))  # 10000^(-2i/d)
    angles = pos * inv_freq  # (T, ceil(C/2))
    out = torch.empty(length, channels, dtype=torch.float64, device=device)
    out[:, 0::2] = torch.sin(angles)
    out[:, 1::2] = torch.cos(angles[:, : channels // 2])
    return out.to(dtype)


class TimingSignal(nn.Module):
    """Adds the timing signal (eq. 11-12) to ``x`` of shape ``(batch, T, channels)``.

    Parameter-free. The table is cached in a non-persistent buffer (so it moves with ``.to()`` but
    is not saved in state dicts) and grown on demand; see the module docstring on long inputs.
    """

    cache: torch.Tensor

    def __init__(self, channels: int, *, max_timescale: float = 1.0e4, initial_length: int = 256):
        super().__init__()
        self.channels = channels
        self.max_timescale = max_timescale
        self.register_buffer(
            "cache", timing_signal(initial_length, channels, max_timescale=max_timescale), persistent=False
        )

    def signal(self, length: int, *, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
        """The ``(length, channels)`` signal, extending the cache (doubling) if needed."""
        if length > self.cache.shape[0] or self.cache.device != device:
            # Doubling keeps the number of recomputations logarithmic in the longest input.
            new_len = max(length, 2 * self.cache.shape[0])
            self.cache = timing_signal(
                new_len, self.channels, max_timescale=self.max_timescale, device=device
            )
        return self.cache[:length].to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.channels:
            raise ValueError(f"expected {self.channels} channels, got {x.shape[-1]}")
        return x + self.signal(x.shape[-2], device=x.device, dtype=x.dtype)

    def extra_repr(self) -> str:
        return f"channels={self.channels}, max_timescale={self.max_timescale:g}"
