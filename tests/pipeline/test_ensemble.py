"""The parser ensemble (``pipeline/ensemble.py``): averaged scores on aligned labels,
decoded exactly; an ensemble of one pipeline, or of a pipeline with itself, parses as it does."""
import numpy
import pytest
import torch
from spacy.tokens import Doc

from spacy_lal.pipeline.parser.adapter import ArcLabeller, ParserBatch, ParserScores
from spacy_lal.pipeline.ensemble import _set_tags, align_labels, average_scores, ensemble_parse

NEG = -5.0


def _member(chart_labels, dep_labels, root_scores, label_scores):
    """One unit of two words ("a b"), b heading a: spans (0, 1), (1, 2) empty, the root (0, 2)
    scored ``root_scores`` (label name -> score, in this member's label order); label scores of
    word 1 and word 2's arcs (label name -> score), whatever the head."""
    chart = numpy.zeros((3, 3, len(chart_labels) + 1), dtype="float32")
    for name, value in root_scores.items():
        chart[0, 2, 1 + chart_labels.index(name)] = value
    chart[0, 1, 1:] = chart[1, 2, 1:] = NEG  # the words are no constituents
    arcs = numpy.zeros((3, 3), dtype="float32")
    arcs[1, 2] = arcs[2, 0] = 1.0  # word 1 <- word 2 <- root
    rows = numpy.array([[[0.0] * len(dep_labels)] + [[scores[name] for name in dep_labels] for scores in label_scores]],
                       dtype="float32")

    def score(padded_heads):
        assert padded_heads.shape == (1, 3)
        return torch.as_tensor(rows)

    labeller = ArcLabeller(score, torch.nn.Module(), rows=1, width=3)
    return ParserScores([chart], [arcs], [(labeller, 0)])


def _decode(members, chart_labels, dep_labels, decoder="joint"):
    reference = chart_labels[0], dep_labels[0]
    span_orders = [numpy.concatenate([[0], 1 + align_labels(names, reference[0], "span labels")]) for names in chart_labels]
    dep_orders = [align_labels(names, reference[1], "dependency labels") for names in dep_labels]
    batch = ParserBatch(dependency_decoder=decoder, joint_weight=1.0, root_label=reference[1].index("root"))
    return average_scores(members, span_orders, dep_orders, [2], batch)


@pytest.mark.parametrize("decoder", ["joint", "eisner"])
def test_scores_are_averaged_on_labels_aligned_by_name(decoder):
    spans0, spans1 = ["NP", "S", "VP"], ["VP", "S", "NP"]  # the same labels in another order
    deps0, deps1 = ["det", "nsubj", "root"], ["root", "nsubj", "det"]
    # Member 0 prefers NP at the root by 1; member 1 prefers S by 3: S on average. Read by index
    # instead of by name, member 1's scores would make it NP (its index 3 = member 0's NP).
    first = _member(spans0, deps0, {"NP": 1.0, "S": 0.0, "VP": NEG}, [{"det": 1.0, "nsubj": 0.0, "root": 0.0}, {}.fromkeys(deps0, 0.0)])
    second = _member(spans1, deps1, {"NP": 0.0, "S": 3.0, "VP": NEG}, [{"det": 0.0, "nsubj": 3.0, "root": 0.0}, {}.fromkeys(deps1, 0.0)])
    alone = _decode([first], [spans0], [deps0], decoder)
    assert alone.spans[0].tolist()[0] == [0, 2, 1 + spans0.index("NP")]
    assert alone.heads[0].tolist() == [-1, 2, 0]
    assert [deps0[i] for i in alone.dep_labels[0]] == ["det", "root"]
    both = _decode([first, second], [spans0, spans1], [deps0, deps1], decoder)
    assert both.spans[0].tolist()[0] == [0, 2, 1 + spans0.index("S")]
    assert both.heads[0].tolist() == [-1, 2, 0]
    assert [deps0[i] for i in both.dep_labels[0]] == ["nsubj", "root"]  # (1 + 0) / 2 < (0 + 3) / 2


def test_label_sets_must_match():
    with pytest.raises(ValueError, match="only in another: \\['VP'\\]"):
        align_labels(["NP", "VP"], ["NP", "S"], "span labels")


