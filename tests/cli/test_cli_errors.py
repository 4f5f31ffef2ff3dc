"""Issue #37 for every command: help without reStructuredText markup, a top-level description
that says what the tool does, and every error one line (files that are not UTF-8 named with
their line), never a traceback."""
import argparse
import json
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
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_input_that_is_not_utf8(command: List[str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n" + LATIN1 + b"\n")
    argv = [arg.format(bad=bad, out=tmp_path / "out") for arg in command]
    line = one_error_line(capsys, argv)
    assert f"{bad}, line 2: not UTF-8 at byte 4 of the line" in line


def test_parse_corpus_puts_a_line_that_is_not_utf8_in_failed_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """parse-corpus goes on past a bad record (#50): the line is in failed.jsonl, the rest parsed."""
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Dogs bark.\n" + LATIN1 + b"\n")
    assert cli(["parse-corpus", str(bad), str(tmp_path / "out"), "--no-progress", "--format", "jsonl"]) == 0
    (failure,) = [json.loads(line) for line in (tmp_path / "out" / "failed.jsonl").read_text().splitlines()]
    assert (failure["id"], failure["file"], failure["line"]) == ("bad.txt:2", str(bad), 2)
    assert "not UTF-8 at byte 4 of the line" in failure["error"]
    (shard,) = (tmp_path / "out").glob("bad-*.jsonl")
    assert [json.loads(line)["text"] for line in shard.read_text().splitlines()] == ["Dogs bark."]


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


# -- malformed content (issue #50): files that do not pair, cyclic trees, Docs without the
# annotation a format needs, files cut short. One line naming the file and line (or Doc), exit 1.

TREES = "(TOP (S (NP (NNP John)) (VP (VBD left)) (. .)))\n(TOP (S (NP (NNP Mary)) (VP (VBD came)) (. .)))\n"
CONLLU = (
    "# text = John left.\n"
    "1\tJohn\tJohn\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
    "2\tleft\tleave\tVERB\tVBD\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# text = Mary came.\n"
    "1\tMary\tMary\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
    "2\tcame\tcome\tVERB\tVBD\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
)
PROPS = "-\t(A0*)\nleft\t(V*)\n-\t*\n\n-\t(A0*)\ncame\t(V*)\n-\t*\n\n"
WORDS = "John\nleft\n.\n\nMary\ncame\n.\n\n"
FILES = {
    "gold.mrg": TREES,
    "one.mrg": TREES.splitlines(keepends=True)[0],
    "other_words.mrg": TREES.replace("Mary", "Marie"),
    "gold.conllu": CONLLU,
    "one.conllu": CONLLU.split("\n\n")[0] + "\n\n",
    "other_words.conllu": CONLLU.replace("\tMary\tMary\t", "\tMarie\tMarie\t"),
    # Sentence 2 with Mary <-> came, and "." as its root.
    "cycle.conllu": CONLLU.split("\n\n")[0] + "\n\n"
    + "# text = Mary came.\n"
    "1\tMary\tMary\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
    "2\tcame\tcome\tVERB\tVBD\t_\t1\tccomp\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t0\troot\t_\t_\n\n",
    "cut.conllu": CONLLU[: CONLLU.rindex("3\t.\t.\tPUNCT")],  # cut after "came"
    "gold.props": PROPS,
    "one.props": PROPS.split("\n\n")[0] + "\n\n",
    "short_sentence.props": PROPS[: -len("-\t*\n\n")] + "\n",  # sentence 2 without its third word
    "cut.props": PROPS[: -len("-\t*\n\n")],
    "gold.words": WORDS,
    "cut.words": WORDS[: -len(".\n\n")],  # cut where cut.props is: the two still pair
}


@pytest.fixture
def malformed(tmp_path: Path) -> Path:
    """FILES, a cut CoNLL-2012 file, an EWT tree with a cut skeleton, and a DocBin of two Docs: the
    first with a tree and dependencies, the second with words only; neither has frames."""
    from spacy.tokens import Doc, DocBin
    from spacy.vocab import Vocab

    from spacy_lal.doc.extensions import set_tree

    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf8")
    data = Path(__file__).parents[1] / "data" / "corpora"
    conll12 = (data / "sample.gold_conll").read_text(encoding="utf8").splitlines(keepends=True)
    (tmp_path / "cut.gold_conll").write_text("".join(conll12[:7]), encoding="utf8")
    ud = tmp_path / "ewt" / "ud"
    ud.mkdir(parents=True)
    for split in ("train", "dev", "test"):
        (ud / f"en_ewt-ud-{split}.conllu").write_bytes((data / "ewt" / "ud" / "en_ewt-ud-dev.conllu").read_bytes())
    skeleton = "data/google/ewt/email/00/test01.xml.gold_skel"
    (tmp_path / "ewt" / "propbank" / skeleton).parent.mkdir(parents=True)
    lines = (data / "ewt" / "propbank" / skeleton).read_text(encoding="utf8").splitlines(keepends=True)
    (tmp_path / "ewt" / "propbank" / skeleton).write_text("".join(lines[:14]), encoding="utf8")  # mid-sentence 3
    vocab = Vocab()
    parsed = Doc(vocab, words=["John", "left", "."], heads=[1, 1, 1], deps=["nsubj", "ROOT", "punct"])
    set_tree(parsed[:], [(0, 1, ("NP",)), (1, 2, ("VP",))])
    words_only = Doc(vocab, words=["Mary", "came", "."], sent_starts=[True, False, False])
    DocBin(docs=[parsed, words_only], store_user_data=True).to_disk(tmp_path / "docs.spacy")
    return tmp_path


@pytest.mark.parametrize(
    "command, expected",
    [
        (["score", "trees", "{tmp}/gold.mrg", "{tmp}/one.mrg"],
         "Number of trees differs: 2 gold, 1 test ({tmp}/gold.mrg, line 2: tree 2 has no partner)"),
        (["score", "trees", "{tmp}/gold.mrg", "{tmp}/other_words.mrg"],
         "{tmp}/gold.mrg, line 2 and {tmp}/other_words.mrg, line 2: tree 2: Words unmatch (Mary|Marie)"),
        (["score", "deps", "{tmp}/gold.conllu", "{tmp}/one.conllu"],
         "({tmp}/gold.conllu, line 7; {tmp}/one.conllu: ends after line 4)"),
        (["score", "deps", "{tmp}/other_words.conllu", "{tmp}/gold.conllu"],
         "({tmp}/other_words.conllu, line 7; {tmp}/gold.conllu, line 7)"),
        (["score", "deps", "{tmp}/gold.conllu", "{tmp}/cycle.conllu"],
         "{tmp}/cycle.conllu, sentence at line 7: there is a cycle"),
        (["score", "srl", "{tmp}/gold.props", "{tmp}/one.props"],
         "Number of sentences differs: 2 gold, 1 predicted ({tmp}/gold.props, line 5: sentence 2 has no partner)"),
        (["score", "srl", "{tmp}/short_sentence.props", "{tmp}/gold.props"],
         "{tmp}/short_sentence.props, line 5 and {tmp}/gold.props, line 5: sentence 2: gold and predicted sentences "
         "do not align (2 and 3 words)"),
        (["export", "{tmp}/docs.spacy", "{tmp}/out.mrg", "--format", "ptb"],
         "{tmp}/docs.spacy, Doc 2 of 2, sentence 1: no constituency tree"),
        (["export", "{tmp}/docs.spacy", "{tmp}/out.conllu", "--format", "conllu"],
         "{tmp}/docs.spacy, Doc 2 of 2: no dependency annotation"),
        (["export", "{tmp}/docs.spacy", "{tmp}/out.props", "--format", "conll05"],
         "{tmp}/docs.spacy, no SRL frames in any of its 2 Docs"),
        (["convert", "conllu", "{tmp}/cut.conllu", "{tmp}/out.spacy"],
         "{tmp}/cut.conllu, line 8: the file ends inside a sentence"),
        (["convert", "ud-documents", "{tmp}/cut.conllu", "{tmp}/out.spacy"],
         "{tmp}/cut.conllu, line 8: the file ends inside a sentence"),
        (["convert", "conll05", "{tmp}/cut.props", "{tmp}/out.spacy", "--words", "{tmp}/cut.words"],
         "{tmp}/cut.props, line 6: the file ends inside a sentence"),
        (["convert", "conll12", "{tmp}/cut.gold_conll", "{tmp}/out.spacy"],
         "{tmp}/cut.gold_conll, line 7: the file ends without its '#end document' line"),
        (["convert", "ewt", "--ud", "{tmp}/ewt/ud", "--propbank", "{tmp}/ewt/propbank", "--output", "{tmp}/out"],
         "{tmp}/ewt/propbank/data/google/ewt/email/00/test01.xml.gold_skel, line 14: the file ends inside a sentence"),
    ],
    ids=[
        "trees: tree counts", "trees: words", "deps: a sentence less", "deps: words", "deps: cycle",
        "srl: sentence counts", "srl: sentence lengths", "export ptb: no tree", "export conllu: no heads",
        "export conll05: no frames", "convert conllu: cut", "convert ud-documents: cut",
        "convert conll05: cut", "convert conll12: cut", "convert ewt: cut skeleton",
    ],
)
def test_malformed_content_is_one_line_naming_the_place(
    command: List[str], expected: str, malformed: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = [arg.format(tmp=malformed) for arg in command]
    assert cli(argv) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("error: ") and expected.format(tmp=malformed) in line, line
    assert not (malformed / "out").exists() and not (malformed / "out.spacy").exists()


def test_what_stops_by_default_can_still_be_written_or_scored(malformed: Path, capsys: pytest.CaptureFixture) -> None:
    """EVALB's error sentences (--allow-errors) and the neutral forms of export (--allow-missing)."""
    gold, other = str(malformed / "gold.mrg"), str(malformed / "other_words.mrg")
    assert cli(["score", "trees", "--allow-errors", gold, other]) == 0
    assert "sentence 2: error: Words unmatch (Mary|Marie)" in capsys.readouterr().err
    assert cli(["export", str(malformed / "docs.spacy"), str(malformed / "out.mrg"), "--format", "ptb",
                "--allow-missing"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: write_ptb: 1 of 2 sentences had no constituency tree")
    assert len(err.splitlines()) == 1
    assert (malformed / "out.mrg").read_text(encoding="utf8").splitlines()[1] == "(S (XX Mary) (XX came) (XX .))"
