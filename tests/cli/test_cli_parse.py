"""``python -m spacy_lal parse`` end to end: every --format, every input source, bad input.

The pipeline is a tiny lal_parser + lal_srl overfitted on the parser and SRL sentences of
conftest.py, so that the parse of a training sentence is known exactly: the parser's on
"The cat sat on the mat ." and the role labeller's on "Mary borrowed a book ...". Each
component only saw its own data, so the other half of such a parse is arbitrary (but present).
"""
import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Tuple

import pytest
import spacy
from spacy.util import fix_random_seed

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.__main__ import main as cli
from spacy_lal.cli.parse import FORMATS
from spacy_lal.corpora.conll05 import read_conll05
from spacy_lal.corpora.conllu import read_conllu
from spacy_lal.corpora.ptb import read_trees
from spacy_lal.doc.tree import Tree
from spacy_lal.pretrained import shipped_pipelines

# Training sentences of the parser (CAT, DOGS) and of the role labeller (MARY): their gold
# annotation comes from the fixtures below.
CAT = "The cat sat on the mat ."
CAT_WORDS = CAT.split()
MARY = "Mary borrowed a book from John yesterday ."
MARY_WORDS = MARY.split()
MARY_ROLES = "[ARG0 Mary] [V borrowed] [ARG1 a book] [ARG2 from John] [ARGM-TMP yesterday] ."
DOGS = "Dogs bark ."


def parser_gold(parser_sentences, words: List[str]) -> SimpleNamespace:
    """The parser sentence of these words: its tree, heads (1-based, 0 = root) and deprels."""
    ((tree, heads, deps),) = [s for s in parser_sentences if Tree.from_string(s[0]).words() == words]
    return SimpleNamespace(tree=tree, heads=heads, deps=deps)


@pytest.fixture(scope="module")
def cat_gold(parser_sentences) -> SimpleNamespace:
    return parser_gold(parser_sentences, CAT_WORDS)


@pytest.fixture(scope="module")
def dogs_heads(parser_sentences) -> List[int]:
    return parser_gold(parser_sentences, DOGS.split()).heads


@pytest.fixture(scope="module")
def mary_frames(srl_sentences) -> list:
    """(predicate, sense, arguments) as Frame.data gives them."""
    (frames,) = [frames for words, frames in srl_sentences if words == MARY_WORDS]
    return [(p, sense, tuple(args)) for p, sense, args in frames]


# 40 steps at this rate overfit both components' sentences in a few seconds (the component
# tests take 120-150 steps at 0.003-0.005, with more checks of their own to run).
N_STEPS = 40
LEARN_RATE = 0.01


@pytest.fixture(scope="module")
def pipeline(
    tmp_path_factory: pytest.TempPathFactory, tiny_parser, tiny_srl, parser_examples, srl_examples
) -> Path:
    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("lal_parser", config={"model": tiny_parser})
    nlp.add_pipe("lal_srl", config={"model": tiny_srl, "predicates": "predicted"})
    parser_egs = parser_examples(nlp)
    srl_egs = srl_examples(nlp.vocab)
    # Each component reads its labels from the examples carrying its annotation and skips the rest.
    optimizer = nlp.initialize(lambda: parser_egs + srl_egs)
    optimizer.learn_rate = LEARN_RATE
    for _ in range(N_STEPS):
        # Each component is trained on its own data only: the other's gold Docs lack its annotation.
        nlp.update(parser_egs, sgd=optimizer, exclude=["lal_srl"])
        nlp.update(srl_egs, sgd=optimizer, exclude=["lal_parser"])
    path = tmp_path_factory.mktemp("cli_parse") / "pipeline"
    nlp.to_disk(path)
    return path


def parse(capsys: pytest.CaptureFixture, pipeline: Path, fmt: str, *inputs: str) -> str:
    """stdout of a successful ``parse``; ``inputs``: the text argument and/or --file."""
    assert cli(["parse", *inputs, "--model", str(pipeline), "--format", fmt]) == 0
    return capsys.readouterr().out


