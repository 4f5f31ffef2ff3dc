"""``spacy-lal.srl_full_scorer.v1``: the role scores of ``spacy-lal.srl_scorer.v1`` with
predicate identification and sense accuracy beside them."""
from functools import partial
from typing import Any, Callable, Dict, Iterable

from spacy.training import Example
from spacy.util import registry

from ...scoring.ud import PRF


def score_srl_full(examples: Iterable[Example], *, srl_scorer: Callable, **kwargs: Any) -> Dict[str, Any]:
    """The srl scorer's scores plus ``srl_pred_f`` (predicate identification F1) and
    ``srl_sense_acc`` (fraction of gold frames with a sense whose predicate got that sense;
    None without gold senses). Predicates are matched by character offset."""
    examples = list(examples)
    scores = dict(srl_scorer(examples, **kwargs))
    correct = n_gold = n_pred = senses_right = n_senses = 0
    for eg in examples:
        gold = {frame.predicate.idx: frame.sense for frame in eg.reference._.srl}
        pred = {frame.predicate.idx: frame.sense for frame in eg.predicted._.srl}
        n_gold += len(gold)
        n_pred += len(pred)
        correct += len(gold.keys() & pred.keys())
        for idx, sense in gold.items():
            if sense is not None:
                n_senses += 1
                senses_right += pred.get(idx) == sense
    scores["srl_pred_f"] = PRF(correct, n_gold, n_pred).f1 if n_gold or n_pred else None
    scores["srl_sense_acc"] = senses_right / n_senses if n_senses else None
    return scores


@registry.scorers("spacy-lal.srl_full_scorer.v1")
def make_srl_full_scorer() -> Callable[..., Dict[str, Any]]:
    """``spacy-lal.srl_scorer.v1`` plus predicate identification F1 and sense accuracy."""
    # A partial of module-level functions, not a closure, so pipelines stay picklable.
    return partial(score_srl_full, srl_scorer=registry.scorers.get("spacy-lal.srl_scorer.v1")())
