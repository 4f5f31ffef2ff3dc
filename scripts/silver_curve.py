"""The effect of the silver amount on the distilled student (issue #36): the student's recipe
trained at each silver share for the same minutes, scored in-domain (EWT dev, gold) and on the
held-out genre (speeches the teacher parsed and no run trained on: the teacher's parses are the
reference, so the held-out figures measure agreement with the teacher, not accuracy).

    python scripts/silver_curve.py metrics/silver_curve --minutes 85 \\
        --run 0=spacy_lal/pipelines/en_lal_ewt --run 1=training/lal_ewt_student/model-best \\
        --heldout corpus/silver/heldout_teacher

Shares without a ``--run`` pipeline are trained (``python -m spacy_lal train`` on
``configs/lal_ewt_student_cpu.cfg`` with ``corpora.train.silver_fraction``, into
``training/silver_curve/SHARE``; an existing ``model-best`` there is reused). ``--heldout``
is a ``parse-corpus --format spacy`` folder of the teacher's parses of the held-out texts
(project: ``parse-heldout``). Writes ``OUT/silver_curve.json`` and ``OUT/silver_curve.svg``
(LAS and tree F1 against the silver share, one line per evaluation set).
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence

from spacy_lal.svg import document, escape

SCORES = {"dep_las": "LAS", "tree_f": "tree F1"}
SETS = {"dev": ("EWT dev (gold)", "#1f77b4"), "heldout": ("held-out speeches (teacher as reference)", "#d62728")}
PANEL_W, PANEL_H, LEFT, TOP, GAP = 320, 220, 48, 28, 40


def train(share: float, minutes: float, args: argparse.Namespace) -> Path:
    output = Path("training/silver_curve") / f"{share:g}"
    if not (output / "model-best").exists():
        subprocess.run([sys.executable, "-m", "spacy_lal", "train", str(args.config), "--output", str(output),
                        "--minutes", f"{minutes:g}", "--curve", str(output / "curve.jsonl"),
                        "--paths.train", str(args.train), "--paths.dev", str(args.dev),
                        "--paths.vectors", str(args.vectors), "--paths.silver", str(args.silver),
                        "--corpora.train.silver_fraction", f"{share:g}"], check=True)
    return output / "model-best"


def sentences(path: Path, vocab, limit: int) -> list:
    from spacy.tokens import DocBin

    from spacy_lal.doc.extensions import sentence_docs

    files = sorted(path.glob("*.spacy")) if path.is_dir() else [path]
    out = []
    for file in files:
        for doc in DocBin().from_disk(file).get_docs(vocab):
            out += sentence_docs(doc) if doc.has_annotation("SENT_START") else [doc]
            if limit and len(out) >= limit:
                return out[:limit]
    return out


def score(pipeline: Path, args: argparse.Namespace) -> Dict[str, Dict[str, float]]:
    import spacy

    from spacy_lal.evaluation import evaluate_pipeline

    from spacy_lal import quantize

    nlp = quantize(spacy.load(pipeline), False)  # every run scored in float, as it was trained
    result = {}
    for name, path, limit in (("dev", args.dev, 0), ("heldout", args.heldout, args.heldout_sentences)):
        if path is None:
            continue
        scores = evaluate_pipeline(nlp, sentences(path, nlp.vocab, limit))
        result[name] = {key: scores[key] for key in ("dep_uas", "dep_las", "tree_f", "tag_acc", "srl_f", "words")
                        if key in scores}
    return result


def draw(results: Dict[float, Dict[str, Dict[str, float]]], minutes: float) -> str:
    shares = sorted(results)
    body: List[str] = []
    for k, (key, label) in enumerate(SCORES.items()):
        x0 = k * (PANEL_W + GAP)
        values = [results[s][name][key] for s in shares for name in SETS if key in results[s].get(name, {})]
        if not values:
            continue
        low, high = min(values) - 1, max(values) + 1
        px = lambda x: x0 + LEFT + x * (PANEL_W - LEFT - 10)  # noqa: E731
        py = lambda y: TOP + (1 - (y - low) / (high - low)) * PANEL_H  # noqa: E731
        body.append(f'<text x="{x0 + LEFT + (PANEL_W - LEFT) / 2}" y="16" text-anchor="middle" font-size="13">'
                    f'{escape(label)}, {minutes:g} minutes each</text>')
        body.append(f'<rect x="{x0 + LEFT}" y="{TOP}" width="{PANEL_W - LEFT}" height="{PANEL_H}" fill="none" stroke="#999"/>')
        for tick in range(int(low) + 1, int(high) + 1):
            body.append(f'<text x="{x0 + LEFT - 6}" y="{py(tick) + 4:.1f}" text-anchor="end" font-size="10">{tick}</text>')
            body.append(f'<line x1="{x0 + LEFT}" x2="{x0 + PANEL_W}" y1="{py(tick):.1f}" y2="{py(tick):.1f}" stroke="#eee"/>')
        for share in shares:
            body.append(f'<text x="{px(share):.1f}" y="{TOP + PANEL_H + 14}" text-anchor="middle" font-size="10">{share:g}</text>')
        body.append(f'<text x="{x0 + LEFT + (PANEL_W - LEFT) / 2}" y="{TOP + PANEL_H + 30}" text-anchor="middle" '
                    'font-size="11">share of the silver texts (2.7M words)</text>')
        for name, (_, colour) in SETS.items():
            points = [(px(s), py(results[s][name][key])) for s in shares if key in results[s].get(name, {})]
            if points:
                body.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in points)}" fill="none" '
                            f'stroke="{colour}" stroke-width="1.8"/>')
                body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in points]
    legend = TOP + PANEL_H + 50
    for i, (label, colour) in enumerate(SETS.values()):
        body.append(f'<line x1="{LEFT + i * 260}" x2="{LEFT + i * 260 + 18}" y1="{legend}" y2="{legend}" stroke="{colour}" '
                    'stroke-width="3"/>')
        body.append(f'<text x="{LEFT + i * 260 + 22}" y="{legend + 4}" font-size="11">{escape(label)}</text>')
    width = len(SCORES) * (PANEL_W + GAP)
    return document(width, legend + 16, body)


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path, help="folder for silver_curve.json and silver_curve.svg")
    parser.add_argument("--minutes", type=float, required=True, help="training minutes of every run")
    parser.add_argument("--shares", type=float, nargs="+", default=[0, 0.25, 0.5, 1])
    parser.add_argument("--run", action="append", default=[], help="SHARE=PIPELINE: a run already trained")
    parser.add_argument("--config", type=Path, default=Path("configs/lal_ewt_student_cpu.cfg"))
    parser.add_argument("--train", type=Path, default=Path("corpus/ewt/train.spacy"))
    parser.add_argument("--dev", type=Path, default=Path("corpus/ewt/dev.spacy"))
    parser.add_argument("--vectors", type=Path, default=Path("assets/vectors/glove_6b_50d"))
    parser.add_argument("--silver", type=Path, default=Path("corpus/silver/parsed"))
    parser.add_argument("--heldout", type=Path, help="the teacher's parses of the held-out texts (.spacy or folder)")
    parser.add_argument("--heldout-sentences", type=int, default=2000, help="the first N held-out sentences (0: all)")
    args = parser.parse_args(argv)
    given = {}
    for item in args.run:
        share, sep, path = item.partition("=")
        if not sep or not Path(path).exists():
            parser.error(f"--run is SHARE=PIPELINE with an existing pipeline, got {item!r}")
        given[float(share)] = Path(path)
    if any(not 0 <= s <= 1 for s in [*args.shares, *given]):
        parser.error("silver shares are between 0 and 1")
    results = {}
    for share in sorted(set(args.shares) | set(given)):
        pipeline = given.get(share) or train(share, args.minutes, args)
        results[share] = {"pipeline": str(pipeline), **score(pipeline, args)}
        print(f"silver share {share:g}: {json.dumps(results[share])}", flush=True)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "silver_curve.json").write_text(json.dumps(
        {"minutes": args.minutes, "reference": {"dev": "gold", "heldout": "the teacher's parses"},
         "runs": {f"{s:g}": r for s, r in results.items()}}, indent=2) + "\n", encoding="utf8")
    (args.output / "silver_curve.svg").write_text(draw(results, args.minutes), encoding="utf8")
    print(f"silver_curve: {len(results)} runs -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
