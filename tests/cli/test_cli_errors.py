"""Issue #37 for every command: help without reStructuredText markup, a top-level description
that says what the tool does, and every error one line (files that are not UTF-8 named with
their line), never a traceback."""
import argparse
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from spacy_lal.__main__ import build_parser
from spacy_lal.__main__ import main as cli
from spacy_lal.cli import error_line, plain, undecodable

LATIN1 = "Caf\u00e9 au lait".encode("latin-1")


def all_parsers(parser: argparse.ArgumentParser, path: Tuple[str, ...] = ()) -> Iterator[Tuple[Tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from all_parsers(sub, path + (name,))


def test_help_has_no_rst_markup() -> None:
    parsers = list(all_parsers(build_parser()))
    assert len(parsers) > 10  # the commands and convert's and score's own
    for path, parser in parsers:
        text = parser.format_help()
        assert "``" not in text and ":func:" not in text and ":mod:" not in text, path


def test_top_level_description_says_what_the_tool_does(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as stop:
        cli(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    usage, description = out.split("\n\n")[:2]
    assert usage.startswith("usage: python -m spacy_lal")
    assert "python -m spacy_lal" not in description  # not the usage line again
    for words in ("constituency trees", "dependencies", "semantic roles", "CoNLL-U"):
        assert words in description


def test_plain() -> None:
    assert plain("``--format`` and :func:`spacy_lal.load` and :mod:`~x.y`") == "`--format` and `spacy_lal.load` and `x.y`"
    assert plain(None) is None


def test_error_line_names_the_file_and_line_that_is_not_utf8(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("fine\n", encoding="utf8")
    bad.write_bytes(b"first line\nsecond " + LATIN1 + b"\n")
    assert undecodable([None, tmp_path, good]) is None
    try:
        bad.read_text(encoding="utf8")
    except UnicodeDecodeError as error:
        line = error_line(error, [good, bad])
    assert line == f"{bad}, line 2: not UTF-8 at byte 11 of the line (b'\\xe9'); give UTF-8 text"
    assert error_line(FileNotFoundError(2, "No such file or directory", "x.conllu")) == "x.conllu: No such file or directory"
    assert error_line(ValueError("two\n  lines")) == "two lines"


def one_error_line(capsys: pytest.CaptureFixture, argv: List[str]) -> str:
    assert cli(argv) != 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (line,) = captured.err.strip().splitlines()
    return line


@pytest.mark.parametrize(
    "command",
    [
        ["convert", "conllu", "{bad}", "{out}.spacy"],
        ["convert", "ptb", "{bad}", "{out}.spacy"],
        ["score", "trees", "{bad}", "{bad}"],
        ["score", "deps", "{bad}", "{bad}"],
        ["score", "srl", "{bad}", "{bad}"],
        ["behaviour", "--data", "{bad}"],
        ["parse-corpus", "{bad}", "{out}", "--no-progress"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_input_that_is_not_utf8(command: List[str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n" + LATIN1 + b"\n")
    argv = [arg.format(bad=bad, out=tmp_path / "out") for arg in command]
    line = one_error_line(capsys, argv)
    assert f"{bad}, line 2: not UTF-8 at byte 4 of the line" in line


def test_missing_and_wrong_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "missing.spacy"
    assert one_error_line(capsys, ["export", str(missing), str(tmp_path / "o"), "--format", "ptb"]) == (
        f"error: {missing}: No such file or directory"
    )
    text = tmp_path / "text.spacy"
    text.write_text("not a DocBin\n", encoding="utf8")
    assert "DocBin" in one_error_line(capsys, ["export", str(text), str(tmp_path / "o"), "--format", "conllu"])


def test_an_unexpected_error_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    import spacy_lal.cli.vectors as vectors

    def boom(args: argparse.Namespace) -> int:
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(vectors, "main", boom)
    monkeypatch.delenv("SPACY_LAL_TRACEBACK", raising=False)
    line = one_error_line(capsys, ["vectors", "out"])
    assert line == "vectors: unexpected error: RuntimeError: something broke (SPACY_LAL_TRACEBACK=1 shows the traceback)"
    monkeypatch.setenv("SPACY_LAL_TRACEBACK", "1")
    with pytest.raises(RuntimeError):
        cli(["vectors", "out"])