def test_tag_distributions_are_averaged_over_the_union(nlp):
    doc = Doc(nlp.vocab, words=["a", "b"])
    # Member 0: NN 0.6 / VB 0.4 on both words; member 1 (no NN; VB first): VB 0.1 / JJ 0.9 on word
    # 1, VB 0.9 / JJ 0.1 on word 2. Averages: word 1 NN .3, VB .25, JJ .45; word 2 NN .3, VB .65,
    # JJ .05 (by index, member 1's VB would have been added to NN).
    tags = [(("NN", "VB"), [numpy.array([[0.6, 0.4], [0.6, 0.4]], dtype="float32")]),
            (("VB", "JJ"), [numpy.array([[0.1, 0.9], [0.9, 0.1]], dtype="float32")])]
    _set_tags(tags, [doc], [[False, False]], overwrite=False)
    assert [t.tag_ for t in doc] == ["JJ", "VB"]
    _set_tags(tags[:1], [doc], [[False, True]], overwrite=False)  # a tag given before is kept
    assert [t.tag_ for t in doc] == ["NN", "VB"]


def _parses(docs):
    return [([t.head.i for t in d], [t.dep_ for t in d], [tree.to_string() for tree in d._.trees]) for d in docs]


@pytest.mark.parametrize("decoder", ["eisner", "joint"])
def test_an_ensemble_of_one_parses_as_its_member(trained_parser, decoder):
    nlp, examples = trained_parser
    parser = nlp.get_pipe("lal_parser")
    saved = parser.cfg["dependency_decoder"]
    parser.set_decoder(decoder)
    try:
        words = [[t.text for t in eg.reference] for eg in examples]
        alone = _parses(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
        for members in ([nlp], [nlp, nlp]):
            ensemble = _parses(ensemble_parse(members, [Doc(nlp.vocab, words=w) for w in words], batch_size=2))
            assert ensemble == alone
    finally:
        parser.set_decoder(saved)


def test_batches_are_bounded_by_docs_and_words(trained_parser):
    from spacy_lal.pipeline.units import doc_batches

    nlp, _ = trained_parser
    docs = [Doc(nlp.vocab, words=["w"] * n) for n in (3, 4, 2, 9, 1, 1, 1)]
    sizes = [[len(doc) for doc in batch] for batch in doc_batches(docs, 8, 3)]
    # a Doc longer than the word bound is a batch of its own; no Doc is dropped or reordered
    assert sizes == [[3, 4], [2], [9], [1, 1, 1]]


def test_a_parse_does_not_depend_on_the_batch_bounds(trained_parser):
    nlp, examples = trained_parser
    words = [[t.text for t in eg.reference] for eg in examples]
    one_by_one = _parses(ensemble_parse([nlp, nlp], [Doc(nlp.vocab, words=w) for w in words], max_batch_words=1))
    together = _parses(ensemble_parse([nlp, nlp], [Doc(nlp.vocab, words=w) for w in words], batch_size=64))
    assert one_by_one == together


@pytest.mark.slow  # loads en_lal_ewt: about a minute on a loaded machine
def test_shipped_pipeline_with_itself():
    import spacy_lal
    from spacy_lal.evaluation import gold_inputs

    nlp = spacy_lal.load("en_lal_ewt")
    texts = ["The cat sat on the mat .", "I saw her duck with a telescope .", "Dogs bark ."]
    gold = [Doc(nlp.vocab, words=text.split()) for text in texts]
    signature = lambda docs: [([t.tag_ for t in d], *p) for d, p in zip(docs, _parses(docs))]  # noqa: E731
    docs = list(nlp.pipe(gold_inputs(nlp.vocab, gold)))
    assert signature(list(ensemble_parse([nlp], gold_inputs(nlp.vocab, gold)))) == signature(docs)
    assert signature(list(ensemble_parse([nlp, nlp], gold_inputs(nlp.vocab, gold)))) == signature(docs)


# -- semantic roles ------------------------------------------------------------------------------


def test_frame_scores_are_averaged_on_the_first_members_labels():
    from spacy_lal.pipeline.ensemble import average_frame_scores
    from spacy_lal.pipeline.srl.adapter import FrameScores

    roles_a = numpy.log(numpy.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]], dtype="float32"))  # labels O, B-A0, B-A1
    roles_b = numpy.log(numpy.array([[0.1, 0.5, 0.4], [0.2, 0.6, 0.2]], dtype="float32"))  # labels B-A1, O, B-A0
    a = FrameScores([0], [1], [roles_a], [numpy.array([2.0, 0.0], dtype="float32")])  # senses 01, 02
    b = FrameScores([0], [1], [roles_b], [numpy.array([0.0, 3.0], dtype="float32")])  # senses 02, 01
    orders = [numpy.arange(3), align_labels(["B-A1", "O", "B-A0"], ["O", "B-A0", "B-A1"], "role labels")]
    sense_orders = [numpy.arange(2), align_labels(["02", "01"], ["01", "02"], "sense classes")]
    averaged = average_frame_scores([a, b], orders, sense_orders)
    expected = (roles_a + roles_b[:, [1, 2, 0]]) / 2
    numpy.testing.assert_allclose(averaged.roles[0], expected, rtol=1e-6)
    log_softmax = lambda x: x - numpy.log(numpy.exp(x).sum())  # noqa: E731
    numpy.testing.assert_allclose(averaged.senses[0], (log_softmax(a.senses[0]) + log_softmax(b.senses[0])[[1, 0]]) / 2,
                                  rtol=1e-5)
    assert (averaged.units, averaged.positions) == ([0], [1])
    assert average_frame_scores([a], orders[:1], sense_orders[:1]) is a  # one member: its own scores


