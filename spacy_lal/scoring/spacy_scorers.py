"""The reference scorers, registered with spaCy for ``spacy evaluate`` and training.

Each registered function returns a scorer ``(examples, **kwargs) -> Dict[str, Any]``
that reads gold annotation from ``example.reference`` and predictions from
``example.predicted`` (see "Doc storage" in DEVELOPING.md), converts both to the
structures of :mod:`.evalb`, :mod:`.ud` and :mod:`.srl_eval`, and scores them with
the same code as the command line. Scores are fractions in [0, 1], like spaCy's.

Tokenization: spaCy guarantees that both docs of an Example have the same text, so
the scorers place everything by character offsets where tokenizations differ:

* trees: when both docs have the same tokens and the same parsed sentences, each
  sentence is scored as an EVALB sentence; otherwise the Example is scored as one
  unit with brackets in character offsets (a bracket runs from the first character
  of its first kept word to the last character of its last), so ``tree_exact`` then
  counts Examples, not sentences.
* dependencies: words are aligned by their characters exactly as the CoNLL 2018
  scorer aligns two tokenizations (whitespace tokens are not words).
* SRL: predicates and arguments are placed by character offsets; a predicted
  argument whose edges fall inside reference tokens can only be an excess.
"""
from functools import partial
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from .evalb import (
    COLLINS,
    Bracketing,
    EvalbResult,
    bracketing_from_tree,
    merge_bracketings,
    score_sentence,
)
from .srl_eval import Proposition, SrlResult, arguments_from_phrases
from .srl_eval import score_sentence as score_srl_sentence
from .ud import PRF, UDResult, score_ud, words_from_tokens

__all__ = [
    "make_constituency_scorer",
    "make_dependency_scorer",
    "make_srl_scorer",
    "score_constituency",
    "score_dependencies",
    "score_srl_frames",
]

Scorer = Callable[..., Dict[str, Any]]


# --- constituency ---------------------------------------------------------------------


def _sentence_trees(doc: Doc) -> List[Tuple[int, Any]]:
    """``(first token index, tree)`` of each parsed sentence, in order."""
    from ..doc.extensions import stored_trees

    starts = [start for start, _, _ in stored_trees(doc)]
    trees = doc._.trees
    if len(starts) != len(trees):
        raise ValueError(f"{len(trees)} trees but {len(starts)} stored tree regions in a Doc")
    return list(zip(starts, trees))


def _char_bracketing(doc: Doc, trees: Sequence[Tuple[int, Any]]) -> Bracketing:
    parts = []
    for start, tree in trees:
        tokens = doc[start : start + len(tree)]
        positions = [(t.idx, t.idx + len(t.text)) for t in tokens]
        parts.append(bracketing_from_tree(tree, COLLINS, positions))
    return merge_bracketings(parts)


def constituency_pairs(example: Example) -> List[Tuple[Bracketing, Bracketing]]:
    """The ``(gold, predicted)`` EVALB units of an Example (see the module docstring)."""
    gold_trees = _sentence_trees(example.reference)
    if not gold_trees:
        return []
    pred_trees = _sentence_trees(example.predicted)
    same_tokens = [t.text for t in example.reference] == [t.text for t in example.predicted]
    same_sentences = [(s, len(t)) for s, t in gold_trees] == [(s, len(t)) for s, t in pred_trees]
    if same_tokens and same_sentences:
        return [
            (bracketing_from_tree(gold), bracketing_from_tree(pred))
            for (_, gold), (_, pred) in zip(gold_trees, pred_trees)
        ]
    gold = _char_bracketing(example.reference, gold_trees)
    pred = _char_bracketing(example.predicted, pred_trees)
    return [(gold, pred)]


