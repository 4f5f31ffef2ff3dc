"""python scripts/calibrate_int8.py PIPELINE --train CORPUS [--sentences 1000]: measure, on the
first sentences of CORPUS (training text: never what the pipeline is scored on), the input peaks
of the parser's Linear layers (``spacy_lal.calibrate_int8``) and save them in the components'
cfg, so that their int8 copies are smoothed and take the narrow layers too (docs/speed.md,
"Smoothed int8"). Only those cfg keys change; the weights are not touched.
"""
import argparse
import sys
from itertools import islice
from pathlib import Path
from typing import List

import spacy
from spacy.tokens import DocBin

import spacy_lal

SENTENCES = 1000


def calibrate(pipeline: Path, train: Path, sentences: int = SENTENCES) -> List[str]:
    """Measure the peaks with the pipeline's first ``sentences`` Docs of ``train`` and write the
    measured components' files back; returns their names (none: nothing to calibrate)."""
    if sentences < 1:
        raise ValueError(f"--sentences must be at least 1, got {sentences}")
    nlp = spacy.load(pipeline)
    docs = list(islice(DocBin().from_disk(train).get_docs(nlp.vocab), sentences))
    if not docs:
        raise ValueError(f"{train} has no Docs")
    names = spacy_lal.calibrate_int8(nlp, docs)
    for name in names:  # their cfg alone: the weights and the vocabulary stay as they are
        nlp.get_pipe(name).to_disk(pipeline / name, exclude=["vocab", "model"])
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--train", type=Path, required=True, help="training sentences (.spacy)")
    parser.add_argument("--sentences", type=int, default=SENTENCES, help="how many (default %(default)s)")
    args = parser.parse_args()
    try:
        names = calibrate(args.pipeline, args.train, args.sentences)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{args.pipeline}: int8 input peaks of {', '.join(names) or 'no component'} measured on "
          f"{args.sentences} sentences of {args.train}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
