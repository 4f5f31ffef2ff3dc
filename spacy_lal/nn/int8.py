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

One scale per row loses the small features of a row that one large feature dominates, and a
LayerNorm's gain can give one channel such values in every row (the shipped parser's
feed-forward input: one of 128 channels reaches 65 where the median channel's peak is 1.4).
Smoothing (Xiao et al. 2023, SmoothQuant, eq. 4) divides input channel ``j`` by ``s_j =
max|X_j|^a / max|W_j|^(1-a)`` and multiplies the weight's column ``j`` by it: the same product
in exact arithmetic, with the outlier moved into the weight, which has a scale per output row.
``X_j``'s peak is measured once on training text (:func:`input_peaks`) and saved with the
pipeline, so the product is still the same for every sentence in every batch.
"""
import copy
import threading
import warnings
from typing import Any, Callable, Collection, Dict, List, Mapping, Optional, Sequence, Tuple

import torch
from torch import Tensor, nn

__all__ = [
    "RowInt8Linear", "int8_copy", "input_peaks", "has_outliers", "smoothing_factors", "fbgemm_engine",
    "MIN_FEATURES", "SMOOTHED_MIN_FEATURES",
]

#: The inputs' integer range, +-63 (seven bits; see the module's docstring).
INPUT_LEVELS = 63
#: Products narrower than this on either side stay float: there the rows' scaling costs about
#: what the int8 product saves, or more (docs/speed.md: 400 x 256 by 256 x 112 took 1.4 times
#: float's time in int8, a lemmatizer 64 wide 1.6 times).
MIN_FEATURES = 256
#: With measured input peaks, products this wide on both sides are int8 too: on a CPU with VNNI
#: they take half to two thirds of float's time from 64 features on (docs/speed.md, "Smoothed
#: int8"). Row scales alone lost 0.3 tree F1 there (the 128-wide feed-forward reads the outlier
#: feature); with those inputs smoothed, the parser is as accurate as in float.
SMOOTHED_MIN_FEATURES = 64
#: SmoothQuant's migration strength ``a``: half of an input channel's range moves to the weight.
SMOOTHING_ALPHA = 0.5
#: A layer is smoothed where its largest input peak is more than this many times its median
#: feature's, which one scale per row would then leave a quarter of the 63 levels (4 bits) or
#: fewer. Smoothing costs a pass over the input, so the layers without outliers go without it
#: (the shipped parser: 8 of its 26 layers, with ratios 4.8-46, the others 1.4-3.6).
OUTLIER_RATIO = 4.0
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


def has_outliers(peaks: Tensor, ratio: float = OUTLIER_RATIO) -> bool:
    """Whether the largest of a layer's input ``peaks`` exceeds ``ratio`` times the median of
    those above zero (:data:`OUTLIER_RATIO`)."""
    seen = peaks[peaks > 0]
    return bool(len(seen)) and bool(seen.max() > ratio * seen.median())


def smoothing_factors(peaks: Tensor, weight: Tensor, alpha: float = SMOOTHING_ALPHA) -> Tensor:
    """SmoothQuant's per-input-channel factors (eq. 4), ``s_j = max|X_j|^alpha /
    max|W_j|^(1-alpha)``, from the inputs' peaks ``(in,)`` and the weight ``(out, in)``. A channel
    never seen (peak 0) or a zero column gets 1."""
    peaks = peaks.detach().float()
    columns = weight.detach().float().abs().amax(dim=0)
    factors = peaks.pow(alpha) / columns.pow(1 - alpha)
    usable = (peaks > 0) & (columns > 0) & torch.isfinite(factors)
    return torch.where(usable, factors, torch.ones_like(factors))


class RowInt8Linear(nn.Module):
    """``x @ weight.T + bias`` with int8 weights (one scale per output row) and seven-bit inputs
    (one scale per input row, found at each call). Prediction only: it has no gradient.
    ``smoothing``: per-input-channel factors (:func:`smoothing_factors`) by which the inputs are
    divided and the weight's columns multiplied before quantization."""

    def __init__(self, weight: Tensor, bias: Optional[Tensor] = None, smoothing: Optional[Tensor] = None) -> None:
        super().__init__()
        weight = weight.detach().float()
        if smoothing is not None:
            if smoothing.shape != (weight.shape[1],):
                raise ValueError(f"smoothing must be ({weight.shape[1]},), got {tuple(smoothing.shape)}")
            weight = weight * smoothing.float()[None, :]
        self.register_buffer("inverse_smoothing", None if smoothing is None else 1.0 / smoothing.float())
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
    def from_float(cls, linear: nn.Linear, smoothing: Optional[Tensor] = None) -> "RowInt8Linear":
        return cls(linear.weight, linear.bias, smoothing)

    def forward(self, x: Tensor) -> Tensor:
        rows = x.reshape(-1, self.in_features)
        if not len(rows):
            return x.new_zeros(*x.shape[:-1], self.out_features)
        smoothed = self.inverse_smoothing is not None
        if smoothed:
            rows = rows * self.inverse_smoothing
        # max |x| per row from amax and amin: one pass each, where abs() would write a copy first
        peak = torch.maximum(rows.amax(dim=1), rows.amin(dim=1).neg()).clamp_(min=1e-12)
        scale = (INPUT_LEVELS / peak)[:, None]
        scaled = rows.mul_(scale) if smoothed else rows * scale  # smoothed rows are a copy already
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
        smoothed = self.inverse_smoothing is not None
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"kernel={kernel}, smoothed={smoothed}")


