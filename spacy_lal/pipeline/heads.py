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
expect: a noun, pronoun or proper noun in a nominal role or a copular clause's predicate, with
its determiners, modifiers, compounds, possessor and the rest of its name, and without the
preposition, conjunction, subject or copula that UD attaches to it.
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


# UD relations of a nominal that heads a base noun phrase (subtypes included by their prefix):
# spaCy's English labels (nsubj, dobj, pobj, dative, appos, attr, oprd, ROOT) in UD's terms.
NP_RELATIONS = ("nsubj", "obj", "iobj", "obl", "nmod", "appos", "root", "vocative", "dislocated", "expl",
                "xcomp")
# Dependents of the noun that are inside its base noun phrase (subtypes by their prefix): to the
# left, determiners, modifiers, compounds and possessors (with their own subtrees: "a very kind
# woman", "the man's car"); to the right, the rest of a multi-word name ("Barack Obama").
LEFT_IN_NP = ("det", "amod", "nummod", "compound", "nmod:poss", "nmod:desc", "nmod:unmarked", "flat", "fixed",
              "goeswith")
RIGHT_IN_NP = ("flat", "fixed", "goeswith", "compound")
# Labels only UD has: a parser predicting them gets the UD noun chunks.
UD_MARKERS = frozenset({"obj", "obl", "nsubj:pass", "iobj", "nmod:poss"})


def _is(token, relations: Sequence[str]) -> bool:
    """Whether ``token``'s relation is one of ``relations`` or a subtype of one (case ignored)."""
    dep = token.dep_.lower()
    return any(dep == relation or dep.startswith(relation + ":") for relation in relations)


def _heads_np(word) -> bool:
    """Whether the nominal ``word`` heads a noun phrase in its own right: in a nominal relation,
    or the nominal predicate of a copular clause ("Apple is [a technology company]", whatever
    the clause's own relation)."""
    return _is(word, NP_RELATIONS) or any(child.dep_.lower() == "cop" for child in word.lefts)


def has_no_words(doc: Doc) -> bool:
    """Whether ``doc`` is one the parser leaves unparsed because it has no words (empty, or
    whitespace only): its noun chunks are none, where spaCy's iterators would raise E029 for want
    of a parse (spaCy's own parsers label whitespace tokens, so spaCy's iterators never meet one)."""
    return not doc.has_annotation("DEP") and all(token.is_space for token in doc)


def ud_noun_chunks(doclike: Union[Doc, Span]) -> Iterator[Tuple[int, int, int]]:
    """Base noun phrases of a UD dependency parse: ``(start, end, label)`` as spaCy's syntax
    iterators give them (the ``noun_chunks`` of ``Doc`` and ``Span``), never nested, in order.

    A noun, proper noun or pronoun heads one when it is in a nominal relation (:data:`NP_RELATIONS`,
    as spaCy's English iterator's labels), is the nominal predicate of a copular clause (a ``cop``
    dependent), or is a conjunct of such a nominal (each conjunct its own phrase, as in spaCy). Its
    phrase runs from the left edge of its nearest unbroken run of :data:`LEFT_IN_NP` dependents (so
    neither a preposition, conjunction or marker that UD attaches to the noun, nor the subject and
    copula of a predicate nominal, nor an adverb) to the right edge of its unbroken run of
    :data:`RIGHT_IN_NP` dependents ("Barack Obama"). A possessor (``nmod:poss``) is inside its
    possessum's phrase ("John's sister"), as spaCy's English iterator has it, and so is a title
    (``nmod:desc``, "Mr. Brown"): a left dependent of those relations heads no phrase of its own.
    A Doc that the parser left unparsed because it has no words (whitespace only) has no noun
    chunks; any other Doc without a dependency parse raises spaCy's E029, as spaCy's iterators do.
    """
    doc = doclike.doc
    if has_no_words(doc):
        return
    if not doc.has_annotation("DEP"):
        raise ValueError("[E029] noun_chunks requires the dependency parse, which requires a statistical model")
    np_label = doc.vocab.strings.add("NP")
    prev_end = -1
    for word in doclike:
        if word.pos not in (NOUN, PROPN, PRON):
            continue
        if word.head.i > word.i and _is(word, LEFT_IN_NP):  # inside the phrase of its head
            continue
        if _is(word, ("conj",)):  # coordinated with a noun phrase: one too
            first = word.head
            while _is(first, ("conj",)) and first.head.i < first.i:
                first = first.head
            if first.pos not in (NOUN, PROPN, PRON) or not _heads_np(first):
                continue
        elif not _heads_np(word):
            continue
        start = word.i
        for child in reversed(list(word.lefts)):
            if not _is(child, LEFT_IN_NP):
                break
            start = child.left_edge.i
        end = word.i + 1
        for child in word.rights:
            if not _is(child, RIGHT_IN_NP):
                break
            end = child.right_edge.i + 1
        while doc[start].is_space:  # whitespace at the sentence's start, attached to its first word
            start += 1
        while doc[end - 1].is_space:
            end -= 1
        if start <= prev_end:  # no nested or overlapping chunks
            continue
        prev_end = end - 1
        yield start, end, np_label


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
