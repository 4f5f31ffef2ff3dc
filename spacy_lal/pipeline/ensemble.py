"""An ensemble of pipelines, combined at the score level (a teacher for silver, #51).

:func:`ensemble_parse` runs each member pipeline up to its ``lal_parser`` on copies of the same
Docs (the words, and the first member's sentence boundaries), averages what the decoders read
and decodes the averages exactly, with the first member's decoder settings (the shipped
pipelines': the joint span + dependency decoder) through the code single parsers decode with
(``adapter.decode_scores``):

- span chart scores: averaged as they are. They are margins (the hinge loss of eq. 9), with no
  normalisation to undo; a tree's score is their sum, so the average scores every tree by the
  members' mean tree score.
- arc scores and dependency label scores: averaged as they are, which is averaging the members'
  log-probabilities (a product of experts). Both are trained by a softmax (over heads per
  dependent, over labels per arc), so a member's log-probability differs from its score by one
  constant per dependent (arcs) or per arc (labels); every word takes exactly one head and one
  label, so those constants add the same to every tree and labelling, and neither decoder's
  choice can depend on them. Averaging probabilities instead would need the normalised scores
  and would no longer be a sum the exact decoders maximise with the spans.
- PTB tags: the members' distributions (softmax of each tagger's scores) averaged, then argmax.

- semantic roles, where every member has ``lal_srl``: the first member's labeller finds the
  predicates (as its ``predicates`` setting says) and lemmatizes on the ensemble's trees; every
  member scores the same (sentence, predicate) rows on its own Docs; the role labels'
  log-probabilities per word (the labeller's decoders maximise their sum, as the parser's their
  scores) and the sense head's log-softmax are averaged, then decoded by the first member's
  decoder with its frame rules (rolesets of the lemma, roles they allow) and argument spans (the
  ensemble's tree).

Labels are aligned by name: the span, dependency and role label sets must be the same (in any
order; the first member's order is kept). The tag sets may differ (a member gives probability 0
to a tag it lacks; the union is the ensemble's tag set), and so may the sense classes, which
depend on which rare senses a training run kept: the first member's classes are decoded, a class
another member lacks gets that member's lowest log-probability of the sentence's predicate (as
unlikely as its least likely class, rather than the -inf of probability 0, which would let one
member veto a sense it never saw), and a class only another member has is dropped. The rest of
the first member's pipeline (its lemmatizer) runs on the ensemble's Docs.

An ensemble of one pipeline gives that pipeline's trees, dependencies and tags, and so does a
pipeline with itself (the average of equal float32 scores is the same scores).
"""
from dataclasses import replace
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc

from .arcs import pick_labels
from .base import Predictions
from .parser.adapter import DecodedParses, ParserBatch, ParserScores, decode_scores
from .srl.adapter import FrameScores, SrlBatch
from .units import Unit, doc_batches

__all__ = ["ensemble_parse", "average_scores", "average_frame_scores", "align_labels", "arc_label_scores", "parser_name",
           "run_components"]

PARSER_FACTORY = "lal_parser"
TAGGER_FACTORY = "tagger"
SRL_FACTORY = "lal_srl"


# Members reading the same frozen transformer share its encoder and feature cache
# (layers/transformer_features.py; 30,000 words in the shipped configs). A batch larger than the
# cache is encoded again by every member that reads the features: 40 movie reviews (31,090 words)
# in one batch parsed at 581 words/s, in batches of at most 8,000 words at 683 (session 48).
MAX_BATCH_WORDS = 8_000


def ensemble_parse(pipelines: Sequence[Language], docs: Iterable[Doc], *, batch_size: int = 64,
                   max_batch_words: int = MAX_BATCH_WORDS) -> Iterator[Doc]:
    """Parse ``docs`` (Docs of the first pipeline's vocab, or texts) with the members' averaged
    scores (module docstring); yields the first pipeline's Docs, annotated by its whole pipeline
    but for the tags, trees and dependencies, which are the ensemble's. A batch holds at most
    ``batch_size`` Docs and, unless one Doc alone is longer, ``max_batch_words`` words; a Doc's
    parse does not depend on its batch."""
    if not pipelines:
        raise ValueError("ensemble_parse: give at least one pipeline")
    first = pipelines[0]
    made = (first.make_doc(doc) if isinstance(doc, str) else doc for doc in docs)
    for batch in doc_batches(made, max_batch_words, batch_size):
        yield from _parse_batch(pipelines, batch)


