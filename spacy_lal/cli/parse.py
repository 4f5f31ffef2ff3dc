"""`python -m spacy_lal parse`: parse text and show trees, dependencies and semantic roles.

    python -m spacy_lal parse "The cat sat on the mat."
    python -m spacy_lal parse "The cat sat on the mat." --model training/lal_parser/model-best
    echo "Dogs bark." | python -m spacy_lal parse --model PIPELINE --format conllu
    python -m spacy_lal parse --file input.txt --model PIPELINE --format json
    python -m spacy_lal parse --file input.txt --model PIPELINE --render parses.html

Each line of a file or of standard input is one text (lines end at a line feed; a carriage
return before it is dropped, one inside a line is whitespace of the text), and each line gives
one record of output, blank lines included, in order: `--format text` (the default) prints
`# line N` and then, per sentence, the indented tree, a dependency table and the role frames
(`# line N: blank` for a blank line); `json` prints one object a line, one line per input line;
`ptb`, `conllu` and `conll05` print what `python -m spacy_lal export` writes: the trees one a
line and the props as sentences, a blank input line giving an empty line in both, and CoNLL-U
with `# newdoc id = line-N` and `# sent_id = line-N` (`line-N-K` for the K-th sentence of a
line), a blank line giving no sentence (CoNLL-U has no empty sentence). A sentence of
whitespace alone is written in none of these three formats. The input must be UTF-8.
`--render` also writes an HTML page drawing each sentence's tree and dependencies (displaCy style).
"""
import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, List, Optional, Union

from ..pretrained import DEFAULT_PIPELINE, shipped_pipelines

