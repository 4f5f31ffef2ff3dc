"""lal_srl end to end: overfit, predicates, decoders, serialization, awkward input, export."""
import logging
import pickle
from collections import Counter

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.doc.extensions import set_frames
from spacy_lal.doc.frames import FrameData
from spacy_lal.pipeline.srl.predicate_marking import PREDICATES_GIVEN, mark_gold_predicates, mark_predicates
from spacy_lal.pipeline.srl.targets import count_senses, sense_bonus
from spacy_lal.pipeline.units import Unit, piece_bounds
from spacy_lal.training.callbacks import make_component_settings


def with_gold_predicates(examples):
    return [next(mark_gold_predicates(None, eg.copy())) for eg in examples]


def frames_of(doc):
    return [(f.predicate.i, f.sense, f.data.arguments) for f in doc._.srl]


def expected_frames(examples):
    return [frames_of(eg.reference) for eg in examples]


@pytest.fixture(scope="module")
def train_srl(tiny_srl, srl_examples):
    """``train_srl(n_iter=120, model=tiny_srl, **config)``: lal_srl trained on the SRL sentences."""

    def train(n_iter=120, model=None, **config):
        nlp = spacy.blank("en")
        nlp.add_pipe("lal_srl", config={"model": model or tiny_srl, **config})
        examples = srl_examples(nlp.vocab)
        optimizer = nlp.initialize(lambda: examples)
        optimizer.learn_rate = 0.005
        for _ in range(n_iter):
            nlp.update(examples, sgd=optimizer)
        return nlp, examples

    return train


@pytest.fixture(scope="module")
def trained(train_srl):
    return train_srl()


def label(nlp, docs):
    return [frames_of(doc) for doc in nlp.pipe(docs)]


def raw_docs(nlp, examples):
    return [Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples]


@pytest.mark.parametrize("decoder", ["argmax", "viterbi", "unique_roles"])
def test_overfit_with_gold_predicates(trained, decoder):
    nlp, examples = trained
    nlp.get_pipe("lal_srl").cfg["decoder"] = decoder
    try:
        gold = with_gold_predicates(examples)
        assert label(nlp, [eg.predicted for eg in gold]) == expected_frames(examples)
        scores = nlp.evaluate(gold)
    finally:
        nlp.get_pipe("lal_srl").cfg["decoder"] = "argmax"
    assert scores["srl_f"] == 1.0 and scores["srl_perfect"] == 1.0
    assert scores["srl_pred_f"] == 1.0 and scores["srl_sense_acc"] == 1.0


@pytest.mark.parametrize("decoder", ["argmax", "viterbi"])
def test_overfit_with_predicted_predicates(trained, decoder):
    nlp, examples = trained
    srl = nlp.get_pipe("lal_srl")
    srl.cfg.update(predicates="predicted", decoder=decoder)
    try:
        # Docs carrying other predicates are ignored in this mode.
        docs = raw_docs(nlp, examples)
        set_frames(docs[2], [FrameData(0, None)])
        assert label(nlp, docs) == expected_frames(examples)
        scores = nlp.evaluate(examples)
    finally:
        srl.cfg.update(predicates="gold", decoder="argmax")
    assert scores["srl_pred_f"] == 1.0 and scores["srl_sense_acc"] == 1.0 and scores["srl_f"] == 1.0


@pytest.mark.parametrize("predicates", ["gold", "predicted"])
def test_chunked_forward_matches_one_pass(trained, predicates):
    """max_chart_cells runs the sentences in length-sorted chunks: the same frames, in the same
    order, and the same loss as one pass (each chunk divides by the whole batch's counts)."""
    nlp, examples = trained
    srl = nlp.get_pipe("lal_srl")
    model = srl.model
    docs = [eg.predicted for eg in with_gold_predicates(examples)] if predicates == "gold" else raw_docs(nlp, examples)
    srl.cfg["predicates"] = predicates
    cells = model.attrs["max_chart_cells"]
    try:
        one_pass = srl.predict(docs)
        batch = srl._training_batch(examples, one_pass.units)
        loss_one, _ = model.begin_update((docs, one_pass.units, batch))
        model.attrs["max_chart_cells"] = 1  # every sentence in its own chunk
        chunked = srl.predict(docs)
        loss_chunked, _ = model.begin_update((docs, one_pass.units, batch))
    finally:
        model.attrs["max_chart_cells"] = cells
        srl.cfg["predicates"] = "gold"
    a, b = one_pass.decoded, chunked.decoded
    assert len(a.units) > len(set(a.units)) > 1  # several sentences, some with several predicates
    assert (a.units, a.positions, a.tags, a.senses) == (b.units, b.positions, b.tags, b.senses)
    assert loss_chunked == pytest.approx(loss_one, rel=1e-4, abs=1e-5)


