"""spacy_lal.nn.int8: int8 Linear layers whose output for an input row depends on that row alone."""
import copy

import torch
from torch import nn

from spacy_lal.nn.int8 import (
    SMOOTHED_MIN_FEATURES, RowInt8Linear, has_outliers, input_peaks, int8_copy, smoothing_factors,
)


def test_close_to_the_float_product_with_and_without_bias():
    torch.manual_seed(0)
    for bias in (True, False):
        linear = nn.Linear(48, 20, bias=bias)
        x = torch.randn(2, 7, 48) * 3
        expected = linear(x).detach()
        got = RowInt8Linear.from_float(linear)(x)
        assert got.shape == expected.shape
        # error of 7-bit inputs and 8-bit weights: a small fraction of the outputs' spread
        assert (got - expected).abs().max() < 0.05 * expected.abs().max()


def test_a_row_gets_the_same_output_in_any_batch():
    torch.manual_seed(1)
    layer = RowInt8Linear.from_float(nn.Linear(32, 16))
    rows = torch.randn(10, 32)
    rows[3] *= 100  # one row of large values: with one scale per batch it would coarsen the others
    together = layer(rows)
    assert torch.equal(torch.cat([layer(rows[i : i + 1]) for i in range(10)]), together)
    assert torch.equal(layer(rows[5:]), together[5:])
    assert layer(torch.zeros(0, 32)).shape == (0, 16)
    assert torch.equal(layer(torch.zeros(2, 32)), layer.bias.expand(2, 16))  # an all-zero row


def test_int8_copy_replaces_the_linear_layers_but_those_kept():
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 4), nn.Linear(4, 4)))
    model.train()
    copied = int8_copy(model, keep_float={"0"}, min_features=4)
    assert isinstance(copied[0], nn.Linear) and isinstance(copied[2][0], RowInt8Linear)
    assert isinstance(int8_copy(model, min_features=8)[2][0], nn.Linear)  # 4 wide: stays float
    assert not copied.training and model.training and isinstance(model[2][0], nn.Linear)
    x = torch.randn(3, 8)
    assert (copied(x) - model(x)).abs().max() < 0.1


def _exact(layer: RowInt8Linear, x: torch.Tensor) -> torch.Tensor:
    """The layer's product in float64 from its own integers: what an exact int8 kernel gives."""
    peak = x.abs().amax(1).clamp(min=1e-12)
    q = torch.round(x * (63 / peak)[:, None]).double()
    sums = q @ layer.weight_q.double().t()
    return sums * layer.weight_scale.double() * (peak.double() / 63)[:, None] + layer.bias.double()


def test_the_integer_sums_are_exact_at_the_inputs_extremes():
    # every input at +-peak: with eight-bit inputs FBGEMM's 16-bit lanes saturate without VNNI
    torch.manual_seed(2)
    linear = nn.Linear(576, 64)
    x = torch.where(torch.rand(40, 576) < 0.5, 1.0, -1.0) * torch.rand(40, 1) * 10
    with torch.no_grad():
        linear.weight.copy_(torch.where(linear.weight > 0, 1.0, -1.0))
    layer = RowInt8Linear.from_float(linear)
    got = layer(x).double()
    expected = _exact(layer, x)
    assert (got - expected).abs().max() < 1e-4 * expected.abs().max()


def test_fbgemm_and_the_portable_kernel_agree(monkeypatch):
    from spacy_lal.nn import int8

    torch.manual_seed(3)
    linear = nn.Linear(300, 96)
    x = torch.randn(17, 300) * 4
    fast = RowInt8Linear.from_float(linear)
    if int8.fbgemm_engine() is not None:  # x86 builds of torch
        assert "kernel=fbgemm" in repr(fast)
    monkeypatch.setattr(int8, "fbgemm_engine", lambda: None)
    portable = RowInt8Linear.from_float(linear)
    assert "kernel=int_mm" in repr(portable)
    assert (fast(x) - portable(x)).abs().max() < 1e-5 * portable(x).abs().max()


def test_copies_and_pickles_predict_alike():
    import pickle

    torch.manual_seed(4)
    layer = RowInt8Linear.from_float(nn.Linear(64, 32))
    x = torch.randn(5, 64)
    assert torch.equal(copy.deepcopy(layer)(x), layer(x))
    assert torch.equal(pickle.loads(pickle.dumps(layer))(x), layer(x))
    assert torch.equal(pickle.loads(pickle.dumps(layer))(torch.zeros(0, 64)), torch.zeros(0, 32))


