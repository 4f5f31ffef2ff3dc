"""``python -m spacy_lal score {trees,deps,srl} GOLD PRED [--json]``.

Scores are printed as percentages with two decimals, as the reference tools print
them; ``--json`` prints the same numbers (and the counts) as JSON on stdout.
Sentences EVALB skips and srl-eval.pl's warnings go to stderr (and into the JSON).

Files that do not pair stop the command with one line naming the files and lines: another
number of trees or props sentences, a props sentence of another length, CoNLL-U files whose
texts differ (the UD scorer aligns different tokenizations and sentence splits of one text, not
different texts), and trees whose words differ: EVALB's error sentences, which ``score trees
--allow-errors`` reports on stderr and leaves out of the totals, as EVALB does, instead.
"""
import argparse
import json
import sys
from typing import Any, Dict, List, Tuple

STATUS = {0: "ok", 1: "error", 2: "skip"}
# Rates printed as percentages; everything else is a count (or a mean).
RATES = {
    "precision",
    "recall",
    "f1",
    "complete_match",
    "no_crossing",
    "two_or_less_crossing",
    "tagging_accuracy",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score predictions like EVALB, the CoNLL 2018 UD scorer or srl-eval.pl",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    specs = [
        ("trees", "labelled brackets, as EVALB with COLLINS.prm", "bracketed trees (.mrg)"),
        ("deps", "UAS and LAS, as the CoNLL 2018 UD scorer", "CoNLL-U"),
        ("srl", "arguments and perfect propositions, as srl-eval.pl", "CoNLL-2005 props"),
    ]
    for name, help_text, fmt in specs:
        sub = kinds.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("gold", help=f"gold file ({fmt})")
        sub.add_argument("pred", help=f"predicted file ({fmt})")
        sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
        if name == "trees":
            sub.add_argument(
                "--allow-errors",
                action="store_true",
                help="score the other sentences when the words of some differ (EVALB's error sentences, "
                "listed on stderr) instead of stopping at the first",
            )
        if name == "deps":
            sub.add_argument(
                "--punct-upos",
                nargs="+",
                default=["PUNCT"],
                metavar="UPOS",
                help="gold UPOS tags left out of the no-punctuation scores (default: PUNCT)",
            )
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from ..doc.tree import TreeFormatError
    from ..scoring import SrlFormatError, UDError

    try:
        if args.kind == "trees":
            report, table, notes = _trees(args)
        elif args.kind == "deps":
            report, table, notes = _deps(args)
        else:
            report, table, notes = _srl(args)
    except (OSError, TreeFormatError, UDError, SrlFormatError, ValueError) as err:
        from . import error_line

        print(f"error: {error_line(err, [args.gold, args.pred])}", file=sys.stderr)
        return 1
    for note in notes:
        print(note, file=sys.stderr)
    print(json.dumps(report, indent=2) if args.json else table)
    return 0


def _percent(values: Dict[str, Any]) -> Dict[str, Any]:
    return {
        key: round(100 * value, 2) if key in RATES else round(value, 2) if isinstance(value, float) else value
        for key, value in values.items()
    }


def _rows(header: Tuple[str, ...], rows: List[Tuple[Any, ...]]) -> str:
    lines = [f"{header[0]:<24}" + "".join(f"{h:>10}" for h in header[1:])]
    for name, *cells in rows:
        text = "".join(f"{c:>10.2f}" if isinstance(c, float) else f"{c:>10}" for c in cells)
        lines.append(f"{name:<24}{text}")
    return "\n".join(lines)


def _trees(args: argparse.Namespace) -> Tuple[Dict[str, Any], str, List[str]]:
    from ..scoring.evalb import score_tree_files

    result = score_tree_files(args.gold, args.pred, word_errors="report" if args.allow_errors else "raise")
    cut = f"len<={result.cutoff_len}"
    errors = [
        {"id": s.id, "length": s.length, "status": STATUS[s.status], "message": s.message}
        for s in result.errors
    ]
    report = {"all": _percent(result.all.to_dict()), cut: _percent(result.cutoff.to_dict()), "errors": errors}
    names = [
        ("Sentences", "sentences"),
        ("Error sentences", "error_sentences"),
        ("Skipped sentences", "skip_sentences"),
        ("Valid sentences", "valid_sentences"),
        ("Bracketing recall", "recall"),
        ("Bracketing precision", "precision"),
        ("Bracketing F1", "f1"),
        ("Complete match", "complete_match"),
        ("Average crossing", "average_crossing"),
        ("No crossing", "no_crossing"),
        ("2 or less crossing", "two_or_less_crossing"),
        ("Tagging accuracy", "tagging_accuracy"),
    ]
    table = _rows(
        ("", "All", cut),
        [(label, report["all"][key], report[cut][key]) for label, key in names],
    )
    notes = [f"sentence {e['id']}: {e['status']}: {e['message']}" for e in errors]
    return report, table, notes


def _deps(args: argparse.Namespace) -> Tuple[Dict[str, Any], str, List[str]]:
    from ..scoring.ud import score_conllu_files

    result = score_conllu_files(args.gold, args.pred, frozenset(args.punct_upos))
    metrics = [
        ("Words", "words", result.words),
        ("UAS", "uas", result.uas),
        ("LAS", "las", result.las),
        ("UAS (no punct)", "uas_nopunct", result.uas_nopunct),
        ("LAS (no punct)", "las_nopunct", result.las_nopunct),
    ]
    report: Dict[str, Any] = {key: _percent(prf.to_dict()) for _, key, prf in metrics}
    report["las_per_type"] = {label: _percent(prf.to_dict()) for label, prf in result.las_per_type.items()}
    table = _rows(
        ("Metric", "Precision", "Recall", "F1", "Correct", "Gold", "System"),
        [
            (name, *(report[key][k] for k in ("precision", "recall", "f1", "correct", "gold", "system")))
            for name, key, _ in metrics
        ],
    )
    return report, table, []


def _srl(args: argparse.Namespace) -> Tuple[Dict[str, Any], str, List[str]]:
    from ..scoring.srl_eval import score_props_files

    result = score_props_files(args.gold, args.pred)
    report: Dict[str, Any] = {
        "sentences": result.sentences,
        "propositions": result.propositions,
        "perfect_propositions": result.perfect_propositions,
        "perfect": round(100 * result.perfect, 2),
        "overall": _percent(result.overall.to_dict()),
        "per_label": {k: _percent(v.to_dict()) for k, v in sorted(result.per_label.items())},
        "excluded": {k: _percent(v.to_dict()) for k, v in sorted(result.excluded.items())},
        "warnings": result.warnings,
    }
    head = (
        f"Number of Sentences    : {result.sentences:>11}\n"
        f"Number of Propositions : {result.propositions:>11}\n"
        f"Percentage of perfect props : {report['perfect']:6.2f}\n\n"
    )

    def row(name: str, counts: Dict[str, Any]) -> Tuple[Any, ...]:
        keys = ("correct", "excess", "missed", "precision", "recall", "f1")
        return (name, *(counts[k] for k in keys))

    rows = [row("Overall", report["overall"])]
    rows += [row(k, v) for k, v in report["per_label"].items()]
    rows += [row(f"{k} (excluded)", v) for k, v in report["excluded"].items()]
    table = head + _rows(("", "corr.", "excess", "missed", "prec.", "rec.", "F1"), rows)
    return report, table, [f"warning: {w}" for w in result.warnings]
