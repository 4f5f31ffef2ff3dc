"""UAS and LAS, equal to the CoNLL 2018 UD shared task scorer (``conll18_ud_eval.py``).

Definitions taken from the official scorer (version 1.2):

* Words are the syntactic words of CoNLL-U: the lines with an integer ID.
  Multi-word token lines ``n-m`` give their FORM to the token's characters but are
  not words; empty nodes ``n.m`` are ignored.
* Gold and system words are aligned through the characters of the tokens (FORMs
  with Unicode ``Zs`` spaces removed, concatenated over the whole file, which must
  be equal): words outside multi-word tokens align when their character spans are
  equal; the words inside a "multi-word span" (the smallest stretch that contains
  whole multi-word tokens of both files) align by a longest common subsequence of
  their lower-cased FORMs. Different tokenizations are therefore scored, not
  rejected.
* UAS: an aligned word is correct when its system head is aligned to its gold head
  (or both are the root). LAS: also the DEPREL up to the first ``:`` is equal
  (subtypes are ignored).
* Precision = correct / system words, recall = correct / gold words,
  F1 = 2 * correct / (gold + system). The scorer reports F1 as "UAS"/"LAS"; with
  identical tokenization the three are equal.

Added here (not in the official scorer): ``uas_nopunct``/``las_nopunct``, which
leave out words whose *gold* UPOS is ``PUNCT``, as parsing papers do (for PTB they
leave out gold punctuation tags; in UD those are UPOS ``PUNCT``). A system word
counts as punctuation by the UPOS of the gold word it is aligned to, or by its own
UPOS when it is not aligned.

The reader checks what the official scorer checks (10 columns, word IDs in order,
integer heads inside the sentence, no cycles, one root per sentence) and raises
:class:`UDError`; unlike it, it accepts a missing final blank line and several
blank lines between sentences.
"""
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Hashable, Iterable, List, Optional, Tuple, Union

__all__ = [
    "PRF",
    "UDDocument",
    "UDError",
    "UDResult",
    "UDWord",
    "align_words",
    "load_conllu",
    "parse_conllu",
    "score_conllu_files",
    "score_ud",
    "words_from_tokens",
]

ROOT = None  # head of a root word
# Head key of a system word whose head is not aligned to any gold word.
_NOT_ALIGNED = ("not aligned",)


class UDError(ValueError):
    """Input the CoNLL 2018 scorer would reject."""


@dataclass(frozen=True)
class UDWord:
    """One syntactic word.

    ``span`` is the character span of its token in the file's concatenated FORMs
    (for a word inside a multi-word token: the whole token's span); ``head`` is the
    index of the head word in the same word list, ``None`` for the root, or any
    other hashable that no word index equals (e.g. for unparsed words).
    """

    form: str
    upos: str
    deprel: str
    head: Optional[Hashable]
    span: Tuple[int, int]
    is_multiword: bool = False


@dataclass
class UDDocument:
    """The words of a file (or of Docs) and the characters their tokens cover."""

    words: List[UDWord] = field(default_factory=list)
    characters: str = ""


def _strip_spaces(form: str) -> str:
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


def load_conllu(path: Union[str, Path]) -> UDDocument:
    """Read a CoNLL-U file (see :func:`parse_conllu`)."""
    path = Path(path)
    return parse_conllu(path.read_text(encoding="utf8"), name=str(path))


def parse_conllu(text: str, name: str = "<string>") -> UDDocument:
    """Read CoNLL-U text into words with document-level head indices."""
    words: List[UDWord] = []
    chars: List[str] = []
    sentence: List[Tuple[List[str], Tuple[int, int], bool, int]] = []
    mwt_end = 0  # last word ID inside the current multi-word token
    mwt_span = (0, 0)
    offset = 0

    def where(line_no: int) -> str:
        return f"{name}, line {line_no}"

    def end_sentence() -> None:
        if sentence:
            words.extend(_sentence_words(sentence, len(words), name))
            sentence.clear()

    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            end_sentence()
            mwt_end = 0
            continue
        if line.startswith("#") and not sentence:
            continue
        columns = line.split("\t")
        if len(columns) != 10:
            raise UDError(f"{where(line_no)}: expected 10 tab-separated columns, got {len(columns)}")
        word_id = columns[0]
        if "." in word_id:  # empty node of the enhanced graph
            continue
        form = _strip_spaces(columns[1])
        if "-" in word_id:
            try:
                first, last = (int(part) for part in word_id.split("-"))
            except ValueError:
                raise UDError(f"{where(line_no)}: cannot parse multi-word token ID {word_id!r}") from None
            if not form:
                raise UDError(f"{where(line_no)}: empty FORM")
            mwt_span, mwt_end = (offset, offset + len(form)), last
            chars.append(form)
            offset += len(form)
            continue
        try:
            number = int(word_id)
        except ValueError:
            raise UDError(f"{where(line_no)}: cannot parse word ID {word_id!r}") from None
        if number != len(sentence) + 1:
            raise UDError(f"{where(line_no)}: word ID {number}, expected {len(sentence) + 1}")
        if number <= mwt_end:
            sentence.append((columns, mwt_span, True, line_no))
            continue
        if not form:
            raise UDError(f"{where(line_no)}: empty FORM")
        sentence.append((columns, (offset, offset + len(form)), False, line_no))
        chars.append(form)
        offset += len(form)
    end_sentence()
    return UDDocument(words, "".join(chars))


