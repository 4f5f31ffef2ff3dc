"""Tests of the torch modules of the Label Attention parser (spacy_lal.nn).

Equations are checked against direct per-head / per-span loops written from the papers
(Mrini et al. eq. 1-12; Kitaev & Klein sec. 3), then a tiny model overfits random trees.
"""

from __future__ import annotations

import math
import random
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import pytest
import torch
from torch import nn

from spacy_lal.decode import cky
from spacy_lal.nn import (
    BiaffineArcScorer,
    BiaffineLabelScorer,
    LabelAttention,
    LabelAttentionParserModel,
    ParserConfig,
    SpanScorer,
    arc_mask,
    dependency_loss,
    fencepost_vectors,
    hamming_cost,
    head_contributions,
    hinge_loss,
    span_features,
    span_mask,
    tree_score,
)

ATOL = 1e-5


def _randomize(module: nn.Module, seed: int = 0) -> None:
    """Give every parameter random values (biaffine weights start at zero, which hides bugs)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)


def _small_model(**kwargs) -> LabelAttentionParserModel:
    defaults = dict(
        n_dep_labels=3, max_length=12, d_model=32, n_layers=2, n_heads=2, d_kv=8,
        d_ff=32, lal_d_kv=8, lal_d_proj=8, lal_d_ff=24, d_span_hidden=16, d_arc=16, d_dep_label=8,
    )
    defaults.update(kwargs)
    return LabelAttentionParserModel(10, 4, **defaults)


def _inputs(lengths: List[int], T: Optional[int] = None, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    T = max(lengths) if T is None else T
    x = torch.randn(len(lengths), T, 10, generator=gen)
    return x, torch.tensor(lengths)


# ---------------------------------------------------------------------------------------------
# shapes and padding


@pytest.mark.parametrize("query", ["vector", "matrix"])
@pytest.mark.parametrize("combine", ["concat", "project"])
def test_shapes_and_padding_invariance(query: str, combine: str) -> None:
    torch.manual_seed(0)
    model = _small_model(lal_query=query, lal_combine=combine).eval()
    lengths = [5, 2, 4, 1]
    x, lens = _inputs(lengths, T=7)  # extra padding beyond the longest sentence
    out = model(x, lens, return_attention=True)
    B, T = 4, 7
    d_lal = model.label_attention.d_out
    assert d_lal == (3 * 8 if combine == "concat" else 32)
    assert out.annotations.shape == (B, T + 2, d_lal)
    assert out.chart.shape == (B, T + 1, T + 1, 4)
    assert out.arc_scores.shape == (B, T + 1, T + 1)
    assert torch.isfinite(out.arc_scores).all()
    att = out.label_attention.attention
    assert att.shape == ((B, 3, T + 2) if query == "vector" else (B, 3, T + 2, T + 2))
    assert len(out.encoder_attention) == 2 and out.encoder_attention[0].shape == (B, 2, T + 2, T + 2)
    assert torch.all(out.chart[..., 0] == 0)
    valid = span_mask(lens, T)
    assert torch.all(out.chart[~valid] == 0)

    for b, n in enumerate(lengths):
        # each sentence alone, padded to its own length
        single = model(x[b : b + 1, :n], lens[b : b + 1], return_attention=True)
        torch.testing.assert_close(out.annotations[b, : n + 2], single.annotations[0], atol=ATOL, rtol=1e-4)
        torch.testing.assert_close(out.chart[b, : n + 1, : n + 1], single.chart[0], atol=ATOL, rtol=1e-4)
        torch.testing.assert_close(out.arc_scores[b, : n + 1, : n + 1], single.arc_scores[0], atol=ATOL,
                                   rtol=1e-4)
        a_batch = out.label_attention.attention[b]
        a_single = single.label_attention.attention[0]
        if query == "vector":
            torch.testing.assert_close(a_batch[:, : n + 2], a_single, atol=ATOL, rtol=1e-4)
            assert torch.all(a_batch[:, n + 2 :] == 0)  # padding gets no attention
        else:
            torch.testing.assert_close(a_batch[:, : n + 2, : n + 2], a_single, atol=ATOL, rtol=1e-4)
        heads = torch.randint(0, n + 1, (1, n + 1))
        padded_heads = torch.zeros(1, T + 1, dtype=torch.long)
        padded_heads[:, : n + 1] = heads
        lab_batch = model.dep_label_scores(out, padded_heads.expand(B, -1))[b, : n + 1]
        torch.testing.assert_close(lab_batch, model.dep_label_scores(single, heads)[0], atol=ATOL, rtol=1e-4)


def test_mask_argument_and_defaults() -> None:
    model = _small_model().eval()
    x, lens = _inputs([4, 2])
    a = model(x, lens)
    b = model(x, mask=torch.arange(4).unsqueeze(0) < lens.unsqueeze(1))
    torch.testing.assert_close(a.chart, b.chart)
    full = model(x[:1])  # no lengths: every row is full length
    assert int(full.lengths[0]) == 4
    # one LAL head per non-empty label by default
    assert model.label_attention.n_heads == 3
    assert LabelAttentionParserModel(10, 4, n_lal_heads=7).label_attention.n_heads == 7


def test_dependency_only_and_constituency_only_models() -> None:
    x, lens = _inputs([3, 2])
    dep_only = LabelAttentionParserModel(10, 0, n_dep_labels=5, d_model=32, n_layers=1, lal_d_proj=4)
    assert dep_only.span_scorer is None and dep_only.label_attention.n_heads == 5
    out = dep_only(x, lens)
    assert out.chart.shape == (2, 4, 4, 0) and out.arc_scores.shape == (2, 4, 4)
    heads = torch.tensor([[-1, 0, 1, 1], [-1, 0, 1, -1]])
    total, parts = dep_only.loss(out, None, None, gold_heads=heads, gold_dep_labels=torch.zeros(2, 4, dtype=torch.long))
    assert set(parts) == {"dep"} and torch.isfinite(total)
    with pytest.raises(ValueError, match="no constituency"):
        dep_only.loss(out, torch.zeros(1, 4, dtype=torch.long), torch.zeros(1, 4, dtype=torch.long))
    const_only = LabelAttentionParserModel(10, 3, dependency=False, d_model=32, n_layers=1, lal_d_proj=4)
    out = const_only(x, lens)
    assert out.arc_scores is None and const_only.arc_scorer is None
    with pytest.raises(ValueError, match="dependency"):
        const_only.loss(out, None, None, gold_heads=heads)
    with pytest.raises(ValueError):
        LabelAttentionParserModel(10, 0, dependency=False)


def test_dep_input_encoder_reads_the_encoder_output() -> None:
    """With dep_input="encoder" the arcs and labels depend on the encoder output only: changing
    the LAL leaves them unchanged, and the arc scorer is sized for d_model, not the LAL."""
    torch.manual_seed(0)
    x, lens = _inputs([4, 3])
    model = LabelAttentionParserModel(10, 3, n_dep_labels=4, d_model=32, n_layers=1, lal_d_proj=4,
                                      dep_input="encoder").eval()
    assert next(model.arc_scorer.dep_mlp.parameters()).shape[-1] == 32
    with torch.no_grad():  # the biaffine weights start at zero (Dozat & Manning)
        for parameter in [*model.arc_scorer.parameters(), *model.dep_label_scorer.parameters()]:
            parameter.normal_()
    out = model(x, lens)
    assert out.dep_features.shape[-1] == 32 and out.annotations.shape[-1] != 32
    heads = torch.tensor([[-1, 0, 1, 1, 2], [-1, 0, 1, 1, -1]])
    labels = model.dep_label_scores(out, heads.clamp(min=0))
    with torch.no_grad():
        for parameter in model.label_attention.parameters():
            parameter.add_(1.0)
    again = model(x, lens)
    assert out.arc_scores.abs().sum() > 0
    torch.testing.assert_close(again.arc_scores, out.arc_scores)
    torch.testing.assert_close(model.dep_label_scores(again, heads.clamp(min=0)), labels)
    assert not torch.allclose(again.annotations, out.annotations)
    total, parts = model.loss(out, None, None, gold_heads=heads, gold_dep_labels=torch.zeros(2, 5, dtype=torch.long))
    assert set(parts) == {"dep"} and torch.isfinite(total)
    with pytest.raises(ValueError, match="dep_input"):
        ParserConfig(dep_input="lstm")


def test_config_holds_every_default_once() -> None:
    """Overrides replace single fields of ParserConfig; what is not given is ParserConfig's."""
    model = LabelAttentionParserModel(10, 4, d_model=32, lal_d_proj=4, n_layers=1)
    assert model.config == ParserConfig(d_model=32, lal_d_proj=4, n_layers=1)
    config = ParserConfig.with_dropout(0.4, d_model=32)
    assert (config.attention_dropout, config.relu_dropout, config.dep_dropout) == (0.4, 0.2, 0.4)
    with pytest.raises(ValueError, match="lal_d_proj must be even"):
        ParserConfig(lal_d_proj=5)
    with pytest.raises(TypeError):
        LabelAttentionParserModel(10, 4, n_tags=5)  # tags and characters come from spaCy layers