def zero_based_heads(heads: List[int]) -> List[int]:
    """1-based heads (0 = root) -> token indices, a root being its own head as in spaCy."""
    return [i if head == 0 else head - 1 for i, head in enumerate(heads)]


# -- readers of the output formats -------------------------------------------------------------


def text_blocks(out: str) -> List[Dict[str, List[str]]]:
    """--format text: per sentence, its lines by section ("header", "tree", "dependencies", "roles")."""
    blocks: List[Dict[str, List[str]]] = []
    section = "header"
    for line in out.splitlines():
        if line.startswith("# line "):  # a record's header (file and standard input)
            continue
        if line.startswith("# sentence "):
            blocks.append({"header": [line]})
            section = "header"
        elif line and not line.startswith(" ") and line.endswith(":"):
            section = line[:-1]
            assert section not in blocks[-1], f"section {section!r} twice in a block"
            blocks[-1][section] = []
        elif line.strip():
            blocks[-1][section].append(line)
    return blocks


def dependency_rows(lines: List[str]) -> List[Tuple[int, str, str, int]]:
    """(id, word, deprel, head id with 0 = root) of each row of the dependency table."""
    rows = []
    for line in lines:
        number, word, dep, arrow, *head = line.split()
        assert arrow == "<-", line
        if head == ["ROOT"]:
            rows.append((int(number), word, dep, 0))
        else:
            head_id, head_word = head
            rows.append((int(number), word, dep, int(head_id)))
    # The head's word is printed too: it must be the word of that row.
    words = {number: word for number, word, _, _ in rows}
    for line, (_, _, _, head_id) in zip(lines, rows):
        if head_id:
            assert line.split()[-1] == words[head_id], line
    return rows


def conllu_sentences(out: str) -> List[Tuple[List[str], List[List[str]]]]:
    """(comment lines, token rows split at tabs) per sentence."""
    sentences: List[Tuple[List[str], List[List[str]]]] = []
    comments: List[str] = []
    rows: List[List[str]] = []
    for line in out.split("\n"):
        if not line:
            if comments or rows:
                sentences.append((comments, rows))
            comments, rows = [], []
        elif line.startswith("#"):
            comments.append(line)
        else:
            rows.append(line.split("\t"))
    assert not comments and not rows, "the last sentence is not closed by a blank line"
    return sentences


def check_conllu_sentence(rows: List[List[str]], words: List[str]) -> List[int]:
    """Assert the CoNLL-U well-formedness of one sentence; returns its heads (1-based)."""
    assert all(len(row) == 10 for row in rows), rows
    assert [row[0] for row in rows] == [str(i) for i in range(1, len(rows) + 1)]
    assert [row[1] for row in rows] == words
    heads = [int(row[6]) for row in rows]
    assert all(0 <= head <= len(rows) for head in heads)
    assert heads.count(0) == 1
    return heads


def props_sentences(out: str) -> List[List[List[str]]]:
    """CoNLL-2005 props: per sentence, the tab-separated cells of each word."""
    blocks = out.split("\n\n")
    assert blocks[-1] == "", "the props must end with a blank line"
    return [[line.split("\t") for line in block.split("\n")] for block in blocks[:-1]]


def frames_of(doc: Any) -> List[Tuple[int, Any, Tuple[Tuple[int, int, str], ...]]]:
    return [(frame.predicate.i, frame.sense, frame.data.arguments) for frame in doc._.srl]


def read_back_conll05(props: str, texts: List[str], tmp_path: Path) -> List[Any]:
    """The props read by the project's CoNLL-2005 reader, with a words file made from ``texts``."""
    (tmp_path / "out.props").write_text(props, encoding="utf8")
    words = "".join("\n".join(text.split()) + "\n\n" for text in texts)
    (tmp_path / "out.words").write_text(words, encoding="utf8")
    return list(read_conll05(tmp_path / "out.props", spacy.blank("en").vocab, words=tmp_path / "out.words"))


