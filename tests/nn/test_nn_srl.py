"""Tests for the DeepAtt SRL model and its heads (spacy_lal.nn.deepatt, .deepatt_layers, .predicates)
and the timing signal (spacy_lal.nn.timing)."""

from __future__ import annotations

import math

import pytest
import torch

from spacy_lal.nn.deepatt import DeepAtt, DeepAttConfig
from spacy_lal.nn.embeddings import lengths_to_mask
from spacy_lal.nn.predicates import (
    PredicateIdentifier,
    SenseClassifier,
    expand_predicates,
    gather_tokens,
    label_smoothed_cross_entropy,
    predicate_indicator,
    predicate_rows,
)
from spacy_lal.nn.timing import TimingSignal, timing_signal

SUBLAYERS = ["ffn", "rnn", "cnn"]
D_IN = 12


def tiny_config(**overrides) -> DeepAttConfig:
    base = dict(n_layers=2, d_model=16, n_heads=4, d_ff=32, d_mask=8)
    base.update(overrides)
    return DeepAttConfig(**base)


def make_batch(lengths, d_in=D_IN, seed=0):
    gen = torch.Generator().manual_seed(seed)
    t = max(lengths)
    x = torch.randn(len(lengths), t, d_in, generator=gen)
    mask = lengths_to_mask(torch.tensor(lengths), t)
    return x, mask


# Model variants: the three nonlinear sub-layers, and the LAL top layer (with and without its FFN).
VARIANTS = [
    pytest.param(dict(sublayer="ffn"), id="ffn"),
    pytest.param(dict(sublayer="rnn"), id="rnn"),
    pytest.param(dict(sublayer="cnn"), id="cnn"),
    pytest.param(dict(max_distance=2), id="distance"),
    pytest.param(dict(sentence_layers=1, max_distance=2), id="late-fusion"),
    pytest.param(dict(top_layer="lal"), id="lal"),
    pytest.param(dict(top_layer="lal", lal_ffn=False, lal_n_heads=3, sublayer="rnn"), id="lal-noffn"),
]


def test_distance_embedding_adds_the_clipped_offset_from_the_predicate():
    torch.manual_seed(0)
    model = DeepAtt(D_IN, 5, tiny_config(max_distance=2, n_layers=0)).eval()
    x, mask = make_batch([6, 6])
    rows = torch.tensor([0, 0, 1])
    with_distance, _ = model.embed(x, mask, torch.tensor([1, 4, 0]), rows)
    table = model.distance_embed.weight.detach().clone()
    with torch.no_grad():
        model.distance_embed.weight.zero_()
    without, _ = model.embed(x, mask, torch.tensor([1, 4, 0]), rows)
    for r, predicate in enumerate([1, 4, 0]):
        for t in range(6):
            expected = table[max(-2, min(2, t - predicate)) + 2]
            assert torch.allclose(with_distance[r, t] - without[r, t], expected, atol=1e-5)
    # A multi-token predicate (an explicit mask) is measured from its first token.
    span = torch.zeros(3, 6, dtype=torch.bool)
    span[0, 3:5] = span[1, 0] = span[2, 5] = True
    with torch.no_grad():
        model.distance_embed.weight.copy_(table)
    by_mask, _ = model.embed(x, mask, span, rows)
    by_mask_anchor = by_mask - model.embed(x, mask, torch.tensor([3, 0, 5]), rows)[0]
    mask_table = model.mask_proj(model.mask_embed.weight).detach()
    assert torch.allclose(by_mask_anchor[0, 4], mask_table[1] - mask_table[0], atol=1e-5)
    assert torch.allclose(by_mask_anchor[0, :4], torch.zeros(4, 16), atol=1e-5)


def test_no_distance_embedding_by_default():
    assert DeepAtt(D_IN, 5, tiny_config()).distance_embed is None
    with pytest.raises(ValueError, match="max_distance"):
        tiny_config(max_distance=-1)


# ------------------------------------------------------------------------------------------------
# Timing signal


