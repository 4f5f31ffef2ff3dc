"""lal_parser / lal_dependency_parser end to end: overfit, decode, serialize, bad input."""
import logging
import pickle

import pytest
import spacy
import torch
from spacy.tokens import Doc
from spacy.training import Example

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.doc.tree import Tree
from spacy_lal.pipeline.gold import training_sentences


@pytest.fixture(scope="module")
def trained(trained_parser):
    """The tiny lal_parser overfitted on the parser sentences (trained once per run, in conftest)."""
    return trained_parser


def test_overfit_trees_and_dependencies(trained, parse_words):
    nlp, examples = trained
    for doc, eg in zip(parse_words(nlp, examples), examples):
        # No tagger in this pipeline: compare labelled spans, not the tags of the leaves.
        assert doc._.tree.to_spans() == eg.reference._.tree.to_spans()
        assert [t.head.i for t in doc] == [t.head.i for t in eg.reference]
        assert [t.dep_ for t in doc] == [t.dep_ for t in eg.reference]
    scores = nlp.evaluate(examples)
    assert scores["tree_f"] == 1.0
    assert scores["dep_las"] == 1.0


def test_round_trips_give_identical_parses(trained, tmp_path, tiny_parser, parse_words):
    nlp, examples = trained
    expected = [(d._.tree.to_string(), [t.head.i for t in d]) for d in parse_words(nlp, examples)]

    def parses(pipeline):
        return [(d._.tree.to_string(), [t.head.i for t in d]) for d in parse_words(pipeline, examples)]

    from_bytes = spacy.blank("en")
    from_bytes.add_pipe("lal_parser", config={"model": tiny_parser})
    from_bytes.from_bytes(nlp.to_bytes())
    assert parses(from_bytes) == expected
    nlp.to_disk(tmp_path / "pipeline")
    assert parses(spacy.load(tmp_path / "pipeline")) == expected
    assert parses(pickle.loads(pickle.dumps(nlp))) == expected


def test_n_process(trained):
    nlp, examples = trained
    texts = [eg.reference.text for eg in examples]
    serial = [(d._.tree.to_string() if d._.tree else None, [t.head.i for t in d]) for d in nlp.pipe(texts)]
    parallel = [
        (d._.tree.to_string() if d._.tree else None, [t.head.i for t in d])
        for d in nlp.pipe(texts, n_process=2, batch_size=2)
    ]
    assert parallel == serial


def test_emoji_are_tagged_as_ud_tags_emoticons(trained):
    nlp, _ = trained
    words = ["Dogs", "\U0001F436\u200d\U0001F9BA", "bark", "\U0001F600\U0001F600", "."]
    doc = Doc(nlp.vocab, words=words, sent_starts=[True] + [False] * 4)
    doc[1].tag_, doc[1].pos_ = "CD", "NUM"  # what the taggers guessed before
    doc[1].set_morph("NumForm=Digit|NumType=Card")
    doc = nlp(doc)
    assert [(t.tag_, t.pos_, str(t.morph)) for t in doc if t.i in (1, 3)] == [("NFP", "SYM", "")] * 2
    assert doc[0].tag_ != "NFP" and doc._.tree.tags()[1] == "NFP"


def test_unseen_tokens_get_tags_without_a_model():
    """What the parser writes on whitespace and emoji tokens, on a Doc of its own: nothing else changes."""
    from spacy_lal.pipeline.parser.unseen_tokens import tag_unseen_tokens

    vocab = spacy.blank("en").vocab
    words = ["Dogs", "  ", "bark", "\U0001F600", ":)", "."]
    doc = Doc(vocab, words=words, tags=["NNS", "NN", "VBP", "CD", "NFP", "."],
              pos=["NOUN", "NOUN", "VERB", "NUM", "SYM", "PUNCT"])
    doc[1].set_morph("Degree=Cmp")
    doc[3].set_morph("NumType=Card")
    tag_unseen_tokens(doc)
    assert [(t.tag_, t.pos_, str(t.morph)) for t in doc] == [
        ("NNS", "NOUN", ""), ("_SP", "SPACE", ""), ("VBP", "VERB", ""), ("NFP", "SYM", ""), ("NFP", "SYM", ""),
        (".", "PUNCT", ""),
    ]