# -- formats -----------------------------------------------------------------------------------


def test_text_format(pipeline: Path, capsys: pytest.CaptureFixture, cat_gold) -> None:
    (cat,) = text_blocks(parse(capsys, pipeline, "text", CAT))
    assert cat["header"] == [f"# sentence 1: {CAT}"]
    tree = Tree.from_string(" ".join(cat["tree"]))
    assert tree.words() == CAT_WORDS
    # No tagger in the pipeline: the labelled spans are what the parser decides.
    assert tree.to_spans() == Tree.from_string(cat_gold.tree).to_spans()
    assert dependency_rows(cat["dependencies"]) == [
        (i, word, dep, head) for i, (word, dep, head) in enumerate(zip(CAT_WORDS, cat_gold.deps, cat_gold.heads), start=1)
    ]

    (mary,) = text_blocks(parse(capsys, pipeline, "text", MARY))
    assert list(mary) == ["header", "tree", "dependencies", "roles"]
    assert Tree.from_string(" ".join(mary["tree"])).words() == MARY_WORDS
    rows = dependency_rows(mary["dependencies"])
    assert [word for _, word, _, _ in rows] == MARY_WORDS
    assert [head for _, _, _, head in rows].count(0) == 1
    assert mary["roles"] == [f"  borrowed (borrow.01): {MARY_ROLES}"]


def test_json_format(pipeline: Path, capsys: pytest.CaptureFixture, cat_gold, mary_frames) -> None:
    (line,) = parse(capsys, pipeline, "json", CAT).splitlines()
    cat = json.loads(line)
    assert set(cat) == {"text", "sentences", "tokens", "frames"}
    assert cat["text"] == CAT
    (sentence,) = cat["sentences"]
    assert (sentence["start"], sentence["end"]) == (0, len(CAT_WORDS))
    tree = Tree.from_string(sentence["tree"])
    assert tree.words() == CAT_WORDS and tree.to_spans() == Tree.from_string(cat_gold.tree).to_spans()
    assert [t["i"] for t in cat["tokens"]] == list(range(len(CAT_WORDS)))
    assert [t["text"] for t in cat["tokens"]] == CAT_WORDS
    assert [t["head"] for t in cat["tokens"]] == zero_based_heads(cat_gold.heads)
    assert [t["dep"] for t in cat["tokens"]] == cat_gold.deps
    # Lemma, UPOS and morphology as the pipeline gives them (#50: the records lacked them).
    doc = spacy.load(pipeline)(CAT)
    assert [(t["lemma"], t["tag"], t["pos"], t["morph"]) for t in cat["tokens"]] == [
        (t.lemma_, t.tag_, t.pos_, str(t.morph)) for t in doc
    ]

    (line,) = parse(capsys, pipeline, "json", MARY).splitlines()
    mary = json.loads(line)
    assert [t["text"] for t in mary["tokens"]] == MARY_WORDS
    assert Tree.from_string(mary["sentences"][0]["tree"]).words() == MARY_WORDS
    frames = [
        (f["predicate"], f["sense"], tuple((a["start"], a["end"], a["label"]) for a in f["arguments"]))
        for f in mary["frames"]
    ]
    assert frames == mary_frames
    (frame,) = mary["frames"]
    assert frame["text"] == MARY_ROLES
    assert [a["text"] for a in frame["arguments"]] == [
        " ".join(MARY_WORDS[a["start"] : a["end"]]) for a in frame["arguments"]
    ]


