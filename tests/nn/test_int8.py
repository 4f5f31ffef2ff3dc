"""spacy_lal.nn.int8: int8 Linear layers whose output for an input row depends on that row alone."""
import copy

import torch
from torch import nn

from spacy_lal.nn.int8 import RowInt8Linear, int8_copy


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
