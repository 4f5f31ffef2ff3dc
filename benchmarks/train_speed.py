"""Training speed: words per second of `nlp.update` for a training config, on EWT train batches.

    python benchmarks/train_speed.py configs/lal_parser_cpu.cfg corpus/ewt/train.spacy
    python benchmarks/train_speed.py configs/lal_srl_cpu.cfg corpus/ewt/train.spacy --steps 20 \
        --vectors assets/vectors/glove_6b_50d
    python benchmarks/train_speed.py configs/lal_joint_cpu.cfg corpus/ewt/train.spacy \
        --vectors assets/vectors/glove_6b_50d --components.lal_srl.model.sublayer ffn

Config overrides follow the options, as for ``spacy train``.

Builds the config's pipeline, initializes it on the first sentences of the corpus, then times
``--steps`` update steps on batches of about ``--words`` words (as the configs' batcher makes
them) after ``--warmup`` untimed ones, with torch on ``--threads`` threads. To compare two
versions of the code, run it under each (e.g. ``PYTHONPATH=<old checkout>``) in one shell line,
alternating; the machine is shared and noisy, so compare medians of several runs.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path


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
    args, extra = parser.parse_known_args(argv)

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


if __name__ == "__main__":
    sys.exit(main())
