"""Spans of the Doc that steer decoding: the parser's constraints and the SRL's argument spans.

A *source* names where spans come from on a Doc:
- "ents": ``doc.ents``;
- "noun_chunks": ``doc.noun_chunks`` (needs dependencies already on the Doc, from a parser
  earlier in the pipeline; a Doc without them gives none, with a warning);
- "spans:KEY": the span group ``doc.spans[KEY]`` (none if the Doc has no such group);
- "tree" (SRL only): the constituents of the trees on the Doc (``doc._.trees``).

Spans are mapped to the word positions of the units the models read (``units.py``: sentences
without their whitespace tokens, long ones cut into pieces). ``constrain_units`` applies the
parser's policy for constraints that cannot hold, in this order, each dropped span being named
in one logged warning per call (never an error, never a tree that silently ignores a constraint):
1. a span outside the Doc (or empty) is dropped;
2. a span of whitespace tokens only is dropped (the model never sees them);
3. a span that is not inside one sentence (or one piece of a long sentence) is dropped;
4. spans are then kept in priority order — ``require`` before ``no_cross``, and within each, the
   per-call spans before the configured sources, in the order given — and a span that crosses
   one already kept is dropped (the kept one is named).
"""
from bisect import bisect_left
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc, Span

from ..logs import logger
from ..doc.extensions import stored_trees
from .units import Unit


Pair = Tuple[int, int]
KINDS = ("require", "no_cross")
DOC_SOURCES = ("ents", "noun_chunks")
SPANS_PREFIX = "spans:"
MAX_LISTED = 10  # dropped spans listed in one warning


def check_sources(name: str, setting: str, sources: Iterable[str], extra: Sequence[str] = ()) -> List[str]:
    """``sources`` as a list, or a ValueError naming the component and the setting."""
    if isinstance(sources, str):
        raise ValueError(f"{name}: {setting} must be a list of sources, got the string {sources!r}")
    out = []
    for source in sources:
        if not isinstance(source, str) or not (
            source in DOC_SOURCES or source in extra or (source.startswith(SPANS_PREFIX) and len(source) > 6)
        ):
            known = ", ".join(repr(s) for s in (*DOC_SOURCES, *extra, "spans:KEY"))
            raise ValueError(f"{name}: {setting}: unknown span source {source!r} (one of {known})")
        out.append(source)
    return out


def check_constraints(name: str, constraints: Optional[Dict[str, Iterable[str]]]) -> Dict[str, List[str]]:
    """The parser's ``constraints`` setting, normalized to ``{"require": [...], "no_cross": [...]}``."""
    constraints = dict(constraints or {})
    unknown = set(constraints) - set(KINDS)
    if unknown:
        raise ValueError(f"{name}: constraints: unknown keys {sorted(unknown)} (use 'require' and 'no_cross')")
    return {kind: check_sources(name, f"constraints.{kind}", constraints.get(kind, [])) for kind in KINDS}


def source_spans(doc: Doc, source: str, warnings: List[str]) -> List[Pair]:
    """The (start, end) token spans of ``source`` on ``doc`` (see the module docstring)."""
    if source == "ents":
        return [(span.start, span.end) for span in doc.ents]
    if source == "noun_chunks":
        if not doc.has_annotation("DEP"):
            warnings.append("noun_chunks: the Doc has no dependencies (put a parser before this component)")
            return []
        return [(span.start, span.end) for span in doc.noun_chunks]
    if source == "tree":
        return [(first + s, first + e) for first, _, spans in stored_trees(doc) for s, e, _ in spans]
    key = source[len(SPANS_PREFIX) :]
    return [(span.start, span.end) for span in doc.spans[key]] if key in doc.spans else []


def as_pairs(spans: Iterable) -> List[Pair]:
    """(start, end) token offsets from pairs or spaCy Spans."""
    return [(span.start, span.end) if isinstance(span, Span) else (int(span[0]), int(span[1])) for span in spans]