def test_timing_signal_matches_equations():
    d = 6
    sig = timing_signal(5, d)
    for t in range(5):
        for i in range(d // 2):
            angle = t / 10000 ** (2 * i / d)
            assert sig[t, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert sig[t, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_timing_signal_odd_channels_and_long_inputs():
    sig = timing_signal(3, 5)
    assert sig.shape == (3, 5)
    assert sig[2, 4].item() == pytest.approx(math.sin(2 / 10000 ** (4 / 5)), abs=1e-6)
    layer = TimingSignal(8, initial_length=4)
    x = torch.zeros(2, 37, 8)
    out = layer(x)
    assert torch.allclose(out[0], timing_signal(37, 8))
    assert layer.cache.shape[0] >= 37
    assert "cache" not in layer.state_dict()  # parameter-free, not serialized


# ------------------------------------------------------------------------------------------------
# DeepAtt: shapes, masks, variants


@pytest.mark.parametrize("variant", VARIANTS)
def test_shapes_and_backprop(variant):
    torch.manual_seed(0)
    model = DeepAtt(D_IN, 7, tiny_config(**variant))
    x, mask = make_batch([6, 4, 1])
    x.requires_grad_(True)
    logits = model(x, mask, torch.tensor([0, 3, 0]))
    assert logits.shape == (3, 6, 7)
    targets = torch.randint(0, 7, (3, 6))
    loss = model.loss(logits, targets, mask)
    loss.backward()
    assert torch.isfinite(loss)
    for name, p in model.named_parameters():
        assert p.grad is not None, name
        assert torch.isfinite(p.grad).all(), name
        assert p.grad.abs().sum() > 0, name
    assert x.grad is not None and x.grad[:, :, :].abs().sum() > 0
    # padded positions of the input get no gradient: they cannot influence real outputs
    assert x.grad[1, 4:].abs().max() == 0
    assert x.grad[2, 1:].abs().max() == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_padding_invariance(variant):
    """Each sentence's logits are the same alone as in a padded batch, whatever the padding holds."""
    torch.manual_seed(0)
    model = DeepAtt(D_IN, 5, tiny_config(n_layers=3, **variant)).eval()
    lengths = [7, 3, 5]
    preds = torch.tensor([2, 0, 4])
    x, mask = make_batch(lengths)
    x[mask.logical_not()] = 1e3  # garbage in the padding must not leak
    with torch.no_grad():
        batched = model(x, mask, preds)
        for i, n in enumerate(lengths):
            single = model(x[i : i + 1, :n], mask[i : i + 1, :n], preds[i : i + 1])
            torch.testing.assert_close(batched[i, :n], single[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_empty_row_is_finite(variant):
    model = DeepAtt(D_IN, 5, tiny_config(**variant)).eval()
    x, mask = make_batch([4, 0, 2])
    with torch.no_grad():
        out = model(x, mask, torch.tensor([1, -1, 0]))
    assert torch.isfinite(out).all()


def test_predicate_mask_changes_outputs():
    torch.manual_seed(0)
    model = DeepAtt(D_IN, 5, tiny_config()).eval()
    x, mask = make_batch([6, 6])
    x[1] = x[0]
    with torch.no_grad():
        out = model(x, mask, torch.tensor([1, 4]))
        no_pred = model(x[:1], mask[:1], torch.tensor([-1]))
        # an explicit (R, T) mask m is the same input as the index form
        explicit = model(x, mask, predicate_indicator(torch.tensor([1, 4]), 6).long())
    assert not torch.allclose(out[0], out[1], atol=1e-4)
    assert not torch.allclose(out[0], no_pred[0], atol=1e-4)
    torch.testing.assert_close(out, explicit)


def test_long_input_beyond_timing_cache():
    model = DeepAtt(D_IN, 3, tiny_config(n_layers=1)).eval()
    x, mask = make_batch([300])
    with torch.no_grad():
        out = model(x, mask, torch.tensor([150]))
    assert out.shape == (1, 300, 3) and torch.isfinite(out).all()


def test_float64():
    model = DeepAtt(D_IN, 3, tiny_config(sublayer="rnn")).double().eval()
    x, mask = make_batch([5, 2])
    out = model(x.double(), mask, torch.tensor([0, 1]))
    assert out.dtype == torch.float64


def test_configs():
    paper = DeepAttConfig.paper()
    assert (paper.n_layers, paper.d_model, paper.n_heads, paper.d_ff, paper.d_mask) == (10, 200, 8, 800, 100)
    assert (paper.residual_dropout, paper.attention_dropout, paper.relu_dropout) == (0.2, 0.1, 0.1)
    assert paper.label_smoothing == 0.1 and paper.conv_width == 3
    cpu = DeepAttConfig.cpu()
    assert (cpu.n_layers, cpu.d_model, cpu.n_heads, cpu.d_ff) == (4, 128, 4, 256)
    assert DeepAttConfig.paper(sublayer="rnn").sublayer == "rnn"
    model = DeepAtt.paper(20, 9)
    assert len(model.layers) == 10 and model.output.out_features == 9
    with pytest.raises(ValueError):
        DeepAttConfig(sublayer="gru")
    with pytest.raises(ValueError):
        DeepAttConfig(d_model=10, n_heads=4)
    with pytest.raises(ValueError):
        DeepAttConfig(conv_width=2)
    with pytest.raises(ValueError):
        DeepAttConfig(top_layer="crf")


# ------------------------------------------------------------------------------------------------
# Loss


def test_label_smoothing_matches_hand_computation():
    logits = torch.tensor([[[2.0, 0.5, -1.0], [0.0, 1.0, 3.0], [9.0, 9.0, 9.0]]])
    targets = torch.tensor([[0, 1, 2]])
    mask = torch.tensor([[True, True, False]])
    eps = 0.1
    expected = []
    for row, y in zip(logits[0, :2].tolist(), targets[0, :2].tolist()):
        z = math.log(sum(math.exp(v) for v in row))
        logp = [v - z for v in row]
        q = [1 - eps if k == y else eps / 2 for k in range(3)]  # eps over the K - 1 = 2 others
        expected.append(-sum(qk * lk for qk, lk in zip(q, logp)))
    got = label_smoothed_cross_entropy(logits, targets, mask, epsilon=eps)
    assert got.item() == pytest.approx(sum(expected) / 2, rel=1e-6)
    per_token = label_smoothed_cross_entropy(logits, targets, mask, epsilon=eps, reduction="none")
    assert per_token[0, :2].tolist() == pytest.approx(expected, rel=1e-6)
    assert per_token[0, 2].item() == 0.0
    total = label_smoothed_cross_entropy(logits, targets, mask, epsilon=eps, reduction="sum")
    assert total.item() == pytest.approx(sum(expected), rel=1e-6)
    # ignore_index works like the mask
    targets_ign = torch.tensor([[0, 1, -100]])
    assert label_smoothed_cross_entropy(logits, targets_ign, epsilon=eps).item() == pytest.approx(got.item())
    # eps = 0 is plain cross-entropy
    plain = label_smoothed_cross_entropy(logits, targets, mask, epsilon=0.0)
    ref = torch.nn.functional.cross_entropy(logits[0, :2], targets[0, :2])
    assert plain.item() == pytest.approx(ref.item(), rel=1e-6)


def test_model_loss_uses_config_epsilon():
    model = DeepAtt(D_IN, 4, tiny_config(label_smoothing=0.2))
    logits = torch.randn(2, 3, 4)
    targets = torch.randint(0, 4, (2, 3))
    mask = lengths_to_mask([3, 2])
    ref = label_smoothed_cross_entropy(logits, targets, mask, epsilon=0.2)
    assert model.loss(logits, targets, mask).item() == pytest.approx(ref.item())


# ------------------------------------------------------------------------------------------------
# Predicate expansion


def test_predicate_expansion_matches_naive_loop():
    torch.manual_seed(0)
    lengths = [5, 3, 6, 2]
    preds = [[0, 3], [], [1, 2, 5], [1]]
    x, mask = make_batch(lengths)
    rows, positions = predicate_rows(preds)
    assert rows.tolist() == [0, 0, 2, 2, 2, 3]
    assert positions.tolist() == [0, 3, 1, 2, 5, 1]
    ex, em, pm = expand_predicates(x, mask, rows, positions)

    naive_x, naive_m, naive_p = [], [], []
    for i, plist in enumerate(preds):
        for p in plist:
            naive_x.append(x[i].clone())
            naive_m.append(mask[i].clone())
            naive_p.append(torch.tensor([t == p for t in range(x.shape[1])]))
    torch.testing.assert_close(ex, torch.stack(naive_x))
    assert torch.equal(em, torch.stack(naive_m))
    assert torch.equal(pm, torch.stack(naive_p))

    vecs = gather_tokens(x, rows, positions)
    torch.testing.assert_close(vecs, torch.stack([x[i, p] for i, pl in enumerate(preds) for p in pl]))

    # the model's own gather (after the projection, or after the sentence layers with late
    # fusion) equals running on the expanded rows, and each predicate alone
    for config in (tiny_config(), tiny_config(n_layers=3, sentence_layers=2)):
        model = DeepAtt(D_IN, 5, config).eval()
        with torch.no_grad():
            fast = model(x, mask, positions, rows=rows)
            slow = model(ex, em, positions)
            loop = torch.cat(
                [model(x[i : i + 1], mask[i : i + 1], torch.tensor([p])) for i, pl in enumerate(preds) for p in pl]
            )
        torch.testing.assert_close(fast, slow, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(fast, loop, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("sentence_layers", [0, 1])
def test_predicate_rows_empty(sentence_layers):
    rows, positions = predicate_rows([[], []])
    assert rows.shape == (0,) and positions.shape == (0,)
    x, mask = make_batch([3, 2])
    model = DeepAtt(D_IN, 5, tiny_config(sentence_layers=sentence_layers)).eval()
    with torch.no_grad():
        out = model(x, mask, positions, rows=rows)
    assert out.shape == (0, 3, 5)


def test_late_fusion_runs_the_sentence_layers_once_per_sentence_and_blind_to_the_predicate():
    torch.manual_seed(0)
    model = DeepAtt(D_IN, 5, tiny_config(n_layers=3, sentence_layers=2)).eval()
    seen = {}
    for k, layer in enumerate(model.layers):
        layer.register_forward_hook(lambda module, args, out, k=k: seen.setdefault(k, []).append(out))
    x, mask = make_batch([5, 3, 6, 2])
    rows, positions = predicate_rows([[0, 3], [], [1, 2, 5], []])
    with torch.no_grad():
        model(x, mask, positions, rows=rows)
        model(x, mask, torch.tensor([4, 1, 0]), rows=torch.tensor([0, 2, 2]))
    # the two lower layers saw the two sentences with predicates, once each, and computed the
    # same states whatever the predicates; the top layer saw one row per predicate
    assert [out.shape[0] for out in seen[0]] == [2, 2] and [out.shape[0] for out in seen[1]] == [2, 2]
    torch.testing.assert_close(seen[1][0], seen[1][1])
    assert [out.shape[0] for out in seen[2]] == [5, 3]
    # the predicate reaches the rows above the sentence layers
    rows_of_sentence_2 = seen[2][0][2:]
    assert not torch.allclose(rows_of_sentence_2[0], rows_of_sentence_2[1], atol=1e-4)


def test_late_fusion_must_leave_a_predicate_aware_layer():
    assert DeepAttConfig().sentence_layers == 0  # the paper: every layer knows the predicate
    for bad in (-1, 4, 5):
        with pytest.raises(ValueError, match="sentence_layers"):
            DeepAttConfig(n_layers=4, sentence_layers=bad)


def test_rows_gradient_flows_back_to_sentences():
    x, mask = make_batch([4, 3])
    x.requires_grad_(True)
    rows, positions = predicate_rows([[0, 2], [1]])
    model = DeepAtt(D_IN, 5, tiny_config())
    model(x, mask, positions, rows=rows).sum().backward()
    assert x.grad[0].abs().sum() > 0 and x.grad[1, :3].abs().sum() > 0


# ------------------------------------------------------------------------------------------------
# Heads


def test_heads_shapes():
    x, mask = make_batch([5, 3])
    ident = PredicateIdentifier(D_IN, n_classes=2, d_hidden=16)
    logits = ident(x)
    assert logits.shape == (2, 5, 2)
    loss = ident.loss(logits, torch.randint(0, 2, (2, 5)), mask)
    assert torch.isfinite(loss)
    rows, positions = predicate_rows([[1, 4], [0]])
    sense = SenseClassifier(D_IN, n_senses=4, d_hidden=16)
    s_logits = sense(x, rows, positions)
    assert s_logits.shape == (3, 4)
    loss = sense.loss(s_logits, torch.tensor([0, -100, 3]))
    loss.backward()
    assert torch.isfinite(loss)


def test_sense_loss_restricted_to_allowed_classes():
    """``allowed``: each row's softmax runs over its allowed classes and its target's; an ignored
    row is not restricted (and adds nothing); disallowed classes get no gradient."""
    torch.manual_seed(0)
    sense = SenseClassifier(D_IN, n_senses=4, d_hidden=16)
    logits = torch.randn(3, 4, requires_grad=True)
    targets = torch.tensor([1, -100, 0])
    allowed = torch.tensor([[False, True, False, True], [False, False, False, False], [False, True, True, False]])
    loss = sense.loss(logits, targets, allowed=allowed, reduction="sum")
    expected = -(torch.log_softmax(logits[0, [1, 3]], -1)[0] + torch.log_softmax(logits[2, [0, 1, 2]], -1)[0])
    assert torch.allclose(loss, expected)
    loss.backward()
    assert torch.isfinite(logits.grad).all()
    assert not logits.grad[0, [0, 2]].any() and not logits.grad[1].any() and logits.grad[2, 3] == 0
    assert sense.loss(logits.detach(), targets, reduction="sum") > loss.detach()  # fewer rivals
    with pytest.raises(ValueError, match="label smoothing"):
        sense.loss(logits, targets, allowed=allowed, label_smoothing=0.1)


# ------------------------------------------------------------------------------------------------
# Overfitting


def overfit(config: DeepAttConfig, steps: int = 400, seed: int = 0) -> tuple[float, float, float]:
    """Train on 3 random sentences (2, 1 and 2 predicates) with random BIO-tag ids; return token
    accuracies of the role tagger, the predicate identifier and the sense classifier."""
    torch.manual_seed(seed)
    n_labels, n_senses = 7, 3
    lengths = [8, 6, 7]
    preds = [[1, 5], [2], [0, 6]]
    x, mask = make_batch(lengths, seed=seed)
    rows, positions = predicate_rows(preds)
    row_mask = mask[rows]
    roles = torch.randint(0, n_labels, row_mask.shape)
    is_pred = torch.zeros_like(mask, dtype=torch.long)
    is_pred[rows, positions] = 1
    senses = torch.randint(0, n_senses, rows.shape)

    model = DeepAtt(D_IN, n_labels, config)
    ident = PredicateIdentifier(D_IN, d_hidden=32, dropout=0.0)
    sense = SenseClassifier(D_IN, n_senses, d_hidden=32, dropout=0.0)
    params = [*model.parameters(), *ident.parameters(), *sense.parameters()]
    opt = torch.optim.Adam(params, lr=3e-3)

    def accuracies() -> tuple[float, float, float]:
        with torch.no_grad():
            for m in (model, ident, sense):
                m.eval()
            role_ok = (model(x, mask, positions, rows=rows).argmax(-1) == roles)[row_mask]
            pred_ok = (ident(x).argmax(-1) == is_pred)[mask]
            sense_ok = sense(x, rows, positions).argmax(-1) == senses
            for m in (model, ident, sense):
                m.train()
        return role_ok.float().mean().item(), pred_ok.float().mean().item(), sense_ok.float().mean().item()

    for step in range(steps):
        opt.zero_grad()
        loss = (
            model.loss(model(x, mask, positions, rows=rows), roles, row_mask)
            + ident.loss(ident(x), is_pred, mask)
            + sense.loss(sense(x, rows, positions), senses)
        )
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)  # paper, "Learning"
        opt.step()
        if step % 25 == 24 and accuracies() == (1.0, 1.0, 1.0):
            break
    return accuracies()


NO_DROPOUT = dict(residual_dropout=0.0, attention_dropout=0.0, relu_dropout=0.0, input_dropout=0.0)


@pytest.mark.parametrize("sublayer", SUBLAYERS)
def test_overfit_tiny(sublayer):
    config = tiny_config(sublayer=sublayer, d_model=32, d_ff=64, **NO_DROPOUT)
    assert overfit(config) == (1.0, 1.0, 1.0)


def test_overfit_late_fusion():
    config = tiny_config(n_layers=3, sentence_layers=1, d_model=32, d_ff=64, **NO_DROPOUT)
    assert overfit(config) == (1.0, 1.0, 1.0)


def test_lal_heads_default_to_labels():
    model = DeepAtt(D_IN, 7, tiny_config(top_layer="lal", lal_d_proj=4))
    assert model.top.n_heads == 7
    assert model.output.in_features == 7 * 4
    model = DeepAtt(D_IN, 7, tiny_config(top_layer="lal", lal_n_heads=5, lal_d_proj=4))
    assert model.top.n_heads == 5 and model.output.in_features == 20


def test_overfit_lal_top_layer():
    config = tiny_config(d_model=32, d_ff=64, top_layer="lal", lal_dropout=0.0, **NO_DROPOUT)
    assert overfit(config) == (1.0, 1.0, 1.0)
