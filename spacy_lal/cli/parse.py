"""``python -m spacy_lal parse``: parse text and show trees, dependencies and semantic roles.

    python -m spacy_lal parse "The cat sat on the mat."
    python -m spacy_lal parse "The cat sat on the mat." --model training/lal_parser/model-best
    echo "Dogs bark." | python -m spacy_lal parse --model PIPELINE --format conllu
    python -m spacy_lal parse --file input.txt --model PIPELINE --format json
    python -m spacy_lal parse --file input.txt --model PIPELINE --render parses.html

Each line of a file or of standard input is one text. ``--format text`` (the default) prints,
per sentence, the indented tree, a dependency table and the role frames; ``ptb``, ``conllu`` and
``conll05`` print what ``python -m spacy_lal export`` writes; ``json`` prints one object per text.
``--render`` also writes an HTML page drawing each sentence's tree and dependencies (displaCy style).
"""
import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, List, Optional

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
    except OSError as error:
        print(f"parse: cannot read --file {args.file}: {_one_line(error)}", file=sys.stderr)
        return 1
    if not texts:
        # A whitespace-only text has no words to parse; exporting it would invent a tree.
        print("parse: nothing to parse: the input is empty or only whitespace", file=sys.stderr)
        return 1
    docs = list(nlp.pipe(texts))
    if args.format == "text":
        for doc in docs:
            print(format_doc(doc))
    elif args.format == "json":
        from ..corpora.export import doc_to_json

        for doc in docs:
            print(json.dumps(doc_to_json(doc), ensure_ascii=False))
    else:
        from ..corpora.export import to_text

        print(to_text(docs, args.format), end="")
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
    if args.text is not None and args.text != "-":
        return _non_blank([args.text])
    if args.file is not None:
        with args.file.open(encoding="utf8") as lines:
            return _non_blank(lines)
    return _non_blank(sys.stdin)


def _non_blank(lines: Iterable[str]) -> List[str]:
    return [line.rstrip("\n") for line in lines if line.strip()]


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
    from ..corpora.export import sentence_tree, sentences

    blocks = []
    frames = doc._.srl
    for number, sent in enumerate(sentences(doc), start=1):
        lines = [f"# sentence {number}: {sent.text}"]
        tree = sentence_tree(sent)
        if tree is not None:
            lines += ["tree:", format_tree(tree, 1)]
        if doc.has_annotation("DEP"):
            lines.append("dependencies:")
            for token in sent:
                head = "ROOT" if token.head.i == token.i else f"{token.head.i - sent.start + 1} {token.head.text}"
                lines.append(f"  {token.i - sent.start + 1:>3} {token.text:<15} {token.dep_:<12} <- {head}")
        sent_frames = [frame for frame in frames if sent.start <= frame.predicate.i < sent.end]
        if sent_frames:
            lines.append("roles:")
            for frame in sent_frames:
                sense = f" ({frame.sense})" if frame.sense else ""
                lines.append(f"  {frame.predicate.text}{sense}: {frame}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
