"""int8 products for CPU prediction whose result for one input row depends on that row alone.

torch's dynamic quantization (``torch.ao.nn.quantized.dynamic.Linear``) gives a whole input
matrix one scale, taken from its extremes, so a sentence's product, and then its parse, changed
with the sentences batched beside it (docs/speed.md, "int8 prediction"). Here each input row gets
its own scale, ``max |x_i| / 127``; the weights keep one scale per output row, as before. The
integer product (``torch._int_mm``, int8 x int8 -> int32) is exact, and scaling back is
elementwise, so every row's output is the same in any batch. The price is the passes over the
rows for their scales: on one core of the development machine (``benchmarks/int8_products.py``)
the tok2vec's 860 x 576 by 576 x 576 product took 1.8 ms against 3.0 ms in float and 1.1 ms with
torch's dynamic quantization, and a layer under 256 wide on either side gains nothing.
"""
import copy
from typing import Collection, Optional

import torch
from torch import Tensor, nn

__all__ = ["RowInt8Linear", "int8_copy"]


class RowInt8Linear(nn.Module):
    """``x @ weight.T + bias`` with int8 weights (one scale per output row) and int8 inputs (one
    scale per input row, found at each call). Prediction only: it has no gradient."""

    def __init__(self, weight: Tensor, bias: Optional[Tensor] = None) -> None:
        super().__init__()
        weight = weight.detach().float()
        scale = weight.abs().amax(dim=1).clamp(min=1e-12) / 127
        self.in_features = weight.shape[1]
        self.out_features = weight.shape[0]
        self.register_buffer("weight_t", torch.round(weight / scale[:, None]).to(torch.int8).t().contiguous())
        self.register_buffer("weight_scale", scale)
        self.register_buffer("bias", None if bias is None else bias.detach().float().clone())

    @classmethod
    def from_float(cls, linear: nn.Linear) -> "RowInt8Linear":
        return cls(linear.weight, linear.bias)

    def forward(self, x: Tensor) -> Tensor:
        rows = x.reshape(-1, self.in_features)
        # max |x| per row from amax and amin: one pass each, where abs() would write a copy first
        peak = torch.maximum(rows.amax(dim=1), rows.amin(dim=1).neg()).clamp_(min=1e-12)
        quantized = (rows * (127 / peak)[:, None]).round_().to(torch.int8)
        out = torch._int_mm(quantized, self.weight_t).to(torch.float32)
        out.mul_((peak / 127)[:, None]).mul_(self.weight_scale)
        if self.bias is not None:
            out.add_(self.bias)
        return out.reshape(*x.shape[:-1], self.out_features)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def int8_copy(module: nn.Module, keep_float: Collection[str] = (), min_features: int = 256) -> nn.Module:
    """A copy of ``module`` in eval mode with every ``nn.Linear`` at least ``min_features`` wide
    on both sides (but those named in ``keep_float``, as ``named_modules`` names them) replaced by
    a :class:`RowInt8Linear`. Narrower layers stay float: there the rows' scaling costs about
    what the int8 product saves (a 400 x 256 by 256 x 112 product: 124 us against 120 in float)."""
    copied = copy.deepcopy(module).eval()
    for name, child in list(copied.named_modules()):
        if (isinstance(child, nn.Linear) and name not in keep_float
                and min(child.in_features, child.out_features) >= min_features):
            parent_name, _, attr = name.rpartition(".")
            parent = copied.get_submodule(parent_name) if parent_name else copied
            setattr(parent, attr, RowInt8Linear.from_float(child))
    return copied
