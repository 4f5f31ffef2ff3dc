"""Constrained parsing (Mrini et al. decode with CKY; a constrained CKY keeps its exactness):
spans that must come out as constituents (``require``) and spans no constituent may cross
(``no_cross``), from the ``constraints`` setting's sources (``doc.ents``, ``doc.noun_chunks``,
span groups: ``pipeline/constraints.py``) and from calls (``constrained``,
``parse_with_constraints``). Only the tree is constrained: with "eisner"/"mst" the dependencies
are decoded apart from it ("joint" gives dependencies that agree with the constrained tree).
Constraints that cannot hold are dropped with a warning naming them.
"""
import threading
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc

from ...logs import logger
from ..constraints import KINDS, as_pairs, constrain_units, source_spans
from ..units import Unit


CallConstraints = List[Dict[str, List[Tuple[int, int]]]]

# Per thread, per parser (by id, an entry only while a block is open): the spans given to
# `constrained`. A block constrains the Docs its own thread parses, not those that another thread
# parses with the same nlp meanwhile. Not on the component: a thread-local cannot be pickled.
_CALLS = threading.local()


def _open_blocks() -> Dict[int, CallConstraints]:
    blocks = getattr(_CALLS, "blocks", None)
    if blocks is None:
        blocks = _CALLS.blocks = {}
    return blocks


class ConstrainedParsing:
    """The constraint settings and context of ``LabelAttentionParser`` (a mixin: it reads the
    component's ``name`` and ``cfg``)."""

    name: str
    cfg: Dict[str, Any]
    configure: Callable[..., None]  # UnitPipe.configure

    def __init__(self) -> None:
        pass  # the per-call constraints are per thread (``_CALLS``), not the component's

    @property
    def _call_constraints(self) -> CallConstraints:
        """The spans given to ``constrained`` in this thread for the Docs parsed inside its open
        blocks, innermost last."""
        return _open_blocks().get(id(self), [])

    def set_constraints(
        self, require: Optional[List[str]] = None, no_cross: Optional[List[str]] = None
    ) -> None:
        """Change the ``constraints`` setting's sources on a loaded parser (None keeps a kind's
        sources). Like ``set_decoder`` this changes the component, not ``nlp.config``: to keep it
        in a saved pipeline, give it in the config (``spacy.load(path, config=...)``)."""
        current = self.cfg["constraints"]
        self.configure(constraints={
            "require": current["require"] if require is None else require,
            "no_cross": current["no_cross"] if no_cross is None else no_cross,
        })

    @contextmanager
    def constrained(self, require: Iterable[Any] = (), no_cross: Iterable[Any] = ()) -> Iterator[None]:
        """Constrain every Doc parsed inside the block with these spans (``(start, end)`` token
        offsets or spaCy Spans), on top of the configured sources (and before them when
        constraints conflict). Only the Docs this thread parses: other threads parsing with the
        same pipeline meanwhile are not constrained::

            with nlp.get_pipe("lal_parser").constrained(require=[(3, 5)]):
                doc = nlp("...")
        """
        blocks = _open_blocks()
        stack = blocks.setdefault(id(self), [])
        stack.append({"require": as_pairs(require), "no_cross": as_pairs(no_cross)})
        try:
            yield
        finally:
            stack.pop()
            if not stack:
                del blocks[id(self)]

    def _unit_constraints(self, docs: List[Doc], units: List[Unit]) -> Tuple[Optional[list], Optional[list]]:
        """Per unit, the constraint spans in word positions (None, None without any)."""
        sources = self.cfg["constraints"]
        if not self.cfg["constituency"] or not (self._call_constraints or any(sources.values())):
            return None, None
        notes: List[str] = []
        wanted = []
        for doc in docs:
            spans: Dict[str, List[Tuple[int, int]]] = {}
            for kind in KINDS:
                spans[kind] = [span for call in reversed(self._call_constraints) for span in call[kind]]
                for source in sources.get(kind, []):
                    spans[kind].extend(source_spans(doc, source, notes))
            wanted.append(spans)
        for note in sorted(set(notes)):
            logger.warning("%s: constraints: %s", self.name, note)
        return constrain_units(self.name, docs, units, wanted)


def parse_with_constraints(
    nlp: Language,
    doc: Union[str, Doc],
    *,
    require: Iterable[Any] = (),
    no_cross: Iterable[Any] = (),
    component: str = "lal_parser",
) -> Doc:
    """Run ``nlp`` on ``doc`` (a text or a Doc) with these spans (``(start, end)`` token offsets
    or Spans of the Doc) as constraints of the ``component`` parser, on top of its configured
    ones; see ``LabelAttentionParser.constrained``. Offsets refer to ``nlp``'s tokens: for a
    text, tokenize it first (``nlp.make_doc``) to find them."""
    parser = nlp.get_pipe(component)
    if not isinstance(parser, ConstrainedParsing) or not parser.cfg["constituency"]:
        raise ValueError(f"parse_with_constraints: {component!r} is not a constituency lal_parser")
    with parser.constrained(require=require, no_cross=no_cross):
        return nlp(doc)
