"""TorchGemmOps: thinc's products through torch.mm give BLIS's results, forward and backward."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from thinc.api import Maxout, NumpyOps

from spacy_lal.pipeline.gemm import TorchGemmOps, use_torch_gemm


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
    embed = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32, "attrs": ["NORM", "SHAPE"],
             "rows": [200, 50], "include_static_vectors": False}
    encode = {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 32, "window_size": 1,
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
