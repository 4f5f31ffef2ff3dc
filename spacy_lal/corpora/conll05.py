"""CoNLL-2005 and CoNLL-2012 SRL column formats -> spaCy Docs with frames (and trees).

One Doc per sentence; words are separated by spaces. Both formats write one line per word, a
blank line between sentences and, for each predicate of the sentence in order, one column of
start-end argument brackets (``(ARG0*``, ``*``, ``*)``, ``(V*)``); see :mod:`._common`.

- **CoNLL-2005** comes as parallel files: ``props`` (first column the target verb or ``-``, then
  the argument columns), ``words`` (one word per line) and optionally ``synt`` (two columns:
  POS tag and parse bit, e.g. ``synt.col2`` / ``synt.cha`` of the release). ``*.gz`` files are
  read directly. Without ``synt`` the Docs have no tags and no trees; the props format carries
  no sense, so ``Frame.sense`` is None, and its first column (the predicate's lemma) becomes the
  predicate token's ``lemma_``, which :func:`~.export.write_conll05` writes back.
- **CoNLL-2012** (``*.gold_conll``): document id, part, word number, word, POS, parse bit,
  predicate lemma, frameset id, word sense, speaker, named entities, the argument columns, and
  the coreference column last. ``#begin/#end document`` lines are skipped; named entities,
  speakers and coreference are not read. The frameset id (``announce.01``) is the sense.
- **PropBank skeletons** (``*.gold_skel``, used by :mod:`.ewt`): the first eight CoNLL-2012
  columns (frameset id = roleset), then the argument columns; words are blanked.

Frames follow :class:`spacy_lal.doc.frames.FrameData`: the k-th argument column belongs to the k-th
row with a frameset/target (so each predicate token has at most one frame), and every bracket
of the column but the predicate's own one-token ``(V*)`` is an argument: a longer ``V``, a
``V`` elsewhere than on the predicate (13 columns of EWT), ``C-V``, ``C-``/``R-`` roles are kept
as written. If the number of columns and predicate rows differ, the ``V`` brackets locate the
predicates instead. PTB escapes in words (``-LRB-``) are undone: Docs hold the real text.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..doc.tree import unescape_word
from ._common import (
    CorpusFormatError,
    Line,
    PathLike,
    bracket_spans,
    get_vocab,
    iter_blocks,
    sense_or_none,
    split_columns,
    tree_from_parse_bits,
)

if TYPE_CHECKING:
    from ..doc.frames import FrameData
    from ..doc.tree import Tree

__all__ = [
    "ColumnSentence",
    "annotate_doc",
    "frames_from_columns",
    "read_conll05",
    "read_conll12",
    "read_column_sentences",
]

@dataclass
class ColumnSentence:
    """One sentence of a column file: per-word cells (None where the format lacks them)."""

    path: str
    line_nos: List[int]
    words: Optional[List[str]] = None
    tags: Optional[List[str]] = None
    parse_bits: Optional[List[str]] = None
    targets: List[bool] = field(default_factory=list)  # one per word: is it a predicate row?
    senses: List[Optional[str]] = field(default_factory=list)  # one per word (None: no sense)
    arg_columns: List[List[str]] = field(default_factory=list)
    doc_id: Optional[str] = None
    part: Optional[str] = None

    def __len__(self) -> int:
        return len(self.line_nos)

    def tree(self, words: Optional[Sequence[str]] = None) -> Optional["Tree"]:
        """The tree of the parse bits (None without them); ``words`` replaces blanked words."""
        if self.parse_bits is None or self.tags is None:
            return None
        words = words if words is not None else self.words
        assert words is not None
        return tree_from_parse_bits(words, self.tags, self.parse_bits, self.path, self.line_nos)

    def frames(self) -> List["FrameData"]:
        predicates = [i for i, target in enumerate(self.targets) if target]
        return frames_from_columns(predicates, self.senses, self.arg_columns, self.path, self.line_nos)


# Column layouts: (columns before the argument columns, columns after them).
_LAYOUTS = {"conll12": (11, 1), "skeleton": (8, 0)}


def read_column_sentences(path: PathLike, layout: str) -> Iterator[ColumnSentence]:
    """Parse a CoNLL-2012 (``layout="conll12"``) or PropBank skeleton (``"skeleton"``) file."""
    lead, tail = _LAYOUTS[layout]
    for block in iter_blocks(path):
        lines = [line for line in block if not line[1].startswith("#")]
        if not lines:
            continue
        rows = [split_columns(path, line, at_least=lead + tail, what="whitespace-separated columns") for line in lines]
        width = len(rows[0])
        for line, row in zip(lines, rows):
            if len(row) != width:
                raise CorpusFormatError(
                    path, line[0], f"expected {width} columns like the sentence's first line, got {len(row)}"
                )
        sent = ColumnSentence(
            path=str(path),
            line_nos=[line[0] for line in lines],
            words=[unescape_word(row[3]) for row in rows],
            tags=[row[4] for row in rows],
            parse_bits=[row[5] for row in rows],
            targets=[row[7] != "-" for row in rows],
            senses=[sense_or_none(row[7]) for row in rows],
            arg_columns=[[row[j] for row in rows] for j in range(lead, width - tail)],
            doc_id=rows[0][0],
            part=rows[0][1],
        )
        yield sent


def frames_from_columns(
    predicates: Sequence[int],
    senses: Sequence[Optional[str]],
    arg_columns: Sequence[Sequence[str]],
    path: PathLike,
    line_nos: Sequence[int],
) -> List["FrameData"]:
    """Frames of a sentence from its predicate rows, per-word senses and argument columns."""
    from ..doc.frames import FrameData

    columns = [bracket_spans(col, path, line_nos) for col in arg_columns]
    if len(columns) != len(predicates):
        # Fall back on the V brackets when rows and columns disagree (seen in some releases).
        v_starts = [[s for s, e, label in spans if label == "V"] for spans in columns]
        starts = [v[0] for v in v_starts if len(v) == 1]
        if len(starts) != len(columns) or len(set(starts)) != len(starts):
            raise CorpusFormatError(
                path,
                line_nos[0],
                f"expected {len(predicates)} argument columns (one per predicate row), got {len(columns)}",
            )
        predicates = starts
    frames = []
    for p, spans in sorted(zip(predicates, columns)):
        args = tuple(span for span in spans if span != (p, p + 1, "V"))
        frames.append(FrameData(predicate=p, sense=senses[p], arguments=args))
    return frames


def annotate_doc(
    doc: Doc, tree: Optional["Tree"], frames: Sequence["FrameData"]
) -> List[Tuple["FrameData", str]]:
    """Store a one-sentence Doc's tree (its normalized spans) and frames on the Doc.

    Frames that :func:`spacy_lal.doc.frames.check_frame` rejects (e.g. a ``V`` bracket that is not on
    the column's predicate, arguments that overlap) are left out and returned with the reason,
    so that callers count or report them instead of losing the whole sentence.
    """
    from ..doc.extensions import set_frames, set_tree
    from ..doc.frames import check_frame

    if tree is not None:
        set_tree(doc[:], tree.to_spans())
    valid, rejected = [], []
    for frame in frames:
        try:
            valid.append(check_frame(doc, frame))
        except ValueError as err:
            rejected.append((frame, str(err)))
    if valid:
        set_frames(doc, valid)
    return rejected


def _column_doc(vocab: Vocab, sent: ColumnSentence, words: Sequence[str]) -> Doc:
    doc = Doc(vocab, words=list(words), tags=sent.tags, sent_starts=[True] + [False] * (len(words) - 1))
    for frame, reason in annotate_doc(doc, sent.tree(words), sent.frames()):
        line_no = sent.line_nos[frame.predicate]
        warnings.warn(f"{sent.path}, line {line_no}: frame skipped: {reason}", stacklevel=2)
    return doc


def read_conll12(path: PathLike, vocab: Union[Vocab, Language]) -> Iterator[Doc]:
    """Read a CoNLL-2012 ``*_conll`` file: words, tags, trees and frames, one Doc per sentence.

    ``doc.user_data`` gets ``doc_id`` (first column) and ``sent_id`` (``<doc_id>-<part>-<n>``,
    n counting the sentences of the part from 0).
    """
    vocab = get_vocab(vocab)
    counter: Tuple[Optional[str], Optional[str], int] = (None, None, 0)
    for sent in read_column_sentences(path, "conll12"):
        assert sent.words is not None
        doc = _column_doc(vocab, sent, sent.words)
        n = counter[2] + 1 if counter[:2] == (sent.doc_id, sent.part) else 0
        counter = (sent.doc_id, sent.part, n)
        doc.user_data["doc_id"] = sent.doc_id
        doc.user_data["sent_id"] = f"{sent.doc_id}-{sent.part}-{n}"
        yield doc


def read_conll05(
    props: PathLike,
    vocab: Union[Vocab, Language],
    *,
    words: PathLike,
    synt: Optional[PathLike] = None,
) -> Iterator[Doc]:
    """Read CoNLL-2005 ``props`` with its parallel ``words`` (and optional ``synt``) file."""
    vocab = get_vocab(vocab)
    props_blocks = iter_blocks(props)
    words_blocks = iter_blocks(words)
    synt_blocks = iter_blocks(synt) if synt is not None else None
    for n, prop_block in enumerate(props_blocks):
        word_block = next(words_blocks, None)
        if word_block is None:
            raise CorpusFormatError(words, None, f"expected sentence {n + 1} to match {props}, got end of file")
        _check_length(words, word_block, len(prop_block), props)
        word_list = [unescape_word(split_columns(words, line, n=1, what="word")[0]) for line in word_block]
        sent, lemmas = _props_sentence(props, prop_block)
        if synt_blocks is not None:
            synt_block = next(synt_blocks, None)
            if synt_block is None:
                raise CorpusFormatError(synt, None, f"expected sentence {n + 1} to match {props}, got end of file")
            _check_length(synt, synt_block, len(prop_block), props)
            cols = [split_columns(synt, line, n=2, what="columns (POS tag, parse bit)") for line in synt_block]
            sent.tags = [c[0] for c in cols]
            sent.parse_bits = [c[1] for c in cols]
            sent.line_nos = [line[0] for line in synt_block]  # tree errors point into synt
        doc = _column_doc(vocab, sent, word_list)
        for token, lemma in zip(doc, lemmas):
            if lemma != "-":
                token.lemma_ = lemma
        yield doc
    for path, rest in ((words, words_blocks), (synt, synt_blocks)):
        extra = next(rest, None) if rest is not None else None
        if extra is not None:
            raise CorpusFormatError(path, extra[0][0], f"expected end of file: {props} has no more sentences")


def _props_sentence(path: PathLike, block: List[Line]) -> Tuple[ColumnSentence, List[str]]:
    """The sentence's frames, and its first column (predicate lemmas, ``-`` elsewhere)."""
    rows = [split_columns(path, line, at_least=1) for line in block]
    width = len(rows[0])
    for line, row in zip(block, rows):
        if len(row) != width:
            raise CorpusFormatError(
                path, line[0], f"expected {width} columns like the sentence's first line, got {len(row)}"
            )
    # The props format has a target column but no sense: the frame's sense stays None.
    sent = ColumnSentence(path=str(path), line_nos=[line[0] for line in block])
    sent.targets = [row[0] != "-" for row in rows]
    sent.senses = [None] * len(rows)
    sent.arg_columns = [[row[j] for row in rows] for j in range(1, width)]
    return sent, [row[0] for row in rows]


def _check_length(path: PathLike, block: List[Line], expected: int, props: PathLike) -> None:
    if len(block) != expected:
        raise CorpusFormatError(
            path, block[0][0], f"expected a sentence of {expected} lines as in {props}, got {len(block)}"
        )
