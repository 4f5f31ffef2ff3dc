"""The student's size against its speed (issue #52): students of several sizes, each distilled
from the same teacher's silver for the same minutes, scored on EWT test and timed against spaCy's
parser pipeline and benepar in the same rounds, drawn on shared axes.

    python scripts/size_curve.py metrics/size_curve --minutes 60 --silver corpus/silver/teacher \\
        --size wide --size narrow --size narrower --run wide=spacy_lal/pipelines/en_lal_ewt

A size (``SIZES``) is a set of overrides of the student's recipe (``--config``, by default
``configs/lal_ewt_student_cpu.cfg``: en_lal_ewt's architecture, gold EWT beside the silver).
Each size not given by ``--run`` is trained (``python -m spacy_lal train`` into
``training/size_curve/NAME``; an existing ``model-best`` there is reused) and assembled as
en_lal_ewt is (``scripts/package_pipeline.py``: its senter and lemmatizer, the sense counts of
``--train``, int8 as shipped) into ``training/size_curve/NAME/en_lal_ewt_NAME``; a ``--run`` pipeline is
taken as it is. Every pipeline is scored on ``--test`` (gold words: trees, LAS, tags; roles with
gold predicates and end to end) and on the behavioural checks (core and everyday). Then one
``benchmarks/benepar_speed.py`` run times every parser pipeline (int8, as shipped), benepar and
spaCy's parser in the same rounds, and one ``benchmarks/parse_speed.py --quantize`` run the whole
pipelines. Writes ``OUT/size_curve.json`` and ``OUT/size_curve.svg``: tree F1, LAS, roles end to
end and the checks against the parser pipeline's speed as a share of spaCy's, benepar's speed a
dashed line in every panel.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Sequence

from learning_curves import COLOURS, ticks
from spacy_lal.svg import document, escape

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from options import pipeline_suffix  # noqa: E402

# Overrides of the student's recipe. "wide" is en_lal_ewt's own; "narrow" the narrower recipe of
# session 18 (docs/experiments.md, distilled in session 30: 0.54 of spaCy's parser pipeline in
# int8); "narrower" and "shallow" go further in width and in depth; "deep" spends what "narrow"
# saves on two more self-attention layers (Kitaev and Klein's parser has eight).
SIZES: Dict[str, Dict[str, Any]] = {
    "wide": {},
    "narrow": {
        "components.tok2vec.model.encode.width": 128,
        "components.lal_parser.model.d_model": 192,
        "components.lal_parser.model.d_ff": 384,
        "components.lal_parser.model.d_arc": 192,
    },
    "narrower": {
        "components.tok2vec.model.encode.width": 96,
        "components.lal_parser.model.d_model": 128,
        "components.lal_parser.model.d_ff": 256,
        "components.lal_parser.model.d_arc": 128,
    },
    "shallow": {
        "components.tok2vec.model.encode.width": 128,
        "components.tok2vec.model.encode.depth": 2,
        "components.lal_parser.model.d_model": 192,
        "components.lal_parser.model.n_layers": 1,
        "components.lal_parser.model.d_ff": 384,
        "components.lal_parser.model.d_arc": 192,
    },
    "deep": {
        "components.tok2vec.model.encode.width": 128,
        "components.lal_parser.model.d_model": 192,
        "components.lal_parser.model.n_layers": 4,
        "components.lal_parser.model.d_ff": 384,
        "components.lal_parser.model.d_arc": 192,
    },
}
# (key in a run's results, panel title); roles and checks as percentages like the rest
PANELS = [("tree_f", "tree F1"), ("dep_las", "LAS"), ("end_to_end_srl_f", "roles end to end"),
          ("checks", "behavioural checks, %")]
PANEL_W, PANEL_H, LEFT, TOP, GAP = 300, 220, 48, 28, 36


def size_overrides(name: str) -> List[str]:
    """``--key value`` arguments of ``spacy_lal train`` for the size ``name``."""
    return [arg for key, value in SIZES[name].items() for arg in (f"--{key}", json.dumps(value))]


def train(name: str, args: argparse.Namespace) -> Path:
    """The size's student, trained for ``args.minutes`` unless its ``model-best`` exists, and
    assembled as en_lal_ewt is; returns the assembled pipeline."""
    run = args.training / name
    if not (run / "model-best").exists():
        subprocess.run([sys.executable, "-m", "spacy_lal", "train", str(args.config), "--output", str(run),
                        "--minutes", f"{args.minutes:g}", "--curve", str(run / "curve.jsonl"),
                        "--paths.train", str(args.train), "--paths.dev", str(args.dev),
                        "--paths.vectors", str(args.vectors), "--paths.silver", str(args.silver),
                        *size_overrides(name)], check=True)
    pipeline = run / f"en_lal_ewt_{name}"  # the benchmarks name a pipeline by its folder
    if not (pipeline / "meta.json").exists():
        shipped = ROOT / "spacy_lal" / "pipelines" / "en_lal_ewt"
        subprocess.run([sys.executable, str(ROOT / "scripts" / "package_pipeline.py"), str(run / "model-best"),
                        str(run / "model-best"), str(shipped), str(pipeline), "--senter", str(shipped),
                        "--sense-counts", str(args.train), "--name", "lal_ewt"], check=True)
    return pipeline


def score(pipeline: Path, args: argparse.Namespace) -> Dict[str, Any]:
    """EWT test scores (``scripts/score_meta.py``: gold words, roles with gold and with predicted
    predicates, on a copy, so a shipped pipeline's meta.json is left alone) and the behavioural
    checks' pass rates."""
    import shutil

    import spacy

    from score_meta import score_meta
    from spacy_lal.behaviour import run_set

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / pipeline.name
        shutil.copytree(pipeline, copy)
        performance = score_meta(copy, args.test, Path(scratch))
    nlp = spacy.load(pipeline)
    reports = {name: run_set(nlp, name) for name in ("core", "everyday")}
    passed = sum(r.passed for r in reports.values())
    checks = sum(len(r.results) for r in reports.values())
    result: Dict[str, Any] = {key: performance[key] for key in ("tree_f", "dep_las", "tag_acc", "srl_f", "end_to_end_srl_f")
                              if key in performance}
    result.update(checks=round(100 * passed / checks, 2),
                  **{f"checks_{name}": f"{r.passed}/{len(r.results)}" for name, r in reports.items()})
    return result


def time_pipelines(pipelines: Dict[str, Path], args: argparse.Namespace) -> Dict[str, Any]:
    """Speed as a share of spaCy's parser pipeline: every parser pipeline beside benepar in one
    run of ``benepar_speed.py``, every whole pipeline in one of ``parse_speed.py --quantize``."""
    with tempfile.TemporaryDirectory() as scratch:
        ours = [arg for path in pipelines.values() for arg in ("--ours", str(path))]
        common = [str(args.test), "--limit", str(args.limit), "--rounds", str(args.rounds)]
        parser_json, whole_json = Path(scratch) / "parser.json", Path(scratch) / "whole.json"
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "benepar_speed.py"), *common, *ours,
                        "--output", str(parser_json)], check=True)
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_speed.py"), *common, *ours, "--quantize",
                        "--output", str(whole_json)], check=True)
        parser_ratios = json.loads(parser_json.read_text(encoding="utf8"))["ratios"]
        whole_ratios = json.loads(whole_json.read_text(encoding="utf8"))["ratios"]
    speed = {}
    for name, path in pipelines.items():
        suffix = pipeline_suffix(path, len(pipelines) > 1)  # how the benchmarks name it
        speed[name] = {"parser": parser_ratios[f"lal_parser int8{suffix} / spaCy parser"],
                       "whole": whole_ratios[f"lal all int8{suffix} / spaCy parser"]}
    return {"runs": speed, "benepar": parser_ratios["benepar / spaCy parser"]}


