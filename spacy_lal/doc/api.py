"""The read-only ``._`` attributes over stored trees and frames, and their registration.

Registered by :func:`register_extensions` on ``import spacy_lal``: ``doc._.trees``,
``doc._.tree``, ``doc._.srl``; ``span._.labels``, ``span._.parse_string``,
``span._.children``, ``span._.parent``, ``span._.constituents``; ``token._.labels``,
``token._.parse_string``, ``token._.parent`` (those of the token's one-token span). As in benepar,
``span._.children`` and ``span._.constituents`` are generators (``next(sent._.children)``; wrap them
in ``list()`` to index or count), ``_.labels`` a tuple, ``_.parse_string`` a string and ``_.parent``
a Span or None. The span and token attributes raise :class:`NotAConstituentError` (benepar's
:data:`NonConstituentException`, a ValueError) for a span that is not a constituent of a stored
tree, when the attribute is read (benepar's generators raise only when first advanced); a constituent lies within one parsed sentence, so for a doc of several sentences
``doc[:]`` is not one (use ``doc.sents``, or ``doc._.tree`` for one tree over all of them). POS
tags come from ``token.tag_``; an empty tag reads as :data:`spacy_lal.doc.tree.UNTAGGED`. Words are
the tokens' texts. spaCy's whitespace tokens are no words of a treebank: the trees of
``doc._.trees`` keep them as leaves tagged ``_SP`` (word "_") so that leaves and tokens align,
while ``parse_string`` and ``children`` leave them out.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

from spacy.tokens import Doc, Span, Token

from .extensions import FRAME_ATTR, TREE_ATTR, describe_span, stored_values, tree_before
from .frames import Frame, FrameData
from .tree import UNTAGGED, WHITESPACE_TAG, LabelledSpan, Tree

_WHITESPACE = re.compile(r"\s")


class NotAConstituentError(ValueError):
    """A span (or token) is not a constituent of a stored tree, or no tree covers it.

    Also reachable as :data:`NonConstituentException`, benepar's name for it, so that code written
    for benepar (``except NonConstituentException``) catches it, as does ``except ValueError``."""


#: benepar's name for :class:`NotAConstituentError` (the same class).
NonConstituentException = NotAConstituentError


# -- registration ----------------------------------------------------------------------------


class ExtensionConflictWarning(UserWarning):
    """spacy_lal replaced ``._`` attributes that another package (benepar, say) had registered."""


_WARNED_OWNERS: Set[str] = set()


def register_extensions() -> None:
    """Register the ``._`` attributes; safe to call again.

    The span and token attributes have benepar's names and meanings, and spaCy keeps one extension
    per name and class, so ours replace (``force=True``) another package's of the same name: that
    is warned once per package (:class:`ExtensionConflictWarning`), naming it and the attributes.
    """
    registrations: List[Tuple[Any, str, Dict[str, Any]]] = [
        (Token, TREE_ATTR, {"default": None}),
        (Token, FRAME_ATTR, {"default": None}),
        (Doc, "trees", {"getter": _get_trees}),
        (Doc, "tree", {"getter": _get_tree}),
        (Doc, "srl", {"getter": _get_frames}),
        (Span, "labels", {"getter": _get_labels}),
        (Span, "parse_string", {"getter": _get_parse_string}),
        (Span, "children", {"getter": _get_children}),
        (Span, "parent", {"getter": _get_parent}),
        (Span, "constituents", {"getter": _get_constituents}),
        (Token, "labels", {"getter": _get_token_labels}),
        (Token, "parse_string", {"getter": _get_token_parse_string}),
        (Token, "parent", {"getter": _get_token_parent}),
    ]
    replaced: Dict[str, List[str]] = {}
    for cls, name, spec in registrations:
        owner = _foreign_owner(cls, name, spec)
        if owner is not None:
            replaced.setdefault(owner, []).append(f"{cls.__name__}._.{name}")
        cls.set_extension(name, force=True, **spec)
    for owner, attributes in replaced.items():
        if owner in _WARNED_OWNERS:
            continue
        _WARNED_OWNERS.add(owner)
        # spaCy imports spacy_lal whenever it builds a pipeline (Language() loads every package's
        # factory entry points), so the conflict is one of installed packages, not of imports.
        warnings.warn(
            f"spacy_lal replaced the spaCy extension attributes {', '.join(attributes)} that {owner} "
            f"had registered: they now read spacy_lal's trees, and {owner}'s values can no longer be "
            "read through them. spaCy keeps one extension per name, and it imports spacy_lal whenever "
            f"it builds a pipeline while spacy-lal is installed; to use {owner}'s attributes, run "
            f"{owner} in an environment without spacy-lal (importing it after spacy_lal fails instead, "
            "with spaCy's error E090, if it registers them without force=True, as benepar 0.2 does).",
            ExtensionConflictWarning,
            stacklevel=2,
        )


def _foreign_owner(cls: Any, name: str, spec: Dict[str, Any]) -> Optional[str]:
    """The package that registered ``cls._.name``, if it exists and is not ours (else None)."""
    if not cls.has_extension(name):
        return None
    _, method, getter, setter = cls.get_extension(name)
    functions = [fn for fn in (method, getter, setter) if fn is not None]
    if not functions:
        # A plain value: ours are the lal_* storage attributes, whose names no other package uses.
        return None if "default" in spec else "another package"
    ours = __name__.partition(".")[0]
    packages = {(getattr(fn, "__module__", None) or "").partition(".")[0] for fn in functions}
    if packages == {ours}:
        return None
    known = sorted(packages - {"", ours})
    return known[0] if known else "another package"


# -- getters -------------------------------------------------------------------------------


def _get_trees(doc: Doc) -> List[Tree]:
    """``doc._.trees``: the stored trees, one per parsed sentence, in order."""
    return [region.tree() for region in _regions(doc)]


def _get_tree(doc: Doc) -> Optional[Tree]:
    """``doc._.tree``: the tree of a one-sentence doc; for several parsed sentences a root labelled
    "TOP" over their trees (sentences without a tree are left out); None if nothing is parsed."""
    trees = _get_trees(doc)
    if not trees:
        return None
    return trees[0] if len(trees) == 1 else Tree("TOP", trees)


def _get_frames(doc: Doc) -> List[Frame]:
    """``doc._.srl``: the stored frames in predicate order."""
    frames = []
    for p, value in stored_values(doc, FRAME_ATTR).items():
        arguments = tuple((p + start, p + end, label) for start, end, label in value["args"])
        frames.append(Frame(doc, FrameData(p, value["sense"], arguments)))
    return frames


def _get_labels(span: Span) -> Tuple[str, ...]:
    """``span._.labels``: labels of the constituent, outermost first; () for a single token that
    is only a preterminal."""
    return _Region.of(span).labels(span.start, span.end)


def leaf_tag(token: Token) -> str:
    """The POS tag of ``token``'s leaf: ``_SP`` for whitespace tokens, else ``token.tag_`` (or
    :data:`~spacy_lal.doc.tree.UNTAGGED`). A word a tagger tagged ``_SP`` (it happens on scripts it
    never saw) is a word: its leaf is UNTAGGED, as ``_SP`` leaves are spacing, left out of
    written trees."""
    if token.is_space:
        return WHITESPACE_TAG
    tag = token.tag_
    return tag if tag and tag != WHITESPACE_TAG else UNTAGGED


def _get_parse_string(span: Span) -> str:
    """``span._.parse_string``: PTB bracketing of the constituent (words escaped, tags from
    ``token.tag_``), whitespace tokens left out as in treebanks."""
    return _Region.of(span).subtree(span.start, span.end).without_whitespace().to_string()


def _get_children(span: Span) -> Iterator[Span]:
    """``span._.children``: a generator of the child constituents, left to right, single-token
    preterminals included (not whitespace tokens); nothing for a single token. Raises
    NotAConstituentError at once, not when first advanced."""
    region = _Region.of_constituent(span)
    return _children(region, span)


def _children(region: _Region, span: Span) -> Iterator[Span]:
    doc = span.doc
    for start, end in region.children(span.start, span.end):
        if not (end - start == 1 and doc[start].is_space):
            yield doc[start:end]


def _get_parent(span: Span) -> Optional[Span]:
    """``span._.parent``: the smallest constituent strictly containing the span; None at the root."""
    region = _Region.of_constituent(span)
    ancestors = [
        (end - start, start, end)
        for start, end, _ in region.spans
        if start <= span.start and span.end <= end and (start, end) != (span.start, span.end)
    ]
    if not ancestors:
        return None
    _, start, end = min(ancestors)
    return span.doc[start:end]


def _get_constituents(span: Span) -> Iterator[Span]:
    """``span._.constituents``: a generator of every constituent within the span, itself first,
    in pre-order; single-token preterminals included. Raises NotAConstituentError at once."""
    region = _Region.of_constituent(span)
    return _constituents(region, span)


def _constituents(region: _Region, span: Span) -> Iterator[Span]:
    inside = {(start, end) for start, end, _ in region.spans if span.start <= start and end <= span.end}
    inside.update((i, i + 1) for i in range(span.start, span.end))
    # Sorting nested spans by (start, longest first) gives pre-order.
    for start, end in sorted(inside, key=lambda s: (s[0], -s[1])):
        yield span.doc[start:end]


# The token attributes are those of the token's one-token span. Each is a function of this module,
# not a closure made at registration: nlp.pipe(n_process=N) under the "spawn" start method pickles
# every registered extension (spaCy's Underscore.get_state()) to send it to the workers, and
# pickle finds functions by their qualified name only.


def _get_token_labels(token: Token) -> Tuple[str, ...]:
    """``token._.labels``: ``span._.labels`` of the token's one-token span."""
    return _get_labels(_token_span(token))


