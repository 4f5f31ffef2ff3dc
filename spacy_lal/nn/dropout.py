"""Dropout whose masks are drawn by a fast bit generator.

Every model here is trained on two CPU cores, where torch's Bernoulli sampling (``F.dropout``,
``nn.Dropout``, ``Tensor.bernoulli_``) costs 10-15 ns per element: a third of a DeepAtt training
step (Tan et al.'s residual, ReLU and attention dropout, "Settings and Regularization") and about
a tenth of the joint parser-and-labeller step went to drawing masks. The masks here have the same
distribution -- each element kept independently with probability ``q = 1 - p``, kept elements
scaled by ``1 / q`` so that the expectation is the input -- drawn as 16-bit uniform integers, four
from each 64-bit output of numpy's PCG64: about 1.5 ns per element.

* Reproducibility: each call seeds a fresh PCG64 from torch's default generator, so
  ``torch.manual_seed`` (and Thinc's ``fix_random_seed``) fix the masks as they fix torch's, and
  no generator state is shared between threads.
* ``q`` is rounded to a multiple of 1/65536 (at most 7.7e-6 away from ``1 - p``) and kept
  elements are scaled by the inverse of the rounded ``q``, so the expectation stays exact.
* Tensors of fewer than :data:`NUMPY_MIN_ELEMENTS` elements, and tensors off the CPU, use torch's
  own Bernoulli sampling: seeding a generator costs about 30 µs, more than torch spends on them.
"""
from __future__ import annotations

from typing import Sequence

import numpy
import torch
from torch import Tensor, nn

__all__ = ["Dropout", "FeatureDropout", "dropout", "keep_mask", "NUMPY_MIN_ELEMENTS"]

#: Below this many elements a mask is drawn by torch (see the module docstring).
NUMPY_MIN_ELEMENTS = 4096
_LEVELS = 1 << 16


def _check(p: float) -> None:
    if not 0.0 <= p < 1.0:
        raise ValueError(f"dropout probability must be in [0, 1), got {p}")


def keep_mask(shape: Sequence[int], p: float, like: Tensor) -> Tensor:
    """A dropout mask of ``shape`` with ``like``'s dtype and device: ``1 / q`` where an element is
    kept (probability ``q = 1 - p``), 0 where it is dropped. Multiply the input by it."""
    _check(p)
    n = 1
    for size in shape:
        n *= int(size)
    threshold = round(p * _LEVELS)  # drop where the 16-bit draw is below it
    # Probabilities within 2^-17 of 0 or 1 round to a threshold of 0 or 2^16 (never drop, or
    # divide by zero): torch's sampler draws those, as it draws small tensors and GPU ones.
    if like.device.type != "cpu" or n < NUMPY_MIN_ELEMENTS or not 0 < threshold < _LEVELS:
        return torch.empty(tuple(shape), dtype=like.dtype, device=like.device).bernoulli_(1.0 - p).div_(1.0 - p)
    seed = int(torch.randint(0, 2**62, (), dtype=torch.int64))
    bits = numpy.random.PCG64(seed).random_raw((n + 3) // 4).view(numpy.uint16)[:n]
    keep = torch.from_numpy(bits >= threshold).view(tuple(shape))
    # Through uint8 (the same 0/1 bytes): torch converts bool to float about 8x slower.
    return keep.view(torch.uint8).to(like.dtype).mul_(_LEVELS / (_LEVELS - threshold))


def dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    """``F.dropout(x, p, training)`` with masks from :func:`keep_mask`."""
    _check(p)
    if not training or p == 0.0:
        return x
    return x * keep_mask(x.shape, p, x)


class Dropout(nn.Module):
    """``nn.Dropout`` with masks from :func:`keep_mask` (same interface and behaviour)."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        _check(p)
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class FeatureDropout(nn.Module):
    """Dropout with one mask per sentence and feature, shared over all positions.

    This is the "residual dropout" of the self-attentive parser's reference implementation: zeroing
    the same features at every position of a sentence is a stronger regulariser for attention
    models than i.i.d. dropout. Input ``(B, T, *features)``; the mask has shape ``(B, 1, *features)``
    so e.g. a ``(B, T, H, d)`` tensor of label-attention head outputs gets an independent mask per
    head (Mrini et al. sec. 4.2: residual dropout "applies separately to the output of each head").
    """

    def __init__(self, p: float = 0.0) -> None:
        super().__init__()
        _check(p)
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        return x * keep_mask((x.shape[0], 1) + tuple(x.shape[2:]), self.p, x)

    def extra_repr(self) -> str:
        return f"p={self.p}"

