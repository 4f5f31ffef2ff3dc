"""``spacy-lal.Corpus.v1``: spaCy's corpus reader, keeping the trees and frames of sentences;
``spacy-lal.MixedCorpus.v1``: gold and a share of silver, for distillation (issue #36).

spaCy's ``Corpus`` cuts Docs into sentences with ``Span.as_doc()``, which drops
``Doc.user_data`` and with it the gold trees and SRL frames that ``spacy_lal`` stores there.
This reader is the same reader with each sentence keeping its own tokens' values
(``extensions.sentence_docs``); use it wherever a corpus
made by ``python -m spacy_lal convert`` is read with ``gold_preproc = true`` or ``max_length``.

It also keeps the Docs it read (``cache = true``, the default). spaCy's reader reads the corpus
from disk at every epoch and every evaluation, and unpacking each Doc's ``user_data`` (where our
trees and frames live) is slow in srsly (it looks its msgpack decoders up among the installed
packages' entry points for every Doc): a pass over EWT train's 12,526 sentences takes 4.7 s
from disk and 0.3 s from memory, about 3% of the shipped parser's 85-minute training run (28
passes and 48 evaluations). The reference Docs are never modified by training, so they are
read once per vocab; set ``cache = false`` for a corpus too large to hold in memory.
"""
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Corpus, Example
from spacy.util import registry
from spacy.vocab import Vocab

from ..corpora.share import fixed_share
from ..doc.extensions import sentence_docs


class TreebankCorpus(Corpus):
    """A ``spacy.Corpus`` whose sentence Docs keep their extension data, read from disk once."""

    def __init__(self, path: Union[str, Path], *, cache: bool = True, **kwargs) -> None:
        super().__init__(path, **kwargs)
        self.cache = cache
        self._cached: Optional[Tuple[Vocab, Tuple[str, ...], List[Doc]]] = None

    def read_docbin(self, vocab: Vocab, locs: Iterable[Union[str, Path]]) -> Iterator[Doc]:
        if not self.cache:
            yield from super().read_docbin(vocab, locs)
            return
        names = tuple(str(loc) for loc in locs)
        if self._cached is None or self._cached[0] is not vocab or self._cached[1] != names:
            self._cached = (vocab, names, list(super().read_docbin(vocab, names)))
        yield from self._cached[2]

    def make_examples(self, nlp: Language, reference_docs: Iterable[Doc]) -> Iterator[Example]:
        for reference in reference_docs:
            if len(reference) == 0:
                continue
            if self.max_length == 0 or len(reference) < self.max_length:
                yield self._make_example(nlp, reference, False)
            elif reference.has_annotation("SENT_START"):
                for sentence in sentence_docs(reference):
                    if 0 < len(sentence) < self.max_length:
                        yield self._make_example(nlp, sentence, False)

    def make_examples_gold_preproc(self, nlp: Language, reference_docs: Iterable[Doc]) -> Iterator[Example]:
        for reference in reference_docs:
            if reference.has_annotation("SENT_START") and len(list(reference.sents)) > 1:
                sentences = sentence_docs(reference)
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
    cache: bool = True,
) -> Callable[[Language], Iterable[Example]]:
    """Read a ``.spacy`` corpus. ``gold_preproc`` defaults to true here: the parsers learn
    trees only where the predicted tokens are the treebank's tokens. ``cache``: keep the Docs
    read, instead of reading the file again at every epoch and evaluation."""
    if path is None:
        raise ValueError("spacy-lal.Corpus.v1: no corpus path given (set paths.train / paths.dev)")
    return TreebankCorpus(path, gold_preproc=gold_preproc, max_length=max_length, limit=limit, augmenter=augmenter,
                          cache=cache)


