import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_lal.corpora.ptb import read_trees
from spacy_lal.doc.tree import UNTAGGED, Tree, TreeFormatError, check_spans, strip_function_tags

# (input, canonical one-line form)
ROUND_TRIPS = [
    ("(S (VP (VB Go)))", "(S (VP (VB Go)))"),
    ("( (S (NP-SBJ (PRP He)) (VP (VBD left)) (. .)) )", "( (S (NP-SBJ (PRP He)) (VP (VBD left)) (. .)))"),
    ("(TOP (S (NP (NNP John)) (VP (VBZ runs))))", "(TOP (S (NP (NNP John)) (VP (VBZ runs))))"),
    (
        "(S (NP-SBJ-1 (-NONE- *T*-2)) (VP (VBD saw) (NP=2 (-NONE- *))) (. .))",
        "(S (NP-SBJ-1 (-NONE- *T*-2)) (VP (VBD saw) (NP=2 (-NONE- *))) (. .))",
    ),
    (
        "(NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-) (-LCB- -LCB-) (-RCB- -RCB-) (-LSB- -LSB-) (-RSB- -RSB-))",
        "(NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-) (-LCB- -LCB-) (-RCB- -RCB-) (-LSB- -LSB-) (-RSB- -RSB-))",
    ),
    ("(NFP :-RRB-)", "(NFP :-RRB-)"),
    (
        "\n( (S\n    (NP (DT The)\n        (NN dog))\n    (VP (VBZ barks)) )\n)\n",
        "( (S (NP (DT The) (NN dog)) (VP (VBZ barks))))",
    ),
    ("(S(NP(NN x))(VP(VB y)))", "(S (NP (NN x)) (VP (VB y)))"),
]


@pytest.mark.parametrize("text,canonical", ROUND_TRIPS)
def test_round_trip(text, canonical):
    tree = Tree.from_string(text)
    assert tree.to_string() == canonical
    assert Tree.from_string(canonical).to_string() == canonical  # the canonical form reads back as itself


def test_from_string_builds_the_tree_by_hand():
    """What the reader builds, against trees built with the constructor (not read)."""
    he_left = Tree("", [Tree("S", [Tree("NP-SBJ", [Tree("PRP", word="He")]), Tree("VP", [Tree("VBD", word="left")]),
                                   Tree(".", word=".")])])
    assert Tree.from_string("( (S (NP-SBJ (PRP He)) (VP (VBD left)) (. .)) )") == he_left
    dog = Tree("", [Tree("S", [Tree("NP", [Tree("DT", word="The"), Tree("NN", word="dog")]),
                               Tree("VP", [Tree("VBZ", word="barks")])])])
    assert Tree.from_string("\n( (S\n    (NP (DT The)\n        (NN dog))\n    (VP (VBZ barks)) )\n)\n") == dog
    assert Tree.from_string("(S(NP(NN x))(VP(VB y)))") == Tree(
        "S", [Tree("NP", [Tree("NN", word="x")]), Tree("VP", [Tree("VB", word="y")])]
    )
    brackets = Tree("NP", [Tree("-LRB-", word="("), Tree("NN", word="x"), Tree("-RRB-", word=")"),
                           Tree("NFP", word=":)")])
    assert Tree.from_string("(NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-) (NFP :-RRB-))") == brackets
    assert Tree.from_string("(S (NN x))") != Tree("S", [Tree("NN", word="y")])


def test_escaped_brackets_unescape_words_but_keep_tags():
    tree = Tree.from_string("(NP (-LRB- -LRB-) (NN -LCB-a-RCB-) (NFP :-RRB-) (-RSB- -RSB-))")
    assert tree.words() == ["(", "{a}", ":)", "]"]
    assert tree.tags() == ["-LRB-", "NN", "NFP", "-RSB-"]
    assert Tree("NP", [Tree("NN", word="f(x)")]).to_string() == "(NP (NN f-LRB-x-RRB-))"


