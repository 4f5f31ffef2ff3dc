import importlib.util
import pickle
import re
import subprocess
import sys
import types
import warnings

import pytest
from spacy.language import Language
from spacy.tokens import Doc, DocBin, Span, Token

import spacy_lal
from spacy_lal.doc import api, extensions
from spacy_lal.doc.api import (
    ExtensionConflictWarning,
    NonConstituentException,
    NotAConstituentError,
    register_extensions,
)
from spacy_lal.doc.extensions import clear_trees, sentence_docs, set_frames, set_tree, set_trees
from spacy_lal.doc.frames import FrameData
from spacy_lal.doc.tree import UNTAGGED, Tree

SENT1 = "(S (NP (NNP Mary)) (VP (VBD saw) (NP (-LRB- -LRB-) (DT the) (NN film) (-RRB- -RRB-))) (. .))"
SENT2 = "(S (VP (VB Go)))"


def make_doc(vocab, *sentences: str) -> Doc:
    """A doc of the given PTB sentences, tagged, with their trees and sentence boundaries set."""
    trees = [Tree.from_string(text) for text in sentences]
    words = [word for tree in trees for word in tree.words()]
    tags = [tag for tree in trees for tag in tree.tags()]
    starts = [i == 0 for tree in trees for i in range(len(tree))]
    doc = Doc(vocab, words=words, tags=tags, sent_starts=starts)
    for sent, tree in zip(doc.sents, trees):
        set_tree(sent, tree.to_spans())
    return doc


def spans_of(spans):
    return [(span.start, span.end) for span in spans]


@pytest.fixture
def doc(nlp):
    return make_doc(nlp.vocab, SENT1, SENT2)


def test_trees(doc, nlp):
    assert [tree.to_string() for tree in doc._.trees] == [SENT1, SENT2]
    assert doc._.tree.to_string() == f"(TOP {SENT1} {SENT2})"
    assert make_doc(nlp.vocab, SENT2)._.tree.to_string() == SENT2
    assert Doc(nlp.vocab, words=["x"])._.tree is None
    assert Doc(nlp.vocab, words=["x"])._.trees == []


def test_span_api(doc):
    sent1, sent2 = doc.sents
    assert sent1._.labels == ("S",)
    assert spans_of(sent1._.children) == [(0, 1), (1, 6), (6, 7)]
    assert sent1._.parent is None
    assert sent1._.parse_string == SENT1
    vp = doc[1:6]
    assert vp._.labels == ("VP",)
    assert spans_of(vp._.children) == [(1, 2), (2, 6)]
    assert spans_of([vp._.parent]) == [(0, 7)]
    assert vp._.parse_string == "(VP (VBD saw) (NP (-LRB- -LRB-) (DT the) (NN film) (-RRB- -RRB-)))"
    assert spans_of(vp._.constituents) == [(1, 6), (1, 2), (2, 6), (2, 3), (3, 4), (4, 5), (5, 6)]
    assert spans_of(sent1._.constituents)[:4] == [(0, 7), (0, 1), (1, 6), (1, 2)]
    assert doc[2]._.parse_string == "(-LRB- -LRB-)"
    # A unary chain over one word is one constituent; the word has no children.
    assert sent2._.labels == ("S", "VP")
    assert list(sent2._.children) == []
    assert sent2._.parse_string == SENT2
    assert spans_of(sent2._.constituents) == [(7, 8)]


def test_token_api(doc):
    mary, saw, go = doc[0], doc[1], doc[7]
    assert mary._.labels == ("NP",) and saw._.labels == ()
    assert spans_of([mary._.parent, saw._.parent]) == [(0, 7), (1, 6)]
    assert saw._.parse_string == "(VBD saw)"
    assert mary._.parse_string == "(NP (NNP Mary))"
    assert go._.labels == ("S", "VP") and go._.parent is None