def _outlier_inputs(rows: int = 64, features: int = 128, seed: int = 3) -> torch.Tensor:
    """Inputs whose feature 7 is 40 times as large as the others in every row: what a
    LayerNorm's large gain gives one channel (the shipped parser's feed-forward input)."""
    torch.manual_seed(seed)
    x = torch.randn(rows, features)
    x[:, 7] *= 40
    return x


def test_smoothing_factors_follow_smoothquant():
    peaks = torch.tensor([4.0, 1.0, 0.0, 9.0])
    weight = torch.tensor([[1.0, -4.0, 2.0, 0.0], [-0.25, 1.0, 1.0, 0.0]])
    factors = smoothing_factors(peaks, weight, alpha=0.5)
    # s_j = sqrt(peak_j) / sqrt(max_i |W_ij|); an unseen input (peak 0) or a zero column gets 1
    assert torch.allclose(factors, torch.tensor([2.0, 0.5, 1.0, 1.0]))
    assert torch.allclose(smoothing_factors(peaks, weight, alpha=1.0)[:2], torch.tensor([4.0, 1.0]))


def test_smoothing_keeps_the_product_and_shrinks_the_error_of_an_outlier_feature():
    x = _outlier_inputs()
    linear = nn.Linear(128, 96)
    expected = linear(x).detach()
    peaks = x.abs().amax(0)
    plain = RowInt8Linear.from_float(linear)(x)
    smoothed_layer = RowInt8Linear.from_float(linear, smoothing_factors(peaks, linear.weight))
    smoothed = smoothed_layer(x)
    error = (plain - expected).abs().mean()
    assert (smoothed - expected).abs().mean() < 0.5 * error
    # still one input row's own product, whatever the batch
    assert torch.equal(torch.cat([smoothed_layer(x[i : i + 1]) for i in range(len(x))]), smoothed)
    assert "smoothed=True" in repr(smoothed_layer) and "smoothed=False" in repr(RowInt8Linear.from_float(linear))


def test_smoothing_of_the_wrong_width_is_refused():
    import pytest

    with pytest.raises(ValueError, match=r"smoothing must be \(8,\)"):
        RowInt8Linear(torch.randn(4, 8), smoothing=torch.ones(5))


def test_outliers_are_a_peak_far_above_the_median():
    assert has_outliers(torch.tensor([1.0, 1.2, 0.9, 5.0]))
    assert not has_outliers(torch.tensor([1.0, 1.2, 0.9, 3.5]))
    assert not has_outliers(torch.tensor([0.0, 0.0]))  # nothing measured


def test_input_peaks_are_each_features_largest_input():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    batches = [torch.tensor([[1.0, -5.0, 0.5, 0.0]]), torch.tensor([[-2.0, 1.0, 0.25, 0.0]])]
    with torch.no_grad():
        peaks = input_peaks(model, lambda: [model(b) for b in batches])
    assert peaks["0"] == [2.0, 5.0, 0.5, 0.0]
    hidden = torch.relu(model[0](torch.cat(batches))).amax(0)
    assert peaks["2"] == [float(f"{v:.4g}") for v in hidden.tolist()]
    assert input_peaks(model, lambda: model(batches[0]), names={"2"}).keys() == {"2"}
    assert not any(m._forward_pre_hooks for m in model.modules())  # the hooks are gone


def test_int8_copy_with_peaks_takes_narrow_layers_and_smooths_those_with_outliers():
    x = _outlier_inputs()
    model = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 64), nn.Linear(64, 32))
    with torch.no_grad():
        peaks = input_peaks(model, lambda: model(x))
    assert SMOOTHED_MIN_FEATURES == 64
    copied = int8_copy(model, peaks=peaks)
    first, second = copied[0], copied[2]
    assert isinstance(first, RowInt8Linear) and first.inverse_smoothing is not None  # feature 7
    assert isinstance(second, RowInt8Linear) and second.inverse_smoothing is None  # no outlier
    assert isinstance(copied[3], nn.Linear)  # 32 wide: float
    assert not any(isinstance(m, RowInt8Linear) for m in int8_copy(model).modules())  # without peaks: 256 and wider only
    # a layer that was not measured (added since) stays float
    assert isinstance(int8_copy(model, peaks={k: v for k, v in peaks.items() if k != "2"})[2], nn.Linear)
    with torch.no_grad():
        assert (copied(x) - model(x)).abs().max() < 0.05 * model(x).abs().max()