def _get_token_parse_string(token: Token) -> str:
    """``token._.parse_string``: ``span._.parse_string`` of the token's one-token span."""
    return _get_parse_string(_token_span(token))


def _get_token_parent(token: Token) -> Optional[Span]:
    """``token._.parent``: ``span._.parent`` of the token's one-token span."""
    return _get_parent(_token_span(token))


def _token_span(token: Token) -> Span:
    return token.doc[token.i : token.i + 1]


# -- internals -------------------------------------------------------------------------------


class _Region:
    """The stored tree of tokens ``start``..``end`` of ``doc``, with doc-level span offsets."""

    def __init__(self, doc: Doc, start: int, value: dict) -> None:
        self.doc = doc
        self.start = start
        self.end = start + value["n"]
        if self.end > len(doc):
            raise ValueError(f"stored tree at token {start} covers {value['n']} tokens, past the end")
        self.spans: List[LabelledSpan] = [
            (start + s, start + e, tuple(labels)) for s, e, labels in value["spans"]
        ]

    @classmethod
    def of(cls, span: Span) -> _Region:
        """The region containing ``span``; NotAConstituentError if there is none."""
        found = tree_before(span.doc, span.start, inclusive=True)
        if found is None or found[0] + found[1]["n"] <= span.start:
            raise NotAConstituentError(
                f"{describe_span(span)} is not a constituent: no parse tree is stored for its sentence"
            )
        region = cls(span.doc, *found)
        if span.end > region.end:
            raise NotAConstituentError(
                f"{describe_span(span)} is not a constituent: it crosses the end of the parsed sentence "
                f"(tokens {region.start}..{region.end})"
            )
        return region

    @classmethod
    def of_constituent(cls, span: Span) -> _Region:
        """The region of which ``span`` is a constituent; NotAConstituentError if none."""
        region = cls.of(span)
        region.labels(span.start, span.end)
        return region

    def labels(self, start: int, end: int) -> Tuple[str, ...]:
        for s, e, labels in self.spans:
            if (s, e) == (start, end):
                return labels
        if end - start == 1:
            return ()
        raise NotAConstituentError(
            f"{describe_span(self.doc[start:end])} is not a constituent of the parse of tokens "
            f"{self.start}..{self.end}"
        )

    def children(self, start: int, end: int) -> List[Tuple[int, int]]:
        """Child constituents of the constituent (start, end), bare tokens included."""
        if end - start == 1:
            return []
        children = []
        position = start
        while position < end:
            # The longest span starting here, other than (start, end) itself and its ancestors.
            child_end = max(
                (e for s, e, _ in self.spans if s == position and e <= end and (s, e) != (start, end)),
                default=position + 1,
            )
            children.append((position, child_end))
            position = child_end
        return children

    def subtree(self, start: int, end: int) -> Tree:
        """The subtree of the constituent (start, end)."""
        labels = self.labels(start, end)
        tokens = self.doc[start:end]
        words = [_WHITESPACE.sub("_", token.text) for token in tokens]
        tags = [leaf_tag(token) for token in tokens]
        if not labels:
            return Tree(tags[0], word=words[0])
        inside = [(s - start, e - start, chain) for s, e, chain in self.spans if start <= s and e <= end]
        return Tree.from_spans(words, tags, inside)

    def tree(self) -> Tree:
        return self.subtree(self.start, self.end)


def _regions(doc: Doc) -> List[_Region]:
    regions: List[_Region] = []
    for first, value in stored_values(doc, TREE_ATTR).items():
        if not regions or first >= regions[-1].end:
            regions.append(_Region(doc, first, value))
    return regions