def test_parse_string_uses_placeholder_for_missing_tags(nlp):
    doc = Doc(nlp.vocab, words=["Go", "(", "now", ")"])
    set_tree(doc[:], [(0, 4, ("S", "VP"))])
    x = UNTAGGED
    assert doc[:]._.parse_string == f"(S (VP ({x} Go) ({x} -LRB-) ({x} now) ({x} -RRB-)))"


def test_whitespace_tokens_are_sp_leaves_that_printing_leaves_out(nlp):
    doc = nlp("Go  now")
    assert [token.text for token in doc] == ["Go", " ", "now"]
    set_tree(doc[:], [(0, 3, ("S", "VP"))])
    # Stored trees keep whitespace as an _SP leaf, so leaves align with tokens ...
    assert doc._.tree.words() == ["Go", "_", "now"]
    assert doc._.tree.tags() == [UNTAGGED, "_SP", UNTAGGED]
    # ... and the printed tree and the span API leave it out, as treebanks do.
    assert doc[:]._.parse_string == f"(S (VP ({UNTAGGED} Go) ({UNTAGGED} now)))"
    assert [child.text for child in doc[:]._.children] == ["Go", "now"]


@pytest.mark.parametrize(
    "start,end,message",
    [
        (1, 3, "span 'saw (' (tokens 1..3) is not a constituent of the parse of tokens 0..7"),
        (5, 8, "span ') . Go' (tokens 5..8) is not a constituent: it crosses the end of the parsed sentence"),
    ],
)
def test_not_a_constituent(doc, start, end, message):
    with pytest.raises(NotAConstituentError, match=re.escape(message)):
        doc[start:end]._.labels
    for attr in ("children", "parent", "constituents", "parse_string"):
        with pytest.raises(NotAConstituentError):
            getattr(doc[start:end]._, attr)


def test_unparsed_sentence_is_not_a_constituent(nlp):
    doc = Doc(nlp.vocab, words="a b . c d".split(), sent_starts=[1, 0, 0, 1, 0])
    set_tree(doc[0:3], [])
    with pytest.raises(NotAConstituentError, match="no parse tree is stored for its sentence"):
        doc[3:5]._.labels
    with pytest.raises(NotAConstituentError, match="no parse tree"):
        doc[4]._.parent
    with pytest.raises(NotAConstituentError):
        Doc(nlp.vocab, words=["x"])[0:1]._.constituents
    assert issubclass(NotAConstituentError, ValueError)


def test_children_and_constituents_are_generators_as_in_benepar(doc):
    # benepar 0.2 (integrations/spacy_extensions.py): children and constituents are generator
    # functions, labels a tuple, parse_string a str, parent a Span or None.
    sent1, _ = doc.sents
    children, constituents = sent1._.children, sent1._.constituents
    assert isinstance(children, types.GeneratorType) and isinstance(constituents, types.GeneratorType)
    assert spans_of([next(children)]) == [(0, 1)]
    assert spans_of(children) == [(1, 6), (6, 7)]  # the rest
    assert spans_of([next(constituents), next(constituents)]) == [(0, 7), (0, 1)]
    # A fresh one at every read.
    assert spans_of([next(sent1._.children)]) == [(0, 1)]
    with pytest.raises(StopIteration):
        next(doc[0:1]._.children)  # a single token has no children
    assert spans_of(doc[0:1]._.constituents) == [(0, 1)]
    assert isinstance(sent1._.labels, tuple) and isinstance(sent1._.parse_string, str)
    assert isinstance(doc[1:6]._.parent, Span) and sent1._.parent is None