def test_accessors():
    tree = Tree.from_string("(S (NP (DT the) (NN dog)) (VP (VBZ barks)))")
    assert len(tree) == 3
    assert [leaf.word for leaf in tree.leaves()] == ["the", "dog", "barks"]
    assert tree.leaves()[0].is_preterminal and not tree.is_preterminal
    assert tree != Tree.from_string("(S (NP (DT the) (NN dog)) (VP (VBD barked)))")
    assert tree != Tree.from_string("(S (NP (DT the) (NN dog)))")


def test_constructor_rejects_nodes_with_both_or_neither_word_and_children():
    with pytest.raises(ValueError):
        Tree("NP")
    with pytest.raises(ValueError):
        Tree("NN", [Tree("NN", word="x")], word="x")


def test_to_string_refuses_unwritable_words():
    with pytest.raises(ValueError, match="word"):
        Tree("S", [Tree("NN", word="two words")]).to_string()


@pytest.mark.parametrize(
    "label,stripped",
    [
        ("NP-SBJ-1", "NP"),
        ("NP=2", "NP"),
        ("PP-LOC=3", "PP"),
        ("S-TPC-1", "S"),
        ("-NONE-", "-NONE-"),
        ("-LRB-", "-LRB-"),
        ("PRP$", "PRP$"),
        ("ADVP|PRT", "ADVP|PRT"),
    ],
)
def test_strip_function_tags(label, stripped):
    assert strip_function_tags(label) == stripped


def test_normalize_removes_empty_elements_and_constituents_left_empty():
    tree = Tree.from_string(
        "( (S (NP-SBJ-1 (-NONE- *)) (VP (VBD said) (SBAR (-NONE- 0) (S (NP-SBJ (-NONE- *T*-1)))))"
        " (NP=2 (PRP it)) (. .)) )"
    )
    assert tree.normalize().to_string() == "(S (VP (VBD said)) (NP (PRP it)) (. .))"
    assert tree.to_string().startswith("( (S (NP-SBJ-1")  # normalize copies


@pytest.mark.parametrize(
    "text,normalized",
    [
        ("(TOP (S (VP (VB Go))))", "(S (VP (VB Go)))"),
        ("(ROOT (S (VP (VB Go))))", "(S (VP (VB Go)))"),
        ("( (S (VP (VB Go))) )", "(S (VP (VB Go)))"),
        ("(TOP (ROOT (NN x)))", "(NN x)"),
        ("(TOP (S (NN x)) (S (NN y)))", "(TOP (S (NN x)) (S (NN y)))"),
        ("(TOP (-NONE- *) (S (NN x)))", "(S (NN x))"),
        ("(S (-LRB- -LRB-) (NP-SBJ (NN x)))", "(S (-LRB- -LRB-) (NP (NN x)))"),
    ],
)
def test_normalize_wrappers(text, normalized):
    assert Tree.from_string(text).normalize().to_string() == normalized


def test_normalize_rejects_a_tree_of_empty_elements():
    with pytest.raises(ValueError, match="no words"):
        Tree.from_string("(S (NP (-NONE- *)))").normalize()


def test_to_spans_collapses_unary_chains():
    tree = Tree.from_string("(TOP (S (NP-SBJ (PRP He)) (VP (VBD left) (ADVP (RB early)))))")
    assert tree.to_spans() == [(0, 3, ("S",)), (0, 1, ("NP",)), (1, 3, ("VP",)), (2, 3, ("ADVP",))]
    assert Tree.from_string("(S (VP (VB Go)))").to_spans() == [(0, 1, ("S", "VP"))]
    assert Tree.from_string("(TOP (NN x))").to_spans() == []


def test_from_spans_expands_unary_chains_and_accepts_any_order():
    words, tags = ["He", "left", "early"], ["PRP", "VBD", "RB"]
    spans = [(2, 3, ("ADVP", "RB-PHRASE")), (0, 1, ("NP",)), (0, 3, ("S", "SQ")), (1, 3, ["VP"])]
    tree = Tree.from_spans(words, tags, spans)
    assert tree.to_string() == ("(S (SQ (NP (PRP He)) (VP (VBD left) (ADVP (RB-PHRASE (RB early))))))")


