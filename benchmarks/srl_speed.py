"""Speed of lal_srl: argmax against constrained BIO Viterbi decoding (Tan et al.'s Table 4), or
one labeller against another.

    python benchmarks/srl_speed.py training/lal_srl/model-best corpus/ewt/test.spacy
    python benchmarks/srl_speed.py NEW corpus/ewt/test.spacy --baseline OLD [--decoder viterbi]
    python benchmarks/srl_speed.py PIPELINE corpus/ewt/test.spacy --baseline-one-pass

The same sentences, with their gold predicates, are labelled in alternating rounds of the two
decoders (or of the two pipelines, with ``--baseline``; or of the pipeline and the same weights
run in one forward pass per ``nlp.pipe`` batch, as before length-sorted chunks, with
``--baseline-one-pass``) in this one process, so machine noise hits both alike; the best round of
each counts. Prints tokens per second of each and their ratio.

A labeller that listens to the pipeline's tok2vec (the joint recipes) is timed without it: the
tok2vec runs first, untimed, as it runs for the parser anyway, so the figure is what the labeller
adds to a pipeline. A labeller with a tok2vec of its own is timed with it.
"""
import argparse
import sys
import time

from options import add_corpus_options, write_json


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    add_corpus_options(parser)
    baseline = parser.add_mutually_exclusive_group()
    baseline.add_argument("--baseline", help="a second pipeline with lal_srl: compare the two labellers")
    baseline.add_argument("--baseline-one-pass", action="store_true",
                          help="compare with the same labeller run in one pass per nlp.pipe batch")
    parser.add_argument("--decoder", choices=["argmax", "viterbi"], default="viterbi",
                        help="decoder of both labellers with --baseline (default: %(default)s)")
    args = parser.parse_args(argv)

    import spacy
    from spacy.ml.models.tok2vec import Tok2VecListener
    from spacy.tokens import Doc, DocBin
    from spacy_lal import mark_predicates
    from spacy_lal.pipeline.layers.transformer_features import clear_feature_caches

    def load(path: str, one_pass: bool = False):
        # Only the labeller runs (after its upstream tok2vec, if it listens to one): the
        # predicates are marked from the gold frames.
        nlp = spacy.load(path)
        nlp.select_pipes(enable=["lal_srl", *upstream(nlp)])
        srl = nlp.get_pipe("lal_srl")
        srl.configure(predicates="gold")
        if one_pass:
            srl.model.attrs["max_chart_cells"] = 0
            srl.BUCKET_BATCHES = 1
        return nlp

    def upstream(nlp) -> list:
        """The tok2vec components lal_srl listens to (none if it has a tok2vec of its own)."""
        listeners = [node for node in nlp.get_pipe("lal_srl").model.walk() if isinstance(node, Tok2VecListener)]
        return [listener.upstream_name for listener in listeners]

    nlp = load(args.pipeline)
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit]
    n_tokens = sum(len(d) for d in gold)
    if args.baseline or args.baseline_one_pass:
        other = load(args.pipeline, one_pass=True) if args.baseline_one_pass else load(args.baseline)
        runs = {"pipeline": (nlp, args.decoder), "baseline": (other, args.decoder)}
    else:
        runs = {"argmax": (nlp, "argmax"), "viterbi": (nlp, "viterbi")}

    def run(name: str) -> float:
        pipeline, decoder = runs[name]
        srl = pipeline.get_pipe("lal_srl")
        srl.configure(decoder=decoder)
        docs = [Doc(pipeline.vocab, words=[t.text for t in d]) for d in gold]
        for doc, ref in zip(docs, gold):
            mark_predicates(doc, [frame.predicate.i for frame in ref._.srl])
        for tok2vec in upstream(pipeline):  # sets doc.tensor, which the listener reads
            docs = list(pipeline.get_pipe(tok2vec).pipe(docs, batch_size=args.batch_size))
        clear_feature_caches(pipeline)  # a round must not read the frozen features of the one before
        start = time.perf_counter()
        for _ in srl.pipe(docs, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    best = {name: float("inf") for name in runs}
    for _ in range(args.rounds):
        for name in best:
            best[name] = min(best[name], run(name))
    for name, seconds in best.items():
        print(f"{name:<8} {n_tokens / seconds:>9.0f} tokens/s  ({n_tokens} tokens, best of {args.rounds})")
    first, second = best
    ratio = best[second] / best[first]
    print(f"ratio {first} / {second} speed: {ratio:.3f}")
    write_json(args.output, {
        "tokens": n_tokens,
        "tokens_per_second": {name: round(n_tokens / s, 1) for name, s in best.items()},
        f"ratio_{first}_to_{second}": round(ratio, 3),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
