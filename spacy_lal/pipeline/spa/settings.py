"""``lal_spa_parser``'s settings (``pipeline/settings.py``).

- ``decoder``: graph-based, "mst" (Chu-Liu-Edmonds, non-projective) or "eisner" (projective);
  transition-based, "greedy" (the only one). null (the default): "mst" or "greedy", as the
  model's ``parsing`` is (``model_decoder``).
- ``non_projective``: transition-based training on non-projective gold trees, "projectivize"
  (the default) or "skip"; counted in a logged warning (see ``component.py``).
- ``piece_length``: sentences longer than this many words are parsed in pieces of at most this many.
"""
from typing import Optional

from ..arcs import GRAPH_DECODERS
from ..settings import PIECE_LENGTH, Setting, Settings, check_choice
from .adapter import TRANSITION_DECODERS

NON_PROJECTIVE_POLICIES = ("projectivize", "skip")

LAL_SPA_PARSER = Settings(
    decoder=Setting(None, check_choice((None, *GRAPH_DECODERS, *TRANSITION_DECODERS)), runtime=True),
    non_projective=Setting("projectivize", check_choice(NON_PROJECTIVE_POLICIES), runtime=True),
    piece_length=PIECE_LENGTH,
)


def model_decoder(component: str, parsing: str, decoder: Optional[str]) -> str:
    """The decoder a ``parsing`` ("graph" | "transition") model runs for the ``decoder`` setting."""
    allowed = GRAPH_DECODERS if parsing == "graph" else TRANSITION_DECODERS
    if decoder is None:  # Chu-Liu-Edmonds: UD trees may be non-projective
        return "mst" if parsing == "graph" else "greedy"
    if decoder not in allowed:
        raise ValueError(f"{component}: a {parsing}-based SPA parser's decoder must be one of {allowed}, got {decoder!r}")
    return decoder
