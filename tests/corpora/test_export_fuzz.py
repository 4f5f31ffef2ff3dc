"""Exports that validate (issue #37): the shipped pipeline's PTB, CoNLL-U and CoNLL-2005 output of
200 odd texts (tests/corpora/odd_inputs.py: whitespace runs, control and zero-width characters,
emoji, mixed scripts, a 5,000-character token, empty and punctuation-only texts, long
unpunctuated text), read back by the reference readers:

- CoNLL-U: UD's own validator (``udtools``, the validate.py of the UniversalDependencies tools
  repository packaged on PyPI; a test dependency) at levels 1 and 2, ``--lang ud``: the CoNLL-U
  format and the universal tag sets (level 3 and up judge the annotation, not the format);
- PTB: one line per sentence, each read by ``Tree.from_string`` with the sentence's words;
- CoNLL-2005: the props read by ``srl_eval.parse_props`` (srl-eval.pl's reading), one row per word.

No sentence of whitespace alone is written in any format, and the three files hold the same
sentences. Parsing the 200 texts takes about 30 s on a CPU, once for the module.
"""
from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import List

import pytest
from spacy.tokens import Doc

import spacy_lal
from spacy_lal.corpora import export, parse_output
from spacy_lal.corpora.conllu import read_conllu
from spacy_lal.scoring.srl_eval import parse_props
from spacy_lal.doc.tree import Tree

from odd_inputs import N_INPUTS, odd_inputs  # beside this file (pytest's rootdir-less import)

UD_VALIDATE = "import sys; from udtools.cli import main; sys.exit(main())"


@pytest.fixture(scope="module")
def odd_docs() -> List[Doc]:
    nlp = spacy_lal.load()
    return list(nlp.pipe(odd_inputs(), batch_size=64))  # the long unpunctuated text: logged, cut in pieces


