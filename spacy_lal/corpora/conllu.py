"""CoNLL-U and CoNLL-X readers: one spaCy ``Doc`` per sentence.

Columns -> Doc: FORM -> words, LEMMA -> ``lemma_``, UPOS -> ``pos_``, XPOS -> ``tag_``,
FEATS -> ``morph``, HEAD/DEPREL -> ``head``/``dep_``, MISC ``SpaceAfter=No`` -> ``whitespace_``.
``_`` means "not annotated" (except the lemma of the word ``_``, which is ``_``).

Decisions:

- **Words, not tokens.** spaCy Docs hold syntactic words, so a multi-word token ``don't`` =
  ``do`` + ``n't`` becomes two words; no space after a word inside a multi-word token, and the
  last word takes the ``SpaceAfter`` of the range line. Empty nodes (``8.1``) are skipped, and
  DEPS (enhanced graphs) are not kept.
- **Multi-word tokens kept.** Each range line is kept as ``(start, end, form)`` in
  ``doc.user_data["multiword_tokens"]`` (word offsets, end exclusive, and the range's FORM, its
  surface text), a tuple in file order, empty for a sentence without ranges; only for CoNLL-U.
  :func:`spacy_lal.corpora.export.write_conllu` writes them back as range lines, so a file read
  and written again keeps its tokens (a Doc without the key gets EWT's groups instead, see
  :func:`spacy_lal.tokenizer.multiword_token_spans`). Like the ids, the key is plain user data:
  ``DocBin(store_user_data=True)`` keeps it, ``Doc.from_docs`` drops it.
- **Labels verbatim.** DEPREL is kept as written, subtypes included (``nsubj:pass``), and the root
  keeps UD's ``root`` (not spaCy's ``ROOT``), so an export gives back exactly the input label.
- **Metadata.** ``# sent_id`` and ``# newdoc id`` go to ``doc.user_data["sent_id"]`` and
  ``doc.user_data["doc_id"]`` (kept by ``DocBin(store_user_data=True)``).
- **CoNLL-X** (10 columns ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD PDEPREL) has no
  multi-word tokens, empty nodes or SpaceAfter: words are separated by spaces, POSTAG goes to
  ``tag_``, CPOSTAG to ``pos_`` only when it is a UD UPOS tag, FEATS to ``morph`` only when
  written as ``Name=Value`` pairs (CoNLL-X treebanks use free-form features), PHEAD/PDEPREL are
  ignored.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.parts_of_speech import IDS as UPOS_IDS
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ._common import CorpusFormatError, Line, PathLike, get_vocab, iter_blocks, split_columns

__all__ = ["MULTIWORD_TOKENS", "UDSentence", "read_conllu", "read_conllx", "read_ud_sentences"]

MULTIWORD_TOKENS = "multiword_tokens"  # the doc.user_data key of the range lines

_UPOS = frozenset(tag for tag in UPOS_IDS if tag and tag.isupper())


@dataclass
class UDSentence:
    """One sentence of a CoNLL-U/CoNLL-X file, at the word level, 0-based heads."""

    path: str
    line_no: int  # line of the first word
    conllx: bool = False
    sent_id: Optional[str] = None
    doc_id: Optional[str] = None
    new_paragraph: bool = False  # a "# newpar" comment: the sentence starts a paragraph
    words: List[str] = field(default_factory=list)
    spaces: List[bool] = field(default_factory=list)
    lemmas: List[str] = field(default_factory=list)
    pos: List[str] = field(default_factory=list)
    tags: List[str] = field(default_factory=list)
    morphs: List[str] = field(default_factory=list)
    heads: List[Optional[int]] = field(default_factory=list)  # absolute; root: itself
    deps: List[Optional[str]] = field(default_factory=list)
    line_nos: List[int] = field(default_factory=list)
    # CoNLL-U range lines: (first word, last word + 1, surface form), 0-based
    multiword_tokens: List[Tuple[int, int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.words)

    def to_doc(self, vocab: Vocab, *, tags: Optional[List[str]] = None) -> Doc:
        """A Doc with all annotation; ``tags`` replaces XPOS (the EWT join uses the PTB tags)."""
        has_heads = any(h is not None for h in self.heads)
        doc = Doc(
            vocab,
            words=self.words,
            spaces=self.spaces,
            lemmas=self.lemmas,
            pos=self.pos,
            tags=self.tags if tags is None else tags,
            morphs=self.morphs,
            heads=self.heads if has_heads else None,
            deps=self.deps if has_heads else None,
            # Gold boundary; heads (when given) define the same single sentence.
            sent_starts=[True] + [False] * (len(self.words) - 1),
        )
        if self.sent_id is not None:
            doc.user_data["sent_id"] = self.sent_id
        if self.doc_id is not None:
            doc.user_data["doc_id"] = self.doc_id
        if not self.conllx:
            # A tuple of tuples, as DocBin gives it back.
            doc.user_data[MULTIWORD_TOKENS] = tuple(self.multiword_tokens)
        return doc


def read_conllu(path: PathLike, vocab: Union[Vocab, Language]) -> Iterator[Doc]:
    """Read a CoNLL-U file into one Doc per sentence (see the module docstring)."""
    vocab = get_vocab(vocab)
    for sent in read_ud_sentences(path, conllx=False):
        yield sent.to_doc(vocab)


def read_conllx(path: PathLike, vocab: Union[Vocab, Language]) -> Iterator[Doc]:
    """Read a CoNLL-X file into one Doc per sentence (see the module docstring)."""
    vocab = get_vocab(vocab)
    for sent in read_ud_sentences(path, conllx=True):
        yield sent.to_doc(vocab)


def read_ud_sentences(path: PathLike, *, conllx: bool = False) -> Iterator[UDSentence]:
    """Parse a CoNLL-U (or CoNLL-X) file into :class:`UDSentence` objects, checking each line."""
    doc_id: Optional[str] = None
    for block in iter_blocks(path):
        sent = UDSentence(path=str(path), line_no=block[0][0], conllx=conllx)
        words = [line for line in block if not line[1].startswith("#")]
        for _, text in block:
            if text.startswith("#"):
                key, eq, value = text[1:].partition("=")
                key = key.strip()
                if key == "newdoc":
                    doc_id = value.strip() if eq else None
                elif key == "newdoc id":
                    doc_id = value.strip()
                elif key == "sent_id" and eq:
                    sent.sent_id = value.strip()
                elif key.split()[0:1] == ["newpar"]:
                    sent.new_paragraph = True
        if not words:
            continue  # a block of comments only (e.g. a file-level header)
        sent.doc_id = doc_id
        sent.line_no = words[0][0]
        _read_words(sent, words, conllx)
        yield sent


def _read_words(sent: UDSentence, lines: List[Line], conllx: bool) -> None:
    path = sent.path
    # Pass 1: the word lines, and the SpaceAfter of multi-word ranges keyed by their last word.
    range_end = 0  # last word id of the current multi-word token
    range_space: Dict[int, bool] = {}
    range_lines: List[int] = []
    rows: List[tuple] = []
    for line in lines:
        line_no = line[0]
        cols = split_columns(path, line, sep="\t", n=10)
        wid = cols[0]
        if "-" in wid or "." in wid:
            if conllx:
                raise CorpusFormatError(
                    path,
                    line_no,
                    f"expected an integer word id (CoNLL-X has no multi-word tokens or empty nodes), got {wid!r}",
                )
            if "-" in wid:
                first, _, last = wid.partition("-")
                if not (first.isdigit() and last.isdigit()) or int(first) != len(rows) + 1 or int(last) < int(first):
                    raise CorpusFormatError(path, line_no, f"expected a range '{len(rows) + 1}-M', got {wid!r}")
                range_end = int(last)
                range_space[range_end] = "SpaceAfter=No" not in cols[9].split("|")
                sent.multiword_tokens.append((int(first) - 1, range_end, cols[1]))
                range_lines.append(line_no)
            elif not _is_empty_node_id(wid):
                raise CorpusFormatError(path, line_no, f"expected an empty node id 'N.M', got {wid!r}")
            continue  # empty nodes are not words
        if not wid.isdigit() or int(wid) != len(rows) + 1:
            raise CorpusFormatError(path, line_no, f"expected word id {len(rows) + 1}, got {wid!r}")
        rows.append((line_no, cols, int(wid) <= range_end))
    n = len(rows)
    for line_no, (first, last, _) in zip(range_lines, sent.multiword_tokens):
        if last > n:
            raise CorpusFormatError(path, line_no, f"expected a range of word ids up to {n}, got '{first + 1}-{last}'")
    for i, (line_no, cols, in_range) in enumerate(rows):
        form, lemma, upos, xpos, feats, head, deprel = cols[1:8]
        sent.words.append(form)
        sent.line_nos.append(line_no)
        sent.lemmas.append(_lemma(form, lemma))
        if conllx:
            sent.spaces.append(True)
            sent.pos.append(upos if upos in _UPOS else "")
            sent.morphs.append(feats if feats != "_" and _is_ud_feats(feats) else "")
        else:
            if i + 1 in range_space:
                space = range_space[i + 1]
            elif in_range:
                space = False  # inside a multi-word token: the surface form has no space here
            else:
                space = "SpaceAfter=No" not in cols[9].split("|")
            sent.spaces.append(space)
            if upos != "_" and upos not in _UPOS:
                raise CorpusFormatError(path, line_no, f"expected a UD UPOS tag or '_' in column 4, got {upos!r}")
            sent.pos.append("" if upos == "_" else upos)
            if feats != "_" and not _is_ud_feats(feats):
                raise CorpusFormatError(
                    path, line_no, f"expected FEATS as Name=Value pairs joined by '|', got {feats!r}"
                )
            sent.morphs.append("" if feats == "_" else feats)
        sent.tags.append("" if xpos == "_" else xpos)
        if head == "_":
            sent.heads.append(None)
        elif head.isdigit() and int(head) <= n:
            sent.heads.append(i if head == "0" else int(head) - 1)
        else:
            raise CorpusFormatError(path, line_no, f"expected HEAD to be a word id 0..{n} or '_', got {head!r}")
        sent.deps.append(None if deprel == "_" else deprel)


def _lemma(form: str, lemma: str) -> str:
    # "_" is "no lemma", except for the word "_" itself (CoNLL-U cannot tell the two apart).
    return lemma if lemma != "_" or form == "_" else ""


def _is_empty_node_id(wid: str) -> bool:
    major, _, minor = wid.partition(".")
    return major.isdigit() and minor.isdigit()


def _is_ud_feats(feats: str) -> bool:
    return all("=" in feat and not feat.startswith("=") for feat in feats.split("|"))
