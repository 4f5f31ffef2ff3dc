"""Pieces shared by the corpus readers: errors, line/block reading and bracket columns.

CoNLL-style files are read as *blocks*: runs of non-blank lines separated by blank lines,
each line kept with its 1-based line number so that every error can point at it.

Two column formats use the same start-end bracket notation, one cell per token:

- CoNLL-2005 argument columns (``(ARG0*``, ``*``, ``*)``, ``(V*)``), one column per predicate;
- CoNLL-2005 syntax columns and CoNLL-2012 / PropBank-skeleton "parse bits" (``(TOP(S(NP*)``),
  where ``*`` stands for the token's ``(TAG word)`` leaf.

A cell is ``(LABEL`` zero or more times, then ``*``, then ``)`` zero or more times
(CoNLL-2004 files may repeat the label before a ``)``: ``*ARG0)``; that label is ignored).
:func:`bracket_spans` and :func:`tree_from_parse_bits` are the two readings of such a column;
:func:`bio_to_cells` writes a frame's argument column.
"""
from __future__ import annotations

import gzip
import io
import re
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.vocab import Vocab

if TYPE_CHECKING:
    from ..doc.tree import Tree

PathLike = Union[str, Path]
Line = Tuple[int, str]  # (1-based line number, text without the newline)

# One cell of a bracket column: opening labels, the star, closing brackets.
_CELL = re.compile(r"^((?:\([^()*\s]+)*)\*((?:[^()*\s]*\))*)$")
_OPEN = re.compile(r"\(([^()*\s]+)")


class CorpusFormatError(ValueError):
    """A malformed line in a corpus file; the message names file, line and what was expected."""

    def __init__(self, path: Optional[PathLike], line_no: Optional[int], message: str) -> None:
        self.path = str(path) if path is not None else "<string>"
        self.line_no = line_no
        self.detail = message
        where = self.path if line_no is None else f"{self.path}, line {line_no}"
        super().__init__(f"{where}: {message}")


def get_vocab(vocab_or_nlp: Union[Vocab, Language]) -> Vocab:
    """Accept an ``nlp`` object wherever a Vocab is needed."""
    return vocab_or_nlp.vocab if isinstance(vocab_or_nlp, Language) else vocab_or_nlp


def open_text(path: PathLike) -> IO[str]:
    """Open a UTF-8 corpus file, transparently gunzipping ``*.gz`` (the CoNLL-2005 release)."""
    path = Path(path)
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf8")
    return path.open(encoding="utf8")


def iter_blocks(path: PathLike, *, comment: Optional[str] = None) -> Iterator[List[Line]]:
    """Yield the blank-line separated blocks of a file as lists of ``(line_no, line)``.

    ``comment``: lines starting with this prefix are kept in the block (the CoNLL-U reader needs
    its ``# sent_id`` lines) but a block made only of comments is still yielded, so callers decide.
    Trailing whitespace (also ``\\r``) is removed; a line of only whitespace counts as blank.
    """
    block: List[Line] = []
    with open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                if block:
                    yield block
                    block = []
                continue
            block.append((line_no, line))
    if block:
        yield block


def check_complete(path: PathLike, *, end_marker: Optional[str] = None, unit: str = "sentence") -> None:
    """Raise :class:`CorpusFormatError` at the last line of a file that was cut short.

    A block format ends every sentence with a blank line (CoNLL-U requires it; the CoNLL-2005
    files and the PropBank skeletons have it), so a file whose last line is not blank ends inside
    a sentence: it was cut, and its last sentence would be read short without a word (or a
    skeleton sentence dropped from the EWT join as not matching). With ``end_marker`` (CoNLL-2012:
    ``#end document``) the last non-blank line must start with it instead. An empty file passes.
    """
    last_no, last = 0, ""
    with open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            if line.strip():
                last_no, last = line_no, line
            elif end_marker is None:
                last_no = 0  # a blank line closes the block before it
    if not last_no:
        return
    if end_marker is None:
        raise CorpusFormatError(
            path, last_no, f"the file ends inside a {unit}: no blank line follows its last line (was it cut short?)"
        )
    if not last.startswith(end_marker):
        raise CorpusFormatError(
            path, last_no, f"the file ends without its {end_marker!r} line, inside a {unit} (was it cut short?)"
        )


def split_columns(
    path: PathLike,
    line: Line,
    *,
    sep: Optional[str] = None,
    n: Optional[int] = None,
    at_least: Optional[int] = None,
    what: str = "columns",
) -> List[str]:
    """Split a line into columns, checking their number.

    ``sep=None`` splits on runs of whitespace (CoNLL-2005/2012, skeletons); CoNLL-U uses ``"\\t"``
    because its FORM and MISC columns may contain spaces.
    """
    line_no, text = line
    cols = text.split(sep)
    kind = "tab-separated " if sep == "\t" else ""
    if n is not None and len(cols) != n:
        raise CorpusFormatError(path, line_no, f"expected {n} {kind}{what}, got {len(cols)}")
    if at_least is not None and len(cols) < at_least:
        raise CorpusFormatError(
            path, line_no, f"expected at least {at_least} {kind}{what}, got {len(cols)}"
        )
    return cols


