"""Score a whole pipeline on a gold corpus with the project's reference-equal scorers.

The pipeline parses the gold words of each sentence with the gold sentence boundaries (the
parsing papers' setting; spaCy's ``gold_preproc``). Trees are scored like EVALB (COLLINS.prm),
dependencies like the CoNLL 2018 UD scorer (and without gold-PUNCT words), roles like
``srl-eval.pl``, whichever the pipeline predicts, so spacy-lal and spaCy's own parser are scored
by the same code; tag, UPOS and morphology accuracy where the pipeline predicts them.
``scripts/evaluate.py`` is its command line; benchmarks read the same inputs.
"""
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokens import Doc, DocBin, Span
from spacy.training import Example
from spacy.vocab import Vocab

from .corpora.documents import read_raw_documents
from .corpora.export import write_conllu
from .doc.extensions import set_tree, stored_trees
from .doc.tree import Tree
from .pipeline.srl.component import keep_auxiliary_frames
from .pipeline.srl.predicate_marking import mark_predicates
from .pipeline.srl.scoring import make_srl_full_scorer
from .scoring.evalb import COLLINS, EvalbResult, bracketing_from_tree, score_sentence
from .scoring.spacy_scorers import doc_propositions, score_constituency, score_dependencies
from .scoring.srl_eval import SrlResult
from .scoring.srl_eval import score_sentence as score_srl_sentence
from .scoring.ud import score_conllu_files

# The span group of ``proper_noun_phrases`` when they are given as lal_parser constraints.
GOLD_NP_KEY = "gold_np_propn"


