"""``spacy-lal.Corpus.v1``: spaCy's corpus reader, keeping the trees and frames of sentences.

spaCy's ``Corpus`` cuts Docs into sentences with ``Span.as_doc()``, which drops
``Doc.user_data`` and with it the gold trees and SRL frames that ``spacy_lal`` stores there.
This reader is the same reader with ``as_doc(copy_user_data=True)``; use it wherever a corpus
made by ``python -m spacy_lal convert`` is read with ``gold_preproc = true`` or ``max_length``.
"""
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Corpus, Example
from spacy.util import registry


class TreebankCorpus(Corpus):
    """A ``spacy.Corpus`` whose sentence Docs keep their extension data."""

    def make_examples(self, nlp: Language, reference_docs: Iterable[Doc]) -> Iterator[Example]:
        for reference in reference_docs:
            if len(reference) == 0:
                continue
            if self.max_length == 0 or len(reference) < self.max_length:
                yield self._make_example(nlp, reference, False)
            elif reference.has_annotation("SENT_START"):
                for sent in reference.sents:
                    if 0 < len(sent) < self.max_length:
                        yield self._make_example(nlp, sent.as_doc(copy_user_data=True), False)

    def make_examples_gold_preproc(self, nlp: Language, reference_docs: Iterable[Doc]) -> Iterator[Example]:
        for reference in reference_docs:
            if reference.has_annotation("SENT_START") and len(list(reference.sents)) > 1:
                sentences = [sent.as_doc(copy_user_data=True) for sent in reference.sents]
            else:
                sentences = [reference]
            for sentence in sentences:
                example = self._make_example(nlp, sentence, True)
                if len(example.x):
                    yield example


@registry.readers("spacy-lal.Corpus.v1")
def create_treebank_corpus_reader(
    path: Optional[Union[str, Path]],
    *,
    gold_preproc: bool = True,
    max_length: int = 0,
    limit: int = 0,
    augmenter: Optional[Callable] = None,
) -> Callable[[Language], Iterable[Example]]:
    """Read a ``.spacy`` corpus. ``gold_preproc`` defaults to true here: the parsers learn
    trees only where the predicted tokens are the treebank's tokens."""
    if path is None:
        raise ValueError("spacy-lal.Corpus.v1: no corpus path given (set paths.train / paths.dev)")
    return TreebankCorpus(path, gold_preproc=gold_preproc, max_length=max_length, limit=limit, augmenter=augmenter)
