"""spacy_lal.render (SVG trees, HTML pages) and ``python -m spacy_lal parse --render``."""

import re
import sys
import types
import xml.etree.ElementTree as ET
from collections import defaultdict

import pytest
import spacy
from spacy.tokens import Doc

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.__main__ import main as cli
from spacy_lal.doc.api import NotAConstituentError
from spacy_lal.doc.extensions import set_tree
from spacy_lal.doc.tree import Tree
from spacy_lal.render import DEFAULT_OPTIONS, render, render_tree
from spacy_lal.svg import text_width

SVG_NS = "{http://www.w3.org/2000/svg}"
CAT = "(S (NP (DT The) (NN cat)) (VP (VBD sat)))"
# (PTB tree, heads relative to the sentence (a root is its own head), deprels)
MAT = (
    "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))",
    [1, 2, 2, 5, 5, 2, 2],
    ["det", "nsubj", "ROOT", "case", "det", "obl", "punct"],
)
GO = ("(S (VP (VB Go) (ADVP (RB home))) (. !))", [0, 0, 0], ["ROOT", "advmod", "punct"])


def parse_svg(svg):
    root = ET.fromstring(svg)  # raises on malformed XML
    assert root.tag == f"{SVG_NS}svg"
    return root


def phrases(root):
    """(label, x, y) of every phrase label, in document order."""
    return [
        (node.text, float(node.get("x")), float(node.get("y")))
        for node in root.iter(f"{SVG_NS}text")
        if node.get("class") == "lal-phrase"
    ]


def words(root):
    """(word, tag, x, y) of every word, left to right."""
    found = []
    for node in root.iter(f"{SVG_NS}text"):
        if node.get("class") == "displacy-token":
            word, tag = node.findall(f"{SVG_NS}tspan")
            found.append((word.text, tag.text, float(word.get("x")), float(node.get("y"))))
    return found


def edges(root):
    return [node.get("d") for node in root.iter(f"{SVG_NS}path") if node.get("class") == "lal-edge"]


def inner_nodes(tree):
    """The phrases of ``tree`` in pre-order, each with its children."""
    stack, found = [tree], []
    while stack:
        node = stack.pop()
        if not node.is_preterminal:
            found.append(node)
            stack.extend(reversed(node.children))
    return found


def layout(tree, root):
    """x of every phrase (by id) and of every preterminal (by id), read from the SVG."""
    svg_phrases = phrases(root)
    nodes = inner_nodes(tree)
    assert [label for label, _, _ in svg_phrases] == [node.label for node in nodes]
    xs = {id(node): x for node, (_, x, _) in zip(nodes, svg_phrases)}
    ys = {id(node): y for node, (_, _, y) in zip(nodes, svg_phrases)}
    for leaf, (_, _, x, y) in zip(tree.leaves(), words(root)):
        xs[id(leaf)], ys[id(leaf)] = x, y
    return nodes, xs, ys


def doc_of(vocab, *sentences):
    """A tagged Doc of (tree, heads, deps) sentences with dependencies and trees set."""
    words_, tags, heads, deps = [], [], [], []
    for bracketed, sent_heads, sent_deps in sentences:
        tree = Tree.from_string(bracketed)
        heads += [len(words_) + head for head in sent_heads]
        words_ += tree.words()
        tags += tree.tags()
        deps += sent_deps
    doc = Doc(vocab, words=words_, tags=tags, heads=heads, deps=deps)
    for sent, (bracketed, _, _) in zip(doc.sents, sentences):
        set_tree(sent, Tree.from_string(bracketed).to_spans())
    return doc


def svgs_of(markup):
    return [parse_svg(svg) for svg in re.findall(r"<svg.*?</svg>", markup, flags=re.DOTALL)]


def is_tree_svg(root):
    return "lal-tree" in root.get("class").split()