FORMATS = ("text", "json", "ptb", "conllu", "conll05")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "parse",
        help="parse text and print trees, dependencies and roles",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("text", nargs="?", help="text to parse (default: read standard input)")
    parser.add_argument("--file", type=Path, help="read texts from this file, one per line (instead of TEXT)")
    parser.add_argument(
        "--model",
        default=DEFAULT_PIPELINE,
        help=f"pipeline: a shipped one ({DEFAULT_PIPELINE}, the default), a path or an installed package name",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument(
        "--render", type=Path, metavar="PATH", help="also write an HTML page of trees and dependencies to PATH"
    )
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import spacy

    import spacy_lal

    # Arguments that cannot work are refused before the model is loaded and anything is parsed.
    problem = _argument_problem(args)
    if problem is not None:
        print(f"parse: {problem}", file=sys.stderr)
        return 1
    # Load first: a bad --model should not wait for standard input to be typed in.
    try:
        nlp = spacy_lal.load(args.model) if args.model in shipped_pipelines() else spacy.load(args.model)
    except OSError as error:
        # spaCy's own message (E050/E053) names neither our shipped pipelines nor what --model takes.
        shipped = ", ".join(shipped_pipelines()) or "none installed"
        print(
            f"parse: cannot load the pipeline {args.model!r} ({_one_line(error)}); "
            f"--model takes a shipped pipeline ({shipped}), the directory of a saved spaCy pipeline "
            "or the name of an installed pipeline package.",
            file=sys.stderr,
        )
        return 1
    try:
        texts = _read_texts(args)
    except (OSError, ValueError) as error:
        print(f"parse: {_one_line(error)}", file=sys.stderr)
        return 1
    if not any(text.strip() for text in texts):
        # A whitespace-only text has no words to parse; exporting it would invent a tree.
        print("parse: nothing to parse: the input is empty or only whitespace", file=sys.stderr)
        return 1
    records = args.text is None or args.text == "-"  # one record per line of a file or stdin
    docs = list(nlp.pipe(texts))
    if args.format == "text":
        for number, doc in enumerate(docs, start=1):
            if records:
                print(f"# line {number}" + ("" if doc.text.strip() else ": blank"))
            if doc.text.strip():
                print(format_doc(doc))
    elif args.format == "json":
        from ..corpora.parse_output import doc_to_json, json_line

        for doc in docs:
            print(json_line(doc_to_json(doc)))
    else:
        print(_sentence_format(docs, args.format, records), end="")
    if args.render is not None:
        from ..render import render

        try:
            page = render(docs, page=True, jupyter=False)
        except ValueError as error:
            print(f"--render: {error}", file=sys.stderr)
            return 1
        try:
            args.render.write_text(page, encoding="utf8")
        except OSError as error:  # checked before parsing, but the file system may have changed since
            print(f"parse: cannot write --render {args.render}: {_one_line(error)}", file=sys.stderr)
            return 1
        print(f"wrote the parse pictures to {args.render}", file=sys.stderr)
    return 0


def _argument_problem(args: argparse.Namespace) -> Optional[str]:
    """Why the arguments cannot work together, or None."""
    if args.text is not None and args.file is not None:
        source = "standard input ('-')" if args.text == "-" else "a TEXT argument"
        return f"give either {source} or --file {args.file}, not both"
    if args.render is not None:
        return _unwritable(args.render, "--render")
    return None


def _unwritable(path: Path, option: str) -> Optional[str]:
    """Why ``path`` cannot be written as a file, or None (its directory must exist: not created)."""
    directory = path.parent
    if path.is_dir():
        return f"cannot write {option} {path}: it is a directory, give the path of a file"
    if not directory.is_dir():
        missing = "is not a directory" if directory.exists() else "does not exist"
        return f"cannot write {option} {path}: the directory {directory} {missing}"
    if not os.access(path if path.exists() else directory, os.W_OK):
        return f"cannot write {option} {path}: {'the file' if path.exists() else 'its directory'} is not writable"
    return None


def _read_texts(args: argparse.Namespace) -> List[str]:
    """The texts: the TEXT argument, or one per line of --file or standard input (blank lines
    kept). Raises OSError when the file cannot be read, ValueError (one line) when the input is
    not UTF-8."""
    if args.text is not None and args.text != "-":
        if _SURROGATE.search(args.text):  # the shell passed bytes that are not UTF-8
            raise ValueError("the TEXT argument is not valid UTF-8")
        return [args.text]
    if args.file is not None:
        try:
            data = args.file.read_bytes()
        except OSError as error:
            raise OSError(f"cannot read --file {args.file}: {_one_line(error)}") from None
        return _split_lines(data, f"--file {args.file}")
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream without bytes beneath (tests, embedding)
        return _split_lines(sys.stdin.read(), "standard input")
    return _split_lines(buffer.read(), "standard input")


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _split_lines(data: Union[bytes, str], name: str) -> List[str]:
    """The lines of ``data`` (UTF-8 bytes, a byte-order mark dropped), split at line feeds only,
    a carriage return before the line feed dropped; no last empty line after a final line feed."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
            raise ValueError(
                f"cannot read {name}: not UTF-8 at line {line}, byte {column} of the line (byte offset "
                f"{error.start} of the input: {data[error.start:error.start + 1]!r}); give UTF-8 text"
            ) from None
    else:
        text = data
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _sentence_format(docs: List[Any], fmt: str, records: bool) -> str:
    """What ``export`` writes for ``docs`` in ``fmt`` (ptb, conllu, conll05), one record per Doc
    when ``records``: CoNLL-U ids naming the line, an empty line for a Doc without sentences in
    the PTB and props output (see the module docstring)."""
    from ..corpora.export import word_sentences
    from ..corpora.parse_output import to_text

    if not records:
        return to_text(docs, fmt)
    if fmt == "conllu":
        for number, doc in enumerate(docs, start=1):
            doc.user_data["doc_id"] = doc.user_data["sent_id"] = f"line-{number}"
        return to_text(docs, fmt)
    text = to_text(docs, fmt)
    # One piece per sentence: a tree line, or a props block (rows and the blank line after them).
    if fmt == "ptb":
        pieces = [line + "\n" for line in text.split("\n")[:-1]]
    else:
        pieces = [block + "\n\n" for block in text.split("\n\n")[:-1]]
    out: List[str] = []
    position = 0
    for doc in docs:
        count = sum(1 for _ in word_sentences(doc))
        out.extend(pieces[position:position + count] if count else ["\n"])
        position += count
    return "".join(out)


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def format_tree(tree: Any, indent: int = 0) -> str:
    """A tree over several lines: a constituent whose leaves all fit on one line stays on one."""
    pad = "  " * indent
    one_line = tree.to_string()
    if tree.is_preterminal or len(one_line) + len(pad) <= 80:
        return pad + one_line
    inner = "\n".join(format_tree(child, indent + 1) for child in tree.children)
    return f"{pad}({tree.label}\n{inner})"


def format_doc(doc: Any) -> str:
    from ..corpora.export import sentence_words, word_sentences
    from ..corpora.parse_output import sentence_tree

    blocks = []
    frames = doc._.srl
    for number, sent in enumerate(word_sentences(doc), start=1):
        # The header is one line: each whitespace run of the sentence's text as one space.
        lines = [f"# sentence {number}: {' '.join(sent.text.split())}"]
        tree = sentence_tree(sent)
        if tree is not None:
            lines += ["tree:", format_tree(tree, 1)]
        if doc.has_annotation("DEP"):
            lines.append("dependencies:")
            # The words, numbered as in CoNLL-U: whitespace tokens are not words (see export).
            words = sentence_words(sent)
            ids = {token.i: number for number, token in enumerate(words, start=1)}
            for token in words:
                head = "ROOT" if token.head.i == token.i else f"{ids.get(token.head.i, '_')} {token.head.text}"
                lines.append(f"  {ids[token.i]:>3} {token.text:<15} {token.dep_:<12} <- {head}")
        sent_frames = [frame for frame in frames if sent.start <= frame.predicate.i < sent.end]
        if sent_frames:
            lines.append("roles:")
            for frame in sent_frames:
                sense = f" ({frame.sense})" if frame.sense else ""
                lines.append(f"  {frame.predicate.text}{sense}: {frame}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
