"""Speed cost of constrained decoding: lal_parser with and without constraints (the gold NPs
that contain a proper noun, as `scripts/evaluate.py --gold-np-constraints require` uses), and
lal_srl's "tree" decoder against BIO Viterbi.

    python benchmarks/constraint_speed.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --limit 300

Alternating rounds of each pair in this one process, so machine noise hits both alike; prints the
best and the median round of each and the ratios (the parser pair runs without lal_srl and the
lemmatizer, the SRL pair on Docs already parsed, with the gold predicates).
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

from options import add_corpus_options, write_json

from spacy_lal.evaluation import GOLD_NP_KEY, gold_inputs, proper_noun_phrases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    add_corpus_options(parser)
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    from spacy_lal import mark_predicates

    nlp = spacy.load(args.pipeline)
    lal_parser, srl = nlp.get_pipe("lal_parser"), nlp.get_pipe("lal_srl")
    srl.configure(predicates="gold")
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit]
    n_words = sum(len(d) for d in gold)
    parse_pipes = [name for name in nlp.pipe_names if name not in ("lal_srl", "trainable_lemmatizer")]

    def inputs():
        docs = gold_inputs(nlp.vocab, gold)
        for doc, ref in zip(docs, gold):
            doc.spans[GOLD_NP_KEY] = [doc[s:e] for s, e in proper_noun_phrases(ref)]
            mark_predicates(doc, [frame.predicate.i for frame in ref._.srl])
        return docs

    def parse(constrained: bool) -> float:
        lal_parser.set_constraints(require=[f"spans:{GOLD_NP_KEY}"] if constrained else [])
        docs = inputs()
        with nlp.select_pipes(enable=parse_pipes):
            start = time.perf_counter()
            for _ in nlp.pipe(docs, batch_size=args.batch_size):
                pass
            return time.perf_counter() - start

    with nlp.select_pipes(enable=parse_pipes):
        parsed = list(nlp.pipe(inputs(), batch_size=args.batch_size))

    def label(decoder: str) -> float:
        srl.set_decoder(decoder)
        start = time.perf_counter()
        for _ in srl.pipe(parsed, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    rounds = {"parser": [], "parser + constraints": [], "srl viterbi": [], "srl tree": []}
    for _ in range(args.rounds):
        rounds["parser"].append(parse(False))
        rounds["parser + constraints"].append(parse(True))
        rounds["srl viterbi"].append(label("viterbi"))
        rounds["srl tree"].append(label("tree"))
    result = {"words": n_words, "rounds": args.rounds}
    for name, times in rounds.items():
        print(f"{name:<22} best {n_words / min(times):>7.0f} words/s  median {n_words / statistics.median(times):>7.0f}")
        result[name] = {"best_words_per_second": round(n_words / min(times), 1), "seconds": [round(t, 2) for t in times]}
    for slow, fast in (("parser + constraints", "parser"), ("srl tree", "srl viterbi")):
        ratio = statistics.median(a / b for a, b in zip(rounds[slow], rounds[fast]))
        print(f"time {slow} / {fast}: {ratio:.3f} (median of per-round ratios)")
        result[f"ratio {slow} / {fast}"] = round(ratio, 3)
    write_json(args.output, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
