"""spaCy's English rule lemmatizer on our tables, and when its lemma replaces the trained one.

Measured on EWT test with the shipped pipeline's predicted POS and morphology
(``scripts/lemma_accuracy.py``, docs/components.md): the edit-tree lemmatizer is the better one
overall (it learned EWT's lemmas of pronouns, auxiliaries, "n't", "a.m."), and the rule
lemmatizer alone is worse on every tag but NOUN. But an edit tree applied to a word it fits badly
gives a lemma that is no word at all ("repairing" -> "repaire", "hyped" -> "hy", "travelled" ->
"travell"), where the rules, which only accept a form their index knows, find "repair", "hype",
"travel". So :meth:`EnglishRules.combine` keeps the trained lemma unless it is an unknown word
for that POS and the rules give a known one. The rules alone were better on nouns (they lowercase
"PERFORMANCE", "Parts"); putting them first there (``rules_first``) lost more on proper nouns
tagged NOUN ("Gables" -> "gable") than it gained on EWT dev, so it is a setting, off by default.
"""
from typing import Optional

from spacy.lang.en.lemmatizer import EnglishLemmatizer
from spacy.tokens import Token
from spacy.vocab import Vocab

from .tables import english_lookups

__all__ = ["EnglishRules"]


class _RuleLemmatizer(EnglishLemmatizer):
    """spaCy's English rule lemmatizer, reading UD's ``Number=Ptan`` too."""

    def is_base_form(self, token: Token) -> bool:
        # A plurale tantum ("regards", "supplies", "means") is its own lemma in UD; spaCy's test
        # knows only Number=Sing, so it stripped the -s ("regard").
        return token.morph.get("Number") == ["Ptan"] or super().is_base_form(token)


class EnglishRules:
    """The rule lemma of a token and the choice between it and a trained lemma."""

    def __init__(self, vocab: Vocab) -> None:
        self._lemmatizer = _RuleLemmatizer(vocab, None, "lal_rules", mode="rule")
        self._lemmatizer.lookups = english_lookups()
        self._index = self._lemmatizer.lookups.get_table("lemma_index")
        self._exceptions = self._lemmatizer.lookups.get_table("lemma_exc")

    def lemma(self, token: Token) -> Optional[str]:
        """spaCy's rule lemma; None for a token without POS (spaCy would warn and lowercase it)."""
        if not token.pos_:
            return None
        return self._lemmatizer.rule_lemmatize(token)[0]

    def is_known(self, lemma: str, pos: str) -> bool:
        """Whether ``lemma`` is a word of the tables' index for the coarse POS ``pos`` (UPOS),
        or not a plain word (with digits, dots, hyphens: "p.m.", "e-mail"), which the index
        cannot judge, as spaCy's rule lemmatizer accepts such forms unseen."""
        if not lemma:
            return False
        return not lemma.isalpha() or lemma.lower() in self._index.get(pos.lower(), ())

    def has_tables(self, pos: str) -> bool:
        """Whether the rules know the POS (English: NOUN, VERB, ADJ, ADV)."""
        return bool(self._index.get(pos.lower()))

    def combine(self, token: Token, trained: str, *, rules_first: bool = False) -> str:
        """The lemma of the combination. The trained lemma, unless it is an unknown word for the
        token's POS and the rule lemma a known one (or the word an exception of the tables:
        "fought" -> "fight"). With ``rules_first``, the rule lemma wherever the index knows it
        (for a POS without tables: always, the rules' lowercased form). Then lowercased where
        the capital is the word's position or emphasis, not the word (:meth:`cased`)."""
        return self.cased(token, self._choose(token, trained, rules_first))

    def cased(self, token: Token, lemma: str) -> str:
        """``lemma`` lowercased for a verb or auxiliary (UD English writes their lemmas in lower
        case), and for a noun, adjective or adverb in capitals ("FREE", "STILL") or capitalised
        as a sentence's first word ("Board") whose lowercase form the index knows for its POS:
        the edit trees copy such capitals into the lemma ("Close" -> "Close"). Chosen on EWT
        dev with the pipeline's own POS (43 more lemmas right of 24,868; without the index
        test on words in capitals, 34, as more proper nouns tagged NOUN lost their capitals);
        on test 96.56 -> 96.73 (``scripts/lemma_accuracy.py``, docs/components.md)."""
        pos = token.pos_
        lower = lemma.lower()
        if lower == lemma or not pos or pos == "PROPN":
            return lemma
        if pos in ("VERB", "AUX"):
            return lower
        if not self.has_tables(pos) or not self.is_known(lower, pos):  # EWT keeps "II", "OH", "Two"
            return lemma
        emphasis = len(token.text) > 1 and token.text.isupper()
        return lower if emphasis or (token.is_sent_start and token.text[:1].isupper()) else lemma

    def _choose(self, token: Token, trained: str, rules_first: bool) -> str:
        pos = token.pos_
        if not pos:
            return trained
        if not self.has_tables(pos):
            # The rules only lowercase such a word (a proper noun keeps its form).
            return (self.lemma(token) or trained) if rules_first else trained
        if not rules_first and self.is_known(trained, pos):
            return trained
        rule = self.lemma(token) or trained  # not None: the token has a POS
        in_index = rule.lower() in self._index.get(pos.lower(), ())
        if in_index:
            return rule
        if rules_first and self.is_known(trained, pos):
            return trained
        return rule if token.lower_ in self._exceptions.get(pos.lower(), {}) else trained
