"""PropBank's frame-file examples as partially annotated SRL Docs (``convert propbank-examples``).

Each ``<roleset>`` of a frame file (``propbank-frames/frames/*.xml``, CC BY-SA 4.0) may hold
``<example name src>`` elements: a ``<text>`` (space-separated tokens, some of them traces such
as ``*PRO*`` or ``[*-1]``) and a ``<propbank>`` with one ``<rel relloc="2">`` (the predicate;
``relloc`` lists its token indices, several for "acting out") and ``<arg type start end>``
elements (token indices into the text, and the argument's text; ``start="?"`` for a trace).

Each usable example becomes one Doc of one sentence: the text (traces left out, PTB bracket
tokens ``-LRB-`` ... and quotes ``````/``''`` written as ``(`` ... ``"``) tokenized by
``spacy-lal.EWTTokenizer.v1``; one frame, stored with :func:`spacy_lal.doc.extensions.set_frames`:
sense = the roleset id, the predicate the rel's first token (the rel's further contiguous
tokens a "V" argument, as the EWT corpus keeps "picked up"), the arguments as token spans; and
``doc.user_data[PARTIAL_SRL] = True`` (only that predicate is annotated: ``lal_srl`` trains on it
alone), with ``sent_id`` (``FILE#ROLESET#N``), ``doc_id`` (the roleset id), ``src`` and
``example`` (the example's name).

An argument is placed by its token indices when the words there are its text (case aside), else by its text
alone, where the sentence holds it once or the indices point near one of its places. Left out,
each counted under its reason (:data:`REASONS`): examples whose ``src`` names Wall Street
Journal / Penn Treebank (also NomBank, annotated on the WSJ, and bare treebank file numbers),
Brown, OntoNotes, or EWT text (the evaluation data: those texts are in the treebanks the project
trains and scores on); examples with empty text, without a ``<rel>``, or whose predicate is
several words apart; examples with an argument that cannot be located in the tokenized sentence
(or does not start and end on a token boundary); examples whose frame is invalid (overlapping
arguments, an argument covering the predicate); repeats of an example already kept (same
roleset, text and annotation). A trace argument (no words) is dropped from its frame, the example
kept. Frame files that are not well-formed XML only inside some examples (PropBank 3.4:
``check.xml``, ``rend.xml``) are read without those examples (reason "malformed example"); any
other malformed file stops the conversion with a :class:`CorpusFormatError` naming the file and
line.
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, DocBin

from ..doc.extensions import PARTIAL_SRL, set_frames
from ..doc.frames import FrameData
from ._common import CorpusFormatError, PathLike

__all__ = ["REASONS", "ExampleStats", "held_out_source", "read_frame_examples", "write_propbank_examples"]

SOURCE = "https://github.com/propbank/propbank-frames"
REVISION = "c66e0ccf28b53f00051b187db83e937b5bee2e32"
LICENSE = "CC BY-SA 4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by-sa/4.0/"

# Why an example was left out, in the order the table prints them.
REASONS = (
    "source: WSJ / Penn Treebank",
    "source: Brown",
    "source: OntoNotes",
    "source: EWT",
    "malformed example",
    "empty text",
    "no predicate",
    "predicate not contiguous",
    "predicate not located",
    "argument not located",
    "invalid frame",
    "duplicate",
)
# src attributes naming text of the treebanks (checked in this order; see docs/data.md for the
# values PropBank 3.4 has). "ON ..." is OntoNotes in capitals only: "on" occurs in free text.
_HELD_OUT: Tuple[Tuple[str, "re.Pattern[str]"], ...] = (
    ("source: WSJ / Penn Treebank", re.compile(
        r"wsj|wall street|penn\b|ptb|treebank|nombank|^\s*(nouns[- ]?)?\d{4,5}\s*$", re.I)),
    ("source: Brown", re.compile(r"\bbrown\b", re.I)),
    ("source: OntoNotes", re.compile(
        r"ontonotes|sinorama|ectb|^on\d|\b(?:nw|bn|bc|mz|wb|tc|pt)/|(?-i:\bON\b)", re.I)),
    ("source: EWT", re.compile(r"^\s*(ewt|etw)\s*$", re.I)),
)
_EXAMPLE = re.compile(r"<example\b.*?</example>", re.S)
_TRACE = re.compile(r"^\[?\*.*\*?\]*(-\d+)*$")  # *PRO*, *trace*-1, [*-2], [*T*-1], [*0*]-1, *
_PTB_TOKENS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
               "``": '"', "''": '"'}


def held_out_source(src: Optional[str]) -> Optional[str]:
    """The reason an example with this ``src`` is left out (a treebank's text), or None."""
    for reason, pattern in _HELD_OUT:
        if src and pattern.search(src):
            return reason
    return None


@dataclass
class ExampleStats:
    """What a conversion read and kept; ``sources`` counts every example's ``src`` value."""

    files: int = 0
    examples: int = 0
    kept: int = 0
    words: int = 0
    arguments: int = 0
    trace_arguments: int = 0  # dropped from their frames (the example kept)
    left_out: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    repaired_files: List[str] = field(default_factory=list)

    def table(self) -> str:
        rows = [("frame files", self.files), ("examples", self.examples)]
        rows += [(f"  left out: {reason}", self.left_out[reason]) for reason in REASONS]
        rows += [("kept (Docs written)", self.kept), ("  words", self.words), ("  arguments", self.arguments),
                 ("  trace arguments dropped", self.trace_arguments)]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name.ljust(width)}  {value:>7,}" for name, value in rows)