def test_not_a_constituent_answers_to_benepars_name(doc):
    # benepar raises NonConstituentException; ours is the same class under both names, exported
    # from the package too, and a ValueError.
    assert NonConstituentException is NotAConstituentError
    assert spacy_lal.NonConstituentException is spacy_lal.NotAConstituentError is NotAConstituentError
    for caught in (NonConstituentException, NotAConstituentError, ValueError):
        for attr in ("labels", "parse_string", "children", "constituents", "parent"):
            with pytest.raises(caught):
                getattr(doc[1:3]._, attr)
    # Unlike benepar's generators, which raise only when first advanced, ours raise when read.
    try:
        doc[1:3]._.children
    except NonConstituentException as error:
        assert "is not a constituent" in str(error)
    else:
        raise AssertionError("no exception")


# benepar's README (its PyPI description, "Usage with spaCy"), verbatim.
BENEPAR_TEXT = "The time for action is now. It's never too late to do something."
BENEPAR_PARSE = "(S (NP (NP (DT The) (NN time)) (PP (IN for) (NP (NN action)))) (VP (VBZ is) (ADVP (RB now))) (. .))"


def check_benepar_example(doc):
    sent = list(doc.sents)[0]
    assert sent._.parse_string == BENEPAR_PARSE
    assert sent._.labels == ("S",)
    assert str(list(sent._.children)[0]) == "The time for action"
    # The rest of the README's API list, on the same sentence.
    the_time = list(sent._.children)[0]
    assert the_time._.labels == ("NP",)
    assert [c.text for c in the_time._.children] == ["The time", "for action"]
    assert the_time._.parent == sent
    assert next(sent._.constituents) == sent
    assert [c.text for c in sent._.constituents if c._.labels] == [
        "The time for action is now.", "The time for action", "The time", "for action", "action", "is now", "now",
    ]
    action = doc[3]
    assert action._.labels == ("NP",) and action._.parse_string == "(NP (NN action))"
    assert action._.parent.text == "for action"
    assert doc[0]._.labels == () and doc[0]._.parse_string == "(DT The)"


def test_benepar_readme_example_on_a_stored_parse(nlp):
    doc = nlp(BENEPAR_TEXT)
    second = "(S (NP (PRP It)) (VP (VBZ 's) (ADVP (RB never)) (ADJP (RB too) (JJ late) (S (VP (TO to) (VP (VB do) (NP (NN something))))))) (. .))"
    trees = [Tree.from_string(BENEPAR_PARSE), Tree.from_string(second)]
    assert [t.text for t in doc] == [w for tree in trees for w in tree.words()]
    for token, tag in zip(doc, [tag for tree in trees for tag in tree.tags()]):
        token.tag_ = tag
    doc[0].is_sent_start = True
    doc[7].is_sent_start = True
    for i in range(1, len(doc)):
        if i != 7:
            doc[i].is_sent_start = False
    for sent, tree in zip(doc.sents, trees):
        set_tree(sent, tree.to_spans())
    check_benepar_example(doc)


@pytest.mark.skipif("en_lal_ewt" not in spacy_lal.shipped_pipelines(), reason="the shipped pipeline is not built")
def test_benepar_readme_example_on_the_shipped_pipeline():
    # The shipped parser gives benepar's README parse of its example word for word.
    check_benepar_example(spacy_lal.load()(BENEPAR_TEXT))


def test_set_tree_replaces_overlapping_trees(nlp):
    doc = Doc(nlp.vocab, words="a b c d e f".split())
    set_tree(doc[0:3], [(0, 1, ("A",))])
    set_tree(doc[3:6], [])
    set_tree(doc[0:3], [(1, 3, ("B",))])
    assert [tree.to_string() for tree in doc._.trees] == [
        f"(S ({UNTAGGED} a) (B ({UNTAGGED} b) ({UNTAGGED} c)))",
        f"(S ({UNTAGGED} d) ({UNTAGGED} e) ({UNTAGGED} f))",
    ]
    # Re-segmented: the new sentence overlaps both old ones, which go.
    set_tree(doc[2:4], [], root_label="X")
    assert [len(tree) for tree in doc._.trees] == [2]
    assert doc[2:4]._.labels == ("X",)
    with pytest.raises(NotAConstituentError):
        doc[0:3]._.labels
    clear_trees(doc)
    assert doc._.trees == []


