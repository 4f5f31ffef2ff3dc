"""Parse speed of lal_parser against spaCy's parser, and decoding's share of lal_parser's time.

    python benchmarks/parse_speed.py training/lal_parser/model-best training/spacy_parser/model-best corpus/ewt/test.spacy

Both pipelines parse the same sentences (gold words) in this one process, in alternating rounds,
so machine noise hits both alike; the best round of each counts. Prints words per second of
each, their ratio, and the share of lal_parser's parse time spent inside the Cython decoders
(`benchmarks/decoders.py: decode_share`).
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from options import add_corpus_options, write_json  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lal_pipeline")
    parser.add_argument("baseline_pipeline")
    add_corpus_options(parser)
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import Doc, DocBin

    import spacy_lal  # noqa: F401
    from decoders import decode_share

    lal = spacy.load(args.lal_pipeline)
    baseline = spacy.load(args.baseline_pipeline)
    gold = list(DocBin().from_disk(args.corpus).get_docs(lal.vocab))[: args.limit]
    words = [[t.text for t in d] for d in gold]
    n_words = sum(len(w) for w in words)

    def run(nlp):
        docs = [Doc(nlp.vocab, words=w) for w in words]
        start = time.perf_counter()
        for _ in nlp.pipe(docs, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    best = {"lal_parser": float("inf"), "spacy parser": float("inf")}
    for _ in range(args.rounds):
        best["lal_parser"] = min(best["lal_parser"], run(lal))
        best["spacy parser"] = min(best["spacy parser"], run(baseline))
    for name, seconds in best.items():
        print(f"{name:<14} {n_words / seconds:>9.0f} words/s  ({n_words} words, best of {args.rounds})")
    print(f"ratio lal_parser / spacy parser: {best['spacy parser'] / best['lal_parser']:.3f}")
    share = decode_share(lambda: run(lal), repeats=1)
    print(f"decoding share of lal_parser's parse time: {100 * share['share']:.2f}% "
          f"({share['decode_s']:.3f} s of {share['total_s']:.2f} s)")
    write_json(args.output, {
        "words": n_words,
        "words_per_second": {name: round(n_words / seconds, 1) for name, seconds in best.items()},
        "ratio_lal_to_baseline": round(best["spacy parser"] / best["lal_parser"], 3),
        "decode_share": round(share["share"], 4),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
