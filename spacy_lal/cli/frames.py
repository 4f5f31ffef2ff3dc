"""``python -m spacy_lal frames BUILD-FROM OUTPUT``: PropBank's frame files as the package's roleset inventory.

Reads every ``*.xml`` of BUILD-FROM (``propbank-frames/frames``; ``assets/propbank-frames/frames``
in the project, ``../shared/assets/propbank-frames/frames`` in a development checkout) and writes
the compact inventory that ``lal_srl`` constrains its senses and roles with and that
``spacy_lal.doc.propbank`` looks rolesets up in: per lemma, its rolesets with their names and role
descriptions, gzipped JSON. The package ships it as ``spacy_lal/data/propbank_frames.json.gz``,
built from PropBank 3.4 (github.com/propbank/propbank-frames, commit
c66e0ccf28b53f00051b187db83e937b5bee2e32; CC BY-SA 4.0): pass ``--revision`` to record another.
"""
import argparse
import sys
from pathlib import Path

from ..corpora import CorpusFormatError
from ..corpora.propbank_frames import count, read_frames, write_inventory

REPOSITORY = "https://github.com/propbank/propbank-frames"
REVISION = "c66e0ccf28b53f00051b187db83e937b5bee2e32"
LICENSE = "CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/): PropBank frames, the PropBank project"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "frames",
        help="build the PropBank roleset inventory from the frame files",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("build_from", type=Path, metavar="BUILD-FROM", help="folder of PropBank frame files (*.xml)")
    parser.add_argument("output", type=Path, metavar="OUTPUT", help="the inventory to write (.json.gz)")
    parser.add_argument(
        "--revision", default=REVISION, help="the propbank-frames commit the files are from (default: %(default)s, PropBank 3.4)"
    )
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    repaired: list = []
    try:
        inventory = read_frames(args.build_from, repaired=repaired)
    except (FileNotFoundError, CorpusFormatError) as error:
        print(f"frames: {error}", file=sys.stderr)
        return 1
    source = {"repository": REPOSITORY, "revision": args.revision, "path": "frames/", "license": LICENSE}
    size = write_inventory(inventory, args.output, source)
    counts = count(inventory)
    print(
        f"frames: {counts['rolesets']:,} rolesets of {counts['lemmas']:,} lemmas ({counts['phrasal_lemmas']:,} phrasal) "
        f"-> {args.output} ({size:,} bytes)"
        + (f"; read without their examples (not well-formed there): {', '.join(repaired)}" if repaired else "")
    )
    return 0