def ud_validate(path: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("udtools", reason="UD's validator: pip install udtools (in the test extra)")
    return subprocess.run(
        [sys.executable, "-c", UD_VALIDATE, "--lang", "ud", "--level", "2", "--max-err", "0", str(path)],
        capture_output=True, text=True, encoding="utf8",
    )


def test_the_inputs_are_odd() -> None:
    texts = odd_inputs()
    assert len(texts) == N_INPUTS == 200 and texts == odd_inputs()  # seeded
    joined = "".join(texts)
    for needle in ["\t", "\r", "\u3000", "\u00a0", "\u200b", "\u200d", "\x07", "🇫🇷", "東京", "مرحبا", "नमस्ते"]:
        assert needle in joined, needle
    assert "" in texts and any(len(text) > 5000 for text in texts)
    assert any(text and not text.strip() for text in texts)


def test_the_validator_refuses_whitespace_words(tmp_path: Path) -> None:
    """What the writer wrote before issue #37: a whitespace FORM with UPOS SPACE."""
    path = tmp_path / "old.conllu"
    rows = ["1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No", "2\t \t \tSPACE\t_SP\t_\t1\tdep\t_\t_"]
    path.write_text("# sent_id = 1\n# text = Hi\n" + "\n".join(rows) + "\n\n", encoding="utf8")
    result = ud_validate(path)
    assert result.returncode != 0
    for rule in ("leading-whitespace", "unknown-upos", "text-form-mismatch"):
        assert rule in result.stdout + result.stderr


def test_conllu_passes_uds_validator(odd_docs: List[Doc], tmp_path: Path) -> None:
    path = tmp_path / "odd.conllu"
    n = export.write_conllu(odd_docs, path)
    assert n == sum(1 for doc in odd_docs for _ in export.word_sentences(doc))
    result = ud_validate(path)
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    assert "PASSED" in result.stdout + result.stderr
    # The project's reader (the scorers') takes every sentence back, words only.
    docs = list(read_conllu(path, spacy_lal.load().vocab))
    assert len(docs) == n
    written = [export.sentence_words(sent) for doc in odd_docs for sent in export.word_sentences(doc)]
    for doc, words in zip(docs, written):
        assert len(doc) == len(words)
        assert [t.text for t in doc] == [
            unicodedata.normalize("NFC", " ".join(w.text.split())) for w in words
        ]


def test_conllu_of_the_clear_scheme_is_the_same_ud(odd_docs: List[Doc], tmp_path: Path) -> None:
    # The same parses in spaCy's English scheme (as dependency_scheme = "clear" writes them): the
    # CoNLL-U is still UD's, the same file, so it passes the validator too.
    from spacy_lal.pipeline.parser.clear import set_clear_dependencies

    clear = [Doc(doc.vocab).from_bytes(doc.to_bytes()) for doc in odd_docs]
    for doc in clear:
        if doc.has_annotation("DEP"):
            set_clear_dependencies(doc)
    assert any(t.dep_ == "dobj" for doc in clear for t in doc)
    export.write_conllu(odd_docs, tmp_path / "ud.conllu")
    export.write_conllu(clear, tmp_path / "clear.conllu")
    assert (tmp_path / "clear.conllu").read_text(encoding="utf8") == (tmp_path / "ud.conllu").read_text(encoding="utf8")


def test_ptb_lines_read_back(odd_docs: List[Doc], tmp_path: Path) -> None:
    path = tmp_path / "odd.ptb"
    n = export.write_ptb(odd_docs, path)
    lines = path.read_bytes().decode("utf8").split("\n")
    assert lines[-1] == "" and len(lines) - 1 == n
    written = [export.sentence_words(sent) for doc in odd_docs for sent in export.word_sentences(doc)]
    assert len(written) == n
    for line, words in zip(lines, written):
        tree = Tree.from_string(line)
        assert len(tree) == len(words)
        assert tree.words() == [w.text for w in words]


def test_conll05_props_read_back(odd_docs: List[Doc], tmp_path: Path) -> None:
    props, words_file = tmp_path / "odd.props", tmp_path / "odd.words"
    n = export.write_conll05(odd_docs, props, words=words_file)
    sentences = parse_props(props.read_bytes().decode("utf8"), str(props))
    assert len(sentences) == n
    written = [export.sentence_words(sent) for doc in odd_docs for sent in export.word_sentences(doc)]
    words = [block.split("\n") for block in words_file.read_bytes().decode("utf8").split("\n\n")[:-1]]
    assert [len(w) for w in words] == [len(w) for w in written]
    assert sum(len(frame_rows) for frame_rows in written) == sum(len(w) for w in words)


# The CoNLL-U of some of the odd documents, by hand: per document, its sentences' ids and # text,
# and per word its FORM and MISC (the spacing). The other columns are the pipeline's predictions,
# taken from the Doc (:func:`conllu_word_line`), whatever they are.
CONLLU_BY_HAND = {
    10: [("odd-10", "Hello world.", [("Hello", "_"), ("world", "SpaceAfter=No"), (".", "SpacesAfter=\\s\\s")])],
    11: [("odd-11", "Hi.", [("Hi", "SpaceAfter=No"), (".", "SpacesAfter=\\t")])],
    12: [("odd-12", "Dogs bark.", [("Dogs", "_"), ("bark", "SpaceAfter=No"), (".", "SpacesAfter=\\r")])],
    13: [("odd-13", "Cats meow.",
          [("Cats", "SpacesAfter=\\u3000"), ("meow", "SpaceAfter=No"), (".", "SpacesAfter=\\u3000")])],
    14: [("odd-14-1", "First.", [("First", "SpaceAfter=No"), (".", "SpacesAfter=\\n\\n\\n")]),
         ("odd-14-2", "Second.", [("Second", "SpaceAfter=No"), (".", "SpacesAfter=\\t\\t")])],
    15: [("odd-15", "Leading tab.", [("Leading", "SpacesBefore=\\t"), ("tab", "SpaceAfter=No"), (".", "_")])],
    35: [("odd-35", "|pipe| back\\slash # hash = sign",
          [("|pipe|", "_"), ("back\\slash", "_"), ("#", "_"), ("hash", "_"), ("=", "_"), ("sign", "_")])],
}


def conllu_word_line(number: int, form: str, misc: str, token, words) -> str:
    """A word's line: ID, FORM and MISC as given, the predictions from the token (HEAD: the
    head's number among the sentence's words, 0 for the root; the shipped pipeline's scheme is
    UD, so ``token.head`` is the UD head)."""
    head = 0 if token.head == token else words.index(token.head) + 1
    columns = [str(number), form, token.lemma_ or "_", token.pos_ or "_", token.tag_ or "_",
               str(token.morph) or "_", str(head), token.dep_, "_", misc]
    return "\t".join(columns) + "\n"


def conllu_by_hand(k: int, doc: Doc) -> str:
    out = [f"# newdoc id = odd-{k}\n"]
    sents = list(doc.sents)
    assert len(sents) == len(CONLLU_BY_HAND[k]), [s.text for s in sents]
    for sent, (sent_id, text, rows) in zip(sents, CONLLU_BY_HAND[k]):
        words = [t for t in sent if not t.is_space]
        assert [t.text for t in words] == [form for form, _ in rows]
        out.append(f"# sent_id = {sent_id}\n# text = {text}\n")
        out.extend(conllu_word_line(n, form, misc, t, words) for n, ((form, misc), t) in enumerate(zip(rows, words), 1))
        out.append("\n")
    return "".join(out)


@pytest.mark.parametrize("fmt", ["ptb", "conllu", "conll05", "jsonl"])
def test_parse_corpus_formats_every_odd_document(odd_docs: List[Doc], fmt: str) -> None:
    """parse-corpus formats a batch where it was parsed: no odd document fails there."""
    from spacy_lal.corpus_parse.outputs import ID_KEY, format_docs

    for k, doc in enumerate(odd_docs):
        doc.user_data[ID_KEY] = f"odd-{k}"
    payload = format_docs(odd_docs, fmt)
    if "ids" in payload:
        counts = [int(line.split("\t")[1]) for line in payload["ids"].splitlines()]
        assert sum(counts) == sum(1 for doc in odd_docs for _ in export.word_sentences(doc))
    if fmt == "jsonl":
        assert len(payload["data"].splitlines()) == len(odd_docs)
    if fmt == "conllu":
        data = payload["data"]
        assert set(payload) == {"data"} and data.endswith("\n\n")
        # Every document with a word opens with "# newdoc id = <its id>", the others write
        # nothing; its sentences with words are numbered <id>-1, <id>-2, ... (one: <id>).
        comments = []
        for k, doc in enumerate(odd_docs):
            n = sum(1 for sent in doc.sents if any(not t.is_space for t in sent))
            if n:
                comments.append(f"# newdoc id = odd-{k}")
                comments.extend(f"# sent_id = odd-{k}" + (f"-{j}" if n > 1 else "") for j in range(1, n + 1))
        assert [line for line in data.splitlines() if line.startswith(("# newdoc", "# sent_id"))] == comments
        # Each sentence: its two comments, then one line of ten columns per word (a range line too).
        for block in data[:-2].split("\n\n"):
            lines = [line for line in block.split("\n") if not line.startswith("# newdoc")]
            assert lines[0].startswith("# sent_id = ") and lines[1].startswith("# text = ")
            assert lines[2:] and all(len(line.split("\t")) == 10 for line in lines[2:]), block
        # The documents written by hand, line for line.
        by_doc = {}
        for block in data[:-2].split("\n\n"):
            if block.startswith("# newdoc id = "):
                current = block.split("\n", 1)[0][len("# newdoc id = "):]
            by_doc[current] = by_doc.get(current, "") + block + "\n\n"
        for k in CONLLU_BY_HAND:
            assert by_doc[f"odd-{k}"] == conllu_by_hand(k, odd_docs[k])


def test_whitespace_only_sentences_are_written_nowhere(tmp_path: Path) -> None:
    nlp = spacy_lal.load()
    docs = list(nlp.pipe(["  ", "\t", "\r", "\u3000", "Hi.  ", "First.\n\n\nSecond.\t\t"]))
    texts = {fmt: parse_output.to_text(docs, fmt) for fmt in export.FORMATS}
    # Two texts with words: "Hi." and the two sentences of the last text.
    assert len(texts["ptb"].splitlines()) == 3
    assert texts["conllu"].count("# sent_id") == 3 and texts["conll05"].count("\n\n") == 3
    conllu = texts["conllu"]
    assert "SPACE" not in conllu and "_SP" not in conllu
    # Whitespace is spacing: "Hi." + two spaces; the newlines after "First." and the tabs at the end.
    assert "\tSpacesAfter=\\s\\s\n" in conllu or "SpacesAfter=\\s\\s" in conllu
    assert "SpacesAfter=\\n\\n\\n" in conllu and "SpacesAfter=\\t\\t" in conllu