def test_gold_mode_without_frames_identifies_predicates(trained):
    nlp, examples = trained
    assert label(nlp, raw_docs(nlp, examples)) == expected_frames(examples)


def test_gold_mode_respects_docs_marked_as_having_no_predicates(trained):
    """Gold-predicate evaluation: a sentence given no predicates must not get predicted ones."""
    nlp, examples = trained
    docs = raw_docs(nlp, examples)
    mark_predicates(docs[2], [])        # "Mary borrowed ...": told it has none
    mark_predicates(docs[0], [6])       # only "left" of "The man who saw the dog left ."
    labelled = list(nlp.pipe(docs))
    assert labelled[2]._.srl == [] and labelled[2].user_data[PREDICATES_GIVEN]
    assert [frame.predicate.i for frame in labelled[0]._.srl] == [6]
    assert frames_of(labelled[3]) == expected_frames(examples)[3]   # unmarked: identified
    restored = Doc(nlp.vocab).from_bytes(docs[2].to_bytes())
    assert restored.user_data[PREDICATES_GIVEN]


def test_label_data_and_senses(trained):
    nlp, examples = trained
    data = nlp.get_pipe("lal_srl").label_data
    assert {"B-C-ARG1", "I-C-ARG1", "B-R-ARG0", "B-V", "I-V", "B-C-V"} <= set(data["labels"])
    assert data["labels"][0] == "O"
    assert data["senses"] == ["01", "06", "11"]
    # Without a lemmatizer the lemma part comes from the form, mapped by the learned table.
    assert data["sense_lemmas"]["decision"] == "decide" and data["sense_lemmas"]["picked"] == "pick_up"
    # The sense prior's table: each lemma's gold rolesets, counted.
    gold = Counter(f.sense for eg in examples for f in eg.reference._.srl if f.sense)
    assert sum(n for table in data["sense_counts"].values() for n in table.values()) == sum(gold.values())
    assert all(data["sense_counts"][r.rpartition(".")[0]][r.rpartition(".")[2]] == n for r, n in gold.items())


def test_round_trips_give_identical_frames(trained, tmp_path, tiny_srl):
    nlp, examples = trained
    expected = label(nlp, raw_docs(nlp, examples))
    from_bytes = spacy.blank("en")
    from_bytes.add_pipe("lal_srl", config={"model": tiny_srl})
    from_bytes.from_bytes(nlp.to_bytes())
    assert label(from_bytes, raw_docs(from_bytes, examples)) == expected
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert label(loaded, raw_docs(loaded, examples)) == expected
    unpickled = pickle.loads(pickle.dumps(nlp))
    assert label(unpickled, raw_docs(unpickled, examples)) == expected


def test_n_process(trained, srl_sentences):
    nlp, _ = trained
    texts = [" ".join(words) for words, _ in srl_sentences] * 2
    serial = [frames_of(d) for d in nlp.pipe(texts)]
    parallel = [frames_of(d) for d in nlp.pipe(texts, n_process=2, batch_size=3)]
    assert parallel == serial
    assert any(serial)


def test_awkward_input(trained, caplog, srl_sentences):
    nlp, _ = trained
    assert nlp("")._.srl == []
    assert nlp("Hello there !")._.srl == []
    # Whitespace tokens are not shown to the model; arguments may span them.
    spaced = nlp("Mary borrowed a   book from John yesterday .")
    assert [t.is_space for t in spaced].count(True) == 1
    (frame,) = spaced._.srl
    assert frame.predicate.text == "borrowed" and frame.sense == "borrow.01"
    assert not any(span[0].is_space or span[-1].is_space for span in frame.arguments)
    # (The tok2vec sees the whitespace token, so the words' vectors differ from training; the
    # mapping of word-level tags back to tokens is checked directly.)
    srl = nlp.get_pipe("lal_srl")
    unit = Unit(0, 0, len(spaced), tuple(t.i for t in spaced if not t.is_space))
    tags = ["B-ARG0", "B-V", "B-ARG1", "I-ARG1", "O", "O", "O", "O"]
    assert srl._frame(unit, 1, tags, None) == FrameData(1, None, ((0, 1, "ARG0"), (2, 5, "ARG1")))
    # A sentence longer than max_length (12) is labelled in pieces, arguments within the piece.
    words = srl_sentences[2][0] * 4
    long_doc = Doc(nlp.vocab, words=words)
    set_frames(long_doc, [FrameData(p, None) for p in (1, 9, 17, 25)])
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        long_doc = nlp(long_doc)
    assert "longer than 12 words" in caplog.text
    frames = long_doc._.srl
    assert [f.predicate.i for f in frames] == [1, 9, 17, 25]
    bounds = piece_bounds(len(words), 12)  # [0, 11, 22, 32]
    for frame in frames:
        start, end = next((a, b) for a, b in zip(bounds, bounds[1:]) if a <= frame.predicate.i < b)
        assert all(start <= span.start and span.end <= end for span in frame.arguments)