def test_max_length_error() -> None:
    model = _small_model(max_length=5)
    x = torch.randn(2, 6, 10)
    model(x, torch.tensor([5, 3]))  # padding beyond max_length is fine
    with pytest.raises(ValueError, match="max_length=5"):
        model(x, torch.tensor([6, 3]))


def test_no_device_specific_calls() -> None:
    import spacy_lal.nn as pkg
    from pathlib import Path

    for path in Path(pkg.__file__).parent.glob("*.py"):
        text = path.read_text()
        assert ".cuda(" not in text and "import spacy" not in text and "import thinc" not in text, path


# ---------------------------------------------------------------------------------------------
# Label Attention Layer (eq. 1-4) against a direct per-head loop


def _naive_lal(layer: LabelAttention, x: torch.Tensor, lengths: List[int]) -> torch.Tensor:
    B, T, _ = x.shape
    H, d = layer.n_heads, layer.d_kv
    out = torch.zeros(B, T, layer.d_out)
    for b in range(B):
        n = lengths[b]
        X = x[b, :n]
        contexts = []
        for h in range(H):
            K = X @ layer.w_k[h]  # eq. 2
            V = X @ layer.w_v[h]  # eq. 4
            if layer.query_kind == "vector":
                a = torch.softmax(layer.query[h] @ K.T / math.sqrt(d), dim=-1)  # eq. 1
                c = (a @ V).expand(n, d)  # eq. 3: one context vector, shared by all positions
            else:
                Q = X @ layer.w_q[h]
                a = torch.softmax(Q @ K.T / math.sqrt(d), dim=-1)
                c = a @ V
            contexts.append(c)
        for t in range(n):
            if layer.combine == "concat":
                pieces = []
                for h in range(H):
                    residual = X[t] + layer.w_o(contexts[h][t])  # one residual connection per head
                    pieces.append(layer.layer_norm(layer.reduce(residual)))  # project, then normalise
                out[b, t] = torch.cat(pieces)
            else:
                cat = torch.cat([contexts[h][t] for h in range(H)])
                out[b, t] = layer.layer_norm(X[t] + layer.w_o(cat))
    return out


