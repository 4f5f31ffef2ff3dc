"""Write what a pipeline predicts on a corpus, one JSON line per Doc, to compare two versions.

    python scripts/snapshot_outputs.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --output before.jsonl
    ... change the code ...
    python scripts/snapshot_outputs.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --output after.jsonl \
        --compare before.jsonl

Each line holds the Doc's trees (PTB strings), heads, dependency labels, tags and SRL frames,
predicted from gold words and gold sentence boundaries with predicted predicates (end to end).
With ``--compare`` the script exits 1 and names the first differing Docs when the outputs are
not identical: a refactoring that keeps the weights must keep every parse.
"""
import argparse
import json
import sys
from pathlib import Path

from spacy_lal.evaluation import gold_inputs  # the same inputs as the scores


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--compare", type=Path, help="an earlier snapshot that must be identical")
    parser.add_argument("--limit", type=int, default=0, help="only the first N Docs (0 = all)")
    parser.add_argument("--float", action="store_true", help="predict in float32 (the shipped pipelines: int8)")
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    import spacy_lal

    nlp = spacy.load(args.pipeline)
    if args.float:
        spacy_lal.quantize(nlp, False)
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))
    if args.limit:
        gold = gold[: args.limit]
    inputs = gold_inputs(nlp.vocab, gold)
    if "lal_srl" in nlp.pipe_names:
        nlp.get_pipe("lal_srl").configure(predicates="predicted")
    lines = []
    for doc in nlp.pipe(inputs, batch_size=64):
        record = {
            "trees": [tree.to_string() for tree in doc._.trees],
            "heads": [t.head.i for t in doc],
            "deps": [t.dep_ for t in doc],
            "tags": [t.tag_ for t in doc],
            "srl": [str(frame) + f" <{frame.sense}>" for frame in doc._.srl],
        }
        lines.append(json.dumps(record, sort_keys=True))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("\n".join(lines) + "\n", encoding="utf8")
    print(f"{len(lines)} Docs written to {args.output}")
    if args.compare is None:
        return 0
    before = args.compare.read_text(encoding="utf8").splitlines()
    if len(before) != len(lines):
        print(f"different number of Docs: {len(before)} before, {len(lines)} now")
        return 1
    differing = [i for i, (a, b) in enumerate(zip(before, lines)) if a != b]
    if differing:
        print(f"{len(differing)} of {len(lines)} Docs differ; first ones: {differing[:10]}")
        return 1
    print(f"identical to {args.compare}: {len(lines)} Docs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
