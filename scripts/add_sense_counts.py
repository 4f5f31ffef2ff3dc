"""python scripts/add_sense_counts.py PIPELINE --train CORPUS [--component lal_srl]: give a saved
pipeline's labeller the sense prior's table (``sense_counts``: each lemma's gold rolesets counted
in CORPUS, the labeller's training corpus), as ``initialize`` now learns it, so a pipeline trained
before the table existed decides senses as a new one does (``sense_prior``). Only that cfg key
changes; the weights are not touched.
"""
import argparse
import sys
from pathlib import Path

import spacy
import srsly
from spacy.tokens import DocBin

from spacy_lal.pipeline.srl.targets import count_senses


def add_sense_counts(pipeline: Path, train: Path, component: str = "lal_srl") -> int:
    """Write the counts into ``pipeline/component/cfg``; returns how many lemmas they cover."""
    cfg_path = pipeline / component / "cfg"
    if not cfg_path.exists():
        raise ValueError(f"{cfg_path} does not exist: is {component!r} a component of {pipeline}?")
    cfg = srsly.read_json(cfg_path)
    if "senses" not in cfg:
        raise ValueError(f"{cfg_path} is not a lal_srl cfg (no 'senses')")
    vocab = spacy.blank("en").vocab
    docs = DocBin().from_disk(train).get_docs(vocab)
    counts = count_senses(frame.sense for doc in docs for frame in doc._.srl)
    if not counts:
        raise ValueError(f"{train} has no frames with senses (doc._.srl)")
    unknown = {suffix for table in counts.values() for suffix in table} - set(cfg["senses"])
    if unknown:
        raise ValueError(f"{train} has sense classes the labeller lacks ({sorted(unknown)[:5]}): not its corpus?")
    cfg["sense_counts"] = counts
    srsly.write_json(cfg_path, cfg)
    return len(counts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--train", type=Path, required=True, help="the labeller's training corpus (.spacy)")
    parser.add_argument("--component", default="lal_srl")
    args = parser.parse_args()
    try:
        n = add_sense_counts(args.pipeline, args.train, args.component)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{args.pipeline}: {args.component} has the roleset counts of {n} lemmas from {args.train}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