@pytest.mark.parametrize("query", ["vector", "matrix"])
@pytest.mark.parametrize("combine", ["concat", "project"])
def test_label_attention_matches_per_head_loop(query: str, combine: str) -> None:
    torch.manual_seed(1)
    layer = LabelAttention(12, n_heads=3, d_kv=4, d_proj=6, query=query, combine=combine).eval()
    _randomize(layer, 1)
    x = torch.randn(2, 5, 12)
    lengths = [5, 3]
    mask = torch.arange(5).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    y, details = layer(x, mask, return_details=True)
    with torch.no_grad():
        expected = _naive_lal(layer, x, lengths)
    torch.testing.assert_close(y, expected, atol=ATOL, rtol=1e-4)
    if combine == "concat":
        assert details.head_outputs.shape == (2, 5, 3, 6)
        torch.testing.assert_close(details.head_outputs[0].reshape(5, 18), y[0])
    else:
        assert details.head_outputs is None
    # attention weights are distributions over the valid words
    sums = details.attention.sum(-1)
    torch.testing.assert_close(sums[1, ..., :3] if query == "matrix" else sums, torch.ones_like(
        sums[1, ..., :3] if query == "matrix" else sums))


def test_ablation_switches_change_parameters() -> None:
    def params(**kw) -> Dict[str, Tuple[int, ...]]:
        layer = LabelAttention(16, n_heads=4, d_kv=8, d_proj=6, **kw)
        return {name: tuple(p.shape) for name, p in layer.named_parameters()}

    base = params()
    assert base == {
        "query": (4, 8), "w_k": (4, 16, 8), "w_v": (4, 16, 8), "w_o.weight": (16, 8),
        "reduce.weight": (6, 16), "layer_norm.weight": (6,), "layer_norm.bias": (6,),
    }
    matrix = params(query="matrix")
    assert "query" not in matrix and matrix["w_q"] == (4, 16, 8)
    assert set(matrix) - {"w_q"} == set(base) - {"query"}
    project = params(combine="project")
    assert "reduce.weight" not in project
    assert project["w_o.weight"] == (16, 4 * 8) and project["layer_norm.weight"] == (16,)
    both = params(query="matrix", combine="project")
    assert "w_q" in both and "reduce.weight" not in both
    assert LabelAttention(16, 4, 8, 6).d_out == 24 and LabelAttention(16, 4, 8, 6, combine="project").d_out == 16
    with pytest.raises(ValueError):
        LabelAttention(16, 4, query="vectors")  # type: ignore[arg-type]
    # the feed-forward switch of the full model
    with_ffn = {n for n, _ in _small_model().named_parameters()}
    without = {n for n, _ in _small_model(lal_ffn=False).named_parameters()}
    assert {n for n in with_ffn - without} == {n for n in with_ffn if n.startswith("label_attention.ffn.")}
    assert without < with_ffn


def test_residual_dropout_is_per_head() -> None:
    torch.manual_seed(0)
    layer = LabelAttention(8, n_heads=2, d_kv=4, d_proj=4, residual_dropout=0.5).train()
    layer.attention_dropout.p = 0.0
    x = torch.randn(1, 3, 8)
    mask = torch.ones(1, 3, dtype=torch.bool)
    outs = {tuple(layer(x, mask).flatten().tolist()) for _ in range(8)}
    assert len(outs) > 1  # dropout active in training
    layer.eval()
    torch.testing.assert_close(layer(x, mask), layer(x, mask))


# ---------------------------------------------------------------------------------------------
# spans (eq. 5-7)


