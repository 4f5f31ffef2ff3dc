"""displaCy-style pictures of constituency trees: one SVG per sentence, HTML pages with dependencies.

    from spacy_lal.render import render, render_tree

    svg = render_tree(sent)                       # a Span with a stored tree, or a Tree
    Path("parses.html").write_text(render(docs), encoding="utf8")

The look is that of spaCy's dependency visualiser (``displacy.render(style="dep")``): the same
font, colours and sizes, every word along the bottom with its tag below it. Phrase labels sit
above, each one row below its parent and centred over its children, joined to them by elbow (or
straight) lines. Nothing here measures text with a real font: widths are estimated from Arial's
metrics, generously, and the layout keeps those estimates apart.

``options`` (a dict, like displaCy's; keys not listed are ignored, so one dict can serve both
visualisers): ``color``, ``bg``, ``font`` (displaCy's), ``font_size`` (px), ``offset_x`` (margin,
px), ``gap`` (least space between two words or two labels of a row, px), ``level_height`` (px
between rows), ``stroke`` (line width, px), ``lines`` ("elbow" or "straight").
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, overload

from .doc.tree import Tree
from .svg import escape, text_width

if TYPE_CHECKING:
    # For annotations only: IPython is not a dependency, and spaCy is imported when needed.
    from IPython.display import HTML
    from spacy.tokens import Doc, Span

__all__ = ["DEFAULT_OPTIONS", "render", "render_tree"]

DEFAULT_OPTIONS: dict[str, Any] = {
    "color": "#000000",  # color, bg and font: displaCy's defaults
    "bg": "#ffffff",
    "font": "Arial",
    "font_size": 16,  # displaCy's SVGs inherit the page's 16px; ours say it, as widths depend on it
    "offset_x": 50,
    "gap": 20,
    "level_height": 50,
    "stroke": 2,
    "lines": "elbow",
}
LINE_STYLES = ("elbow", "straight")

# Phrase labels are styled as displaCy's arc labels.
_LABEL_EM = 0.8
_LABEL_LETTER_SPACING = 1

_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" id="{id}" class="displacy lal-tree" width="{width}" '
    'height="{height}" style="max-width: none; height: {height}px; color: {color}; background: {bg}; '
    'font-family: {font}; font-size: {font_size}px">{content}</svg>'
)
_EDGE = '<path class="lal-edge" d="{d}" stroke-width="{stroke}px" fill="none" stroke="currentColor"/>'
_PHRASE = (
    '<text class="lal-phrase" fill="currentColor" text-anchor="middle" x="{x}" y="{y}" '
    f'style="font-size: {_LABEL_EM}em; letter-spacing: {_LABEL_LETTER_SPACING}px">{{label}}</text>'
)
# displaCy's TPL_DEP_WORDS, so that CSS written for displaCy's words applies to ours.
_WORD = (
    '<text class="displacy-token" fill="currentColor" text-anchor="middle" y="{y}">'
    '<tspan class="displacy-word" fill="currentColor" x="{x}">{text}</tspan>'
    '<tspan class="displacy-tag" dy="2em" fill="currentColor" x="{x}">{tag}</tspan></text>'
)
_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>spacy-lal parses</title>
<style>
body {{ font-size: 16px; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif; padding: 4rem 2rem; }}
figure.lal-sentence {{ margin: 0 0 4rem; overflow-x: auto; }}
figure.lal-sentence figcaption {{ margin-bottom: 1rem; font-weight: bold; }}
figure.lal-sentence svg {{ display: block; margin-bottom: 2rem; }}
.lal-note {{ color: #666; font-style: italic; }}
</style>
</head>
<body>
{content}
</body>
</html>
"""


def render_tree(
    tree_or_span: Tree | Span, *, options: dict[str, Any] | None = None, svg_id: str | None = None
) -> str:
    """A standalone SVG picture of one constituency tree.

    ``tree_or_span``: a :class:`~spacy_lal.doc.tree.Tree`, drawn as it is (a TOP wrapper included), or
    a Span that is a constituent of a stored tree (a parsed sentence, usually), drawn with its
    tokens' texts and ``tag_``. ``svg_id``: the SVG's ``id`` (default: a random one), so that
    several pictures can share a page. Raises ValueError (NotAConstituentError for a Span without
    a tree, or for bad options).
    """
    opts = _options(options)
    tree = tree_or_span if isinstance(tree_or_span, Tree) else _span_tree(tree_or_span)
    return _draw(tree, opts, svg_id or f"lal-tree-{uuid.uuid4().hex}")


@overload
def render(
    docs: Doc | Iterable[Doc],
    *,
    page: bool = ...,
    dependencies: bool = ...,
    options: dict[str, Any] | None = ...,
    jupyter: Literal[False],
) -> str: ...


