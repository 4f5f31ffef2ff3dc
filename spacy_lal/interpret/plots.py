"""SVG plots of ``explain``'s values (Mrini et al. 2020, fig. 4-5), in displaCy's style: the
attention of each head over the words (a heat map) and each head's contribution to a span
(bars)."""
from __future__ import annotations

import math
import uuid
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

import numpy

from ..pipeline.parser.charts import CHAIN_SEP
from ..render import DEFAULT_OPTIONS
from ..svg import escape, text_width
from .explain import SentenceExplanation, SpanContribution, _ranking

if TYPE_CHECKING:
    from spacy.tokens import Span

# How the plots name the start and stop sentinels, which take part in every head's softmax.
BOUNDARY_NAMES = ("<s>", "</s>")

# displaCy's colours and font (render.DEFAULT_OPTIONS), a smaller size (a row per head), and the
# colour of the data: cells and top bars in ``accent``, other bars in ``muted``.
PLOT_OPTIONS: Dict[str, Any] = {
    "color": DEFAULT_OPTIONS["color"],
    "bg": DEFAULT_OPTIONS["bg"],
    "font": DEFAULT_OPTIONS["font"],
    "font_size": 14,
    "accent": "#1f5fa8",
    "muted": "#c5c9d0",
}

_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" class="displacy {cls}" width="{width:.0f}" '
    'height="{height:.0f}" style="max-width: none; height: {height:.0f}px; color: {color}; '
    'background: {bg}; font-family: {font}; font-size: {font_size:g}px">{content}</svg>'
)
_BOLD = 1.15  # bold text is wider than svg.text_width's regular Arial estimates
_TEXT = '<text class="{cls}" fill="currentColor" x="{x:.1f}" y="{y:.1f}"{attrs}>{text}</text>'


def plot_attention(
    explanation: SentenceExplanation,
    *,
    boundaries: bool = True,
    title: Optional[str] = None,
    options: Optional[Dict[str, Any]] = None,
) -> str:
    """A heat map of the attention weights: one row per head (names on the left), one column per
    word (along the bottom), darker for more weight, scaled to the largest weight shown (given
    in the legend); each cell's exact weight is its tooltip.

    ``boundaries``: also show the start and stop sentinels ("<s>", "</s>"), whose weights
    complete each row's softmax. ``options``: ``color``, ``bg``, ``font``, ``font_size``,
    ``accent`` (see ``PLOT_OPTIONS``). Returns a standalone SVG.
    """
    opts = {**PLOT_OPTIONS, **(options or {})}
    size = float(opts["font_size"])
    columns = list(explanation.words)
    weights = explanation.attention
    kinds = ["lal-word"] * len(columns)
    if boundaries:
        columns = [BOUNDARY_NAMES[0], *columns, BOUNDARY_NAMES[1]]
        kinds = ["lal-boundary", *kinds, "lal-boundary"]
        bounds = explanation.boundary_attention
        weights = numpy.concatenate([bounds[:, :1], weights, bounds[:, 1:]], axis=1)
    heads = explanation.heads
    if title is None:
        title = f"Label attention over \u201c{_shorten(explanation.text)}\u201d"
    pad, gap = size, size / 2
    cell_w, cell_h = 1.6 * size, 1.3 * size
    slant = math.sqrt(0.5)  # words are written at 45 degrees, hanging down-left from their column
    word_widths = [text_width(w, size) for w in columns]
    head_width = max(text_width(h, size) for h in heads)
    # Room on the left for the head names, and for the first words' slant.
    grid_x = pad + max(
        [head_width + gap] + [w * slant - (k + 0.5) * cell_w for k, w in enumerate(word_widths)]
    )
    title_y = pad + size
    grid_y = title_y + size
    grid_w, grid_h = len(columns) * cell_w, len(heads) * cell_h
    vmax = float(weights.max())
    scale = 1.0 / vmax if vmax > 0 else 0.0

    parts = [_title(title, pad, title_y)]
    for h, head in enumerate(heads):
        y = grid_y + h * cell_h
        parts.append(_text("lal-head", head, grid_x - gap, y + cell_h / 2 + 0.35 * size, anchor="end"))
        for k, column in enumerate(columns):
            weight = float(weights[h, k])
            parts.append(
                f'<rect class="lal-cell" x="{grid_x + k * cell_w:.1f}" y="{y:.1f}" width="{cell_w:.1f}" '
                f'height="{cell_h:.1f}" fill="{escape(str(opts["accent"]))}" '
                f'fill-opacity="{weight * scale:.3f}" stroke="{escape(str(opts["bg"]))}">'
                f"<title>{escape(f'{head}, {column}: {weight:.3f}')}</title></rect>"
            )
    words_y = grid_y + grid_h + 0.9 * size
    for k, (column, kind) in enumerate(zip(columns, kinds)):
        x = grid_x + (k + 0.5) * cell_w
        attrs = f' text-anchor="end" transform="rotate(-45 {x:.1f} {words_y:.1f})"'
        if kind == "lal-boundary":
            attrs += ' font-style="italic" fill-opacity="0.6"'
        parts.append(_TEXT.format(cls=kind, x=x, y=words_y, attrs=attrs, text=escape(column)))

    # Legend: a colour bar from 0 to the largest weight, right of the grid.
    legend_x = grid_x + grid_w + 2 * gap
    legend_h = min(grid_h, 8 * cell_h)
    gradient = f"lal-attention-scale-{uuid.uuid4().hex}"  # ids must be unique on a page
    parts.append(
        f'<defs><linearGradient id="{gradient}" x1="0" y1="1" x2="0" y2="0">'
        f'<stop offset="0" stop-color="{escape(str(opts["accent"]))}" stop-opacity="0"/>'
        f'<stop offset="1" stop-color="{escape(str(opts["accent"]))}" stop-opacity="1"/>'
        "</linearGradient></defs>"
        f'<rect class="lal-legend" x="{legend_x:.1f}" y="{grid_y:.1f}" width="{gap:.1f}" '
        f'height="{legend_h:.1f}" fill="url(#{gradient})" stroke="currentColor" stroke-width="0.5"/>'
    )
    maximum = f"{vmax:.2f}"
    parts.append(_text("lal-legend-label", maximum, legend_x + 1.5 * gap, grid_y + 0.8 * size))
    parts.append(_text("lal-legend-label", "0", legend_x + 1.5 * gap, grid_y + legend_h))

    width = max(legend_x + 1.5 * gap + text_width(maximum, size), 2 * pad + _BOLD * text_width(title, size)) + pad
    height = words_y + max(word_widths) * slant + size + pad
    return _svg("lal-attention", width, height, opts, parts)


