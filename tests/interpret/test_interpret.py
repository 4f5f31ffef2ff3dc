"""spacy_lal.interpret: the label-attention heads' attention and contributions, and their plots."""
import xml.etree.ElementTree as ET

import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_lal.doc.tree import Tree
from spacy_lal.interpret import (
    BOUNDARY_NAMES,
    explain,
    plot_attention,
    plot_contributions,
    top_heads_by_label,
)
from spacy_lal.nn.span import head_contributions

SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def trained(trained_parser):
    """The tiny lal_parser overfitted on the parser sentences (trained once per run, in conftest)."""
    nlp, _ = trained_parser
    return nlp


@pytest.fixture(scope="module")
def sentence_words(parser_sentences):
    """The words of each parser sentence."""
    return [Tree.from_string(bracketed).normalize().words() for bracketed, _, _ in parser_sentences]


def doc_of(nlp, *sentences):
    """A Doc of these word lists, one sentence each."""
    words = [w for sent in sentences for w in sent]
    starts = [k == 0 for sent in sentences for k in range(len(sent))]
    return Doc(nlp.vocab, words=words, sent_starts=starts)


def torch_model(nlp):
    return nlp.get_pipe("lal_parser").torch_module.parser


def texts(svg):
    root = ET.fromstring(svg)  # raises on malformed XML
    assert root.tag == f"{SVG_NS}svg"
    assert "font-family: Arial" in root.get("style")
    return root, ["".join(node.itertext()) for node in root.iter(f"{SVG_NS}text")]


def test_attention_is_a_softmax_over_each_sentence_without_padding(trained, sentence_words):
    # Sentences of 1 to 7 words in one Doc: one padded batch, so padding is there to leak.
    doc = trained(doc_of(trained, *sentence_words))
    explanations = explain(trained, doc)
    assert [e.words for e in explanations] == [tuple(words) for words in sentence_words]
    n_heads = len(trained.get_pipe("lal_parser").span_labels)
    for e, sent in zip(explanations, doc.sents):
        assert (e.start, e.end, e.text) == (sent.start, sent.end, sent.text)
        assert e.tokens == tuple(range(sent.start, sent.end))
        assert e.attention.shape == (n_heads, len(e.words))
        assert e.boundary_attention.shape == (n_heads, 2)
        assert (e.attention > 0).all() and (e.boundary_attention > 0).all()
        # Words and the two sentinels share each head's softmax; the padding got nothing.
        numpy.testing.assert_allclose(e.attention.sum(1) + e.boundary_attention.sum(1), 1.0, atol=1e-5)


def test_heads_are_numbered_one_per_label(trained):
    (e,) = explain(trained, trained("Dogs bark ."))
    labels = trained.get_pipe("lal_parser").span_labels
    # As many heads as labels (the paper's sizing), but no head is tied to a label by the model.
    assert e.heads == tuple(f"head {k}" for k in range(len(labels)))


def test_spans_are_the_predicted_tree_with_contributions(trained, sentence_words):
    doc = trained(doc_of(trained, *sentence_words))
    explanations = explain(trained, doc)
    for e, sent, tree in zip(explanations, doc.sents, doc._.trees):
        assert [(s.start - sent.start, s.end - sent.start, s.labels) for s in e.spans] == tree.to_spans()
        assert e.spans and all(s.in_tree for s in e.spans)
        assert not e.contributions_exact  # the tiny parser keeps the feed-forward layer after the LAL
        for s in e.spans:
            assert doc[s.start : s.end]._.labels == s.labels and s.text == doc[s.start : s.end].text
            assert s.contributions.shape == (len(e.heads),)
            assert (s.contributions >= 0).all()
            assert s.contributions.sum() == pytest.approx(1.0, abs=1e-5)
        top = e.top_heads(e.spans[0], 3)
        assert [share for _, share in top] == sorted((share for _, share in top), reverse=True)
        assert top[0] == (e.heads[int(e.spans[0].contributions.argmax())], float(e.spans[0].contributions.max()))
    counts = top_heads_by_label(explanations)
    labelled = [s for e in explanations for s in e.spans]
    assert sum(sum(c.values()) for c in counts.values()) == len(labelled)
    assert set(counts) == {"::".join(s.labels) for s in labelled}


