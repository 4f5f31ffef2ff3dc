"""Training and parsing speed on a CUDA GPU against the same machine's CPU, and whether the two
parse alike (issue #38). ``scripts/gpu_check.sh`` runs every phase; each phase is a process of its
own, so that the GPU's and the CPU's runs never share Thinc's current ops or torch's state.

    python scripts/gpu_check.py train --device gpu --model /tmp/gpu_check/model
    python scripts/gpu_check.py train --device cpu
    python scripts/gpu_check.py parse --device gpu --model /tmp/gpu_check/model --output gpu.jsonl
    python scripts/gpu_check.py parse --device cpu --model /tmp/gpu_check/model --output cpu.jsonl
    python scripts/gpu_check.py compare gpu.jsonl cpu.jsonl

``train`` builds ``--config`` (default: en_lal_ewt's recipe, configs/lal_ewt_cpu.cfg) on the EWT
training set, runs ``--warmup`` updates untimed and then ``--steps`` timed ones (the batches are
the config's, in a fixed order), and prints the words per second of the timed ones. ``parse``
runs a saved pipeline over the dev texts (raw text: tokenizer and every component), one untimed
round on the first ``--warmup-docs`` texts and one timed round on all, and writes each Doc's
annotations. ``compare`` says how many Docs, tokens, trees and frames are identical.
Each phase prints one JSON line.
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def use_device(device: str) -> None:
    """Thinc's current ops on GPU 0 (``gpu``) or the CPU (``cpu``), before any model is built."""
    from thinc.api import require_cpu, require_gpu

    if device == "gpu":
        require_gpu(0)
    else:
        require_cpu()


def synchronize(device: str) -> None:
    """Wait for the GPU's queued work, so that a timer reads finished work."""
    if device == "gpu":
        import cupy
        import torch

        torch.cuda.synchronize()
        cupy.cuda.Device().synchronize()


def train(args: argparse.Namespace) -> Dict[str, Any]:
    from spacy import util
    from spacy.training.initialize import init_nlp
    from spacy.util import registry, resolve_dot_names

    import spacy_lal  # noqa: F401  (factories, architectures)

    use_device(args.device)
    overrides = {"paths.train": str(args.train), "paths.dev": str(args.dev), "paths.vectors": str(args.vectors)}
    config = util.load_config(args.config, overrides=overrides, interpolate=False)
    nlp = init_nlp(config, use_gpu=0 if args.device == "gpu" else -1)
    T = registry.resolve(nlp.config.interpolate()["training"])
    optimizer, batcher = T["optimizer"], T["batcher"]
    (train_corpus,) = resolve_dot_names(nlp.config.interpolate(), [T["train_corpus"]])
    batches: List[list] = []
    for batch in batcher(train_corpus(nlp)):
        batches.append(batch)
        if len(batches) == args.warmup + args.steps:
            break
    losses: Dict[str, float] = {}
    for batch in batches[: args.warmup]:
        nlp.update(batch, sgd=optimizer, drop=T["dropout"], losses=losses)
    synchronize(args.device)
    losses = {}
    start = time.perf_counter()
    for batch in batches[args.warmup:]:
        nlp.update(batch, sgd=optimizer, drop=T["dropout"], losses=losses)
    synchronize(args.device)
    seconds = time.perf_counter() - start
    words = sum(len(eg.reference) for batch in batches[args.warmup:] for eg in batch)
    if args.model is not None:
        nlp.to_disk(args.model)
    return {"phase": "train", "device": args.device, "steps": len(batches) - args.warmup, "words": words,
            "seconds": round(seconds, 2), "words_per_s": round(words / seconds), "losses": {k: round(v, 1) for k, v in losses.items()}}