def test_svg_is_well_formed_with_every_word_tag_and_label():
    root = parse_svg(render_tree(Tree.from_string(CAT), svg_id="cat"))
    assert root.get("id") == "cat"
    assert root.get("class").split() == ["displacy", "lal-tree"]
    # displaCy's look: its default font and colours, 16px type.
    style = root.get("style")
    for setting in ("font-family: Arial", "color: #000000", "background: #ffffff", "font-size: 16px"):
        assert setting in style
    assert [label for label, _, _ in phrases(root)] == ["S", "NP", "VP"]
    assert [(w, t) for w, t, _, _ in words(root)] == [("The", "DT"), ("cat", "NN"), ("sat", "VBD")]
    # One line per parent-child pair, to words too.
    assert len(edges(root)) == 5
    assert float(root.get("width")) > max(x for _, _, x, _ in words(root))
    assert float(root.get("height")) > max(y for _, _, _, y in words(root))


def test_random_ids_keep_pictures_apart():
    tree = Tree.from_string(CAT)
    assert parse_svg(render_tree(tree)).get("id") != parse_svg(render_tree(tree)).get("id")


@pytest.mark.parametrize("lines", ["elbow", "straight"])
def test_parents_are_centred_above_their_children(lines):
    tree = Tree.from_string(MAT[0])
    nodes, xs, ys = layout(tree, parse_svg(render_tree(tree, options={"lines": lines})))
    word_row = {ys[id(leaf)] for leaf in tree.leaves()}
    assert len(word_row) == 1
    for node in nodes:
        first, last = xs[id(node.children[0])], xs[id(node.children[-1])]
        assert first <= xs[id(node)] <= last
        assert xs[id(node)] == pytest.approx((first + last) / 2, abs=0.1)
        for child in node.children:
            assert ys[id(child)] > ys[id(node)]
    assert max(ys.values()) == word_row.pop()


def test_labels_and_words_on_a_row_do_not_overlap():
    # Wide labels over one-letter words: only moving the words apart keeps the labels apart.
    tree = Tree.from_string(
        "(ROOT (WHADVP (WRB a)) (WHADVP (WRB b)) (SBAR-ADV (IN c) (S (NP (PRP I)) (VP (VBP x)))) (. .))"
    )
    root = parse_svg(render_tree(tree))
    gap = DEFAULT_OPTIONS["gap"]
    label_size = DEFAULT_OPTIONS["font_size"] * 0.8
    rows = defaultdict(list)
    for label, x, y in phrases(root):
        rows[y].append((x, text_width(label, label_size, 1)))
    assert len(rows) == 4
    for row in rows.values():
        row.sort()
        for (x1, w1), (x2, w2) in zip(row, row[1:]):
            assert x1 + w1 / 2 + gap <= x2 - w2 / 2 + 0.2  # coordinates are rounded to 0.1
    # Independent of the estimate: two WHADVP labels (six capitals, 12.8px) stand apart.
    (_, x1, _), (_, x2, _) = [p for p in phrases(root) if p[0] == "WHADVP"]
    assert x2 - x1 >= 6 * 0.6 * label_size
    placed = words(root)
    for (w1, t1, x1, _), (w2, t2, x2, _) in zip(placed, placed[1:]):
        half1 = max(text_width(w1, 16), text_width(t1, 16)) / 2
        half2 = max(text_width(w2, 16), text_width(t2, 16)) / 2
        assert x1 + half1 + gap <= x2 - half2 + 0.2


def test_text_is_escaped():
    tree = Tree(
        "X<&>", [Tree("SYM", word="<"), Tree("CC", word="&"), Tree("``", word='"'), Tree("''", word="'>")]
    )
    svg = render_tree(tree, options={"font": "'Open Sans', Arial"})
    root = parse_svg(svg)
    assert [label for label, _, _ in phrases(root)] == ["X<&>"]
    assert [w for w, _, _, _ in words(root)] == ["<", "&", '"', "'>"]
    assert "font-family: 'Open Sans', Arial" in root.get("style")
    assert "&lt;" in svg and "&amp;" in svg and "&quot;" in svg


