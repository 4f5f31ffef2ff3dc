"""Thinc's CPU matrix products done by torch, for the Thinc layers of our tok2vecs.

Thinc's ``NumpyOps.gemm`` calls BLIS, which on the AVX-512 machine this project is trained on
multiplies about 2.8 times slower than torch's own CPU BLAS (a ``(860, 1280) x (1280, 768)``
product, the size of ``spacy.MultiHashEmbed.v2``'s maxout at width 256: 49 against 18 ms on one
thread). That maxout was 60% of the shipped tok2vec's parse time. :class:`TorchGemmOps` keeps
every other NumpyOps kernel and sends ``gemm`` to ``torch.mm`` on the same memory (no copies).
The products are the same up to float rounding (``tests/test_gemm.py``). torch, not numpy's
``dot``: torch's thread count is the one our users and benchmarks already set
(``torch.set_num_threads``), where numpy's BLAS would start threads of its own.
"""
from typing import Optional

import numpy
from thinc.api import Model, NumpyOps
from thinc.types import Floats2d

__all__ = ["TorchGemmOps", "use_torch_gemm"]


class TorchGemmOps(NumpyOps):
    """``NumpyOps`` whose float32 ``gemm`` is ``torch.mm``."""

    def gemm(
        self,
        x: Floats2d,
        y: Floats2d,
        *,
        out: Optional[Floats2d] = None,
        trans1: bool = False,
        trans2: bool = False,
    ) -> Floats2d:
        if not _torch_can_read(x, y) or (out is not None and not _torch_can_write(out)):
            return super().gemm(x, y, out=out, trans1=trans1, trans2=trans2)
        import torch

        a = torch.from_numpy(x)
        b = torch.from_numpy(y)
        a = a.T if trans1 else a
        b = b.T if trans2 else b
        if out is None:
            return torch.mm(a, b).numpy()
        torch.mm(a, b, out=torch.from_numpy(out))
        return out


def _torch_can_read(*arrays: numpy.ndarray) -> bool:
    # torch.from_numpy shares memory: it takes float32 2-d arrays with non-negative strides, and
    # warns on read-only ones (static vectors may be memory-mapped), which BLIS is left to.
    return all(
        isinstance(a, numpy.ndarray) and a.dtype == numpy.float32 and a.ndim == 2
        and a.flags.writeable and all(s >= 0 for s in a.strides)
        for a in arrays
    )


def _torch_can_write(out: numpy.ndarray) -> bool:
    return _torch_can_read(out) and out.flags.c_contiguous


def use_torch_gemm(model: Model) -> Model:
    """Give every layer of ``model`` on Thinc's plain CPU ops :class:`TorchGemmOps` instead (one
    shared instance); layers on other ops (a GPU, Apple's) keep theirs. Returns ``model``."""
    ops = None
    for layer in model.walk():
        if type(layer.ops) is NumpyOps:
            ops = ops or TorchGemmOps(use_blis=layer.ops.use_blis)
            layer.ops = ops
    return model
