"""lal_lemmatizer: spaCy's ``trainable_lemmatizer`` (the same model, settings and saved files)
whose lemmas spaCy's English rule lemmatizer corrects (rules.py; tables from package data).

Its settings (``mode``, ``rules_first`` and spaCy's own) are ``settings.py``'s. The rules are
English: the component refuses other languages' pipelines unless ``mode = "trained"``.
"""
import threading
import weakref
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.attrs import LEMMA, MORPH, ORTH, POS, SENT_START
from spacy.language import Language
from spacy.pipeline.edit_tree_lemmatizer import DEFAULT_EDIT_TREE_LEMMATIZER_MODEL, EditTreeLemmatizer
from spacy.tokens import Doc
from thinc.api import Model

from .rules import EnglishRules
from .settings import LAL_LEMMATIZER

__all__ = ["RuleBackedLemmatizer", "make_lal_lemmatizer"]

# Taken only to read the rule tables (once per lemmatizer): threads lemmatizing at once wait for the
# one reading them instead of each reading the tables. Module-level: a lock on the component would
# stop it from being pickled.
_RULES_LOCK = threading.Lock()
# Memos of the per-word work, which repeats across a corpus, by component: outside the instance,
# so that pickling a component (spaCy's TrainablePipe pickles its __dict__) never copies them.
# Emptied when they grow past _MEMO_SIZE.
_MEMOS: "weakref.WeakKeyDictionary[Any, Dict[str, Tuple[Any, Dict[Tuple, Any]]]]" = weakref.WeakKeyDictionary()
_MEMO_SIZE = 200_000


@Language.factory(
    "lal_lemmatizer",
    assigns=["token.lemma"],
    requires=["token.pos"],
    default_config=LAL_LEMMATIZER.default_config(
        model=DEFAULT_EDIT_TREE_LEMMATIZER_MODEL, scorer={"@scorers": "spacy.lemmatizer_scorer.v1"}
    ),
    default_score_weights={"lemma_acc": 1.0},
)
def make_lal_lemmatizer(nlp: Language, name: str, model: Model, backoff: Optional[str], min_tree_freq: int,
                        overwrite: bool, top_k: int, scorer: Optional[Callable], mode: str,
                        rules_first: List[str]) -> "RuleBackedLemmatizer":
    """spaCy's ``trainable_lemmatizer`` (its settings and default model) with the rules beside it."""
    settings = LAL_LEMMATIZER.check(name, dict(backoff=backoff, min_tree_freq=min_tree_freq, overwrite=overwrite,
                                               top_k=top_k, mode=mode, rules_first=rules_first))
    if settings["mode"] != "trained" and nlp.lang != "en":
        raise ValueError(f"{name}: the rule tables are English; a {nlp.lang!r} pipeline needs mode = \"trained\"")
    return RuleBackedLemmatizer(nlp.vocab, model, name, scorer=scorer, **settings)


