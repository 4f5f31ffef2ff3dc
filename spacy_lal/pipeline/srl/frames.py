"""Rolesets and BIO tags: how a frame's sense splits into the lemma and the sense class the
model predicts, and how its arguments become the BIO tags of one unit (Tan et al. 2018, sec. 3:
the labeller tags each word of a sentence with B-/I-/O roles per predicate) and back.
"""
from typing import Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Token

from ...srl import FrameData
from ..units import Unit


def split_roleset(roleset: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """"borrow.01" -> ("borrow", "01"); no sense or no "." -> (None, None)."""
    if not roleset or "." not in roleset:
        return None, None
    lemma, _, suffix = roleset.rpartition(".")
    return (lemma, suffix) if lemma and suffix else (None, None)


def roleset_key(token: Token) -> str:
    """The lemma part a roleset starts from: the lowercased lemma, or text without a lemma."""
    return (token.lemma_ or token.text).lower()


def unit_bio(frame: FrameData, unit: Unit) -> List[str]:
    """The frame's BIO tags on the words of ``unit``: "B-V" on the predicate (and "I-V" on the
    rest of a longer V), arguments as B-/I-; an argument cut by the edge of a piece starts
    with B- in the piece."""
    brackets = list(frame.arguments)
    if not any(label == "V" for _, _, label in brackets):
        brackets.append((frame.predicate, frame.predicate + 1, "V"))
    owner = {token: b for b, (start, end, _) in enumerate(brackets) for token in range(start, end)}
    tags = []
    previous = None
    for token in unit.words:
        b = owner.get(token)
        if b is None:
            tags.append("O")
        else:
            tags.append(("I-" if b == previous else "B-") + brackets[b][2])
        previous = b
    return tags


def bio_spans(tags: Sequence[str]) -> Iterator[Tuple[int, int, str]]:
    """(start, end, role) of each B-/I- run of a valid BIO sequence."""
    start, role = None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        if tag.startswith("I-") and role == tag[2:]:
            continue
        if role is not None:
            yield start, i, role
        start, role = (i, tag[2:]) if tag != "O" else (None, None)
