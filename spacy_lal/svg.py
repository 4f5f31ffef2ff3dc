"""SVG helpers shared by the tree pictures (``render.py``) and the attention plots
(``interpret/plots.py``) and the scripts' charts: escaping, text widths estimated without a font
engine, and the white-backed document around a chart's elements."""
import html
import unicodedata

__all__ = ["escape", "text_width", "document"]

# Arial advance widths in em, rounded up so that estimates err towards more space.
_NARROW = frozenset("ijlI.,:;!|'`")
_SLIM = frozenset('frt()[]{}-/\\" ')
_WIDE = frozenset("mwMW@%")


def escape(text: str) -> str:
    """``text`` safe inside SVG/HTML text and attribute values."""
    return html.escape(text, quote=True)


def text_width(text: str, size: float, letter_spacing: float = 0) -> float:
    """Estimated width in px of ``text`` in Arial at ``size`` px."""
    em = 0.0
    for char in text:
        if unicodedata.east_asian_width(char) in "WF":
            em += 1.0
        elif char in _NARROW:
            em += 0.28
        elif char in _SLIM:
            em += 0.34
        elif char in _WIDE:
            em += 0.86
        elif char.isupper():
            em += 0.7
        else:
            em += 0.56
    return em * size + letter_spacing * len(text)


def document(width: float, height: float, body: "list[str]") -> str:
    """An SVG document ``width`` x ``height`` px in Arial, white behind ``body`` (its elements)."""
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" font-family="Arial">'
    return "\n".join([head, '<rect width="100%" height="100%" fill="white"/>', *body, "</svg>"]) + "\n"
