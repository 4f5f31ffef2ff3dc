"""What the label-attention heads attend to and contribute (Mrini et al. 2020, sec. 4.5-4.6),
as data: ``explain`` runs the parser's own ``predict`` (its tok2vec, listeners included, and its
chunking) with forward hooks on the torch modules, removed before it returns, so parsing itself
computes nothing more. The plots of these values are ``plots.py``.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy

from ..pipeline.parser.charts import CHAIN_SEP, chain_of_id
from ..pipeline.units import Unit

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

    from ..pipeline.parser.adapter import UnitDetails
    from ..pipeline.parser.component import LabelAttentionParser


@dataclass(frozen=True, eq=False)
class SpanContribution:
    """Each head's contribution to one span's vector.

    Attributes:
        start, end: Doc token offsets (end exclusive), as in the Doc's stored tree.
        text: the span's text.
        labels: the predicted label, outermost first as ``span._.labels`` (a collapsed unary chain
            gives several); for a span of the predicted tree its label there, for any other span
            the best label of the span classifier (eq. 6), ``()`` where that is "no constituent".
        in_tree: whether the span is a constituent of the predicted tree.
        contributions: ``(n_heads,)`` non-negative shares summing to 1 (see :func:`explain`).
    """

    start: int
    end: int
    text: str
    labels: Tuple[str, ...]
    in_tree: bool
    contributions: numpy.ndarray


@dataclass(frozen=True, eq=False)
class SentenceExplanation:
    """What the label attention layer did with one sentence (a piece, for a sentence longer than
    the model's ``max_length``).

    Attributes:
        start, end: the sentence's Doc token offsets (end exclusive).
        text: its text.
        tokens: Doc offsets of its words: every token but whitespace, which the model never sees.
        words: their texts.
        heads: head names, ``"head 0"`` ... (see the module docstring).
        attention: ``(n_heads, n_words)`` attention weights of eq. 1 (one softmax per head).
            The softmax also covers the start and stop sentinels that wrap every sentence, so a
            row sums to 1 together with ``boundary_attention``; padding gets nothing.
        boundary_attention: ``(n_heads, 2)`` the weights of the start and stop sentinels.
        spans: the explained spans: the predicted tree's constituents in pre-order, or the
            spans asked for.
        contributions_exact: whether the head parts are those of the span vectors the label
            scorer reads (a parser without the feed-forward layer after the label attention);
            see :func:`explain`.
    """

    start: int
    end: int
    text: str
    tokens: Tuple[int, ...]
    words: Tuple[str, ...]
    heads: Tuple[str, ...]
    attention: numpy.ndarray
    boundary_attention: numpy.ndarray
    spans: Tuple[SpanContribution, ...]
    contributions_exact: bool

    def span(self, span: Union[SpanContribution, "Span", Tuple[int, int]]) -> SpanContribution:
        """The explained span with these Doc offsets (a Span, a ``(start, end)`` pair or a
        :class:`SpanContribution`); KeyError if it was not explained."""
        start, end = (span[0], span[1]) if isinstance(span, tuple) else (span.start, span.end)
        for item in self.spans:
            if (item.start, item.end) == (start, end):
                return item
        raise KeyError(
            f"span ({start}, {end}) was not explained: the explained spans are the predicted "
            "constituents, unless explain(..., spans=[...]) named others"
        )

    def top_heads(
        self, span: Union[SpanContribution, "Span", Tuple[int, int]], k: int = 5
    ) -> List[Tuple[str, float]]:
        """The ``k`` heads contributing most to ``span``, largest first, with their shares."""
        shares = self.span(span).contributions
        return [(self.heads[h], float(shares[h])) for h in _ranking(shares)[:k]]


def explain(
    parser_or_nlp: Union["Language", "LabelAttentionParser"],
    doc_or_span: Union["Doc", "Span", str],
    *,
    spans: Optional[Iterable[Union["Span", Tuple[int, int]]]] = None,
    component: Optional[str] = None,
) -> List[SentenceExplanation]:
    """What each label-attention head attends to in each sentence, and what it contributes to
    each span.

    Args:
        parser_or_nlp: a pipeline with a ``lal_parser`` (or ``lal_dependency_parser``), or the
            component itself.
        doc_or_span: a Doc, preferably one the pipeline made (``nlp(text)``): a component listening
            to a shared tok2vec or transformer reads that component's output from the Doc. A
            Span explains the sentences it overlaps; a text is run through the pipeline first.
        spans: spans to explain, as Spans of the Doc or ``(start, end)`` Doc offsets, each
            inside one sentence; default: every constituent of the predicted trees.
        component: the parser's name, where the pipeline has several.

    Returns:
        One :class:`SentenceExplanation` per sentence, in order, as the component parses them
        (``doc.sents``, else the whole Doc; pieces of ``max_length`` words of longer ones).
        Sentences without words (empty, or whitespace only) have nothing to explain and are left
        out: an empty Doc gives ``[]``.

    A head's contribution to a span. The span vector of eq. 5 is the concatenation of one part
    per head, ``[f^h_j - f^h_i ; b^h_{i+1} - b^h_{j+1}]``, built from the head's own slice of
    the word vectors (Mrini et al. split "each head-specific word vector at the middle"). As in
    the paper (Figure 6, sec. 4.5: "normalization and averaging"), a head's contribution is the
    mean absolute value of its part divided by the sum of those over the heads
    (``spacy_lal.nn.span.head_contributions``): shares of the span vector, non-negative, summing
    to 1. They say how much of the span vector each head supplies, not how far each head moves
    the label score: eq. 6 mixes the parts through a LayerNorm and a ReLU, so the score has no
    exact split by head. They are exact (``contributions_exact``) for a parser without the
    position-wise feed-forward layer after the label attention (``lal_ffn = false``), the
    setting of the paper's analysis, where the parts are the span vectors the label scorer reads.
    The feed-forward layer (on by default, as in the paper's best parser) mixes the heads; the
    parts are then taken from the heads' outputs just before it, which is what each head hands on.

    Raises:
        ValueError: no parser in the pipeline, a parser not initialized (or not built with
            query vectors and concatenated heads, the paper's layer), a span outside every
            sentence or without a word.
        TypeError: a text with a component rather than a pipeline.
    """
    import torch

    from ..nn.span import head_contributions

    parser = _find_parser(parser_or_nlp, component)
    doc, window = _as_doc(parser_or_nlp, doc_or_span)
    model = parser.torch_module.parser  # the LabelAttentionParserModel
    wanted = None if spans is None else [_offsets(doc, span) for span in spans]
    with torch.no_grad():
        all_units, parses = parser.predict_with_details([doc])

    units = [
        (u, unit)
        for u, unit in enumerate(all_units)
        if window is None or (unit.start < window[1] and unit.end > window[0])
    ]
    by_unit = _assign(wanted, [unit for _, unit in units]) if wanted is not None else None
    n_heads = model.label_attention.n_heads
    head_names = tuple(f"head {h}" for h in range(n_heads))
    exact = model.label_attention.ffn is None
    explanations = []
    for k, (u, unit) in enumerate(units):
        details: "UnitDetails" = parses.details[u]
        attention, fences, chart = details.attention, details.fences, details.chart
        tree = _tree_spans(parser, unit, parses.spans[u])
        if by_unit is None:
            items = [(i, j, _doc_span(unit, i, j), chain, True) for (i, j), chain in tree.items()]
        else:
            items = []
            for start, end, i, j in by_unit[k]:
                in_tree = (i, j) in tree
                chain = tree[i, j] if in_tree else _best_label(parser, chart, i, j)
                items.append((i, j, (start, end), chain, in_tree))
        shares = numpy.zeros((0, n_heads), dtype="float32")
        if items:
            vectors = numpy.stack([fences[j] - fences[i] for i, j, *_ in items])
            shares = head_contributions(torch.from_numpy(vectors), n_heads).numpy()
        explanations.append(
            SentenceExplanation(
                start=unit.start,
                end=unit.end,
                text=doc[unit.start : unit.end].text,
                tokens=tuple(unit.words),
                words=tuple(doc[w].text for w in unit.words),
                heads=head_names,
                attention=numpy.ascontiguousarray(attention[:, 1:-1]),
                boundary_attention=attention[:, [0, -1]],
                spans=tuple(
                    SpanContribution(start, end, doc[start:end].text, chain, in_tree, share)
                    for (_, _, (start, end), chain, in_tree), share in zip(items, shares)
                ),
                contributions_exact=exact,
            )
        )
    return explanations


def top_heads_by_label(explanations: Iterable[SentenceExplanation]) -> Dict[str, Counter]:
    """For each predicted label, how often each head is the top contributor of a constituent
    with that label: the statistic by which Mrini et al. match heads to labels (sec. 4.5: "Out
    of the NP spans, 44.9% get their top contribution from head 35"). Run it over many
    sentences; labels of unary chains are spelled as the component does ("S::VP")."""
    counts: Dict[str, Counter] = {}
    for sent in explanations:
        for item in sent.spans:
            if item.in_tree and item.labels:
                top = sent.heads[int(_ranking(item.contributions)[0])]
                counts.setdefault(CHAIN_SEP.join(item.labels), Counter())[top] += 1
    return counts


def _find_parser(parser_or_nlp: Any, component: Optional[str]) -> "LabelAttentionParser":
    from spacy.language import Language

    from ..pipeline.parser.component import LabelAttentionParser

    if isinstance(parser_or_nlp, LabelAttentionParser):
        parser = parser_or_nlp
    elif isinstance(parser_or_nlp, Language):
        found = [
            pipe
            for name, pipe in parser_or_nlp.pipeline
            if isinstance(pipe, LabelAttentionParser) and component in (None, name)
        ]
        if not found:
            which = "" if component is None else f" {component!r}"
            raise ValueError(
                f"the pipeline has no label-attention parser{which} (its components: {parser_or_nlp.pipe_names}); "
                "add one with nlp.add_pipe('lal_parser')"
            )
        parser = found[0]
    else:
        raise TypeError(f"expected a spaCy pipeline or a lal_parser component, got {type(parser_or_nlp).__name__}")
    if parser.torch_module is None:
        raise ValueError(f"{parser.name} is not initialized: train it, or load a trained pipeline")
    layer = parser.torch_module.parser.label_attention.attention
    if layer.query_kind != "vector" or layer.combine != "concat":
        raise ValueError(
            f"{parser.name} was built with lal_query = {layer.query_kind!r} and lal_combine = "
            f"{layer.combine!r}; heads to explain need the paper's layer ('vector', 'concat'): "
            "with a query matrix a head attends from every word, and projected heads are mixed"
        )
    return parser


def _as_doc(parser_or_nlp: Any, doc_or_span: Any) -> Tuple["Doc", Optional[Tuple[int, int]]]:
    """The Doc to run, and the token range to explain (None: all of it)."""
    from spacy.language import Language
    from spacy.tokens import Doc, Span

    if isinstance(doc_or_span, Doc):
        return doc_or_span, None
    if isinstance(doc_or_span, Span):
        return doc_or_span.doc, (doc_or_span.start, doc_or_span.end)
    if isinstance(doc_or_span, str):
        if not isinstance(parser_or_nlp, Language):
            raise TypeError("explain a text with the pipeline (explain(nlp, text)), or give the component a Doc")
        return parser_or_nlp(doc_or_span), None
    raise TypeError(f"expected a Doc, a Span or a text, got {type(doc_or_span).__name__}")


def _offsets(doc: "Doc", span: Any) -> Tuple[int, int]:
    from spacy.tokens import Span

    if isinstance(span, Span):
        if span.doc is not doc:
            raise ValueError(f"span {span.text!r} belongs to another Doc")
        start, end = span.start, span.end
    else:
        start, end = (int(x) for x in span)
    if not 0 <= start < end <= len(doc):
        raise ValueError(f"span ({start}, {end}) is not a non-empty token range of the Doc ({len(doc)} tokens)")
    return start, end


def _assign(
    wanted: Sequence[Tuple[int, int]], units: Sequence["Unit"]
) -> List[List[Tuple[int, int, int, int]]]:
    """Per unit, its wanted spans as (start, end, first fencepost, last fencepost)."""
    by_unit: List[List[Tuple[int, int, int, int]]] = [[] for _ in units]
    for start, end in wanted:
        k = next((k for k, unit in enumerate(units) if unit.start <= start and end <= unit.end), None)
        if k is None:
            raise ValueError(f"span ({start}, {end}) is not inside one of the sentences explained")
        words = units[k].words
        i, j = bisect_left(words, start), bisect_left(words, end)
        if i == j:
            raise ValueError(f"span ({start}, {end}) holds no word (whitespace is not seen by the parser)")
        by_unit[k].append((start, end, i, j))
    return by_unit


def _tree_spans(
    parser: "LabelAttentionParser", unit: "Unit", spans: Optional[numpy.ndarray]
) -> Dict[Tuple[int, int], Tuple[str, ...]]:
    """The predicted constituents (word fenceposts -> label chain) in pre-order, as the component
    stores them (``pipeline/parser/component.py: _tree``): binarization nodes and a root labelled only TOP
    are left out."""
    tree: Dict[Tuple[int, int], Tuple[str, ...]] = {}
    for i, j, label in [] if spans is None else spans.tolist():
        chain = chain_of_id(label, parser.span_labels)
        if chain:
            tree[i, j] = chain
    return tree


def _doc_span(unit: "Unit", i: int, j: int) -> Tuple[int, int]:
    """Doc offsets of the constituent over words i..j-1 of ``unit`` (the root spans the whole
    unit, whitespace included, as in the stored tree)."""
    if i == 0 and j == len(unit):
        return unit.start, unit.end
    return unit.words[i], unit.words[j - 1] + 1


def _best_label(
    parser: "LabelAttentionParser", chart: Optional[numpy.ndarray], i: int, j: int
) -> Tuple[str, ...]:
    if chart is None:  # a dependency-only parser has no span classifier
        return ()
    label = int(chart[i, j].argmax())
    return chain_of_id(label, parser.span_labels)


def _ranking(shares: numpy.ndarray) -> numpy.ndarray:
    """Head indices by decreasing share, the lower index first on ties."""
    return numpy.argsort(-shares, kind="stable")
