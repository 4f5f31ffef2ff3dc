"""python scripts/score_meta.py PIPELINE TEST [--metrics DIR]: score a saved pipeline as shipped
(``scripts/evaluate.py`` with gold predicates, then end to end: roles over its own trees) and
write the scores into its ``meta.json``'s ``performance``, so ``nlp.meta`` says how good the
pipeline is as it now predicts (e.g. after a config change such as int8 prediction, which
leaves the weights alone). ``package_pipeline.py --test`` calls it on what it assembles.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict

import srsly

ROOT = Path(__file__).resolve().parents[1]

# evaluation -> (metrics file suffix, meta "performance" prefix, keys).
EVALUATIONS = {
    "gold": ("_test.json", "", ("tree_f", "tree_p", "tree_r", "dep_uas", "dep_las", "tag_acc", "pos_acc",
                                "morph_acc", "srl_f", "srl_p", "srl_r", "srl_perfect", "srl_sense_acc",
                                "words_per_second")),
    "predicted": ("_predicted_test.json", "end_to_end_", ("srl_f", "srl_pred_f")),
}


def score_meta(pipeline: Path, test: Path, metrics: Path) -> Dict[str, float]:
    """Score ``pipeline`` on ``test``, keep each evaluation's scores in
    ``metrics/<name>_test.json`` / ``<name>_predicted_test.json``, and write the
    ``performance`` of ``pipeline/meta.json``; returns it."""
    performance = {}
    for predicates, (suffix, prefix, keys) in EVALUATIONS.items():
        path = metrics / f"{pipeline.name}{suffix}"
        command = [sys.executable, str(ROOT / "scripts" / "evaluate.py"), str(pipeline), str(test)]
        subprocess.run(command + ["--srl-predicates", predicates, "--output", str(path)], check=True)
        scores = json.loads(path.read_text(encoding="utf8"))
        performance.update({prefix + k: scores[k] for k in keys if scores.get(k) is not None})
    meta = srsly.read_json(pipeline / "meta.json")
    meta["performance"] = performance
    srsly.write_json(pipeline / "meta.json", meta)
    return performance


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("test", type=Path, help="the test corpus (.spacy)")
    parser.add_argument("--metrics", type=Path, default=ROOT / "metrics", help="folder for the scores (default: %(default)s)")
    args = parser.parse_args()
    if not (args.pipeline / "meta.json").exists():
        parser.error(f"{args.pipeline} is not a saved pipeline (no meta.json)")
    print(json.dumps(score_meta(args.pipeline, args.test, args.metrics), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