class MixedCorpus:
    """Gold Examples, then a share of silver ones (parses of unlabeled text by a stronger
    pipeline, ``parse-corpus --format spacy``): the reader of a distilled student's training.

    The silver share is ``silver_fraction`` of the silver words: whole Docs, taken in one fixed
    shuffled order of the corpus (shards sorted by name, as ``parse-corpus`` numbers them, then
    shuffled with seed 0) until the share's words are reached. So a quarter is part of a half
    and a half part of all (the runs of a learning curve over the silver amount differ in that
    alone), and every share mixes the sources as the whole does: in the corpus's own order the
    first quarter of its Docs held the 2,000 movie reviews, two thirds of its words. spaCy's
    training loop shuffles the Examples of each epoch, so gold and silver mix.
    ``gold_copies`` gives the gold Examples that many times per epoch: 2.7 million silver words
    beside EWT's 0.2 million would otherwise leave gold a fourteenth of what the student sees.
    """

    def __init__(self, gold: TreebankCorpus, silver: Optional[TreebankCorpus], silver_fraction: float,
                 gold_copies: int = 1) -> None:
        self.gold = gold
        self.silver = silver
        self.silver_fraction = silver_fraction
        self.gold_copies = gold_copies
        self._silver_examples: Optional[Tuple[Language, List[Example]]] = None

    def __call__(self, nlp: Language) -> Iterator[Example]:
        for _ in range(self.gold_copies):
            yield from self.gold(nlp)
        yield from self.silver_examples(nlp)

    def silver_examples(self, nlp: Language) -> List[Example]:
        """The silver share's Examples, made once: spaCy's initialization reads the training
        corpus once per component and the training loop once more, and cutting 2.7 million
        words into sentence Examples takes minutes."""
        if self.silver is None or self.silver_fraction == 0:
            return []
        if self._silver_examples is None or self._silver_examples[0] is not nlp:
            docs = list(self.silver.read_docbin(nlp.vocab, self.silver_files()))
            keep = fixed_share(docs, self.silver_fraction)
            self._silver_examples = (nlp, list(self.silver.make_examples_gold_preproc(nlp, keep)))
        return self._silver_examples[1]

    def silver_files(self) -> List[Path]:
        from spacy.training.corpus import walk_corpus

        return sorted(walk_corpus(self.silver.path, ".spacy"))


@registry.readers("spacy-lal.MixedCorpus.v1")
def create_mixed_corpus_reader(
    gold: Optional[Union[str, Path]],
    silver: Optional[Union[str, Path]] = None,
    *,
    silver_fraction: float = 1.0,
    gold_copies: int = 1,
    max_length: int = 0,
    limit: int = 0,
) -> Callable[[Language], Iterable[Example]]:
    """``gold`` (a ``.spacy`` corpus, read as ``spacy-lal.Corpus.v1`` reads it) and the first
    ``silver_fraction`` (0 to 1) of the Docs of ``silver`` (a ``.spacy`` file or a folder of
    shards; None: gold only), both cut into their sentences, the gold given ``gold_copies`` times
    per epoch. ``limit`` and ``max_length`` apply to the gold corpus as in ``spacy-lal.Corpus.v1``."""
    if gold is None:
        raise ValueError("spacy-lal.MixedCorpus.v1: no gold corpus path given (set paths.train)")
    if not 0 <= silver_fraction <= 1:
        raise ValueError(f"spacy-lal.MixedCorpus.v1: silver_fraction must be between 0 and 1, got {silver_fraction}")
    if gold_copies < 1:
        raise ValueError(f"spacy-lal.MixedCorpus.v1: gold_copies must be at least 1, got {gold_copies}")
    if silver is not None and not Path(silver).exists():
        raise ValueError(f"spacy-lal.MixedCorpus.v1: no silver corpus at {silver} (python -m spacy_lal parse-corpus ... --format spacy)")
    gold_corpus = TreebankCorpus(gold, gold_preproc=True, max_length=max_length, limit=limit)
    silver_corpus = None if silver is None else TreebankCorpus(silver, gold_preproc=True)
    return MixedCorpus(gold_corpus, silver_corpus, silver_fraction, gold_copies)
