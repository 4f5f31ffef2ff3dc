"""The SPA-DP torch modules (spacy_lal.nn.spa_encoder and .spa_parsers, Zhou et al. 2018): the
equations against direct per-word loops, padding invariance, and every variant overfitting a handful
of sentences."""

from __future__ import annotations

from typing import List, Tuple

import numpy as np
import pytest
import torch

from spacy_lal.decode import (
    ArcStandard,
    arc_standard_greedy_batch,
    arc_standard_oracle_batch,
    chu_liu_edmonds_batch,
)
from spacy_lal.nn.spa_encoder import ENCODERS, SequencePreservedRescan, SpaEncoder, VanillaAttention
from spacy_lal.nn.spa_parsers import (
    HeadSelectionScorer,
    SpaGraphParser,
    SpaTransitionParser,
    TransitionClassifier,
    transition_loss,
)

ATOL = 1e-5
D_IN = 16


@pytest.fixture(scope="module")
def label_names(ewt_sentences):
    """The UD labels of the EWT sentences, sorted."""
    return sorted({lab for _, _, labs in ewt_sentences for lab in labs})


@pytest.fixture(scope="module")
def batch(ewt_sentences, label_names):
    """The EWT sentences as a batch: random vectors per word type (the same word gets the same
    vector), padded gold arrays: (tokens, lengths, heads, labels)."""
    gen = torch.Generator().manual_seed(0)
    vocab = sorted({w for words, _, _ in ewt_sentences for w in words})
    table = dict(zip(vocab, torch.randn(len(vocab), D_IN, generator=gen)))
    B, T = len(ewt_sentences), max(len(s[0]) for s in ewt_sentences)
    tokens = torch.zeros(B, T, D_IN)
    heads = torch.full((B, T + 1), -1, dtype=torch.long)
    label_ids = torch.full((B, T + 1), -1, dtype=torch.long)
    for b, (words, hs, labs) in enumerate(ewt_sentences):
        tokens[b, :len(words)] = torch.stack([table[w] for w in words])
        heads[b, 1:len(words) + 1] = torch.tensor(hs)
        label_ids[b, 1:len(words) + 1] = torch.tensor([label_names.index(lab) for lab in labs])
    lengths = torch.tensor([len(s[0]) for s in ewt_sentences])
    return tokens, lengths, heads, label_ids


