"""The sentence splitter of the shipped pipelines, and what it cannot learn from a treebank.

``lal_senter`` is spaCy's ``senter`` (the same model, settings and saved files) that leaves alone
the Docs whose every sentence boundary is already set (read from CoNLL-U or a DocBin, built
with ``sent_starts``, or split by an earlier component): spaCy's senter runs its model on them
and then keeps their boundaries (``overwrite = false``): 0.27 s on 600 EWT test sentences with
gold boundaries, beside 1.6 s for the rest of the shipped parser pipeline (0.007 s here).

``lal_sentence_breaks`` runs after the splitter and before the components that read sentences:

- **A blank line ends a sentence.** A treebank's raw text has no line breaks to learn from
  (EWT's documents are sentences joined by a space), but users' text has them, and a blank line
  (two or more line breaks between two words, with any spaces or tabs) ends a paragraph in every
  genre: titles, list items and e-mail signatures included. A single line break is left to the
  splitter: hard-wrapped text breaks lines inside sentences.
- **No sentence starts on whitespace.** spaCy keeps runs of extra spaces as whitespace tokens,
  which the splitter never saw in training and sometimes marks as a sentence start (after a full
  stop and two spaces); the start moves to the word after it, so the whitespace stays at the end
  of the sentence before, where the parsers expect it (a sentence of whitespace only would get
  no tree).
"""
from typing import Any, Callable, Iterable, List, Optional

import numpy
from spacy.attrs import SENT_START
from spacy.language import Language
from spacy.pipeline.senter import SentenceRecognizer
from spacy.tokens import Doc
from thinc.api import Model

from .layers.gemm import prediction

__all__ = ["PresetAwareSentenceRecognizer", "SentenceBreaks", "make_senter", "make_sentence_breaks"]


@Language.factory(
    "lal_senter",
    assigns=["token.is_sent_start"],
    default_config={
        "model": {
            "@architectures": "spacy.Tagger.v2",
            "tok2vec": {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 12,
                        "depth": 1, "embed_size": 2000, "window_size": 1, "maxout_pieces": 2,
                        "subword_features": True},
        },
        "overwrite": False,
        "scorer": {"@scorers": "spacy.senter_scorer.v1"},
    },
    default_score_weights={"sents_f": 1.0, "sents_p": 0.0, "sents_r": 0.0},
)
def make_senter(nlp: Language, name: str, model: Model, overwrite: bool,
                scorer: Optional[Callable]) -> "PresetAwareSentenceRecognizer":
    """spaCy's ``senter`` (its default config too) that skips Docs whose boundaries are all set."""
    return PresetAwareSentenceRecognizer(nlp.vocab, model, name, overwrite=overwrite, scorer=scorer)


class PresetAwareSentenceRecognizer(SentenceRecognizer):
    """spaCy's ``SentenceRecognizer``; without ``overwrite``, its model reads only the Docs that
    have a token whose sentence start is unset (the others would keep every boundary anyway)."""

    def predict(self, docs: Iterable[Doc]) -> List[Any]:
        docs = list(docs)
        if self.cfg["overwrite"]:
            todo = list(range(len(docs)))
        else:
            todo = [i for i, doc in enumerate(docs) if not _all_boundaries_set(doc)]
        # An empty guess sets nothing (set_annotations walks the guess's tokens).
        guesses: List[Any] = [numpy.zeros(0, dtype="int64")] * len(docs)
        if todo:
            # Its own tok2vec predicts with the shared one's kernels (gemm.prediction: maxout and
            # layer norm without the backward pass's bookkeeping; the same boundaries).
            with prediction():
                for i, guess in zip(todo, super().predict([docs[i] for i in todo])):
                    guesses[i] = guess
        return guesses

    def set_int8(self, enabled: bool) -> None:
        """``spacy_lal.quantize`` leaves the splitter in float32: with int8 products the shipped
        splitter lost 0.22 sentence F1 on EWT test's raw text, for about 2% of the whole
        pipeline's time (docs/speed.md, "Session 44")."""


def _all_boundaries_set(doc: Doc) -> bool:
    # SENT_START is 1 (starts), -1 (does not) or 0 (unset) per token.
    return len(doc) > 0 and bool(numpy.all(doc.to_array(SENT_START) != 0))


@Language.factory("lal_sentence_breaks", assigns=["token.is_sent_start"])
def make_sentence_breaks(nlp: Language, name: str) -> "SentenceBreaks":
    """The component; it has no settings and no weights."""
    return SentenceBreaks(name)


class SentenceBreaks:
    """Start a sentence at the first word after each blank line, and move sentence starts off
    whitespace tokens onto the word after them (see the module docstring)."""

    def __init__(self, name: str = "lal_sentence_breaks") -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        if doc.has_annotation("DEP"):  # spaCy refuses new boundaries in a parsed Doc
            return doc
        between = ""  # the whitespace since the last word
        seen_word = False
        move_start = False
        for token in doc:
            if token.is_space:
                between += token.text_with_ws
                if token.i > 0 and token.is_sent_start:
                    token.is_sent_start = False
                    move_start = True
                continue
            if seen_word and (move_start or between.count("\n") >= 2):
                token.is_sent_start = True
            seen_word = True
            move_start = False
            between = token.whitespace_
        return doc