def test_parsing_is_unchanged_and_no_hook_is_left(trained, sentence_words):
    docs = [doc_of(trained, words) for words in sentence_words]

    def parses():
        return [(d._.tree.to_string(), [(t.head.i, t.dep_) for t in d]) for d in trained.pipe(docs)]

    before = parses()
    parsed = trained(doc_of(trained, *sentence_words))
    stored = parsed._.tree.to_string()
    explain(trained, parsed)
    assert parsed._.tree.to_string() == stored
    assert parses() == before
    model = torch_model(trained)
    assert not any(module._forward_hooks for module in model.modules())


def test_chunked_forward_passes_give_the_same_explanations(trained, sentence_words):
    words = sentence_words
    doc = trained(doc_of(trained, words[0], words[3], words[1], words[4]))  # not sorted by length
    model = trained.get_pipe("lal_parser").model
    one_pass = explain(trained, doc)
    cells = model.attrs["max_chart_cells"]
    model.attrs["max_chart_cells"] = 1  # every sentence in its own chunk
    try:
        chunked = explain(trained, doc)
    finally:
        model.attrs["max_chart_cells"] = cells
    for a, b in zip(one_pass, chunked):
        assert a.words == b.words
        numpy.testing.assert_allclose(a.attention, b.attention, atol=1e-5)
        assert [(s.start, s.end, s.labels) for s in a.spans] == [(s.start, s.end, s.labels) for s in b.spans]
        for x, y in zip(a.spans, b.spans):
            numpy.testing.assert_allclose(x.contributions, y.contributions, atol=1e-5)


def test_a_span_explains_the_sentences_it_overlaps(trained, sentence_words):
    doc = trained(doc_of(trained, sentence_words[1], sentence_words[2], sentence_words[0]))
    sents = list(doc.sents)
    assert [e.start for e in explain(trained, sents[1])] == [sents[1].start]
    assert [e.start for e in explain(trained, doc[sents[1].end - 1 : sents[2].start + 1])] == [
        sents[1].start,
        sents[2].start,
    ]


def test_whitespace_sentences_and_empty_docs(trained):
    assert explain(trained, trained("")) == []
    assert explain(trained, trained("   ")) == []
    words = ["Dogs", "bark", ".", "   ", "Go", "home", "!"]
    doc = trained(Doc(trained.vocab, words=words, sent_starts=[1, 0, 0, 1, 1, 0, 0]))
    explanations = explain(trained, doc)  # the whitespace sentence has no word: left out
    assert [(e.start, e.end, e.words) for e in explanations] == [
        (0, 3, ("Dogs", "bark", ".")),
        (4, 7, ("Go", "home", "!")),
    ]
    pieces = explain(trained, trained(" ".join(["cat"] * 70)))  # longer than max_length = 32
    assert [len(e.words) for e in pieces] == [24, 23, 23]
    (e,) = explain(trained, trained("The cat   sat on the mat ."))
    assert e.tokens == (0, 1, 3, 4, 5, 6, 7) and e.attention.shape[1] == 7  # the model skips spaces
    assert (e.spans[0].start, e.spans[0].end) == (0, 8)


def test_spans_asked_for(trained, sentence_words):
    doc = trained(doc_of(trained, sentence_words[0], sentence_words[1]))  # The cat sat on the mat . | Dogs bark .
    e, second = explain(trained, doc, spans=[doc[0:2], (1, 3)])
    assert second.spans == ()  # only the spans asked for
    np_span, other = e.spans
    assert (np_span.start, np_span.end, np_span.in_tree) == (0, 2, True)
    assert np_span.labels == doc[0:2]._.labels
    assert (other.start, other.end, other.in_tree, other.text) == (1, 3, False, "cat sat")
    assert other.contributions.sum() == pytest.approx(1.0, abs=1e-5)
    assert e.span((1, 3)) is other and e.span(doc[0:2]) is np_span
    assert [len(x.spans) for x in explain(trained, doc, spans=[(8, 9)])] == [0, 1]
    with pytest.raises(ValueError, match="not inside one of the sentences"):
        explain(trained, doc, spans=[(5, 9)])
    with pytest.raises(ValueError, match="not inside one of the sentences"):
        explain(trained, list(doc.sents)[0], spans=[(8, 9)])
    with pytest.raises(TypeError, match="with the pipeline"):
        explain(trained.get_pipe("lal_parser"), "Dogs bark .")
    spaced = trained("The cat   sat")
    with pytest.raises(ValueError, match="holds no word"):
        explain(trained, spaced, spans=[(2, 3)])
    with pytest.raises(KeyError, match="was not explained"):
        e.span((2, 4))


