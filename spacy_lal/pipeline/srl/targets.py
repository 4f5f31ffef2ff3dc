"""Rolesets and BIO tags: how a frame's sense splits into the lemma and the sense class the
model predicts, how often each lemma took each roleset (the sense prior), and how its arguments
become the BIO tags of one unit (Tan et al. 2018, sec. 3: the labeller tags each word of a
sentence with B-/I-/O roles per predicate) and back.
"""
import math
from collections import Counter, defaultdict
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Token

from ...doc.frames import FrameData
from ..units import Unit


def split_roleset(roleset: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """"borrow.01" -> ("borrow", "01"); no sense or no "." -> (None, None)."""
    if not roleset or "." not in roleset:
        return None, None
    lemma, _, suffix = roleset.rpartition(".")
    return (lemma, suffix) if lemma and suffix else (None, None)


def count_senses(rolesets: Iterable[Optional[str]]) -> Dict[str, Dict[str, int]]:
    """How often each lemma's rolesets occur: {"borrow": {"01": 12}, ...}, the sense prior's
    table (the labeller's ``sense_counts``); senses without a suffix are left out."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    for roleset in rolesets:
        lemma, suffix = split_roleset(roleset)
        if suffix is not None:
            counts[lemma][suffix] += 1
    return {lemma: dict(sorted(c.items())) for lemma, c in sorted(counts.items())}


# Add-alpha smoothing of the sense prior: a roleset the lemma never took in training keeps a
# chance, and a lemma never seen gives each of its rolesets the same prior (the head decides).
SENSE_PRIOR_SMOOTHING = 0.1


def sense_bonus(count: int, weight: float) -> float:
    """What the sense prior adds to a roleset's logit among its lemma's rolesets: ``weight``
    times the log of its smoothed training count. Within one lemma the sum ranks the rolesets as
    the head's log-softmax plus ``weight`` log p(roleset | lemma) would (the normalisers are
    shared)."""
    return weight * math.log(count + SENSE_PRIOR_SMOOTHING)


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