def test_from_spans_adds_a_root():
    assert Tree.from_spans(["Go"], ["VB"], []).to_string() == "(S (VB Go))"
    tree = Tree.from_spans(["a", "b"], ["DT", "NN"], [(0, 1, ("NP",))], root_label="FRAG")
    assert tree.to_string() == "(FRAG (NP (DT a)) (NN b))"


def test_check_spans_accepts_numpy_offsets():
    spans = numpy.array([[0, 2], [1, 2]], dtype=numpy.int32)
    checked = check_spans(2, [(s, e, ("X",)) for s, e in spans])
    assert checked == [(0, 2, ("X",)), (1, 2, ("X",))]
    assert all(type(value) is int for span in checked for value in span[:2])


@pytest.mark.parametrize(
    "spans,message",
    [
        ([(0, 2, ("NP",)), (1, 3, ("VP",))], "crosses"),
        ([(0, 1, ("NP",)), (0, 1, ("NNP",))], "given twice"),
        ([(2, 4, ("NP",))], "not within"),
        ([(1, 1, ("NP",))], "not within"),
        ([(0, 1, "NP")], "labels"),
        ([(0, 1, ())], "labels"),
        ([(0, 1, ("",))], "bad label"),
        ([(0, 1, ("N P",))], "bad label"),
        ([(0, 1, (1,))], "bad label"),
        ([(0, 1)], "expected a span"),
    ],
)
def test_check_spans_errors(spans, message):
    with pytest.raises(ValueError, match=message):
        check_spans(3, spans)


def test_from_spans_checks_lengths():
    with pytest.raises(ValueError, match="2 words but 1 tags"):
        Tree.from_spans(["a", "b"], ["DT"], [])
    with pytest.raises(ValueError, match="at least one word"):
        Tree.from_spans([], [], [])


DEPTH = 2000


def test_deep_unary_chain():
    text = "(S " * DEPTH + "(NN x)" + ")" * DEPTH
    tree = Tree.from_string(text)
    assert tree.to_string() == text
    assert tree.normalize().to_string() == text
    spans = tree.to_spans()
    assert spans == [(0, 1, ("S",) * DEPTH)]
    assert Tree.from_spans(["x"], ["NN"], spans).to_string() == text


def test_deep_right_branching_tree():
    text = "".join(f"(X (A a{i}) " for i in range(DEPTH)) + "(A z)" + ")" * DEPTH
    tree = Tree.from_string(text)
    assert tree.to_string() == text
    assert len(tree) == DEPTH + 1
    spans = tree.to_spans()
    assert spans == [(i, DEPTH + 1, ("X",)) for i in range(DEPTH)]
    words, tags = [f"a{i}" for i in range(DEPTH)] + ["z"], ["A"] * (DEPTH + 1)
    assert tree.words() == words and tree.tags() == tags
    assert Tree.from_spans(words, tags, spans).to_string() == text


def test_read_trees_reads_many_multiline_trees_from_text_and_files(tmp_path):
    text = "( (S (NP (NN a))\n  (VP (VB b))) )\n\n(S (NN c))(S\n(NN d))\n"
    expected = ["( (S (NP (NN a)) (VP (VB b))))", "(S (NN c))", "(S (NN d))"]
    assert [tree.to_string() for tree in read_trees(text)] == expected
    path = tmp_path / "wsj_0001.mrg"
    path.write_text(text, encoding="utf-8")
    assert [tree.to_string() for tree in read_trees(path)] == expected
    assert [tree.to_string() for tree in read_trees(str(path))] == expected
    assert list(read_trees("")) == []


def test_read_untagged_trees():
    trees = list(read_trees("(S (NP John Smith) (VP (V runs) fast))\n(NP it)", tagged=False))
    assert trees[0].to_string() == (
        f"(S (NP ({UNTAGGED} John) ({UNTAGGED} Smith)) (VP (V ({UNTAGGED} runs)) ({UNTAGGED} fast)))"
    )
    assert trees[1].to_string() == f"(NP ({UNTAGGED} it))"
    assert trees[0].words() == ["John", "Smith", "runs", "fast"]


