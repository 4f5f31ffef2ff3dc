"""Score a whole pipeline on a gold corpus with the project's reference-equal scorers.

The pipeline parses the gold words of each sentence with the gold sentence boundaries (the
parsing papers' setting; spaCy's ``gold_preproc``). Trees are scored like EVALB (COLLINS.prm),
dependencies like the CoNLL 2018 UD scorer (and without gold-PUNCT words), roles like
``srl-eval.pl``, whichever the pipeline predicts, so spacy-lal and spaCy's own parser are scored
by the same code; tag, UPOS and morphology accuracy where the pipeline predicts them.
``scripts/evaluate.py`` is its command line; benchmarks read the same inputs.
"""
import time
from typing import Any, Dict, Iterable, List, Optional, Tuple

from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from .extensions import set_tree, stored_trees
from .pipeline.srl.predicates import mark_predicates
from .pipeline.srl.scoring import make_srl_full_scorer
from .scoring.spacy_scorers import score_constituency, score_dependencies

# The span group of ``proper_noun_phrases`` when they are given as lal_parser constraints.
GOLD_NP_KEY = "gold_np_propn"


def gold_inputs(vocab: Vocab, gold: Iterable[Doc]) -> List[Doc]:
    """Unannotated Docs with the gold words and gold sentence boundaries, as the papers
    evaluate: a sentencizer in the pipeline keeps them (it does not overwrite), and spaCy's
    parser does not split them."""
    return [
        Doc(
            vocab,
            words=[t.text for t in d],
            spaces=[bool(t.whitespace_) for t in d],
            sent_starts=[t.i == 0 or bool(t.is_sent_start) for t in d],
        )
        for d in gold
    ]


def proper_noun_phrases(ref: Doc) -> List[Tuple[int, int]]:
    """(start, end) of the gold tree's NP constituents that contain a proper noun (NNP/NNPS)."""
    out = []
    for first, _, spans in stored_trees(ref):
        for s, e, labels in spans:
            if "NP" in labels and any(t.tag_ in ("NNP", "NNPS") for t in ref[first + s : first + e]):
                out.append((first + s, first + e))
    return out


def evaluate_pipeline(
    nlp: Language,
    gold: List[Doc],
    *,
    srl_predicates: str = "gold",
    srl_gold_trees: bool = False,
    gold_np_constraints: Optional[str] = None,
    disable: Iterable[str] = (),
    batch_size: int = 64,
) -> Dict[str, Any]:
    """Scores of ``nlp`` on the ``gold`` Docs, as percentages, with the words and seconds.

    ``srl_predicates``: "gold" (the paper's setting: the inputs get the gold predicate tokens)
    or "predicted" (end to end); ``srl_gold_trees``: the inputs carry the gold trees and
    lal_parser is left out (the upper bound of tree-constrained roles);
    ``gold_np_constraints``: "require" or "no_cross": the gold NPs with a proper noun become
    lal_parser constraints of that kind.
    """
    inputs = gold_inputs(nlp.vocab, gold)
    disable = list(disable)
    extra: Dict[str, Any] = {}
    if gold_np_constraints:
        for doc, ref in zip(inputs, gold):
            doc.spans[GOLD_NP_KEY] = [doc[s:e] for s, e in proper_noun_phrases(ref)]
        nlp.get_pipe("lal_parser").set_constraints(**{gold_np_constraints: [f"spans:{GOLD_NP_KEY}"]})
        extra["constraint_spans"] = sum(len(doc.spans[GOLD_NP_KEY]) for doc in inputs)
    if srl_gold_trees:
        for doc, ref in zip(inputs, gold):
            for first, n, spans in stored_trees(ref):
                set_tree(doc[first : first + n], spans)
        disable.append("lal_parser")
    if "lal_srl" in nlp.pipe_names:
        nlp.get_pipe("lal_srl").cfg["predicates"] = srl_predicates
        if srl_predicates == "gold":
            for doc, ref in zip(inputs, gold):
                mark_predicates(doc, [frame.predicate.i for frame in ref._.srl])
    start = time.perf_counter()
    with nlp.select_pipes(disable=[name for name in disable if name in nlp.pipe_names]):
        predicted = list(nlp.pipe(inputs, batch_size=batch_size))
    seconds = time.perf_counter() - start
    examples = [Example(p, g) for p, g in zip(predicted, gold)]
    scores: Dict[str, Any] = {"words": sum(len(d) for d in gold), "seconds": round(seconds, 2), **extra}
    scores["words_per_second"] = round(scores["words"] / seconds, 1)
    # Token attributes a tagger/morphologizer set (the PTB tags are the trees' leaves).
    for annotation, attr, getter in (("TAG", "tag", getattr), ("POS", "pos", getattr),
                                     ("MORPH", "morph", lambda token, attr: token.morph.key)):
        if any(d.has_annotation(annotation) for d in predicted):
            scores[f"{attr}_acc"] = Scorer.score_token_attr(examples, attr, getter=getter)[f"{attr}_acc"]
    if any(d._.trees for d in predicted) and not srl_gold_trees:
        scores.update(score_constituency(examples))
    if any(d.has_annotation("DEP") for d in predicted):
        scores.update({k: v for k, v in score_dependencies(examples).items() if k != "dep_las_per_type"})
    if "lal_srl" in nlp.pipe_names and "lal_srl" not in disable and any(d._.srl for d in predicted):
        scores.update(make_srl_full_scorer()(examples))
    return {k: (round(100 * v, 2) if _is_rate(k, v) else v) for k, v in scores.items()}


def _is_rate(key: str, value: Any) -> bool:
    return isinstance(value, float) and (key.startswith(("tree", "dep", "srl")) or key.endswith("_acc"))
