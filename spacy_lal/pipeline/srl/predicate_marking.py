"""Predicates given to ``lal_srl`` (``predicates = "gold"``): marked by hand on a Doc, or copied
from the gold Docs onto the predicted ones by a corpus augmenter (the paper's setting)."""
from typing import Callable, Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from ...doc.extensions import set_frames
from ...doc.frames import FrameData
from ..gold import same_tokens

# user_data key: the Doc's predicates were given (``mark_predicates``), even if there are none.
PREDICATES_GIVEN = "spacy_lal.predicates_given"


def mark_predicates(doc: Doc, predicates: Iterable[int]) -> None:
    """Give ``lal_srl`` (``predicates = "gold"``) the predicates of ``doc`` by token index: frames
    without sense or arguments. An empty list says the Doc has none, so the identification head
    does not look for any."""
    set_frames(doc, [FrameData(i, None) for i in predicates])
    doc.user_data[PREDICATES_GIVEN] = True


def mark_gold_predicates(nlp: Language, example: Example) -> Iterator[Example]:
    """Mark the reference's predicates on the predicted Doc (``mark_predicates``), for
    ``predicates = "gold"``; Examples whose tokens differ are passed on unchanged."""
    if same_tokens(example):
        mark_predicates(example.predicted, [frame.predicate.i for frame in example.reference._.srl])
    yield example


@registry.augmenters("spacy-lal.srl_gold_predicates.v1")
def make_gold_predicate_augmenter() -> Callable[[Language, Example], Iterator[Example]]:
    """Corpus augmenter giving the predicted Docs the gold predicates (use it on the dev
    corpus to evaluate with gold predicates, the paper's setting)."""
    return mark_gold_predicates