def test_attention_heat_map_svg(trained):
    words = ["R&D", "<b>", '"x"', "sat", "."]
    (e,) = explain(trained, trained(Doc(trained.vocab, words=words)))
    svg = plot_attention(e)
    root, strings = texts(svg)
    assert "Label attention over" in strings[0]
    assert set(words) | set(e.heads) | set(BOUNDARY_NAMES) <= set(strings)
    cells = [rect for rect in root.iter(f"{SVG_NS}rect") if rect.get("class") == "lal-cell"]
    assert len(cells) == len(e.heads) * (len(words) + 2)
    opacities = [float(rect.get("fill-opacity")) for rect in cells]
    assert max(opacities) == 1.0 and min(opacities) >= 0.0
    _, plain = texts(plot_attention(e, boundaries=False, title="Mine"))
    assert plain[0] == "Mine" and not set(BOUNDARY_NAMES) & set(plain)


def test_contributions_bar_chart_svg(trained):
    (e,) = explain(trained, trained(Doc(trained.vocab, words=["R&D", "<b>", "sat", "."])))
    root_span = e.spans[0]
    svg = plot_contributions(e, root_span, top_k=2)
    root, strings = texts(svg)
    assert strings[0].startswith("Head contributions to \u201cR&D <b> sat .\u201d")
    assert set(e.heads) <= set(strings)
    bars = [rect for rect in root.iter(f"{SVG_NS}rect") if rect.get("class") == "lal-bar"]
    assert len(bars) == len(e.heads)
    values = [node.text for node in root.iter(f"{SVG_NS}text") if node.get("class") == "lal-value"]
    top = sorted(e.top_heads(root_span, 2), key=lambda item: e.heads.index(item[0]))  # drawn in head order
    assert values == [f"{share:.1%}" for _, share in top]
    widths = [float(bar.get("width")) for bar in bars]
    assert widths.index(max(widths)) == int(root_span.contributions.argmax())
    texts(plot_contributions(e, (root_span.start, root_span.end), top_k=0))
    explained = {(x.start, x.end) for x in e.spans}
    unexplained = next((i, j) for i in range(4) for j in range(i + 1, 5) if (i, j) not in explained)
    with pytest.raises(KeyError):
        plot_contributions(e, unexplained)
    with pytest.raises(ValueError, match="top_k"):
        plot_contributions(e, root_span, top_k=-1)


def test_clear_errors(tiny_parser):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="no label-attention parser"):
        explain(nlp, "Dogs bark .")
    nlp.add_pipe("lal_parser", config={"model": tiny_parser})
    with pytest.raises(ValueError, match="not initialized"):
        explain(nlp, Doc(nlp.vocab, words=["Dogs", "bark"]))
    with pytest.raises(ValueError, match="no label-attention parser 'parser'"):
        explain(nlp, "Dogs bark .", component="parser")


def test_without_the_feed_forward_layer_contributions_are_those_of_the_scored_span_vectors(
    parser_examples, sentence_words, tiny_parser
):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", config={"model": {**tiny_parser, "lal_ffn": False}})
    examples = parser_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    doc = nlp(doc_of(nlp, sentence_words[0]))
    model = torch_model(nlp)
    outputs = []
    handle = model.register_forward_hook(lambda module, args, output: outputs.append(output))
    try:
        (e,) = explain(nlp, doc)
    finally:
        handle.remove()
    assert e.contributions_exact
    # The span vectors of eq. 5 as the label scorer reads them (sentence 0 of the only chunk).
    vectors = model.span_features(outputs[0])[0]
    for s in e.spans:
        i = sum(1 for t in e.tokens if t < s.start)
        j = sum(1 for t in e.tokens if t < s.end)
        expected = head_contributions(vectors[i, j], len(e.heads)).numpy()
        numpy.testing.assert_allclose(s.contributions, expected, rtol=1e-4, atol=1e-6)


def test_dependency_parser_heads_attend_but_there_is_no_tree(parser_examples, sentence_words, tiny_parser):
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_dependency_parser", config={"model": tiny_parser})
    examples = parser_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    nlp.update(examples, sgd=optimizer)
    doc = nlp(doc_of(nlp, sentence_words[0]))
    (e,) = explain(nlp, doc)
    n_heads = len(nlp.get_pipe("lal_dependency_parser").dep_labels)  # one head per dependency label
    assert e.attention.shape == (n_heads, 7) and e.spans == ()
    (e,) = explain(nlp, doc, spans=[(0, 2)])
    (span,) = e.spans
    assert span.labels == () and not span.in_tree and span.contributions.shape == (n_heads,)