def test_unary_chains_are_vertical():
    tree = Tree.from_string("(S (S (VP (VB Go) (ADVP (RB home)))) (. !))")
    nodes, xs, ys = layout(tree, parse_svg(render_tree(tree)))
    inner_s, vp = nodes[1], nodes[2]
    assert (inner_s.label, vp.label) == ("S", "VP")
    assert xs[id(inner_s)] == xs[id(vp)] and ys[id(inner_s)] < ys[id(vp)]
    # A chain down to one word: every label and the word in one column, every line vertical.
    root = parse_svg(render_tree(Tree.from_string("(S (VP (VB Go)))")))
    (_, x_s, y_s), (_, x_vp, y_vp) = phrases(root)
    ((_, _, x_go, y_go),) = words(root)
    assert x_s == x_vp == x_go and y_s < y_vp < y_go
    for d in edges(root):
        assert len({x for x in re.findall(r"([\d.]+),", d)}) == 1


def test_one_word():
    root = parse_svg(render_tree(Tree.from_string("(INTJ (UH Hello))")))
    assert [label for label, _, _ in phrases(root)] == ["INTJ"]
    assert [(w, t) for w, t, _, _ in words(root)] == [("Hello", "UH")]
    # A bare preterminal is a tree too: the word and its tag, no lines.
    root = parse_svg(render_tree(Tree("UH", word="Hi")))
    assert phrases(root) == [] and edges(root) == []
    assert [(w, t) for w, t, _, _ in words(root)] == [("Hi", "UH")]


def test_deep_trees_need_no_recursion():
    depth = sys.getrecursionlimit() + 100
    tree = Tree.from_string("(X " * depth + "(NN a)" + ")" * depth)
    assert len(phrases(parse_svg(render_tree(tree)))) == depth


def test_span_with_a_stored_tree(nlp):
    doc = doc_of(
        nlp.vocab,
        (
            "(S (NP (NNP Mary)) (VP (VBD saw) (NP (-LRB- -LRB-) (NN it) (-RRB- -RRB-))))",
            [1, 1, 3, 1, 3],
            ["nsubj", "ROOT", "punct", "obj", "punct"],
        ),
    )
    sent = next(iter(doc.sents))
    root = parse_svg(render_tree(sent))
    # Words as in the text, not as brackets escape them.
    assert [w for w, _, _, _ in words(root)] == ["Mary", "saw", "(", "it", ")"]
    assert [t for _, t, _, _ in words(root)] == ["NNP", "VBD", "-LRB-", "NN", "-RRB-"]
    assert [label for label, _, _ in phrases(root)] == ["S", "NP", "VP", "NP"]
    # A constituent below the sentence works too; a non-constituent does not.
    assert [label for label, _, _ in phrases(parse_svg(render_tree(doc[1:5])))] == ["VP", "NP"]
    with pytest.raises(NotAConstituentError):
        render_tree(doc[0:2])


def test_page_with_trees_and_dependencies(nlp):
    doc = doc_of(nlp.vocab, MAT, GO)
    markup = render(doc)
    assert markup.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in markup
    assert markup.rstrip().endswith("</html>")
    svgs = svgs_of(markup)
    trees = [svg for svg in svgs if is_tree_svg(svg)]
    deps = [svg for svg in svgs if not is_tree_svg(svg)]
    assert len(trees) == 2 and len(deps) == 2
    assert [w for w, _, _, _ in words(trees[1])] == ["Go", "home", "!"]
    # displaCy's dependency picture: arcs labelled with the deprels (punctuation merged into
    # the word before it, displaCy's default).
    arc_labels = {node.text for node in deps[0].iter(f"{SVG_NS}textPath")}
    assert arc_labels == {"det", "nsubj", "case", "obl"}
    ids = [svg.get("id") for svg in svgs]
    assert len(set(ids)) == len(ids)
    # Sentence by sentence: each tree comes before its dependencies.
    assert markup.index("home") > markup.index("mat")
    fragment = render([doc], page=False, dependencies=False)
    assert "<html" not in fragment
    assert [is_tree_svg(svg) for svg in svgs_of(fragment)] == [True, True]


