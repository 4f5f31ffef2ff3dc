"""Corpus parsing speed: plain ``nlp.pipe`` against ``parse_corpus`` locally and on 1 and 2 Ray workers.

    python benchmarks/corpus_speed.py ../shared/assets/UD_English-EWT/en_ewt-ud-test.conllu --limit 400

The documents are the corpus's sentences (``# text =`` lines of a .conllu file, the Docs' texts
of a .spacy file, or the lines of a text file), each parsed as raw text. In every round, in turn:

- ``nlp.pipe``: the pipeline in this process, the baseline. Torch runs on ``--threads``
  threads here (default 1), as in each Ray worker (Ray gives a 1-CPU actor ``OMP_NUM_THREADS=1``),
  so ``ray x1 / nlp.pipe`` is what going through Ray costs;
- ``local``: ``parse_corpus(engine="local")``, the same pipeline plus reading, formatting and
  writing shards, so ``local / nlp.pipe`` is the driver's own overhead;
- ``ray xN``: ``parse_corpus(engine="ray", workers=N)`` on a local Ray cluster started once.
  Speed counts from the moment all workers have loaded the pipeline; their start-up (process,
  imports, pipeline load) is reported apart. ``driver CPU`` is the CPU time the driver process
  spent per second of parsing (reading, batching, Ray bookkeeping, writing): the part that does
  not scale out.

Medians over the rounds. On a real cluster: start Ray (docs/corpus-parsing.md) and pass
``--address auto`` on the head node and ``--workers`` up to the cluster's CPUs.
"""
import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).parent))

from options import add_corpus_options, write_json  # noqa: E402


def read_texts(path: Path, limit: int) -> List[str]:
    if path.suffix == ".spacy":
        import spacy
        from spacy.tokens import DocBin

        texts = [doc.text for doc in DocBin().from_disk(path).get_docs(spacy.blank("en").vocab)]
    else:
        lines = path.read_text(encoding="utf8").splitlines()
        if path.suffix == ".conllu":
            texts = [line[len("# text = "):] for line in lines if line.startswith("# text = ")]
        else:
            texts = [line for line in lines if line.strip()]
    return texts[:limit]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_corpus_options(parser)
    parser.set_defaults(limit=400, batch_size=16)
    parser.add_argument("--model", default=None, help="pipeline (default: the shipped en_lal_ewt)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray worker counts (default: 1 2)")
    parser.add_argument("--address", help="a running Ray cluster (default: start a local one)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads in this process (default: 1)")
    args = parser.parse_args(argv)

    import ray

    import spacy_lal
    from spacy_lal.corpus_parse import parse_corpus
    from spacy_lal.corpus_parse.worker import load_pipeline
    from spacy_lal.pipeline.layers.transformer_features import clear_feature_caches

    texts = read_texts(args.corpus, args.limit)
    nlp = load_pipeline(args.model)
    n_words = sum(len(doc) for doc in nlp.pipe(texts[:8]))  # warm-up; the count comes below
    tmp = Path(tempfile.mkdtemp(prefix="corpus_speed-"))
    source = tmp / "input.txt"
    source.write_text("".join(t + "\n" for t in texts), encoding="utf8")
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(args.workers), include_dashboard=False, log_to_driver=False)

    speed: Dict[str, List[float]] = {}
    startup: Dict[str, List[float]] = {}
    driver_cpu: Dict[str, List[float]] = {}
    import torch

    torch.set_num_threads(args.threads)
    for r in range(args.rounds):
        # Frozen transformer features are cached per process: no run may read an earlier one's.
        clear_feature_caches(nlp)
        start = time.perf_counter()
        n_words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=args.batch_size))
        speed.setdefault("nlp.pipe", []).append(n_words / (time.perf_counter() - start))
        runs = [("local", "local", None)] + [(f"ray x{n}", "ray", n) for n in args.workers]
        for name, engine, workers in runs:
            clear_feature_caches(nlp)
            cpu = time.process_time()
            summary = parse_corpus(source, tmp / f"{name}-{r}", model=args.model, engine=engine, workers=workers,
                                   batch_size=args.batch_size, shard_size=args.limit, progress=False)
            cpu = time.process_time() - cpu
            assert summary.documents == len(texts) and summary.words == n_words, summary
            speed.setdefault(name, []).append(summary.words_per_second)
            startup.setdefault(name, []).append(summary.startup_seconds)
            if engine == "ray":  # the local driver's CPU time is the parsing itself
                driver_cpu.setdefault(name, []).append(cpu / summary.seconds)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in speed.items()) + " words/s", flush=True)
    ray.shutdown()
    shutil.rmtree(tmp)

    base = statistics.median(speed["nlp.pipe"])
    print(f"\n{len(texts)} documents, {n_words} words, batches of {args.batch_size}, median of {args.rounds} rounds; "
          f"torch threads in this process: {args.threads}")
    print(f"{'':<8} {'words/s':>9} {'/ nlp.pipe':>11} {'start-up s':>11} {'driver CPU':>11}")
    rows = {}
    for name, values in speed.items():
        wps = statistics.median(values)
        up = statistics.median(startup[name]) if name in startup else 0.0
        cpu = f"{100 * statistics.median(driver_cpu[name]):.1f}%" if name in driver_cpu else "-"
        print(f"{name:<8} {wps:>9,.0f} {wps / base:>11.2f} {up:>11.1f} {cpu:>11}")
        rows[name] = {"words_per_second": round(wps, 1), "ratio": round(wps / base, 3), "startup_s": round(up, 2)}
        if name in driver_cpu:
            rows[name]["driver_cpu_share"] = round(statistics.median(driver_cpu[name]), 4)
    med = {name: statistics.median(values) for name, values in speed.items()}
    if "ray x1" in med and "ray x2" in med:
        print(f"ray x2 / ray x1: {med['ray x2'] / med['ray x1']:.2f}")
    pipeline = str(args.model or spacy_lal.pretrained.DEFAULT_PIPELINE)
    write_json(args.output, {"documents": len(texts), "words": n_words, "pipeline": pipeline, "runs": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