@pytest.mark.parametrize(
    "text,line,expected",
    [
        ("(S (NP (NN x))\n", 2, "expected ')' to close the '(' of line 1, found end of input"),
        ("(S\n (NN x)))", 2, "expected '(' (unbalanced brackets), found ')'"),
        ("(S\n (NP ( (NN x))))", 2, "expected a label after '(' (only the outermost bracket"),
        ("(S (NN x))\n()", 2, "expected a label after '(', found ')'"),
        ("(S\n\n (NN))", 3, "expected a word or '(' after '(NN', found ')'"),
        ("(S (NN x))\n (VP)", 2, "expected a word or '(' after '(VP', found ')'"),
        ("(S\n (NP John Smith))", 2, "expected '(' (a word must be the only child of its preterminal"),
        ("(S (NN x))\njunk", 2, "expected '(', found 'junk'"),
        ("( John)", 1, "expected a word or '(' after '(John', found ')'"),
    ],
)
def test_format_errors_name_file_line_and_expectation(tmp_path, text, line, expected):
    path = tmp_path / "bad.mrg"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TreeFormatError) as info:
        list(read_trees(path))
    assert str(info.value).startswith(f"{path}, line {line}: ")
    assert expected in str(info.value)
    assert info.value.line == line and info.value.source == str(path)


def test_from_string_needs_exactly_one_tree():
    with pytest.raises(TreeFormatError, match=r"<string>, line 2: expected end of input after the tree"):
        Tree.from_string("(S (NN x))\n(S (NN y))")
    with pytest.raises(TreeFormatError, match="expected '\\(', found end of input"):
        Tree.from_string("  ")


# -- properties --------------------------------------------------------------------------------

WORDS = st.sampled_from(["a", "dog", "(", ")", "{", "]", ":-)", "-", "=", "1\\/2"])
TAGS = st.sampled_from(["NN", "DT", "-LRB-", "-RRB-", "PRP$", ","])
LABELS = st.sampled_from(["S", "NP", "VP", "PP", "SBAR"])
PRETERMINALS = st.builds(lambda tag, word: Tree(tag, word=word), TAGS, WORDS)
TREES = st.builds(
    Tree,
    LABELS,
    st.lists(
        st.recursive(
            PRETERMINALS,
            lambda kids: st.builds(Tree, LABELS, st.lists(kids, min_size=1, max_size=3)),
            max_leaves=12,
        ),
        min_size=1,
        max_size=3,
    ),
)


@given(TREES)
def test_string_round_trip_property(tree):
    assert Tree.from_string(tree.to_string()) == tree


@given(TREES)
def test_span_round_trip_property(tree):
    spans = tree.to_spans()
    assert Tree.from_spans(tree.words(), tree.tags(), spans) == tree
    assert check_spans(len(tree), spans) == spans


def test_without_whitespace_drops_sp_leaves_and_emptied_constituents():
    tree = Tree.from_string("(S (NP (NN Hello) (_SP __)) (NP (_SP _)) (NP (NN World)) (. .))")
    assert tree.without_whitespace().to_string() == "(S (NP (NN Hello)) (NP (NN World)) (. .))"
    only = Tree.from_string("(_SP _)")
    assert only.without_whitespace() is only  # nothing but whitespace: kept as it is
    assert tree.without_whitespace().without_whitespace().to_string() == "(S (NP (NN Hello)) (NP (NN World)) (. .))"


def test_a_word_tagged_as_spacing_keeps_its_leaf():
    """A tagger's ``_SP`` on a word (seen on unfamiliar scripts) does not make it spacing: its
    leaf is UNTAGGED, and a written tree keeps the word."""
    import spacy

    from spacy_lal.doc.api import leaf_tag
    from spacy_lal.doc.tree import UNTAGGED

    doc = spacy.blank("en")("नमस्ते दुनिया ")
    doc[0].tag_, doc[1].tag_ = "NN", "_SP"
    assert [leaf_tag(t) for t in doc] == ["NN", UNTAGGED] and doc[1].is_space is False
    tree = Tree("NP", [Tree(leaf_tag(t), word=t.text) for t in doc])
    assert tree.without_whitespace().words() == ["नमस्ते", "दुनिया"]