def test_set_trees_replaces_every_tree_of_the_doc(nlp):
    doc = Doc(nlp.vocab, words="a b c d e f".split())
    set_tree(doc[0:4], [(0, 2, ("A",))])
    set_trees(doc, [(doc[3:6], [(1, 3, ("B",))]), (doc[0:3], [])])
    assert [tree.to_string() for tree in doc._.trees] == [
        f"(S ({UNTAGGED} a) ({UNTAGGED} b) ({UNTAGGED} c))",
        f"(S ({UNTAGGED} d) (B ({UNTAGGED} e) ({UNTAGGED} f)))",
    ]
    with pytest.raises(ValueError, match="overlapping sentences"):
        set_trees(doc, [(doc[0:3], []), (doc[2:6], [])])
    set_trees(doc, [])
    assert doc._.trees == []


def test_values_are_found_through_spacys_user_data_keys(nlp):
    # The readers and clearers look at doc.user_data rather than at every token: what
    # token._.set stores must be what they find, and a value at an offset that is no token's
    # start (left over by an edit of the Doc) is nobody's.
    doc = Doc(nlp.vocab, words="a bb c".split())
    set_frames(doc, [FrameData(1, "bb.01", ((0, 1, "ARG0"),))])
    assert [(frame.predicate.i, frame.sense) for frame in doc._.srl] == [(1, "bb.01")]
    doc.user_data[("._.", extensions.FRAME_ATTR, 3, None)] = {"sense": "x.01", "args": []}
    assert [frame.predicate.i for frame in doc._.srl] == [1]
    set_frames(doc, [])
    assert doc._.srl == [] and doc[1]._.get(extensions.FRAME_ATTR) is None


@pytest.mark.parametrize(
    "spans,message",
    [
        ([(0, 4, ("NP",))], "not within"),
        ([(0, 2, ("NP",)), (1, 3, ("VP",))], "crosses"),
        ([(0, 1, ("",))], "bad label"),
    ],
)
def test_set_tree_validates(doc, spans, message):
    sent = next(iter(doc.sents))[0:3]
    with pytest.raises(ValueError, match=message):
        set_tree(sent, spans)


def test_deep_tree_on_a_doc(nlp):
    depth = 2000
    words = [f"w{i}" for i in range(depth + 1)]
    doc = Doc(nlp.vocab, words=words)
    set_tree(doc[:], [(i, depth + 1, ("X",)) for i in range(depth)])
    assert doc[:]._.parse_string.count("(X ") == depth
    assert len(list(doc[:]._.constituents)) == 2 * depth + 1
    assert spans_of(doc[depth - 1 :]._.children) == [(depth - 1, depth), (depth, depth + 1)]


def test_register_extensions_is_idempotent(doc):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # re-registering our own attributes is no conflict
        register_extensions()
        register_extensions()
    assert doc[:7]._.labels == ("S",)


