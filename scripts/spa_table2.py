"""Re-run Table 2 of Zhou et al. (2018, SPA-DP) on EWT at equal training time.

    python scripts/spa_table2.py --budget 900 --output metrics/spa_table2.json
    python scripts/spa_table2.py --budget 60 --parsing graph --encoders birnn bot   # a smoke run

For each parsing (graph, transition) and encoder (BiRNN, + vanilla attention, + ToB-SPA, + BoT-SPA)
this trains ``lal_spa_parser`` from the CPU config (``configs/spa_{parsing}_cpu.cfg``, only the
encoder changed) for ``--budget`` seconds of training steps (initialization not counted), saves
the pipeline under ``--output-dir``, and scores it on EWT test with ``scripts/evaluate.py`` (gold
words and sentences, CoNLL 2018 UAS/LAS, and words/s of parsing). Equal time rather than equal
steps is the comparison that matters for the rescan, whose cost grows with n^2: a slower
encoder gets fewer updates. The learning rate is constant (the config's initial rate), as the
number of steps is not known in advance. Prints a table and writes the rows as JSON.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
ENCODERS = ("birnn", "attention", "tob", "bot")
NAMES = {"birnn": "BiRNN", "attention": "+ vanilla attention", "tob": "+ ToB-SPA", "bot": "+ BoT-SPA"}


def train_for(config_path: Path, encoder: str, train: Path, budget: float, output: Path) -> Dict[str, Any]:
    """Train one variant for ``budget`` seconds of updates and save it to ``output``."""
    from spacy.training.initialize import init_nlp
    from spacy.util import load_config, registry, resolve_dot_names
    from thinc.api import fix_random_seed

    import spacy_lal  # noqa: F401

    overrides = {"paths.train": str(train), "paths.dev": str(train),
                 "components.lal_spa_parser.model.encoder": encoder}
    config = load_config(config_path, overrides=overrides, interpolate=False)
    config["training"]["optimizer"]["learn_rate"] = config["training"]["optimizer"]["learn_rate"]["initial_rate"]
    config = config.interpolate()
    fix_random_seed(config["system"]["seed"])
    nlp = init_nlp(config)
    training = registry.resolve(config["training"])
    (train_corpus,) = resolve_dot_names(config, [training["train_corpus"]])
    batcher, optimizer = training["batcher"], training["optimizer"]
    steps = words = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget:
        for batch in batcher(train_corpus(nlp)):
            nlp.update(batch, drop=training["dropout"], sgd=optimizer, annotates=training["annotating_components"])
            steps += 1
            words += sum(len(eg.reference) for eg in batch)
            if time.perf_counter() - start >= budget:
                break
    seconds = time.perf_counter() - start
    output.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    return {"steps": steps, "train_words": words, "train_seconds": round(seconds, 1)}


def evaluate(pipeline: Path, test: Path) -> Dict[str, Any]:
    command = [sys.executable, str(ROOT / "scripts" / "evaluate.py"), str(pipeline), str(test)]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=float, required=True, help="seconds of training per variant")
    parser.add_argument("--corpus", type=Path, default=Path("corpus/ewt"), help="folder with train.spacy, test.spacy")
    parser.add_argument("--parsing", nargs="+", choices=["graph", "transition"], default=["graph", "transition"])
    parser.add_argument("--encoders", nargs="+", choices=ENCODERS, default=list(ENCODERS))
    parser.add_argument("--configs", type=Path, default=ROOT / "configs", help="folder of spa_{parsing}_cpu.cfg")
    parser.add_argument("--output-dir", type=Path, default=Path("training/spa_table2"))
    parser.add_argument("--output", type=Path, help="write the rows as JSON here")
    args = parser.parse_args(argv)
    if args.budget <= 0:
        parser.error("--budget must be positive")
    for name in ("train.spacy", "test.spacy"):
        if not (args.corpus / name).is_file():
            parser.error(f"{args.corpus / name} not found: build it with `python -m spacy project run corpus`")

    rows = []
    for parsing in args.parsing:
        for encoder in args.encoders:
            output = args.output_dir / f"{parsing}_{encoder}"
            print(f"{parsing} {encoder}: training for {args.budget:g} s", file=sys.stderr, flush=True)
            row = {"parsing": parsing, "encoder": encoder, "budget": args.budget}
            row.update(train_for(args.configs / f"spa_{parsing}_cpu.cfg", encoder, args.corpus / "train.spacy",
                                 args.budget, output))
            scores = evaluate(output, args.corpus / "test.spacy")
            row.update(uas=scores["dep_uas"], las=scores["dep_las"], words_per_second=scores["words_per_second"])
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)

    print(f"| parsing | encoder | steps in {args.budget:g} s | UAS | LAS | words/s |")
    print("|---|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['parsing']} | {NAMES[row['encoder']]} | {row['steps']} | {row['uas']:.2f} | "
              f"{row['las']:.2f} | {row['words_per_second']:.0f} |")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
