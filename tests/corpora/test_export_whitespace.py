"""The writers' whitespace rules on hand-built Docs (issue #37; see spacy_lal/corpora/export.py):
what the shipped parsers never give (a word headed by a whitespace token, two roots, a word
with whitespace inside) and the exact spacing written in CoNLL-U."""
from typing import List

import pytest
import spacy
from spacy.tokens import Doc

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.corpora.export import sentence_words, word_sentences
from spacy_lal.corpora.parse_output import to_text
from spacy_lal.doc.extensions import set_tree
from spacy_lal.scoring.srl_eval import parse_props
from spacy_lal.doc.frames import FrameData
from spacy_lal.doc.extensions import set_frames
from spacy_lal.doc.tree import Tree


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def rows(conllu: str) -> List[List[str]]:
    return [line.split("\t") for line in conllu.splitlines() if line and not line.startswith("#")]


def test_spacing_in_misc(vocab) -> None:
    # "  Hi there\t\t.  " : leading spaces, a tab run, trailing spaces; "there" + "." glued.
    words = [" ", "Hi", "there", "\t\t", "!", " "]
    spaces = [True, True, False, False, True, False]
    doc = Doc(vocab, words=words, spaces=spaces, heads=[1, 1, 1, 2, 1, 4], deps=["dep", "root", "dep", "dep", "punct", "dep"],
              sent_starts=[True, False, False, False, False, False])
    assert doc.text == "  Hi there\t\t! " + " "
    out = to_text([doc], "conllu")
    assert "# text = Hi there !\n" in out
    assert [(r[0], r[1], r[6], r[9]) for r in rows(out)] == [
        ("1", "Hi", "0", "SpacesBefore=\\s\\s"),
        ("2", "there", "1", "SpacesAfter=\\t\\t"),
        ("3", "!", "1", "SpacesAfter=\\s\\s"),
    ]


def test_a_word_headed_by_whitespace(vocab) -> None:
    # "a" is headed by the whitespace token, whose head is "c".
    words = ["a", "\u3000", "b", "c"]
    spaces = [False, False, True, False]
    doc = Doc(vocab, words=words, spaces=spaces, heads=[1, 3, 3, 3], deps=["amod", "dep", "amod", "ROOT"])
    out = to_text([doc], "conllu")
    assert [(r[0], r[1], r[6], r[7], r[9]) for r in rows(out)] == [
        ("1", "a", "3", "amod", "SpacesAfter=\\u3000"),
        ("2", "b", "3", "amod", "_"),
        ("3", "c", "0", "root", "_"),  # the end of the Doc: no SpaceAfter=No
    ]
    assert "# text = a b c\n" in out


def test_a_head_chain_leaving_the_sentence_and_two_roots(vocab) -> None:
    # spaCy cuts sentences at the roots: "a" + whitespace, then "b c"; the whitespace token's
    # head is in the second sentence, so "a" is the root of its own.
    # The second sentence has two roots (spaCy keeps them): the second is attached to the first.
    doc = Doc(vocab, words=["a", "\u3000", "b", "c"], spaces=[False, False, True, False], heads=[1, 3, 2, 3],
              deps=["amod", "dep", "ROOT", "ROOT"], sent_starts=[True, False, False, False])
    assert [s.text for s in doc.sents] == ["a\u3000", "b c"]
    out = to_text([doc], "conllu")
    assert [(r[0], r[1], r[6], r[7]) for r in rows(out)] == [
        ("1", "a", "0", "root"), ("1", "b", "0", "root"), ("2", "c", "1", "dep"),
    ]


def test_a_word_with_whitespace_inside(vocab) -> None:
    doc = Doc(vocab, words=["New\u00a0York", "is", "big"], spaces=[True, True, False],
              tags=["NNP", "VBZ", "JJ"], sent_starts=[True, False, False])
    set_tree(doc[:], [(0, 3, ("S",)), (1, 3, ("VP",))])
    (line,) = to_text([doc], "ptb").splitlines()
    assert Tree.from_string(line).words() == ["New_York", "is", "big"]
    assert line == "(S (NNP New_York) (VP (VBZ is) (JJ big)))"
    conllu = to_text([doc], "conllu")
    assert rows(conllu)[0][1] == "New York" and "# text = New York is big\n" in conllu


def test_props_rows_are_words(vocab) -> None:
    # An argument spanning a whitespace token: its brackets stay on the words around it.
    doc = Doc(vocab, words=["Mary", "\n", "left", "the", "\t", "room"], spaces=[False, False, True, False, False, False],
              lemmas=["Mary", "\n", "leave", "the", "\t", "room"], sent_starts=[True, False, False, False, False, False])
    set_frames(doc, [FrameData(2, "leave.01", ((0, 1, "ARG0"), (3, 6, "ARG1")))])
    props = to_text([doc], "conll05")
    (sentence,) = parse_props(props)
    assert props == "-\t(ARG0*)\nleave\t(V*)\n-\t(ARG1*\n-\t*)\n\n"
    assert [t.text for t in sentence_words(next(word_sentences(doc)))] == ["Mary", "left", "the", "room"]


def test_a_whitespace_doc_writes_nothing(vocab) -> None:
    doc = Doc(vocab, words=["  "], spaces=[False], sent_starts=[True])
    doc.user_data["doc_id"] = "blank"
    assert [to_text([doc], fmt) for fmt in ("ptb", "conllu", "conll05")] == ["", "", ""]


def test_these_docs_pass_uds_validator(vocab, tmp_path) -> None:
    import subprocess
    import sys

    pytest.importorskip("udtools", reason="UD's validator: pip install udtools (in the test extra)")
    docs = [
        Doc(vocab, words=[" ", "Hi", "there", "\t\t", "!", " "], spaces=[True, True, False, False, True, False],
            heads=[1, 1, 1, 2, 1, 4], deps=["dep", "root", "dep", "dep", "punct", "dep"]),
        Doc(vocab, words=["a", "\u3000", "b", "c"], spaces=[False, False, True, False], heads=[1, 3, 2, 3],
            deps=["amod", "dep", "ROOT", "ROOT"], sent_starts=[True, False, False, False]),
        Doc(vocab, words=["New\u00a0York", "is", "big"], spaces=[True, True, False], heads=[2, 2, 2],
            deps=["nsubj", "cop", "root"]),
        Doc(vocab, words=["  "], spaces=[False], sent_starts=[True]),
    ]
    for k, doc in enumerate(docs):
        doc.user_data["doc_id"] = doc.user_data["sent_id"] = f"d{k}"
        for token in doc:  # UPOS "_" (no tagger) is not a UD tag at level 2
            token.pos_ = "SPACE" if token.is_space else "X"
    path = tmp_path / "hand.conllu"
    path.write_text(to_text(docs, "conllu"), encoding="utf8")
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from udtools.cli import main; sys.exit(main())",
         "--lang", "ud", "--level", "2", str(path)],
        capture_output=True, text=True, encoding="utf8",
    )
    assert result.returncode == 0, result.stdout + result.stderr
