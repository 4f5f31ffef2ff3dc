"""Draw learning curves (a dev score against training minutes) from LearningCurveLogger files.

    python scripts/learning_curves.py OUT.svg NAME=CURVE.jsonl [NAME=CURVE.jsonl ...]
        [--score dep_las] [--score tree_f] [--title TEXT]

Each ``--score`` gets its own panel, side by side; each run is one line (a run without that score
is left out of the panel). The JSONL files are what ``python -m spacy_lal train ... --curve FILE``
writes (``spacy-lal.LearningCurveLogger.v1``): one evaluation per line with ``seconds`` and
``scores``. Scores in [0, 1] are shown as percentages.
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from spacy_lal.svg import escape, text_width

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
PANEL_W, PANEL_H, MARGIN_L, MARGIN_B, MARGIN_T, GAP = 360, 240, 48, 40, 28, 36

Curve = List[Tuple[float, float]]  # (minutes, score in %)


def read_curve(path: Path, score: str) -> Curve:
    points = []
    with path.open(encoding="utf8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not JSON ({error.msg})") from None
            value = (record.get("scores") or {}).get(score)
            if value is None or record.get("seconds") is None:
                continue
            value = float(value)
            points.append((record["seconds"] / 60, value * 100 if value <= 1 else value))
    return points


def ticks(low: float, high: float, n: int = 5) -> List[float]:
    span = max(high - low, 1e-9)
    raw = span / n
    step = min((s * 10 ** e for e in range(-2, 5) for s in (1, 2, 5) if s * 10 ** e >= raw), default=raw)
    first = (low // step) * step
    return [first + i * step for i in range(int((high - first) / step) + 2) if low <= first + i * step <= high]


def panel(x0: float, score: str, runs: Dict[str, Curve], colours: Dict[str, str]) -> List[str]:
    points = [p for curve in runs.values() for p in curve]
    if not points:
        return []
    x_max = max(p[0] for p in points) or 1.0
    y_values = [p[1] for p in points]
    # The early, low scores would squash the part worth reading: the axis starts near the
    # lowest score reached after the first fifth of the time.
    late = [y for x, y in points if x >= x_max / 5] or y_values
    y_min, y_max = max(0.0, min(late) - 5), max(y_values) + 1
    px = lambda x: x0 + MARGIN_L + x / x_max * (PANEL_W - MARGIN_L)  # noqa: E731
    py = lambda y: MARGIN_T + (1 - (min(max(y, y_min), y_max) - y_min) / (y_max - y_min)) * PANEL_H  # noqa: E731
    out = [f'<text x="{x0 + MARGIN_L + (PANEL_W - MARGIN_L) / 2}" y="16" text-anchor="middle" '
           f'font-size="13">{escape(score)} (dev)</text>',
           f'<rect x="{x0 + MARGIN_L}" y="{MARGIN_T}" width="{PANEL_W - MARGIN_L}" height="{PANEL_H}" '
           'fill="none" stroke="#999"/>']
    for tick in ticks(y_min, y_max):
        out.append(f'<line x1="{x0 + MARGIN_L - 4}" x2="{x0 + PANEL_W}" y1="{py(tick):.1f}" y2="{py(tick):.1f}" '
                   'stroke="#eee"/>')
        out.append(f'<text x="{x0 + MARGIN_L - 6}" y="{py(tick) + 4:.1f}" text-anchor="end" '
                   f'font-size="10">{tick:g}</text>')
    for tick in ticks(0, x_max):
        out.append(f'<text x="{px(tick):.1f}" y="{MARGIN_T + PANEL_H + 14}" text-anchor="middle" '
                   f'font-size="10">{tick:g}</text>')
    out.append(f'<text x="{x0 + MARGIN_L + (PANEL_W - MARGIN_L) / 2}" y="{MARGIN_T + PANEL_H + 30}" '
               'text-anchor="middle" font-size="11">training minutes (2 CPU cores)</text>')
    for name, curve in runs.items():
        if curve:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in curve)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colours[name]}" stroke-width="1.8"/>')
    return out


def draw(runs: Dict[str, Path], scores: Sequence[str], title: str = "") -> str:
    colours = {name: COLOURS[i % len(COLOURS)] for i, name in enumerate(runs)}
    body: List[str] = []
    drawn = 0
    for score in scores:
        curves = {name: read_curve(path, score) for name, path in runs.items()}
        part = panel(drawn * (PANEL_W + GAP), score, curves, colours)
        if part:
            body += part
            drawn += 1
    if not drawn:
        raise ValueError(f"no run has any of the scores {', '.join(scores)}")
    width = drawn * (PANEL_W + GAP)
    legend_y = MARGIN_T + PANEL_H + MARGIN_B + 8
    x = MARGIN_L
    for name, colour in colours.items():
        body.append(f'<line x1="{x}" x2="{x + 18}" y1="{legend_y}" y2="{legend_y}" stroke="{colour}" stroke-width="3"/>')
        body.append(f'<text x="{x + 22}" y="{legend_y + 4}" font-size="11">{escape(name)}</text>')
        x += 40 + text_width(name, 11)
    height = legend_y + 16
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{max(width, x):.0f}" height="{height}" font-family="Arial">'
    if title:
        head += f"<title>{escape(title)}</title>"
    return "\n".join([head, '<rect width="100%" height="100%" fill="white"/>', *body, "</svg>"]) + "\n"


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path)
    parser.add_argument("runs", nargs="+", help="NAME=CURVE.jsonl")
    parser.add_argument("--score", action="append", dest="scores", help="score key (repeatable; default dep_las)")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    runs = {}
    for item in args.runs:
        name, sep, path = item.partition("=")
        if not sep or not path:
            parser.error(f"runs are NAME=FILE, got {item!r}")
        if not Path(path).exists():
            parser.error(f"no curve file {path}")
        runs[name] = Path(path)
    try:
        svg = draw(runs, args.scores or ["dep_las"], args.title)
    except ValueError as error:
        print(f"learning_curves: {error}", file=sys.stderr)
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(svg, encoding="utf8")
    print(f"learning_curves: {len(runs)} runs -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