def randomize(module: torch.nn.Module, seed: int = 0) -> None:
    """Random values everywhere (zero-initialised scorers would hide bugs)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)


def attachment(pred_heads, pred_labels, heads, labels, lengths) -> Tuple[float, float]:
    total = uas = las = 0
    for b, n in enumerate(lengths.tolist()):
        gold_h, gold_l = heads[b, 1:n + 1].tolist(), labels[b, 1:n + 1].tolist()
        ph, pl = list(pred_heads[b][1:n + 1]), list(pred_labels[b][1:n + 1])
        total += n
        uas += sum(p == g for p, g in zip(ph, gold_h))
        las += sum(p == g and q == m for p, g, q, m in zip(ph, gold_h, pl, gold_l))
    return 100.0 * uas / total, 100.0 * las / total


# ----------------------------------------------------------------------------- equations


def run_gru(gru: torch.nn.GRU, seq: List[torch.Tensor]) -> torch.Tensor:
    _, last = gru(torch.stack(seq).unsqueeze(1))
    return last[0, 0]


@pytest.mark.parametrize("direction", ["tob", "bot"])
def test_rescan_is_eq_25_26_word_by_word(direction):
    torch.manual_seed(0)
    rescan = SequencePreservedRescan(6, 5, direction).eval()
    lengths = torch.tensor([4, 1, 0, 3])
    h = torch.randn(4, 5, 6)
    out = rescan(h, lengths)
    for b, n in enumerate(lengths.tolist()):
        hb = [h[b, j] for j in range(n + 1)]
        for i in range(n + 1):
            if direction == "tob":  # eq. 25: GRU(h_i, h_{i-1} .. h_0), GRU(h_i, h_{i+1} .. h_n)
                left, right = [hb[i]] + hb[:i][::-1], [hb[i]] + hb[i + 1:]
            else:  # eq. 26: GRU(h_i, h_0 .. h_{i-1}), GRU(h_i, h_n .. h_{i+1})
                left, right = [hb[i]] + hb[:i], [hb[i]] + hb[i + 1:][::-1]
            expected = torch.cat([run_gru(rescan.left, left), run_gru(rescan.right, right)])
            assert torch.allclose(out[b, i], expected, atol=ATOL), (b, i)
        assert (out[b, n + 1:] == 0).all()


def test_vanilla_attention_is_eq_12_14():
    torch.manual_seed(0)
    att = VanillaAttention(6, 4).eval()
    lengths = torch.tensor([3, 1])
    h = torch.randn(2, 4, 6)
    out = att(h, lengths)
    for b, n in enumerate(lengths.tolist()):
        for i in range(n + 1):
            s = torch.stack([att.v(torch.tanh(att.query(h[b, i]) + att.key(h[b, j])))[0]
                             for j in range(n + 1)])  # eq. 12, MLP(h_i (+) h_j)
            a = torch.softmax(s, 0)  # eq. 13
            assert torch.allclose(out[b, i], (a.unsqueeze(1) * h[b, :n + 1]).sum(0), atol=ATOL)  # eq. 14


@pytest.mark.parametrize("score", ["bilinear", "concat"])
def test_head_selection_is_eq_8(score):
    torch.manual_seed(0)
    scorer = HeadSelectionScorer(5, score, d_hidden=3)
    randomize(scorer)
    r = torch.randn(2, 4, 5)
    out = scorer(r)
    assert out.shape == (2, 4, 4)
    for b in range(2):
        for d in range(4):
            for h in range(4):
                if score == "bilinear":
                    expected = r[b, h] @ scorer.W @ r[b, d]
                else:
                    W = torch.cat([scorer.head.weight, scorer.dep.weight], dim=1)
                    expected = scorer.v(torch.relu(W @ torch.cat([r[b, h], r[b, d]]) + scorer.head.bias))[0]
                assert torch.isclose(out[b, d, h], expected, atol=ATOL)


def test_transition_classifier_is_eq_4_6_and_loss_eq_7():
    torch.manual_seed(0)
    clf = TransitionClassifier(5, 7, d_hidden=6)
    reprs = torch.randn(2, 4, 5)
    rows = torch.tensor([0, 0, 1, 1])
    features = torch.tensor([[-1, -1, 0, 1], [0, 1, 2, 3], [-1, 0, 2, -1], [1, 2, 3, -1]])
    y = clf(reprs, rows, features)
    for k in range(4):
        phi = torch.cat([reprs[rows[k], p] if p >= 0 else clf.padding[s]
                         for s, p in enumerate(features[k].tolist())])  # eq. 4
        expected = clf.output(torch.relu(clf.hidden(phi)))  # eq. 5
        assert torch.allclose(y[k], expected, atol=ATOL)
    gold = torch.tensor([0, 3, 6, 1])
    logp = torch.log_softmax(y, -1)  # eq. 6
    per_sentence = torch.stack([-(logp[0, 0] + logp[1, 3]), -(logp[2, 6] + logp[3, 1])])
    assert torch.allclose(transition_loss(y, gold, rows, 2), per_sentence.mean())  # eq. 7
    assert torch.allclose(transition_loss(y, gold, rows, 3, "none")[:2], per_sentence)
    numpy_scores = clf.scorer(reprs)(rows.numpy(), features.numpy())
    assert np.allclose(numpy_scores, y.detach().numpy(), atol=ATOL)


@pytest.mark.parametrize("encoder", ENCODERS)
@pytest.mark.parametrize("score", ["bilinear", "concat"])
def test_padding_does_not_change_real_scores(encoder, score, batch, label_names):
    torch.manual_seed(0)
    model = SpaGraphParser(D_IN, len(label_names), encoder=encoder, score=score, d_scan=8, d_rescan=6,
                           d_attention=5, d_score=5, d_label=4, n_tags=3, d_tag=4).eval()
    randomize(model)
    tokens, lengths, _, _ = batch
    tags = torch.randint(0, 3, tokens.shape[:2])
    full = model(tokens, lengths, tags)
    assert full.reprs.shape == (5, 10, model.encoder.d_out) and full.arc_scores.shape == (5, 10, 10)
    for b in (0, 4):  # a short sentence among longer ones, and the longest
        n = int(lengths[b])
        alone = model(tokens[b:b + 1, :n], lengths[b:b + 1], tags[b:b + 1, :n])
        assert torch.allclose(full.reprs[b, :n + 1], alone.reprs[0], atol=ATOL)
        assert torch.allclose(full.arc_scores[b, :n + 1, :n + 1], alone.arc_scores[0], atol=ATOL)
        assert (full.reprs[b, n + 1:] == 0).all()
    # padding holds garbage: nothing changes
    noisy = tokens.clone()
    noisy[0, int(lengths[0]):] = 1e3
    assert torch.allclose(model(noisy, lengths, tags).arc_scores, full.arc_scores, atol=ATOL)


def test_encoder_sizes_and_errors(batch):
    sizes = {kind: SpaEncoder(D_IN, kind, d_scan=8, d_rescan=6).d_out for kind in ENCODERS}
    assert sizes == {"birnn": 16, "attention": 32, "tob": 28, "bot": 28}
    tokens, lengths, _, _ = batch
    enc = SpaEncoder(D_IN, "bot", d_scan=4, d_rescan=3, n_tags=3)
    with pytest.raises(ValueError, match="encoder must be one of"):
        SpaEncoder(D_IN, "gru")
    with pytest.raises(ValueError, match="tag_ids is required"):
        enc(tokens, lengths)
    with pytest.raises(ValueError, match=r"tag ids must be in \[0, 3\)"):
        enc(tokens, lengths, torch.full(tokens.shape[:2], 3))
    with pytest.raises(ValueError, match="lengths must be in"):
        enc(tokens, lengths + 5, torch.zeros(tokens.shape[:2], dtype=torch.long))
    with pytest.raises(ValueError, match="built without tags"):
        SpaEncoder(D_IN, "birnn", d_scan=4)(tokens, lengths, torch.zeros(tokens.shape[:2], dtype=torch.long))
    clf = TransitionClassifier(4, 3)
    with pytest.raises(ValueError, match="configuration features must be positions"):
        clf(torch.zeros(1, 3, 4), torch.tensor([0]), torch.tensor([[0, 1, 2, 3]]))
    empty = SpaEncoder(D_IN, "bot", d_scan=4, d_rescan=3)(torch.zeros(2, 0, D_IN), torch.tensor([0, 0]))
    assert empty.shape == (2, 1, 14)  # ROOT only


# ----------------------------------------------------------------------------- overfitting


def train(model, loss_fn, steps: int, lr: float = 0.02) -> None:
    torch.manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
    model.eval()


@pytest.mark.parametrize("encoder, score", [(e, "bilinear") for e in ENCODERS] + [("bot", "concat")])
def test_graph_parser_overfits_a_handful_of_sentences(encoder, score, batch, label_names):
    torch.manual_seed(0)
    tokens, lengths, heads, labels = batch
    model = SpaGraphParser(D_IN, len(label_names), encoder=encoder, score=score, d_scan=32, d_rescan=16,
                           d_attention=16, d_score=32, d_label=32, word_dropout=0.0, tag_dropout=0.0)
    train(model, lambda: model.loss(tokens, lengths, heads, labels), steps=60)
    with torch.no_grad():
        out = model(tokens, lengths)
        scores = [out.arc_scores[b, :n + 1, :n + 1].numpy() for b, n in enumerate(lengths.tolist())]
        pred_heads = chu_liu_edmonds_batch(scores)
        padded = torch.full_like(heads, -1)
        for b, h in enumerate(pred_heads):
            padded[b, :len(h)] = torch.from_numpy(h)
        pred_labels = model.label_scores(out.reprs, padded).argmax(-1)
    assert attachment(pred_heads, pred_labels.tolist(), heads, labels, lengths) == (100.0, 100.0)


@pytest.mark.parametrize("encoder", ENCODERS)
def test_transition_parser_overfits_a_handful_of_sentences(encoder, batch, label_names):
    torch.manual_seed(0)
    tokens, lengths, heads, labels = batch
    system = ArcStandard(len(label_names), root_label=label_names.index("root"))
    oracle = arc_standard_oracle_batch(
        [heads[b, :n + 1].numpy() for b, n in enumerate(lengths.tolist())],
        [labels[b, :n + 1].numpy() for b, n in enumerate(lengths.tolist())], system)
    rows, features, gold = (torch.from_numpy(a) for a in (oracle.rows, oracle.features, oracle.transitions))
    model = SpaTransitionParser(D_IN, system.n_transitions, encoder=encoder, d_scan=32, d_rescan=16,
                                d_attention=16, d_hidden=32, word_dropout=0.0, tag_dropout=0.0)
    train(model, lambda: model.loss(tokens, lengths, rows, features, gold), steps=60)
    with torch.no_grad():
        parses = arc_standard_greedy_batch(lengths.tolist(), model.scorer(model(tokens, lengths)), system)
    pred_heads = [p.heads.tolist() for p in parses]
    pred_labels = [p.labels.tolist() for p in parses]
    assert attachment(pred_heads, pred_labels, heads, labels, lengths) == (100.0, 100.0)
