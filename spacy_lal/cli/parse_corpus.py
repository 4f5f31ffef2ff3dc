"""``python -m spacy_lal parse-corpus INPUT OUTPUT``: parse a whole corpus into output shards.

    python -m spacy_lal parse-corpus texts.txt parsed/ --format conllu
    python -m spacy_lal parse-corpus "crawl/*.jsonl" parsed/ --engine ray --workers 8
    python -m spacy_lal parse-corpus docs/ parsed/ --engine ray --address HEAD:6379

INPUT: a text file (one document a line), JSONL with a "text" field (other fields kept as
metadata), a directory of .txt files (one document each), a .spacy DocBin; a directory of such
shards or a quoted glob. OUTPUT: a directory of shards (one per --shard-size documents of each
input file), manifest.jsonl (finished shards: a rerun resumes after them) and failed.jsonl
(documents that could not be parsed, with their id, file, line and error: bad input lines, which
are not UTF-8, not JSON, without a string "text" or with a lone surrogate, and documents the
pipeline failed on; the others are parsed). Every document keeps its input id; two documents with
one id are refused before anything is parsed. One run at a time writes to an OUTPUT: a second
one fails at once.

--engine local parses in this process (--n-process as nlp.pipe, its processes started by
--start-method; each runs torch on one thread); --engine ray on Ray actors, one pipeline per
worker, a dead worker's batch retried (pip install "spacy-lal[ray]").
"""
import argparse
import multiprocessing
import sys
from pathlib import Path

from ..pretrained import DEFAULT_PIPELINE


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from ..corpus_parse.engines import ENGINES
    from ..corpus_parse.inputs import TEXT_UNITS
    from ..corpus_parse.outputs import FORMATS

    parser = subparsers.add_parser(
        "parse-corpus",
        help="parse a corpus into output shards, locally or on a Ray cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", nargs="+", metavar="INPUT", help="files, directories or quoted globs")
    parser.add_argument("output", type=Path, metavar="OUTPUT", help="the output directory")
    parser.add_argument(
        "--model",
        default=DEFAULT_PIPELINE,
        help=f"a shipped pipeline ({DEFAULT_PIPELINE}, the default), a path or an installed package name",
    )
    parser.add_argument("--format", choices=FORMATS, default="spacy", help="output format (default: spacy)")
    parser.add_argument("--engine", choices=ENGINES, default="local", help="where to parse (default: local)")
    parser.add_argument("--address", help="ray: join this running cluster (default: start a local one)")
    parser.add_argument("--workers", type=int, help="ray: actors (default: the cluster's CPUs, or GPUs)")
    parser.add_argument("--batch-size", type=int, default=64, help="documents per batch (default: 64)")
    parser.add_argument("--shard-size", type=int, default=1000, help="documents per output shard (default: 1000)")
    parser.add_argument("--n-process", type=int, default=1, help="local: processes for nlp.pipe (default: 1)")
    parser.add_argument(
        "--start-method", choices=multiprocessing.get_all_start_methods(),
        help="local: how --n-process starts its processes (default: Python's for the system, e.g. fork on Linux "
        "before Python 3.14)",
    )
    parser.add_argument(
        "--text-unit", choices=TEXT_UNITS, help="a plain text file holds one document a line or is one (default: "
        "line for files named or globbed, file for a directory's .txt files)"
    )
    parser.add_argument("--retries", type=int, default=2, help="ray: reruns of a batch whose worker died (default: 2)")
    parser.add_argument("--gpus-per-worker", type=float, help="ray: default 1 for a transformer pipeline if there are GPUs")
    parser.add_argument(
        "--auxiliary-frames", action="store_true",
        help="keep the frames of auxiliary rolesets (be.03, have.01, do.01) in doc._.srl, which lal_srl leaves out "
        "by default: silver for training a labeller needs them (PropBank 3.4 annotates them)",
    )
    parser.add_argument(
        "--ensemble", action="append", default=[], metavar="PIPELINE",
        help="another pipeline that parses with --model at the score level (repeat for more); one process "
        "per worker, so not with --n-process",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from ..corpus_parse import parse_corpus

    if args.start_method is not None:  # nlp.pipe starts its processes in the default context
        multiprocessing.set_start_method(args.start_method, force=True)
    try:
        summary = parse_corpus(
            args.input,
            args.output,
            model=args.model,
            engine=args.engine,
            format=args.format,
            address=args.address,
            workers=args.workers,
            batch_size=args.batch_size,
            shard_size=args.shard_size,
            n_process=args.n_process,
            text_unit=args.text_unit,
            retries=args.retries,
            gpus_per_worker=args.gpus_per_worker,
            progress=not args.no_progress,
            auxiliary_frames=args.auxiliary_frames,
            ensemble=args.ensemble,
        )
    except (ValueError, OSError, ImportError, RuntimeError) as error:
        from . import error_line

        print(f"parse-corpus: {error_line(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"parse-corpus: interrupted; run the same command again to resume from {args.output}/manifest.jsonl",
              file=sys.stderr)
        return 130
    print(summary)
    return 0