def align_labels(names: Sequence[str], reference: Sequence[str], what: str, *, partial: bool = False) -> numpy.ndarray:
    """The index in ``names`` of each label of ``reference``; the two must hold the same labels,
    unless ``partial``: then a label of ``reference`` missing from ``names`` gets the index -1."""
    if partial:
        index = {name: i for i, name in enumerate(names)}
        return numpy.array([index.get(name, -1) for name in reference], dtype="int64")
    if sorted(names) != sorted(reference):
        raise ValueError(
            f"ensemble: the members' {what} differ (only in the first: {sorted(set(reference) - set(names))}, "
            f"only in another: {sorted(set(names) - set(reference))}); scores of labels one member lacks cannot be averaged"
        )
    index = {name: i for i, name in enumerate(names)}
    return numpy.array([index[name] for name in reference], dtype="int64")


def average_scores(
    members: Sequence[ParserScores],
    span_orders: Sequence[numpy.ndarray],
    dep_orders: Sequence[numpy.ndarray],
    lengths: Sequence[int],
    batch: ParserBatch,
) -> DecodedParses:
    """The members' charts, arcs and label scores averaged (labels put in the first member's order:
    ``span_orders[k]`` gives member k's chart label index of each of the first member's chart labels,
    0 = no constituent included; ``dep_orders[k]`` its dependency label index of each of the first's),
    then decoded as ``batch`` says (``adapter.decode_scores``)."""
    n_units = len(lengths)
    charts = arcs = None
    if all(chart is not None for chart in members[0].charts):
        charts = [_mean([m.charts[u][:, :, order] for m, order in zip(members, span_orders)]) for u in range(n_units)]
    if all(arc is not None for arc in members[0].arcs):
        arcs = [_mean([m.arcs[u] for m in members]) for u in range(n_units)]
    label_heads = None
    if all(entry is not None for entry in members[0].labellers):

        def label_heads(heads: List[numpy.ndarray]) -> List[numpy.ndarray]:
            per_member = [arc_label_scores(m, heads, lengths) for m in members]
            return [
                pick_labels(heads[u], _mean([scores[u][:, order] for scores, order in zip(per_member, dep_orders)]),
                            batch.root_label)
                for u in range(n_units)
            ]

    spans, heads, labels = decode_scores(n_units, charts, arcs, batch, label_heads)
    return DecodedParses(spans, heads, labels, [None] * n_units)


def _mean(arrays: List[numpy.ndarray]) -> numpy.ndarray:
    """The float32 mean (of one array: its values; of equal arrays: their values, exactly)."""
    total = numpy.array(arrays[0], dtype="float32")
    for array in arrays[1:]:
        total += array
    return total / numpy.float32(len(arrays))


def arc_label_scores(member: ParserScores, heads: List[numpy.ndarray], lengths: Sequence[int]) -> List[numpy.ndarray]:
    """Each unit's (n, labels) dependency label scores of its arcs in ``heads``, computed per
    chunk as ``arcs.label_arcs`` computes them when a parser decodes on its own."""
    chunks: Dict[int, Tuple[object, List[Tuple[int, int]]]] = {}
    for u, (labeller, row) in enumerate(member.labellers):  # type: ignore[misc]
        chunks.setdefault(id(labeller), (labeller, []))[1].append((row, u))
    scores: List[Optional[numpy.ndarray]] = [None] * len(heads)
    for labeller, rows in chunks.values():
        padded = numpy.zeros((labeller.rows, labeller.width), dtype="int64")  # type: ignore[attr-defined]
        for row, u in rows:
            padded[row, 1 : len(heads[u])] = heads[u][1:]
        values = labeller(padded)  # type: ignore[operator]
        for row, u in rows:
            scores[u] = values[row, 1 : lengths[u] + 1]
    return scores  # type: ignore[return-value]


def _component(nlp: Language, factory: str) -> Optional[str]:
    names = [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory == factory]
    return names[0] if names else None


def parser_name(nlp: Language) -> str:
    name = _component(nlp, PARSER_FACTORY)
    if name is None:
        raise ValueError(f"ensemble: a member pipeline has no {PARSER_FACTORY} (components: {nlp.pipe_names})")
    return name