class RuleBackedLemmatizer(EditTreeLemmatizer):
    """spaCy's ``EditTreeLemmatizer``; its lemmas then pass through :class:`EnglishRules`.
    The settings are attributes, not ``cfg`` entries, so the saved files stay spaCy's own
    (``cfg``, ``model``, ``trees``): a trainable_lemmatizer's directory loads as it is."""

    SETTINGS = LAL_LEMMATIZER

    def __init__(self, vocab: Any, model: Model, name: str, *, scorer: Optional[Callable], **settings: Any) -> None:
        """``settings``: :data:`LAL_LEMMATIZER`'s, checked."""
        settings = LAL_LEMMATIZER.check(name, settings)
        super().__init__(vocab, model, name, backoff=settings["backoff"], min_tree_freq=settings["min_tree_freq"],
                         overwrite=settings["overwrite"], top_k=settings["top_k"], scorer=scorer)
        self.mode = settings["mode"]
        self.rules_first = frozenset(settings["rules_first"])
        self._rules: Optional[EnglishRules] = None

    @property
    def rules(self) -> EnglishRules:
        """The rules, read on first use (mode "trained" never reads the tables)."""
        rules = self._rules
        if rules is None:
            with _RULES_LOCK:
                if self._rules is None:  # or another thread read them while this one waited
                    self._rules = EnglishRules(self.vocab)
                rules = self._rules
        return rules

    def predict(self, docs: Iterable[Doc]) -> List[Any]:
        docs = list(docs)
        if self.mode == "rules":  # the model's guesses would be thrown away
            return [None] * len(docs)
        return super().predict(docs)

    def _scores2guesses_top_k_equals_1(self, docs: List[Doc], scores: List[Any]) -> List[numpy.ndarray]:
        """spaCy's choice (the best edit tree, -1 where it does not apply to the word) without a
        ``Token`` per word: the words' strings from the Doc's ORTH column, whether a tree applies
        remembered per (tree, word). 40% of the component's time was spaCy's loop."""
        labels = numpy.asarray(self.cfg["labels"], dtype="int64")
        applies = self._memo("_applies")
        guesses = []
        for doc, doc_scores in zip(docs, scores):
            trees = labels[self.numpy_ops.asarray(doc_scores.argmax(axis=1))].tolist()
            orths = doc.to_array(ORTH).tolist()
            doc_guesses = []
            for tree, orth in zip(trees, orths):
                lemma = applies.get((tree, orth), applies)
                if lemma is applies:
                    lemma = applies[(tree, orth)] = self.trees.apply(tree, doc.vocab.strings[orth])
                doc_guesses.append(tree if lemma is not None else -1)
            guesses.append(numpy.array(doc_guesses))
        return guesses

    def set_annotations(self, docs: Iterable[Doc], batch_tree_ids: Any) -> None:
        """spaCy's lemmas (the edit tree's, or the backoff where none applies), then the rules'
        correction: per word the same as ``EnglishRules.combine`` on its token, remembered per
        everything that decides it (word, POS, morphology, sentence start, the trained lemma),
        and written for the whole Doc at once (``Doc.from_array``)."""
        applies, chosen = self._memo("_applies"), self._memo("_chosen")
        rules_first = {self.vocab.strings.add(pos) for pos in self.rules_first}  # POS ids, as read below
        for doc, tree_ids in zip(docs, batch_tree_ids):
            strings = doc.vocab.strings
            if hasattr(tree_ids, "get"):
                tree_ids = tree_ids.get()
            columns = doc.to_array([ORTH, POS, MORPH, SENT_START, LEMMA])
            lemmas = columns[:, 4].copy()
            tree_ids = [None] * len(doc) if tree_ids is None else list(tree_ids)
            for i, (orth, pos, morph, sent_start, lemma) in enumerate(columns.tolist()):
                if lemma != 0 and not self.overwrite:
                    continue  # not ours to lemmatize
                tree = tree_ids[i]
                if self.mode == "rules":
                    trained = None
                elif tree == -1 or tree is None:
                    trained = getattr(doc[i], self.backoff) if self.backoff is not None else None
                    trained = strings[trained] if isinstance(trained, int) else trained
                else:
                    trained = applies.get((tree, orth), applies)
                    if trained is applies:
                        trained = applies[(tree, orth)] = self.trees.apply(tree, strings[orth])
                if self.mode == "trained":
                    if trained is not None:
                        lemmas[i] = strings.add(trained)
                    continue
                key = (self.mode, pos in rules_first, orth, pos, morph, sent_start, i == 0, trained)
                lemma_ = chosen.get(key)
                if lemma_ is None:
                    lemma_ = chosen[key] = self._lemma(doc[i], trained)
                lemmas[i] = strings.add(lemma_)
            doc.from_array([LEMMA], lemmas.reshape(-1, 1))

    def _lemma(self, token: Any, trained: Optional[str]) -> str:
        if self.mode == "rules":
            # spaCy's rule lemmatizer, which lowercases a token without POS (and warns at every
            # call: we do not).
            rule = self.rules.lemma(token)
            return rule if rule is not None else token.lower_
        if trained is None:  # no tree applied and no backoff: spaCy leaves the lemma unset
            trained = ""
        return self.rules.combine(token, trained, rules_first=token.pos_ in self.rules_first)

    def _memo(self, name: str) -> Dict[Tuple, Any]:
        """A memo of the per-word work, made again when the edit trees are replaced (loading
        gives tree ids other trees) or it has grown past ``_MEMO_SIZE``."""
        memos = _MEMOS.setdefault(self, {})
        trees, memo = memos.get(name, (None, None))
        if trees is not self.trees or len(memo) > _MEMO_SIZE:
            memo = {}
            memos[name] = (self.trees, memo)
        return memo