def _sentence_words(
    rows: List[Tuple[List[str], Tuple[int, int], bool, int]], base: int, name: str
) -> List[UDWord]:
    heads: List[int] = []
    for columns, _, _, line_no in rows:
        try:
            head = int(columns[6])
        except ValueError:
            raise UDError(f"{name}, line {line_no}: cannot parse HEAD {columns[6]!r}") from None
        if not 0 <= head <= len(rows):
            raise UDError(f"{name}, line {line_no}: HEAD {head} points outside of the sentence")
        heads.append(head)
    _check_tree(heads, name, rows[0][3])
    return [
        UDWord(
            form=_strip_spaces(columns[1]),
            upos=columns[3],
            deprel=columns[7].split(":")[0],
            head=ROOT if head == 0 else base + head - 1,
            span=span,
            is_multiword=is_multiword,
        )
        for (columns, span, is_multiword, _), head in zip(rows, heads)
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


# --- alignment --------------------------------------------------------------------


def align_words(gold: List[UDWord], system: List[UDWord]) -> Dict[int, int]:
    """Align system words to gold words as the CoNLL 2018 scorer does.

    Returns ``{system index: gold index}``. The caller checks that the characters
    of both files are equal.
    """
    alignment: Dict[int, int] = {}
    gi = si = 0
    while gi < len(gold) and si < len(system):
        if gold[gi].is_multiword or system[si].is_multiword:
            gs, ss, gi, si = _multiword_span(gold, system, gi, si)
            if gi > gs and si > ss:
                _align_lcs(gold[gs:gi], system[ss:si], gs, ss, alignment)
        elif gold[gi].span == system[si].span:
            alignment[si] = gi
            gi += 1
            si += 1
        elif gold[gi].span[0] <= system[si].span[0]:
            gi += 1
        else:
            si += 1
    return alignment


def _multiword_span(
    gold: List[UDWord], system: List[UDWord], gi: int, si: int
) -> Tuple[int, int, int, int]:
    """The smallest stretch of words, from ``(gi, si)`` on, that contains whole
    multi-word tokens of both sides: returns its ``(gs, ss, gi, si)`` bounds."""
    if gold[gi].is_multiword:
        end = gold[gi].span[1]
        if not system[si].is_multiword and system[si].span[0] < gold[gi].span[0]:
            si += 1
    else:
        end = system[si].span[1]
        if not gold[gi].is_multiword and gold[gi].span[0] < system[si].span[0]:
            gi += 1
    gs, ss = gi, si

    def beyond(words: List[UDWord], i: int) -> bool:
        if i >= len(words):
            return True
        if words[i].is_multiword:
            return words[i].span[0] >= end
        return words[i].span[1] > end

    while not beyond(gold, gi) or not beyond(system, si):
        if gi < len(gold) and (si >= len(system) or gold[gi].span[0] <= system[si].span[0]):
            word, gi = gold[gi], gi + 1
        else:
            word, si = system[si], si + 1
        if word.is_multiword:
            end = max(end, word.span[1])
    return gs, ss, gi, si


def _align_lcs(
    gold: List[UDWord], system: List[UDWord], g_base: int, s_base: int, out: Dict[int, int]
) -> None:
    """Align the words of one multi-word span by an LCS of lower-cased FORMs,
    walking the table the way the official scorer does."""
    g_forms = [w.form.lower() for w in gold]
    s_forms = [w.form.lower() for w in system]
    n, m = len(g_forms), len(s_forms)
    # lcs[g][s]: LCS length of g_forms[g:] and s_forms[s:] (one extra row/column of 0).
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for g in reversed(range(n)):
        for s in reversed(range(m)):
            same = 1 + lcs[g + 1][s + 1] if g_forms[g] == s_forms[s] else 0
            lcs[g][s] = max(same, lcs[g + 1][s], lcs[g][s + 1])
    g = s = 0
    while g < n and s < m:
        if g_forms[g] == s_forms[s]:
            out[s_base + s] = g_base + g
            g += 1
            s += 1
        elif lcs[g][s] == lcs[g + 1][s]:
            g += 1
        else:
            s += 1


# --- scores -------------------------------------------------------------------------


@dataclass(frozen=True)
class PRF:
    """Counts of one metric and its precision, recall and F1 (fractions)."""

    correct: int
    gold: int
    system: int

    @property
    def precision(self) -> float:
        return self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        total = self.gold + self.system
        return 2 * self.correct / total if total else 0.0

    def to_dict(self) -> Dict[str, float]:
        return {
            "correct": self.correct,
            "gold": self.gold,
            "system": self.system,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


@dataclass(frozen=True)
class UDResult:
    """Words (alignment), UAS and LAS, with and without gold punctuation."""

    words: PRF
    uas: PRF
    las: PRF
    uas_nopunct: PRF
    las_nopunct: PRF
    las_per_type: Dict[str, PRF]


def score_ud(
    gold: UDDocument,
    system: UDDocument,
    punct_upos: FrozenSet[str] = frozenset({"PUNCT"}),
) -> UDResult:
    """Score a system document against the gold one (see the module docstring)."""
    if gold.characters != system.characters:
        i = 0
        while i < min(len(gold.characters), len(system.characters)) and (
            gold.characters[i] == system.characters[i]
        ):
            i += 1
        raise UDError(
            "The concatenation of tokens in gold file and in system file differ! First 20 "
            f"differing characters in gold file: {gold.characters[i:i + 20]!r} and system "
            f"file: {system.characters[i:i + 20]!r}"
        )
    g_words, s_words = gold.words, system.words
    alignment = align_words(g_words, s_words)

    def system_head(word: UDWord) -> Optional[Hashable]:
        if word.head is ROOT:
            return ROOT
        return alignment.get(word.head, _NOT_ALIGNED) if isinstance(word.head, int) else _NOT_ALIGNED

    def score(
        correct_fn: Callable[[UDWord, UDWord], bool], keep: Callable[[UDWord], bool] = lambda w: True
    ) -> PRF:
        correct = sum(
            keep(g_words[gi]) and correct_fn(g_words[gi], s_words[si])
            for si, gi in alignment.items()
        )
        return PRF(
            correct,
            sum(map(keep, g_words)),
            sum(keep(_punct_proxy(si, alignment, g_words, s_words)) for si in range(len(s_words))),
        )

    def uas(g: UDWord, s: UDWord) -> bool:
        return g.head == system_head(s)

    def las(g: UDWord, s: UDWord) -> bool:
        return uas(g, s) and g.deprel == s.deprel

    def not_punct(word: UDWord) -> bool:
        return word.upos not in punct_upos

    # Per label, a gold word counts by its gold DEPREL and a system word by its own.
    per_type = {
        label: PRF(
            sum(
                g_words[gi].deprel == label and las(g_words[gi], s_words[si])
                for si, gi in alignment.items()
            ),
            sum(w.deprel == label for w in g_words),
            sum(w.deprel == label for w in s_words),
        )
        for label in sorted({w.deprel for w in g_words} | {w.deprel for w in s_words})
    }
    return UDResult(
        words=PRF(len(alignment), len(g_words), len(s_words)),
        uas=score(uas),
        las=score(las),
        uas_nopunct=score(uas, not_punct),
        las_nopunct=score(las, not_punct),
        las_per_type=per_type,
    )


def _punct_proxy(si: int, alignment: Dict[int, int], gold: List[UDWord], system: List[UDWord]) -> UDWord:
    """The word whose UPOS decides if system word ``si`` is punctuation: its aligned
    gold word, or itself when it is not aligned."""
    gi = alignment.get(si)
    return gold[gi] if gi is not None else system[si]


def score_conllu_files(
    gold_path: Union[str, Path],
    system_path: Union[str, Path],
    punct_upos: FrozenSet[str] = frozenset({"PUNCT"}),
) -> UDResult:
    """:func:`score_ud` on two CoNLL-U files."""
    return score_ud(load_conllu(gold_path), load_conllu(system_path), punct_upos)


def words_from_tokens(
    tokens: Iterable[Tuple[str, str, str, Optional[int]]],
) -> UDDocument:
    """Build a document from ``(text, upos, deprel, head)`` rows whose ``head`` is an
    index into the same rows (``None`` for a root, ``-1`` for no parse).

    Rows whose text is only whitespace are left out (they are not words), as are
    all whitespace characters, so that two tokenizations of one text have the same
    characters. A head on a left-out row can match nothing.
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
        doc.words.append(UDWord(form, upos, deprel.split(":")[0], head_key, (offset, offset + len(form))))
        chars.append(form)
        offset += len(form)
    doc.characters = "".join(chars)
    return doc