def run_components(nlp: Language, names: Sequence[str], docs: List[Doc], tagger: Optional[str]) -> Optional[Tuple[Tuple[str, ...], List[numpy.ndarray]]]:
    """Run the components ``names`` of ``nlp`` over ``docs`` (in place); the tagger's labels and
    each Doc's tag distributions (tokens x tags) if ``tagger`` is among them."""
    tags = None
    for name in names:
        proc = nlp.get_pipe(name)
        if name == tagger:
            # ``Tagger.predict`` as spaCy writes it, keeping the scores it turns into tag ids.
            if any(len(doc) for doc in docs):
                scores = proc.model.predict(docs)
                proc.set_annotations(docs, proc._scores2guesses(scores))
            else:
                scores = [numpy.zeros((0, len(proc.labels)), dtype="float32") for _ in docs]
            tags = (tuple(proc.labels), [_softmax(proc.model.ops.to_numpy(s), proc.model) for s in scores])
        elif hasattr(proc, "pipe"):
            docs[:] = list(proc.pipe(docs, batch_size=max(1, len(docs))))
        else:
            docs[:] = [proc(doc) for doc in docs]
    return tags


def _softmax(scores: numpy.ndarray, model) -> numpy.ndarray:
    """A tagger's distributions: its softmax layer's output as it is if that normalises at
    prediction, else normalised here."""
    normalized = any(layer.attrs.get("softmax_normalize", False) for layer in model.walk() if "softmax_normalize" in layer.attrs)
    scores = numpy.asarray(scores, dtype="float32")
    if normalized:
        return scores
    exp = numpy.exp(scores - scores.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def _unit_key(units: Sequence[Unit]) -> List[Tuple[int, int, int, Tuple[int, ...], int]]:
    return [(u.doc_index, u.start, u.end, tuple(u.words), u.piece) for u in units]


def _parse_batch(pipelines: Sequence[Language], docs: List[Doc]) -> List[Doc]:
    first = pipelines[0]
    names = [parser_name(nlp) for nlp in pipelines]
    before = [nlp.pipe_names[: nlp.pipe_names.index(name)] for nlp, name in zip(pipelines, names)]
    taggers = [_component(nlp, TAGGER_FACTORY) for nlp in pipelines]
    preset = [[token.tag != 0 for token in doc] for doc in docs]
    members = [docs]
    tags = [run_components(first, before[0], docs, taggers[0])]
    for k, nlp in enumerate(pipelines[1:], 1):
        copies = [
            Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                sent_starts=[bool(t.is_sent_start) for t in doc])
            for doc in docs
        ]
        tags.append(run_components(nlp, before[k], copies, taggers[k]))
        members.append(copies)
    tagger0 = first.get_pipe(taggers[0]) if taggers[0] else None
    _set_tags([t for t in tags if t is not None], docs, preset, overwrite=bool(tagger0 and tagger0.cfg.get("overwrite")))

    parsers = [nlp.get_pipe(name) for nlp, name in zip(pipelines, names)]
    parser0 = parsers[0]
    units = parser0._units(docs, piece_length=parser0.cfg["piece_length"])
    decoded = None
    if units:
        batch = parser0._prediction_batch(docs, units)
        scores, span_orders, dep_orders = [], [], []
        for parser, member_docs in zip(parsers, members):
            member_units = parser._units(member_docs, piece_length=parser.cfg["piece_length"])
            if _unit_key(member_units) != _unit_key(units):
                raise ValueError("ensemble: the members cut the Docs into different sentences or pieces "
                                 "(give them the same piece_length)")
            member_batch = replace(parser._prediction_batch(member_docs, member_units), scores_only=True)
            scores.append(parser.model.predict((member_docs, member_units, member_batch)))
            span_orders.append(numpy.concatenate([[0], 1 + align_labels(parser.span_labels, parser0.span_labels, "span labels")]))
            dep_orders.append(align_labels(parser.dep_labels, parser0.dep_labels, "dependency labels"))
        decoded = average_scores(scores, span_orders, dep_orders, [len(u) for u in units], batch)
    parser0.set_annotations(docs, Predictions(units, decoded))
    after = first.pipe_names[first.pipe_names.index(names[0]) + 1 :]
    labellers = [_component(nlp, SRL_FACTORY) for nlp in pipelines]
    if len(pipelines) > 1 and labellers[0] in after and all(labellers):
        split = after.index(labellers[0])
        run_components(first, after[:split], docs, None)
        label_frames([nlp.get_pipe(name) for nlp, name in zip(pipelines, labellers)], members)
        after = after[split + 1 :]
    run_components(first, after, docs, None)
    return docs