def test_a_sense_class_one_member_lacks_gets_its_lowest_log_probability():
    from spacy_lal.pipeline.ensemble import average_frame_scores
    from spacy_lal.pipeline.srl.adapter import FrameScores

    roles = [numpy.log(numpy.array([[0.5, 0.5]], dtype="float32"))]
    a = FrameScores([0], [0], roles, [numpy.array([1.0, 0.0, 2.0], dtype="float32")])  # senses 01, 02, 27
    b = FrameScores([0], [0], roles, [numpy.array([0.0, 4.0, 1.0], dtype="float32")])  # senses 02, 01, 03
    sense_order = align_labels(["02", "01", "03"], ["01", "02", "27"], "sense classes", partial=True)
    assert sense_order.tolist() == [1, 0, -1]
    averaged = average_frame_scores([a, b], [numpy.arange(2)] * 2, [numpy.arange(3), sense_order])
    log_softmax = lambda x: x - numpy.log(numpy.exp(x).sum())  # noqa: E731
    la, lb = log_softmax(a.senses[0]), log_softmax(b.senses[0])
    expected = (la + numpy.array([lb[1], lb[0], lb.min()])) / 2
    numpy.testing.assert_allclose(averaged.senses[0], expected, rtol=1e-5)
    assert numpy.isfinite(averaged.senses[0]).all()
    with pytest.raises(ValueError, match="sense classes differ"):
        align_labels(["02", "01", "03"], ["01", "02", "27"], "sense classes")


@pytest.fixture(scope="module")
def parser_and_labeller(trained_parser, tiny_srl, srl_examples):
    """The trained parser with a lal_srl (its own tok2vec, the tree decoder) trained on the SRL
    sentences."""
    import spacy

    parser_nlp, _ = trained_parser
    labeller_nlp = spacy.blank("en")
    labeller_nlp.add_pipe("lal_srl", config={"model": tiny_srl, "decoder": "tree"})
    examples = srl_examples(labeller_nlp.vocab)
    optimizer = labeller_nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.005
    for _ in range(60):
        labeller_nlp.update(examples, sgd=optimizer)
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", source=parser_nlp)
    nlp.add_pipe("lal_srl", source=labeller_nlp)
    return nlp, examples


def test_an_ensemble_of_a_labeller_with_itself_labels_as_it_does(parser_and_labeller):
    nlp, examples = parser_and_labeller
    words = [[t.text for t in eg.reference] for eg in examples]
    frames = lambda docs: [[(f.predicate.i, f.sense, f.data.arguments) for f in doc._.srl] for doc in docs]  # noqa: E731
    alone = frames(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
    assert any(alone)  # the labeller found frames to compare
    both = frames(ensemble_parse([nlp, nlp], [Doc(nlp.vocab, words=w) for w in words], batch_size=3))
    assert both == alone

