"""Speed of lal_srl with argmax against constrained BIO Viterbi decoding (Tan et al.'s Table 4).

    python benchmarks/srl_speed.py training/lal_srl/model-best corpus/ewt/test.spacy

One pipeline labels the same sentences, with their gold predicates, in alternating rounds
of the two decoders in this one process, so machine noise hits both alike; the best round of
each counts. Prints tokens per second of each and their ratio.
"""
import argparse
import sys
import time

from options import add_corpus_options, write_json


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    add_corpus_options(parser)
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import Doc, DocBin
    from spacy_lal.pipeline.lal_srl import mark_predicates

    nlp = spacy.load(args.pipeline)
    srl = nlp.get_pipe("lal_srl")
    srl.cfg["predicates"] = "gold"
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit]
    n_tokens = sum(len(d) for d in gold)

    def run(decoder: str) -> float:
        srl.cfg["decoder"] = decoder
        docs = [Doc(nlp.vocab, words=[t.text for t in d]) for d in gold]
        for doc, ref in zip(docs, gold):
            mark_predicates(doc, [frame.predicate.i for frame in ref._.srl])
        start = time.perf_counter()
        for _ in nlp.pipe(docs, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    best = {"argmax": float("inf"), "viterbi": float("inf")}
    for _ in range(args.rounds):
        for decoder in best:
            best[decoder] = min(best[decoder], run(decoder))
    for decoder, seconds in best.items():
        print(f"{decoder:<8} {n_tokens / seconds:>9.0f} tokens/s  ({n_tokens} tokens, best of {args.rounds})")
    ratio = best["argmax"] / best["viterbi"]
    print(f"ratio viterbi / argmax speed: {ratio:.3f}")
    write_json(args.output, {
        "tokens": n_tokens,
        "tokens_per_second": {d: round(n_tokens / s, 1) for d, s in best.items()},
        "ratio_viterbi_to_argmax": round(ratio, 3),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