def draw(results: Dict[str, Dict[str, Any]], benepar: float, minutes: float) -> str:
    """One panel per score of ``PANELS``: a point per size at (parser pipeline speed / spaCy's,
    score), and benepar's speed as a dashed line."""
    colours = {name: COLOURS[i % len(COLOURS)] for i, name in enumerate(results)}
    x_values = [r["speed"]["parser"] for r in results.values()] + [benepar, 1.0]
    x_low, x_high = 0.0, max(x_values) * 1.05
    body: List[str] = []
    drawn = 0
    for key, title in PANELS:
        points = {name: (r["speed"]["parser"], r[key]) for name, r in results.items() if key in r}
        if not points:
            continue
        x0 = drawn * (PANEL_W + GAP)
        drawn += 1
        y_values = [y for _, y in points.values()]
        y_low, y_high = min(y_values) - 1, max(y_values) + 1
        px = lambda x: x0 + LEFT + (x - x_low) / (x_high - x_low) * (PANEL_W - LEFT)  # noqa: E731
        py = lambda y: TOP + (1 - (y - y_low) / (y_high - y_low)) * PANEL_H  # noqa: E731
        body.append(f'<text x="{x0 + LEFT + (PANEL_W - LEFT) / 2}" y="16" text-anchor="middle" font-size="13">'
                    f'{escape(title)}, EWT test</text>')
        body.append(f'<rect x="{x0 + LEFT}" y="{TOP}" width="{PANEL_W - LEFT}" height="{PANEL_H}" fill="none" stroke="#999"/>')
        for tick in ticks(y_low, y_high):
            body.append(f'<line x1="{x0 + LEFT}" x2="{x0 + PANEL_W}" y1="{py(tick):.1f}" y2="{py(tick):.1f}" stroke="#eee"/>')
            body.append(f'<text x="{x0 + LEFT - 6}" y="{py(tick) + 4:.1f}" text-anchor="end" font-size="10">{tick:g}</text>')
        for tick in ticks(x_low, x_high):
            body.append(f'<text x="{px(tick):.1f}" y="{TOP + PANEL_H + 14}" text-anchor="middle" font-size="10">{tick:g}</text>')
        body.append(f'<text x="{x0 + LEFT + (PANEL_W - LEFT) / 2}" y="{TOP + PANEL_H + 30}" text-anchor="middle" '
                    "font-size=\"11\">parser pipeline's words/s, share of spaCy's</text>")
        for x, label in ((benepar, "benepar"), (1.0, "spaCy")):
            body.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{TOP}" y2="{TOP + PANEL_H}" stroke="#666" '
                        'stroke-dasharray="4,3"/>')
            body.append(f'<text x="{px(x) + 3:.1f}" y="{TOP + 12}" font-size="10" fill="#666">{label}</text>')
        for name, (x, y) in points.items():
            body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="{colours[name]}"/>')
    legend = TOP + PANEL_H + 50
    for i, name in enumerate(results):
        body.append(f'<circle cx="{LEFT + i * 120}" cy="{legend}" r="4" fill="{colours[name]}"/>')
        body.append(f'<text x="{LEFT + i * 120 + 8}" y="{legend + 4}" font-size="11">{escape(name)}</text>')
    body.append(f'<text x="{LEFT}" y="{legend + 22}" font-size="11">{minutes:g} training minutes each, '
                "int8 as shipped, one thread</text>")
    width = max(drawn, 1) * (PANEL_W + GAP)
    return document(width, legend + 32, body)


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path, help="folder for size_curve.json and size_curve.svg")
    parser.add_argument("--minutes", type=float, required=True, help="training minutes of every run")
    parser.add_argument("--size", action="append", choices=sorted(SIZES), help="a size to include (default: all)")
    parser.add_argument("--run", action="append", default=[], help="SIZE=PIPELINE: a size already trained and assembled")
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "lal_ewt_student_cpu.cfg")
    parser.add_argument("--training", type=Path, default=Path("training/size_curve"), help="where the runs are trained")
    parser.add_argument("--train", type=Path, default=Path("corpus/ewt/train.spacy"))
    parser.add_argument("--dev", type=Path, default=Path("corpus/ewt/dev.spacy"))
    parser.add_argument("--test", type=Path, default=Path("corpus/ewt/test.spacy"))
    parser.add_argument("--vectors", type=Path, default=Path("assets/vectors/glove_6b_50d"))
    parser.add_argument("--silver", type=Path, default=Path("corpus/silver/teacher"),
                        help="the teacher's parses (parse-corpus --format spacy folders)")
    parser.add_argument("--limit", type=int, default=600, help="sentences timed (default 600)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating timing rounds (default 5)")
    args = parser.parse_args(argv)
    given = {}
    for item in args.run:
        name, sep, path = item.partition("=")
        if not sep or name not in SIZES or not (Path(path) / "meta.json").exists():
            parser.error(f"--run is SIZE=PIPELINE with SIZE one of {sorted(SIZES)} and a saved pipeline, got {item!r}")
        given[name] = Path(path)
    sizes = [name for name in SIZES if name in (args.size or SIZES) or name in given]
    folders = [given[name].name for name in sizes if name in given] + [f"en_lal_ewt_{name}" for name in sizes if name not in given]
    if len(set(folders)) < len(folders):
        parser.error(f"the benchmarks name pipelines by their folders, and two are called the same: {folders}")
    pipelines = {name: given.get(name) or train(name, args) for name in sizes}
    results = {}
    for name, pipeline in pipelines.items():
        results[name] = {"pipeline": str(pipeline), "overrides": SIZES[name], **score(pipeline, args)}
        print(f"{name}: {json.dumps(results[name])}", flush=True)
    speed = time_pipelines(pipelines, args)
    for name in results:
        results[name]["speed"] = speed["runs"][name]
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "size_curve.json").write_text(json.dumps(
        {"minutes": args.minutes, "benepar": speed["benepar"], "runs": results}, indent=2) + "\n", encoding="utf8")
    (args.output / "size_curve.svg").write_text(draw(results, speed["benepar"], args.minutes), encoding="utf8")
    print(f"size_curve: {len(results)} sizes -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