@pytest.mark.parametrize("split", ["halves", "interleave"])
def test_span_features_match_naive_loop(split: str) -> None:
    torch.manual_seed(2)
    B, T, H, d = 2, 4, 3, 6
    Y = torch.randn(B, T + 2, H * d)
    feats = span_features(Y, n_heads=H, split=split)
    assert feats.shape == (B, T + 1, T + 1, H * d)
    for b in range(B):
        for i in range(T + 1):
            for j in range(i + 1, T + 1):
                parts = []
                for h in range(H):
                    v = Y[b, :, h * d : (h + 1) * d]
                    fwd, bwd = (v[:, : d // 2], v[:, d // 2 :]) if split == "halves" else (v[:, 0::2], v[:, 1::2])
                    # eq. 5 with sentinels: forward fenceposts at positions i, j; backward at i+1, j+1
                    parts += [fwd[j] - fwd[i], bwd[i + 1] - bwd[j + 1]]
                torch.testing.assert_close(feats[b, i, j], torch.cat(parts))
    e = fencepost_vectors(Y, H, split)
    assert e.shape == (B, T + 1, H * d)


def test_span_scorer_matches_mlp_on_span_features() -> None:
    torch.manual_seed(3)
    scorer = SpanScorer(12, n_labels=5, d_hidden=7, n_heads=2).eval()
    _randomize(scorer, 3)
    Y = torch.randn(2, 6, 12)
    lengths = torch.tensor([4, 2])
    chart = scorer(Y, lengths)
    assert chart.shape == (2, 5, 5, 5)
    feats = span_features(Y, n_heads=2)
    for b, n in enumerate(lengths.tolist()):
        for i in range(5):
            for j in range(5):
                if i < j <= n:
                    s = feats[b, i, j]
                    # eq. 6: W2 ReLU(LN(W1 s + b1)) + b2, with the empty label fixed at 0
                    expected = scorer.w2(torch.relu(scorer.layer_norm(scorer.w1(s))))
                    torch.testing.assert_close(chart[b, i, j], torch.cat([torch.zeros(1), expected]),
                                               atol=ATOL, rtol=1e-4)
                else:
                    assert torch.all(chart[b, i, j] == 0)


def test_tree_score_and_hamming_cost() -> None:
    chart = torch.zeros(2, 4, 4, 3)
    chart[0, 0, 3, 1] = 2.0
    chart[0, 0, 1, 2] = 0.5
    chart[0, 1, 3, 1] = -1.0
    chart[1, 0, 2, 2] = 3.0
    spans = torch.tensor([[0, 0, 3, 1], [0, 0, 1, 2], [0, 1, 3, 1], [0, 1, 2, 0], [1, 0, 2, 2]])
    torch.testing.assert_close(tree_score(chart, spans), torch.tensor([1.5, 3.0]))  # eq. 7
    gold_chart = torch.zeros(2, 4, 4, dtype=torch.long)
    gold_chart[0, 0, 3] = 1
    gold_chart[0, 0, 1] = 1
    gold_chart[1, 0, 2] = 2
    gold_chart[1, 0, 1] = 1
    pred = torch.tensor([[0, 0, 3, 1], [0, 0, 1, 2], [0, 1, 3, 0], [1, 0, 2, 2], [1, 0, 1, 0], [1, 1, 2, 0]])
    torch.testing.assert_close(hamming_cost(pred, gold_chart), torch.tensor([1.0, 1.0]))


def test_hinge_loss_value_and_gradient() -> None:
    chart = torch.zeros(2, 3, 3, 3)
    chart[:, 0, 2, 1] = 1.0  # gold root
    chart[:, 0, 1, 2] = 0.5  # gold
    chart[:, 1, 2, 2] = 0.25  # in the wrong prediction
    chart[:, 0, 2, 2] = 2.0  # wrong root label
    chart.requires_grad_(True)
    gold = torch.tensor([[b, 0, 2, 1] for b in range(2)] + [[b, 0, 1, 2] for b in range(2)]
                        + [[b, 1, 2, 0] for b in range(2)])
    pred = torch.tensor([[0, 0, 2, 2], [0, 0, 1, 0], [0, 1, 2, 2],  # sentence 0: a violating tree
                         [1, 0, 2, 1], [1, 0, 1, 2], [1, 1, 2, 0]])  # sentence 1: the gold tree
    cost = torch.tensor([3.0, 0.0])
    # s(gold) = 1.5, s(pred_0) = 2.25 -> 2.25 + 3 - 1.5 = 3.75; sentence 1: max(0, 0) = 0
    loss = hinge_loss(chart, gold, pred, cost, reduction="none")
    torch.testing.assert_close(loss, torch.tensor([3.75, 0.0]))
    total = hinge_loss(chart, gold, pred, cost, reduction="sum")
    total.backward()
    expected = torch.zeros_like(chart)
    expected[0, 0, 2, 2] += 1
    expected[0, 0, 1, 0] += 1
    expected[0, 1, 2, 2] += 1
    expected[0, 0, 2, 1] -= 1
    expected[0, 0, 1, 2] -= 1
    expected[0, 1, 2, 0] -= 1
    torch.testing.assert_close(chart.grad, expected)  # +1 on predicted spans, -1 on gold ones
    assert hinge_loss(chart, gold, pred, cost).item() == pytest.approx(3.75 / 2)  # mean over sentences

    # zero (and zero gradient) when the gold tree wins by the margin
    chart2 = chart.detach().clone()
    chart2[0, 0, 2, 1] = 10.0
    chart2.requires_grad_(True)
    loss2 = hinge_loss(chart2, gold, pred, cost, reduction="sum")
    assert loss2.item() == 0.0
    loss2.backward()
    assert torch.all(chart2.grad == 0)
    # exactly at the margin is also zero: s(gold) = s(pred) + cost
    chart3 = chart.detach().clone()
    chart3[0, 0, 2, 1] = 1.0 + 3.75
    assert hinge_loss(chart3, gold, pred, cost, reduction="sum").item() == pytest.approx(0.0, abs=1e-6)


def test_head_contributions() -> None:
    v = torch.tensor([[1.0, -1.0, 0.0, 0.0, 2.0, 2.0]])
    c = head_contributions(v, n_heads=3)
    torch.testing.assert_close(c, torch.tensor([[1 / 3, 0.0, 2 / 3]]))
    model = _small_model(lal_ffn=False).eval()
    x, lens = _inputs([4, 3])
    out = model(x, lens)
    contrib = head_contributions(model.span_features(out), model.label_attention.n_heads)
    torch.testing.assert_close(contrib[0, 0, 4].sum(), torch.tensor(1.0))


# ---------------------------------------------------------------------------------------------
# biaffine (eq. 10-11)


def test_biaffine_arc_scores_match_naive() -> None:
    torch.manual_seed(4)
    scorer = BiaffineArcScorer(6, d_arc=5).eval()
    _randomize(scorer, 4)
    tokens = torch.randn(2, 4, 6)
    scores = scorer(tokens)
    hd = torch.relu(scorer.dep_mlp.linear(tokens))
    hh = torch.relu(scorer.head_mlp.linear(tokens))
    for b in range(2):
        for d in range(4):
            for h in range(4):
                # eq. 10: h_d^T W h_h + U^T h_d + V^T h_h + b
                expected = hd[b, d] @ scorer.W @ hh[b, h] + scorer.U @ hd[b, d] + scorer.V @ hh[b, h] + scorer.b[0]
                torch.testing.assert_close(scores[b, d, h], expected, atol=ATOL, rtol=1e-4)


def test_biaffine_labels_match_all_pairs() -> None:
    torch.manual_seed(5)
    scorer = BiaffineLabelScorer(6, n_labels=3, d_label=4).eval()
    _randomize(scorer, 5)
    tokens = torch.randn(2, 5, 6)
    heads = torch.tensor([[-1, 0, 1, 1, 2], [-1, 2, 0, -1, -1]])
    picked = scorer(tokens, heads)
    full = scorer.all_pairs(tokens)
    assert picked.shape == (2, 5, 3) and full.shape == (2, 5, 5, 3)
    hd = torch.relu(scorer.dep_mlp.linear(tokens))
    hh = torch.relu(scorer.head_mlp.linear(tokens))
    for b in range(2):
        for d in range(1, 5):
            h = max(int(heads[b, d]), 0)
            for lab in range(3):
                expected = (hd[b, d] @ scorer.W[lab] @ hh[b, h]
                            + scorer.U.weight[lab] @ torch.cat([hd[b, d], hh[b, h]]) + scorer.U.bias[lab])
                torch.testing.assert_close(picked[b, d, lab], expected, atol=ATOL, rtol=1e-4)
                torch.testing.assert_close(full[b, d, h, lab], expected, atol=ATOL, rtol=1e-4)


def test_biaffine_label_gradients_match_the_plain_sum() -> None:
    """Scoring W_l h_h once per head (shared by its dependents) gives the gradients of the plain
    per-pair sum h_d^T W_l h_h."""
    torch.manual_seed(6)
    scorer = BiaffineLabelScorer(6, n_labels=3, d_label=4)
    _randomize(scorer, 6)
    tokens = torch.randn(2, 5, 6, requires_grad=True)
    heads = torch.tensor([[-1, 0, 1, 1, 1], [-1, 2, 0, 2, -1]])
    weights = torch.randn(2, 5, 3)
    (scorer(tokens, heads) * weights).sum().backward()
    fast = [tokens.grad.clone(), scorer.W.grad.clone()]
    tokens.grad, scorer.W.grad = None, None
    hd = scorer.dep_mlp(tokens)
    hh = scorer.head_mlp(tokens).gather(1, heads.clamp(0, 4).unsqueeze(-1).expand(-1, -1, 4))
    plain = torch.einsum("bdi,lij,bdj->bdl", hd, scorer.W, hh) + scorer.U(torch.cat([hd, hh], dim=-1))
    (plain * weights).sum().backward()
    for got, expected in zip(fast, [tokens.grad, scorer.W.grad]):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)


def test_dependency_loss_matches_naive() -> None:
    torch.manual_seed(6)
    arcs = torch.randn(2, 5, 5, requires_grad=True)
    labels = torch.randn(2, 5, 3)
    lengths = torch.tensor([4, 2])
    heads = torch.tensor([[-1, 2, 0, 2, 3], [-1, 0, 1, -1, -1]])
    gold_labels = torch.tensor([[0, 1, 2, 0, 1], [0, 2, 1, 0, 0]])
    loss, per_sentence = dependency_loss(arcs, lengths, heads, labels, gold_labels, reduction="sum")
    expected = []
    for b, n in enumerate(lengths.tolist()):
        total = torch.zeros(())
        for d in range(1, n + 1):
            candidates = [h for h in range(n + 1) if h != d]  # no self loops, no padding heads
            log_p = torch.log_softmax(arcs[b, d, candidates], -1)
            total = total - log_p[candidates.index(int(heads[b, d]))]  # -log P(h|d)
            total = total - torch.log_softmax(labels[b, d], -1)[gold_labels[b, d]]  # -log P(l|d,h)
        expected.append(total)
    torch.testing.assert_close(per_sentence, torch.stack(expected))
    loss.backward()
    assert torch.isfinite(arcs.grad).all()
    assert torch.all(arcs.grad[1, 3:] == 0) and torch.all(arcs.grad[:, 0] == 0)


def test_joint_loss_is_weighted_sum() -> None:
    model = _small_model(span_loss_weight=0.5, dep_loss_weight=2.0).eval()
    x, lens = _inputs([3, 2])
    out = model(x, lens)
    gold = torch.tensor([[0, 0, 3, 1], [0, 0, 1, 0], [0, 1, 3, 2], [0, 1, 2, 0], [0, 2, 3, 0],
                         [1, 0, 2, 3], [1, 0, 1, 0], [1, 1, 2, 0]])
    pred = gold.clone()
    pred[0, 3] = 2
    heads = torch.tensor([[-1, 0, 1, 1], [-1, 0, 1, -1]])
    dep_labels = torch.tensor([[0, 1, 2, 0], [0, 1, 1, 0]])
    total, parts = model.loss(out, gold, pred, torch.tensor([1.0, 0.0]), heads, dep_labels)
    torch.testing.assert_close(total, 0.5 * parts["span"] + 2.0 * parts["dep"])
    total.backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


# ---------------------------------------------------------------------------------------------
# overfitting random trees


def _python_cky(chart: np.ndarray, gold: Optional[np.ndarray] = None) -> Tuple[np.ndarray, float]:
    """Reference CKY (test-only), same contract as spacy_lal.decode.cky: label 0 scores 0, the root
    span is non-empty, +1 per span whose label differs from ``gold``; returns the 2n-1 spans of the
    best binarized tree in pre-order and its (augmented) score."""
    n, L = chart.shape[0] - 1, chart.shape[2]
    best: Dict[Tuple[int, int], float] = {}
    back: Dict[Tuple[int, int], Tuple[int, Optional[int]]] = {}
    for length in range(1, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            scores = chart[i, j].astype(np.float64).copy()
            scores[0] = 0.0
            if gold is not None:
                scores += (np.arange(L) != gold[i, j])
            if i == 0 and j == n and L > 1:
                scores[0] = -np.inf
            label = int(np.argmax(scores))
            split = None
            total = float(scores[label])
            if length > 1:
                split = max(range(i + 1, j), key=lambda k: best[i, k] + best[k, j])
                total += best[i, split] + best[split, j]
            best[i, j], back[i, j] = total, (label, split)
    spans: List[Tuple[int, int, int]] = []

    def walk(i: int, j: int) -> None:
        label, split = back[i, j]
        spans.append((i, j, label))
        if split is not None:
            walk(i, split)
            walk(split, j)

    walk(0, n)
    return np.array(spans, dtype=np.int32), best[0, n]


def _decoder() -> Tuple[str, Callable[..., np.ndarray]]:
    """``spacy_lal.decode.cky`` as ``(name, decode)`` with ``decode(chart, gold=None) -> spans
    [2n-1, 3]`` (the test-only reference above checks it)."""

    def run(chart: np.ndarray, gold: Optional[np.ndarray] = None) -> np.ndarray:
        gold32 = None if gold is None else gold.astype(np.int32)
        return np.asarray(cky(np.ascontiguousarray(chart, dtype=np.float32), gold32)[0])

    return "spacy_lal.decode.cky", run


def test_python_cky_reference_is_exact() -> None:
    """The test-only decoder against brute force over all binary trees (n <= 4)."""
    rng = np.random.default_rng(0)

    def trees(i: int, j: int):
        if j - i == 1:
            yield [(i, j)]
            return
        for k in range(i + 1, j):
            for left in trees(i, k):
                for right in trees(k, j):
                    yield [(i, j)] + left + right

    for n in range(1, 5):
        chart = rng.normal(size=(n + 1, n + 1, 3))
        gold = rng.integers(0, 3, size=(n + 1, n + 1))
        brute = -np.inf
        for tree in trees(0, n):
            s = 0.0
            for (i, j) in tree:
                scores = np.concatenate([[0.0], chart[i, j, 1:]]) + (np.arange(3) != gold[i, j])
                if (i, j) == (0, n):
                    scores[0] = -np.inf
                s += scores.max()
            brute = max(brute, s)
        spans, score = _python_cky(chart, gold)
        assert len(spans) == 2 * n - 1 and score == pytest.approx(brute)


def test_scores_agree_with_decoder_contract() -> None:
    """tree_score / hamming_cost agree with the CKY decoder's own score and cost (eq. 7-9)."""
    name, decode = _decoder()
    rng = np.random.default_rng(1)
    for n in (1, 3, 6):
        chart = rng.normal(size=(1, n + 1, n + 1, 4)).astype(np.float32)
        chart[..., 0] = 0.0  # as SpanScorer guarantees (tree_score reads the chart as is)
        gold = rng.integers(0, 4, size=(1, n + 1, n + 1))
        gold[0, 0, n] = 1
        spans = decode(chart[0], gold[0])
        ref_spans, ref_aug_score = _python_cky(chart[0], gold[0])
        rows = torch.tensor([[0, int(i), int(j), int(lab)] for i, j, lab in spans])
        score = tree_score(torch.from_numpy(chart), rows)
        cost = hamming_cost(rows, torch.from_numpy(gold))
        # the decoder's tree reaches the optimum of the loss-augmented objective
        assert float(score + cost) == pytest.approx(ref_aug_score, abs=1e-4), name
        result = cky(chart[0], gold[0].astype(np.int32))
        assert float(result[1]) == pytest.approx(float(score), abs=1e-4)
        assert int(result[2]) == int(cost)


def _random_tree(n: int, n_labels: int, rng: random.Random) -> List[Tuple[int, int, int]]:
    spans = []

    def build(i: int, j: int, root: bool) -> None:
        label = rng.randrange(1, n_labels) if root or rng.random() < 0.5 else 0
        spans.append((i, j, label))
        if j - i > 1:
            k = rng.randrange(i + 1, j)
            build(i, k, False)
            build(k, j, False)

    build(0, n, True)
    return spans


def test_overfit_random_trees() -> None:
    torch.manual_seed(0)
    rng = random.Random(0)
    n_labels, n_dep = 4, 3
    lengths = [5, 7, 4]
    B, T = len(lengths), max(lengths)
    model = LabelAttentionParserModel(
        8, n_labels, n_dep_labels=n_dep, max_length=10, d_model=32, n_layers=1, n_heads=2, d_kv=8, d_ff=32,
        lal_d_kv=8, lal_d_proj=8, lal_d_ff=32, d_span_hidden=32, d_arc=16, d_dep_label=16,
        attention_dropout=0.0, relu_dropout=0.0, residual_dropout=0.0, input_dropout=0.0, dep_dropout=0.0,
    )
    x = torch.randn(B, T, 8)
    lens = torch.tensor(lengths)
    gold_trees = [_random_tree(n, n_labels, rng) for n in lengths]
    gold_spans = torch.tensor([[b, i, j, lab] for b, tree in enumerate(gold_trees) for (i, j, lab) in tree])
    gold_chart = torch.zeros(B, T + 1, T + 1, dtype=torch.long)
    for b, tree in enumerate(gold_trees):
        for i, j, lab in tree:
            gold_chart[b, i, j] = lab
    gold_heads = torch.full((B, T + 1), -1, dtype=torch.long)
    gold_labels = torch.zeros(B, T + 1, dtype=torch.long)
    for b, n in enumerate(lengths):
        for d in range(1, n + 1):
            gold_heads[b, d] = rng.choice([h for h in range(n + 1) if h != d])
            gold_labels[b, d] = rng.randrange(n_dep)
    decoder_name, decode = _decoder()

    def labelled(spans: np.ndarray) -> set:
        return {(int(i), int(j), int(lab)) for i, j, lab in spans if lab != 0}

    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    solved = False
    for step in range(400):
        out = model(x, lens)
        chart = out.chart.detach().numpy()
        pred_rows = []
        for b, n in enumerate(lengths):
            spans = decode(chart[b, : n + 1, : n + 1], gold_chart[b, : n + 1, : n + 1].numpy())
            assert len(spans) == 2 * n - 1
            pred_rows += [[b, int(i), int(j), int(lab)] for i, j, lab in spans]
        pred_spans = torch.tensor(pred_rows)
        cost = hamming_cost(pred_spans, gold_chart)
        loss, parts = model.loss(out, gold_spans, pred_spans, cost, gold_heads, gold_labels)
        if parts["span"].item() == 0.0 and parts["dep"].item() < 0.05:
            solved = True
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert solved, f"did not overfit in 400 steps with the {decoder_name} decoder: {parts}"

    # training accuracy 100%: plain decoding recovers every gold constituent and dependency
    model.eval()
    with torch.no_grad():
        out = model(x, lens)
        for b, n in enumerate(lengths):
            spans = decode(out.chart[b, : n + 1, : n + 1].numpy())
            assert labelled(spans) == {(i, j, lab) for i, j, lab in gold_trees[b] if lab != 0}
        possible = arc_mask(lens, T)  # heads within the sentence, no self loops
        pred_heads = out.arc_scores.masked_fill(~possible, float("-inf")).argmax(-1)
        pred_labels = model.dep_label_scores(out, pred_heads).argmax(-1)
        for b, n in enumerate(lengths):
            assert pred_heads[b, 1 : n + 1].tolist() == gold_heads[b, 1 : n + 1].tolist()
            assert pred_labels[b, 1 : n + 1].tolist() == gold_labels[b, 1 : n + 1].tolist()


def test_dependency_loss_skips_unknown_heads_and_labels():
    from spacy_lal.nn.biaffine import dependency_loss

    torch.manual_seed(0)
    arcs = torch.randn(1, 4, 4)
    label_scores = torch.randn(1, 4, 5)
    lengths = torch.tensor([3])
    heads = torch.tensor([[0, 2, 0, 2]])
    labels = torch.tensor([[0, 1, 2, 3]])
    full, _ = dependency_loss(arcs, lengths, heads, label_scores, labels, reduction="sum")
    # Word 3 with an unknown head drops out entirely; word 1 with an unknown label keeps its arc.
    unknown_head, _ = dependency_loss(
        arcs, lengths, torch.tensor([[0, 2, 0, -1]]), label_scores, labels, reduction="sum"
    )
    unknown_label, _ = dependency_loss(
        arcs, lengths, heads, label_scores, torch.tensor([[0, -1, 2, 3]]), reduction="sum"
    )
    log_p = torch.log_softmax(arcs.masked_fill(torch.eye(4, dtype=torch.bool)[None], float("-inf")), -1)
    word3 = -log_p[0, 3, 2] - torch.log_softmax(label_scores[0, 3], -1)[3]
    label1 = -torch.log_softmax(label_scores[0, 1], -1)[1]
    torch.testing.assert_close(unknown_head, full - word3)
    torch.testing.assert_close(unknown_label, full - label1)


# ---------------------------------------------------------------------------------------------
# exact-algebra speed-ups: the fast forms against the equations computed the plain way


def test_label_attention_without_keys_and_values_equals_eq_1_to_4() -> None:
    torch.manual_seed(0)
    layer = LabelAttention(16, 3, d_kv=4, d_proj=4).eval()
    _randomize(layer)
    x = torch.randn(2, 6, 16)
    mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    _, details = layer(x, mask, return_details=True)
    # Eq. 1-4 as written: keys and values of every word for every head.
    k = torch.einsum("btd,hdk->bhtk", x, layer.w_k)
    v = torch.einsum("btd,hdk->bhtk", x, layer.w_v)
    logits = torch.einsum("hk,bhtk->bht", layer.query, k) / 2.0  # sqrt(d_kv)
    attention = torch.softmax(logits.masked_fill(~mask[:, None, :], float("-inf")), dim=-1)
    context = torch.einsum("bht,bhtk->bhk", attention, v)
    torch.testing.assert_close(details.attention, attention, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(details.context, context, atol=1e-5, rtol=1e-5)


def test_label_attention_folds_output_and_reduction_with_their_gradients() -> None:
    """Without residual dropout (prediction, or training at rate 0) ``W_red W_O c_i`` is one
    product: outputs and the gradients of ``W_O`` and ``W_red`` as the per-head loop's."""
    torch.manual_seed(0)
    layer = LabelAttention(12, n_heads=3, d_kv=4, d_proj=6, attention_dropout=0.0).train()
    _randomize(layer, 2)
    x = torch.randn(2, 5, 12)
    lengths = [5, 3]
    mask = torch.arange(5).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    weights = torch.randn(2, 5, layer.d_out) * mask.unsqueeze(-1)
    folded = layer(x, mask)
    plain = _naive_lal(layer, x, lengths)
    torch.testing.assert_close(folded, plain, atol=ATOL, rtol=1e-4)
    parameters = [layer.w_o.weight, layer.reduce.weight]
    for fast, slow in zip(torch.autograd.grad((folded * weights).sum(), parameters),
                          torch.autograd.grad((plain * weights).sum(), parameters)):
        torch.testing.assert_close(fast, slow, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("affine", [True, False])
def test_head_layer_norm_of_sums_equals_layer_norm_with_its_gradients(affine: bool) -> None:
    """LayerNorm of every (word, head) sum, from the parts (the LAL's per-head residual
    connection): values and gradients as torch's LayerNorm on the materialised sums."""
    from spacy_lal.nn.label_attention import _layer_norm_of_sums

    torch.manual_seed(0)
    norm = nn.LayerNorm(8, elementwise_affine=affine)
    if affine:
        _randomize(norm)
    words = (torch.randn(3, 5, 8) * 3).requires_grad_()
    heads = (torch.randn(3, 4, 8) + 1).requires_grad_()
    weights = torch.randn(3, 5, 4, 8)
    fast = _layer_norm_of_sums(words, heads, norm)
    fast_grads = torch.autograd.grad((fast * weights).sum(), [words, heads, *norm.parameters()])
    plain = norm(words.unsqueeze(2) + heads.unsqueeze(1))
    plain_grads = torch.autograd.grad((plain * weights).sum(), [words, heads, *norm.parameters()])
    torch.testing.assert_close(fast, plain, atol=1e-5, rtol=1e-5)
    for got, expected in zip(fast_grads, plain_grads):
        torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)


def test_packed_span_scores_equal_the_chart() -> None:
    torch.manual_seed(0)
    model = _small_model().eval()
    _randomize(model)
    x, lens = _inputs([5, 2, 4, 1], T=7)
    chart = model(x, lens).chart
    packed = model(x, lens, packed_spans=True)
    assert packed.chart is None
    rows = []
    for b, n in enumerate(lens.tolist()):
        i, j = torch.triu_indices(n + 1, n + 1, offset=1)
        rows.append(chart[b, i, j, 1:])
    torch.testing.assert_close(packed.packed_spans, torch.cat(rows), atol=1e-5, rtol=1e-5)


def test_label_scores_equal_the_biaffine_sum() -> None:
    """s[d, l] = h_d^T W_l h_head(d) + U_l [h_d ; h_head(d)] + b_l, computed the plain way."""
    torch.manual_seed(0)
    scorer = BiaffineLabelScorer(12, 5, d_label=6).eval()
    _randomize(scorer)
    tokens = torch.randn(2, 4, 12)
    heads = torch.tensor([[0, 0, 1, 1], [0, 2, 0, -1]])
    scores = scorer(tokens, heads)
    hd, hh_all = scorer.dep_mlp(tokens), scorer.head_mlp(tokens)
    for b in range(2):
        for d in range(4):
            h = hh_all[b, max(int(heads[b, d]), 0)]
            expected = torch.stack([hd[b, d] @ scorer.W[l] @ h for l in range(5)])
            expected = expected + scorer.U(torch.cat([hd[b, d], h]))
            torch.testing.assert_close(scores[b, d], expected, atol=1e-5, rtol=1e-5)
