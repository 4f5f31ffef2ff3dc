"""Semantic role frames: plain data (:class:`FrameData`) and frames bound to a Doc (:class:`Frame`)."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span, Token

if TYPE_CHECKING:
    from .propbank import Roleset

Argument = Tuple[int, int, str]


class FrameData(NamedTuple):
    """One predicate's frame in doc-level token offsets.

    ``arguments`` are ``(start, end, label)`` with labels as in the data (ARG0, ARGM-TMP, C-ARG1,
    R-ARG0, ...), without the predicate's own V; a V bracket longer than the predicate token
    (a particle verb, "picked up") is kept as an argument labelled "V".
    """

    predicate: int
    sense: Optional[str]
    arguments: Tuple[Argument, ...] = ()

    @classmethod
    def from_bio(
        cls, tags: Sequence[str], predicate: int, sense: Optional[str] = None, *, offset: int = 0
    ) -> FrameData:
        """Read the frame of a sentence's BIO tags (inverse of :meth:`Frame.to_bio`).

        ``tags`` are the tags of the sentence starting at doc token ``offset``; ``predicate`` is a
        doc-level index. An I- tag must continue the argument of the tag before it.
        """
        arguments: List[Argument] = []
        for i, tag in enumerate(tags):
            if tag == "O":
                continue
            prefix, _, label = tag.partition("-")
            if prefix == "I" and arguments and arguments[-1][1] == offset + i and arguments[-1][2] == label:
                arguments[-1] = (arguments[-1][0], offset + i + 1, label)
            elif prefix == "B" and label:
                arguments.append((offset + i, offset + i + 1, label))
            else:
                raise ValueError(f"bad BIO tag {tag!r} at position {i} of {list(tags)!r}")
        own_v = (predicate, predicate + 1, "V")
        return cls(predicate, sense, tuple(arg for arg in arguments if arg != own_v))


def check_frame(doc: Doc, frame: FrameData) -> FrameData:
    """Validate ``frame`` against ``doc``; return it with plain ints and arguments sorted.

    The predicate must be a token of ``doc``; arguments non-empty, within the predicate's sentence
    (see :attr:`Frame.sentence`), not overlapping each other. Only a "V" argument may contain the
    predicate, and it must, and be longer than it. Raises ValueError.
    """
    predicate = operator.index(frame.predicate)
    if not 0 <= predicate < len(doc):
        raise ValueError(f"predicate {predicate} is not a token of a doc of length {len(doc)}")
    if frame.sense is not None and (not isinstance(frame.sense, str) or not frame.sense):
        raise ValueError(f"frame of predicate {predicate}: sense must be None or a non-empty str")
    sentence = _sentence_of(doc[predicate])
    arguments = []
    for argument in frame.arguments:
        start, end, label = argument
        start, end = operator.index(start), operator.index(end)
        where = f"frame of predicate {predicate}, argument {argument!r}"
        if not sentence.start <= start < end <= sentence.end:
            raise ValueError(f"{where}: not within the predicate's sentence {sentence.start}..{sentence.end}")
        if not isinstance(label, str) or not label or label.startswith(("B-", "I-")):
            raise ValueError(f"{where}: label must be a role like 'ARG0', not {label!r}")
        contains_predicate = start <= predicate < end
        if label == "V" and (not contains_predicate or end - start == 1):
            raise ValueError(f"{where}: a V argument extends the predicate to several tokens")
        if label != "V" and contains_predicate:
            raise ValueError(f"{where}: contains the predicate")
        arguments.append((start, end, label))
    arguments.sort()
    for (_, end, _), (start, _, _) in zip(arguments, arguments[1:]):
        if start < end:
            raise ValueError(f"frame of predicate {predicate}: arguments overlap: {arguments!r}")
    return FrameData(predicate, frame.sense, tuple(arguments))


class Frame:
    """A predicate's frame bound to a Doc: ``predicate`` (Token), ``sense``, ``arguments`` (Spans
    whose ``label_`` is the role, in order).

    ``data`` must be valid for ``doc`` (see :func:`check_frame`); frames are usually read from
    ``doc._.srl``.
    """

    def __init__(self, doc: Doc, data: FrameData) -> None:
        self.data = data
        self.predicate: Token = doc[data.predicate]
        self.sense = data.sense
        self.arguments: List[Span] = [Span(doc, start, end, label) for start, end, label in data.arguments]

    @property
    def roleset(self) -> Optional["Roleset"]:
        """The PropBank roleset of :attr:`sense` (``spacy_lal.doc.propbank``), None when the sense is
        None or not in PropBank 3.4's frames."""
        from .propbank import roleset  # the inventory is read on first use, not at import

        return roleset(self.sense)

    @property
    def roleset_name(self) -> Optional[str]:
        """The name PropBank gives the sense ("get temporarily" for borrow.01), None when the sense
        is not in the inventory."""
        found = self.roleset
        return None if found is None else found.name

    def role_description(self, label: str) -> Optional[str]:
        """What role ``label`` means for this predicate: "ARG2" of borrow.01 -> "loaner"; None for a
        numbered role the roleset does not define, or without a roleset. ARGM-* give the
        roleset's own description of that modifier if it lists one, else the function tag's
        meaning ("ARGM-TMP" -> "temporal", with or without a roleset); C-/R- roles describe their
        base role (see :meth:`spacy_lal.doc.propbank.Roleset.role_description`)."""
        from .propbank import FUNCTION_TAGS, base_role, numbered_role

        found = self.roleset
        if found is not None:
            return found.role_description(label)
        base = base_role(label)
        if numbered_role(base) is None and base.startswith("ARGM-"):
            return FUNCTION_TAGS.get(base[5:].split("-")[0].upper())
        return None

    @property
    def sentence(self) -> Span:
        """The predicate's sentence; the whole doc if the doc has no sentence boundaries."""
        return _sentence_of(self.predicate)

    def _brackets(self) -> List[Tuple[int, int, str]]:
        """Argument brackets relative to the sentence, with the V (the predicate, or the longer V)."""
        sentence = self.sentence
        brackets = [(span.start, span.end, span.label_) for span in self.arguments]
        if not any(label == "V" for _, _, label in brackets):
            brackets.append((self.predicate.i, self.predicate.i + 1, "V"))
        for start, end, label in brackets:
            if not sentence.start <= start < end <= sentence.end:
                raise ValueError(
                    f"argument {label} ({start}, {end}) of the frame of {self.predicate.text!r} is "
                    "outside the predicate's sentence; were sentence boundaries changed?"
                )
        return sorted((start - sentence.start, end - sentence.start, label) for start, end, label in brackets)

    def to_bio(self) -> List[str]:
        """One BIO tag per token of :attr:`sentence`: "B-V" on the predicate (and "I-V" on the
        rest of a longer V), "B-ARG0", "I-ARG0", ..., "O"; C- and R- roles are labels of their own
        ("B-C-ARG1", "B-R-ARG0")."""
        tags = ["O"] * len(self.sentence)
        for start, end, label in self._brackets():
            tags[start] = f"B-{label}"
            tags[start + 1 : end] = [f"I-{label}"] * (end - start - 1)
        return tags

    def __str__(self) -> str:
        """The sentence, tokens separated by single spaces, each argument in brackets:
        "[ARG0 Mary] [V borrowed] [ARG1 a book] from [ARG2 John]"."""
        words = [token.text for token in self.sentence]
        parts = []
        position = 0
        for start, end, label in self._brackets():
            parts.extend(words[position:start])
            parts.append(f"[{label} {' '.join(words[start:end])}]")
            position = end
        parts.extend(words[position:])
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"<Frame {self.predicate.text!r} sense={self.sense!r}: {self}>"


def _sentence_of(token: Token) -> Span:
    doc = token.doc
    return token.sent if doc.has_annotation("SENT_START") else doc[:]
