"""spacy_lal.nn.dropout: torch's dropout distribution from a faster generator."""
import math

import pytest
import torch

from spacy_lal.nn.dropout import NUMPY_MIN_ELEMENTS, Dropout, FeatureDropout, dropout, keep_mask
from spacy_lal.nn.attention import MultiHeadSelfAttention

N = 1 << 20


def _within(observed: float, expected: float, n: int, sds: float = 5.0) -> bool:
    """``observed`` is a frequency over ``n`` Bernoulli trials of probability ``expected``."""
    return abs(observed - expected) <= sds * math.sqrt(expected * (1 - expected) / n)


@pytest.mark.parametrize("p", [0.1, 0.2, 0.5])
def test_elements_are_kept_independently_with_probability_one_minus_p(p):
    torch.manual_seed(0)
    out = dropout(torch.ones(N), p)
    kept = out != 0
    assert _within(kept.float().mean().item(), 1 - p, N)
    # Kept elements carry the inverse of the keep probability, so the expectation is the input.
    scale = out[kept].unique()
    assert scale.numel() == 1 and scale.item() == pytest.approx(1 / (1 - p), rel=1e-4)
    assert _within(out.mean().item() * (1 - p), 1 - p, N)
    # Four masks come from each 64-bit draw: neighbours (same draw) and elements four apart
    # (next draw) must be independent, so both pairs are kept together with probability (1-p)^2.
    for lag in (1, 2, 4):
        both = (kept[:-lag] & kept[lag:]).float().mean().item()
        assert _within(both, (1 - p) ** 2, N - lag)


def test_masks_follow_torch_seed_and_differ_between_calls():
    x = torch.ones(3 * NUMPY_MIN_ELEMENTS)
    torch.manual_seed(7)
    first, second = dropout(x, 0.3), dropout(x, 0.3)
    torch.manual_seed(7)
    assert torch.equal(dropout(x, 0.3), first)
    assert not torch.equal(first, second)


@pytest.mark.parametrize("n", [NUMPY_MIN_ELEMENTS - 1, NUMPY_MIN_ELEMENTS])
def test_small_and_large_tensors_have_the_same_semantics(n):
    torch.manual_seed(0)
    out = keep_mask((n,), 0.25, torch.empty(0))
    assert out.dtype == torch.float32
    values = out.unique().tolist()
    assert len(values) == 2 and values[0] == 0.0 and values[1] == pytest.approx(4 / 3, rel=1e-4)


def test_gradient_is_the_mask():
    torch.manual_seed(0)
    x = torch.full((64, 128), 2.0, requires_grad=True)
    out = dropout(x, 0.2)
    out.sum().backward()
    assert torch.equal(x.grad, out.detach() / 2)
    assert (x.grad == 0).any() and (x.grad != 0).any()


def test_identity_outside_training_or_at_zero():
    x = torch.randn(100, 100)
    assert dropout(x, 0.5, training=False) is x
    assert dropout(x, 0.0) is x
    module = Dropout(0.5).eval()
    assert module(x) is x
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        Dropout(1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        dropout(x, -0.1)


def test_feature_dropout_shares_one_mask_over_positions():
    torch.manual_seed(0)
    module = FeatureDropout(0.3).train()
    out = module(torch.ones(4, 50, 6, 32))  # (B, T, heads, d): one mask per sentence and head
    dropped = out == 0
    assert torch.equal(dropped, dropped[:, :1].expand_as(dropped))
    assert not torch.equal(dropped[0], dropped[1])
    assert 0 < dropped.float().mean().item() < 0.6


def test_self_attention_written_out_for_dropout_equals_sdpa(monkeypatch):
    # In training with attention dropout the labeller computes the attention itself; with the
    # dropout made an identity, that must be what SDPA computes.
    torch.manual_seed(0)
    attention = MultiHeadSelfAttention(32, 4, dropout=0.1)
    x = torch.randn(3, 9, 32)
    key_mask = torch.arange(9).unsqueeze(0) < torch.tensor([[9], [5], [1]])
    expected = attention.eval()(x, key_mask)
    monkeypatch.setattr("spacy_lal.nn.attention.dropout", lambda weights, p: weights)
    written_out = attention.train()(x, key_mask)
    assert torch.allclose(written_out, expected, atol=1e-6)
    # And the real dropout does act on the weights.
    monkeypatch.undo()
    assert not torch.allclose(attention.train()(x, key_mask), expected, atol=1e-3)



@pytest.mark.parametrize("p", [1e-6, 1 - 1e-6])
def test_probabilities_next_to_0_and_1_keep_their_meaning(p):
    """A probability closer to 0 or 1 than the 16-bit draws can tell still drops (or keeps) at
    about its rate, never at rate 0 or with an infinite scale."""
    torch.manual_seed(0)
    out = dropout(torch.ones(N), p)
    assert torch.isfinite(out).all()
    assert _within((out != 0).float().mean().item(), 1 - p, N)
