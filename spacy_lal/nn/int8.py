"""int8 products for CPU prediction whose result for one input row depends on that row alone.

torch's dynamic quantization (``torch.ao.nn.quantized.dynamic.Linear``) gives a whole input
matrix one scale, taken from its extremes, so a sentence's product, and then its parse, changed
with the sentences batched beside it (docs/speed.md, "int8 prediction"). Here each input row gets
its own scale, ``max |x_i| / 63``; the weights keep one int8 scale per output row, as before.

Seven bits for the inputs, not eight: on x86 the integer product is FBGEMM's (the kernel under
torch's quantized Linear layers), whose AVX2 and AVX-512 kernels without VNNI add pairs of
uint8 x int8 products in saturating 16-bit lanes: 255 x 127 x 2 overflows them, 127 x 127 x 2
does not. With seven-bit inputs the int32 sums are exact on every x86 CPU, VNNI or not, and
equal to those of ``torch._int_mm`` (the portable int8 product used where FBGEMM is missing), so
a parse is the same on every CPU and in every batch. ``torch._int_mm`` was the only kernel
before; without VNNI it runs at about a thirtieth of the float product's speed (docs/speed.md,
"int8 on a CPU without VNNI"), where FBGEMM's is two to four times faster than float.
Scaling back is elementwise, so every row's output is the same in any batch.
"""
import copy
import threading
import warnings
from typing import Any, Collection, Dict, Optional

import torch
from torch import Tensor, nn

__all__ = ["RowInt8Linear", "int8_copy", "fbgemm_engine", "MIN_FEATURES"]

#: The inputs' integer range, +-63 (seven bits; see the module's docstring).
INPUT_LEVELS = 63
#: Products narrower than this on either side stay float: there the rows' scaling costs about
#: what the int8 product saves, or more (docs/speed.md: 400 x 256 by 256 x 112 took 1.4 times
#: float's time in int8, a lemmatizer 64 wide 1.6 times).
MIN_FEATURES = 256
_ENGINE_LOCK = threading.Lock()


def fbgemm_engine() -> Optional[str]:
    """torch's quantized engine that packs weights for FBGEMM on this build ("fbgemm", or "x86",
    which packs a Linear's weights for FBGEMM too), or None (ARM builds: ``torch._int_mm``)."""
    engines = torch.backends.quantized.supported_engines
    return next((engine for engine in ("fbgemm", "x86") if engine in engines), None)


def _pack(weight_q: Tensor, scale: Tensor) -> Any:
    """FBGEMM's packed form of the int8 weight (out, in) with per-row scales, or None. The global
    engine is set only while packing (a user's own choice is restored), under a lock."""
    engine = fbgemm_engine()
    if engine is None:
        return None
    with _ENGINE_LOCK, warnings.catch_warnings():
        # torch 2.13 announces that quantized tensors will go; the pinned version has them.
        warnings.simplefilter("ignore", UserWarning)
        before = torch.backends.quantized.engine
        try:
            torch.backends.quantized.engine = engine
            zeros = torch.zeros(scale.shape[0], dtype=torch.long)
            qweight = torch._make_per_channel_quantized_tensor(weight_q, scale.double(), zeros, 0)
            return torch.ops.quantized.linear_prepack(qweight, None)
        finally:
            torch.backends.quantized.engine = before


class RowInt8Linear(nn.Module):
    """``x @ weight.T + bias`` with int8 weights (one scale per output row) and seven-bit inputs
    (one scale per input row, found at each call). Prediction only: it has no gradient."""

    def __init__(self, weight: Tensor, bias: Optional[Tensor] = None) -> None:
        super().__init__()
        weight = weight.detach().float()
        scale = weight.abs().amax(dim=1).clamp(min=1e-12) / 127
        self.in_features = weight.shape[1]
        self.out_features = weight.shape[0]
        self.register_buffer("weight_q", torch.round(weight / scale[:, None]).to(torch.int8))
        self.register_buffer("weight_scale", scale)
        self.register_buffer("bias", None if bias is None else bias.detach().float().clone())
        self._pack()

    def _pack(self) -> None:
        self._packed = _pack(self.weight_q, self.weight_scale)
        # torch._int_mm's right operand, (in, out), where FBGEMM is missing
        self._weight_t = self.weight_q.t().contiguous() if self._packed is None else None

    @classmethod
    def from_float(cls, linear: nn.Linear) -> "RowInt8Linear":
        return cls(linear.weight, linear.bias)

    def forward(self, x: Tensor) -> Tensor:
        rows = x.reshape(-1, self.in_features)
        if not len(rows):
            return x.new_zeros(*x.shape[:-1], self.out_features)
        # max |x| per row from amax and amin: one pass each, where abs() would write a copy first
        peak = torch.maximum(rows.amax(dim=1), rows.amin(dim=1).neg()).clamp_(min=1e-12)
        scaled = rows * (INPUT_LEVELS / peak)[:, None]
        if self._packed is not None:
            # FBGEMM rounds scaled / 1.0 to nearest even and adds the zero point 64: the integers
            # below, shifted into uint8; its output is each sum times the weight row's scale.
            out = torch.ops.quantized.linear_with_input_q_dq_qweight_dq_output_fp32(
                scaled, 1.0, INPUT_LEVELS + 1, self._packed)
        else:
            sums = torch._int_mm(scaled.round_().to(torch.int8), self._weight_t)
            out = sums.to(torch.float32).mul_(self.weight_scale)
        out.mul_((peak / INPUT_LEVELS)[:, None])
        if self.bias is not None:
            out.add_(self.bias)
        return out.reshape(*x.shape[:-1], self.out_features)

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        state["_packed"] = state["_weight_t"] = None  # made again from weight_q where they load
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)
        self._pack()

    def extra_repr(self) -> str:
        kernel = "fbgemm" if self._packed is not None else "int_mm"
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, kernel={kernel}"


def int8_copy(module: nn.Module, keep_float: Collection[str] = (), min_features: int = MIN_FEATURES) -> nn.Module:
    """A copy of ``module`` in eval mode with every ``nn.Linear`` at least ``min_features`` wide
    on both sides (but those named in ``keep_float``, as ``named_modules`` names them) replaced by
    a :class:`RowInt8Linear`. Narrower layers stay float (:data:`MIN_FEATURES`)."""
    copied = copy.deepcopy(module).eval()
    for name, child in list(copied.named_modules()):
        if (isinstance(child, nn.Linear) and name not in keep_float
                and min(child.in_features, child.out_features) >= min_features):
            parent_name, _, attr = name.rpartition(".")
            parent = copied.get_submodule(parent_name) if parent_name else copied
            setattr(parent, attr, RowInt8Linear.from_float(child))
    return copied