def test_another_packages_attributes_are_replaced_with_one_warning(doc, monkeypatch):
    other = types.ModuleType("otherparser.spacy_ext")
    exec("def labels(span):\n    return ('X',)\n\ndef parent(token):\n    return None\n", other.__dict__)
    monkeypatch.setattr(api, "_WARNED_OWNERS", set())
    try:
        Span.set_extension("labels", getter=other.labels, force=True)
        Token.set_extension("parent", getter=other.parent, force=True)
        Doc.set_extension("srl", default=(), force=True)  # a plain value: its owner is unknown
        assert doc[:7]._.labels == ("X",)
        with pytest.warns(ExtensionConflictWarning) as record:
            register_extensions()
        messages = sorted(str(w.message) for w in record)
        assert len(messages) == 2
        assert messages[0].startswith("spacy_lal replaced the spaCy extension attributes Doc._.srl that another")
        assert messages[1].startswith(
            "spacy_lal replaced the spaCy extension attributes Span._.labels, Token._.parent that otherparser had"
        )
        assert doc[:7]._.labels == ("S",) and Token.get_extension("parent")[2].__module__ == "spacy_lal.doc.api"
        # Once per package: the same package's attributes replaced again are not warned about again.
        Span.set_extension("labels", getter=other.labels, force=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            register_extensions()
        assert doc[:7]._.labels == ("S",)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            register_extensions()


BENEPAR = importlib.util.find_spec("benepar") is not None


@pytest.mark.skipif(not BENEPAR, reason="benepar is not installed")
def test_benepar_and_spacy_lal_in_one_process():
    """benepar (0.2) registers labels, parse_string, constituents, parent, children on Span and
    labels, parse_string, parent on Token when imported, without force=True; no model is needed.
    Imported first, they are replaced with a warning; registered after ours, benepar fails."""
    done = subprocess.run(
        [sys.executable, "-c", (
            "import importlib, warnings\n"
            "warnings.simplefilter('ignore'); warnings.simplefilter('always', UserWarning)\n"
            "import benepar, spacy_lal\n"
            "from spacy.tokens import Span, Token\n"
            "print(Span.get_extension('children')[2].__module__, Token.get_extension('labels')[2].__module__)\n"
            # benepar registering again, as an import after spacy_lal would (its own Doc value aside).
            "from spacy.tokens import Doc; Doc.remove_extension('_constituent_data')\n"
            "try:\n"
            "    importlib.reload(benepar.integrations.spacy_extensions)\n"
            "except ValueError as error:\n"
            "    print(error)\n"
        )],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ours, refused = done.stdout.splitlines()
    assert ours.split() == ["spacy_lal.doc.api", "spacy_lal.doc.api"]
    assert refused.startswith("[E090] Extension 'labels' already exists on Span")
    (line,) = [line for line in done.stderr.splitlines() if "ExtensionConflictWarning" in line]
    attributes = "Span._.labels, Span._.parse_string, Span._.children, Span._.parent, Span._.constituents, "
    attributes += "Token._.labels, Token._.parse_string, Token._.parent"
    assert f"attributes {attributes} that benepar had registered" in line
    assert "run benepar in an environment without spacy-lal" in line


# -- persistence -----------------------------------------------------------------------------

FRAME = FrameData(1, "01", ((0, 1, "ARG0"), (2, 6, "ARG1")))


def assert_annotated(doc, offset=0):
    assert [tree.to_string() for tree in doc._.trees][-2:] == [SENT1, SENT2]
    assert doc[offset + 1 : offset + 6]._.labels == ("VP",)
    assert doc[offset + 7]._.labels == ("S", "VP")
    (frame,) = doc._.srl[-1:]
    assert frame.predicate.i == offset + 1
    assert str(frame) == "[ARG0 Mary] [V saw] [ARG1 ( the film )] ."


@pytest.fixture
def annotated(doc):
    set_frames(doc, [FRAME])
    return doc


def test_docbin(annotated, nlp):
    doc_bin = DocBin(store_user_data=True, docs=[annotated])
    (doc,) = DocBin().from_bytes(doc_bin.to_bytes()).get_docs(nlp.vocab)
    assert_annotated(doc)


def test_to_bytes(annotated, nlp):
    assert_annotated(Doc(nlp.vocab).from_bytes(annotated.to_bytes()))


def test_pickle(annotated):
    assert_annotated(pickle.loads(pickle.dumps(annotated)))


def test_extensions_pickle_for_spawned_processes():
    # nlp.pipe(n_process=N) under the "spawn" start method pickles every registered extension
    # (spaCy's Underscore.get_state()); a getter made as a local closure cannot be (issue #50).
    from spacy.tokens.underscore import Underscore

    import spacy_lal.pipeline.parser.clear  # noqa: F401  (registers ud_dep, ud_head)

    ours = {}
    for kind, extensions in zip(("token", "span", "doc"), Underscore.get_state()):
        for name, extension in extensions.items():
            functions = [fn for fn in extension[1:] if fn is not None]
            if functions and all(fn.__module__.startswith("spacy_lal.") for fn in functions):
                ours[f"{kind}._.{name}"] = extension
    assert sorted(ours) == sorted(
        [f"doc._.{name}" for name in ("trees", "tree", "srl")]
        + [f"span._.{name}" for name in ("labels", "parse_string", "children", "parent", "constituents")]
        + [f"token._.{name}" for name in ("labels", "parse_string", "parent", "ud_dep", "ud_head")])
    for name, extension in ours.items():
        assert pickle.loads(pickle.dumps(extension)) == extension, name


def test_from_docs_shifts_offsets(annotated, nlp):
    first = make_doc(nlp.vocab, SENT2)
    merged = Doc.from_docs([first, annotated])
    assert len(merged._.trees) == 3
    assert_annotated(merged, offset=1)
    assert merged[0:1]._.labels == ("S", "VP")
    assert spans_of(merged[2:7]._.children) == [(2, 3), (3, 7)]


TEXTS = {"Mary saw it .": [(0, 1, ("NP",)), (1, 3, ("VP",))], "Go now": [(0, 2, ("S", "VP"))]}


@Language.component("spacy_lal_test_set_tree")
def set_tree_from_dict(doc: Doc) -> Doc:
    set_tree(doc[:], TEXTS[doc.text])
    set_frames(doc, [FrameData(1, None, ((0, 1, "ARG0"),))])
    return doc


def test_pipe_with_several_processes():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("spacy_lal_test_set_tree")
    docs = list(nlp.pipe(list(TEXTS) * 2, n_process=2, batch_size=1))
    assert [doc[:]._.parse_string for doc in docs] == [
        f"(S (NP ({UNTAGGED} Mary)) (VP ({UNTAGGED} saw) ({UNTAGGED} it)) ({UNTAGGED} .))",
        f"(S (VP ({UNTAGGED} Go) ({UNTAGGED} now)))",
    ] * 2
    assert [str(doc._.srl[0]) for doc in docs] == ["[ARG0 Mary] [V saw] it .", "[ARG0 Go] [V now]"] * 2


def test_import_does_not_load_heavy_modules():
    code = "import sys, spacy_lal; print(sorted(m for m in sys.modules if m.startswith('spacy_lal')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == (
        "['spacy_lal', 'spacy_lal.doc', 'spacy_lal.doc.api', 'spacy_lal.doc.extensions', "
        "'spacy_lal.doc.frames', 'spacy_lal.doc.tree']"
    )


def test_sentence_docs_keep_their_own_values_only(nlp):
    doc = make_doc(nlp.vocab, SENT1, SENT2, SENT1)
    set_frames(doc, [FrameData(1, "see.01", [(0, 1, "ARG0"), (2, 6, "ARG1")])])
    doc.user_data["note"] = "kept"  # a Doc-level value goes to every sentence
    first, second, third = sentence_docs(doc)
    assert [[t.text for t in d] for d in (first, second, third)] == [[t.text for t in s] for s in doc.sents]
    assert first._.tree.to_string() == third._.tree.to_string() == Tree.from_string(SENT1).to_string()
    assert second._.tree.to_string() == Tree.from_string(SENT2).to_string()
    assert [(f.predicate.text, f.sense) for f in first._.srl] == [("saw", "see.01")] and not third._.srl
    assert all(d.user_data["note"] == "kept" for d in (first, second, third))
    # only the sentence's own tokens' values: one tree each, and the frame in the first alone
    assert [sum(1 for key in d.user_data if key[1:2] == ("lal_tree",)) for d in (first, second, third)] == [1, 1, 1]
