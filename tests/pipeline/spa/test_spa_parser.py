"""lal_spa_parser end to end: overfit EWT sentences (graph and transition, BoT-SPA), serialize,
n_process, awkward input, chunked forward passes, the non-projectivity policy, spacy train and
clear errors."""
import logging
import pickle
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from thinc.api import Config

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.corpora.conllu import read_conllu

EWT_SAMPLE = Path(__file__).parents[2] / "data" / "corpora" / "sample.conllu"  # four EWT sentences


@pytest.fixture(scope="module")
def ewt_examples(ewt_sentences):
    """``ewt_examples(nlp)``: nine EWT sentences, the five of ``ewt_sentences`` and the CoNLL-U
    sample's four."""

    def ewt_examples(nlp):
        references = [
            Doc(nlp.vocab, words=words, heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)], deps=deps)
            for words, heads, deps in ewt_sentences
        ]
        references += list(read_conllu(EWT_SAMPLE, nlp.vocab))
        return [Example(Doc(nlp.vocab, words=[t.text for t in ref]), ref) for ref in references]

    return ewt_examples


@pytest.fixture(scope="module")
def train(tiny_spa, ewt_examples):
    """``train(parsing, n_iter=80, **settings)``: lal_spa_parser overfitted on the EWT sentences."""

    def train(parsing: str, n_iter: int = 80, **settings):
        nlp = spacy.blank("en")
        nlp.add_pipe("lal_spa_parser", config={"model": {**tiny_spa, "parsing": parsing}, **settings})
        examples = ewt_examples(nlp)
        optimizer = nlp.initialize(lambda: examples)
        optimizer.learn_rate = 0.005
        for _ in range(n_iter):
            nlp.update(examples, sgd=optimizer)
        return nlp, examples

    return train


@pytest.fixture(scope="module", params=["graph", "transition"])
def trained(request, train):
    return train(request.param)


def dependencies(docs):
    return [[(t.head.i, t.dep_) for t in doc] for doc in docs]


def test_overfits_ewt_sentences(trained, parse_words):
    nlp, examples = trained
    parsed = parse_words(nlp, examples)
    assert dependencies(parsed) == dependencies(eg.reference for eg in examples)
    scores = nlp.evaluate(examples)
    assert scores["dep_uas"] == 1.0 and scores["dep_las"] == 1.0


def test_round_trips_give_identical_parses(trained, tmp_path, parse_words, tiny_spa):
    nlp, examples = trained
    expected = dependencies(parse_words(nlp, examples))
    config = {"model": {**tiny_spa, "parsing": nlp.get_pipe("lal_spa_parser").model.attrs["spa_config"]["parsing"]}}
    from_bytes = spacy.blank("en")
    from_bytes.add_pipe("lal_spa_parser", config=config)
    from_bytes.from_bytes(nlp.to_bytes())
    assert dependencies(parse_words(from_bytes, examples)) == expected
    nlp.to_disk(tmp_path / "pipeline")
    assert dependencies(parse_words(spacy.load(tmp_path / "pipeline"), examples)) == expected
    assert dependencies(parse_words(pickle.loads(pickle.dumps(nlp)), examples)) == expected


def test_n_process(trained):
    nlp, examples = trained
    texts = [eg.reference.text for eg in examples]
    assert dependencies(nlp.pipe(texts, n_process=2, batch_size=3)) == dependencies(nlp.pipe(texts))


def test_empty_whitespace_and_long_input(trained, caplog):
    nlp, _ = trained
    assert len(nlp("")) == 0
    assert not nlp("   ").has_annotation("DEP")  # whitespace only: nothing to parse
    spaced = nlp("The cat   sat on the mat .")
    space = next(t for t in spaced if t.is_space)
    assert space.dep_ == "dep" and space.head.i == space.i - 1
    assert len(list(spaced.sents)) == 1
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        long_doc = nlp(" ".join(["cat"] * 40))
    assert "lal_spa_parser: 1 sentence(s) longer than 16 words" in caplog.text
    assert sum(t.dep_ == "dep" and t.head.i != t.i for t in long_doc) >= 2  # the roots of pieces 2 and 3
    assert len(list(long_doc.sents)) == 1


