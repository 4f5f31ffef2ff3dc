r"""Write Docs (gold or predicted) in the formats of the official scorers (what ``parse`` and
``parse-corpus`` print is ``parse_output.py``'s).

- :func:`write_ptb`: one tree per line for EVALB, from the stored trees (``sent._.parse_string``);
  words escaped, no TOP wrapper.
- :func:`write_conllu`: CoNLL-U for the CoNLL 2018 UD scorer. A Doc holds words; the words that
  make one surface token get a range line ``n-m FORM _ _ _ _ _ _ _ MISC`` before them: the
  ranges read from CoNLL-U (``doc.user_data["multiword_tokens"]``, see :mod:`.conllu`), else
  EWT's groups (``do`` + ``n't`` written ``don't``, :func:`spacy_lal.tokenizer.multiword_token_spans`).
  ``SpaceAfter=No`` goes on the range line, not on its words (the UD format). DEPS is ``_``;
  MISC holds only the spacing (see below).
- :func:`write_conll05`: CoNLL-2005 props for ``srl-eval.pl``, the predicate's lemma in the first
  column.

All writers go sentence by sentence (``doc.sents`` when the Doc has sentence boundaries, else
the whole Doc) and never drop one that has words: gold and predicted files must stay aligned line
for line, so a sentence lacking the annotation is written in a neutral form and counted in a
warning.

Whitespace (issue #37). spaCy keeps a run of extra whitespace (two spaces, a tab, ``\r``, U+3000,
...) as a token of its own (``token.is_space``, tag ``_SP``, UPOS ``SPACE``); the parsers leave
such tokens out and attach them with ``dep``. They are not words, and no writer writes them as
words (:func:`sentence_words`): the PTB trees and the CoNLL-2005 rows hold the words only, and
in CoNLL-U whitespace is spacing in MISC, as UD's own tools write it (UDPipe, udapi):
``SpaceAfter=No`` when no whitespace follows a word, nothing for one space, else
``SpacesAfter=`` with the whitespace escaped (``\s`` space, ``\t`` tab, ``\r``, ``\n``, any other
whitespace character ``\uXXXX``); whitespace before a sentence's first word is ``SpacesBefore=``.
A word whose head is a whitespace token is attached to the nearest word up that token's head
chain (the shipped parsers never give one). A sentence of whitespace alone (a text of two
spaces, a tab, a blank line between paragraphs) has no words and is written in no format: no
CoNLL-U sentence, no PTB line, no props block (:func:`word_sentences` lists the written ones).
Then every CoNLL-U file is valid for UD's validator at levels 1 and 2 (``udvalidate --lang ud
--level 2``; tests/corpora/test_export_fuzz.py): FORM and LEMMA are NFC with control characters
kept (unpaired surrogates written ``?``) and no whitespace at their ends (whitespace inside a FORM collapses to one
space), UPOS ``SPACE`` on a word is written ``X``, each sentence has one root (another root
of a sentence is attached to the first one with ``dep``), and ``# text`` is the words joined by
their spacing with each whitespace run written as one space (the exact whitespace is in MISC),
so it is one line and equals the FORMs. (A Doc without part-of-speech annotation gets UPOS ``_``,
which level 2 refuses as no UD tag: there is nothing to write there.) The last word of a Doc gets no ``SpaceAfter=No`` (UD
forbids it before a new document). PTB words and CoNLL-2005 cells have each whitespace run
written ``_``.
"""
from __future__ import annotations

import re
import unicodedata
import warnings
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple

from spacy.tokens import Doc, Span, Token

from ..doc.api import NotAConstituentError
from ..doc.extensions import stored_trees
from ..doc.frames import Frame
from ..doc.tree import UNTAGGED, Tree
from ..tokenizer import multiword_token_spans
from ._common import PathLike, bio_to_cells
from .conllu import MULTIWORD_TOKENS

__all__ = [
    "FORMATS", "multiword_ranges", "predicate_lemma", "sentence_words", "sentences",
    "word_sentences", "write_conll05", "write_conllu", "write_ptb",
]

FORMATS = ("ptb", "conllu", "conll05")
_WHITESPACE_RUN = re.compile(r"\s+")
# Unpaired surrogates (text decoded with surrogateescape) cannot be written as UTF-8.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_BAD_PTB_LABEL = re.compile(r"[\s()]")