def test_ptb_format(pipeline: Path, capsys: pytest.CaptureFixture, cat_gold) -> None:
    out = parse(capsys, pipeline, "ptb", CAT)
    assert len(out.splitlines()) == 1  # one tree per line, for EVALB
    (tree,) = read_trees(out)
    assert tree.words() == CAT_WORDS
    assert tree.to_spans() == Tree.from_string(cat_gold.tree).to_spans()
    (tree,) = read_trees(parse(capsys, pipeline, "ptb", MARY))
    assert tree.words() == MARY_WORDS


@pytest.mark.parametrize("fmt", ["ptb", "text", "json"])
def test_whitespace_tokens_are_no_words_of_the_printed_tree(pipeline: Path, capsys: pytest.CaptureFixture, fmt: str) -> None:
    out = parse(capsys, pipeline, fmt, "Hello.\n\nWorld.")
    assert "(_SP" not in out and " __)" not in out
    if fmt == "ptb":
        assert [word for tree in read_trees(out) for word in tree.words()] == ["Hello", ".", "World", "."]


def test_conllu_format(pipeline: Path, capsys: pytest.CaptureFixture, tmp_path: Path, cat_gold) -> None:
    out = parse(capsys, pipeline, "conllu", CAT)
    ((comments, rows),) = conllu_sentences(out)
    assert f"# text = {CAT}" in comments
    assert check_conllu_sentence(rows, CAT_WORDS) == cat_gold.heads
    assert [row[7] for row in rows] == cat_gold.deps
    # The project's reader (the one the scorers use) takes it back unchanged.
    (tmp_path / "out.conllu").write_text(out, encoding="utf8")
    (doc,) = read_conllu(tmp_path / "out.conllu", spacy.blank("en").vocab)
    assert [t.text for t in doc] == CAT_WORDS
    assert [t.head.i for t in doc] == zero_based_heads(cat_gold.heads)
    assert [t.dep_ for t in doc] == cat_gold.deps

    ((_, rows),) = conllu_sentences(parse(capsys, pipeline, "conllu", MARY))
    check_conllu_sentence(rows, MARY_WORDS)


def test_conll05_format(pipeline: Path, capsys: pytest.CaptureFixture, tmp_path: Path, mary_frames) -> None:
    props = parse(capsys, pipeline, "conll05", MARY)
    (cells,) = props_sentences(props)
    assert len(cells) == len(MARY_WORDS)
    # First column: the predicate's lemma (of borrow.01) on its row, "-" elsewhere, as in CoNLL-2005;
    # then one column per predicate.
    assert [row[0] for row in cells] == ["borrow" if i == 1 else "-" for i in range(len(MARY_WORDS))]
    assert all(len(row) == 2 for row in cells)
    (doc,) = read_back_conll05(props, [MARY], tmp_path)
    assert [t.text for t in doc] == MARY_WORDS
    # The props format carries no sense, only the lemma.
    assert frames_of(doc) == [(p, None, args) for p, _, args in mary_frames]
    assert doc[1].lemma_ == "borrow"


# -- input sources -----------------------------------------------------------------------------

LINES = f"{CAT}\n\n{MARY}\n   \n{DOGS}"  # blank and whitespace-only lines; no final newline
TEXTS = [CAT, MARY, DOGS]
LINE_TEXTS = [CAT, "", MARY, "   ", DOGS]  # one record per line, blank ones included


def check_json_records(out: str, cat_gold: SimpleNamespace, dogs_heads: List[int]) -> None:
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["text"] for r in records] == LINE_TEXTS
    cat, blank, mary, spaces, dogs = records
    assert blank["sentences"] == blank["tokens"] == blank["frames"] == []
    assert all(s["tree"] is None for s in spaces["sentences"]) and spaces["frames"] == []
    assert [t["head"] for t in cat["tokens"]] == zero_based_heads(cat_gold.heads)
    assert [t["head"] for t in dogs["tokens"]] == zero_based_heads(dogs_heads)
    assert [(f["predicate"], f["sense"]) for f in mary["frames"]] == [(1, "borrow.01")]


