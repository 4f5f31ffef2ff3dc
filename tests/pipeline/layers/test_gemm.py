"""TorchGemmOps: thinc's products through torch.mm give BLIS's results, forward and backward."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from thinc.api import Maxout, NumpyOps

from spacy_lal.pipeline.layers import gemm
from spacy_lal.pipeline.layers.gemm import TorchGemmOps, use_torch_gemm


@pytest.mark.parametrize("trans1", [False, True])
@pytest.mark.parametrize("trans2", [False, True])
@pytest.mark.parametrize("with_out", [False, True])
def test_gemm_matches_blis(trans1: bool, trans2: bool, with_out: bool):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((7, 5) if not trans1 else (5, 7)).astype("float32")
    y = rng.standard_normal((5, 3) if not trans2 else (3, 5)).astype("float32")
    expected = NumpyOps().gemm(x, y, trans1=trans1, trans2=trans2)
    out = numpy.full((7, 3), numpy.nan, dtype="float32") if with_out else None
    got = TorchGemmOps().gemm(x, y, out=out, trans1=trans1, trans2=trans2)
    assert got.shape == (7, 3) and isinstance(got, numpy.ndarray)
    numpy.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    if with_out:
        assert got is out


def test_gemm_falls_back_where_torch_cannot_share_memory():
    """Read-only and reversed-stride arrays and a non-contiguous ``out`` go to BLIS, with the same
    results; float64 is refused as NumpyOps refuses it."""
    ops, reference = TorchGemmOps(), NumpyOps(use_blis=False)
    x = numpy.arange(12, dtype="float32").reshape(3, 4)
    y = numpy.arange(8, dtype="float32").reshape(4, 2)
    read_only = x.copy()
    read_only.flags.writeable = False
    for a, b in [(read_only, y), (x[::-1], y)]:
        numpy.testing.assert_allclose(ops.gemm(a, b), reference.gemm(a, b))
    with pytest.raises(ValueError, match="float32"):
        ops.gemm(x.astype("float64"), y.astype("float64"))
    out = numpy.zeros((3, 4), dtype="float32")[:, ::2]
    numpy.testing.assert_allclose(ops.gemm(x, y, out=out), x @ y)


def test_maxout_forward_and_backward_agree():
    """A Thinc Maxout (the layer that MultiHashEmbed's products go through) on both ops."""
    rng = numpy.random.default_rng(1)
    X = rng.standard_normal((11, 6)).astype("float32")
    dY = rng.standard_normal((11, 4)).astype("float32")
    blis_layer = Maxout(4, 6, nP=3).initialize(X=X)
    torch_layer = use_torch_gemm(Maxout(4, 6, nP=3))
    torch_layer.initialize(X=X)
    torch_layer.from_bytes(blis_layer.to_bytes())
    assert isinstance(torch_layer.ops, TorchGemmOps)
    results = []
    for layer in (blis_layer, torch_layer):
        Y, backprop = layer(X, is_train=True)
        dX = backprop(dY)
        results.append((Y, dX, layer.get_grad("W").copy()))
    for blis_array, torch_array in zip(*results):
        numpy.testing.assert_allclose(torch_array, blis_array, rtol=1e-4, atol=1e-5)


def test_sentence_tok2vec_uses_torch_gemm_and_keeps_its_vectors():
    """The tok2vec of our configs runs its Thinc layers on TorchGemmOps; spaCy's Tok2Vec.v2 with
    the same weights (on BLIS) gives the same vectors."""
    vocab = spacy.blank("en").vocab
    # 96 wide: the encoder's products (288 x 288) are wide enough for int8 (nn/int8.MIN_FEATURES)
    embed = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 96, "attrs": ["NORM", "SHAPE"],
             "rows": [200, 50], "include_static_vectors": False}
    encode = {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 96, "window_size": 1,
              "maxout_pieces": 3, "depth": 2}

    def build(name: str):
        return spacy.util.registry.resolve({"t": {"@architectures": name, "embed": embed, "encode": encode}})["t"]

    docs = [Doc(vocab, words=["Dogs", "bark", "."]), Doc(vocab, words=["The", "cat", "sat", "down", "."])]
    theirs, ours = build("spacy.Tok2Vec.v2"), build("spacy-lal.SentenceTok2Vec.v1")
    theirs.initialize(X=docs)
    ours.initialize(X=docs)
    ours.from_bytes(theirs.to_bytes())
    assert all(isinstance(layer.ops, TorchGemmOps) for layer in ours.walk())
    assert not any(isinstance(layer.ops, TorchGemmOps) for layer in theirs.walk())
    for mine, reference in zip(ours.predict(docs), theirs.predict(docs)):
        numpy.testing.assert_allclose(mine, reference, rtol=1e-4, atol=1e-5)


