"""The GPU path (issue #38): each component trains on a CUDA GPU with its arrays there end to end,
and a pipeline parses the same on the GPU as on the CPU, whichever of the two trained it.

Skipped without a GPU (``tests/gpu/conftest.py``); ``scripts/gpu_check.sh`` runs them on one."""
import logging

import numpy
import pytest
import spacy
import torch
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import fix_random_seed
from thinc.api import CupyOps, get_current_ops

import spacy_lal
from spacy_lal.nn.dropout import keep_mask
from spacy_lal.pipeline.srl.predicate_marking import mark_gold_predicates

pytestmark = pytest.mark.gpu


def outputs(docs):
    """Everything a parse sets that a user reads: trees, dependencies, tags and frames."""
    return [
        (
            [tree.to_string() for tree in doc._.trees],
            [(t.head.i, t.dep_) for t in doc],
            [(f.predicate.i, f.sense, f.data.arguments) for f in doc._.srl],
        )
        for doc in docs
    ]


def assert_on_gpu(nlp, name):
    """The component's Thinc layers run on CuPy and its torch module's weights on CUDA."""
    component = nlp.get_pipe(name)
    assert all(isinstance(layer.ops, CupyOps) for layer in component.model.walk())
    devices = {p.device.type for p in component.torch_module.parameters()}
    assert devices == {"cuda"}


def train(nlp, examples, n_iter, learn_rate):
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = learn_rate
    for _ in range(n_iter):
        nlp.update(examples, sgd=optimizer)


def on_cpu_again(path):
    """The pipeline saved at ``path`` (on the GPU: spaCy saves a GPU's arrays while its ops are
    current), loaded with the CPU's ops (call outside ``on_gpu``)."""
    return spacy.load(path)


def parse(nlp, examples):
    return outputs(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples))


def test_lal_parser_trains_on_the_gpu_and_parses_as_the_cpu_does(on_gpu, tiny_parser, parser_examples, tmp_path):
    fix_random_seed(0)
    with on_gpu():
        assert isinstance(get_current_ops(), CupyOps)
        nlp = spacy.blank("en")
        nlp.add_pipe("lal_parser", config={"model": tiny_parser})
        examples = parser_examples(nlp)
        train(nlp, examples, 150, 0.003)
        assert_on_gpu(nlp, "lal_parser")
        on_gpu_parses = parse(nlp, examples)
        scores = nlp.evaluate(examples)
        nlp.to_disk(tmp_path / "gpu")
    assert scores["tree_f"] == 1.0 and scores["dep_las"] == 1.0
    assert on_gpu_parses == parse(on_cpu_again(tmp_path / "gpu"), examples)


def test_a_cpu_trained_pipeline_parses_the_same_on_the_gpu(on_gpu, trained_parser, tmp_path):
    nlp, examples = trained_parser
    expected = parse(nlp, examples)
    nlp.to_disk(tmp_path / "cpu")
    with on_gpu():
        loaded = spacy.load(tmp_path / "cpu")
        assert_on_gpu(loaded, "lal_parser")
        assert parse(loaded, examples) == expected
        # the joint decoder and the graph decoders read the same host copies of the scores
        for decoder in ("eisner", "mst"):
            loaded.get_pipe("lal_parser").cfg["dependency_decoder"] = decoder
            nlp.get_pipe("lal_parser").cfg["dependency_decoder"] = decoder
            try:
                assert parse(loaded, examples) == parse(nlp, examples)
            finally:
                nlp.get_pipe("lal_parser").cfg["dependency_decoder"] = "joint"


def test_lal_srl_trains_on_the_gpu_and_labels_as_the_cpu_does(on_gpu, tiny_srl, srl_examples, tmp_path):
    fix_random_seed(0)
    with on_gpu():
        nlp = spacy.blank("en")
        nlp.add_pipe("lal_srl", config={"model": tiny_srl, "predicates": "predicted"})
        examples = srl_examples(nlp.vocab)
        train(nlp, examples, 120, 0.005)
        assert_on_gpu(nlp, "lal_srl")
        on_gpu_frames = parse(nlp, examples)
        nlp.to_disk(tmp_path / "gpu")
        scores = nlp.evaluate(examples)
        gold = [next(mark_gold_predicates(None, eg.copy())) for eg in examples]
        nlp.get_pipe("lal_srl").cfg.update(predicates="gold", decoder="viterbi")
        gold_scores = nlp.evaluate(gold)
        nlp.get_pipe("lal_srl").cfg.update(predicates="predicted", decoder="argmax")
    assert scores["srl_f"] == 1.0 and scores["srl_pred_f"] == 1.0 and scores["srl_sense_acc"] == 1.0
    assert gold_scores["srl_f"] == 1.0
    assert on_gpu_frames == parse(on_cpu_again(tmp_path / "gpu"), examples)