def test_file_gives_one_record_per_line(
    pipeline: Path, capsys: pytest.CaptureFixture, tmp_path: Path, cat_gold, dogs_heads, mary_frames,
) -> None:
    path = tmp_path / "input.txt"
    path.write_text(LINES, encoding="utf8")
    check_json_records(parse(capsys, pipeline, "json", "--file", str(path)), cat_gold, dogs_heads)

    out = parse(capsys, pipeline, "text", "--file", str(path))
    headers = [line for line in out.splitlines() if line.startswith("# line ")]
    assert headers == ["# line 1", "# line 2: blank", "# line 3", "# line 4: blank", "# line 5"]
    blocks = text_blocks(out)
    assert [block["header"] for block in blocks] == [[f"# sentence 1: {text}"] for text in TEXTS]
    assert all("tree" in block and "dependencies" in block for block in blocks)

    # One tree a line, an empty line for a blank input line: the lines stay the input's.
    out = parse(capsys, pipeline, "ptb", "--file", str(path))
    lines = out.split("\n")
    assert lines[-1] == "" and [bool(line) for line in lines[:-1]] == [True, False, True, False, True]
    (cat, mary, dogs) = read_trees(out)
    assert [cat.words(), mary.words(), dogs.words()] == [text.split() for text in TEXTS]

    # CoNLL-U has no empty sentence: the ids name the line each sentence comes from.
    sentences = conllu_sentences(parse(capsys, pipeline, "conllu", "--file", str(path)))
    assert [comments for comments, _ in sentences] == [
        [f"# newdoc id = line-{n}", f"# sent_id = line-{n}", f"# text = {text}"] for n, text in zip((1, 3, 5), TEXTS)
    ]
    for (_, rows), text in zip(sentences, TEXTS):
        check_conllu_sentence(rows, text.split())

    # The props: a block per sentence, an empty line for a blank input line.
    props = parse(capsys, pipeline, "conll05", "--file", str(path))
    first, second, third = props.split("\n\n\n")  # two blocks of no rows: one more blank line each
    cells = [props_sentences(first + "\n\n"), props_sentences(second + "\n\n"), props_sentences(third)]
    for ((rows,), text) in zip(cells, TEXTS):
        n_predicates = sum(row[0] != "-" for row in rows)
        assert len(rows) == len(text.split()) and all(len(row) == 1 + n_predicates for row in rows)
    docs = read_back_conll05(props.replace("\n\n\n", "\n\n"), TEXTS, tmp_path)
    assert [[t.text for t in doc] for doc in docs] == [text.split() for text in TEXTS]
    assert frames_of(docs[1]) == [(p, None, args) for p, _, args in mary_frames]