def _tok2vec_and_docs():
    vocab = spacy.blank("en").vocab
    # 96 wide: the encoder's products (288 x 288) are wide enough for int8 (nn/int8.MIN_FEATURES)
    embed = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 96, "attrs": ["NORM", "SHAPE"],
             "rows": [200, 50], "include_static_vectors": False}
    encode = {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 96, "window_size": 1,
              "maxout_pieces": 3, "depth": 2}
    model = spacy.util.registry.resolve(
        {"t": {"@architectures": "spacy-lal.SentenceTok2Vec.v1", "embed": embed, "encode": encode}}
    )["t"]
    docs = [Doc(vocab, words="Dogs bark .".split()), Doc(vocab, words="The cat sat down on the mat .".split())]
    model.initialize(X=docs)
    return model, docs


def test_int8_products_serve_predictions_only():
    """With int8 on, a prediction's products use int8 weights: close to the float vectors, not
    equal; training products stay float, and an update (weights changed in place, as Thinc's
    optimizers do, by a training pass) makes the int8 weights again from the new ones."""
    model, docs = _tok2vec_and_docs()
    exact = model.predict(docs)
    reference_train, _ = model.begin_update(docs)

    def close(a, b):
        return all(numpy.abs(x - y).max() < 0.1 * numpy.abs(y).max() for x, y in zip(a, b))

    model.ops.int8 = True
    int8 = model.predict(docs)
    assert close(int8, exact) and not any(numpy.array_equal(x, y) for x, y in zip(int8, exact))
    for layer in model.walk():
        if layer.has_param("W") and layer.name == "maxout":
            layer.get_param("W")[...] *= -1.0
    trained, _ = model.begin_update(docs)
    assert not close(trained, reference_train)  # the update changed the model
    model.ops.int8 = False
    changed_exact = model.predict(docs)
    for got, expected in zip(trained, changed_exact):  # training's products are float
        numpy.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    model.ops.int8 = True
    changed = model.predict(docs)
    assert close(changed, changed_exact) and not close(changed, int8)


def test_int8_leaves_narrow_products_float():
    """Weights under nn/int8.MIN_FEATURES wide on either side multiply in float even with int8 on."""
    from spacy_lal.nn.int8 import MIN_FEATURES

    model, docs = _tok2vec_and_docs()
    shapes = {(W.shape[0] * W.shape[1], W.shape[2]) for W in
              (layer.get_param("W") for layer in model.walk() if layer.name == "maxout")}
    wide = {shape for shape in shapes if min(shape) >= MIN_FEATURES}
    assert wide and wide != shapes  # the encoder's 288 x 288; the embedding's mixer reads 192
    model.ops.int8 = True
    model.predict(docs)
    assert {key[1] for key in gemm._INT8_WEIGHTS[model.ops]} == wide


