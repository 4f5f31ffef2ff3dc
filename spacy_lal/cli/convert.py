"""``python -m spacy_lal convert FORMAT ...``: corpora -> ``.spacy`` (DocBin) files.

    convert ewt --ud DIR --propbank DIR --output DIR
    convert ptb INPUT... OUTPUT.spacy [--untagged]
    convert conllu|conllx|conll12 INPUT... OUTPUT.spacy
    convert ud-documents INPUT... OUTPUT.spacy [--layout joined|conll18]
                 (one Doc per # newdoc document: sentence splitting)
    convert conll05 PROPS OUTPUT.spacy --words WORDS [--synt SYNT]
    convert nltk-text ASSETS_DIR --output TEXTS.jsonl [--only P,...] [--exclude P,...] [--share F] [--after F]
                 (unlabeled text for parse-corpus, and its corpus card TEXTS.card.json)
    convert propbank-examples FRAMES_DIR OUTPUT.spacy [--card CARD.json]
                 (PropBank frame-file examples: one annotated predicate per Doc, marked partial;
                 and its corpus card OUTPUT.card.json)

An INPUT directory stands for its files matching ``--pattern`` (recursively, sorted). A column
file cut short (its last line not followed by the blank line that ends each sentence; a
CoNLL-2012 file without its last ``#end document``) stops the command with the file and line,
as does any malformed line.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, Iterator, List

# (default file pattern for directories, help) per single-file format
_FORMATS: Dict[str, tuple] = {
    "ptb": ("*.mrg", "PTB bracket files, one or many trees per file (traces removed)"),
    "conllu": ("*.conllu", "CoNLL-U files"),
    "conllx": ("*.conll", "CoNLL-X files (10 columns, no multi-word tokens)"),
    "conll12": ("*_conll", "CoNLL-2012 *_conll files (trees and SRL frames)"),
    "ud-documents": ("*.conllu", "CoNLL-U files as documents, sentences joined (sentence splitter training)"),
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("convert", help="convert corpora to .spacy files", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    formats = parser.add_subparsers(dest="format", metavar="FORMAT", required=True)

    ewt = formats.add_parser("ewt", help="join UD_English-EWT and the PropBank EWT skeletons")
    ewt.add_argument("--ud", type=Path, required=True, help="the UD_English-EWT directory")
    ewt.add_argument("--propbank", type=Path, required=True, help="the propbank-release directory")
    ewt.add_argument("--output", type=Path, required=True, help="directory for train/dev/test.spacy")
    ewt.add_argument("--lang", default="en")
    ewt.add_argument("-v", "--verbose", action="store_true", help="list skipped sentences and propositions")

    for name, (pattern, help_text) in _FORMATS.items():
        sub = formats.add_parser(name, help=help_text)
        sub.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="files or directories")
        sub.add_argument("output", type=Path, metavar="OUTPUT", help="the .spacy file to write")
        sub.add_argument("--pattern", default=pattern, help=f"file pattern in directories (default {pattern})")
        sub.add_argument("--lang", default="en")
        if name == "ptb":
            sub.add_argument("--untagged", action="store_true", help="bare words, no POS tags: (NP John Smith)")
        if name == "ud-documents":
            sub.add_argument("--layout", choices=["joined", "conll18"], default="joined",
                             help="sentences joined by a space, all annotation kept (default), or the CoNLL 2018 "
                             "shared task's text: paragraphs, wrapped lines as whitespace tokens, sentence starts only")

    c05 = formats.add_parser("conll05", help="CoNLL-2005 props with parallel words (and synt) files")
    c05.add_argument("props", type=Path)
    c05.add_argument("output", type=Path, metavar="OUTPUT")
    c05.add_argument("--words", type=Path, required=True, help="the words file (one word per line)")
    c05.add_argument("--synt", type=Path, help="POS tag and parse bit columns (e.g. synt.col2)")
    c05.add_argument("--lang", default="en")

    nltk = formats.add_parser(
        "nltk-text", help="nltk_data packages (NAME.zip + NAME.xml) as JSONL text for parse-corpus, with a corpus card"
    )
    nltk.add_argument("folder", type=Path, metavar="ASSETS_DIR", help="the folder of nltk_data packages")
    nltk.add_argument("--output", type=Path, required=True, help="the JSONL file to write")
    nltk.add_argument("--card", type=Path, help="the corpus card (default: OUTPUT with .card.json)")
    nltk.add_argument("--only", action="append", metavar="PACKAGE[,...]", help="read only these packages")
    nltk.add_argument("--exclude", action="append", metavar="PACKAGE[,...]", help="leave these packages out")
    nltk.add_argument("--share", type=_share, default=1.0, metavar="FRACTION",
                      help="write only this share of the words, in whole records mixed from every package (default: 1)")
    nltk.add_argument("--after", type=_after, default=0.0, metavar="FRACTION",
                      help="leave out the records of this smaller share: --after 0.25 --share 0.5 is the second quarter")

    examples = formats.add_parser(
        "propbank-examples", help="PropBank frame-file examples as Docs with one annotated predicate (partial SRL gold)"
    )
    examples.add_argument("folder", type=Path, metavar="FRAMES_DIR", help="propbank-frames/frames")
    examples.add_argument("output", type=Path, metavar="OUTPUT", help="the .spacy file to write")
    examples.add_argument("--card", type=Path, help="the corpus card (default: OUTPUT with .card.json)")
    examples.add_argument("--lang", default="en")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import spacy
    from spacy.tokens import DocBin

    import spacy_lal  # noqa: F401  (registers the extensions)
    from spacy_lal import corpora
    from spacy_lal.corpora.ewt import format_table

    if args.format == "nltk-text":
        return _nltk_text(args)
    if args.format == "propbank-examples":
        return _propbank_examples(args)
    try:
        if args.format == "ewt":
            stats = corpora.convert_ewt(args.ud, args.propbank, args.output, lang=args.lang)
            print(format_table(stats))
            for split, s in stats.items():
                for what, ids in (("UD documents missing from the split list", s.documents_not_in_list),
                                  ("split-list documents missing from UD", s.documents_not_in_ud),
                                  ("UD documents without a skeleton", s.documents_without_skeleton)):
                    if ids:
                        print(f"{split}: {len(ids)} {what}" + (": " + ", ".join(ids) if args.verbose else ""))
                if args.verbose:
                    for sent_id, reason in s.skipped_sentences:
                        if reason != "no skeleton document":
                            print(f"{split}: skipped sentence {sent_id}: {reason}")
                    for sent_id, predicate, reason in s.skipped_propositions:
                        print(f"{split}: skipped proposition {sent_id} #{predicate}: {reason}")
            return 0
        vocab = spacy.blank(args.lang).vocab
        readers: Dict[str, Callable[[Path], Iterator]] = {
            "ptb": lambda p: corpora.read_ptb(p, vocab, tagged=not args.untagged),
            "conllu": lambda p: corpora.read_conllu(p, vocab),
            "conllx": lambda p: corpora.read_conllx(p, vocab),
            "ud-documents": lambda p: corpora.read_ud_documents(p, vocab, args.layout),
            "conll12": lambda p: corpora.read_conll12(p, vocab),
            "conll05": lambda p: corpora.read_conll05(p, vocab, words=args.words, synt=args.synt),
        }
        inputs = [args.props] if args.format == "conll05" else _expand(args.inputs, args.pattern)
        docbin = DocBin(store_user_data=True)
        for path in inputs:
            for doc in readers[args.format](path):
                docbin.add(doc)
        _check_complete(args, inputs)  # after reading: a malformed line names its own place first
        args.output.parent.mkdir(parents=True, exist_ok=True)
        docbin.to_disk(args.output)
        print(f"{args.output}: {len(docbin)} docs from {len(inputs)} file(s)")
        return 0
    except (ValueError, OSError) as err:  # format errors name the file and line
        from . import error_line

        if args.format == "ewt":
            paths: List[Path] = []
        elif args.format == "conll05":
            paths = [p for p in (args.props, args.words, args.synt) if p is not None]
        else:
            paths = _expand(args.inputs, args.pattern)
        print(f"error: {error_line(err, paths)}", file=sys.stderr)
        return 1


def _check_complete(args: argparse.Namespace, inputs: List[Path]) -> None:
    """Stop on a column file that was cut short, before writing anything: the readers read its
    last sentence short, without a word of warning (PTB needs no check: a cut tree leaves a
    bracket open, which its reader reports)."""
    from spacy_lal.corpora._common import check_complete

    if args.format == "ptb":
        return
    if args.format == "conll05":
        for path in (args.props, args.words, args.synt):
            if path is not None:
                check_complete(path)
        return
    for path in inputs:
        if args.format == "conll12":
            check_complete(path, end_marker="#end document", unit="document")
        else:
            check_complete(path)


def _after(value: str) -> float:
    share = 0.0 if value in ("0", "0.0") else _share(value)
    if share >= 1:
        raise argparse.ArgumentTypeError(f"--after is a share below 1, not {value!r}")
    return share


def _share(value: str) -> float:
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if not 0 < share <= 1:
        raise argparse.ArgumentTypeError(f"a share is a number above 0 and at most 1, not {value!r}")
    return share


def _nltk_text(args: argparse.Namespace) -> int:
    from spacy_lal.corpora.nltk_text import write_nltk_text

    try:
        card = write_nltk_text(args.folder, args.output, only=args.only, exclude=args.exclude, card=args.card,
                               share=args.share, after=args.after)
    except (ValueError, OSError) as err:
        from . import error_line

        print(f"error: {error_line(err)}", file=sys.stderr)
        return 1
    rows = [(name, str(e["documents"]), str(e["words"]), ", ".join(e["genres"]), e["license"])
            for name, e in card["packages"].items()]
    rows.append(("total", str(card["documents"]), str(card["words"]), "", ""))
    header = ("package", "documents", "words", "genre", "license")
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.rjust(w) if i in (1, 2) else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    card_path = args.card or args.output.with_suffix(".card.json")
    print(f"{args.output}: {card['documents']} documents; corpus card {card_path}")
    return 0


def _propbank_examples(args: argparse.Namespace) -> int:
    from spacy_lal.corpora.propbank_examples import write_propbank_examples

    try:
        stats = write_propbank_examples(args.folder, args.output, card=args.card, lang=args.lang)
    except (ValueError, OSError) as err:
        from . import error_line

        print(f"error: {error_line(err)}", file=sys.stderr)
        return 1
    print(stats.table())
    if stats.repaired_files:
        print(f"read without their malformed examples: {', '.join(stats.repaired_files)}")
    card_path = args.card or args.output.with_suffix(".card.json")
    print(f"{args.output}: {stats.kept} docs from {stats.files} frame files; corpus card {card_path}")
    return 0


def _expand(inputs: List[Path], pattern: str) -> List[Path]:
    files: List[Path] = []
    for path in inputs:
        files.extend(sorted(p for p in path.rglob(pattern) if p.is_file()) if path.is_dir() else [path])
    return files
