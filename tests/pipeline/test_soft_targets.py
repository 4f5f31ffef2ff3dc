"""A teacher's soft dependency targets: stored on silver Docs, read in training, mixed into the
parser's loss (pipeline/soft_targets.py, gold.py:soft_target_weights, nn/biaffine.py)."""
import math

import numpy
import pytest
import spacy
import torch
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from spacy_lal.doc.extensions import sentence_docs, set_soft_arc_targets, soft_arc_targets
from spacy_lal.nn.biaffine import dependency_loss
from spacy_lal.pipeline.gold import soft_target_weights
from spacy_lal.pipeline.soft_targets import add_soft_targets, top_distribution
from spacy_lal.pipeline.units import Unit


def test_top_distribution_renormalises_the_likeliest():
    scores = numpy.array([0.0, math.log(3.0), -numpy.inf, math.log(2.0)])
    ids, probabilities = top_distribution(scores, 2)
    assert ids == [1, 3]
    assert probabilities == pytest.approx([0.6, 0.4])
    ids, probabilities = top_distribution(scores, 10)  # never an impossible index
    assert ids == [1, 3, 0] and sum(probabilities) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="-inf"):
        top_distribution(numpy.full(3, -numpy.inf), 2)


def test_soft_targets_survive_docbin_and_sentence_docs():
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Dogs", "bark", ".", "Cats", "sleep", "."],
              sent_starts=[True, False, False, True, False, False])
    set_soft_arc_targets(doc, {
        0: ([(1, 0.9), (2, 0.1)], [("nsubj", 1.0)]),
        4: ([(4, 0.7), (1, 0.3)], [("root", 0.8), ("parataxis", 0.2)]),  # 4 itself: the root
    })
    data = DocBin(store_user_data=True, docs=[doc]).to_bytes()
    restored = list(DocBin().from_bytes(data).get_docs(nlp.vocab))[0]
    assert soft_arc_targets(restored) == soft_arc_targets(doc)
    assert soft_arc_targets(doc)[0] == ([(1, 0.9), (2, 0.1)], [("nsubj", 1.0)])
    first, second = sentence_docs(restored)
    assert soft_arc_targets(first) == {0: ([(1, 0.9), (2, 0.1)], [("nsubj", 1.0)])}
    # in its own sentence "sleep" is token 1; its head in the other sentence drops out
    assert soft_arc_targets(second) == {1: ([(1, 0.7)], [("root", 0.8), ("parataxis", 0.2)])}
    with pytest.raises(ValueError, match="outside the Doc"):
        set_soft_arc_targets(doc, {0: ([(9, 1.0)], [])})
    with pytest.raises(ValueError, match="probability"):
        set_soft_arc_targets(doc, {0: ([(1, 1.5)], [])})


def test_soft_target_weights_mix_the_teacher_into_the_gold_targets():
    # one unit of 3 words (Doc tokens 0-2); heads 2, 0 (root), 2; labels 0, 1, 2
    units = [Unit(0, 0, 3, [0, 1, 2]), Unit(1, 0, 2, [0, 1])]
    heads = numpy.array([[-1, 2, 0, 2], [-1, 0, 1, -1]])
    labels = numpy.array([[-1, 0, 1, 2], [-1, 1, 0, -1]])
    label_ids = {"nsubj": 0, "root": 1, "punct": 2}
    soft = [
        {0: ([(1, 0.5), (2, 0.25), (7, 0.25)], [("nsubj", 0.5), ("punct", 0.3), ("unknown", 0.2)]),
         1: ([(1, 1.0)], [("root", 1.0)])},
        {},  # the second Doc has no soft targets
    ]
    head_weights, label_weights = soft_target_weights(units, soft, heads, labels, label_ids, 0.4)
    # word 1: 0.6 on its gold head (position 2), 0.4 as the teacher's, token 7 outside the unit
    # dropped and the rest renormalised: token 1 (position 2) 2/3, token 2 (position 3) 1/3
    assert head_weights[0, 1].tolist() == pytest.approx([0, 0, 0.6 + 0.4 * 2 / 3, 0.4 / 3])
    assert label_weights[0, 1].tolist() == pytest.approx([0.6 + 0.4 * 5 / 8, 0, 0.4 * 3 / 8])
    # word 2 heads itself in the teacher's pairs: the root
    assert head_weights[0, 2].tolist() == pytest.approx([1, 0, 0, 0])
    # words without soft targets, and padding, as the hard targets are
    assert head_weights[0, 3].tolist() == [0, 0, 1, 0] and label_weights[0, 3].tolist() == [0, 0, 1]
    assert head_weights[1, 1].tolist() == [1, 0, 0, 0] and head_weights[1, 2].tolist() == [0, 1, 0, 0]
    assert not head_weights[1, 3].any() and not label_weights[1, 3].any()