def sentences(doc: Doc) -> Iterator[Span]:
    """The sentences of a Doc; the whole Doc (if not empty) when it has no boundaries."""
    if doc.has_annotation("SENT_START") or doc.has_annotation("DEP"):
        yield from doc.sents
    elif len(doc):
        yield doc[:]


def sentence_words(sent: Span) -> List[Token]:
    """The words of a sentence: its tokens less spaCy's whitespace tokens (``token.is_space``)."""
    return [token for token in sent if not token.is_space]


def word_sentences(doc: Doc) -> Iterator[Span]:
    """The sentences the writers write: those of :func:`sentences` with at least one word."""
    return (sent for sent in sentences(doc) if any(not token.is_space for token in sent))


def write_ptb(docs: Iterable[Doc], path: PathLike) -> int:
    """Write one bracketed tree per sentence; returns the number of sentences.

    A sentence without a stored tree is written flat, ``(S (TAG word) ...)``, so that the file
    stays aligned with the gold file (EVALB compares line by line), and counted in a warning.
    A sentence of whitespace alone has no words and no line (see the module docstring).
    """
    n = missing = 0
    with _open_out(path) as f:
        for doc in docs:
            for sent in word_sentences(doc):
                try:
                    line = sent._.parse_string
                except NotAConstituentError:
                    missing += 1
                    leaves = [
                        Tree(_ptb_label(token.tag_), word=_ptb_word(token.text)) for token in sentence_words(sent)
                    ]
                    line = Tree("S", leaves).to_string()
                except ValueError:
                    # A word or tag PTB brackets cannot hold (whitespace inside, an empty word):
                    # the stored tree again, its leaves made writable.
                    line = _writable_tree(sent).to_string()
                f.write(line + "\n")
                n += 1
    if missing:
        warnings.warn(
            f"write_ptb: {missing} of {n} sentences had no constituency tree (not parsed by lal_parser) "
            "and were written flat, (S (TAG word) ...), to keep the file aligned with the gold file",
            stacklevel=2,
        )
    return n


def _writable_tree(sent: Span) -> Tree:
    """The stored tree of ``sent`` over its words, each word and tag made writable (flat, as a
    sentence without a tree, when none is stored for it)."""
    words = sentence_words(sent)
    index = {token.i: k for k, token in enumerate(words)}
    mapped: List[Tuple[int, int, Tuple[str, ...]]] = []
    for first, _, spans in stored_trees(sent.doc):
        if first != sent.start:
            continue
        for start, end, labels in spans:
            inside = [index[first + i] for i in range(start, end) if first + i in index]
            if inside and labels:
                mapped.append((inside[0], inside[-1] + 1, tuple(_ptb_label(label) for label in labels)))
    leaves = [Tree(_ptb_label(token.tag_), word=_ptb_word(token.text)) for token in words]
    if not mapped:
        return Tree("S", leaves)
    # Spans of whitespace-free words may repeat (a span and its whitespace-extended copy): keep one.
    unique = list(dict.fromkeys(mapped))
    try:
        return Tree.from_spans([leaf.word for leaf in leaves], [leaf.label for leaf in leaves], unique)
    except ValueError:
        return Tree("S", leaves)


def _ptb_word(text: str) -> str:
    return _WHITESPACE_RUN.sub("_", text).strip() or "_"


def _ptb_label(tag: str) -> str:
    return _BAD_PTB_LABEL.sub("_", tag) or UNTAGGED