def score_constituency(examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
    """EVALB (COLLINS.prm) over Examples: ``tree_p``, ``tree_r``, ``tree_f``,
    ``tree_exact`` (complete match), fractions over the valid sentences; sentences
    EVALB would skip or reject are left out, as EVALB does."""
    result = EvalbResult(cutoff_len=COLLINS.cutoff_len)
    for example in examples:
        for gold, pred in constituency_pairs(example):
            result.add(score_sentence(gold, pred, COLLINS, len(result.sentences) + 1))
    totals = result.all
    return {
        "tree_p": totals.precision,
        "tree_r": totals.recall,
        "tree_f": totals.f1,
        "tree_exact": totals.complete_match,
    }


@registry.scorers("spacy-lal.constituency_scorer.v1")
def make_constituency_scorer() -> Scorer:
    return score_constituency


# --- dependencies ---------------------------------------------------------------------


def _ud_words(doc: Doc, parsed: bool) -> Any:
    # Labels are compared lowercased, as spaCy's own dependency scorer does: spaCy's parser
    # writes "ROOT" where UD writes "root", and UD labels are lowercase by definition.
    rows = []
    for token in doc:
        if not parsed:
            head: Optional[int] = -1  # no parse: a head that matches nothing
        else:
            head = None if token.head.i == token.i else token.head.i
        rows.append((token.text, token.pos_, token.dep_.lower() if parsed else "", head))
    return words_from_tokens(rows)


def _add(a: PRF, b: PRF) -> PRF:
    return PRF(a.correct + b.correct, a.gold + b.gold, a.system + b.system)


def score_dependencies(
    examples: Iterable[Example], *, punct_upos: Sequence[str] = ("PUNCT",), **kwargs: Any
) -> Dict[str, Any]:
    """CoNLL 2018 UAS/LAS (F1) over Examples, plus the scores without words whose
    gold UPOS is in ``punct_upos``. References without a parse are skipped."""
    total: Optional[UDResult] = None
    for example in examples:
        if not example.reference.has_annotation("DEP"):
            continue
        result = score_ud(
            _ud_words(example.reference, True),
            _ud_words(example.predicted, example.predicted.has_annotation("DEP")),
            frozenset(punct_upos),
        )
        total = result if total is None else _sum_results(total, result)
    if total is None:
        return {
            "dep_uas": None,
            "dep_las": None,
            "dep_uas_nopunct": None,
            "dep_las_nopunct": None,
            "dep_las_per_type": None,
        }
    return {
        "dep_uas": total.uas.f1,
        "dep_las": total.las.f1,
        "dep_uas_nopunct": total.uas_nopunct.f1,
        "dep_las_nopunct": total.las_nopunct.f1,
        "dep_las_per_type": {
            label: {"p": prf.precision, "r": prf.recall, "f": prf.f1}
            for label, prf in total.las_per_type.items()
        },
    }


def _sum_results(a: UDResult, b: UDResult) -> UDResult:
    per_type = dict(a.las_per_type)
    for label, prf in b.las_per_type.items():
        per_type[label] = _add(per_type[label], prf) if label in per_type else prf
    return UDResult(
        words=_add(a.words, b.words),
        uas=_add(a.uas, b.uas),
        las=_add(a.las, b.las),
        uas_nopunct=_add(a.uas_nopunct, b.uas_nopunct),
        las_nopunct=_add(a.las_nopunct, b.las_nopunct),
        las_per_type=per_type,
    )


@registry.scorers("spacy-lal.dependency_scorer.v1")
def make_dependency_scorer(punct_upos: List[str] = ["PUNCT"]) -> Scorer:  # noqa: B006
    """``punct_upos``: gold UPOS tags left out of ``dep_uas_nopunct``/``dep_las_nopunct``."""
    # A partial of a module-level function, not a closure, so pipelines stay picklable.
    return partial(score_dependencies, punct_upos=tuple(punct_upos))


@registry.scorers("spacy-lal.parser_scorer.v1")
def make_parser_scorer(punct_upos: List[str] = ["PUNCT"]) -> Scorer:  # noqa: B006
    """The scores of ``lal_parser``: trees (``tree_*``) and dependencies (``dep_*``)."""
    return partial(score_parser, punct_upos=tuple(punct_upos))


def score_parser(
    examples: Iterable[Example], *, punct_upos: Sequence[str] = ("PUNCT",), **kwargs: Any
) -> Dict[str, Any]:
    examples = list(examples)
    return {
        **score_constituency(examples, **kwargs),
        **score_dependencies(examples, punct_upos=punct_upos, **kwargs),
    }


# --- SRL ------------------------------------------------------------------------------


def doc_propositions(doc: Doc, token_starts: Optional[Sequence[int]] = None) -> List[Proposition]:
    """The frames of ``doc._.srl`` as srl-eval propositions in character offsets: each token's
    ``token.idx``, or ``token_starts[i]`` (where the tokens are in a longer text, for raw-text
    scoring).

    Propositions are paired by predicate position only (the target verb is "").
    """
    starts = [token.idx for token in doc] if token_starts is None else token_starts
    props = []
    for frame in doc._.srl:
        phrases = [
            (starts[start], starts[end - 1] + len(doc[end - 1].text), label)
            for start, end, label in frame.data.arguments
        ]
        props.append(Proposition(starts[frame.predicate.i], "", arguments_from_phrases(phrases)))
    return props


def score_srl_frames(examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
    """srl-eval.pl over Examples (each Example one sentence): ``srl_p``, ``srl_r``,
    ``srl_f`` (V excluded) and ``srl_perfect`` (perfect propositions)."""
    result = SrlResult()
    for i, example in enumerate(examples, start=1):
        score_srl_sentence(
            doc_propositions(example.reference), doc_propositions(example.predicted), result, i
        )
    overall = result.overall
    return {
        "srl_p": overall.precision,
        "srl_r": overall.recall,
        "srl_f": overall.f1,
        "srl_perfect": result.perfect,
    }


@registry.scorers("spacy-lal.srl_scorer.v1")
def make_srl_scorer() -> Scorer:
    return score_srl_frames
