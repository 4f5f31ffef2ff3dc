"""parse-corpus on bad input (issue #50): every bad record is listed in failed.jsonl with its id,
file, line and reason while the others are parsed into the shards; duplicate ids are refused
before anything is parsed, naming both places; a second run into a folder another run holds
fails at once, naming the folder."""
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_lal.__main__ import main as cli
from spacy_lal.corpus_parse import parse_corpus
from spacy_lal.corpus_parse.manifest import LOCK_FILE, OutputInUseError

from test_parse_corpus import output_docs, small_nlp

NOT_UTF8 = "not UTF-8 at byte {} of the line (b'\\xe9'); give UTF-8 text"
NO_TEXT = "expected a JSON object with a string field 'text', got no 'text'"


def failed_file(out: Path) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in (out / "failed.jsonl").read_text(encoding="utf8").splitlines()]


def test_bad_records_are_failed_and_the_others_parsed(tmp_path: Path) -> None:
    # A JSONL file with one bad record of each kind between good ones, and a text file with a line
    # that is not UTF-8. Shards of 3: bad records fall in shards of their own and in mixed ones.
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_bytes(b"\n".join([
        b'{"id": "g1", "text": "The cat sat."}',
        b'{"id": "x", "text": "bad \\ud800 text"}',  # json.loads accepts it; UTF-8 cannot hold it
        b'{"id": "g2", "text": "A dog barked."}',
        b'{oops',
        b'{"id": "c", "text": "caf\xe9"}',  # not UTF-8: the id is still read
        b'{"id": "n", "title": "no text"}',
        b'',
        b'{"text": "Birds \\ud83d\\ude00 sing.", "lang": "en"}',  # a surrogate pair is fine
        b'{"id": "m", "text": "Meta is bad.", "tags": ["ok", "\\udc00"]}',
    ]) + b"\n")
    text = tmp_path / "lines.txt"
    text.write_bytes(b"First line.\ncaf\xe9 au lait\nThird line.\n")
    summary = parse_corpus([jsonl, text], tmp_path / "out", model=small_nlp, shard_size=3, batch_size=2,
                           progress=False)

    assert (summary.documents, summary.failed, summary.bad_input) == (5, 6, 6)
    # The shards, read back in name order (in-00000, in-00001, in-00002, lines-00000): input order.
    got = [(doc.user_data["id"], doc.text, doc.user_data.get("meta", {}))
           for doc in output_docs(tmp_path / "out", spacy.blank("en"))]
    assert got == [
        ("g1", "The cat sat.", {}), ("g2", "A dog barked.", {}),
        ("in.jsonl:8", "Birds \U0001F600 sing.", {"lang": "en"}), ("lines.txt:1", "First line.", {}), ("lines.txt:3", "Third line.", {}),
    ]
    surrogate = "holds a lone surrogate U+{} at character {} (a \\u escape without its pair): not Unicode text"
    j, t = str(jsonl), str(text)
    assert failed_file(tmp_path / "out") == [
        {"id": "x", "shard": "in-00000", "file": j, "line": 2, "error": "field 'text' " + surrogate.format("D800", 5)},
        {"id": "in.jsonl:4", "shard": "in-00001", "file": j, "line": 4,
         "error": "not valid JSON (Expecting property name enclosed in double quotes at character 2)"},
        {"id": "c", "shard": "in-00001", "file": j, "line": 5, "error": NOT_UTF8.format(25)},
        {"id": "n", "shard": "in-00001", "file": j, "line": 6, "error": NO_TEXT},
        {"id": "m", "shard": "in-00002", "file": j, "line": 9,
         "error": "field 'tags[1]' " + surrogate.format("DC00", 1)},
        {"id": "lines.txt:2", "shard": "lines-00000", "file": t, "line": 2, "error": NOT_UTF8.format(4)},
    ]
    # A rerun finds every shard done (the bad records' shards too) and lists nothing twice.
    again = parse_corpus([jsonl, text], tmp_path / "out", model=small_nlp, shard_size=3, batch_size=2, progress=False)
    assert (again.shards_written, again.shards_skipped, again.documents_skipped) == (0, 4, 11)
    assert len(failed_file(tmp_path / "out")) == 6


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The small pipeline saved, for the command line."""
    path = tmp_path_factory.mktemp("model") / "small"
    small_nlp().to_disk(path)
    return str(path)


def test_duplicate_ids_are_refused_naming_both_places(tmp_path: Path, model: str,
                                                     capsys: pytest.CaptureFixture) -> None:
    a = tmp_path / "a.jsonl"
    a.write_text('{"id": "d1", "text": "One."}\n{"id": "d2", "text": "Two."}\n', encoding="utf8")
    b = tmp_path / "b.jsonl"
    b.write_text('{"id": "d3", "text": "Three."}\n\n{"id": "d2", "text": "Two again."}\n', encoding="utf8")
    out = tmp_path / "out"
    assert cli(["parse-corpus", str(a), str(b), str(out), "--model", model, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err == (f"parse-corpus: duplicate id 'd2': {a}:2 and {b}:3; give every document an id of its own "
                   "(the output keeps them)\n")
    assert not out.exists()  # refused before anything was parsed or written
    # A DocBin's Doc is named by its number; a given id can clash with a default one (file:line).
    docbin = tmp_path / "c.spacy"
    nlp = spacy.blank("en")
    docs = [nlp.make_doc("Four."), nlp.make_doc("Five.")]
    docs[1].user_data["id"] = "d.jsonl:1"
    DocBin(store_user_data=True, docs=docs).to_disk(docbin)
    d = tmp_path / "d.jsonl"
    d.write_text('{"text": "Six."}\n', encoding="utf8")
    with pytest.raises(ValueError) as error:
        parse_corpus([docbin, d], out, model=small_nlp, progress=False)
    assert str(error.value).startswith(f"duplicate id 'd.jsonl:1': {docbin} (Doc 2) and {d}:1; ")
    assert not out.exists()


def test_a_second_run_into_a_locked_folder_fails_at_once(tmp_path: Path, model: str,
                                                         capsys: pytest.CaptureFixture) -> None:
    fcntl = pytest.importorskip("fcntl")  # POSIX

    path = tmp_path / "in.txt"
    path.write_text("One.\nTwo.\n", encoding="utf8")
    out = tmp_path / "out"
    out.mkdir()
    args = ["parse-corpus", str(path), str(out), "--model", model, "--no-progress"]
    with open(out / LOCK_FILE, "w") as held:  # as a run writing to ``out`` holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert cli(args) == 1
        assert capsys.readouterr().err == (
            f"parse-corpus: {out} is in use by another parse-corpus run (it holds {LOCK_FILE} there): two runs "
            "cannot write to one output directory at once; wait for that run to end or write to another directory\n"
        )
        assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]  # nothing touched
        with pytest.raises(OutputInUseError, match=str(out)):
            parse_corpus(path, out, model=small_nlp, progress=False)
    assert cli(args) == 0  # the lock let go
    assert "parsed 2 documents" in capsys.readouterr().out
    # The run let go of it too.
    with open(out / LOCK_FILE, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
