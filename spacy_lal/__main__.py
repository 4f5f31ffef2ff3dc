"""Command line: ``python -m spacy_lal <command> ...``."""
import argparse
import importlib
import sys
from typing import List, Optional

# Each module in spacy_lal.cli adds one sub-command (see DEVELOPING.md).
COMMANDS = ["convert", "export", "score", "parse", "parse_corpus", "behaviour", "vectors", "train"]
# Commands that take spaCy config overrides (--section.key value) after their own arguments.
TAKES_OVERRIDES = {"train"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m spacy_lal", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"spacy_lal.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command in TAKES_OVERRIDES:
        return int(args.func(args, extra) or 0)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