def annotations(doc) -> Dict[str, Any]:
    """What a user reads off a parsed Doc."""
    return {
        "words": [t.text for t in doc],
        "sents": [s.start for s in doc.sents],
        "tags": [t.tag_ for t in doc],
        "morph": [str(t.morph) for t in doc],
        "deps": [(t.head.i, t.dep_) for t in doc],
        "trees": [tree.to_string() for tree in doc._.trees],
        "frames": [(f.predicate.i, f.sense, [list(a) for a in f.data.arguments]) for f in doc._.srl],
    }


def parse(args: argparse.Namespace) -> Dict[str, Any]:
    import spacy
    from spacy.tokens import DocBin

    import spacy_lal  # noqa: F401

    use_device(args.device)
    nlp = spacy.load(args.model)
    reference = DocBin().from_disk(args.dev)
    texts = [doc.text for doc in reference.get_docs(nlp.vocab)][: args.limit or None]
    list(nlp.pipe(texts[: args.warmup_docs], batch_size=args.batch_size))
    synchronize(args.device)
    start = time.perf_counter()
    docs = list(nlp.pipe(texts, batch_size=args.batch_size))
    synchronize(args.device)
    seconds = time.perf_counter() - start
    with open(args.output, "w", encoding="utf8") as out:
        for doc in docs:
            out.write(json.dumps(annotations(doc)) + "\n")
    words = sum(len(doc) for doc in docs)
    return {"phase": "parse", "device": args.device, "docs": len(docs), "words": words, "seconds": round(seconds, 2),
            "words_per_s": round(words / seconds), "batch_size": args.batch_size}


def compare(args: argparse.Namespace) -> Dict[str, Any]:
    def read(path: Path) -> List[Dict[str, Any]]:
        return [json.loads(line) for line in path.open(encoding="utf8")]

    first, second = read(args.first), read(args.second)
    if len(first) != len(second):
        raise SystemExit(f"compare: {args.first} has {len(first)} Docs, {args.second} {len(second)}")
    result: Dict[str, Any] = {"phase": "compare", "docs": len(first),
                              "identical_docs": sum(a == b for a, b in zip(first, second))}
    for field in ("tags", "morph", "deps"):
        pairs = [(x, y) for a, b in zip(first, second) for x, y in zip(a[field], b[field])]
        result[f"{field}_equal"] = f"{sum(x == y for x, y in pairs)}/{len(pairs)}"
    for field in ("words", "sents", "trees", "frames"):
        result[f"{field}_equal_docs"] = sum(a[field] == b[field] for a, b in zip(first, second))
    return result


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    phases = parser.add_subparsers(dest="phase", required=True)
    bundle = ROOT / ".gpucheck"
    p = phases.add_parser("train", help="timed training steps")
    p.add_argument("--device", choices=["gpu", "cpu"], required=True)
    p.add_argument("--config", type=Path, default=ROOT / "configs" / "lal_ewt_cpu.cfg")
    p.add_argument("--train", type=Path, default=bundle / "train.spacy")
    p.add_argument("--dev", type=Path, default=bundle / "dev.spacy")
    p.add_argument("--vectors", type=Path, default=bundle / "vectors")
    p.add_argument("--warmup", type=int, default=20, help="untimed updates first")
    p.add_argument("--steps", type=int, default=150, help="timed updates")
    p.add_argument("--model", type=Path, default=None, help="save the trained pipeline here")
    p = phases.add_parser("parse", help="timed parsing of the dev texts")
    p.add_argument("--device", choices=["gpu", "cpu"], required=True)
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--dev", type=Path, default=bundle / "dev.spacy")
    p.add_argument("--output", type=Path, required=True, help="JSONL of each Doc's annotations")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--warmup-docs", type=int, default=200)
    p.add_argument("--limit", type=int, default=0, help="parse the first N dev texts (0: all)")
    p = phases.add_parser("compare", help="are two parses' annotations identical?")
    p.add_argument("first", type=Path)
    p.add_argument("second", type=Path)
    args = parser.parse_args(argv)
    result = {"train": train, "parse": parse, "compare": compare}[args.phase](args)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