def test_dependency_loss_against_distributions():
    torch.manual_seed(0)
    arc_scores = torch.randn(2, 4, 4)
    label_scores = torch.randn(2, 4, 3)
    lengths = torch.tensor([3, 2])
    heads = torch.tensor([[-1, 2, 0, 2], [-1, 0, 1, -1]])
    labels = torch.tensor([[-1, 0, 1, 2], [-1, 1, 0, -1]])
    hard, hard_rows = dependency_loss(arc_scores, lengths, heads, label_scores, labels, reduction="none")
    one_hot, _ = soft_target_weights([Unit(0, 0, 3, [0, 1, 2]), Unit(1, 0, 2, [0, 1])], [{}, {}], heads.numpy(),
                                     labels.numpy(), {"a": 0, "b": 1, "c": 2}, 0.5)
    label_one_hot = torch.nn.functional.one_hot(labels.clamp(min=0), 3).float() * (labels >= 0).unsqueeze(-1)
    same, _ = dependency_loss(arc_scores, lengths, heads, label_scores, labels, reduction="none",
                              head_weights=torch.as_tensor(one_hot), label_weights=label_one_hot)
    assert torch.allclose(same, hard)
    # a distribution: -sum q log p over the heads the dependent can take
    q = torch.zeros(2, 4, 4)
    q[0, 1, 2], q[0, 1, 3], q[0, 1, 1] = 0.5, 0.5, 7.0  # a weight on the word itself is ignored
    q[0, 2, 0] = q[0, 3, 2] = q[1, 1, 0] = q[1, 2, 1] = 1.0
    soft, _ = dependency_loss(arc_scores, lengths, heads, reduction="none", head_weights=q)
    log_p = torch.log_softmax(arc_scores[0, 1, [0, 2, 3]], -1)
    word_1 = -(0.5 * log_p[1] + 0.5 * log_p[2])
    hard_unlabelled, _ = dependency_loss(arc_scores, lengths, heads, reduction="none")
    gathered = -torch.log_softmax(arc_scores[0, 1, [0, 2, 3]], -1)[1]
    assert torch.allclose(soft[0] - hard_unlabelled[0], word_1 - gathered)
    assert torch.allclose(soft[1], hard_unlabelled[1])


def _parsed(nlp, examples):
    return list(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples))


def test_a_teachers_targets_are_its_own_distributions(trained_parser):
    nlp, examples = trained_parser
    docs = list(add_soft_targets(nlp, _parsed(nlp, examples), top_heads=3, top_labels=2, batch_size=2))
    agree = total = 0
    for doc in docs:
        targets = soft_arc_targets(doc)
        assert sorted(targets) == list(range(len(doc)))
        for token in doc:
            heads, labels = targets[token.i]
            assert 1 <= len(heads) <= 3 and 1 <= len(labels) <= 2
            assert sum(p for _, p in heads) == pytest.approx(1.0, abs=1e-3)
            assert [p for _, p in heads] == sorted((p for _, p in heads), reverse=True)
            # the labels are those of the arc to the Doc's head: their best is the parser's label
            if token.head.i != token.i:
                assert labels[0][0] == token.dep_
            agree += heads[0][0] == token.head.i
            total += 1
    # the overfitted parser decodes its likeliest heads almost everywhere
    assert agree >= 0.9 * total
    # a temperature above 1 keeps the order of the heads and flattens their distribution
    soft = list(add_soft_targets(nlp, [Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                                           heads=[t.head.i for t in doc], deps=[t.dep_ for t in doc]) for doc in docs],
                                 top_heads=3, top_labels=2, temperature=3.0))
    for sharp, flat in zip(docs, soft):
        for i, (heads, _) in soft_arc_targets(flat).items():
            sharp_heads = soft_arc_targets(sharp)[i][0]
            assert heads[0][0] == sharp_heads[0][0] and heads[0][1] <= sharp_heads[0][1] + 1e-4
    unparsed = Doc(nlp.vocab, words=["Dogs", "bark"])
    with pytest.raises(ValueError, match="without dependencies"):
        list(add_soft_targets(nlp, [unparsed]))


def test_training_follows_the_teachers_distribution(tiny_parser, parser_examples):
    """With all the weight on the teacher, the parser learns the teacher's head where it differs
    from the Doc's own: "on" under "cat", not "mat"."""
    def with_teacher(nlp):
        examples = parser_examples(nlp)
        reference = examples[0].reference  # The cat sat on the mat .
        set_soft_arc_targets(reference, {3: ([(1, 1.0)], [("case", 1.0)])})
        return [Example(eg.predicted, eg.reference) for eg in examples]

    results = {}
    for weight in (0.0, 1.0):
        nlp = spacy.blank("en")
        nlp.add_pipe("lal_parser", config={"model": tiny_parser, "soft_target_weight": weight})
        examples = with_teacher(nlp)
        optimizer = nlp.initialize(lambda: examples)
        optimizer.learn_rate = 0.003
        for _ in range(120):
            nlp.update(examples, sgd=optimizer)
        doc = list(add_soft_targets(nlp, _parsed(nlp, examples[:1])))[0]
        results[weight] = soft_arc_targets(doc)[3][0][0][0]
    assert results == {0.0: 5, 1.0: 1}