def test_pos_predicates_and_zero_row_batches(trained, srl_sentences):
    nlp, _ = trained
    srl = nlp.get_pipe("lal_srl")
    srl.cfg["predicates"] = "pos"
    try:
        # No tagger: no token is a VERB, so the batch has units but no rows.
        assert [frames_of(d) for d in nlp.pipe(["Mary borrowed a book .", "Hello there !"])] == [[], []]
        doc = Doc(nlp.vocab, words=srl_sentences[2][0], tags=["NNP", "VBD", "DT", "NN", "IN", "NNP", "NN", "."])
        assert [f.predicate.i for f in nlp(doc)._.srl] == [1]
    finally:
        srl.cfg["predicates"] = "gold"


def test_export_and_srl_eval(trained, tmp_path):
    from spacy_lal.corpora.export import write_conll05
    from spacy_lal.scoring.srl_eval import score_props_files

    nlp, examples = trained
    predicted = list(nlp.pipe(eg.predicted for eg in with_gold_predicates(examples)))
    assert any(span.label_.startswith("C-") for d in predicted for f in d._.srl for span in f.arguments)
    assert any(span.label_.startswith("R-") for d in predicted for f in d._.srl for span in f.arguments)
    write_conll05([eg.reference for eg in examples], tmp_path / "gold.props")
    write_conll05(predicted, tmp_path / "pred.props")
    result = score_props_files(tmp_path / "gold.props", tmp_path / "pred.props")
    assert result.overall.f1 == 1.0


def test_unknown_roles_are_skipped_with_a_warning(trained, caplog, srl_gold_doc):
    nlp, _ = trained
    words = "Mary left quickly .".split()
    eg = Example(Doc(nlp.vocab, words=words), srl_gold_doc(nlp.vocab, words, [(1, "leave.01", [(0, 1, "ARG0"), (2, 3, "ARGM-NEW")])]))
    copy = pickle.loads(pickle.dumps(nlp))
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        losses = copy.update([eg])
    assert "1 gold arguments with roles unseen" in caplog.text
    assert losses["lal_srl"] > 0


def test_initialize_without_frames_is_a_clear_error(tiny_srl):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_srl", config={"model": tiny_srl})
    eg = Example(Doc(nlp.vocab, words=["a", "b"]), Doc(nlp.vocab, words=["a", "b"]))
    with pytest.raises(ValueError, match="has SRL frames"):
        nlp.initialize(lambda: [eg])


def test_bad_settings_are_clear_errors(tiny_srl):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="predicates must be one of"):
        nlp.add_pipe("lal_srl", config={"model": tiny_srl, "predicates": "oracle"})
    with pytest.raises(ValueError, match="decoder must be one of"):
        nlp.add_pipe("lal_srl", name="other", config={"model": tiny_srl, "decoder": "beam"})
    with pytest.raises(ValueError, match="sense_loss must be one of"):
        nlp.add_pipe("lal_srl", name="third", config={"model": tiny_srl, "sense_loss": "lemmas"})


@pytest.mark.parametrize(
    "overrides",
    [
        {"top_layer": "lal", "lal_d_kv": 8, "lal_d_proj": 4},
        {"sublayer": "rnn"},
        {"sublayer": "cnn"},
        {"max_distance": 4, "sublayer": "rnn"},
        {"n_layers": 2, "sentence_layers": 1},
    ],
)
def test_variants_train_and_predict(overrides, tiny_srl, train_srl):
    nlp, examples = train_srl(n_iter=2, model={**tiny_srl, **overrides})
    assert len(label(nlp, [eg.predicted for eg in with_gold_predicates(examples)])) == len(examples)


