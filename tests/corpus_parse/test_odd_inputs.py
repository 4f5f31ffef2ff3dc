"""parse-corpus on odd input (issue #37): lines end at line feeds only, input that is not
UTF-8 is one error naming the file and line, and documents of whitespace alone are formatted
(not failed) in every output format."""
from pathlib import Path

import pytest
import spacy

from spacy_lal.corpus_parse.inputs import CorpusFormatError, find_sources
from spacy_lal.corpus_parse.outputs import ID_KEY, format_docs


def records(path: Path, **kwargs):
    (source,) = find_sources(path, **kwargs)
    return [(record.id, record.text) for record in source.records()]


def test_lines_end_at_line_feeds(tmp_path: Path) -> None:
    path = tmp_path / "odd.txt"
    path.write_bytes("\ufeffone\r\ntwo\rstill two\u2028and\x0cmore\n\n \t \nthree".encode("utf8"))
    assert records(path) == [
        ("odd.txt:1", "one"),
        ("odd.txt:2", "two\rstill two\u2028and\x0cmore"),
        ("odd.txt:5", "three"),
    ]


@pytest.mark.parametrize("name", ["bad.txt", "bad.jsonl"])
def test_not_utf8(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b'{"text": "fine"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(CorpusFormatError) as error:
        records(path)
    assert str(error.value) == f"{path}, line 2: not UTF-8 at byte 14 of the line (b'\\xe9'); give UTF-8 text"


def test_whole_file_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_bytes(b"caf\xe9")
    with pytest.raises(CorpusFormatError, match=r"a.txt: not UTF-8 at byte 4 of the file"):
        records(tmp_path / "docs")


@pytest.mark.parametrize("fmt", ["ptb", "conllu", "conll05", "jsonl", "spacy"])
def test_whitespace_documents_are_formatted(fmt: str) -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    docs = list(nlp.pipe(["  ", "\t", "Dogs bark.  ", "\u3000"]))
    for k, doc in enumerate(docs):
        doc.user_data[ID_KEY] = f"doc-{k}"
    payload = format_docs(docs, fmt)
    if "ids" in payload:
        assert payload["ids"] == "doc-0\t0\ndoc-1\t0\ndoc-2\t1\ndoc-3\t0\n"
    if fmt == "conllu":
        assert payload["data"].startswith("# newdoc id = doc-2\n# sent_id = doc-2\n# text = Dogs bark.\n")