def parse_cell(cell: str, path: PathLike, line_no: int) -> Tuple[List[str], int]:
    """Split one bracket cell into its opening labels and its number of closing brackets."""
    match = _CELL.match(cell)
    if match is None:
        raise CorpusFormatError(
            path, line_no, f"expected a bracket cell like '(NP*', '*' or '*))', got {cell!r}"
        )
    return _OPEN.findall(match.group(1)), match.group(2).count(")")


def bracket_spans(
    cells: Sequence[str], path: PathLike, line_nos: Sequence[int]
) -> List[Tuple[int, int, str]]:
    """Read a start-end bracket column into ``(start, end, label)`` spans, in opening order.

    A ``)`` closes the innermost open bracket, so nested spans are read correctly too.
    """
    spans: List[Tuple[int, int, str]] = []
    stack: List[Tuple[int, int]] = []  # (index into spans, start)
    for i, (cell, line_no) in enumerate(zip(cells, line_nos)):
        opens, closes = parse_cell(cell, path, line_no)
        for label in opens:
            stack.append((len(spans), i))
            spans.append((i, -1, label))
        for _ in range(closes):
            if not stack:
                raise CorpusFormatError(path, line_no, f"unexpected ')' in {cell!r}: no open bracket")
            k, start = stack.pop()
            spans[k] = (start, i + 1, spans[k][2])
    if stack:
        k, start = stack[-1]
        raise CorpusFormatError(
            path, line_nos[-1], f"expected ')' to close '({spans[k][2]}' opened on line {line_nos[start]}"
        )
    return spans


def bio_to_cells(tags: Sequence[str]) -> List[str]:
    """BIO tags of one frame -> start-end bracket cells (``B-ARG0 I-ARG0`` -> ``(ARG0*``, ``*)``),
    what :func:`bracket_spans` reads back."""
    spans: List[Tuple[int, int, str]] = []
    for i, tag in enumerate(tags):
        if tag.startswith("B-"):
            spans.append((i, i + 1, tag[2:]))
        elif tag.startswith("I-") and spans and spans[-1][1] == i and spans[-1][2] == tag[2:]:
            spans[-1] = (spans[-1][0], i + 1, spans[-1][2])
        elif tag != "O":
            raise ValueError(f"bad BIO tag {tag!r} at position {i}")
    cells = ["*"] * len(tags)
    for start, end, label in spans:
        cells[start] = f"({label}" + cells[start]
        cells[end - 1] = cells[end - 1] + ")"
    return cells


def tree_from_parse_bits(
    words: Sequence[str],
    tags: Sequence[str],
    bits: Sequence[str],
    path: PathLike,
    line_nos: Sequence[int],
) -> "Tree":
    """Build a :class:`~spacy_lal.doc.tree.Tree` from parse bits, ``*`` being each ``(TAG word)`` leaf.

    The tree is built node by node rather than by pasting a PTB string together, so words that
    contain brackets (emoticons like ``:)``) need no escaping. A Charniak-style ``S1`` root is
    renamed ``TOP`` so that :meth:`Tree.normalize` drops it like any TOP wrapper.
    """
    from ..doc.tree import Tree

    stack: List[Tuple[str, List[Tree], int]] = [("", [], 0)]  # (label, children, line_no)
    for word, tag, cell, line_no in zip(words, tags, bits, line_nos):
        opens, closes = parse_cell(cell, path, line_no)
        for label in opens:
            stack.append((label, [], line_no))
        stack[-1][1].append(Tree(tag, [], word=word))
        for _ in range(closes):
            if len(stack) == 1:
                raise CorpusFormatError(path, line_no, f"unexpected ')' in parse bit {cell!r}: no open bracket")
            label, children, _ = stack.pop()
            stack[-1][1].append(Tree(label, children))
    if len(stack) > 1:
        label, _, opened = stack[-1]
        raise CorpusFormatError(
            path, line_nos[-1], f"expected ')' to close '({label}' opened on line {opened}"
        )
    roots = stack[0][1]
    if len(roots) != 1 or roots[0].word is not None:
        raise CorpusFormatError(
            path, line_nos[0], f"expected the parse bits to form one tree, got {len(roots)} top-level pieces"
        )
    root = roots[0]
    if root.label == "S1":
        root = Tree("TOP", root.children)
    return root


def sense_or_none(value: str) -> Optional[str]:
    """``-`` and ``_`` mean "no value" in the column formats."""
    return None if value in ("-", "_") else value