def test_file_lines_end_at_line_feeds_only(pipeline: Path, capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """CRLF ends a line; a lone carriage return, U+2028 or a form feed inside a line do not."""
    path = tmp_path / "input.txt"
    path.write_bytes(f"{CAT}\r\nDogs\rbark .\u2028\x0c\n{MARY}".encode("utf8"))
    records = [json.loads(line) for line in parse(capsys, pipeline, "json", "--file", str(path)).splitlines()]
    assert [r["text"] for r in records] == [CAT, "Dogs\rbark .\u2028\x0c", MARY]


def test_file_that_is_not_utf8(pipeline: Path, capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(f"{CAT}\n".encode("utf8") + "Caf\u00e9 au lait .\n".encode("latin-1"))
    assert cli(["parse", "--file", str(path), "--model", str(pipeline)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"parse: cannot read --file {path}: not UTF-8 at line 2, byte 4 of the line")
    assert "Traceback" not in captured.err


def test_text_argument_that_is_not_utf8(pipeline: Path, capsys: pytest.CaptureFixture) -> None:
    # What Python makes of argv bytes that are not UTF-8 (surrogateescape).
    assert cli(["parse", "Caf\udce9 .", "--model", str(pipeline)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == "parse: the TEXT argument is not valid UTF-8"


@pytest.mark.parametrize("text_argument", [[], ["-"]], ids=["no-argument", "dash"])
def test_standard_input(
    pipeline: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, text_argument: List[str], cat_gold, dogs_heads,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(LINES + "\n"))
    check_json_records(parse(capsys, pipeline, "json", *text_argument), cat_gold, dogs_heads)


def test_text_argument_wins_over_standard_input(
    pipeline: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{MARY}\n"))
    (line,) = parse(capsys, pipeline, "json", CAT).splitlines()
    assert json.loads(line)["text"] == CAT


# -- errors and awkward input ------------------------------------------------------------------


class UnreadableStdin(io.StringIO):
    def __iter__(self) -> Any:
        raise AssertionError("standard input was read before the model was loaded")


@pytest.mark.parametrize("kind", ["empty directory", "missing path", "package name"])
def test_model_that_is_not_a_pipeline(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind == "empty directory":
        model = tmp_path / "not_a_pipeline"
        model.mkdir()
        (model / "notes.txt").write_text("not a pipeline\n", encoding="utf8")
    elif kind == "missing path":
        model = tmp_path / "no" / "such" / "pipeline"
    else:
        model = Path("no_such_lal_pipeline_package")
    # A bad --model is reported at once, not after the user has typed the texts in.
    monkeypatch.setattr(sys, "stdin", UnreadableStdin())
    assert cli(["parse", "--model", str(model)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert f"cannot load the pipeline {str(model)!r}" in captured.err
    assert "saved spaCy pipeline" in captured.err
    for name in shipped_pipelines() or ["none installed"]:
        assert name in captured.err


@pytest.mark.parametrize("text", [CAT, "-"], ids=["text", "dash"])
def test_text_and_file_together_are_refused(
    text: str, pipeline: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "input.txt"
    path.write_text(f"{MARY}\n", encoding="utf8")
    monkeypatch.setattr(sys, "stdin", UnreadableStdin())
    assert cli(["parse", text, "--file", str(path), "--model", str(pipeline)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("parse: give either ") and f"or --file {path}, not both" in line
    # Refused before the model is loaded: a missing model is not what gets reported.
    assert cli(["parse", text, "--file", str(path), "--model", str(tmp_path / "no_model")]) == 1
    assert "not both" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["missing directory", "directory is a file", "path is a directory"])
def test_render_path_is_checked_before_parsing(
    where: str, pipeline: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    if where == "missing directory":
        target, reason = tmp_path / "no" / "such" / "x.html", f"the directory {tmp_path / 'no' / 'such'} does not exist"
    elif where == "directory is a file":
        (tmp_path / "plain").write_text("", encoding="utf8")
        target, reason = tmp_path / "plain" / "x.html", f"the directory {tmp_path / 'plain'} is not a directory"
    else:
        target, reason = tmp_path, "it is a directory, give the path of a file"
    assert cli(["parse", CAT, "--model", str(pipeline), "--render", str(target)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing was parsed
    assert captured.err.strip() == f"parse: cannot write --render {target}: {reason}"
    assert not (tmp_path / "no").exists()


def test_missing_file(pipeline: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "missing.txt"
    assert cli(["parse", "--file", str(missing), "--model", str(pipeline)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert f"cannot read --file {missing}" in captured.err


# An empty or whitespace-only text has no words: exporting it would invent a tree or a sentence,
# so every format refuses it with one line on stderr and prints nothing.
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("text", ["", "   ", " \t "])
def test_blank_text(pipeline: Path, capsys: pytest.CaptureFixture, fmt: str, text: str) -> None:
    assert cli(["parse", text, "--model", str(pipeline), "--format", fmt]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == "parse: nothing to parse: the input is empty or only whitespace"


def test_blank_stdin(pipeline: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n  \n\t\n"))
    assert cli(["parse", "--model", str(pipeline)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "nothing to parse" in captured.err