def plot_contributions(
    explanation: SentenceExplanation,
    span: Union[SpanContribution, "Span", Tuple[int, int]],
    *,
    top_k: int = 5,
    title: Optional[str] = None,
    options: Optional[Dict[str, Any]] = None,
) -> str:
    """A bar chart of each head's contribution to ``span`` (an explained span: a
    :class:`SpanContribution`, a Span or ``(start, end)`` Doc offsets): one bar per head in head
    order, as the heat map's rows; the ``top_k`` largest drawn in the accent colour with their
    share written next to them, the others muted. A dashed line marks the share of every head if
    all contributed alike (1 / number of heads). Returns a standalone SVG.
    """
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0, got {top_k}")
    item = explanation.span(span)
    opts = {**PLOT_OPTIONS, **(options or {})}
    size = float(opts["font_size"])
    heads, shares = explanation.heads, item.contributions
    top = set(_ranking(shares)[:top_k].tolist())
    if title is None:
        label = CHAIN_SEP.join(item.labels) or "no constituent"
        title = f"Head contributions to \u201c{_shorten(item.text)}\u201d ({label})"
    pad, gap = size, size / 2
    row_h, bar_h, bar_max = 1.3 * size, size, 20 * size
    head_width = max(text_width(h, size) for h in heads)
    bars_x = pad + head_width + gap
    title_y = pad + size
    uniform_y = title_y + 1.4 * size  # the uniform line's label, above the bars
    bars_y = uniform_y + 0.5 * size
    largest = float(shares.max()) if len(shares) else 0.0
    scale = bar_max / largest if largest > 0 else 0.0

    parts = [_title(title, pad, title_y)]
    values_x = bars_x + bar_max + gap  # a column of its own: values never meet a bar or the line
    value_width = 0.0
    for h, (head, share) in enumerate(zip(heads, shares.tolist())):
        y = bars_y + h * row_h
        fill = opts["accent"] if h in top else opts["muted"]
        parts.append(_text("lal-head", head, bars_x - gap, y + row_h / 2 + 0.35 * size, anchor="end"))
        parts.append(
            f'<rect class="lal-bar" x="{bars_x:.1f}" y="{y + (row_h - bar_h) / 2:.1f}" '
            f'width="{share * scale:.1f}" height="{bar_h:.1f}" fill="{escape(str(fill))}">'
            f"<title>{escape(f'{head}: {share:.3f}')}</title></rect>"
        )
        if h in top:
            value = f"{share:.1%}"
            value_width = max(value_width, text_width(value, size))
            parts.append(_text("lal-value", value, values_x, y + row_h / 2 + 0.35 * size))
    bars_end = bars_y + len(heads) * row_h
    uniform = 1.0 / len(heads)
    if uniform * scale <= bar_max:
        x = bars_x + uniform * scale
        parts.append(
            f'<path class="lal-uniform" d="M{x:.1f},{bars_y:.1f} V{bars_end:.1f}" stroke="currentColor" '
            'stroke-width="1" stroke-dasharray="4 3" fill="none"/>'
        )
        parts.append(_text("lal-uniform-label", "uniform", x, uniform_y, anchor="middle"))
    width = max(values_x + value_width, 2 * pad + _BOLD * text_width(title, size)) + pad
    return _svg("lal-contributions", width, bars_end + pad, opts, parts)


def _shorten(text: str, limit: int = 60) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis: a title should not set the width."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _text(cls: str, text: str, x: float, y: float, anchor: str = "start") -> str:
    return _TEXT.format(cls=cls, x=x, y=y, attrs=f' text-anchor="{anchor}"', text=escape(text))


def _title(text: str, x: float, y: float) -> str:
    return _TEXT.format(cls="lal-title", x=x, y=y, attrs=' font-weight="bold"', text=escape(text))


def _svg(cls: str, width: float, height: float, opts: Dict[str, Any], parts: List[str]) -> str:
    return _SVG.format(
        cls=cls,
        width=width,
        height=height,
        color=escape(str(opts["color"])),
        bg=escape(str(opts["bg"])),
        font=escape(str(opts["font"])),
        font_size=float(opts["font_size"]),
        content="".join(parts),
    )