def test_quantize_switches_a_pipelines_tok2vec():
    import copy
    import pickle

    import spacy_lal

    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {"@architectures": "spacy-lal.SentenceTok2Vec.v1",
                                              "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32,
                                                        "attrs": ["NORM", "SHAPE"], "rows": [200, 50],
                                                        "include_static_vectors": False},
                                              "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2",
                                                         "width": 32, "window_size": 1, "maxout_pieces": 3,
                                                         "depth": 2}}})
    nlp.initialize()
    assert spacy_lal.quantize(nlp) is nlp
    ops = {layer.ops for layer in nlp.get_pipe("tok2vec").model.walk()}
    assert len(ops) == 1 and all(o.int8 for o in ops)
    doc = nlp("Dogs bark loudly at night.")
    assert doc.tensor.shape == (6, 32)
    # Copies and pickles of the quantized pipeline's model (spaCy makes both) carry no torch state.
    clone = copy.deepcopy(nlp.get_pipe("tok2vec").model)
    pickle.loads(pickle.dumps(clone))
    spacy_lal.quantize(nlp, enabled=False)
    assert not any(layer.ops.int8 for layer in nlp.get_pipe("tok2vec").model.walk())


def test_int8_set_in_the_config_is_on_from_the_start_and_survives_saving_and_listener_copies(tmp_path):
    import spacy_lal

    tok2vec = {"@architectures": "spacy-lal.SentenceTok2Vec.v1", "int8": True,
               "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 96, "attrs": ["NORM", "SHAPE"],
                         "rows": [200, 50], "include_static_vectors": False},
               "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 96, "window_size": 1,
                          "maxout_pieces": 3, "depth": 2}}
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": tok2vec})
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "tok2vec"}
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": listener}})
    nlp.get_pipe("tagger").add_label("X")
    nlp.initialize()
    int8_ops = lambda model: {layer.ops.int8 for layer in model.walk() if hasattr(layer.ops, "int8")}  # noqa: E731
    assert int8_ops(nlp.get_pipe("tok2vec").model) == {True}
    text = "Dogs bark loudly at night."
    with_int8 = nlp(text).tensor
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert int8_ops(loaded.get_pipe("tok2vec").model) == {True}
    numpy.testing.assert_array_equal(loaded(text).tensor, with_int8)
    loaded.replace_listeners("tok2vec", "tagger", ["model.tok2vec"])  # the tagger's own copy
    assert int8_ops(loaded.get_pipe("tagger").model.get_ref("tok2vec")) == {True}
    spacy_lal.quantize(loaded, enabled=False)  # the documented way back to float products
    assert int8_ops(loaded.get_pipe("tagger").model) == {False}
    float_nlp = spacy.load(tmp_path / "p", config={"components": {"tok2vec": {"model": {"int8": False}}}})
    assert int8_ops(float_nlp.get_pipe("tok2vec").model) == {False}
    assert not numpy.array_equal(float_nlp(text).tensor, with_int8)


def test_maxout_at_prediction_keeps_the_maxima_and_no_winners():
    """Inside ``prediction()`` TorchGemmOps' maxout gives Thinc's maxima; which piece won, needed
    only by a backward pass, is a stand-in that Thinc's backprop_maxout refuses. Outside it, both
    are Thinc's."""
    from spacy_lal.pipeline.layers.gemm import prediction

    rng = numpy.random.default_rng(2)
    Z = rng.standard_normal((9, 4, 3)).astype("float32")
    best, which = NumpyOps().maxout(Z)
    ops = TorchGemmOps()
    with prediction():
        fast_best, stand_in = ops.maxout(Z)
    numpy.testing.assert_array_equal(fast_best, best)
    with pytest.raises(ValueError):
        NumpyOps().backprop_maxout(numpy.ones_like(best), stand_in, 3)
    training_best, training_which = ops.maxout(Z)
    numpy.testing.assert_array_equal(training_best, best)
    numpy.testing.assert_array_equal(training_which, which)


