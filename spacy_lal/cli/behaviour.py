"""``python -m spacy_lal behaviour [--model PIPELINE] [--set NAME | --data PATH] [--srl-decoder NAME]``:
the behavioural checks.

Parses each hand-checked sentence of a behaviour set from its gold words and prints the pass rate by
construction, then every failed check with what was expected and what the pipeline gave. ``--set``
names a set shipped with the package: ``core`` (the default, ``spacy_lal/data/behaviour.jsonl``) or
``everyday`` (``spacy_lal/data/behaviour_everyday.jsonl``: noun-or-verb words, phrases that belong to
the verb, particles and stranded prepositions, role numbers, whose-relatives, auxiliaries and
recipes); ``--data`` reads another file instead. ``--json`` prints the same as JSON.
``--srl-decoder`` labels roles with another of ``lal_srl``'s decoders than the pipeline's,
``--srl-tree-penalty`` with another ``tree_penalty`` (inf: arguments on the tree only).
"""
import argparse
import json
import sys
from pathlib import Path

from ..behaviour import DEFAULT_SET, SETS, set_path
from ..pretrained import DEFAULT_PIPELINE, shipped_pipelines

DEFAULT_DATA = set_path(DEFAULT_SET)  # package data


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "behaviour",
        help="score a pipeline on the hand-checked behavioural sentences",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        default=DEFAULT_PIPELINE,
        help=f"pipeline: a shipped one ({DEFAULT_PIPELINE}, the default), a path or a package name",
    )
    data = parser.add_mutually_exclusive_group()
    data.add_argument(
        "--set",
        dest="set_name",
        choices=sorted(SETS),
        default=DEFAULT_SET,
        help=f"a behaviour set of the package ({', '.join(f'{k}: {v}' for k, v in SETS.items())}; "
        "default: %(default)s)",
    )
    data.add_argument("--data", type=Path, help="another behaviour file (JSON lines) instead of --set")
    parser.add_argument("--srl-decoder", help="lal_srl's decoder (argmax, viterbi, unique_roles, tree)")
    parser.add_argument("--srl-tree-penalty", type=float, metavar="P",
                        help="lal_srl's tree_penalty: what decoder tree charges an argument off the tree (inf: never one)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import spacy

    import spacy_lal
    from ..behaviour import read_sentences, run_checks

    if args.data is None:
        args.data = set_path(args.set_name)
    # A bad data file is refused before the (slow) pipeline load.
    try:
        list(read_sentences(args.data))
    except (OSError, ValueError) as error:
        from . import error_line

        print(f"behaviour: cannot read --data: {error_line(error, [args.data])}", file=sys.stderr)
        return 1
    try:
        nlp = spacy_lal.load(args.model) if args.model in shipped_pipelines() else spacy.load(args.model)
    except OSError as error:
        print(f"behaviour: cannot load the pipeline {args.model!r}: {' '.join(str(error).split())}", file=sys.stderr)
        return 1
    srl_settings = {
        key: value for key, value in (("decoder", args.srl_decoder), ("tree_penalty", args.srl_tree_penalty))
        if value is not None
    }
    if srl_settings:
        if "lal_srl" not in nlp.pipe_names:
            options = " and ".join(f"--srl-{key.replace('_', '-')}" for key in srl_settings)
            print(f"behaviour: {options} needs lal_srl, and {args.model!r} has none", file=sys.stderr)
            return 1
        try:
            nlp.get_pipe("lal_srl").configure(**srl_settings)
        except ValueError as error:
            print(f"behaviour: {error}", file=sys.stderr)
            return 1
    report = run_checks(nlp, args.data)
    if args.json:
        print(json.dumps({
            "passed": report.passed,
            "checks": len(report.results),
            "by_construction": {k: {"passed": p, "checks": n} for k, (p, n) in report.by_construction().items()},
            "failures": [{"sentence": r.sentence, "check": r.check, "reason": r.reason} for r in report.failures()],
        }, indent=2))
        return 0
    print(report.table())
    failures = report.failures()
    if failures:
        print(f"\nfailed checks ({len(failures)}):")
        for r in failures:
            print(f"  {r.sentence:<14} {r.reason}")
    return 0
