"""A fixed share of a corpus in whole documents: the silver amount of a distilled student
(issue #36), chosen the same way where texts are picked for the teacher to parse (``convert
nltk-text --share``) and where parsed Docs are picked for training (``spacy-lal.MixedCorpus.v1``'s
``silver_fraction``)."""
import random
from typing import Callable, List, Sequence, TypeVar

T = TypeVar("T")


def fixed_share(items: Sequence[T], fraction: float, length: Callable[[T], int] = len,  # type: ignore[assignment]
                seed: int = 0) -> List[T]:
    """``fraction`` of the words of ``items`` (each ``length(item)`` words) in whole items, in a
    fixed shuffled order of ``items`` (``random.Random(seed)``): the smallest prefix of that
    order with at least that many words. So a smaller share is part of a larger one, and every
    share mixes the sources as the whole does, whatever order the corpus is in."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"a share must be between 0 and 1, got {fraction}")
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    target = fraction * sum(length(item) for item in items)
    keep: List[T] = []
    words = 0
    for i in order:
        if words >= target:
            break
        keep.append(items[i])
        words += length(items[i])
    return keep