def test_paper_preset(tiny_srl):
    from spacy_lal.nn.deepatt import DeepAttConfig

    model = spacy.util.registry.resolve({"m": {**tiny_srl, "n_layers": None, "d_model": None, "n_heads": None, "d_ff": None, "d_mask": None, "preset": "paper"}})["m"]
    config = DeepAttConfig(**model.attrs["deepatt"])
    assert (config.n_layers, config.d_model, config.n_heads, config.d_ff) == (10, 200, 8, 800)


def test_registered_names_resolve():
    registry = spacy.util.registry
    assert registry.factories.get("lal_srl")
    assert registry.architectures.get("spacy-lal.SemanticRoleLabeler.v1")
    assert registry.scorers.get("spacy-lal.srl_scorer.v1")
    assert registry.scorers.get("spacy-lal.srl_full_scorer.v1")
    assert registry.augmenters.get("spacy-lal.srl_gold_predicates.v1")
    weights = spacy.blank("en").get_factory_meta("lal_srl").default_score_weights
    assert weights["srl_f"] == 1.0 and sum(weights.values()) == 1.0


def test_load_obeys_the_configs_settings(trained, tmp_path):
    nlp, _ = trained
    nlp.to_disk(tmp_path / "p")
    config = {"components": {"lal_srl": {"decoder": "viterbi", "predicates": "predicted"}}}
    srl = spacy.load(tmp_path / "p", config=config).get_pipe("lal_srl")
    assert (srl.cfg["decoder"], srl.cfg["predicates"]) == ("viterbi", "predicted")
    assert srl.labels == nlp.get_pipe("lal_srl").labels   # the learned part still comes from disk


def test_missing_lemmatizer_is_warned_once(trained, caplog, srl_sentences):
    """Without lemmas, a predicate's form that the labeller's lemma table does not know is a
    roleset's lemma: said once, naming the form and the lemmatizer. Forms the table knows
    ("borrowed" -> "borrow") are no reason to warn (#50: a blank pipeline warned, then printed
    borrow.01)."""
    nlp, examples = trained
    srl = nlp.get_pipe("lal_srl")
    srl._warned_no_lemmas = False
    table = dict(srl.cfg["sense_lemmas"])
    assert table.get("borrowed") == "borrow"

    def warnings_of(docs):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="spacy_lal"):
            list(nlp.pipe(docs))
        return [r.getMessage() for r in caplog.records if "lemmatizer" in r.getMessage()]

    lemmatized = [Doc(nlp.vocab, words=words, lemmas=[w.lower() for w in words]) for words, _ in srl_sentences]
    assert warnings_of(lemmatized) == []
    assert warnings_of(raw_docs(nlp, examples)) == []  # every predicate's form is in the table
    srl.cfg["sense_lemmas"] = {}
    try:
        first = warnings_of(raw_docs(nlp, examples))
        assert len(first) == 1 and first[0].startswith("lal_srl: no lemmatizer runs before lal_srl")
        assert any(f"'{form}'" in first[0] for form in ("saw", "left", "said", "borrowed", "surprised", "picked"))
        assert warnings_of(raw_docs(nlp, examples)) == []  # once, not at every call
    finally:
        srl.cfg["sense_lemmas"] = table


@pytest.mark.parametrize("reduction", ["mean", "sum", "balanced_sum"])
def test_a_summed_loss_reaches_a_shared_tok2vec_at_the_taggers_scale(
    reduction, gradients_to_a_shared_tok2vec, srl_examples, tiny_srl
):
    """Listening to a tok2vec it shares with spaCy's tagger (unnormalised per-token gradients),
    the labeller must send gradients of the same order: with its mean losses they arrive a batch's
    worth of targets weaker, and the shared encoder learns to tag, not to label roles."""
    def examples_of(nlp):
        examples = srl_examples(nlp.vocab) * 5  # a batch of 30 sentences, as in training
        for eg in examples:
            for token, tag in zip(eg.reference, ("DT", "NN", "VB")):
                token.tag_ = tag
        return examples

    squared_norms = gradients_to_a_shared_tok2vec("lal_srl", {**tiny_srl, "loss_reduction": reduction}, examples_of)
    ratio = squared_norms["lal_srl"] / squared_norms["tagger"]
    assert ratio > 0.2 if reduction != "mean" else ratio < 0.05


