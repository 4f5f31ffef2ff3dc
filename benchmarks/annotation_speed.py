"""Time each component's ``set_annotations`` alone: writing predictions to the Docs.

    python benchmarks/annotation_speed.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --limit 600
    PYTHONPATH=<older checkout> python benchmarks/annotation_speed.py ...   # the same for older code

Runs the pipeline once over the sentences (gold words and sentences), keeping each component's predictions,
then times ``set_annotations`` of each on those predictions, ``--rounds`` times, and prints the
best round per component. The models do not run in the timed part, so the figures are the
Python cost of storing trees, dependencies, tags and frames, which machine noise in a whole
pipeline's words/s would hide.
"""
import argparse
import sys
import time
from pathlib import Path

from options import add_corpus_options, write_json

from spacy_lal.evaluation import gold_inputs  # the inputs the scores are computed on


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    add_corpus_options(parser)
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.load(args.pipeline)
    docs = gold_inputs(nlp.vocab, list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit])
    predictions = {}
    for name, component in nlp.pipeline:
        if hasattr(component, "predict") and hasattr(component, "set_annotations"):
            predictions[name] = component.predict(docs)
            component.set_annotations(docs, predictions[name])
        else:
            docs = [component(doc) for doc in docs]
    best = {name: float("inf") for name in predictions}
    for _ in range(args.rounds):
        for name, prediction in predictions.items():
            start = time.perf_counter()
            nlp.get_pipe(name).set_annotations(docs, prediction)
            best[name] = min(best[name], time.perf_counter() - start)
    for name, seconds in best.items():
        print(f"{name:<22} {seconds * 1000:8.1f} ms  ({len(docs)} Docs, best of {args.rounds})")
    write_json(args.output, {"docs": len(docs), "seconds": {name: round(s, 4) for name, s in best.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
