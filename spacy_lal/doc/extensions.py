"""Storage of trees and SRL frames on a Doc: the one place that knows its format.

Everything is stored in token-level extension values (plain lists, dicts and strings), which
spaCy keeps in ``doc.user_data`` under the token's character offset, so annotations survive DocBin
(store_user_data=True), ``to_bytes``/``from_bytes``, pickling, ``Doc.from_docs`` (which shifts
those offsets) and ``nlp.pipe(n_process=...)``:

- ``token._.lal_tree`` on the first token of a parsed sentence:
  ``{"n": number of tokens, "spans": [[start, end, [labels...]], ...]}``, offsets relative to that
  token, pre-order, root span included. The tree covers the ``n`` tokens from that token, whatever
  ``doc.sents`` says later. Stored values are never modified in place, only replaced.
- ``token._.lal_frame`` on a predicate: ``{"sense": str | None, "args": [[start - p, end - p,
  label], ...]}``, offsets relative to the predicate ``p``.
- ``doc.user_data["lal_srl_partial"]`` (:data:`PARTIAL_SRL`): True when the frames annotate only
  some of the Doc's predicates (``convert propbank-examples``).
- a teacher's soft dependency targets (:data:`SOFT_ARCS_ATTR`, silver for distillation:
  ``pipeline/soft_targets.py``), under a dependent: ``{"heads": [[head - i, p], ...], "labels":
  [[label, p], ...]}``, its likeliest heads (offsets relative to the dependent ``i``; 0 = root) and
  the labels of its arc to the Doc's own head, each with its probability. No ``._`` attribute
  reads them: only training does (:func:`soft_arc_targets`).

The read-only ``._`` attributes over these values (``doc._.trees``, ``doc._.srl``, benepar's
span API) are :mod:`spacy_lal.doc.api`'s, which reads them through :func:`stored_values` and
:func:`tree_before`.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.attrs import IDX
from spacy.tokens import Doc, Span

from .frames import FrameData, check_frame
from .tree import LabelledSpan, check_spans

TREE_ATTR = "lal_tree"
FRAME_ATTR = "lal_frame"
# doc.user_data[PARTIAL_SRL] = True: the Doc's frames annotate only some of its predicates (a
# PropBank frame-file example: one predicate), so lal_srl learns nothing about the others
# (neither that they are predicates nor that they are not). Absent or False: every predicate is.
PARTIAL_SRL = "lal_srl_partial"
SOFT_ARCS_ATTR = "lal_soft_arcs"


# -- setting ---------------------------------------------------------------------------------


def set_tree(sent: Span, spans: Iterable[Tuple[int, int, Sequence[str]]], root_label: str = "S") -> None:
    """Store the tree of ``sent`` given by labelled spans relative to ``sent`` (as
    :meth:`Tree.to_spans` gives them; a root labelled ``root_label`` is added if missing).

    Any stored tree overlapping ``sent`` is removed first, so a parser that sets the tree of every
    sentence also removes the trees of sentences that have since been split or merged. Raises
    ValueError for spans outside ``sent``, crossing spans or bad labels.
    """
    canonical = check_spans(len(sent), spans, root_label)
    doc = sent.doc
    for first, value in stored_values(doc, TREE_ATTR).items():
        if first < sent.end and first + value["n"] > sent.start:
            doc[first]._.set(TREE_ATTR, None)
    _store_tree(sent, canonical)


def set_trees(doc: Doc, trees: Iterable[Tuple[Span, Iterable[Tuple[int, int, Sequence[str]]]]],
              root_label: str = "S") -> None:
    """Replace every stored tree of ``doc`` with these ``(sentence, spans)`` trees, each as in
    :func:`set_tree`; the sentences must not overlap. What a parser does for a whole Doc, without
    looking for overlapping trees one sentence at a time. Raises ValueError."""
    checked = sorted(((sent, check_spans(len(sent), spans, root_label)) for sent, spans in trees),
                     key=lambda tree: tree[0].start)
    for (before, _), (after, _) in zip(checked, checked[1:]):
        if after.start < before.end:
            raise ValueError(f"trees of overlapping sentences: {describe_span(before)} and {describe_span(after)}")
    clear_trees(doc)
    for sent, canonical in checked:
        _store_tree(sent, canonical)


def _store_tree(sent: Span, canonical: List[LabelledSpan]) -> None:
    value = {"n": len(sent), "spans": [[start, end, list(labels)] for start, end, labels in canonical]}
    sent[0]._.set(TREE_ATTR, value)


def clear_trees(doc: Doc) -> None:
    """Remove every stored tree of ``doc``."""
    _clear(doc, TREE_ATTR)


def stored_trees(doc: Doc) -> Iterator[Tuple[int, int, List[Tuple[int, int, Tuple[str, ...]]]]]:
    """Each tree stored on ``doc``, in order, as ``(first token, number of tokens, labelled
    spans relative to that token)``: the storage format read back as it was written."""
    for first, value in stored_values(doc, TREE_ATTR).items():
        spans = [(int(s), int(e), tuple(labels)) for s, e, labels in value["spans"]]
        yield first, int(value["n"]), spans


def set_frames(doc: Doc, frames: Iterable[FrameData]) -> None:
    """Replace the frames stored on ``doc`` with ``frames`` (at most one per predicate token).

    Each frame is validated with :func:`spacy_lal.doc.frames.check_frame`; raises ValueError.
    """
    values: Dict[int, dict] = {}
    for frame in frames:
        frame = check_frame(doc, frame)
        p = frame.predicate
        if p in values:
            raise ValueError(f"two frames for predicate {p} ({doc[p].text!r})")
        args = [[start - p, end - p, label] for start, end, label in frame.arguments]
        values[p] = {"sense": frame.sense, "args": args}
    clear_frames(doc)
    for p, value in values.items():
        doc[p]._.set(FRAME_ATTR, value)


def clear_frames(doc: Doc) -> None:
    """Remove every stored frame of ``doc``."""
    _clear(doc, FRAME_ATTR)


def set_soft_arc_targets(doc: Doc, targets: Dict[int, Tuple[Sequence[Tuple[int, float]], Sequence[Tuple[str, float]]]]) -> None:
    """Replace the soft dependency targets stored on ``doc`` with ``targets``: dependent -> (its
    ``(head, probability)`` pairs, heads as token indices of ``doc`` and the dependent itself for
    the root; its arc's ``(label, probability)`` pairs). Raises ValueError for a head outside the
    Doc or a probability outside [0, 1]."""
    _clear(doc, SOFT_ARCS_ATTR)
    for i, (heads, labels) in targets.items():
        for what, pairs in (("head", heads), ("label", labels)):
            for key, p in pairs:
                if not 0.0 <= p <= 1.0:
                    raise ValueError(f"soft targets of token {i} ({doc[i].text!r}): {what} {key!r} has probability {p}")
        if any(not 0 <= h < len(doc) for h, _ in heads):
            raise ValueError(f"soft targets of token {i} ({doc[i].text!r}): a head outside the Doc's {len(doc)} tokens")
        # Written as spaCy stores a token extension's value (_token_keys), so that DocBin and
        # sentence_docs carry it; offsets keep it true in a sentence cut out of the Doc.
        doc.user_data[("._.", SOFT_ARCS_ATTR, doc[i].idx, None)] = {
            "heads": [[int(h) - i, round(float(p), 4)] for h, p in heads],
            "labels": [[str(label), round(float(p), 4)] for label, p in labels],
        }


# -- reading -------------------------------------------------------------------------------


def tree_before(doc: Doc, i: int, inclusive: bool = False) -> Optional[Tuple[int, dict]]:
    """The nearest stored tree starting before token ``i`` (or at it, if ``inclusive``)."""
    # Back from i to the nearest tree's first token (the start of i's sentence when it is
    # parsed): the span API calls this for every span it is asked about, so it must not scan the
    # whole Doc. The key is the one spaCy stores token extensions under (see _token_keys).
    data = doc.user_data
    for j in range(i if inclusive else i - 1, -1, -1):
        value = data.get(("._.", TREE_ATTR, doc[j].idx, None))
        if value is not None:
            return j, value
    return None


def sentence_docs(doc: Doc) -> List[Doc]:
    """Each sentence of ``doc`` as a Doc of its own, with the extension values of its own tokens
    (and the Doc's own ones). ``Span.as_doc(copy_user_data=True)`` copies every value of the
    whole Doc into each sentence, which costs time and memory quadratic in the Doc's length: a
    silver document of 800 words cut into 40 sentences made 14 million copies."""
    data = doc.user_data
    by_offset: Dict[int, List[Tuple[Any, Any]]] = {}
    doc_level = {}
    for key, value in data.items():
        if isinstance(key, tuple) and len(key) == 4 and key[0] == "._." and isinstance(key[2], int):
            by_offset.setdefault(key[2], []).append((key, value))
        else:
            doc_level[key] = value
    sentences = []
    for sent in doc.sents:
        sentence = sent.as_doc(copy_user_data=False)
        sentence.user_data.update(doc_level)
        shift = sent.start_char
        for token in sent:
            for (kind, name, start, end), value in by_offset.get(token.idx, ()):
                sentence.user_data[(kind, name, start - shift, None if end is None else end - shift)] = value
        sentences.append(sentence)
    return sentences


def _token_keys(doc: Doc, attr: str) -> List[Tuple[str, str, int, None]]:
    """The ``doc.user_data`` keys of the token extension ``attr``. spaCy keeps the value of a
    token's extension under ``("._.", attr, token.idx, None)`` (the format that ``DocBin`` and
    ``Doc.from_docs`` read); looking at these keys, rather than at ``token._`` of every token (an
    object built per call), makes reading and clearing cost nothing on Docs without them."""
    return [key for key in doc.user_data
            if isinstance(key, tuple) and len(key) == 4 and key[0] == "._." and key[1] == attr
            and isinstance(key[2], int) and key[3] is None]


def stored_values(doc: Doc, attr: str) -> Dict[int, Any]:
    """Token index -> value, in token order, of every token whose extension ``attr`` is not None."""
    data = doc.user_data
    by_offset = {key[2]: data[key] for key in _token_keys(doc, attr) if data[key] is not None}
    if not by_offset:
        return {}
    offsets = doc.to_array(IDX).tolist()
    return {i: by_offset[offset] for i, offset in enumerate(offsets) if offset in by_offset}


def soft_arc_targets(doc: Doc) -> Dict[int, Tuple[List[Tuple[int, float]], List[Tuple[str, float]]]]:
    """The soft dependency targets stored on ``doc`` (:func:`set_soft_arc_targets`), heads as
    token indices of ``doc``; a head that falls outside it (the Doc is a piece of the one the
    targets were set on) is left out."""
    targets = {}
    for i, value in stored_values(doc, SOFT_ARCS_ATTR).items():
        heads = [(i + int(offset), float(p)) for offset, p in value["heads"] if 0 <= i + int(offset) < len(doc)]
        targets[i] = (heads, [(str(label), float(p)) for label, p in value["labels"]])
    return targets


def _clear(doc: Doc, attr: str) -> None:
    for key in _token_keys(doc, attr):
        del doc.user_data[key]


def describe_span(span: Span) -> str:
    """How error messages name a span."""
    return f"span {span.text!r} (tokens {span.start}..{span.end})"