def write_conllu(docs: Iterable[Doc], path: PathLike, *, multiword_tokens: bool = True) -> int:
    """Write the Docs as CoNLL-U sentences; returns the number of sentences.

    ``# newdoc id`` / ``# sent_id`` come from ``doc.user_data`` (``doc_id``, ``sent_id``; a Doc
    of several sentences numbers them ``<sent_id>-<k>``); without them sentences are numbered.
    Empty annotation is written ``_``; a Doc without dependency annotation gets ``_`` heads (and
    a warning: the UD scorer needs heads). HEAD and DEPREL are UD's even where ``lal_parser``
    wrote spaCy's English scheme (``dependency_scheme = "clear"``): its UD tree, kept beside. Multi-word tokens get range lines (see the module
    docstring); ``multiword_tokens=False`` writes words only, each with its own spacing.
    Whitespace tokens are spacing, not words, and a sentence of whitespace alone is not written
    (see the module docstring): the output is valid CoNLL-U for UD's validator (levels 1-2).
    """
    n = no_deps = 0
    doc_id = None
    with _open_out(path) as f:
        for doc in docs:
            sents = list(word_sentences(doc))
            # A Doc of whitespace alone writes nothing, not even its "# newdoc" (a comment must
            # come before a sentence).
            if sents and doc.user_data.get("doc_id") not in (None, doc_id):
                doc_id = doc.user_data["doc_id"]
                f.write(f"# newdoc id = {_comment_value(str(doc_id))}\n")
            has_deps = doc.has_annotation("DEP")
            ranges = multiword_ranges(doc) if multiword_tokens else {}
            last_word = max((t.i for t in doc if not t.is_space), default=-1)
            for k, sent in enumerate(sents):
                n += 1
                sent_id = doc.user_data.get("sent_id")
                if sent_id is None:
                    sent_id = str(n)
                elif len(sents) > 1:
                    sent_id = f"{sent_id}-{k + 1}"
                words = sentence_words(sent)
                ids = {token.i: number for number, token in enumerate(words, start=1)}
                # A range of words only (whitespace between its words would not be one token).
                sent_ranges = {
                    i: r for i, r in ranges.items()
                    if i in ids and r[0] <= sent.end and all(j in ids for j in range(i, r[0]))
                }
                spacing = _spacing_after(words, sent)
                heads = _conllu_heads(sent, words, ids) if has_deps else None
                no_deps += not has_deps
                lines: List[str] = []
                text: List[str] = []
                range_end = 0  # the end of the multi-word token being written
                for number, token in enumerate(words, start=1):
                    if token.i in sent_ranges:
                        range_end, surface = sent_ranges[token.i]
                        form = _form(surface)
                        misc = _misc(spacing[doc[range_end - 1].i], doc[range_end - 1].i == last_word)
                        lines.append("\t".join([f"{number}-{ids[range_end - 1]}", form] + ["_"] * 7 + [misc]))
                        text.append(form + (" " if spacing[doc[range_end - 1].i] else ""))
                    if token.i < range_end:
                        misc = "_"
                    else:
                        misc = _misc(spacing[token.i], token.i == last_word)
                        text.append(_form(token.text) + (" " if spacing[token.i] else ""))
                    if number == 1 and spacing.get(None):
                        misc = _join_misc(f"SpacesBefore={_escape_spaces(spacing[None])}", misc)
                    head, dep = heads[token.i] if heads is not None else ("_", "_")
                    pos = token.pos_ or "_"
                    cols = [
                        str(number),
                        _form(token.text),
                        _form(token.lemma_) if token.lemma_ else "_",
                        "X" if pos == "SPACE" else pos,
                        _column(token.tag_),
                        _column(str(token.morph)),
                        head,
                        dep,
                        "_",
                        misc,
                    ]
                    lines.append("\t".join(cols))
                f.write(f"# sent_id = {_comment_value(str(sent_id))}\n# text = {''.join(text).rstrip()}\n")
                f.write("".join(line + "\n" for line in lines))
                f.write("\n")
    if no_deps:
        warnings.warn(f"{path}: {no_deps} of {n} sentences had no dependency annotation (HEAD '_')", stacklevel=2)
    return n


def _spacing_after(words: List[Token], sent: Span) -> Dict[Optional[int], str]:
    """The whitespace after each word (its own and that of the whitespace tokens up to the next
    word of the sentence, or to the sentence's end), keyed by token index; key None holds the
    whitespace before the first word."""
    spacing: Dict[Optional[int], str] = {}
    current: Optional[int] = None
    parts: List[str] = []
    for token in sent:
        if token.is_space:
            parts.append(token.text_with_ws)
            continue
        spacing[current] = "".join(parts)
        current, parts = token.i, [token.whitespace_]
    spacing[current] = "".join(parts)
    return spacing