def test_tagger_architecture_is_spacys_on_torch():
    """``spacy-lal.Tagger.v1`` loads ``spacy.Tagger.v2``'s weights and tags alike, its products on
    TorchGemmOps."""
    vocab = spacy.blank("en").vocab
    tok2vec = {"@architectures": "spacy.HashEmbedCNN.v2", "width": 16, "depth": 1, "embed_size": 100,
               "window_size": 1, "maxout_pieces": 3, "subword_features": True, "pretrained_vectors": None}

    def build(name: str):
        return spacy.util.registry.resolve({"t": {"@architectures": name, "tok2vec": tok2vec, "nO": 5}})["t"]

    docs = [Doc(vocab, words=["Dogs", "bark", "."]), Doc(vocab, words=["The", "cat", "sat", "."])]
    theirs, ours = build("spacy.Tagger.v2"), build("spacy-lal.Tagger.v1")
    theirs.initialize(X=docs)
    ours.initialize(X=docs)
    rng = numpy.random.default_rng(3)
    for layer in theirs.walk():  # the output layer starts at zero: give it weights to compare
        for name in layer.param_names:
            layer.set_param(name, rng.standard_normal(layer.get_param(name).shape).astype("float32"))
    ours.from_bytes(theirs.to_bytes())
    assert all(isinstance(layer.ops, TorchGemmOps) for layer in ours.walk())
    for mine, reference in zip(ours.predict(docs), theirs.predict(docs)):
        numpy.testing.assert_allclose(mine, reference, rtol=1e-4, atol=1e-5)


def test_layer_norm_at_prediction_is_torchs_and_training_thincs():
    """use_torch_gemm gives LayerNorm layers torch's kernel inside ``prediction()``: Thinc's values
    and weights (saved and loaded alike); training passes and their gradients stay Thinc's."""
    from thinc.api import LayerNorm, chain

    from spacy_lal.pipeline.layers.gemm import prediction

    rng = numpy.random.default_rng(4)
    X = rng.standard_normal((7, 6)).astype("float32") * 3 + 1
    dY = rng.standard_normal((7, 6)).astype("float32")
    thincs = chain(Maxout(6, 6, nP=2), LayerNorm(6)).initialize(X=X)
    for name in ("G", "b"):
        thincs.layers[1].set_param(name, rng.standard_normal(6).astype("float32"))
    ours = use_torch_gemm(chain(Maxout(6, 6, nP=2), LayerNorm(6)))
    ours.initialize(X=X)
    ours.from_bytes(thincs.to_bytes())
    assert ours.layers[1].attrs.get("spacy_lal_torch_layer_norm")
    with prediction():
        Y, backprop = ours(X, is_train=False)
    numpy.testing.assert_allclose(Y, thincs.predict(X), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="no backward pass"):
        backprop(dY)
    results = []
    for model in (thincs, ours):
        Y, backprop = model(X, is_train=True)
        results.append((Y, backprop(dY), model.layers[1].get_grad("G").copy()))
    for expected, got in zip(*results):
        numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_int8_settings_name_every_switch_that_quantize_turns():
    from spacy_lal.quantization import int8_settings

    sentence_tok2vec = {"@architectures": "spacy-lal.SentenceTok2Vec.v1", "embed": {}, "encode": {}}
    config = {"components": {
        "tok2vec": {"factory": "tok2vec", "model": dict(sentence_tok2vec)},
        "tagger": {"factory": "tagger", "model": {"@architectures": "spacy-lal.Tagger.v1",
                                                  "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1"}}},
        "lal_parser": {"factory": "lal_parser", "quantize": False, "model": {}},
        "lal_srl": {"factory": "lal_srl", "model": {"tok2vec": dict(sentence_tok2vec)}},
        "senter": {"factory": "lal_senter", "model": {"tok2vec": {"@architectures": "spacy.Tok2Vec.v2"}}},
        "deps": {"factory": "lal_dependency_parser", "model": {}},
        # Unknown names (a user's own factory, an architecture not installed) have no switch.
        "custom": {"factory": "not_a_factory", "model": {"@architectures": "not.an.architecture.v1"}},
    }}
    assert int8_settings(config) == [("components.tok2vec.model.int8", True), ("components.lal_parser.quantize", True),
                                     ("components.lal_srl.model.tok2vec.int8", True),
                                     ("components.deps.quantize", True)]
    assert {value for _, value in int8_settings(config, False)} == {False}
