"""Cost of the SPA-DP encoders (spacy_lal.nn.spa_encoder.SpaEncoder): the O(n^2) rescan against the BiRNN.

    python benchmarks/spa_rescan.py [--lengths 10 20 40] [--words 640] [--d-in 350]
                                    [--d-scan 400] [--d-rescan 100] [--rounds 5] [--threads 0]

For each sentence length n, a batch of `--words // n` sentences of n words (random token vectors)
goes through each encoder variant ("birnn", "attention", "tob", "bot"), in alternating rounds; it
prints the median words/s of the forward pass (parsing) and of forward + backward (training),
and each variant's time as a ratio of the BiRNN's. The defaults are the paper's graph-based sizes
(BiLSTM 400, rescan GRU 100, 300-d word vectors + 50-d tags = 350); `--d-scan 700 --d-rescan
700` gives the transition-based ones. EWT sentences average about 17 words (train); 40 is long.
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Dict, List

import torch

from spacy_lal.nn.spa_encoder import ENCODERS, SpaEncoder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--words", type=int, default=640, help="words per batch")
    parser.add_argument("--d-in", type=int, default=350)
    parser.add_argument("--d-scan", type=int, default=400)
    parser.add_argument("--d-rescan", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    encoders = {kind: SpaEncoder(args.d_in, kind, d_scan=args.d_scan, d_rescan=args.d_rescan)
                for kind in ENCODERS}
    print(f"torch threads {torch.get_num_threads()}, d_in {args.d_in}, d_scan {args.d_scan}, "
          f"d_rescan {args.d_rescan}, {args.words} words per batch, median of {args.rounds} rounds")
    print(f"{'n':>4} {'encoder':>10} {'parse w/s':>10} {'x birnn':>8} {'train w/s':>10} {'x birnn':>8}")
    for n in args.lengths:
        B = max(1, args.words // n)
        tokens = torch.randn(B, n, args.d_in)
        lengths = torch.full((B,), n)
        times: Dict[str, Dict[str, List[float]]] = {k: {"parse": [], "train": []} for k in ENCODERS}
        for _ in range(args.rounds + 1):  # the first round warms up and is dropped
            for kind, encoder in encoders.items():
                encoder.eval()
                start = time.perf_counter()
                with torch.no_grad():
                    encoder(tokens, lengths)
                times[kind]["parse"].append(time.perf_counter() - start)
                encoder.train()
                start = time.perf_counter()
                encoder(tokens, lengths).sum().backward()
                times[kind]["train"].append(time.perf_counter() - start)
                encoder.zero_grad(set_to_none=True)
        med = {k: {m: statistics.median(v[1:]) for m, v in t.items()} for k, t in times.items()}
        for kind in ENCODERS:
            p, t = med[kind]["parse"], med[kind]["train"]
            print(f"{n:>4} {kind:>10} {B * n / p:>10.0f} {p / med['birnn']['parse']:>8.2f} "
                  f"{B * n / t:>10.0f} {t / med['birnn']['train']:>8.2f}")


if __name__ == "__main__":
    main()
