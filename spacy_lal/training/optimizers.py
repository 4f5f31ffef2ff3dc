"""Thinc's Adam with its updates in torch's fused CPU kernel: ``spacy-lal.Adam.v1``.

spaCy trains every parameter of a pipeline with Thinc's optimizer, which updates one parameter
array at a time in a scalar Cython loop: about 2.4 ns per weight on the development machine, 5%
of a step of ``configs/lal_ewt_cpu.cfg`` (its hash embeddings and products hold millions of
weights). torch's fused Adam kernel (``torch.optim.adam.adam(..., fused=True)``) does the same
update in vector instructions, about 0.2 ns per weight after a fixed 15 µs a call, so arrays of
at least :data:`FUSED_MIN_SIZE` weights go to it and smaller ones stay on Thinc's loop.

The update is Thinc's: the same moments, bias corrections, gradient clipping (per array),
learning-rate schedules, L2 and averages (all but the moments' update are still done by Thinc's
``Optimizer.__call__``). Thinc adds ``eps`` to ``sqrt(v)`` and folds the second moment's bias
correction into the learning rate; torch divides ``sqrt(v)`` by that correction and then adds
``eps``, so torch is given ``eps / sqrt(1 - beta2^t)``, which makes the two updates equal up to
float rounding (``tests/training/test_optimizers.py``).
"""
from typing import Any, Tuple

import numpy
from spacy.util import registry
from thinc.api import Optimizer
from thinc.optimizers import ADAM_DEFAULTS, FloatOrSeq
from thinc.types import FloatsXd

from ..logs import log_once

__all__ = ["FusedAdam", "make_adam", "FUSED_MIN_SIZE"]

#: Arrays of fewer weights stay on Thinc's loop, which is faster below about 8,000 weights.
FUSED_MIN_SIZE = 8192


class FusedAdam(Optimizer):
    """Thinc's ``Optimizer`` set up as Adam, whose moment updates of large arrays run in torch's
    fused CPU kernel (module docstring)."""

    def _adam(self, ops: Any, weights: FloatsXd, gradient: FloatsXd, lr_scale: float, key: Tuple[int, str],
              nr_upd: int) -> Tuple[FloatsXd, FloatsXd]:
        if weights.size < FUSED_MIN_SIZE or not _fusable(weights, gradient):
            if not isinstance(weights, numpy.ndarray):
                log_once("spacy-lal.Adam.v1: the weights are on a GPU, where Thinc's own Adam kernel "
                          "updates them (torch's fused kernel here is the CPU one)")
            return super()._adam(ops, weights, gradient, lr_scale, key, nr_upd)
        import torch
        from torch.optim.adam import adam

        if key not in self.mom1:
            self.mom1[key] = ops.alloc1f(weights.size)
        if key not in self.mom2:
            self.mom2[key] = ops.alloc1f(weights.size)
        tensors = [torch.from_numpy(array.reshape(-1)) for array in (weights, gradient, self.mom1[key], self.mom2[key])]
        fix2 = 1.0 - self.b2**nr_upd
        # The kernel counts the step itself: it is given the count before this update.
        step = torch.tensor(float(nr_upd - 1))
        adam(*([t] for t in tensors), [], [step], fused=True, amsgrad=False, beta1=self.b1, beta2=self.b2,
             lr=self.learn_rate * lr_scale, weight_decay=0.0, eps=self.eps / fix2**0.5, maximize=False)
        return weights, gradient


def _fusable(*arrays: Any) -> bool:
    # Views torch can update in place: float32, contiguous and writeable numpy arrays.
    return all(
        isinstance(a, numpy.ndarray) and a.dtype == numpy.float32 and a.flags.c_contiguous and a.flags.writeable
        for a in arrays
    )


@registry.optimizers("spacy-lal.Adam.v1")
def make_adam(
    learn_rate: FloatOrSeq = ADAM_DEFAULTS["learn_rate"],
    *,
    L2: FloatOrSeq = ADAM_DEFAULTS["L2"],
    beta1: FloatOrSeq = ADAM_DEFAULTS["beta1"],
    beta2: FloatOrSeq = ADAM_DEFAULTS["beta2"],
    eps: FloatOrSeq = ADAM_DEFAULTS["eps"],
    grad_clip: FloatOrSeq = ADAM_DEFAULTS["grad_clip"],
    L2_is_weight_decay: bool = bool(ADAM_DEFAULTS["L2_is_weight_decay"]),
    use_averages: bool = True,
) -> FusedAdam:
    """Thinc's ``Adam.v1`` (the same settings, schedules allowed) as a :class:`FusedAdam`."""
    return FusedAdam(
        learn_rate,
        L2=L2,
        beta1=beta1,
        beta2=beta2,
        eps=eps,
        grad_clip=grad_clip,
        L2_is_weight_decay=L2_is_weight_decay,
        use_averages=use_averages,
        use_radam=False,
    )