class _Skip(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _parse(path: Path, stats: ExampleStats) -> ElementTree.Element:
    """The file's root; a file broken only inside ``<example>`` elements is read without them."""
    try:
        return ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        line = error.position[0] if getattr(error, "position", None) else None
        failure = CorpusFormatError(path, line, f"malformed frame file: {error}")
    text = path.read_text(encoding="utf8")
    broken = 0

    def keep_if_parses(match: "re.Match[str]") -> str:
        nonlocal broken
        try:
            ElementTree.fromstring(match.group(0))
            return match.group(0)
        except ElementTree.ParseError:
            broken += 1
            return ""

    try:
        root = ElementTree.fromstring(_EXAMPLE.sub(keep_if_parses, text))
    except ElementTree.ParseError:
        raise failure from None
    if not broken:
        raise failure
    stats.left_out["malformed example"] += broken
    stats.examples += broken
    stats.repaired_files.append(path.name)
    return root


class _Sentence:
    """An example's text: its space-separated tokens (traces left out, PTB tokens as text), the
    character offset of each in the Doc's text (None for a trace)."""

    def __init__(self, text: str) -> None:
        self.tokens = text.split()
        self.offsets: List[Optional[int]] = []
        words: List[str] = []
        position = 0
        for token in self.tokens:
            if _TRACE.match(token):
                self.offsets.append(None)
                continue
            word = _PTB_TOKENS.get(token, token)
            self.offsets.append(position)
            words.append(word)
            position += len(word) + 1
        self.text = " ".join(words)

    def words(self, start: int, end: int) -> List[str]:
        return [_PTB_TOKENS.get(t, t) for t in self.tokens[start:end + 1] if not _TRACE.match(t)]

    def char_span(self, start: int, end: int) -> Optional[Tuple[int, int]]:
        """Characters of the words of tokens ``start..end`` (inclusive); None if only traces."""
        inside = [(i, self.offsets[i]) for i in range(start, end + 1) if self.offsets[i] is not None]
        if not inside:
            return None
        first, last = inside[0][1], inside[-1]
        return first, last[1] + len(_PTB_TOKENS.get(self.tokens[last[0]], self.tokens[last[0]]))  # type: ignore[operator]

    def find(self, words: Sequence[str], near: Optional[int]) -> Optional[Tuple[int, int]]:
        """Characters of ``words`` in the text: its one place, or the place nearest to the
        character offset ``near``; None when absent, or ambiguous without ``near``."""
        needle = " ".join(words)
        places = [m.start() for m in re.finditer(r"(?<!\S)" + re.escape(needle) + r"(?!\S)", self.text)]
        if not places or (len(places) > 1 and near is None):
            return None
        best = min(places, key=lambda p: abs(p - near)) if near is not None else places[0]
        return best, best + len(needle)


def _index(value: Optional[str], n: int) -> Optional[int]:
    value = (value or "").strip()
    return int(value) if value.isdigit() and int(value) < n else None


def _example_doc(example: ElementTree.Element, roleset_id: str, tokenize: Callable[[str], Doc],
                 stats: ExampleStats) -> Doc:
    text = " ".join((example.findtext("text") or "").split())
    if not text:
        raise _Skip("empty text")
    sentence = _Sentence(text)
    if not sentence.text:
        raise _Skip("empty text")
    rel = example.find("propbank/rel")
    if rel is None:
        raise _Skip("no predicate")
    n = len(sentence.tokens)
    locs = [_index(v, n) for v in (rel.get("relloc") or "").split()]
    doc = tokenize(sentence.text)
    if locs and None not in locs:
        locs = sorted(set(locs))  # type: ignore[type-var]
        if any(b != a + 1 for a, b in zip(locs, locs[1:])):
            raise _Skip("predicate not contiguous")
        chars = sentence.char_span(locs[0], locs[-1])  # type: ignore[arg-type]
    else:
        words = [_PTB_TOKENS.get(w, w) for w in (rel.text or "").split() if not _TRACE.match(w)]
        chars = sentence.find(words, None) if words else None
    span = doc.char_span(*chars) if chars else None
    if span is None:
        raise _Skip("predicate not located")
    predicate = span.start
    arguments = [(span.start, span.end, "V")] if len(span) > 1 else []
    traces = 0
    for arg in example.iterfind("propbank/arg"):
        words = [_PTB_TOKENS.get(w, w) for w in (arg.text or "").split() if not _TRACE.match(w)]
        if not words:
            traces += 1
            continue
        start, end = _index(arg.get("start"), n), _index(arg.get("end"), n)
        chars = None
        if (start is not None and end is not None and start <= end
                and [w.lower() for w in sentence.words(start, end)] == [w.lower() for w in words]):
            chars = sentence.char_span(start, end)
        if chars is None:
            near = sentence.offsets[start] if start is not None else None
            chars = sentence.find(words, near)
        arg_span = doc.char_span(*chars) if chars else None
        if arg_span is None:
            raise _Skip("argument not located")
        arguments.append((arg_span.start, arg_span.end, (arg.get("type") or "").strip()))
    for token in doc:
        token.is_sent_start = token.i == 0
    try:
        set_frames(doc, [FrameData(predicate, roleset_id, tuple(arguments))])
    except ValueError:
        raise _Skip("invalid frame") from None
    stats.trace_arguments += traces
    stats.arguments += sum(1 for argument in arguments if argument[2] != "V")
    return doc


def read_frame_examples(path: PathLike, tokenize: Callable[[str], Doc], stats: Optional[ExampleStats] = None,
                        seen: Optional[set] = None) -> Iterator[Doc]:
    """The usable examples of one frame file as Docs (see the module docstring), counting what
    was read and left out in ``stats``; ``seen`` (shared across files) holds the kept examples'
    keys, to leave repeats out."""
    path = Path(path)
    stats = stats if stats is not None else ExampleStats()
    seen = seen if seen is not None else set()
    root = _parse(path, stats)
    if root.tag != "frameset":
        raise CorpusFormatError(path, None, f"expected a <frameset> root element, found <{root.tag}>")
    stats.files += 1
    for roleset in root.iter("roleset"):
        roleset_id = (roleset.get("id") or "").strip()
        for number, example in enumerate(roleset.iter("example"), 1):
            stats.examples += 1
            src = (example.get("src") or "").strip()
            stats.sources[src] += 1
            try:
                if not roleset_id:
                    raise CorpusFormatError(path, None, "an <example> in a roleset without an id")
                reason = held_out_source(src)
                if reason:
                    raise _Skip(reason)
                doc = _example_doc(example, roleset_id, tokenize, stats)
            except _Skip as skip:
                stats.left_out[skip.reason] += 1
                continue
            frame = doc._.srl[0].data
            key = (roleset_id, doc.text, frame)
            if key in seen:
                stats.left_out["duplicate"] += 1
                continue
            seen.add(key)
            doc.user_data.update({
                PARTIAL_SRL: True, "sent_id": f"{path.name}#{roleset_id}#{number}", "doc_id": roleset_id,
                "src": src, "example": example.get("name") or "",
            })
            stats.kept += 1
            stats.words += len(doc)
            yield doc


def write_propbank_examples(folder: PathLike, output: PathLike, card: Optional[PathLike] = None,
                            lang: str = "en") -> ExampleStats:
    """Convert every ``*.xml`` of ``folder`` (name order) into the DocBin ``output`` and write its
    corpus card (JSON; default ``output`` with ``.card.json`` for its suffix)."""
    import spacy

    from ..tokenizer import ewt_tokenizer

    folder, output = Path(folder), Path(output)
    paths = sorted(folder.glob("*.xml"))
    if not paths:
        raise FileNotFoundError(f"no frame files (*.xml) in {folder}")
    nlp = spacy.blank(lang)
    tokenize = ewt_tokenizer(nlp)
    stats = ExampleStats()
    seen: set = set()
    docbin = DocBin(store_user_data=True)
    for path in paths:
        for doc in read_frame_examples(path, tokenize, stats, seen):
            docbin.add(doc)
    output.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(output)
    card_path = Path(card) if card is not None else output.with_suffix(".card.json")
    summary = {
        "corpus": output.name,
        "built_from": str(folder),
        "source": SOURCE,
        "revision": REVISION,
        "license": LICENSE,
        "licenseurl": LICENSE_URL,
        "annotation": "one predicate per Doc (doc.user_data['lal_srl_partial']): the example's roleset and roles",
        "tokenizer": "spacy-lal.EWTTokenizer.v1",
        "files": stats.files,
        "repaired_files": stats.repaired_files,
        "examples": stats.examples,
        "docs": stats.kept,
        "words": stats.words,
        "arguments": stats.arguments,
        "trace_arguments_dropped": stats.trace_arguments,
        "left_out": {reason: stats.left_out[reason] for reason in REASONS},
        "sources": dict(stats.sources.most_common()),
    }
    card_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    return stats