def test_empty_whitespace_and_long_input(trained, caplog):
    nlp, _ = trained
    empty = nlp("")
    assert len(empty) == 0 and empty._.trees == []
    spaced = nlp("The cat   sat on the mat .")
    space = next(t for t in spaced if t.is_space)
    assert space.dep_ == "dep" and space.head.i == space.i - 1
    # spaCy's whitespace tag and POS, which a tagger trained on a treebank never predicts.
    assert (space.tag_, space.pos_) == ("_SP", "SPACE")
    assert all(t.tag_ != "_SP" for t in spaced if not t.is_space)
    # The stored tree keeps the whitespace token as an _SP leaf (leaves align with tokens); the
    # printed tree and the span API leave it out, as treebanks do.
    assert spaced._.tree is not None and len(spaced._.tree.leaves()) == len(spaced)
    assert spaced._.tree.tags()[space.i] == "_SP"
    sent = spaced[:]
    assert "_SP" not in sent._.parse_string
    assert Tree.from_string(sent._.parse_string).words() == [t.text for t in spaced if not t.is_space]
    assert all(not (len(child) == 1 and child[0].is_space) for c in sent._.constituents for child in c._.children)
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        words = ["cat"] * 70 + ["."] + ["dog"] * 40
        long_doc = nlp(Doc(nlp.vocab, words=words, sent_starts=[k in (0, 71) for k in range(len(words))]))
    # One warning for the call, naming the component and what it did with both long sentences.
    warnings = [r for r in caplog.records if "longer than 32 words" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].getMessage().startswith("lal_parser: 2 sentence(s)") and "one tree" in warnings[0].getMessage()
    # Each sentence gets exactly one tree: the pieces' trees under one root (24 + 24 + 23 words).
    sentences = list(long_doc.sents)
    assert len(long_doc._.trees) == len(sentences)
    first = sentences[0]
    assert len(first) == 71 and first._.labels[0] == "S"
    assert [len(child) for child in first._.children] == [24, 24, 23]
    assert Tree.from_string(first._.parse_string).words() == [t.text for t in first]
    assert sum(t.head.i == t.i for t in first) == 1  # later pieces hang from the first piece's root


def test_sentences_are_parsed_separately(trained):
    nlp, _ = trained
    doc = Doc(nlp.vocab, words=["Dogs", "bark", ".", "Go", "home", "!"], sent_starts=[True, False, False, True, False, False])
    doc = nlp(doc)
    assert len(doc._.trees) == 2
    assert [len(t.leaves()) for t in doc._.trees] == [3, 3]
    assert all(t.head.i < 3 for t in doc[:3]) and all(t.head.i >= 3 for t in doc[3:])


def test_dependency_parser_overfits(train_parser, parse_words):
    nlp, examples = train_parser("lal_dependency_parser", n_iter=100)
    for doc, eg in zip(parse_words(nlp, examples), examples):
        assert [t.head.i for t in doc] == [t.head.i for t in eg.reference]
        assert doc._.trees == []


def test_initialize_without_trees_is_a_clear_error(tiny_parser):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", config={"model": tiny_parser})
    doc = Doc(nlp.vocab, words=["a", "b"], heads=[1, 1], deps=["det", "root"])
    with pytest.raises(ValueError, match="has a constituency tree"):
        nlp.initialize(lambda: [Example(Doc(nlp.vocab, words=["a", "b"]), doc)])


