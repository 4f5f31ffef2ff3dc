"""lal_lemmatizer: spaCy's ``trainable_lemmatizer`` (the same model, settings and saved files)
whose lemmas spaCy's English rule lemmatizer corrects (rules.py; tables from package data).

``mode``: "combined" (the default, rules.py's choice), "trained" (spaCy's trainable lemmatizer
alone) or "rules" (spaCy's rule lemmatizer alone: the model is not run). ``rules_first``: the
UPOS tags for which the rule lemma comes first where the tables know it (none by default: NOUN
was measured, docs/components.md). The rules are English: the component refuses other languages' pipelines
unless ``mode = "trained"``.
"""
import threading
from typing import Any, Callable, Iterable, List, Optional

from spacy.language import Language
from spacy.pipeline.edit_tree_lemmatizer import DEFAULT_EDIT_TREE_LEMMATIZER_MODEL, EditTreeLemmatizer
from spacy.tokens import Doc
from thinc.api import Model

from .rules import EnglishRules

__all__ = ["MODES", "RuleBackedLemmatizer", "make_lal_lemmatizer"]

MODES = ("combined", "trained", "rules")

# Taken only to read the rule tables (once per lemmatizer): threads lemmatizing at once wait for the
# one reading them instead of each reading the tables. Module-level: a lock on the component would
# stop it from being pickled.
_RULES_LOCK = threading.Lock()


@Language.factory(
    "lal_lemmatizer",
    assigns=["token.lemma"],
    requires=["token.pos"],
    default_config={
        "model": DEFAULT_EDIT_TREE_LEMMATIZER_MODEL,
        "backoff": "orth",
        "min_tree_freq": 3,
        "overwrite": False,
        "top_k": 1,
        "scorer": {"@scorers": "spacy.lemmatizer_scorer.v1"},
        "mode": "combined",
        "rules_first": [],
    },
    default_score_weights={"lemma_acc": 1.0},
)
def make_lal_lemmatizer(nlp: Language, name: str, model: Model, backoff: Optional[str], min_tree_freq: int,
                        overwrite: bool, top_k: int, scorer: Optional[Callable], mode: str,
                        rules_first: List[str]) -> "RuleBackedLemmatizer":
    """spaCy's ``trainable_lemmatizer`` (its settings and default model) with the rules beside it."""
    if mode not in MODES:
        raise ValueError(f"lal_lemmatizer: mode must be one of {MODES}, not {mode!r}")
    if mode != "trained" and nlp.lang != "en":
        raise ValueError(f"lal_lemmatizer: the rule tables are English; a {nlp.lang!r} pipeline needs mode = \"trained\"")
    return RuleBackedLemmatizer(nlp.vocab, model, name, backoff=backoff, min_tree_freq=min_tree_freq,
                                overwrite=overwrite, top_k=top_k, scorer=scorer, mode=mode,
                                rules_first=rules_first)


class RuleBackedLemmatizer(EditTreeLemmatizer):
    """spaCy's ``EditTreeLemmatizer``; its lemmas then pass through :class:`EnglishRules`.
    The settings are attributes, not ``cfg`` entries, so the saved files stay spaCy's own
    (``cfg``, ``model``, ``trees``): a trainable_lemmatizer's directory loads as it is."""

    def __init__(self, vocab: Any, model: Model, name: str, *, backoff: Optional[str], min_tree_freq: int,
                 overwrite: bool, top_k: int, scorer: Optional[Callable], mode: str,
                 rules_first: Iterable[str]) -> None:
        super().__init__(vocab, model, name, backoff=backoff, min_tree_freq=min_tree_freq, overwrite=overwrite,
                         top_k=top_k, scorer=scorer)
        self.mode = mode
        self.rules_first = frozenset(rules_first)
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

    def set_annotations(self, docs: Iterable[Doc], batch_tree_ids: Any) -> None:
        docs = list(docs)
        # Which tokens are ours to lemmatize, read before the trained lemmas are written.
        free = [[self.overwrite or token.lemma == 0 for token in doc] for doc in docs]
        if self.mode != "rules":
            super().set_annotations(docs, batch_tree_ids)
        if self.mode == "trained":
            return
        for doc, doc_free in zip(docs, free):
            for token, ours in zip(doc, doc_free):
                if not ours:
                    continue
                if self.mode == "rules":
                    # spaCy's rule lemmatizer, which lowercases a token without POS (and warns
                    # at every call: we do not).
                    rule = self.rules.lemma(token)
                    token.lemma_ = rule if rule is not None else token.lower_
                else:
                    token.lemma_ = self.rules.combine(token, token.lemma_,
                                                      rules_first=token.pos_ in self.rules_first)
