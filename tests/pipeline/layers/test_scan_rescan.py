"""spacy-lal.SpaEncoder.v1: Zhou et al.'s SCAN + RESCAN as a tok2vec encoder, under
lal_dependency_parser and under lal_parser's Label Attention Layer; chunks, gradients, errors."""
import numpy
import pytest
import spacy
import torch
from spacy.tokens import Doc
from thinc.api import Config

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.nn.spa_encoder import SpaEncoder

SPA_ENCODER = {
    "@architectures": "spacy-lal.SpaEncoder.v1",
    "width": 32,
    "encoder": "bot",
    "d_scan": 24,
    "d_rescan": 16,
    "dropout": 0.0,
}


@pytest.fixture(scope="module")
def spa_tok2vec(tiny_tok2vec):
    """The tiny tok2vec's embedding, encoded by SCAN + RESCAN."""
    return {"@architectures": "spacy-lal.SentenceTok2Vec.v1", "embed": tiny_tok2vec["embed"], "encode": SPA_ENCODER}


def build_encoder(**settings):
    config = Config({"encode": {**SPA_ENCODER, **settings}})
    return spacy.util.registry.resolve(config)["encode"]


@pytest.mark.parametrize("encoder,width", [("birnn", 48), ("attention", 96), ("tob", 80), ("bot", 80)])
def test_widths_and_chunks(encoder, width):
    """nO is r's width (eq. 27); length-sorted chunks give the outputs and input gradients of
    one pass, each sentence's rows in its own place, ROOT left out."""
    model = build_encoder(encoder=encoder)
    assert model.get_dim("nO") == width
    rng = numpy.random.default_rng(0)
    X = [rng.normal(size=(n, 32)).astype("float32") for n in (5, 1, 9, 0, 3)]
    Y, backprop = model(X, is_train=True)
    dY = [rng.normal(size=y.shape).astype("float32") for y in Y]
    dX = backprop(dY)
    model.attrs["max_cells"] = 1  # every sentence alone
    Y1, backprop1 = model(X, is_train=True)
    dX1 = backprop1(dY)
    assert [y.shape for y in Y] == [(len(x), width) for x in X]
    for a, b in zip(Y + dX, Y1 + dX1):
        numpy.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    # The wrapped module on one sentence: rows 1..n of its output.
    module = model.layers[0].shims[0]._model
    module.eval()
    with torch.no_grad():
        expected = module(torch.from_numpy(X[0])[None], torch.tensor([5]))[0, 1:].numpy()
    numpy.testing.assert_allclose(Y[0], expected, rtol=1e-4, atol=1e-5)
    assert isinstance(module, SpaEncoder) and module.kind == encoder


def test_bad_settings_are_clear_errors():
    with pytest.raises(ValueError, match="encoder must be one of"):
        build_encoder(encoder="lstm")
    with pytest.raises(ValueError, match="max_cells must be positive"):
        build_encoder(max_cells=0)


@pytest.mark.parametrize("factory", ["lal_dependency_parser", "lal_parser"])
def test_parsers_overfit_on_the_spa_encoder(factory, parse_words, parser_examples, spa_tok2vec, tiny_parser):
    """SCAN + RESCAN as the encoder below the biaffine scorers and the Label Attention Layer
    (no self-attention layers of the parser's own)."""
    nlp = spacy.blank("en")
    nlp.add_pipe(factory, config={"model": {**tiny_parser, "n_layers": 0, "tok2vec": spa_tok2vec}})
    examples = parser_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.003
    for _ in range(150):
        nlp.update(examples, sgd=optimizer)
    for doc, eg in zip(parse_words(nlp, examples), examples):
        assert [(t.head.i, t.dep_) for t in doc] == [(t.head.i, t.dep_) for t in eg.reference]
        if factory == "lal_parser":
            assert doc._.tree.to_spans() == eg.reference._.tree.to_spans()
    # Empty Docs and whitespace tokens never reach the encoder (the parser's units leave them out).
    words = ["Dogs", "\n", "bark", "."]
    docs = list(nlp.pipe([Doc(nlp.vocab, words=[]), Doc(nlp.vocab, words=words, spaces=[False] * 4)]))
    assert len(docs[0]) == 0 and docs[1][1].dep_ == "dep"