def test_sentences_are_parsed_separately(trained):
    nlp, _ = trained
    words = ["I", "love", "you", ".", "We", "cannot", "."]
    doc = nlp(Doc(nlp.vocab, words=words, sent_starts=[True, False, False, False, True, False, False]))
    assert [len(s) for s in doc.sents] == [4, 3]
    assert all(t.head.i < 4 for t in doc[:4]) and all(t.head.i >= 4 for t in doc[4:])


def test_chunked_forward_matches_one_pass(trained):
    """max_chart_cells bounds the rescan's memory by running length-sorted chunks: the same
    parses and loss as one pass."""
    nlp, examples = trained
    parser = nlp.get_pipe("lal_spa_parser")
    model = parser.model
    docs = [eg.x for eg in examples]
    one_pass = parser.predict(docs)
    units = one_pass.units
    batch = parser._training_batch(examples, units)
    loss_one, _ = model.begin_update((docs, units, batch))
    cells = model.attrs["max_chart_cells"]
    model.attrs["max_chart_cells"] = 1  # every sentence in its own chunk
    try:
        chunked = parser.predict(docs)
        loss_chunked, _ = model.begin_update((docs, units, batch))
    finally:
        model.attrs["max_chart_cells"] = cells
    for a, b in zip(one_pass.decoded.heads + one_pass.decoded.labels, chunked.decoded.heads + chunked.decoded.labels):
        assert a.tolist() == b.tolist()
    assert loss_chunked == pytest.approx(loss_one, rel=1e-4, abs=1e-6)


def test_graph_decoders_give_trees(parse_words, train):
    nlp, examples = train("graph", n_iter=2)
    parser = nlp.get_pipe("lal_spa_parser")
    for decoder in ("eisner", "mst"):
        parser.cfg["decoder"] = decoder
        for doc in parse_words(nlp, examples):
            assert sum(t.head.i == t.i for t in doc) == 1  # one root: a tree over the sentence


# A non-projective EWT-style tree: "A hearing is scheduled on the issue today ." (the PP "on the
# issue" attaches to "hearing" across the verb).
NONPROJECTIVE = (
    "A hearing is scheduled on the issue today .".split(),
    [2, 4, 4, 0, 7, 7, 2, 4, 4],
    ["det", "nsubj:pass", "aux:pass", "root", "case", "det", "nmod", "obl:tmod", "punct"],
)


@pytest.mark.parametrize("policy", ["projectivize", "skip"])
def test_nonprojective_policy(policy, caplog, ewt_examples, tiny_spa):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_spa_parser", config={"model": {**tiny_spa, "parsing": "transition"}, "non_projective": policy})
    words, heads, deps = NONPROJECTIVE
    reference = Doc(nlp.vocab, words=words, heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)], deps=deps)
    examples = ewt_examples(nlp)[:2] + [Example(Doc(nlp.vocab, words=words), reference)]
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        nlp.initialize(lambda: examples)
    assert f"1 of 3 training sentences have a non-projective gold tree" in caplog.text
    parser = nlp.get_pipe("lal_spa_parser")
    units = parser.predict([eg.x for eg in examples]).units
    oracle = parser._training_batch(examples, units).targets.oracle
    assert [len(t) for _, t in oracle[:2]] == [2 * len(units[0]), 2 * len(units[1])]
    assert len(oracle[2][1]) == (2 * len(words) if policy == "projectivize" else 0)
    losses = nlp.update(examples)  # trains whatever the policy left
    assert numpy.isfinite(losses["lal_spa_parser"])


def test_uninitialized_component_is_a_clear_error():
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_spa_parser")
    with pytest.raises(ValueError, match="initialize the component first"):
        nlp("The cat sat.")