def gold_inputs(vocab: Vocab, gold: Iterable[Doc]) -> List[Doc]:
    """Unannotated Docs with the gold words and gold sentence boundaries, as the papers
    evaluate: a sentence splitter in the pipeline (senter or sentencizer, ``overwrite = false``)
    keeps them, and spaCy's parser does not split them."""
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
    parse: Optional[Callable[[List[Doc]], Iterable[Doc]]] = None,
) -> Dict[str, Any]:
    """Scores of ``nlp`` on the ``gold`` Docs, as percentages, with the words and seconds.

    ``srl_predicates``: "gold" (the paper's setting: the inputs get the gold predicate tokens)
    or "predicted" (end to end); ``srl_gold_trees``: the inputs carry the gold trees and
    lal_parser is left out (the upper bound of tree-constrained roles);
    ``gold_np_constraints``: "require" or "no_cross": the gold NPs with a proper noun become
    lal_parser constraints of that kind; ``parse``: what parses the inputs (Docs of
    ``nlp.vocab``) instead of ``nlp.pipe`` (an ensemble whose first member is ``nlp``:
    ``pipeline/ensemble.py``), under the same settings.
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
        keep_auxiliary_frames(nlp)
        nlp.get_pipe("lal_srl").configure(predicates=srl_predicates)
        if srl_predicates == "gold":
            for doc, ref in zip(inputs, gold):
                mark_predicates(doc, [frame.predicate.i for frame in ref._.srl])
    start = time.perf_counter()
    with nlp.select_pipes(disable=[name for name in disable if name in nlp.pipe_names]):
        predicted = list(nlp.pipe(inputs, batch_size=batch_size) if parse is None else parse(inputs))
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
        if any(d._.trees for d in predicted):
            scores["srl_on_tree"] = arguments_on_tree(predicted)
    return {k: (round(100 * v, 2) if _is_rate(k, v) else v) for k, v in scores.items()}


def arguments_on_tree(docs: Iterable[Doc]) -> float:
    """The share of the Docs' role arguments of several words that are constituents of their own
    trees (``lal_srl``'s decoder "tree" without ``tree_penalty`` makes it 1)."""
    on = total = 0
    for doc in docs:
        constituents = {(first + s, first + e) for first, _, spans in stored_trees(doc) for s, e, _ in spans}
        for frame in doc._.srl:
            for argument in frame.arguments:
                if len(argument) > 1:
                    total += 1
                    on += (argument.start, argument.end) in constituents
    return on / total if total else 1.0


def _is_rate(key: str, value: Any) -> bool:
    return isinstance(value, float) and (key.startswith(("tree", "dep", "srl")) or key.endswith("_acc"))


def evaluate_raw_text(
    nlp: Language,
    gold_conllu: Path,
    *,
    gold_corpus: Optional[Path] = None,
    system_conllu: Optional[Path] = None,
    batch_size: int = 16,
    layout: str = "conll18",
) -> Dict[str, Any]:
    """Scores of ``nlp`` on raw text, as the CoNLL 2018 shared task measures a pipeline.

    Each document of ``gold_conllu`` (``# newdoc``) is given to ``nlp`` as its text in
    ``layout`` (:func:`spacy_lal.corpora.read_raw_documents`: ``"conll18"``, the shared task's
    raw text, paragraphs and 80-character lines as UD's ``conllu_to_text.pl`` writes them;
    ``"joined"``, the sentences joined by a space): the pipeline's own tokenizer and sentence
    splitter make the words and sentences. Its CoNLL-U output (written to ``system_conllu`` if
    given) is scored against the gold file by the CoNLL 2018 scorer (:mod:`spacy_lal.scoring.ud`,
    which aligns words through their characters): Tokens, Sentences, Words, UPOS, XPOS, UFeats,
    Lemmas, UAS, LAS, as F1 percentages.

    With ``gold_corpus`` (the joined EWT corpus of the same split, ``.spacy``, whose sentences
    carry ``sent_id``, trees and frames): semantic roles end to end by srl-eval.pl's rules over
    character offsets (a predicted argument is correct when its predicate, characters and label
    are a gold one's; propositions of sentences the join left out are not scored); and EVALB over
    the sentences whose predicted words are exactly the gold ones (``tree_sentences`` counts them:
    a tree over other words cannot be scored honestly).
    """
    raw_docs = list(read_raw_documents(gold_conllu, layout))
    n_words = sum(raw.n_words for raw in raw_docs)
    start = time.perf_counter()
    keep_auxiliary_frames(nlp)
    predicted = list(nlp.pipe((raw.text for raw in raw_docs), batch_size=batch_size))
    seconds = time.perf_counter() - start
    for doc, raw in zip(predicted, raw_docs):
        doc.user_data["doc_id"] = raw.doc_id
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(system_conllu or Path(tmp) / "system.conllu")
        write_conllu(predicted, path)
        ud = score_conllu_files(gold_conllu, path)
    scores: Dict[str, Any] = {
        "layout": layout,
        "words": n_words,
        "seconds": round(seconds, 2),
        "words_per_second": round(n_words / seconds, 1),
    }
    for name in ("tokens", "sentences", "words", "upos", "xpos", "ufeats", "lemmas", "uas", "las"):
        prf = getattr(ud, name, None)
        if prf is not None:
            scores[f"ud_{name}"] = round(100 * prf.f1, 2)
    if gold_corpus is None:
        return scores
    # Each gold sentence's document and word offsets in its text, by sent_id.
    words_at: Dict[str, Tuple[int, List[Tuple[int, int]]]] = {
        sent_id: (d, offsets)
        for d, raw in enumerate(raw_docs)
        for sent_id, offsets in zip(raw.sent_ids, raw.word_offsets)
    }
    gold_props: List[list] = [[] for _ in raw_docs]
    sentence_at = [{sent.start_char: sent for sent in doc.sents} for doc in predicted]
    trees = EvalbResult(cutoff_len=COLLINS.cutoff_len)
    for ref in DocBin().from_disk(gold_corpus).get_docs(nlp.vocab):
        d, offsets = words_at[ref.user_data["sent_id"]]
        gold_props[d].extend(doc_propositions(ref, [start for start, _ in offsets]))
        pred = _same_words(sentence_at[d].get(offsets[0][0]), offsets)
        if pred is not None and ref._.trees:
            try:
                tree = Tree.from_string(pred._.parse_string)
            except ValueError:  # no tree on that sentence
                continue
            pair = bracketing_from_tree(ref._.trees[0]), bracketing_from_tree(tree)
            trees.add(score_sentence(*pair, COLLINS, len(trees.sentences) + 1))
    srl = SrlResult()
    for d, doc in enumerate(predicted):
        score_srl_sentence(gold_props[d], doc_propositions(doc), srl, d + 1)
    scores.update(
        {
            "srl_p": round(100 * srl.overall.precision, 2),
            "srl_r": round(100 * srl.overall.recall, 2),
            "srl_f": round(100 * srl.overall.f1, 2),
            "tree_sentences": len(trees.sentences),
            "tree_f": round(100 * trees.all.f1, 2),
        }
    )
    return scores


def _same_words(sent: Optional[Span], words: List[Tuple[int, int]]) -> Optional[Span]:
    """``sent`` if its words are exactly ``words`` ((start, end) characters each), else None."""
    if sent is None or [(t.idx, t.idx + len(t.text)) for t in sent if not t.is_space] != words:
        return None
    return sent
