"""spacy_lal.nn.int8: int8 Linear layers whose output for an input row depends on that row alone."""
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
        # error of 8-bit inputs and weights: a small fraction of the outputs' spread
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
