"""Thinc's CPU matrix products done by torch (and, at prediction, its maxout and layer norm), for
the Thinc layers of our tok2vecs and taggers.

Thinc's ``NumpyOps.gemm`` calls BLIS, which on the AVX-512 machine this project is trained on
multiplies about 2.8 times slower than torch's own CPU BLAS (a ``(860, 1280) x (1280, 768)``
product, the size of ``spacy.MultiHashEmbed.v2``'s maxout at width 256: 49 against 18 ms on one
thread). That maxout was 60% of the shipped tok2vec's parse time. :class:`TorchGemmOps` keeps
every other NumpyOps kernel and sends ``gemm`` to ``torch.mm`` on the same memory (no copies).
The products are the same up to float rounding (``tests/pipeline/layers/test_gemm.py``). torch, not numpy's
``dot``: torch's thread count is the one our users and benchmarks already set
(``torch.set_num_threads``), where numpy's BLAS would start threads of its own.

At prediction (inside :func:`prediction`, which the tok2vec enters when it predicts), two more
of Thinc's CPU kernels are replaced where the backward pass they prepare for never comes:
``maxout`` keeps the maxima without recording which piece won, and LayerNorm layers
(``use_torch_gemm`` swaps them for nodes with the same weights) call torch's ``layer_norm``.
Together they were 5% of the parser pipeline's time.

Optionally (``int8 = True``, set by ``spacy_lal.quantize``) the products of a prediction, inside
:func:`prediction`, multiply a layer's weights as int8 (one scale per output row) with the inputs
quantized on the fly, each row with its own scale (``spacy_lal/nn/int8.py``; weights at least
``MIN_FEATURES`` wide on both sides, as in ``lal_parser``'s int8 copy), so that a
sentence's vectors do not depend on the sentences batched with it: the tok2vec's product takes
about 0.6 of the float one's time on the development machine's CPU, for a small change in the vectors
(docs/speed.md). Training and its backward products are never quantized.
"""
import threading
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, Optional, Tuple

import numpy
from thinc.api import Model, NumpyOps
from thinc.layers import layernorm
from thinc.types import Floats2d, Floats3d, Ints2d

from ...logs import log_once

__all__ = ["TorchGemmOps", "use_torch_gemm", "set_int8", "prediction"]

_STATE = threading.local()
# Per ops instance, the int8 weights made from its layers' float weights, keyed by the float
# array's address and layout, each with a copy of the floats it was made from: Thinc's optimizers
# update weights in place, and a weight found changed is quantized again. An entry goes when its
# array does (Model.from_bytes swaps arrays). Outside the instance, so that copying or pickling a
# model (spaCy does both) never copies the int8 weights.
_INT8_WEIGHTS: "weakref.WeakKeyDictionary[TorchGemmOps, Dict[Tuple, Tuple[numpy.ndarray, Any, Any]]]" = (
    weakref.WeakKeyDictionary()
)
# Taken to make int8 weights (once per weight): threads predicting at once wait for the one making
# them instead of each quantizing the same weights. Using them takes no lock.
_INT8_LOCK = threading.Lock()


@contextmanager
def prediction() -> Iterator[None]:
    """Products in this block (this thread) serve a prediction only: with ``int8`` on, they may be
    int8. The tok2vec enters it when it predicts."""
    before = getattr(_STATE, "predicting", False)
    _STATE.predicting = True
    try:
        yield
    finally:
        _STATE.predicting = before


class TorchGemmOps(NumpyOps):
    """``NumpyOps`` whose float32 ``gemm`` is ``torch.mm`` (or, at prediction with ``int8`` on and
    a weight matrix as the transposed right operand, an int8 product)."""

    int8: bool = False

    def forget_int8_weights(self) -> None:
        """Drop the int8 copies of the weights (they are made again from the current ones)."""
        _INT8_WEIGHTS.pop(self, None)

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

        if (self.int8 and trans2 and not trans1 and out is None and min(y.shape) >= _int8_min_features()
                and getattr(_STATE, "predicting", False)):
            return self._int8_weight(y)(torch.from_numpy(x)).numpy()

        a = torch.from_numpy(x)
        b = torch.from_numpy(y)
        a = a.T if trans1 else a
        b = b.T if trans2 else b
        if out is None:
            return torch.mm(a, b).numpy()
        torch.mm(a, b, out=torch.from_numpy(out))
        return out

    def maxout(self, X: Floats3d) -> Tuple[Floats2d, Ints2d]:
        """Thinc's ``maxout``; at prediction (inside :func:`prediction`), the pieces' elementwise
        maximum alone, 4x faster: which piece won is only read by the backward pass, which a
        prediction never runs. It gets a read-only, zero-strided stand-in that Thinc's
        ``backprop_maxout`` refuses with a ValueError."""
        if not getattr(_STATE, "predicting", False) or not isinstance(X, numpy.ndarray) or X.dtype != numpy.float32:
            return super().maxout(X)
        best = X[..., 0].copy()
        for piece in range(1, X.shape[-1]):
            numpy.maximum(best, X[..., piece], out=best)
        return best, numpy.broadcast_to(numpy.zeros((), dtype="int32"), best.shape)

    def _int8_weight(self, weight: numpy.ndarray) -> Any:
        """An int8 Linear computing ``x @ weight.T`` (``weight``: ``(out, in)``), each row of ``x``
        quantized on its own (``nn/int8.py``)."""
        import torch

        from ...nn.int8 import RowInt8Linear

        key = (weight.__array_interface__["data"][0], weight.shape, weight.strides)
        cache = _INT8_WEIGHTS.get(self)
        found = None if cache is None else cache.get(key)
        if found is not None and numpy.array_equal(found[0], weight):
            return found[1]
        with _INT8_LOCK:
            cache = _INT8_WEIGHTS.setdefault(self, {})
            found = cache.get(key)  # made by another thread while this one waited
            if found is None or not numpy.array_equal(found[0], weight):
                floats = weight.copy()  # what the int8 weights are checked against at each use
                quantized = RowInt8Linear(torch.from_numpy(floats))
                base = weight
                while isinstance(base.base, numpy.ndarray):  # Maxout reads its weights through a view
                    base = base.base
                gone = weakref.ref(base, lambda _, cache=cache, key=key: cache.pop(key, None))
                found = cache[key] = (floats, quantized, gone)
            return found[1]