def label_frames(labellers: Sequence[Any], members: Sequence[List[Doc]]) -> None:
    """Frames of the ensemble (module docstring) on ``members[0]``, the first member's Docs;
    ``members[k]`` holds member k's copies of them, run up to its parser."""
    first, docs = labellers[0], members[0]
    units = first._units(docs, piece_length=first.cfg["piece_length"])
    if not units:
        first.set_annotations(docs, Predictions(units, None))
        return
    scores = [first.model.predict((docs, units, first._prediction_batch(docs, units)))]
    predicates: List[List[int]] = [[] for _ in units]
    for u, position in zip(scores[0].units, scores[0].positions):
        predicates[u].append(position)
    role_orders, sense_orders = [numpy.arange(len(first.labels))], [numpy.arange(len(first.senses))]
    for labeller, member_docs in zip(labellers[1:], members[1:]):
        member_units = labeller._units(member_docs, piece_length=labeller.cfg["piece_length"])
        if _unit_key(member_units) != _unit_key(units):
            raise ValueError("ensemble: the members' labellers cut the Docs into different sentences or pieces "
                             "(give them the same piece_length)")
        found = labeller.model.predict((member_docs, member_units, SrlBatch(predicates)))
        if (found.units, found.positions) != (scores[0].units, scores[0].positions):
            raise ValueError("ensemble: a member labelled other predicates than the ones it was given")
        scores.append(found)
        role_orders.append(align_labels(labeller.labels, first.labels, "role labels"))
        sense_orders.append(align_labels(labeller.senses, first.senses, "sense classes", partial=True))
    averaged = average_frame_scores(scores, role_orders, sense_orders)
    first.set_annotations(docs, Predictions(units, first.decode(docs, units, averaged)))


def average_frame_scores(
    members: Sequence[FrameScores], role_orders: Sequence[numpy.ndarray], sense_orders: Sequence[numpy.ndarray]
) -> FrameScores:
    """The members' role log-probabilities and sense log-softmaxes averaged, row by row (the
    rows must be the same), labels put in the first member's order (``role_orders[k]``: member
    k's label index of each of the first's; in ``sense_orders[k]``, -1 for a class member k
    lacks, which gets that member's lowest log-probability of the row). One member's scores are
    returned as they are."""
    if len(members) == 1:
        return members[0]
    first = members[0]
    roles = [_mean([m.roles[r][:, order] for m, order in zip(members, role_orders)]) for r in range(len(first.units))]
    senses: List[Optional[numpy.ndarray]] = [None] * len(first.units)
    if all(row is not None for m in members for row in m.senses):
        senses = [_mean([_with_floor(_log_softmax(m.senses[r]))[order] for m, order in zip(members, sense_orders)])
                  for r in range(len(first.units))]
    return FrameScores(list(first.units), list(first.positions), roles, senses)


def _with_floor(log_probabilities: numpy.ndarray) -> numpy.ndarray:
    """The row with its minimum appended: index -1 of an alignment picks it."""
    return numpy.append(log_probabilities, log_probabilities.min())


def _log_softmax(scores: numpy.ndarray) -> numpy.ndarray:
    shifted = numpy.asarray(scores, dtype="float32") - numpy.max(scores)
    return shifted - numpy.log(numpy.exp(shifted).sum())


def _set_tags(
    tags: List[Tuple[Tuple[str, ...], List[numpy.ndarray]]], docs: List[Doc], preset: List[List[bool]], overwrite: bool
) -> None:
    """Each token's tag: the argmax of the members' averaged distributions, over the union of
    their tag sets (a tag a member lacks has probability 0 there); tokens tagged before the
    tagger ran keep their tags unless it overwrites."""
    if not tags:
        return
    union: List[str] = []
    for labels, _ in tags:
        union.extend(label for label in labels if label not in union)
    index = {label: i for i, label in enumerate(union)}
    for d, doc in enumerate(docs):
        total = numpy.zeros((len(doc), len(union)), dtype="float32")
        for labels, distributions in tags:
            total[:, [index[label] for label in labels]] += distributions[d]
        best = (total / numpy.float32(len(tags))).argmax(axis=1)
        for i, token in enumerate(doc):
            if overwrite or not preset[d][i]:
                token.tag_ = union[best[i]]
