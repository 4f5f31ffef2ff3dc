"""parse-corpus on odd input (issue #37): lines end at line feeds only, a line (or a whole-file
document) that is not UTF-8 is a bad record naming its line and byte (issue #50: failed, not
fatal), and documents of whitespace alone are formatted (not failed) in every output format."""
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

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


def bad_records(path: Path, **kwargs):
    (source,) = find_sources(path, **kwargs)
    return [(r.id, r.file, r.line, r.error) for r in source.records() if r.error is not None]


@pytest.mark.parametrize("name", ["bad.txt", "bad.jsonl"])
def test_not_utf8(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b'{"text": "fine"}\n{"text": "caf\xe9"}\n{"text": "fine"}\n')
    why = "not UTF-8 at byte 14 of the line (b'\\xe9'); give UTF-8 text"
    assert bad_records(path) == [(f"{name}:2", str(path), 2, why)]
    assert [r.line for r in find_sources(path)[0].records()] == [1, 2, 3]  # the lines around it are read


def test_whole_file_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_bytes(b"one\ntwo caf\xe9")
    path = str(tmp_path / "docs" / "a.txt")
    why = "not UTF-8 at byte 12 of the file (b'\\xe9'); give UTF-8 text"
    assert bad_records(tmp_path / "docs") == [("a.txt", path, 2, why)]  # the line of the byte


def test_a_file_that_is_no_docbin_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.spacy"
    path.write_bytes(b"not a DocBin")
    with pytest.raises(CorpusFormatError, match=r"bad.spacy: not a .spacy DocBin"):
        records(path)


# What each format gives for the four documents below: three of whitespace alone, one with a
# sentence ("Dogs bark.") and trailing spaces (a whitespace token, a sentence of its own for the
# sentencizer). A blank pipeline: no tags, trees or dependencies.
WHITESPACE_PAYLOADS = {
    "ptb": {"data": "(S (XX Dogs) (XX bark) (XX .))\n", "ids": "doc-0\t0\ndoc-1\t0\ndoc-2\t1\ndoc-3\t0\n"},
    "conll05": {"data": "-\n-\n-\n\n", "ids": "doc-0\t0\ndoc-1\t0\ndoc-2\t1\ndoc-3\t0\n"},
    "conllu": {"data": "# newdoc id = doc-2\n# sent_id = doc-2\n# text = Dogs bark.\n"
                       "1\tDogs\t_\t_\t_\t_\t_\t_\t_\t_\n"
                       "2\tbark\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
                       "3\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n"},
    "jsonl": {"data": (
        '{"id": "doc-0", "meta": {}, "text": "  ", "sentences": [{"start": 0, "end": 1, "tree": null}], '
        '"tokens": [{"i": 0, "text": "  ", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 0, "dep": ""}], "frames": []}\n'
        '{"id": "doc-1", "meta": {}, "text": "\\t", "sentences": [{"start": 0, "end": 1, "tree": null}], '
        '"tokens": [{"i": 0, "text": "\\t", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 0, "dep": ""}], "frames": []}\n'
        '{"id": "doc-2", "meta": {}, "text": "Dogs bark.  ", "sentences": [{"start": 0, "end": 3, "tree": null}, '
        '{"start": 3, "end": 4, "tree": null}], "tokens": [{"i": 0, "text": "Dogs", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 0, "dep": ""}, '
        '{"i": 1, "text": "bark", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 1, "dep": ""}, '
        '{"i": 2, "text": ".", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 2, "dep": ""}, '
        '{"i": 3, "text": " ", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 3, "dep": ""}], "frames": []}\n'
        '{"id": "doc-3", "meta": {}, "text": "\u3000", "sentences": [{"start": 0, "end": 1, "tree": null}], '
        '"tokens": [{"i": 0, "text": "\u3000", "lemma": "", "tag": "", "pos": "", "morph": "", "head": 0, "dep": ""}], "frames": []}\n'
    )},
}


@pytest.mark.parametrize("fmt", ["ptb", "conllu", "conll05", "jsonl", "spacy"])
def test_whitespace_documents_are_formatted(fmt: str) -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    docs = list(nlp.pipe(["  ", "\t", "Dogs bark.  ", "\u3000"]))
    for k, doc in enumerate(docs):
        doc.user_data[ID_KEY] = f"doc-{k}"
    payload = format_docs(docs, fmt)
    if fmt != "spacy":
        assert payload == WHITESPACE_PAYLOADS[fmt]
        return
    # The DocBin: every Doc as it was, its id in user_data, no annotation but the sentences.
    assert set(payload) == {"data"}
    back = list(DocBin().from_bytes(payload["data"]).get_docs(spacy.blank("en").vocab))
    assert [[t.text for t in doc] for doc in back] == [["  "], ["\t"], ["Dogs", "bark", ".", " "], ["\u3000"]]
    assert [[t.whitespace_ for t in doc] for doc in back] == [[""], [""], [" ", "", " ", ""], [""]]
    assert [doc.text for doc in back] == ["  ", "\t", "Dogs bark.  ", "\u3000"]
    assert [doc.user_data for doc in back] == [{"id": f"doc-{k}"} for k in range(4)]
    assert [[t.is_sent_start for t in doc] for doc in back] == [[True], [True], [True, False, False, True], [True]]
    for doc in back:
        assert not any(doc.has_annotation(attr) for attr in ("TAG", "POS", "MORPH", "LEMMA", "DEP", "ENT_IOB"))
        assert doc._.trees == [] and doc._.srl == []
