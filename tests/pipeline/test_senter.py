"""lal_senter: spaCy's senter that skips the Docs whose sentence boundaries are all set."""
import spacy
from spacy.pipeline.senter import SentenceRecognizer
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import fix_random_seed

import spacy_lal  # noqa: F401  (the factory)

TEXTS = ["I came . I saw . I won", "Great food cheap prices will be back", "Hello", "a b . c d e . f"]


def trained_senter(overwrite=False, model=None):
    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_senter", name="senter", config={"overwrite": overwrite, **({"model": model} if model else {})})
    examples = []
    for text in TEXTS:
        words = text.split()
        starts = [i == 0 or words[i - 1] == "." for i in range(len(words))]
        examples.append(Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words, sent_starts=starts)))
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(30):
        nlp.update(examples, sgd=optimizer)
    return nlp


def test_docs_with_every_boundary_set_are_not_read_and_keep_their_boundaries():
    nlp = trained_senter()
    senter = nlp.get_pipe("senter")
    preset = Doc(nlp.vocab, words="a b c d".split(), sent_starts=[True, False, True, False])
    raw = nlp.make_doc("I came . I saw")
    guesses = senter.predict([preset, raw])
    assert len(guesses[0]) == 0 and len(guesses[1]) == len(raw)
    senter.set_annotations([preset, raw], guesses)
    assert [t.is_sent_start for t in preset] == [True, False, True, False]
    assert raw.has_annotation("SENT_START") and all(t.is_sent_start is not None for t in raw)


def test_unset_boundaries_are_predicted_as_spacys_senter_predicts_them():
    nlp = trained_senter()
    ours = nlp.get_pipe("senter")
    theirs = SentenceRecognizer(nlp.vocab, ours.model, "senter", overwrite=False, scorer=None)
    partly = Doc(nlp.vocab, words="a b . c d e".split(), sent_starts=[True, None, None, None, None, None])
    docs = [nlp.make_doc(t) for t in TEXTS] + [partly, nlp.make_doc("")]
    expected = [d.copy() for d in docs]
    ours.set_annotations(docs, ours.predict(docs))
    theirs.set_annotations(expected, theirs.predict(expected))
    assert [[t.is_sent_start for t in d] for d in docs] == [[t.is_sent_start for t in d] for d in expected]
    assert docs[-2][0].is_sent_start  # a set boundary of a partly set Doc stays


def test_overwrite_reads_every_doc():
    nlp = trained_senter(overwrite=True)
    preset = Doc(nlp.vocab, words="a b c d".split(), sent_starts=[True, True, True, True])
    assert len(nlp.get_pipe("senter").predict([preset])[0]) == 4


def test_the_shipped_pipelines_split_with_it():
    for name in ("en_lal_ewt", "en_lal_ewt_trf"):
        config = spacy.util.load_config(spacy_lal.pipeline_path(name) / "config.cfg")
        assert config["components"]["senter"]["factory"] == "lal_senter"


def test_a_torch_gemm_senter_predicts_as_spacys_and_stays_float_under_quantize():
    """The shipped splitter's model (spacy-lal.Tagger.v1, its products on torch) predicts inside
    gemm.prediction (the fast maxout and layer norm): the boundaries spaCy's senter finds with the
    same model; spacy_lal.quantize leaves its products float (int8 cost sentence F1)."""
    encode = {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 96, "depth": 2, "window_size": 1,
              "maxout_pieces": 3}
    embed = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 96, "attrs": ["NORM", "SHAPE"],
             "rows": [500, 50], "include_static_vectors": False}
    nlp = trained_senter(model={"@architectures": "spacy-lal.Tagger.v1", "nO": None, "normalize": False,
                                "tok2vec": {"@architectures": "spacy.Tok2Vec.v2", "embed": embed, "encode": encode}})
    ours = nlp.get_pipe("senter")
    theirs = SentenceRecognizer(nlp.vocab, ours.model, "senter", overwrite=False, scorer=None)
    docs = [nlp.make_doc(t) for t in TEXTS * 3]
    expected = [d.copy() for d in docs]
    theirs.set_annotations(expected, theirs.predict(expected))
    spacy_lal.quantize(nlp)
    assert not any(getattr(layer.ops, "int8", False) for layer in ours.model.walk())
    ours.set_annotations(docs, ours.predict(docs))
    assert [[t.is_sent_start for t in d] for d in docs] == [[t.is_sent_start for t in d] for d in expected]
