"""Reading CoNLL-U as the CoNLL 2018 UD shared task scorer (``conll18_ud_eval.py``) does.

* Words are the syntactic words of CoNLL-U: the lines with an integer ID. Empty
  nodes ``n.m`` are ignored.
* Tokens are the lines that give characters: multi-word token lines ``n-m`` and
  the words outside them. Their FORMs, with Unicode ``Zs`` spaces removed, are
  concatenated over the whole file; a token is its character span in that text, a
  word inside a multi-word token has the span of the whole token, and a sentence
  is the span from its first to its last character.
* Only the universal features are kept (:data:`UNIVERSAL_FEATURES`, sorted), and
  DEPRELs lose their subtype (everything from the first ``:``).

The reader checks what the official loader checks (10 columns, word IDs in order,
integer heads inside the sentence, no cycles, one root per sentence) and raises
:class:`UDError`; unlike it, it accepts a missing final blank line and several
blank lines between sentences.
"""
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import FrozenSet, Hashable, Iterable, List, NamedTuple, Optional, Tuple, Union

__all__ = [
    "ROOT",
    "UNIVERSAL_FEATURES",
    "UDDocument",
    "UDError",
    "UDWord",
    "load_conllu",
    "parse_conllu",
    "words_from_tokens",
]

ROOT = None  # head of a root word

# The features UFeats, AllTags and MLAS compare (the official scorer's list).
UNIVERSAL_FEATURES: FrozenSet[str] = frozenset(
    {
        "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender",
        "Animacy", "Number", "Case", "Definite", "Degree", "VerbForm", "Mood",
        "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person", "Polite",
    }
)  # fmt: skip

Span = Tuple[int, int]


class UDError(ValueError):
    """Input the CoNLL 2018 scorer would reject."""


@dataclass(frozen=True)
class UDWord:
    """One syntactic word.

    ``span`` is the character span of its token in the file's concatenated FORMs
    (for a word inside a multi-word token: the whole token's span); ``head`` is the
    index of the head word in the same word list, ``None`` for the root, or any
    other hashable that no word index equals (e.g. for unparsed words). ``deprel``
    has no subtype; ``ufeats`` holds the universal features only, sorted and joined
    by ``|`` (``""`` for none).
    """

    form: str
    upos: str
    deprel: str
    head: Optional[Hashable]
    span: Span
    is_multiword: bool = False
    lemma: str = "_"
    xpos: str = "_"
    ufeats: str = ""


@dataclass
class UDDocument:
    """The words of a file (or of Docs), the characters their tokens cover, and the
    character spans of its tokens and sentences (in file order). Read from a file, also its
    ``name`` and the line of each token (``token_lines``, parallel to ``tokens``), so that an
    error can say where in the file it is; empty for Docs."""

    words: List[UDWord] = field(default_factory=list)
    characters: str = ""
    tokens: List[Span] = field(default_factory=list)
    sentences: List[Span] = field(default_factory=list)
    name: str = ""
    token_lines: List[int] = field(default_factory=list)


class _Row(NamedTuple):
    columns: List[str]
    span: Span
    is_multiword: bool
    line_no: int


def _strip_spaces(form: str) -> str:
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


def universal_features(feats: str) -> str:
    """FEATS as the official scorer compares them: the universal features, sorted."""
    return "|".join(sorted(f for f in feats.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))


def load_conllu(path: Union[str, Path]) -> UDDocument:
    """Read a CoNLL-U file (see :func:`parse_conllu`)."""
    path = Path(path)
    return parse_conllu(path.read_text(encoding="utf8"), name=str(path))