class _Locator:
    """Where the spans of one Doc lie among its units (rows): built once per Doc, since a Doc's
    tree gives its sentences hundreds of spans to place."""

    def __init__(self, doc: Doc, units: Sequence[Tuple[int, Unit]]) -> None:
        self.length = len(doc)
        self.units = units
        # words_before[i]: the non-whitespace tokens before token i
        self.words_before = numpy.concatenate([[0], numpy.cumsum(doc.to_array(IS_SPACE) == 0)]).tolist()

    def locate(self, span: Pair) -> Tuple[Optional[int], Optional[Pair], str]:
        """The unit (row) and word positions of a doc span, or why it has none."""
        start, end = span
        if not 0 <= start < end <= self.length:
            return None, None, f"outside the Doc of {self.length} tokens"
        if self.words_before[end] == self.words_before[start]:
            return None, None, "covers whitespace tokens only"
        for row, unit in self.units:
            if unit.start <= start and end <= unit.end:
                # a unit's words are its range's tokens but whitespace, in order
                return row, (bisect_left(unit.words, start), bisect_left(unit.words, end)), ""
        return None, None, "crosses a sentence boundary (or the boundary of a piece of a long sentence)"


def _crosses(a: Pair, b: Pair) -> bool:
    return a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]


def constrain_units(
    name: str,
    docs: Sequence[Doc],
    units: Sequence[Unit],
    wanted: Sequence[Dict[str, List[Pair]]],
) -> Tuple[List[List[Pair]], List[List[Pair]]]:
    """Per unit, the ``require`` and ``no_cross`` spans in word positions that can all hold
    together, from ``wanted[doc_index]`` = ``{"require": [...], "no_cross": [...]}`` doc spans
    in priority order; what cannot hold is dropped and named in one warning (module docstring)."""
    by_doc: Dict[int, List[Tuple[int, Unit]]] = {}
    for row, unit in enumerate(units):
        by_doc.setdefault(unit.doc_index, []).append((row, unit))
    kept: Dict[str, List[List[Pair]]] = {kind: [[] for _ in units] for kind in KINDS}
    origin: Dict[Tuple[int, Pair], Pair] = {}  # (row, positions) -> the doc span, for messages
    dropped: List[str] = []
    for doc_index, doc in enumerate(docs):
        seen = set()
        locator = _Locator(doc, by_doc.get(doc_index, []))
        for kind in KINDS:
            for span in wanted[doc_index].get(kind, []):
                if (kind, span) in seen:
                    continue
                seen.add((kind, span))
                row, pos, why = locator.locate(span)
                if row is not None:
                    rivals = [p for k in KINDS for p in kept[k][row] if _crosses(p, pos)]
                    if not rivals:
                        kept[kind][row].append(pos)
                        origin.setdefault((row, pos), span)
                        continue
                    why = f"crosses the kept span {_describe(doc, origin[(row, rivals[0])])}"
                dropped.append(f"{kind} {_describe(doc, span)} in Doc {doc_index}: {why}")
    if dropped:
        more = f" (and {len(dropped) - MAX_LISTED} more)" if len(dropped) > MAX_LISTED else ""
        logger.warning(
            "%s: %d constraint span(s) cannot hold and were dropped: %s%s",
            name, len(dropped), "; ".join(dropped[:MAX_LISTED]), more,
        )
    return kept["require"], kept["no_cross"]


def _describe(doc: Doc, span: Pair) -> str:
    start, end = span
    if 0 <= start < end <= len(doc):
        return f"({start}, {end}) {doc[start:end].text!r}"
    return f"({start}, {end})"


def unit_spans(docs: Sequence[Doc], units: Sequence[Unit], spans: Sequence[List[Pair]]) -> List[List[Pair]]:
    """Per unit, the doc spans (``spans[doc_index]``) that lie inside it, in its word positions;
    spans of whitespace only, or reaching outside the unit, are left out (the SRL's argument
    spans: candidates, not constraints, so nothing to warn about)."""
    by_doc: Dict[int, List[Tuple[int, Unit]]] = {}
    for row, unit in enumerate(units):
        by_doc.setdefault(unit.doc_index, []).append((row, unit))
    out: List[List[Pair]] = [[] for _ in units]
    for doc_index, doc in enumerate(docs):
        locator = _Locator(doc, by_doc.get(doc_index, []))
        for span in set(spans[doc_index]):
            row, pos, _ = locator.locate(span)
            if row is not None:
                out[row].append(pos)
    return out
