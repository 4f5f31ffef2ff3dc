"""The token ranges that the parsers read as sentences.

A *unit* is one sentence as the model sees it: a range of the Doc's tokens and, inside it, the
positions of its words. Whitespace tokens (spaCy makes one of each run of extra spaces) are
not words of any treebank, so the model never sees them: the components attach them
afterwards (see ``parser/component.py``). Sentences longer than the model's ``max_length`` (or,
at prediction, the component's shorter ``piece_length``) are cut into as few pieces of equal
length as fit, each read on its own (what the component then does with the pieces is its own:
``lal_parser`` joins them into one tree), and one warning per call names the component, the
sentences and what was done: learned position tables end somewhere, parsing time grows with the
cube of a sentence's length or faster, and a crash or a minute's stall on one long line of a big
corpus is the worst outcome for a user.
"""
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Sequence, Sized

from spacy.tokens import Doc

from ..logs import logger


@dataclass(frozen=True)
class Unit:
    """One sentence (or a piece of a long one) of one Doc.

    ``start``/``end`` are Doc token offsets (end exclusive); ``words`` holds the Doc offsets of
    the tokens the model reads, in order (all tokens of the range but whitespace tokens).
    ``piece`` counts the pieces of a long sentence (0 for the first or only piece).
    """

    doc_index: int
    start: int
    end: int
    words: Sequence[int]
    piece: int = 0

    def __len__(self) -> int:
        return len(self.words)


def sentence_ranges(doc: Doc) -> List[range]:
    """The sentences of ``doc`` as token ranges: ``doc.sents`` where sentence boundaries are
    set, otherwise the whole Doc as one sentence (put a senter or sentencizer first to parse
    multi-sentence text sentence by sentence)."""
    if len(doc) == 0:
        return []
    if doc.has_annotation("SENT_START"):
        return [range(sent.start, sent.end) for sent in doc.sents]
    return [range(0, len(doc))]


def make_units(
    docs: Iterable[Doc],
    max_length: int,
    sentences: Optional[Sequence[Sequence[range]]] = None,
    *,
    component: str = "spacy_lal",
    pieces: str = "each piece is read on its own",
) -> List[Unit]:
    """Cut ``docs`` into units of at most ``max_length`` words, in Doc and sentence order.

    ``sentences`` gives each Doc's sentences as token ranges (in training: the gold sentences);
    by default they come from ``sentence_ranges``. Longer sentences give one warning per call,
    naming ``component`` and saying what it does with the ``pieces``.
    """
    if max_length < 1:
        raise ValueError(f"max_length must be at least 1, got {max_length}")
    units: List[Unit] = []
    long: List[str] = []
    for doc_index, doc in enumerate(docs):
        ranges = sentence_ranges(doc) if sentences is None else sentences[doc_index]
        for sent in ranges:
            words = [i for i in sent if not doc[i].is_space]
            if not words:
                continue
            if len(words) <= max_length:
                units.append(Unit(doc_index, sent.start, sent.stop, tuple(words)))
                continue
            long.append(f"Doc {doc_index} tokens {sent.start}-{sent.stop} ({len(words)} words)")
            bounds = piece_bounds(len(words), max_length)
            for piece, (offset, stop) in enumerate(zip(bounds, bounds[1:])):
                chunk = tuple(words[offset:stop])
                # Pieces tile the sentence: whitespace between two pieces goes to the earlier one.
                end = sent.stop if stop == len(words) else words[stop]
                start = sent.start if piece == 0 else chunk[0]
                units.append(Unit(doc_index, start, end, chunk, piece))
    if long:
        shown = "; ".join(long[:5]) + ("; ..." if len(long) > 5 else "")
        logger.warning(
            "%s: %d sentence(s) longer than %d words (%s) were cut into pieces of at most %d "
            "words: %s.",
            component, len(long), max_length, shown, max_length, pieces,
        )
    return units


def piece_bounds(n_words: int, max_length: int) -> List[int]:
    """Where the pieces of an ``n_words`` sentence start, and its end: as few pieces of at most
    ``max_length`` words as can be, of equal lengths (one word more in the first ones), so that no
    piece is a stub of a few words."""
    n_pieces = -(-n_words // max_length)
    size, extra = divmod(n_words, n_pieces)
    bounds = [0]
    for piece in range(n_pieces):
        bounds.append(bounds[-1] + size + (piece < extra))
    return bounds


def length_sorted_chunks(units: Sequence[Sized], max_cells: int) -> List[List[int]]:
    """Indices of ``units`` (or of any sequences: sentences' vectors) sorted by length and cut
    into chunks whose padded size ``len(chunk) * (longest + 1) ** 2`` stays within ``max_cells``
    (a chunk holds at least one unit): sorting keeps padding small, the bound keeps span charts
    in memory."""
    order = sorted(range(len(units)), key=lambda b: len(units[b]))
    chunks: List[List[int]] = []
    for b in order:
        cells = (len(units[b]) + 1) ** 2
        if chunks and (len(chunks[-1]) + 1) * cells <= max_cells:
            chunks[-1].append(b)
        else:
            chunks.append([b])
    return chunks


def doc_batches(docs: Iterable[Doc], max_words: int, max_docs: Optional[int] = None) -> Iterator[List[Doc]]:
    """Consecutive batches of ``docs`` of at most ``max_words`` tokens (a longer Doc alone) and,
    if given, at most ``max_docs`` Docs; none dropped or reordered."""
    batch: List[Doc] = []
    words = 0
    for doc in docs:
        if batch and (len(batch) == max_docs or words + len(doc) > max_words):
            yield batch
            batch, words = [], 0
        batch.append(doc)
        words += len(doc)
    if batch:
        yield batch
