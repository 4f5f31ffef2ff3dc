"""Write Docs (gold or predicted) in the formats of the official scorers.

- :func:`write_ptb`: one tree per line for EVALB, from the stored trees (``sent._.parse_string``);
  words escaped, no TOP wrapper.
- :func:`write_conllu`: CoNLL-U for the CoNLL 2018 UD scorer. A Doc holds words; the words that
  make one surface token get a range line ``n-m FORM _ _ _ _ _ _ _ MISC`` before them: the
  ranges read from CoNLL-U (``doc.user_data["multiword_tokens"]``, see :mod:`.conllu`), else
  EWT's groups (``do`` + ``n't`` written ``don't``, :func:`spacy_lal.tokenizer.multiword_token_spans`).
  ``SpaceAfter=No`` goes on the range line, not on its words (the UD format). DEPS is ``_``;
  MISC holds only ``SpaceAfter=No``.
- :func:`write_conll05`: CoNLL-2005 props for ``srl-eval.pl``, the predicate's lemma in the first
  column.

All writers go sentence by sentence (``doc.sents`` when the Doc has sentence boundaries, else
the whole Doc) and never drop one: gold and predicted files must stay aligned line for line, so a
sentence lacking the annotation is written in a neutral form and counted in a warning.
"""
from __future__ import annotations

import re
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple

from spacy.tokens import Doc, Span

from ..extensions import NotAConstituentError
from ..srl import Frame
from ..tokenizer import multiword_token_spans
from ..tree import UNTAGGED, Tree
from ._common import PathLike
from .conllu import MULTIWORD_TOKENS

__all__ = [
    "FORMATS",
    "bio_to_cells",
    "multiword_ranges",
    "predicate_lemma",
    "sentences",
    "to_text",
    "write_conll05",
    "write_conllu",
    "write_ptb",
]

FORMATS = ("ptb", "conllu", "conll05")
_WHITESPACE = re.compile(r"\s")


def sentences(doc: Doc) -> Iterator[Span]:
    """The sentences of a Doc; the whole Doc (if not empty) when it has no boundaries."""
    if doc.has_annotation("SENT_START") or doc.has_annotation("DEP"):
        yield from doc.sents
    elif len(doc):
        yield doc[:]


def write_ptb(docs: Iterable[Doc], path: PathLike) -> int:
    """Write one bracketed tree per sentence; returns the number of sentences.

    A sentence without a stored tree is written flat, ``(S (TAG word) ...)``, so that the file
    stays aligned with the gold file (EVALB compares line by line), and counted in a warning.
    """
    n = missing = 0
    with _open_out(path) as f:
        for doc in docs:
            for sent in sentences(doc):
                try:
                    line = sent._.parse_string
                except NotAConstituentError:
                    missing += 1
                    leaves = [Tree(token.tag_ or UNTAGGED, word=token.text) for token in sent if not token.is_space]
                    line = Tree("S", leaves).to_string()
                f.write(line + "\n")
                n += 1
    if missing:
        warnings.warn(
            f"write_ptb: {missing} of {n} sentences had no constituency tree (not parsed by lal_parser) "
            "and were written flat, (S (TAG word) ...), to keep the file aligned with the gold file",
            stacklevel=2,
        )
    return n


def write_conllu(docs: Iterable[Doc], path: PathLike, *, multiword_tokens: bool = True) -> int:
    """Write the Docs as CoNLL-U sentences; returns the number of sentences.

    ``# newdoc id`` / ``# sent_id`` come from ``doc.user_data`` (``doc_id``, ``sent_id``; a Doc
    of several sentences numbers them ``<sent_id>-<k>``); without them sentences are numbered.
    Empty annotation is written ``_``; a Doc without dependency annotation gets ``_`` heads (and
    a warning: the UD scorer needs heads). Multi-word tokens get range lines (see the module
    docstring); ``multiword_tokens=False`` writes words only, each with its own ``SpaceAfter``.
    """
    n = no_deps = 0
    doc_id = None
    with _open_out(path) as f:
        for doc in docs:
            if doc.user_data.get("doc_id") not in (None, doc_id):
                doc_id = doc.user_data["doc_id"]
                f.write(f"# newdoc id = {doc_id}\n")
            has_deps = doc.has_annotation("DEP")
            ranges = multiword_ranges(doc) if multiword_tokens else {}
            sents = list(sentences(doc))
            for k, sent in enumerate(sents):
                n += 1
                sent_id = doc.user_data.get("sent_id")
                if sent_id is None:
                    sent_id = str(n)
                elif len(sents) > 1:
                    sent_id = f"{sent_id}-{k + 1}"
                sent_ranges = {i: r for i, r in ranges.items() if sent.start <= i and r[0] <= sent.end}
                f.write(f"# sent_id = {sent_id}\n# text = {_one_line(_surface_text(sent, sent_ranges))}\n")
                no_deps += not has_deps
                range_end = 0  # the end of the multi-word token being written
                for token in sent:
                    if token.i in sent_ranges:
                        range_end, form = sent_ranges[token.i]
                        ids = f"{token.i - sent.start + 1}-{range_end - sent.start}"
                        space = "_" if doc[range_end - 1].whitespace_ else "SpaceAfter=No"
                        f.write("\t".join([ids, _field(form)] + ["_"] * 7 + [space]) + "\n")
                    if not has_deps:
                        head, dep = "_", "_"
                    else:
                        head = "0" if token.head.i == token.i else str(token.head.i - sent.start + 1)
                        dep = token.dep_ or "_"
                    misc = "_" if token.whitespace_ or token.i < range_end else "SpaceAfter=No"
                    cols = [
                        str(token.i - sent.start + 1),
                        _field(token.text),
                        _field(token.lemma_),
                        token.pos_ or "_",
                        _field(token.tag_),
                        str(token.morph) or "_",
                        head,
                        dep,
                        "_",
                        misc,
                    ]
                    f.write("\t".join(cols) + "\n")
                f.write("\n")
    if no_deps:
        warnings.warn(f"{path}: {no_deps} of {n} sentences had no dependency annotation (HEAD '_')", stacklevel=2)
    return n