def _misc(spacing: str, last_of_doc: bool) -> str:
    if spacing == " ":
        return "_"
    if not spacing:
        return "_" if last_of_doc else "SpaceAfter=No"
    return f"SpacesAfter={_escape_spaces(spacing)}"


def _join_misc(first: str, rest: str) -> str:
    return first if rest == "_" else f"{first}|{rest}"


_SPACE_ESCAPES = {" ": "\\s", "\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _escape_spaces(spacing: str) -> str:
    """Whitespace as UD's MISC spacing attributes write it (UDPipe's escapes; others as \\uXXXX)."""
    return "".join(_SPACE_ESCAPES.get(c, f"\\u{ord(c):04X}") for c in spacing)


def _ud_arc(token: Token) -> Tuple[Token, str]:
    """The UD head and label of ``token``: with ``lal_parser``'s "clear" scheme, whose
    ``token.head`` / ``dep_`` are spaCy's English ones, the UD tree it keeps
    (``token._.ud_head`` / ``ud_dep``, registered with the parser), else ``token.head`` / ``dep_``."""
    if Token.has_extension("ud_dep"):
        return token._.ud_head, token._.ud_dep
    return token.head, token.dep_


def _conllu_heads(sent: Span, words: List[Token], ids: Dict[int, int]) -> Dict[int, Tuple[str, str]]:
    """HEAD and DEPREL of each word, from the UD tree (:func:`_ud_arc`): heads renumbered over the
    words, a whitespace head replaced by the nearest word up its head chain, one root per sentence
    (another attached to the first root with ``dep``: UD's validator allows one)."""
    heads: Dict[int, Tuple[int, str]] = {}
    for token in words:
        head, label = _ud_arc(token)
        seen = {token.i}
        while head.i not in ids and head.i not in seen and sent.start <= head.i < sent.end:
            seen.add(head.i)
            head = _ud_arc(head)[0]
        dep = _column(label)
        if head.i == token.i or head.i not in ids:
            heads[token.i] = (0, dep)
        else:
            heads[token.i] = (ids[head.i], dep)
    roots = [i for i, (head, _) in heads.items() if head == 0]
    if not roots:  # a cycle: make the first word the root
        roots = [words[0].i]
        heads[words[0].i] = (0, "root")
    for i in roots[1:]:
        heads[i] = (ids[roots[0]], "dep")
    first = roots[0]
    heads[first] = (0, "root")
    # A word whose head chain loops without reaching the root would make a cycle: attach it to the root.
    for token in words:
        chain, j = set(), token.i
        while heads[j][0] != 0 and j not in chain:
            chain.add(j)
            j = words[heads[j][0] - 1].i
        if heads[j][0] != 0:
            heads[token.i] = (ids[first], heads[token.i][1] if heads[token.i][1] != "root" else "dep")
    out: Dict[int, Tuple[str, str]] = {}
    for i, (head, dep) in heads.items():
        if head != 0 and dep in ("root", "_"):
            dep = "dep"
        out[i] = (str(head), dep)
    return out


def multiword_ranges(doc: Doc) -> Dict[int, Tuple[int, str]]:
    """The multi-word tokens of ``doc``: first word -> (end, surface form). Those read from
    CoNLL-U when the Doc has them (``doc.user_data["multiword_tokens"]``; a range that no longer
    fits the Doc, overlaps another or has a space inside is left out), else EWT's groups
    (:func:`spacy_lal.tokenizer.multiword_token_spans`), their form the words' text."""
    stored = doc.user_data.get(MULTIWORD_TOKENS)
    if stored is None:
        return {span.start: (span.end, span.text) for span in multiword_token_spans(doc)}
    ranges: Dict[int, Tuple[int, str]] = {}
    covered = 0
    for start, end, form in sorted((int(s), int(e), str(f)) for s, e, f in stored):
        fits = covered <= start and end - start >= 2 and end <= len(doc)
        if fits and not any(doc[i].whitespace_ for i in range(start, end - 1)):
            ranges[start] = (end, form)
            covered = end
    return ranges


def write_conll05(docs: Iterable[Doc], path: PathLike, *, words: Optional[PathLike] = None) -> int:
    """Write CoNLL-2005 props (and, with ``words``, the parallel words file); returns sentences.

    The first column holds, on each predicate's row, its lemma as CoNLL-2005 props files do (see
    :func:`predicate_lemma`), ``-`` elsewhere. ``srl-eval.pl`` pairs propositions by position and
    counts all arguments of a predicted proposition whose lemma differs from the gold one as
    missed, so a predicted lemma that is wrong costs its whole proposition there (our own scorer
    pairs by position only). Then one column per frame, in predicate order, with the frame's
    brackets: the V, ``C-``/``R-`` roles as stored. One row per word: whitespace tokens have no
    row, and a sentence of whitespace alone no block (see the module docstring).
    """
    n = 0
    with _open_out(path) as f, (_open_out(words) if words is not None else _Null()) as w:
        for doc in docs:
            frames = doc._.srl
            for sent in word_sentences(doc):
                n += 1
                keep = [i for i, token in enumerate(sent) if not token.is_space]
                own = [fr for fr in frames if sent.start <= fr.predicate.i < sent.end]
                columns = [bio_to_cells(_words_only(fr.to_bio(), keep)) for fr in own]
                targets = {fr.predicate.i - sent.start: predicate_lemma(fr) for fr in own}
                for row, i in enumerate(keep):
                    target = _props_cell(targets[i]) if i in targets else "-"
                    f.write("\t".join([target, *(col[row] for col in columns)]) + "\n")
                    w.write(_props_cell(sent[i].text) + "\n")
                f.write("\n")
                w.write("\n")
    return n


def _words_only(tags: Sequence[str], keep: Sequence[int]) -> List[str]:
    """BIO tags at the positions ``keep``; an I- tag whose B- was left out becomes the B-."""
    out: List[str] = []
    for i in keep:
        tag = tags[i]
        if tag.startswith("I-") and (not out or out[-1] == "O" or out[-1][2:] != tag[2:]):
            tag = "B-" + tag[2:]
        out.append(tag)
    return out


def _props_cell(text: str) -> str:
    return _WHITESPACE_RUN.sub("_", text).strip() or "_"


def predicate_lemma(frame: Frame) -> str:
    """The lemma a CoNLL-2005 props file gives a frame's predicate.

    PropBank's lemma of the sense, the name of the frame file defining the roleset
    (:func:`spacy_lal.doc.propbank.frame_lemma`): ``expand.01`` -> ``expand``, ``pick_up.04`` ->
    ``pick``, ``like.01`` -> ``liken``, ``good.02`` -> ``better``, as the EWT skeletons and
    CoNLL-2005 write it; not the id's lemma (``pick_up``, ``like``, ``good``), which
    ``srl-eval.pl`` would take for another verb and so count every argument of the proposition
    missed. A frame without a sense (read from a props file, or labelled without senses) falls
    back on the token's lemma, then on its lowercased text.
    """
    if frame.sense:
        from ..doc.propbank import frame_lemma  # the inventory is read on first use, not at import

        return frame_lemma(frame.sense)
    return frame.predicate.lemma_ or frame.predicate.text.lower()


def _form(text: str) -> str:
    """A FORM or LEMMA as CoNLL-U holds it (UD's validator, level 1): NFC, unpaired surrogates
    as "?" (U+FFFD is refused as a sign of a decoding error), each whitespace run as one space,
    none at the ends; empty means "_". Other control characters are kept (the validator allows
    them)."""
    text = unicodedata.normalize("NFC", _SURROGATE.sub("?", text))
    return _WHITESPACE_RUN.sub(" ", text).strip() or "_"


def _column(text: str) -> str:
    """A column without whitespace (UPOS, XPOS, FEATS, DEPREL); empty means "_"."""
    return _WHITESPACE_RUN.sub("_", _SURROGATE.sub("?", text)) or "_"


def _comment_value(text: str) -> str:
    """An id in a ``# sent_id`` / ``# newdoc id`` comment: one run of non-whitespace, no slash."""
    return _WHITESPACE_RUN.sub("_", _SURROGATE.sub("?", text)).replace("/", "_") or "_"


def _open_out(path: PathLike) -> TextIO:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return open(path, "w", encoding="utf8", errors="replace", newline="\n")


class _Null:
    """A writer that discards, for the optional words file."""

    def __enter__(self) -> "_Null":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def write(self, text: str) -> int:
        return len(text)