def test_a_balanced_sum_is_the_mean_loss_times_the_role_targets(train_srl):
    """The losses keep the mean's balance (so the sense head is not drowned by ~25 role targets
    per sense target) at the role sum's scale. Untrained, so that no loss is near zero."""
    nlp, examples = train_srl(n_iter=0)
    srl = nlp.get_pipe("lal_srl")
    adapter = srl.torch_module
    docs = [eg.predicted for eg in with_gold_predicates(examples)]
    units = srl.predict(docs).units
    batch = srl._training_batch(examples, units)
    losses = {}
    try:
        for reduction in ("mean", "sum", "balanced_sum"):
            adapter.reduction = reduction
            losses[reduction], _ = srl.model.begin_update((docs, units, batch))
    finally:
        adapter.reduction = "mean"
    n_roles, _, n_senses = batch.targets.totals
    assert n_roles > 4 * n_senses > 0
    assert losses["balanced_sum"] == pytest.approx(losses["mean"] * n_roles, rel=1e-4)
    assert losses["balanced_sum"] != pytest.approx(losses["sum"], rel=1e-2)


def test_loss_reduction_is_checked(tiny_srl):
    with pytest.raises(ValueError, match="loss_reduction must be"):
        spacy.util.registry.resolve({"m": {**tiny_srl, "loss_reduction": "max"}})


# -- frames = "propbank": senses and roles from PropBank's frame inventory (issue #36) ----------


def predicate_doc(nlp, words, lemmas, predicate, heads=None, deps=None):
    """A Doc with these lemmas (and dependencies), its one predicate marked."""
    doc = Doc(nlp.vocab, words=words, lemmas=lemmas, heads=heads, deps=deps)
    mark_predicates(doc, [predicate])
    return doc


def with_frames(nlp, setting, docs):
    srl = nlp.get_pipe("lal_srl")
    saved = srl.cfg["frames"]
    srl.cfg["frames"] = setting
    try:
        return [doc._.srl for doc in nlp.pipe([d.copy() for d in docs])]
    finally:
        srl.cfg["frames"] = saved


def test_frames_is_a_runtime_setting_with_propbank_by_default(trained, tmp_path, tiny_srl):
    nlp, _ = trained
    assert nlp.get_pipe("lal_srl").cfg["frames"] == "propbank"
    nlp.to_disk(tmp_path / "p")
    off = spacy.load(tmp_path / "p", config={"components": {"lal_srl": {"frames": None}}})
    assert off.get_pipe("lal_srl").cfg["frames"] is None
    with pytest.raises(ValueError, match="frames must be one of"):
        spacy.blank("en").add_pipe("lal_srl", config={"model": tiny_srl, "frames": "verbnet"})


def test_every_sense_is_a_propbank_roleset_and_every_numbered_role_one_it_defines(trained, srl_sentences):
    from spacy_lal.doc import propbank

    nlp, _ = trained
    texts = [" ".join(words) for words, _ in srl_sentences] + ["Mary saw John .", "The dog left the man ."]
    frames = [f for doc in nlp.pipe(texts) for f in doc._.srl]
    assert frames
    for frame in frames:
        assert propbank.roleset(frame.sense) is not None, frame
        assert all(frame.roleset.defines(span.label_) for span in frame.arguments), frame


def test_a_sense_class_that_forms_no_roleset_is_never_output(train_srl, tiny_srl, srl_examples):
    # Trained to call "borrowed" borrow.06, which PropBank does not have; 06 is a class (pick_up.06).
    def examples(vocab):
        out = []
        for eg in srl_examples(vocab):
            frames = [FrameData(f.data.predicate, "borrow.06" if f.sense == "borrow.01" else f.sense, f.data.arguments)
                      for f in eg.reference._.srl]
            set_frames(eg.reference, frames)
            out.append(eg)
        return out

    nlp = spacy.blank("en")
    nlp.add_pipe("lal_srl", config={"model": tiny_srl})
    egs = examples(nlp.vocab)
    optimizer = nlp.initialize(lambda: egs)
    optimizer.learn_rate = 0.005
    for _ in range(120):
        nlp.update(egs, sgd=optimizer)
    doc = Doc(nlp.vocab, words="Mary borrowed a book from John yesterday .".split())
    mark_predicates(doc, [1])
    (off,), = with_frames(nlp, None, [doc])
    (on,), = with_frames(nlp, "propbank", [doc])
    assert off.sense == "borrow.06"   # what the model learned, as before
    assert on.sense == "borrow.01"    # the best class forming a roleset of "borrow"
    assert on.roleset_name == "get temporarily" and off.roleset_name is None


