"""``python -m spacy_lal export INPUT.spacy --format ptb|conllu|conll05 OUTPUT``.

Writes Docs (gold or predicted) for the official scorers: EVALB (ptb), the CoNLL 2018 UD scorer
(conllu) and srl-eval.pl (conll05 props). Export gold and predictions the same way.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("export", help="write .spacy Docs as ptb, conllu or conll05", description=__doc__)
    parser.add_argument("input", type=Path, metavar="INPUT.spacy")
    parser.add_argument("output", type=Path, metavar="OUTPUT")
    parser.add_argument("--format", required=True, choices=("ptb", "conllu", "conll05"))
    parser.add_argument("--words", type=Path, help="conll05: also write the parallel words file here")
    parser.add_argument("--lang", default="en")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import spacy
    from spacy.tokens import DocBin

    import spacy_lal  # noqa: F401  (registers the extensions)
    from spacy_lal.corpora import export

    from . import error_line

    try:
        vocab = spacy.blank(args.lang).vocab
        docs = DocBin(store_user_data=True).from_disk(args.input).get_docs(vocab)
        if args.format == "ptb":
            n = export.write_ptb(docs, args.output)
        elif args.format == "conllu":
            n = export.write_conllu(docs, args.output)
        else:
            n = export.write_conll05(docs, args.output, words=args.words)
    except (ValueError, OSError) as err:
        print(f"error: {error_line(err, [args.input])}", file=sys.stderr)
        return 1
    print(f"{args.output}: {n} sentences ({args.format})")
    return 0