def test_sentences_without_trees_get_a_note(nlp):
    doc = Doc(nlp.vocab, words=["Dogs", "bark", ".", "Go", "!"], sent_starts=[1, 0, 0, 1, 0])
    set_tree(doc[0:3], Tree.from_string("(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))").to_spans())
    empty = Doc(nlp.vocab, words=[])
    markup = render([doc, empty])
    assert [is_tree_svg(svg) for svg in svgs_of(markup)] == [True]
    assert markup.count("No constituency tree for this sentence") == 1
    assert "Doc 2 is empty" in markup


def test_no_trees_at_all_is_a_clear_error(nlp):
    with pytest.raises(ValueError, match="has a constituency tree.*lal_parser"):
        render(Doc(nlp.vocab, words=["Hi", "!"]))


def test_whitespace_sentence_gets_its_own_note(nlp):
    doc = Doc(nlp.vocab, words=["Dogs", "bark", ".", "\n\n"], sent_starts=[1, 0, 0, 1])
    set_tree(doc[0:3], Tree.from_string("(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))").to_spans())
    markup = render(doc)
    assert markup.count("No words: nothing to draw.") == 1
    assert "No constituency tree" not in markup


def test_bad_options():
    with pytest.raises(ValueError, match="lines"):
        render_tree(Tree.from_string(CAT), options={"lines": "curved"})


def test_jupyter_gets_ipython_html(nlp, monkeypatch):
    class HTML:
        def __init__(self, data):
            self.data = data

    display = types.ModuleType("IPython.display")
    display.HTML = HTML
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    shown = render(doc_of(nlp.vocab, GO), page=False, jupyter=True)
    assert isinstance(shown, HTML) and "lal-tree" in shown.data
    assert isinstance(render(doc_of(nlp.vocab, GO), jupyter=False), str)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory, parser_examples, tiny_parser):
    """An initialized, untrained lal_parser pipeline on disk: its trees are arbitrary, but trees."""
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", config={"model": tiny_parser})
    nlp.initialize(lambda: parser_examples(nlp))
    path = tmp_path_factory.mktemp("render") / "pipeline"
    nlp.to_disk(path)
    return path


@pytest.mark.parametrize("texts", [[""], ["   \n "], ["", "\n"]], ids=["empty", "whitespace", "several"])
def test_nothing_to_draw_is_not_blamed_on_the_pipeline(pipeline, texts):
    """Docs parsed by a pipeline with lal_parser but without words: say so, not "use lal_parser"."""
    nlp = spacy.load(pipeline)
    docs = list(nlp.pipe(texts))
    with pytest.raises(ValueError) as error:
        render(docs)
    assert str(error.value) == (
        f"nothing to draw: no sentence of the {len(texts)} Doc(s) has words (they are empty or whitespace)"
    )
    with pytest.raises(ValueError, match="^nothing to draw: no Docs were given$"):
        render([])


def test_cli_render(pipeline, tmp_path, capsys):
    out = tmp_path / "parses.html"
    assert cli(["parse", "The cat sat on the mat.", "--model", str(pipeline), "--render", str(out)]) == 0
    captured = capsys.readouterr()
    assert "# sentence 1" in captured.out  # the usual output still comes
    assert str(out) in captured.err
    markup = out.read_text(encoding="utf8")
    svgs = svgs_of(markup)
    assert [is_tree_svg(svg) for svg in svgs] == [True, False]
    assert [w for w, _, _, _ in words(svgs[0])] == ["The", "cat", "sat", "on", "the", "mat", "."]


def test_cli_render_without_a_parser(tmp_path, capsys):
    spacy.blank("en").to_disk(tmp_path / "blank")
    out = tmp_path / "parses.html"
    assert cli(["parse", "Hello.", "--model", str(tmp_path / "blank"), "--render", str(out)]) == 1
    assert "lal_parser" in capsys.readouterr().err
    assert not out.exists()