@overload
def render(
    docs: Doc | Iterable[Doc],
    *,
    page: bool = ...,
    dependencies: bool = ...,
    options: dict[str, Any] | None = ...,
    jupyter: bool | None = ...,
) -> str | HTML: ...


def render(
    docs: Doc | Iterable[Doc],
    *,
    page: bool = True,
    dependencies: bool = True,
    options: dict[str, Any] | None = None,
    jupyter: bool | None = None,
) -> str | HTML:
    """Pictures of every sentence of ``docs``: its tree and (``dependencies``, if the Doc has heads)
    displaCy's dependency picture, as HTML; a whole page (UTF-8) if ``page``.

    Sentences (``doc.sents``, or the whole Doc without boundaries) without a tree get a note
    instead. ``options`` go to both visualisers. ``jupyter``: return an ``IPython.display.HTML``
    (default: if running in a notebook, as displaCy does). Raises ValueError if no sentence has a
    tree: either no sentence has words (empty or whitespace-only Docs: nothing to draw), or the
    Docs were not parsed by a pipeline with ``lal_parser``.
    """
    from spacy import displacy
    from spacy.tokens import Doc
    from spacy.util import is_in_jupyter

    from .corpora.export import sentences
    from .doc.api import NotAConstituentError

    opts = _options(options)
    docs = [docs] if isinstance(docs, Doc) else list(docs)
    prefix = f"lal-tree-{uuid.uuid4().hex}"
    blocks: list[str] = []
    n_trees = n_with_words = 0
    for d, doc in enumerate(docs):
        if not len(doc):
            blocks.append(f'<p class="lal-note">Doc {d + 1} is empty: nothing to draw.</p>')
            continue
        show_deps = dependencies and doc.has_annotation("DEP")
        for s, sent in enumerate(sentences(doc)):
            parts = [f"<figcaption>{escape(sent.text)}</figcaption>"]
            has_words = any(not token.is_space for token in sent)
            n_with_words += has_words
            try:
                tree = _span_tree(sent)
            except NotAConstituentError:
                note = "No constituency tree for this sentence." if has_words else "No words: nothing to draw."
                parts.append(f'<p class="lal-note">{note}</p>')
            else:
                parts.append(_draw(tree, opts, f"{prefix}-{d}-{s}"))
                n_trees += 1
            if show_deps:
                parts.append(displacy.render(sent, style="dep", page=False, jupyter=False, options=opts))
            blocks.append('<figure class="lal-sentence">{}</figure>'.format("\n".join(parts)))
    if not n_with_words:
        # Parsed or not, there is nothing a parser could have drawn a tree for.
        raise ValueError(
            "nothing to draw: no Docs were given"
            if not docs
            else f"nothing to draw: no sentence of the {len(docs)} Doc(s) has words (they are empty or whitespace)"
        )
    if not n_trees:
        raise ValueError(
            f"nothing to draw: no sentence of the {len(docs)} Doc(s) has a constituency tree; "
            "parse the texts with a pipeline that has the lal_parser component"
        )
    markup = "\n".join(blocks)
    if page:
        markup = _PAGE.format(lang=escape(docs[0].lang_ or "en"), content=markup)
    if jupyter or (jupyter is None and is_in_jupyter()):
        from IPython.display import HTML

        # displaCy's wrapper: keeps MathJax from reading "$" in the text as TeX.
        return HTML(f'<span class="tex2jax_ignore">{markup}</span>')
    return markup


# -- internals -------------------------------------------------------------------------------


def _options(options: dict[str, Any] | None) -> dict[str, Any]:
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    if opts["lines"] not in LINE_STYLES:
        raise ValueError(f"options['lines'] must be one of {LINE_STYLES}, not {opts['lines']!r}")
    return opts


def _span_tree(span: Span) -> Tree:
    return Tree.from_string(span._.parse_string)


class _Phrase:
    """A node above the preterminals: its label, row and children (phrases or word indices)."""

    __slots__ = ("children", "first_word", "label", "row", "width", "x")

    def __init__(self, label: str, row: int, width: float) -> None:
        self.label = label
        self.row = row
        self.width = width
        self.children: list[_Phrase | int] = []
        self.first_word = -1
        self.x = 0.0