def test_a_particle_gives_the_phrasal_roleset(trained):
    nlp, _ = trained
    words = "Mary turned it off .".split()
    lemmas = ["Mary", "turn", "it", "off", "."]
    heads, ud = [1, 1, 1, 1, 1], ["nsubj", "root", "obj", "compound:prt", "punct"]
    docs = [predicate_doc(nlp, words, lemmas, 1, heads, deps) for deps in (ud, ud[:3] + ["prt", "punct"])]
    on = with_frames(nlp, "propbank", docs)
    off = with_frames(nlp, None, docs)
    for (frame,), (before,) in zip(on, off):
        # No sense class forms turn_off.07 or .08 (the classes are 01, 06, 11): the first roleset.
        assert frame.sense == "turn_off.07"
        assert before.sense.startswith("turn.") and before.sense.rpartition(".")[2] in ("01", "06", "11")
    # Without the particle, a roleset of "turn"
    (plain,), = with_frames(nlp, "propbank", [predicate_doc(nlp, words, lemmas, 1, heads, ["nsubj", "root", "obj", "advmod", "punct"])])
    assert plain.sense.startswith("turn.") and plain.roleset is not None


def test_numbered_roles_the_roleset_does_not_define_are_not_predicted(trained):
    # "borrowed" lemmatized as "be": be.01 numbers only ARG1 and ARG2, so Mary cannot be ARG0.
    nlp, _ = trained
    words = "Mary borrowed a book from John yesterday .".split()
    doc = predicate_doc(nlp, words, ["Mary", "be", "a", "book", "from", "John", "yesterday", "."], 1)
    (off,), = with_frames(nlp, None, [doc])
    (on,), = with_frames(nlp, "propbank", [doc])
    assert "ARG0" in [span.label_ for span in off.arguments]  # the model's choice, unconstrained
    assert on.sense == "be.01"
    labels = [span.label_ for span in on.arguments]
    assert not {"ARG0", "ARG3", "ARG4"} & set(labels) and "ARGM-TMP" in labels
    assert on.role_description("ARGM-TMP") == "temporal" and on.role_description("ARG0") is None
    assert on.role_description("ARG1") == "topic"


def test_a_lemma_propbank_lacks_gets_no_sense_and_unconstrained_roles(trained, caplog):
    from spacy_lal.logs import log_once

    log_once.cache_clear()
    nlp, _ = trained
    words = "Mary borrowed a book from John yesterday .".split()
    doc = predicate_doc(nlp, words, ["Mary", "florp", "a", "book", "from", "John", "yesterday", "."], 1)
    with caplog.at_level(logging.INFO, logger="spacy_lal"):
        (on,), = with_frames(nlp, "propbank", [doc])
        with_frames(nlp, "propbank", [doc])
    (off,), = with_frames(nlp, None, [doc])
    assert on.sense is None and on.roleset_name is None and off.sense.startswith("florp.")
    assert on.data.arguments == off.data.arguments and on.arguments
    assert caplog.text.count("no PropBank roleset") == 1


def test_count_senses_and_sense_bonus():
    assert count_senses(["go.01", "go.06", "go.01", None, "LV", "pick_up.06"]) == {
        "go": {"01": 2, "06": 1}, "pick_up": {"06": 1}}
    # The prior only adds: no weight, nothing; a count never seen keeps a finite score.
    assert sense_bonus(7, 0.0) == 0.0
    assert sense_bonus(9, 1.0) > sense_bonus(1, 1.0) > sense_bonus(0, 1.0) > float("-inf")


def test_the_sense_prior_weighs_the_lemmas_roleset_counts(trained, tmp_path, caplog):
    """go.01 and go.06 are both sense classes of the tiny model: which one wins follows the head
    without the prior (or without counts for the lemma) and the counts with a strong prior."""
    nlp, _ = trained
    srl = nlp.get_pipe("lal_srl")
    doc = predicate_doc(nlp, "They went home early .".split(), ["they", "go", "home", "early", "."], 1)

    def sense(weight, counts):
        saved = srl.cfg["sense_prior"], srl.cfg["sense_counts"]
        srl.cfg["sense_prior"], srl.cfg["sense_counts"] = weight, counts
        try:
            (frame,), = with_frames(nlp, "propbank", [doc])
            return frame.sense
        finally:
            srl.cfg["sense_prior"], srl.cfg["sense_counts"] = saved

    from spacy_lal.logs import log_once

    log_once.cache_clear()
    with caplog.at_level(logging.INFO, logger="spacy_lal"):
        head = sense(0.5, {})  # a labeller trained before the counts: the head alone, said once
        assert sense(0.5, {}) == head and sense(0.0, {}) == head
    assert caplog.text.count("has no roleset counts") == 1
    assert head in ("go.01", "go.06", "go.11")
    other = "06" if head != "go.06" else "01"
    skewed = {"go": {other: 10_000}}
    assert sense(0.0, skewed) == head                   # weight 0: the head alone
    assert sense(0.5, {"walk": {other: 10_000}}) == head  # counts of other lemmas change nothing
    assert sense(5.0, skewed) == f"go.{other}"
    assert srl.cfg["sense_prior"] == 0.5  # the factory's default
    nlp.to_disk(tmp_path / "p")
    off = spacy.load(tmp_path / "p", config={"components": {"lal_srl": {"sense_prior": 0}}})
    assert off.get_pipe("lal_srl").cfg["sense_prior"] == 0
    assert off.get_pipe("lal_srl").cfg["sense_counts"] == srl.cfg["sense_counts"]