def test_chunked_forward_matches_one_pass(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("lal_parser")
    model = parser.model
    docs = [Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples]
    one_pass = parser.predict(docs)
    units = one_pass.units
    targets = parser._training_batch(examples, units)
    loss_one, _ = model.begin_update(([eg.x for eg in examples], units, targets))
    cells = model.attrs["max_chart_cells"]
    model.attrs["max_chart_cells"] = 1  # every sentence in its own chunk
    try:
        chunked = parser.predict(docs)
        loss_chunked, _ = model.begin_update(([eg.x for eg in examples], units, targets))
    finally:
        model.attrs["max_chart_cells"] = cells
    assert [s.tolist() for s in chunked.decoded.spans] == [s.tolist() for s in one_pass.decoded.spans]
    assert [h.tolist() for h in chunked.decoded.heads] == [h.tolist() for h in one_pass.decoded.heads]
    # The overfit model's loss is near 0, where float rounding of the two batch shapes is relative.
    assert loss_chunked == pytest.approx(loss_one, rel=1e-4, abs=1e-4)


def test_prediction_runs_every_chunk_in_eval_mode_and_restores_the_mode(trained):
    """The chunks of a prediction run with every module in eval mode (dropout off), switched once
    for all of them, and the torch module is left in the mode it was in."""
    from spacy_lal.pipeline.torch_bridge import torch_module

    nlp, examples = trained
    parser = nlp.get_pipe("lal_parser")
    module = torch_module(parser.model)
    modes = []
    hook = module.parser.register_forward_pre_hook(lambda m, args: modes.append([s.training for s in m.modules()]))
    cells = parser.model.attrs["max_chart_cells"]
    parser.model.attrs["max_chart_cells"] = 1  # every sentence in its own chunk
    try:
        for training in (True, False):
            module.train(training)
            modes.clear()
            parser.predict([eg.x for eg in examples])
            assert len(modes) == len(examples) and not any(any(chunk) for chunk in modes)
            assert all(m.training == training for m in module.modules())
    finally:
        hook.remove()
        parser.model.attrs["max_chart_cells"] = cells
        module.train(True)


def test_joint_decoding_gives_consistent_trees(trained, parse_words):
    nlp, examples = trained
    parser = nlp.get_pipe("lal_parser")
    parser.set_decoder("joint")
    try:
        docs = parse_words(nlp, examples)
    finally:
        parser.set_decoder("eisner")
    for doc, eg in zip(docs, examples):
        # The overfit scores are decisive and these UD trees are the trees' lexical heads.
        assert doc._.tree.to_spans() == eg.reference._.tree.to_spans()
        assert [t.head.i for t in doc] == [t.head.i for t in eg.reference]
    with pytest.raises(ValueError, match="dependency_decoder"):
        parser.set_decoder("greedy")


def test_joint_decoding_needs_the_tree(tiny_parser):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="needs the constituency head"):
        nlp.add_pipe("lal_dependency_parser", config={"model": tiny_parser, "dependency_decoder": "joint"})


@pytest.mark.parametrize("factory", ["lal_parser", "lal_srl"])
def test_add_label_points_to_initialize(factory, tiny_parser, tiny_srl):
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(factory, config={"model": {"lal_parser": tiny_parser, "lal_srl": tiny_srl}[factory]})
    with pytest.raises(NotImplementedError, match="read from the training data by initialize"):
        pipe.add_label("NP")


def test_load_obeys_the_configs_decoder(trained, tmp_path):
    """The config's runtime settings win over the saved cfg: a decoder override is obeyed."""
    nlp, _ = trained
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p", config={"components": {"lal_parser": {"dependency_decoder": "mst"}}})
    parser = loaded.get_pipe("lal_parser")
    assert parser.cfg["dependency_decoder"] == "mst"
    assert parser._prediction_batch([], []).dependency_decoder == "mst"  # what decoding is told
    assert spacy.load(tmp_path / "p").get_pipe("lal_parser").cfg["dependency_decoder"] == "eisner"
    # Chunk sizes steer how the model runs, not what it learned: the config's value wins over
    # the attrs Thinc saved with the weights.
    chunks = {"components": {"lal_parser": {"model": {"max_chart_cells": 1234}}}}
    assert spacy.load(tmp_path / "p", config=chunks).get_pipe("lal_parser").model.attrs["max_chart_cells"] == 1234


