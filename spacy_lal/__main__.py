"""Parse English text into constituency trees, dependencies and semantic roles with Label
Attention Layer parsers (spacy-lal, a spaCy 3.8 plugin): one text, a file or a whole corpus, as
text, JSON, PTB trees, CoNLL-U or CoNLL-2005 props; and convert, export and score the treebanks
and predictions that its pipelines are trained and evaluated on.

`python -m spacy_lal COMMAND --help` tells more about each command. An error is one line on
standard error and a non-zero exit status (SPACY_LAL_TRACEBACK=1 shows the traceback of an
unexpected one).
"""
import argparse
import importlib
import os
import sys
from typing import List, Optional

from spacy_lal.cli import error_line, plain

# Each module in spacy_lal.cli adds one sub-command (see DEVELOPING.md).
COMMANDS = ["convert", "export", "score", "parse", "parse_corpus", "behaviour", "vectors", "train", "frames"]
# Commands that take spaCy config overrides (--section.key value) after their own arguments.
TAKES_OVERRIDES = {"train"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m spacy_lal", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"spacy_lal.cli.{name}").add_parser(subparsers)
    _plain_help(parser)
    return parser


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """The commands' descriptions are their module docstrings, written in reStructuredText for
    the API docs: shown in a terminal without the markup (``x`` as `x`), every sub-parser down."""
    parser.description = plain(parser.description)
    parser.epilog = plain(parser.epilog)
    for action in parser._actions:
        action.help = plain(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain(choice.help)
            for sub in action.choices.values():
                _plain_help(sub)


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command not in TAKES_OVERRIDES and extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command in TAKES_OVERRIDES:
            return int(args.func(args, extra) or 0)
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"{args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001  (each command reports its own errors; this is the rest)
        if os.environ.get("SPACY_LAL_TRACEBACK"):
            raise
        command = args.command.replace("_", "-")
        print(
            f"{command}: unexpected error: {type(error).__name__}: {error_line(error)} "
            "(SPACY_LAL_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