def _draw(tree: Tree, opts: dict[str, Any], svg_id: str) -> str:
    size = float(opts["font_size"])
    gap = float(opts["gap"])
    level = float(opts["level_height"])
    label_size = size * _LABEL_EM

    phrases = _collect(tree, label_size)
    words, tags = tree.words(), tree.tags()
    widths = [max(text_width(w, size), text_width(t, size)) for w, t in zip(words, tags)]
    xs = [0.0] * len(words)
    for i in range(1, len(words)):
        xs[i] = xs[i - 1] + (widths[i - 1] + widths[i]) / 2 + gap
    _place(phrases, xs)
    _separate_rows(phrases, xs, gap)

    # Shift everything so that the leftmost word or label starts at the margin.
    left = min([x - w / 2 for x, w in zip(xs, widths)] + [p.x - p.width / 2 for p in phrases])
    right = max([x + w / 2 for x, w in zip(xs, widths)] + [p.x + p.width / 2 for p in phrases])
    shift = float(opts["offset_x"]) - left
    xs = [x + shift for x in xs]
    for phrase in phrases:
        phrase.x += shift

    n_rows = max((p.row for p in phrases), default=-1) + 1
    top = size  # baseline of the first row: room for the labels' ascent

    def row_y(row: int) -> float:
        return top + row * level

    word_y = row_y(n_rows) + (size - label_size)
    height = word_y + 3 * size  # the tag line (dy="2em") and room for its descent
    # Lines leave a label just below its baseline and reach just above the capitals below it.
    below = 0.4 * label_size

    def top_of(child: _Phrase | int) -> tuple[float, float]:
        if isinstance(child, _Phrase):
            return child.x, row_y(child.row) - label_size - 2
        return xs[child], word_y - size - 2

    edges = []
    for phrase in phrases:
        x0, y0 = phrase.x, row_y(phrase.row) + below
        bar = (y0 + row_y(phrase.row + 1) - label_size - 2) / 2
        for child in phrase.children:
            x1, y1 = top_of(child)
            if opts["lines"] == "straight" or x1 == x0:
                d = f"M{x0:.1f},{y0:.1f} L{x1:.1f},{y1:.1f}"
            else:
                d = f"M{x0:.1f},{y0:.1f} V{bar:.1f} H{x1:.1f} V{y1:.1f}"
            edges.append(_EDGE.format(d=d, stroke=opts["stroke"]))
    labels = [
        _PHRASE.format(x=f"{p.x:.1f}", y=f"{row_y(p.row):.1f}", label=escape(p.label)) for p in phrases
    ]
    tokens = [
        _WORD.format(x=f"{x:.1f}", y=f"{word_y:.1f}", text=escape(w), tag=escape(t))
        for x, w, t in zip(xs, words, tags)
    ]
    return _SVG.format(
        id=escape(svg_id),
        width=f"{right + shift + float(opts['offset_x']):.0f}",
        height=f"{height:.0f}",
        color=escape(str(opts["color"])),
        bg=escape(str(opts["bg"])),
        font=escape(str(opts["font"])),
        font_size=f"{size:g}",
        content="".join(edges + labels + tokens),
    )


def _collect(tree: Tree, label_size: float) -> list[_Phrase]:
    """The phrases of ``tree`` in pre-order (so left to right within a row), words numbered
    left to right.

    Iterative: parsers and treebanks give trees deeper than Python's recursion limit.
    """
    n_words = 0
    phrases: list[_Phrase] = []
    stack: list[tuple[Tree, int, _Phrase | None]] = [(tree, 0, None)]
    while stack:
        node, row, parent = stack.pop()
        if node.is_preterminal:
            if parent is not None:
                parent.children.append(n_words)
            n_words += 1
            continue
        phrase = _Phrase(node.label, row, text_width(node.label, label_size, _LABEL_LETTER_SPACING))
        phrase.first_word = n_words
        if parent is not None:
            parent.children.append(phrase)
        phrases.append(phrase)
        stack.extend((child, row + 1, phrase) for child in reversed(node.children))
    return phrases


def _place(phrases: list[_Phrase], xs: list[float]) -> None:
    """Centre every phrase over its first and last child (children before parents)."""
    for phrase in reversed(phrases):
        first, last = phrase.children[0], phrase.children[-1]
        x_first = first.x if isinstance(first, _Phrase) else xs[first]
        x_last = last.x if isinstance(last, _Phrase) else xs[last]
        phrase.x = (x_first + x_last) / 2


def _separate_rows(phrases: list[_Phrase], xs: list[float], gap: float) -> None:
    """Move words right until no two labels of a row are closer than ``gap``.

    Two neighbours on a row cover disjoint runs of words, so moving every word from the right
    one's first word on separates them by exactly the overlap. Every phrase's x is a weighted
    average of its words' x, so such a move never brings two labels of any row closer: one pass
    suffices.
    """
    rows: dict[int, list[_Phrase]] = {}
    for phrase in phrases:
        rows.setdefault(phrase.row, []).append(phrase)
    for row in rows.values():
        for left, right in zip(row, row[1:]):
            overlap = (left.x + left.width / 2 + gap) - (right.x - right.width / 2)
            if overlap > 0:
                for i in range(right.first_word, len(xs)):
                    xs[i] += overlap
                _place(phrases, xs)
