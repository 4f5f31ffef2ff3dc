"""Memory of lal_parser against spaCy's parser: what loading adds, and the peak while parsing.

    python benchmarks/memory.py training/lal_parser/model-best training/spacy_parser/model-best corpus/ewt/test.spacy

Each pipeline is measured in a fresh child process of this command (peak RSS cannot be reset
inside one process), after the same imports (spaCy, spacy_lal, torch), so the figures and their
ratio compare the pipelines and not the interpreter. Linux only (reads /proc/self/statm).
"""
import argparse
import json
import os
import resource
import subprocess
import sys

from options import add_corpus_options, write_json

MB = 1024 * 1024


def rss_mb() -> float:
    with open("/proc/self/statm") as file_:
        return int(file_.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB


def measure(pipeline: str, corpus: str, limit: int, batch_size: int, exclude: list) -> dict:
    """Run in the child: load the pipeline, parse the corpus's words, report RSS figures."""
    import spacy
    import spacy_lal  # noqa: F401
    import torch  # noqa: F401  (imported for both pipelines alike)
    from spacy.tokens import Doc, DocBin

    before = rss_mb()
    nlp = spacy.load(pipeline, exclude=exclude)
    loaded = rss_mb()
    words = [[t.text for t in d] for d in DocBin().from_disk(corpus).get_docs(nlp.vocab)][:limit]
    docs = [Doc(nlp.vocab, words=w) for w in words]
    corpus_rss = rss_mb()
    for _ in nlp.pipe(docs, batch_size=batch_size):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return {
        "load_mb": round(loaded - before, 1),
        "parse_peak_mb": round(peak - corpus_rss, 1),
        "words": sum(len(w) for w in words),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lal_pipeline")
    parser.add_argument("baseline_pipeline")
    add_corpus_options(parser, rounds=False)
    parser.add_argument("--exclude", nargs="*", default=[],
                        help="components of our pipeline to leave out (e.g. lal_srl trainable_lemmatizer: the parser alone)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.lal_pipeline, str(args.corpus), args.limit, args.batch_size, args.exclude)))
        return 0

    results = {}
    # spaCy's side: its tok2vec, tagger and parser, as benchmarks/parse_speed.py times them.
    baseline_exclude = ["ner", "lemmatizer", "attribute_ruler", "senter"]
    runs = (("lal_parser", args.lal_pipeline, args.exclude), ("spacy parser", args.baseline_pipeline, baseline_exclude))
    for name, pipeline, exclude in runs:
        command = [sys.executable, __file__, pipeline, pipeline, str(args.corpus), "--child",
                   "--limit", str(args.limit), "--batch-size", str(args.batch_size), "--exclude", *exclude]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        results[name] = json.loads(out.strip().splitlines()[-1])
        r = results[name]
        print(f"{name:<14} load {r['load_mb']:>7.1f} MB   parse peak {r['parse_peak_mb']:>7.1f} MB"
              f"   ({r['words']} words, batch {args.batch_size})")
    for key in ("load_mb", "parse_peak_mb"):
        base = results["spacy parser"][key]
        results[f"ratio_{key}"] = round(results["lal_parser"][key] / base, 2) if base > 0 else None
        print(f"ratio lal_parser / spacy parser, {key}: {results[f'ratio_{key}']}")
    write_json(args.output, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
