"""Put a trained pipeline on a wider static-vector table without changing what it predicts.

    python scripts/widen_static_vectors.py PIPELINE VECTORS OUTPUT

VECTORS is a pipeline whose table has the same keys and rows as PIPELINE's and the same first
columns, with more columns after them (``python -m spacy_lal vectors OUT --minilm-dims K``).
Every ``StaticVectors`` layer of every component (the tok2vec and the splitter's own tok2vec)
gets zero weights for the new columns, so OUTPUT parses exactly as PIPELINE does until training
moves those weights: a trained student can then be continued on the new features (issue #51)
instead of trained again from scratch.
"""
import argparse
import sys
from pathlib import Path
from typing import List, Optional

import numpy
import spacy
from spacy.language import Language
from spacy.vectors import Vectors

import spacy_lal  # noqa: F401  (registers the components)


def widen(nlp: Language, wider: Vectors) -> int:
    """Replace ``nlp``'s vectors by ``wider`` and zero-pad every StaticVectors layer's weights;
    returns the number of layers widened. Raises ValueError when the tables do not agree."""
    old = nlp.vocab.vectors
    width = old.shape[1]
    if wider.shape[0] != old.shape[0] or wider.shape[1] <= width:
        raise ValueError(f"the new table is {wider.shape}; the pipeline's is {old.shape}: same rows, more columns needed")
    if dict(old.key2row) != dict(wider.key2row):
        raise ValueError("the new table's keys do not map to the pipeline's rows")
    if not numpy.array_equal(numpy.asarray(old.data), numpy.asarray(wider.data)[:, :width]):
        raise ValueError("the new table's first columns are not the pipeline's vectors")
    table = Vectors(strings=nlp.vocab.strings, shape=wider.shape, name=wider.name)
    for key, row in wider.key2row.items():
        table.add(key, row=row)
    table.data[:] = wider.data
    nlp.vocab.vectors = table
    widened = 0
    for _, component in nlp.components:
        model = getattr(component, "model", None)
        if model is None:
            continue
        for node in model.walk():
            if node.name != "static_vectors" or not node.has_param("W"):
                continue
            W = node.get_param("W")
            if W.shape[1] != width:
                raise ValueError(f"a StaticVectors layer reads {W.shape[1]} columns, the table has {width}")
            padded = node.ops.alloc2f(W.shape[0], wider.shape[1])
            padded[:, :width] = W
            # thinc refuses a new width while the layer holds weights of the old one
            node.set_param("W", None)
            node.set_dim("nM", wider.shape[1], force=True)
            node.set_param("W", padded)
            widened += 1
    return widened


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("vectors", type=Path, help="a pipeline holding the wider table")
    parser.add_argument("output", type=Path)
    args = parser.parse_args(argv)
    nlp = spacy.load(args.pipeline)
    wider = spacy.load(args.vectors).vocab.vectors
    try:
        widened = widen(nlp, wider)
    except ValueError as error:
        print(f"widen_static_vectors: {error}", file=sys.stderr)
        return 1
    nlp.to_disk(args.output)
    print(f"widen_static_vectors: {widened} StaticVectors layers now read {wider.shape[1]} columns -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