def parse_conllu(text: str, name: str = "<string>") -> UDDocument:
    """Read CoNLL-U text into words with document-level head indices, and the
    spans of its tokens and sentences.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (as the official scorer reads
    files); a FORM inside a multi-word token keeps its spaces, as there.
    """
    doc = UDDocument(name=name)
    chars: List[str] = []
    sentence: List[_Row] = []
    in_sentence = False  # a non-comment line was read since the last blank line
    mwt_end = 0  # last word ID inside the current multi-word token
    mwt_span = (0, 0)
    offset = sentence_start = 0

    def where(line_no: int) -> str:
        return f"{name}, line {line_no}"

    def end_sentence() -> None:
        if sentence:
            doc.words.extend(_sentence_words(sentence, len(doc.words), name))
            doc.sentences.append((sentence_start, offset))
            sentence.clear()

    def add_token(form: str, line_no: int) -> Span:
        nonlocal offset
        span = (offset, offset + len(form))
        chars.append(form)
        doc.tokens.append(span)
        doc.token_lines.append(line_no)
        offset += len(form)
        return span

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            end_sentence()
            in_sentence, mwt_end, sentence_start = False, 0, offset
            continue
        if line.startswith("#") and not in_sentence:
            continue
        in_sentence = True
        columns = line.split("\t")
        if len(columns) != 10:
            raise UDError(f"{where(line_no)}: expected 10 tab-separated columns, got {len(columns)}")
        word_id = columns[0]
        if "." in word_id:  # empty node of the enhanced graph
            continue
        if "-" in word_id:
            try:
                first, last = (int(part) for part in word_id.split("-"))
            except ValueError:
                raise UDError(f"{where(line_no)}: cannot parse multi-word token ID {word_id!r}") from None
            form = _strip_spaces(columns[1])
            if not form:
                raise UDError(f"{where(line_no)}: empty FORM")
            mwt_span, mwt_end = add_token(form, line_no), last
            continue
        try:
            number = int(word_id)
        except ValueError:
            raise UDError(f"{where(line_no)}: cannot parse word ID {word_id!r}") from None
        if number != len(sentence) + 1:
            raise UDError(f"{where(line_no)}: word ID {number}, expected {len(sentence) + 1}")
        if number <= mwt_end:
            sentence.append(_Row(columns, mwt_span, True, line_no))
            continue
        columns[1] = _strip_spaces(columns[1])
        if not columns[1]:
            raise UDError(f"{where(line_no)}: empty FORM")
        sentence.append(_Row(columns, add_token(columns[1], line_no), False, line_no))
    end_sentence()
    doc.characters = "".join(chars)
    return doc


def _sentence_words(rows: List[_Row], base: int, name: str) -> List[UDWord]:
    heads: List[int] = []
    for row in rows:
        try:
            head = int(row.columns[6])
        except ValueError:
            raise UDError(f"{name}, line {row.line_no}: cannot parse HEAD {row.columns[6]!r}") from None
        if not 0 <= head <= len(rows):
            raise UDError(f"{name}, line {row.line_no}: HEAD {head} points outside of the sentence")
        heads.append(head)
    _check_tree(heads, name, rows[0].line_no)
    return [
        UDWord(
            form=row.columns[1],
            upos=row.columns[3],
            deprel=row.columns[7].split(":")[0],
            head=ROOT if head == 0 else base + head - 1,
            span=row.span,
            is_multiword=row.is_multiword,
            lemma=row.columns[2],
            xpos=row.columns[4],
            ufeats=universal_features(row.columns[5]),
        )
        for row, head in zip(rows, heads)
    ]


def _check_tree(heads: List[int], name: str, line_no: int) -> None:
    """One root and no cycle, as the official loader requires (heads are 1-based)."""
    if sum(head == 0 for head in heads) != 1:
        raise UDError(f"{name}, sentence at line {line_no}: there must be exactly one root")
    for start in range(1, len(heads) + 1):
        seen = set()
        node = start
        while node != 0:
            if node in seen:
                raise UDError(f"{name}, sentence at line {line_no}: there is a cycle")
            seen.add(node)
            node = heads[node - 1]


def words_from_tokens(
    tokens: Iterable[Tuple[str, str, str, Optional[int]]],
) -> UDDocument:
    """Build a document from ``(text, upos, deprel, head)`` rows whose ``head`` is an
    index into the same rows (``None`` for a root, ``-1`` for no parse).

    Rows whose text is only whitespace are left out (they are not words), as are
    all whitespace characters, so that two tokenizations of one text have the same
    characters. A head on a left-out row can match nothing. Every row is a token;
    the rows say nothing about sentences, so ``sentences`` stays empty.
    """
    rows = list(tokens)
    kept = [i for i, row in enumerate(rows) if row[0].strip()]
    index = {row: k for k, row in enumerate(kept)}
    doc = UDDocument()
    chars: List[str] = []
    offset = 0
    for i in kept:
        text, upos, deprel, head = rows[i]
        form = "".join(text.split())
        if head is None:
            head_key: Optional[Hashable] = ROOT
        elif head in index:
            head_key = index[head]
        else:
            head_key = ("no head", head)
        span = (offset, offset + len(form))
        doc.words.append(UDWord(form, upos, deprel.split(":")[0], head_key, span))
        doc.tokens.append(span)
        chars.append(form)
        offset += len(form)
    doc.characters = "".join(chars)
    return doc
