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

``doc.noun_chunks`` comes from the vocab's syntax iterator, which for English expects spaCy's
ClearNLP labels (``dobj``, ``pobj``, ...). A parser trained on UD labels installs
:func:`ud_noun_chunks` instead (:func:`use_ud_noun_chunks`), so base noun phrases work as users
expect: a noun, pronoun or proper noun in a nominal role, from its left edge (without a leading
preposition or conjunction, which UD attaches to the noun) to itself.
"""
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.attrs import DEP, HEAD
from spacy.strings import StringStore
from spacy.symbols import NOUN, PRON, PROPN
from spacy.tokens import Doc, Span
from spacy.vocab import Vocab

from .units import Unit

__all__ = ["ATTACH_LABEL", "set_dependencies", "units_by_doc", "ud_noun_chunks", "use_ud_noun_chunks"]

ATTACH_LABEL = "dep"  # label of attachments the model does not predict (see the module docstring)


# UD relations of a nominal that heads a base noun phrase (subtypes included by their prefix).
NP_RELATIONS = ("nsubj", "obj", "iobj", "obl", "nmod", "appos", "root", "vocative", "dislocated", "expl")
# Left dependents that UD puts under the noun but that are not part of the noun phrase.
NOT_IN_NP = ("case", "cc", "mark", "punct")
# Labels only UD has: a parser predicting them gets the UD noun chunks.
UD_MARKERS = frozenset({"obj", "obl", "nsubj:pass", "iobj", "nmod:poss"})


def ud_noun_chunks(doclike: Union[Doc, Span]) -> Iterator[Tuple[int, int, int]]:
    """Base noun phrases of a UD dependency parse: ``(start, end, label)`` as spaCy's syntax
    iterators give them (the ``noun_chunks`` of ``Doc`` and ``Span``)."""
    doc = doclike.doc
    if not doc.has_annotation("DEP"):
        raise ValueError("[E029] noun_chunks requires the dependency parse, which requires a statistical model")
    np_label = doc.vocab.strings.add("NP")
    prev_end = -1
    for word in doclike:
        # A possessor ("John's") is inside its possessum's phrase ("John's sister").
        if word.pos not in (NOUN, PROPN, PRON) or word.dep_ == "nmod:poss":
            continue
        relation = word.dep_.split(":")[0].lower()
        if relation == "conj":  # coordinated with a noun phrase: one too
            head = word.head
            while head.dep_ == "conj" and head.head.i < head.i:
                head = head.head
            if head.pos not in (NOUN, PROPN, PRON):
                continue
            relation = head.dep_.split(":")[0].lower()
        if relation not in NP_RELATIONS:
            continue
        start = word.left_edge.i
        while start < word.i and doc[start].dep_.split(":")[0] in NOT_IN_NP:
            start += 1
        if start <= prev_end:  # no nested chunks
            continue
        prev_end = word.i
        yield start, word.i + 1, np_label


def use_ud_noun_chunks(vocab: Vocab, labels: Iterable[str], doc: Optional[Doc] = None) -> None:
    """If ``labels`` are UD dependency labels, make ``vocab`` (for the Docs it makes from now
    on) and ``doc`` (a Doc keeps the iterator of its creation) give UD noun chunks."""
    if not UD_MARKERS.intersection(labels):
        return
    vocab.get_noun_chunks = ud_noun_chunks
    if doc is not None:
        doc.noun_chunks_iterator = ud_noun_chunks


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
    use_ud_noun_chunks(doc.vocab, label_names, doc)
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