def _surface_text(sent: Span, ranges: Dict[int, Tuple[int, str]]) -> str:
    """The sentence's text, each multi-word token as its surface form (``al`` for ``a`` + ``el``):
    the text the range lines spell."""
    if not ranges:
        return sent.text.strip()
    parts: List[str] = []
    i = sent.start
    while i < sent.end:
        end, form = ranges.get(i, (i + 1, sent.doc[i].text))
        parts.append(form + sent.doc[end - 1].whitespace_)
        i = end
    return "".join(parts).strip()


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
    brackets: the V, ``C-``/``R-`` roles as stored.
    """
    n = 0
    with _open_out(path) as f, (_open_out(words) if words is not None else _Null()) as w:
        for doc in docs:
            frames = doc._.srl
            for sent in sentences(doc):
                n += 1
                own = [fr for fr in frames if sent.start <= fr.predicate.i < sent.end]
                columns = [bio_to_cells(fr.to_bio()) for fr in own]
                targets = {fr.predicate.i - sent.start: predicate_lemma(fr) for fr in own}
                for i, token in enumerate(sent):
                    target = _WHITESPACE.sub("_", targets[i]) if i in targets else "-"
                    f.write("\t".join([target, *(col[i] for col in columns)]) + "\n")
                    w.write(_WHITESPACE.sub("_", token.text) + "\n")
                f.write("\n")
                w.write("\n")
    return n


def predicate_lemma(frame: Frame) -> str:
    """The lemma a CoNLL-2005 props file gives a frame's predicate.

    The lemma part of the roleset (``expand.01`` -> ``expand``, ``pick_up.01`` -> ``pick_up``),
    which is what PropBank lemmatizes the predicate to; a frame without a sense (read from a
    props file, or labelled without senses) falls back on the token's lemma, then on its
    lowercased text.
    """
    if frame.sense:
        lemma, dot, _ = frame.sense.rpartition(".")
        return lemma if dot and lemma else frame.sense
    return frame.predicate.lemma_ or frame.predicate.text.lower()


def to_text(docs: Iterable[Doc], fmt: str) -> str:
    """What the writer of ``fmt`` ("ptb", "conllu" or "conll05" props) writes for ``docs``, as a string."""
    writer = {"ptb": write_ptb, "conllu": write_conllu, "conll05": write_conll05}[fmt]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"out.{fmt}"
        writer(docs, path)
        return path.read_text(encoding="utf8")


def bio_to_cells(tags: Sequence[str]) -> List[str]:
    """BIO tags of one frame -> start-end bracket cells (``B-ARG0 I-ARG0`` -> ``(ARG0*``, ``*)``)."""
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


def _field(text: str) -> str:
    # CoNLL-U fields may contain spaces but no tabs or newlines; empty means "_".
    return text.replace("\t", " ").replace("\n", " ") if text else "_"


def _one_line(text: str) -> str:
    return text.replace("\n", " ")


def _open_out(path: PathLike) -> TextIO:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return open(path, "w", encoding="utf8", newline="\n")


class _Null:
    """A writer that discards, for the optional words file."""

    def __enter__(self) -> "_Null":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def write(self, text: str) -> int:
        return len(text)


def sentence_tree(sent: Any) -> Optional[Tree]:
    """The tree of ``sent``, or None when it has none (not a constituent)."""
    try:
        return Tree.from_string(sent._.parse_string)
    except NotAConstituentError:
        return None


def doc_to_json(doc: Any) -> Dict[str, Any]:
    """A parsed Doc as one JSON object: its text, sentences with their trees, tokens with tags
    and dependencies, and frames (``parse --format json``, ``parse-corpus``'s records)."""
    out: Dict[str, Any] = {"text": doc.text, "sentences": []}
    for sent in sentences(doc):
        tree = sentence_tree(sent)
        out["sentences"].append(
            {
                "start": sent.start,
                "end": sent.end,
                "tree": None if tree is None else tree.to_string(),
            }
        )
    out["tokens"] = [
        {"i": t.i, "text": t.text, "tag": t.tag_, "head": t.head.i, "dep": t.dep_} for t in doc
    ]
    out["frames"] = [
        {
            "predicate": frame.predicate.i,
            "sense": frame.sense,
            "arguments": [
                {"start": arg.start, "end": arg.end, "label": arg.label_, "text": arg.text}
                for arg in frame.arguments
            ],
            "text": str(frame),
        }
        for frame in doc._.srl
    ]
    return out