@pytest.mark.parametrize("parsing", ["graph", "transition"])
def test_lal_spa_parser_trains_on_the_gpu_and_parses_as_the_cpu_does(on_gpu, parsing, tiny_spa, ewt_sentences,
                                                                     tmp_path):
    fix_random_seed(0)
    with on_gpu():
        nlp = spacy.blank("en")
        nlp.add_pipe("lal_spa_parser", config={"model": {**tiny_spa, "parsing": parsing}})
        examples = [
            Example(Doc(nlp.vocab, words=words),
                    Doc(nlp.vocab, words=words, heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)], deps=deps))
            for words, heads, deps in ewt_sentences
        ]
        train(nlp, examples, 80, 0.005)
        assert_on_gpu(nlp, "lal_spa_parser")
        on_gpu_parses = parse(nlp, examples)
        scores = nlp.evaluate(examples)
        nlp.to_disk(tmp_path / "gpu")
    assert scores["dep_las"] == 1.0
    assert on_gpu_parses == parse(on_cpu_again(tmp_path / "gpu"), examples)


def test_quantize_on_the_gpu_warns_and_stays_in_floating_point(on_gpu, trained_parser, tmp_path, caplog):
    nlp, examples = trained_parser
    expected = parse(nlp, examples)
    nlp.to_disk(tmp_path / "cpu")
    with on_gpu():
        loaded = spacy.load(tmp_path / "cpu")
        with caplog.at_level(logging.WARNING, logger="spacy_lal"):
            spacy_lal.quantize(loaded)
        assert "int8 prediction runs on CPUs only" in caplog.text
        assert loaded.get_pipe("lal_parser").cfg["quantize"] is False
        # set in a config (the shipped pipelines' default) or by hand, it decodes in floating
        # point all the same, saying so once at INFO: float is the documented behaviour on a GPU
        loaded.get_pipe("lal_parser").cfg["quantize"] = True
        with caplog.at_level(logging.INFO, logger="spacy_lal"):
            assert parse(loaded, examples) == expected
        assert "int8 decoding runs on CPUs only" in caplog.text


def test_dropout_masks_are_drawn_on_the_device():
    like = torch.zeros(64, 256, device="cuda")
    mask = keep_mask(like.shape, 0.25, like)
    assert mask.device.type == "cuda" and mask.dtype == like.dtype
    kept = (mask > 0).float().mean().item()
    assert 0.7 < kept < 0.8 and torch.allclose(mask[mask > 0], torch.tensor(1 / 0.75, device="cuda"))


def test_transformer_features_on_the_gpu_equal_the_cpus(on_gpu, tiny_bert):
    from spacy.util import registry

    from spacy_lal.pipeline.layers.transformer_features import _encoder

    embed = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 16, "attrs": ["NORM"], "rows": [100],
             "include_static_vectors": False}
    config = {"t": {"@architectures": "spacy-lal.TransformerFeatures.v1", "embed": embed, "name": str(tiny_bert),
                    "layers": [0, 2]}}
    vocab = spacy.blank("en").vocab
    docs = [Doc(vocab, words=["dogs", "bark", "."]), Doc(vocab, words=[]), Doc(vocab, words=["the", "cat", "sat"])]
    fix_random_seed(0)
    cpu = registry.resolve(config)["t"]
    cpu.initialize(X=docs)
    rng = numpy.random.default_rng(0)
    cpu.set_param("W", (rng.standard_normal(cpu.get_param("W").shape) * 0.1).astype("float32"))
    expected = cpu.predict(docs)
    data = cpu.to_bytes()
    with on_gpu():
        gpu = registry.resolve(config)["t"]
        gpu.initialize(X=docs)
        gpu.from_bytes(data)
        got, backprop = gpu(docs, is_train=True)
        backprop([gpu.ops.alloc2f(*g.shape) + 1 for g in got])  # the backward pass runs there too
        assert next(_encoder(gpu).model.parameters()).device.type == "cuda"
        got = [gpu.ops.to_numpy(g) for g in got]
    for g, e in zip(got, expected):
        numpy.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)
