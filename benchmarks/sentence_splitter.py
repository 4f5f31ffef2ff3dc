"""What the trained sentence splitter costs: a pipeline on raw text with its ``senter`` against
the same pipeline with spaCy's rule-based ``sentencizer`` in its place, in alternating rounds of
one process (the median round counts).

    python benchmarks/sentence_splitter.py corpus/ewt/test_docs.spacy
    python benchmarks/sentence_splitter.py corpus/ewt/test_docs.spacy --pipeline spacy_lal/pipelines/en_lal_ewt_trf

The input is the raw text of the corpus's documents (``convert ud-documents``). Printed: the
seconds of each variant, the senter's own seconds, and the ratios (issue #35: the splitter may
add a few percent at most).
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from options import write_json  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("documents", type=Path, help="a .spacy file of whole documents")
    parser.add_argument("--pipeline", default=None, help="the pipeline (default: the shipped en_lal_ewt)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--output", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args(argv)

    import spacy
    import torch
    from spacy.tokens import DocBin

    import spacy_lal

    torch.set_num_threads(1)
    with_senter = spacy_lal.load() if args.pipeline is None else spacy.load(args.pipeline)
    if "senter" not in with_senter.pipe_names:
        parser.error(f"{args.pipeline or 'en_lal_ewt'} has no senter")
    rule_based = spacy_lal.load() if args.pipeline is None else spacy.load(args.pipeline)
    rule_based.replace_pipe("senter", "sentencizer", config={"overwrite": False})
    texts = [doc.text for doc in DocBin().from_disk(args.documents).get_docs(with_senter.vocab)]
    senter = with_senter.get_pipe("senter")

    def run(nlp):
        start = time.perf_counter()
        for _ in nlp.pipe(texts, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    def senter_alone():
        docs = [with_senter.make_doc(text) for text in texts]
        start = time.perf_counter()
        for _ in senter.pipe(docs, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    run(with_senter), run(rule_based)  # warm-up
    seconds = {"senter": [], "sentencizer": [], "senter alone": []}
    for _ in range(args.rounds):
        seconds["senter"].append(run(with_senter))
        seconds["sentencizer"].append(run(rule_based))
        seconds["senter alone"].append(senter_alone())
    median = {name: statistics.median(values) for name, values in seconds.items()}
    for name, value in median.items():
        print(f"{name:>13}: {value:.2f} s (median of {args.rounds})")
    ratio = median["senter"] / median["sentencizer"]
    share = median["senter alone"] / median["senter"]
    print(f"pipeline with senter / with sentencizer: {ratio:.3f}; the senter's share of the pipeline: {share:.1%}")
    write_json(args.output, {"seconds": median, "ratio": ratio, "senter_share": share})
    return 0


if __name__ == "__main__":
    sys.exit(main())