@pytest.mark.parametrize("weight", [-1, "high", True, float("nan")])
def test_sense_prior_must_be_a_weight(tiny_srl, weight):
    with pytest.raises(ValueError, match="sense_prior"):  # ours, or spaCy's config check
        spacy.blank("en").add_pipe("lal_srl", config={"model": tiny_srl, "sense_prior": weight})


def test_add_sense_counts_script(trained, tmp_path):
    import sys
    from pathlib import Path

    import srsly
    from spacy.tokens import DocBin

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
    import add_sense_counts

    nlp, examples = trained
    nlp.to_disk(tmp_path / "p")
    cfg = srsly.read_json(tmp_path / "p" / "lal_srl" / "cfg")
    cfg.pop("sense_counts")  # a pipeline saved before the tables existed
    cfg.pop("phrasal_adverbs")
    srsly.write_json(tmp_path / "p" / "lal_srl" / "cfg", cfg)
    model = (tmp_path / "p" / "lal_srl" / "model").read_bytes()
    DocBin(docs=[eg.reference for eg in examples], store_user_data=True).to_disk(tmp_path / "train.spacy")
    assert add_sense_counts.add_sense_counts(tmp_path / "p", tmp_path / "train.spacy") == len(
        nlp.get_pipe("lal_srl").cfg["sense_counts"])
    assert (tmp_path / "p" / "lal_srl" / "model").read_bytes() == model
    loaded = spacy.load(tmp_path / "p")
    for table in ("sense_counts", "phrasal_adverbs"):
        assert loaded.get_pipe("lal_srl").cfg[table] == nlp.get_pipe("lal_srl").cfg[table]
    DocBin(docs=[spacy.blank("en")("No frames here .")]).to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="no frames with senses"):
        add_sense_counts.add_sense_counts(tmp_path / "p", tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="does not exist"):
        add_sense_counts.add_sense_counts(tmp_path / "p", tmp_path / "train.spacy", component="tagger")


def test_evaluate_script_sets_the_sense_prior(trained, tmp_path, monkeypatch):
    import json
    import sys
    from pathlib import Path

    from spacy.tokens import DocBin

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
    import evaluate

    nlp, examples = trained
    nlp.to_disk(tmp_path / "p")
    DocBin(docs=[eg.reference for eg in examples], store_user_data=True).to_disk(tmp_path / "gold.spacy")
    from spacy_lal import evaluation

    seen = []
    real_evaluate = evaluation.evaluate_pipeline
    monkeypatch.setattr(evaluation, "evaluate_pipeline",
                        lambda nlp, gold, **kw: seen.append(nlp.get_pipe("lal_srl").cfg["sense_prior"]) or real_evaluate(nlp, gold, **kw))
    assert evaluate.main([str(tmp_path / "p"), str(tmp_path / "gold.spacy"), "--sense-prior", "2.5",
                          "--output", str(tmp_path / "out.json")]) == 0
    assert seen == [2.5] and json.loads((tmp_path / "out.json").read_text())["srl_sense_acc"] > 50
    with pytest.raises(SystemExit):
        evaluate.main([str(tmp_path / "p"), str(tmp_path / "gold.spacy"), "--sense-prior", "-1"])


