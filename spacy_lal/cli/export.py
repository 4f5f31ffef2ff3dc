"""``python -m spacy_lal export INPUT.spacy --format ptb|conllu|conll05 OUTPUT``.

Writes Docs (gold or predicted) for the official scorers: EVALB (ptb), the CoNLL 2018 UD scorer
(conllu) and srl-eval.pl (conll05 props). Export gold and predictions the same way.

Each format needs its annotation: a constituency tree for every sentence (ptb), dependencies
in every Doc (conllu), SRL frames in the file (conll05: a sentence without a predicate has
none, but a file without a single frame was not labelled). Docs that lack it stop the command
with the file and the Doc (1-based, in the file's order), since the scorer would score the
neutral form written in its place (flat trees, HEAD ``_``, no propositions) as if predicted;
``--allow-missing`` writes that neutral form, keeping the file aligned line for line.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

if TYPE_CHECKING:  # spaCy is imported when a command runs, not for every command's --help
    from spacy.tokens import Doc

# What each format needs, for the error line.
_NEEDS = {
    "ptb": "parse with lal_parser, or convert a treebank with trees",
    "conllu": "parse with a dependency parser, or convert a treebank with dependencies",
    "conll05": "label with lal_srl, or convert a corpus with frames",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help="write .spacy Docs as ptb, conllu or conll05", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", type=Path, metavar="INPUT.spacy")
    parser.add_argument("output", type=Path, metavar="OUTPUT")
    parser.add_argument("--format", required=True, choices=("ptb", "conllu", "conll05"))
    parser.add_argument("--words", type=Path, help="conll05: also write the parallel words file here")
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="write sentences without the format's annotation in a neutral form (flat trees, HEAD _, "
        "no propositions) instead of stopping",
    )
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
        docs = list(DocBin(store_user_data=True).from_disk(args.input).get_docs(vocab))
        missing = None if args.allow_missing else missing_annotation(docs, args.format)
        if missing is not None:
            hint = f"{_NEEDS[args.format]}; --allow-missing writes it anyway"
            print(f"error: {args.input}, {missing} ({hint})", file=sys.stderr)
            return 1
        # The writers' warnings (sentences written in the neutral form) as one line each, not
        # Python's two-line warning with our source line.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if args.format == "ptb":
                n = export.write_ptb(docs, args.output)
            elif args.format == "conllu":
                n = export.write_conllu(docs, args.output)
            else:
                n = export.write_conll05(docs, args.output, words=args.words)
    except (ValueError, OSError) as err:
        print(f"error: {error_line(err, [args.input])}", file=sys.stderr)
        return 1
    for warning in caught:
        print(f"warning: {' '.join(str(warning.message).split())}", file=sys.stderr)
    print(f"{args.output}: {n} sentences ({args.format})")
    return 0


def missing_annotation(docs: List[Doc], fmt: str) -> Optional[str]:
    """Where ``docs`` first lack what ``fmt`` needs ("Doc 3 of 10, sentence 2: no constituency
    tree"), or None. Only sentences with words count: a Doc of whitespace alone writes nothing."""
    from spacy_lal.corpora.export import word_sentences
    from spacy_lal.doc.api import NotAConstituentError

    total = len(docs)
    if fmt == "conll05":
        has_words = any(any(True for _ in word_sentences(doc)) for doc in docs)
        if not has_words or any(doc._.srl for doc in docs):
            return None
        return f"no SRL frames in any of its {total} Docs: conll05 props would hold no proposition"
    for i, doc in enumerate(docs, start=1):
        sents = list(word_sentences(doc))
        if fmt == "conllu" and sents and not doc.has_annotation("DEP"):
            return f"Doc {i} of {total}: no dependency annotation: CoNLL-U would have HEAD '_'"
        if fmt == "ptb":
            for k, sent in enumerate(sents, start=1):
                try:
                    sent._.parse_string
                except NotAConstituentError:
                    return f"Doc {i} of {total}, sentence {k}: no constituency tree: PTB needs one per sentence"
                except ValueError:
                    pass  # a tree whose words PTB cannot hold as they are: the writer escapes them
    return None
