"""Training speed: words per second of `nlp.update` for a training config, on EWT train batches.

    python benchmarks/train_speed.py configs/lal_parser_cpu.cfg corpus/ewt/train.spacy
    python benchmarks/train_speed.py configs/lal_srl_cpu.cfg corpus/ewt/train.spacy --steps 20 \
        --vectors assets/vectors/glove_6b_50d
    python benchmarks/train_speed.py configs/lal_joint_cpu.cfg corpus/ewt/train.spacy \
        --vectors assets/vectors/glove_6b_50d --components.lal_srl.model.sublayer ffn
    python benchmarks/train_speed.py configs/lal_srl_deepatt_cpu.cfg corpus/ewt/train.spacy --steps 12 \
        --rounds 3 --baseline OLD/configs/lal_srl_cpu.cfg --baseline-code OLD

Config overrides follow the options, as for ``spacy train``; with ``--baseline`` they apply to
CONFIG only (the baseline may be another config, under another version of the code).

Builds the config's pipeline, initializes it on the first sentences of the corpus, then times
``--steps`` update steps on batches of about ``--words`` words (as the configs' batcher makes
them) after ``--warmup`` untimed ones, with torch on ``--threads`` threads.

``--baseline CONFIG`` times a second config in the same command, each measurement in a fresh
process, the two alternating for ``--rounds`` rounds (the machine is shared and noisy), and prints
both medians and their ratio. ``--baseline-code CHECKOUT`` runs the baseline under another
version of spacy-lal (``PYTHONPATH``; its Cython modules built with ``python setup.py build_ext
--inplace``). A checkout older than a factory the installed package declares needs a stub module
for it: spaCy loads every ``spacy_factories`` entry point (before the SPA parser, e.g., a
``spacy_lal/pipeline/spa/component.py`` defining ``make_lal_spa_parser``).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--words", type=int, default=1000, help="words per batch (the configs' size)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init-sentences", type=int, default=2000)
    parser.add_argument("--vectors", help="static vectors (paths.vectors) for configs whose tok2vec reads them")
    parser.add_argument("--baseline", type=Path, help="a config to time against CONFIG, alternating")
    parser.add_argument("--baseline-code", type=Path, help="checkout of spacy-lal that runs the baseline")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds with --baseline")
    args, extra = parser.parse_known_args(argv)
    if args.baseline is not None:
        return compare(args, extra)

    import torch
    from spacy.cli._util import parse_config_overrides

    from options import initialized_training

    overrides = parse_config_overrides(extra)
    torch.set_num_threads(args.threads)
    nlp, optimizer, batches = initialized_training(args.config, args.corpus, args.vectors, args.init_sentences, args.words,
                                                   overrides)
    needed = args.warmup + args.steps
    if len(batches) < needed:
        raise SystemExit(f"only {len(batches)} batches of {args.words} words: raise --init-sentences")
    times, words = [], []
    for k, batch in enumerate(batches[:needed]):
        start = time.perf_counter()
        nlp.update(batch, sgd=optimizer, losses={})
        if k >= args.warmup:
            times.append(time.perf_counter() - start)
            words.append(sum(len(eg.y) for eg in batch))
    print(f"{args.config.name}: {sum(words) / sum(times):.0f} words/s over {args.steps} steps "
          f"(median step {statistics.median(times):.2f} s, {statistics.mean(words):.0f} words a step, "
          f"{args.threads} torch threads, components {nlp.pipe_names})")
    return 0


def compare(args: argparse.Namespace, extra: List[str]) -> int:
    """Time ``args.config`` (this code) and ``args.baseline`` (``--baseline-code``'s) in fresh
    processes, alternating, and print the medians and their ratio."""
    common = [str(args.corpus.resolve()), "--steps", str(args.steps), "--warmup", str(args.warmup), "--words",
              str(args.words), "--threads", str(args.threads), "--init-sentences", str(args.init_sentences)]
    if args.vectors:
        common += ["--vectors", str(Path(args.vectors).resolve())]
    runs = {"config": [], "baseline": []}
    for _ in range(args.rounds):
        for kind, config, code in (("baseline", args.baseline, args.baseline_code), ("config", args.config, None)):
            line = _run_once([str(config.resolve())] + common + (extra if kind == "config" else []), code)
            print(f"{kind}: {line}", flush=True)
            runs[kind].append(float(re.match(r".*?: (\d+) words/s", line).group(1)))
    new, old = statistics.median(runs["config"]), statistics.median(runs["baseline"])
    print(f"median words/s: {args.config.name} {new:.0f}, baseline {args.baseline.name} {old:.0f} "
          f"({args.baseline_code or 'this code'}); ratio {new / old:.2f}")
    return 0


def _run_once(arguments: List[str], code: Optional[Path]) -> str:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code.resolve()), env.get("PYTHONPATH")]))
    # The options module sits beside this script; run from here so that it is found under either code.
    done = subprocess.run([sys.executable, str(Path(__file__).resolve())] + arguments, env=env,
                          cwd=Path(__file__).parent, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"train_speed.py failed (PYTHONPATH={code}):\n{done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


if __name__ == "__main__":
    sys.exit(main())