def test_a_sense_loss_over_the_lemmas_rolesets_trains(train_srl):
    """sense_loss = "lemma": each gold predicate's softmax runs over the classes that form rolesets
    of its lemma in the frame files (all classes for a lemma they lack); the labeller still learns
    every sense of the training sentences."""
    from spacy_lal.doc import propbank

    nlp, examples = train_srl(sense_loss="lemma")
    srl = nlp.get_pipe("lal_srl")
    assert srl.cfg["sense_loss"] == "lemma"
    lemmas = sorted({f.sense.rpartition(".")[0] for eg in examples for f in eg.reference._.srl if f.sense})
    allowed = srl._lemma_senses(lemmas + ["notalemmainpropbank"])
    for lemma, row in zip(lemmas, allowed):
        suffixes = {r.id.rpartition(".")[2] for r in propbank.rolesets(lemma)}
        assert row.tolist() == [s in suffixes for s in srl.senses] or (not suffixes & set(srl.senses) and row.all())
    assert allowed[-1].all() and not allowed[:-1].all()  # some lemma is restricted
    gold = with_gold_predicates(examples)
    assert label(nlp, [eg.predicted for eg in gold]) == expected_frames(examples)
    with pytest.raises(ValueError, match="sense_loss must be one of"):  # as component_settings sets it
        make_component_settings({"lal_srl": {"sense_loss": "lemmas"}})(nlp)
    assert srl.cfg["sense_loss"] == "lemma"


def test_sense_weight_scales_the_sense_term_alone(train_srl):
    """sense_weight (training only): the loss is the role and predicate terms plus the weight
    times the sense term, so it moves linearly in the weight; 1 is the plain sum."""
    nlp, examples = train_srl(n_iter=0)
    srl = nlp.get_pipe("lal_srl")
    assert srl.cfg["sense_weight"] == 1.0
    gold = with_gold_predicates(examples)
    units = srl.predict([eg.predicted for eg in gold]).units
    docs = [eg.predicted for eg in gold]
    losses = {}
    for weight in (0.0, 1.0, 4.0):
        make_component_settings({"lal_srl": {"sense_weight": weight}})(nlp)
        batch = srl._training_batch(examples, units)
        assert batch.targets.sense_weight == weight
        assert batch.select(list(range(len(units))), max(len(u) for u in units) + 1).targets.sense_weight == weight
        loss, _ = srl.model.begin_update((docs, units, batch))
        losses[weight] = loss  # the batch's summed loss (a float)
    sense_term = losses[1.0] - losses[0.0]
    assert sense_term > 0
    assert losses[4.0] == pytest.approx(losses[0.0] + 4 * sense_term, rel=1e-4)
    with pytest.raises(ValueError, match="sense_weight must be a number >= 0"):
        make_component_settings({"lal_srl": {"sense_weight": -1}})(nlp)


def test_a_partial_doc_trains_only_its_annotated_predicate(train_srl, srl_sentences, srl_gold_doc):
    """A Doc marked PARTIAL_SRL (a PropBank frame-file example) gives no predicate-flag target
    (IGNORE on every word, its annotated predicate too) and role/sense rows for its annotated
    predicate only; the same Doc unmarked keeps its flags."""
    from spacy_lal.doc.extensions import PARTIAL_SRL
    from spacy_lal.pipeline.srl.adapter import IGNORE

    nlp, _ = train_srl(n_iter=0)
    srl = nlp.get_pipe("lal_srl")
    words, frames = srl_sentences[0]  # "The man who saw the dog left ." (see.01, leave.11)
    full = srl_gold_doc(nlp.vocab, words, frames)
    partial = srl_gold_doc(nlp.vocab, words, frames[:1])
    partial.user_data[PARTIAL_SRL] = True
    batches = {}
    for name, gold in (("full", full), ("partial", partial), ("unmarked", srl_gold_doc(nlp.vocab, words, frames[:1]))):
        examples = [Example(Doc(nlp.vocab, words=words), gold)]
        units = srl.predict([eg.predicted for eg in with_gold_predicates(examples)]).units
        batches[name] = srl._training_batch(examples, units)
    flags = {name: batch.targets.is_predicate[0, : len(words)].tolist() for name, batch in batches.items()}
    assert flags["full"] == [0, 0, 0, 1, 0, 0, 1, 0]
    assert flags["unmarked"] == [0, 0, 0, 1, 0, 0, 0, 0]
    assert flags["partial"] == [IGNORE] * len(words)
    assert batches["partial"].predicates == [[3]] and batches["full"].predicates == [[3, 6]]
    assert batches["partial"].targets.roles.shape[0] == 1 == len(batches["partial"].targets.senses)
    assert (batches["partial"].targets.roles[0] == batches["full"].targets.roles[0]).all()
    # and it trains: one update with the partial Doc among full ones
    examples = [Example(Doc(nlp.vocab, words=words), partial)] + [
        Example(Doc(nlp.vocab, words=w), srl_gold_doc(nlp.vocab, w, f)) for w, f in srl_sentences[1:3]
    ]
    losses = nlp.update(examples, sgd=nlp.create_optimizer())
    assert losses["lal_srl"] > 0