def _int8_min_features() -> int:
    from ...nn.int8 import MIN_FEATURES  # torch is imported where products are made, not before

    return MIN_FEATURES


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


def set_int8(model: Model, enabled: bool) -> bool:
    """Turn int8 prediction products on or off for ``model``'s layers on :class:`TorchGemmOps`;
    returns whether any layer has them (none on a GPU, where it says so once, at INFO: the shipped
    pipelines' configs turn int8 on, and on a GPU they predict in float32, as documented)."""
    found = False
    for layer in model.walk():
        if isinstance(layer.ops, TorchGemmOps):
            layer.ops.int8 = enabled
            layer.ops.forget_int8_weights()
            found = True
        elif enabled and layer.ops.device_type == "gpu":
            log_once("int8 products run on CPUs only: the layers on a GPU keep float32 products")
    return found


def use_torch_gemm(model: Model) -> Model:
    """Give every layer of ``model`` on Thinc's plain CPU ops :class:`TorchGemmOps` instead (one
    shared instance), and its LayerNorm layers torch's kernel at prediction
    (:func:`_layer_norm_forward`); layers on other ops (a GPU, Apple's) keep theirs. Returns
    ``model``."""
    for layer in list(model.walk()):
        if layer.name == "layernorm" and not layer.attrs.get(_TORCH_LAYER_NORM) and type(layer.ops) is NumpyOps:
            model.replace_node(layer, _torch_layer_norm(layer))
    ops = None
    for layer in model.walk():
        if type(layer.ops) is NumpyOps:
            ops = ops or TorchGemmOps(use_blis=layer.ops.use_blis)
            layer.ops = ops
        elif layer.ops.device_type == "gpu":
            log_once("the tok2vec and tagger layers are on a GPU: their products are Thinc's CuPy ones "
                      "(torch's CPU products, maxout and int8 prediction are for CPUs)")
    return model



_TORCH_LAYER_NORM = "spacy_lal_torch_layer_norm"


def _torch_layer_norm(layer: Model) -> Model:
    """A LayerNorm node like ``layer`` (name, dims, parameters, attrs: the same weights load)
    whose forward pass is :func:`_layer_norm_forward`."""
    replacement = Model(
        layer.name,
        _layer_norm_forward,
        init=layernorm.init,
        dims={name: layer.maybe_get_dim(name) for name in layer.dim_names},
        params={name: layer.get_param(name) if layer.has_param(name) else None for name in layer.param_names},
        attrs={**layer.attrs, _TORCH_LAYER_NORM: True},
    )
    replacement.ops = layer.ops
    return replacement


def _layer_norm_forward(model: Model, X: Floats2d, is_train: bool) -> Tuple[Floats2d, Callable]:
    """Thinc's LayerNorm; at prediction (inside :func:`prediction`), torch's ``layer_norm``, the
    same formula (biased variance plus 1e-8) in one pass where Thinc's numpy takes eight: 2% of
    the parser pipeline's time."""
    if is_train or not getattr(_STATE, "predicting", False) or not _torch_can_read(X):
        return layernorm.forward(model, X, is_train)
    import torch

    Y = torch.nn.functional.layer_norm(torch.from_numpy(X), (X.shape[1],), torch.from_numpy(model.get_param("G")),
                                       torch.from_numpy(model.get_param("b")), eps=1e-8)
    return Y.numpy(), _no_backward


def _no_backward(dY: Any) -> Any:
    raise RuntimeError("a prediction's LayerNorm has no backward pass: call the model with is_train=True")
