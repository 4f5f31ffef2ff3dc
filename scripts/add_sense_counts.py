"""python scripts/add_sense_counts.py PIPELINE --train CORPUS [--component lal_srl]: give a saved
pipeline's labeller the tables ``initialize`` now learns from the gold rolesets of CORPUS (the
labeller's training corpus): the sense prior's (``sense_counts``: each lemma's rolesets counted)
and the phrasal lemmas of a verb and the adverb after it (``phrasal_adverbs``, read off CORPUS's
gold dependencies: ``inventory.learn_phrasal_adverbs``), so a pipeline trained before a table
existed decides senses as a new one does. Only those cfg keys change; the weights are not touched.
"""
import argparse
import sys
from pathlib import Path

import spacy
import srsly
from spacy.tokens import DocBin

from spacy_lal.pipeline.srl.inventory import learn_phrasal_adverbs
from spacy_lal.pipeline.srl.targets import count_senses


def add_sense_counts(pipeline: Path, train: Path, component: str = "lal_srl") -> int:
    """Write the tables into ``pipeline/component/cfg``; returns how many lemmas the counts cover."""
    cfg_path = pipeline / component / "cfg"
    if not cfg_path.exists():
        raise ValueError(f"{cfg_path} does not exist: is {component!r} a component of {pipeline}?")
    cfg = srsly.read_json(cfg_path)
    if "senses" not in cfg:
        raise ValueError(f"{cfg_path} is not a lal_srl cfg (no 'senses')")
    vocab = spacy.blank("en").vocab
    frames = [frame for doc in DocBin().from_disk(train).get_docs(vocab) for frame in doc._.srl]
    counts = count_senses(frame.sense for frame in frames)
    if not counts:
        raise ValueError(f"{train} has no frames with senses (doc._.srl)")
    unknown = {suffix for table in counts.values() for suffix in table} - set(cfg["senses"])
    if unknown:
        raise ValueError(f"{train} has sense classes the labeller lacks ({sorted(unknown)[:5]}): not its corpus?")
    cfg["sense_counts"] = counts
    cfg["phrasal_adverbs"] = learn_phrasal_adverbs(
        [frame.predicate for frame in frames], [frame.sense for frame in frames], cfg["sense_lemmas"]
    )
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
    print(f"{args.pipeline}: {args.component} has the roleset counts of {n} lemmas and the phrasal adverbs from {args.train}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
