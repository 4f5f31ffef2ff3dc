"""CoNLL-U files read as documents: one per ``# newdoc`` document (a file without ``# newdoc``
comments is one document).

* ``read_ud_documents``: Docs for sentence splitters to learn from, each document's sentences
  one after the other with one space between them (a sentence's own ``SpaceAfter=No`` applies
  inside it only), every word's annotation and the gold sentence boundaries (``doc.sents``) kept;
  or (``layout="conll18"``) the Docs of the shared task's text below, its words and the
  whitespace tokens spaCy's tokenizer makes of its line breaks, with the gold sentence starts
  only (what a splitter meets in that text).
* ``read_raw_documents``: the text a raw-text evaluation gives a pipeline, with where each gold
  sentence's words are in it. ``layout="conll18"`` is the CoNLL 2018 shared task's raw text, the
  text its systems (and Stanza's published scores) were given, as UD's ``conllu_to_text.pl``
  writes it: a blank line between paragraphs (``# newpar``), lines wrapped at 80 characters
  (a space becomes a line break; a longer run without spaces stays whole), ``SpaceAfter=No``
  kept across sentences. ``layout="joined"`` is ``read_ud_documents``' text: no paragraphs, no
  wrapping, one space after each sentence, a harder test of sentence splitting.
  ``NewPar=Yes`` inside a sentence (a paragraph starting mid-sentence) is not read: UD English
  EWT has none.
"""
from dataclasses import dataclass, field
from itertools import groupby
from typing import Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ._common import PathLike
from .conllu import read_ud_sentences

__all__ = ["RAW_TEXT_LAYOUTS", "RawDocument", "read_raw_documents", "read_ud_documents"]

RAW_TEXT_LAYOUTS = ("conll18", "joined")
# conllu_to_text.pl's line length: at most this many characters before a line break.
CONLL18_LINE_WIDTH = 80


def read_ud_documents(path: PathLike, vocab: Union[Vocab, Language], layout: str = "joined") -> Iterator[Doc]:
    """One Doc per document of the CoNLL-U file at ``path`` (see the module docstring), with
    ``doc.user_data["doc_id"]`` set where the file names its documents (sentence ids are not
    kept)."""
    vocab = getattr(vocab, "vocab", vocab)
    if layout != "joined":
        for raw in read_raw_documents(path, layout):
            doc = _raw_doc(raw, vocab)
            if raw.doc_id is not None:
                doc.user_data["doc_id"] = raw.doc_id
            yield doc
        return
    for doc_id, sentences in groupby(read_ud_sentences(path), key=lambda sent: sent.doc_id):
        docs = []
        for sent in sentences:
            docs.append(sent.to_doc(vocab))
            docs[-1].user_data.clear()  # sentence ids: Doc.from_docs drops string keys, noisily
        doc = Doc.from_docs(docs, ensure_whitespace=True)
        if doc_id is not None:
            doc.user_data["doc_id"] = doc_id
        yield doc


def _raw_doc(raw: "RawDocument", vocab: Vocab) -> Doc:
    """``raw``'s words, and its other whitespace as spaCy's tokenizer makes tokens of it (one
    space after a word is that word's trailing space; the rest of a gap is one whitespace token),
    each sentence starting at its first word."""
    words: List[str] = []
    spaces: List[bool] = []
    starts: List[bool] = []

    def gap(text: str) -> None:
        if words and text[:1] == " ":
            spaces[-1], text = True, text[1:]
        if text:
            words.append(text)
            spaces.append(False)
            starts.append(not words[:-1])  # whitespace before any word starts the first sentence
    end = 0
    for offsets in raw.word_offsets:
        for k, (start, stop) in enumerate(offsets):
            gap(raw.text[end:start])
            words.append(raw.text[start:stop])
            spaces.append(False)
            starts.append(k == 0)
            end = stop
    gap(raw.text[end:])
    return Doc(vocab, words=words, spaces=spaces, sent_starts=starts)


@dataclass
class RawDocument:
    """One document as raw text, and where its gold sentences' words are in it."""

    doc_id: Optional[str]
    text: str = ""
    sent_ids: List[Optional[str]] = field(default_factory=list)
    # per sentence, each word's (start, end) character offsets in ``text``
    word_offsets: List[List[Tuple[int, int]]] = field(default_factory=list)

    @property
    def n_words(self) -> int:
        return sum(len(words) for words in self.word_offsets)


def read_raw_documents(path: PathLike, layout: str = "conll18") -> Iterator[RawDocument]:
    """Each document of the CoNLL-U file at ``path`` as raw text in ``layout`` (see the module
    docstring): one :class:`RawDocument` per ``# newdoc`` document, in file order."""
    if layout not in RAW_TEXT_LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(RAW_TEXT_LAYOUTS)}, got {layout!r}")
    for doc_id, sentences in groupby(read_ud_sentences(path), key=lambda sent: sent.doc_id):
        writer = _TextWriter(wrap=layout == "conll18")
        raw = RawDocument(doc_id)
        for k, sent in enumerate(sentences):
            if k and layout == "conll18" and sent.new_paragraph:
                writer.new_paragraph()
            offsets = []
            for n, (word, space) in enumerate(zip(sent.words, sent.spaces)):
                # "joined": one space after each sentence, whatever its last word's SpaceAfter
                space = space or (layout == "joined" and n == len(sent.words) - 1)
                offsets.append(writer.write(word, space))
            if layout == "conll18":
                writer.wrap_lines(no_break_now=not sent.spaces[-1])
            raw.sent_ids.append(sent.sent_id)
            raw.word_offsets.append(offsets)
        raw.text = writer.close()
        yield raw


class _TextWriter:
    """conllu_to_text.pl's output for one document: words go to a buffer, which is wrapped after
    each sentence (as the script does: wrapping word by word would break lines elsewhere) and
    printed a line at a time. A wrap replaces a space with a line break, or prints a run
    without spaces whole and adds a line break after it, so a word's offset, taken when the word
    is buffered, is where it ends up."""

    def __init__(self, wrap: bool) -> None:
        self.wrap = wrap
        self.lines: List[str] = []
        self.printed = 0  # characters in self.lines
        self.buffer = ""

    def _print(self, text: str) -> None:
        self.lines.append(text)
        self.printed += len(text)

    def write(self, word: str, space_after: bool) -> Tuple[int, int]:
        start = self.printed + len(self.buffer)
        self.buffer += word + (" " if space_after else "")
        return start, start + len(word)

    def wrap_lines(self, no_break_now: bool) -> None:
        """Print the buffer's complete lines; ``no_break_now``: the last word has no space after
        it, so a run without spaces may go on in the next sentence."""
        width = CONLL18_LINE_WIDTH
        while len(self.buffer) >= width:
            # The last space at or before the limit, else the first one after it.
            last_space = None
            for i, char in enumerate(self.buffer):
                if i > width and last_space is not None:
                    break
                if char.isspace():
                    last_space = i
            if last_space:  # at position 0 it cannot break: as the script, print the run whole
                self._print(self.buffer[:last_space] + "\n")
                self.buffer = self.buffer[last_space + 1 :]
            elif no_break_now:  # the run goes on in the next word
                break
            else:
                self._print(self.buffer + "\n")
                self.buffer = ""

    def new_paragraph(self) -> None:
        if self.buffer:
            self._print(self.buffer + "\n")
        self._print("\n")
        self.buffer = ""

    def close(self) -> str:
        if self.buffer or not self.wrap:
            self._print(self.buffer + ("\n" if self.wrap else ""))
        self.buffer = ""
        return "".join(self.lines)