@pytest.mark.parametrize(
    "model,settings,message",
    [
        ({"encoder": "lstm"}, {}, "encoder must be one of"),
        ({"parsing": "beam"}, {}, "parsing must be one of"),
        ({"score": "dot"}, {}, "score must be one of"),
        ({"d_scan": 0}, {}, "d_scan must be a positive int"),
        ({"dropout": 1.5}, {}, "dropout must be in"),
        ({"parsing": "transition"}, {"decoder": "mst"}, "decoder must be one of"),
        ({}, {"decoder": "greedy"}, "decoder must be one of"),
        ({"parsing": "transition"}, {"non_projective": "lift"}, "non_projective must be one of"),
    ],
)
def test_bad_settings_are_clear_errors(tiny_spa, model, settings, message):
    with pytest.raises(ValueError, match=message):
        spacy.blank("en").add_pipe("lal_spa_parser", config={"model": {**tiny_spa, **model}, **settings})


def test_initialize_without_heads_is_a_clear_error(tiny_spa):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_spa_parser", config={"model": tiny_spa})
    with pytest.raises(ValueError, match="has dependency heads"):
        nlp.initialize(lambda: [Example(Doc(nlp.vocab, words=["a", "b"]), Doc(nlp.vocab, words=["a", "b"]))])


TRAIN_CONFIG = """
[paths]
train = null
dev = null

[nlp]
lang = "en"
pipeline = ["tagger","lal_spa_parser"]
batch_size = 16

[components]

[components.tagger]
factory = "tagger"

[components.tagger.model]
@architectures = "spacy.Tagger.v2"

[components.tagger.model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
width = 32
depth = 1
embed_size = 500
window_size = 1
maxout_pieces = 2
subword_features = false
pretrained_vectors = null

[components.lal_spa_parser]
factory = "lal_spa_parser"
non_projective = "skip"

[components.lal_spa_parser.model]
@architectures = "spacy-lal.SpaDependencyParser.v1"
encoder = "tob"
parsing = "transition"
d_scan = 16
d_rescan = 16
d_hidden = 32
max_length = 32

[components.lal_spa_parser.model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
width = 32
depth = 1
embed_size = 500
window_size = 1
maxout_pieces = 2
subword_features = false
pretrained_vectors = null

[components.lal_spa_parser.model.tag_embed]
@architectures = "spacy-lal.TagEmbed.v1"
width = 8

[corpora]

[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${paths.train}

[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${paths.dev}

[training]
max_steps = 20
eval_frequency = 10
annotating_components = ["tagger"]

[training.logger]
@loggers = "spacy.ConsoleLogger.v1"
progress_bar = false
"""


def test_spacy_train_with_tag_embeddings(tmp_path, ewt_examples):
    """`spacy train` on a tiny config: tagger -> tag embeddings -> transition-based ToB-SPA."""
    from spacy.cli.train import train as spacy_train

    nlp = spacy.blank("en")
    references = [eg.reference for eg in ewt_examples(nlp)]
    for ref in references:  # the CoNLL-U sample has tags; give the others one so the tagger trains
        for token in ref:
            token.tag_ = token.tag_ or "X"
    DocBin(docs=references).to_disk(tmp_path / "train.spacy")
    corpus = str(tmp_path / "train.spacy")
    config = Config().from_str(TRAIN_CONFIG, overrides={"paths.train": corpus, "paths.dev": corpus})
    # spaCy's defaults fill in the rest, as `spacy init fill-config` would.
    spacy.util.load_model_from_config(config, auto_fill=True, validate=False).config.to_disk(tmp_path / "config.cfg")
    spacy_train(tmp_path / "config.cfg", tmp_path / "out")
    trained = spacy.load(tmp_path / "out" / "model-last")
    assert trained.pipe_names == ["tagger", "lal_spa_parser"]
    assert "dep_las" in trained.meta["performance"]
    doc = trained("I love you .")
    assert doc.has_annotation("DEP") and sum(t.head.i == t.i for t in doc) == 1
