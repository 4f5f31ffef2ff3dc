"""A teacher's soft dependency targets on silver Docs: distillation from distributions (#51).

Hard silver trains a student on the teacher's one decoded tree. The teacher's arc and label
distributions say more: how sure it was, and which other head it found likely (Hinton et al.'s
soft targets; Kim & Rush's word-level distillation). :func:`add_soft_targets` runs a teacher
pipeline up to its ``lal_parser`` over Docs it (or an ensemble with it) has already parsed, and
stores on each word (``doc/extensions.py``: ``set_soft_arc_targets``):

- its ``top_heads`` likeliest heads with their probabilities: the softmax of the teacher's arc
  scores over the sentence's words and the root (eq. 10 of the dependency head's biaffine; the
  word itself excluded), the most likely renormalised to sum to 1 (those under
  :data:`MIN_PROBABILITY` left out);
- the ``top_labels`` likeliest labels of the arc to its head in the Doc (the tree the silver
  trains on), from the softmax of the teacher's label scores for that arc, renormalised.

The words, sentences and pieces the teacher reads are the Docs' own (copies with the same words,
spaces and sentence starts), so a Doc its own teacher parsed gets the scores it was decoded from.
``lal_parser``'s ``soft_target_weight`` setting mixes them into its targets in training.
"""
from dataclasses import replace
from typing import Dict, Iterable, Iterator, List, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc

from ..doc.extensions import set_soft_arc_targets
from .ensemble import MAX_BATCH_WORDS, arc_label_scores, parser_name, run_components
from .parser.adapter import ParserScores
from .units import Unit, doc_batches

__all__ = ["add_soft_targets", "top_distribution"]

TOP_HEADS = 4
TOP_LABELS = 3
# Stored to 4 decimals (extensions.set_soft_arc_targets): a less likely head or label is left out
# rather than stored as 0. The likeliest is at least 1 / top, so it always stays.
MIN_PROBABILITY = 1e-4


def add_soft_targets(nlp: Language, docs: Iterable[Doc], *, top_heads: int = TOP_HEADS, top_labels: int = TOP_LABELS,
                     temperature: float = 1.0, batch_size: int = 64,
                     max_batch_words: int = MAX_BATCH_WORDS) -> Iterator[Doc]:
    """Yield ``docs`` (parsed: heads and labels set) with the teacher ``nlp``'s soft dependency
    targets stored on every word its ``lal_parser`` reads (module docstring); ``temperature``
    divides the scores before the softmax (above 1: softer distributions, Hinton et al.'s T).
    Raises ValueError for a Doc without dependencies, or a teacher without a dependency label
    head."""
    if top_heads < 1 or top_labels < 1:
        raise ValueError(f"soft targets: top_heads and top_labels must be at least 1, got {top_heads} and {top_labels}")
    if not temperature > 0:
        raise ValueError(f"soft targets: the temperature must be above 0, got {temperature}")
    name = parser_name(nlp)
    parser = nlp.get_pipe(name)
    if not parser.cfg["dependencies"]:
        raise ValueError(f"soft targets: the teacher's {name} has no dependency head")
    # The Docs' sentences are kept: a sentence splitter before the parser is not run.
    before = [pipe for pipe in nlp.pipe_names[: nlp.pipe_names.index(name)]
              if "token.is_sent_start" not in nlp.get_pipe_meta(pipe).assigns]
    for batch in doc_batches(docs, max_batch_words, batch_size):
        for doc in batch:
            if len(doc) and not doc.has_annotation("DEP"):
                raise ValueError(f"soft targets: a Doc without dependencies ({doc.text[:60]!r}): "
                                 "they are stored for the arcs of a parsed Doc (silver)")
        copies = [Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                      sent_starts=[bool(t.is_sent_start) for t in doc]) for doc in batch]
        run_components(nlp, before, copies, None)
        units = parser._units(copies, piece_length=parser.cfg["piece_length"])
        targets: List[Dict[int, Tuple[List[Tuple[int, float]], List[Tuple[str, float]]]]] = [{} for _ in batch]
        if units:
            prediction = replace(parser._prediction_batch(copies, units), scores_only=True)
            scores: ParserScores = parser.model.predict((copies, units, prediction))
            _unit_targets(batch, units, scores, parser.dep_labels, top_heads, top_labels, temperature, targets)
        for doc, doc_targets in zip(batch, targets):
            set_soft_arc_targets(doc, doc_targets)
        yield from batch


def _unit_targets(docs: Sequence[Doc], units: Sequence[Unit], scores: ParserScores, label_names: Sequence[str],
                  top_heads: int, top_labels: int, temperature: float, targets: List[Dict]) -> None:
    heads = [_doc_heads(docs[unit.doc_index], unit, arcs) for unit, arcs in zip(units, scores.arcs)]
    labels = arc_label_scores(scores, heads, [len(unit) for unit in units])
    for unit, arcs, unit_heads, unit_labels in zip(units, scores.arcs, heads, labels):
        for k, token in enumerate(unit.words):
            candidates, probabilities = top_distribution(_head_scores(arcs, k + 1) / temperature, top_heads)
            # head 0 is the root: spaCy's root heads itself
            head_pairs = [(token if h == 0 else unit.words[h - 1], p)
                          for h, p in zip(candidates, probabilities) if p >= MIN_PROBABILITY]
            ids, label_probabilities = top_distribution(numpy.asarray(unit_labels[k], dtype="float64") / temperature,
                                                        top_labels)
            label_pairs = [(label_names[i], p) for i, p in zip(ids, label_probabilities) if p >= MIN_PROBABILITY]
            targets[unit.doc_index][token] = (head_pairs, label_pairs)


def _doc_heads(doc: Doc, unit: Unit, arcs: numpy.ndarray) -> numpy.ndarray:
    """The unit's heads (n+1,) as the Doc has them (0 = root, heads[0] = -1); a head outside the
    unit (a piece of a long sentence) is the teacher's likeliest head instead, so its arc has
    label scores to read."""
    position = {token: k + 1 for k, token in enumerate(unit.words)}
    heads = numpy.full(len(unit) + 1, -1, dtype="int64")
    for k, token in enumerate(unit.words):
        head = doc[token].head.i
        if head == token:
            heads[k + 1] = 0
        elif head in position:
            heads[k + 1] = position[head]
        else:
            heads[k + 1] = int(_head_scores(arcs, k + 1).argmax())
    return heads


def _head_scores(arcs: numpy.ndarray, dependent: int) -> numpy.ndarray:
    """The dependent's row of arc scores over the root and the words, itself excluded (-inf)."""
    row = numpy.array(arcs[dependent], dtype="float64")
    row[dependent] = -numpy.inf
    return row


def top_distribution(scores: numpy.ndarray, top: int) -> Tuple[List[int], List[float]]:
    """The ``top`` likeliest indices of the softmax of ``scores`` (-inf: impossible), most likely
    first, with their probabilities renormalised to sum to 1."""
    finite = numpy.isfinite(scores)
    if not finite.any():
        raise ValueError("soft targets: every score is -inf")
    exp = numpy.where(finite, numpy.exp(scores - scores[finite].max()), 0.0)
    probabilities = exp / exp.sum()
    order = numpy.argsort(-probabilities, kind="stable")[: min(top, int(finite.sum()))]
    kept = probabilities[order]
    return order.tolist(), (kept / kept.sum()).tolist()
