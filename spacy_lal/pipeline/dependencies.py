"""Writing decoded dependency trees onto Docs: what every dependency component shares.

The models parse units (``units.py``): sentences without their whitespace tokens, long ones cut
into pieces. :func:`set_dependencies` turns each unit's tree back into a tree over all of the
sentence's tokens:

- whitespace tokens (never shown to the model) attach to the nearest preceding word of their
  sentence (the following one at the start) with :data:`ATTACH_LABEL`;
- the root of each later piece of a long sentence attaches to the first piece's root with
  :data:`ATTACH_LABEL`, so the sentence stays one tree (and one ``doc.sents`` entry);
- tokens of no unit (a whitespace-only sentence of a Doc that has others) head themselves,
  labelled :data:`ATTACH_LABEL`. Docs without any unit (empty, whitespace only) are not passed
  here: the components leave them unparsed.
"""
from typing import Dict, List, Sequence

import numpy
from spacy.attrs import DEP, HEAD
from spacy.strings import StringStore
from spacy.tokens import Doc

from .units import Unit

__all__ = ["ATTACH_LABEL", "set_dependencies", "units_by_doc"]

ATTACH_LABEL = "dep"  # label of attachments the model does not predict (see the module docstring)


def units_by_doc(units: Sequence[Unit]) -> Dict[int, List[int]]:
    """The rows of ``units`` of each Doc (``unit.doc_index``), in unit order."""
    rows: Dict[int, List[int]] = {}
    for b, unit in enumerate(units):
        rows.setdefault(unit.doc_index, []).append(b)
    return rows


def set_dependencies(
    doc: Doc,
    units: Sequence[Unit],
    heads: Sequence[numpy.ndarray],
    labels: Sequence[numpy.ndarray],
    label_names: Sequence[str],
    strings: StringStore,
) -> None:
    """Set ``token.head`` / ``token.dep_`` of every token of ``doc`` from its units' trees.

    ``units``: the units of ``doc``, in order; ``heads[k]``: int [n + 1] for ``units[k]``
    (``heads[0]`` unused, 0 = root, word ``d`` = ``units[k].words[d - 1]``); ``labels[k]``: int
    [n], indices into ``label_names``.
    """
    head = numpy.arange(len(doc), dtype="int64")
    dep = [""] * len(doc)
    sentence_root = None
    for unit, unit_heads, unit_labels in zip(units, heads, labels):
        words = unit.words
        for k, token in enumerate(words):
            h = int(unit_heads[k + 1])
            head[token] = token if h == 0 else words[h - 1]
            dep[token] = label_names[int(unit_labels[k])]
            if h == 0:
                root = token
        if unit.piece == 0:
            sentence_root = root
        elif sentence_root is not None:
            head[root] = sentence_root
            dep[root] = ATTACH_LABEL
        word_set = set(words)
        for token in range(unit.start, unit.end):
            if token not in word_set:
                before = [w for w in words if w < token]
                head[token] = before[-1] if before else words[0]
                dep[token] = ATTACH_LABEL
    for token in range(len(doc)):
        if not dep[token]:
            dep[token] = ATTACH_LABEL
    array = numpy.zeros((len(doc), 2), dtype="uint64")
    array[:, 0] = (head - numpy.arange(len(doc))).astype("int64").view("uint64")
    array[:, 1] = [strings.add(label) for label in dep]
    doc.from_array([HEAD, DEP], array)
