"""Speed of the joint span + dependency decoder against CKY and Eisner run separately.

    python benchmarks/joint_decoder.py [--lengths 10 20 40 80] [--labels 100] [--budget 0.3]

For every sentence length n it prints the time per sentence of `joint` (exact lexicalized CKY,
O(n^4)) and of `cky` + `eisner` (O(n^3) each, decoding the two trees independently, so they need
not agree), all through the public validating entry points, the ratio, and the time per sentence
of `joint_batch` over a batch of 32 sentences of that length. Scores are random normal.
"""
from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np

from spacy_lal.decode import cky, eisner, joint, joint_batch


def per_call(fn: Callable[[], Any], budget: float) -> float:
    """Seconds per call: the best of several timed rounds within about `budget` seconds."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    reps = max(1, int(budget / 5 / once))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 20, 40, 80])
    parser.add_argument("--labels", type=int, default=100)
    parser.add_argument("--budget", type=float, default=0.3, help="seconds per measurement")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    print(f"time per sentence, L = {args.labels} (validating Python entry points)\n")
    header = (f"{'n':>5}{'joint':>12}{'cky':>12}{'eisner':>12}{'cky+eisner':>12}{'ratio':>9}"
              f"{'joint_batch':>14}")
    print(header)
    print("-" * len(header))
    for n in args.lengths:
        chart = rng.normal(size=(n + 1, n + 1, args.labels)).astype(np.float32)
        arcs = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        t_joint = per_call(lambda: joint(chart, arcs), args.budget)
        t_cky = per_call(lambda: cky(chart), args.budget)
        t_eisner = per_call(lambda: eisner(arcs), args.budget)
        charts = [chart] * 32
        arc_list = [arcs] * 32
        t_batch = per_call(lambda: joint_batch(charts, arc_list), args.budget) / 32
        both = t_cky + t_eisner
        print(f"{n:>5}{t_joint * 1e6:>10.1f}us{t_cky * 1e6:>10.1f}us{t_eisner * 1e6:>10.1f}us"
              f"{both * 1e6:>10.1f}us{t_joint / both:>8.1f}x{t_batch * 1e6:>12.1f}us")


if __name__ == "__main__":
    main()