def test_bucketing_across_batches_gives_the_same_parses(trained):
    """Sorting the units of several nlp.pipe batches together changes padding, not parses."""
    nlp, examples = trained
    parser = nlp.get_pipe("lal_parser")

    def parses():
        docs = [Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples] * 3
        return [(d._.tree.to_string(), [t.head.i for t in d], [t.dep_ for t in d]) for d in nlp.pipe(docs, batch_size=2)]

    assert parser.BUCKET_BATCHES > 1
    bucketed = parses()
    parser.BUCKET_BATCHES = 1
    try:
        assert parses() == bucketed
    finally:
        del parser.BUCKET_BATCHES  # back to the class's setting


def test_quantized_decoding_is_a_saved_runtime_setting(trained, tmp_path, parse_words):
    nlp, examples = trained
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p", config={"components": {"lal_parser": {"quantize": True}}})
    parser = loaded.get_pipe("lal_parser")
    assert parser.cfg["quantize"] and parser._prediction_batch([], []).quantized
    docs = parse_words(loaded, examples)
    # int8 weights may move near-ties, never the shape of the output: one tree and one
    # dependency tree per sentence.
    for doc, eg in zip(docs, examples):
        assert doc._.tree is not None and len(doc._.tree.leaves()) == len(doc)
        assert sum(t.head.i == t.i for t in doc) == len(list(eg.reference.sents))
    # The int8 copy is a cache beside the weights: not saved, and dropped by training.
    assert "int8" in parser.torch_module._copies
    assert not any("int8" in key or "_copies" in key for key in parser.torch_module.state_dict())
    assert spacy.load(tmp_path / "p").get_pipe("lal_parser").cfg["quantize"] is False


def test_int8_peaks_are_measured_saved_and_smooth_the_int8_copy(trained, tmp_path, parse_words):
    """spacy_lal.calibrate_int8 measures the parser's Linear inputs in float, keeps the peaks in
    its cfg (saved and loaded with it), and the int8 copy is made with them."""
    from spacy_lal.pipeline.torch_bridge import torch_module

    nlp, examples = trained
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p", config={"components": {"lal_parser": {"quantize": True}}})
    parser = loaded.get_pipe("lal_parser")
    assert parser.cfg["int8_peaks"] is None
    with pytest.raises(ValueError, match="no Docs"):
        spacy_lal.calibrate_int8(loaded, [])
    assert spacy_lal.calibrate_int8(loaded, [eg.reference for eg in examples]) == ["lal_parser"]
    peaks = parser.cfg["int8_peaks"]
    module = torch_module(parser.model).parser
    linears = {name: m for name, m in module.named_modules() if isinstance(m, torch.nn.Linear)}
    # every layer the forward pass calls: the span MLP's first is applied to fenceposts, and the
    # label attention's W_O folded into W_red, by their weights alone
    assert set(peaks) == set(linears) - {"span_scorer.w1", "label_attention.attention.w_o"}
    assert all(len(peaks[name]) == linears[name].in_features and min(peaks[name]) >= 0 for name in peaks)
    assert parser.cfg["quantize"] is True  # measured in float, the setting put back
    docs = parse_words(loaded, examples)
    made = torch_module(parser.model)._copies["int8"]
    assert made[0] is peaks
    loaded.to_disk(tmp_path / "calibrated")
    again = spacy.load(tmp_path / "calibrated", config={"components": {"lal_parser": {"quantize": True}}})
    assert again.get_pipe("lal_parser").cfg["int8_peaks"] == peaks
    assert [d._.tree.to_string() for d in parse_words(again, examples)] == [d._.tree.to_string() for d in docs]
    assert spacy_lal.calibrate_int8(spacy.blank("en"), [examples[0].reference]) == []  # nothing to measure
    with pytest.raises(ValueError, match="no sentence reached the parser"):
        spacy_lal.calibrate_int8(loaded, [Doc(loaded.vocab, words=[])])
    assert parser.cfg["int8_peaks"] == peaks  # kept