def int8_copy(
    module: nn.Module,
    keep_float: Collection[str] = (),
    min_features: Optional[int] = None,
    peaks: Optional[Mapping[str, Sequence[float]]] = None,
) -> nn.Module:
    """A copy of ``module`` in eval mode with its ``nn.Linear`` layers (but those named in
    ``keep_float``, as ``named_modules`` names them) replaced by :class:`RowInt8Linear` where
    they are at least ``min_features`` wide on both sides. ``peaks``: each layer's measured input
    peaks (:func:`input_peaks`); with them the layers whose inputs have outliers
    (:func:`has_outliers`) are smoothed (:func:`smoothing_factors`) and ``min_features`` defaults
    to :data:`SMOOTHED_MIN_FEATURES`, without them to :data:`MIN_FEATURES`. A layer without
    peaks (made since they were measured) is left float."""
    if min_features is None:
        min_features = SMOOTHED_MIN_FEATURES if peaks else MIN_FEATURES
    copied = copy.deepcopy(module).eval()
    for name, child in list(copied.named_modules()):
        if (isinstance(child, nn.Linear) and name not in keep_float
                and min(child.in_features, child.out_features) >= min_features):
            smoothing = None
            if peaks:
                measured = peaks.get(name)
                if measured is None or len(measured) != child.in_features:
                    continue
                layer_peaks = torch.tensor(measured, dtype=torch.float32)
                if has_outliers(layer_peaks):
                    smoothing = smoothing_factors(layer_peaks, child.weight)
            parent_name, _, attr = name.rpartition(".")
            parent = copied.get_submodule(parent_name) if parent_name else copied
            setattr(parent, attr, RowInt8Linear.from_float(child, smoothing))
    return copied


def input_peaks(module: nn.Module, run: Callable[[], Any], names: Optional[Collection[str]] = None,
                digits: int = 4) -> Dict[str, List[float]]:
    """Each ``nn.Linear`` layer's largest absolute input per feature while ``run()`` drives
    ``module`` (in float), as lists rounded to ``digits`` significant digits: what
    :func:`int8_copy` smooths with. Padding rows count too; a peak only sets a factor, which
    leaves the product the same in exact arithmetic. ``names``: only these layers (as
    ``named_modules`` names them)."""
    peaks: Dict[str, Tensor] = {}
    hooks = []
    for name, child in module.named_modules():
        if isinstance(child, nn.Linear) and (names is None or name in names):
            def record(_: nn.Module, inputs: Tuple[Tensor, ...], name: str = name) -> None:
                x = inputs[0].detach()
                peak = x.reshape(-1, x.shape[-1]).abs().amax(dim=0).float()
                peaks[name] = peak if name not in peaks else torch.maximum(peaks[name], peak)
            hooks.append(child.register_forward_pre_hook(record))
    try:
        run()
    finally:
        for hook in hooks:
            hook.remove()
    return {name: [float(f"{v:.{digits}g}") for v in peak.tolist()] for name, peak in peaks.items()}