def test_calibrate_int8_script_writes_the_parser_cfg_alone(trained, tmp_path):
    import sys
    from pathlib import Path

    from spacy.tokens import DocBin

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
    import calibrate_int8

    nlp, examples = trained
    nlp.to_disk(tmp_path / "p")
    before = {path.relative_to(tmp_path): path.read_bytes() for path in (tmp_path / "p").rglob("*") if path.is_file()}
    DocBin(docs=[eg.reference for eg in examples]).to_disk(tmp_path / "train.spacy")
    assert calibrate_int8.calibrate(tmp_path / "p", tmp_path / "train.spacy", sentences=2) == ["lal_parser"]
    after = {path.relative_to(tmp_path): path.read_bytes() for path in (tmp_path / "p").rglob("*") if path.is_file()}
    assert after.keys() == before.keys()  # no vocabulary written beside the parser
    assert [path for path in after if after[path] != before[path]] == [Path("p/lal_parser/cfg")]
    peaks = spacy.load(tmp_path / "p").get_pipe("lal_parser").cfg["int8_peaks"]
    assert peaks and all(min(values) >= 0 for values in peaks.values())
    with pytest.raises(ValueError, match="at least 1"):
        calibrate_int8.calibrate(tmp_path / "p", tmp_path / "train.spacy", sentences=0)
    DocBin().to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="has no Docs"):
        calibrate_int8.calibrate(tmp_path / "p", tmp_path / "empty.spacy")


def test_ud_noun_chunks():
    """doc.noun_chunks on UD labels: base noun phrases without the UD-attached preposition,
    possessors inside their phrase, conjuncts of a noun phrase as phrases of their own."""
    from spacy_lal.pipeline.heads import ud_noun_chunks, use_ud_noun_chunks

    nlp = spacy.blank("en")
    words = "Mary gave John 's sister a red apple and two pears in the garden .".split()
    heads = [1, 1, 4, 2, 1, 7, 7, 1, 10, 10, 7, 13, 13, 1, 1]
    deps = ["nsubj", "root", "nmod:poss", "case", "iobj", "det", "amod", "obj", "cc", "nummod", "conj",
            "case", "det", "obl", "punct"]
    pos = ["PROPN", "VERB", "PROPN", "PART", "NOUN", "DET", "ADJ", "NOUN", "CCONJ", "NUM", "NOUN", "ADP", "DET",
           "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, heads=heads, deps=deps, pos=pos)
    use_ud_noun_chunks(nlp.vocab, ["nsubj", "dobj"])  # not UD labels: English's own iterator stays
    assert nlp.vocab.get_noun_chunks is not ud_noun_chunks
    use_ud_noun_chunks(nlp.vocab, deps, doc)
    assert nlp.vocab.get_noun_chunks is ud_noun_chunks
    assert [c.text for c in doc.noun_chunks] == ["Mary", "John 's sister", "a red apple", "two pears", "the garden"]
    assert all(c.label_ == "NP" for c in doc.noun_chunks)
    assert [c.text for c in doc[8:].noun_chunks] == ["two pears", "the garden"]


def test_parser_and_tagger_share_a_tok2vec_at_the_same_scale(
    tiny_parser, parser_examples, gradients_to_a_shared_tok2vec
):
    """spaCy's tagger sends a shared tok2vec unnormalised per-token gradients; the parser's loss
    is a sum over sentences so that its gradient is of the same order, not a 1/batch share (with
    a mean the shared encoder learned to tag, not to parse)."""
    # a batch of 30 sentences, as in training
    squared_norms = gradients_to_a_shared_tok2vec("lal_parser", tiny_parser, lambda nlp: parser_examples(nlp) * 6)
    assert squared_norms["lal_parser"] > 0.2 * squared_norms["tagger"]


def test_a_doc_without_dependencies_gives_no_arc_targets(trained):
    """spaCy aligns a reference Doc without dependencies (PropBank's frame examples) as every
    word its own head: such a Doc must leave the arc loss alone, not teach it that every word is
    a root."""
    nlp, examples = trained
    parser = nlp.get_pipe("lal_parser")
    words = [t.text for t in examples[0].reference]
    bare = Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words))
    units = parser._units([bare.x, examples[0].x], [training_sentences(bare), training_sentences(examples[0])])
    targets = parser._training_batch([bare, examples[0]], units).targets
    assert (targets.heads[0] == -1).all() and (targets.labels[0] == -1).all()
    assert (targets.heads[1, 1 : len(words) + 1] >= 0).all()  # the annotated Doc keeps its targets
