"""The documents of a corpus: where they are and how each is read, with a stable id.

An input is a file, a directory or a glob (or a list of them); each resolves to *sources*, and
each source reads as a stream of :class:`Record` in a fixed order, so that a rerun cuts the
same shards:

- ``*.jsonl``: one JSON object a line with a string ``text``; ``id`` (if present) is the
  document's id, every other field is kept as metadata. Blank lines are skipped.
- ``*.spacy``: a DocBin; a Doc's id is ``user_data["id"]`` or ``["sent_id"]`` if set.
- any other file: plain text, one document a line (lines end at a line feed; blank lines
  skipped), or with ``text_unit="file"`` the whole file is one document. Input must be UTF-8:
  a line that is not raises CorpusFormatError naming the file, the line and the byte.
- a directory: its ``.jsonl`` and ``.spacy`` files (recursively, sorted) are sources of their own;
  its ``.txt`` files are one document each (``text_unit="file"``, the default for directories),
  read as one source named after the directory, or one document a line with ``text_unit="line"``.

Ids default to ``<relative path>:<line>`` (``<relative path>:<n>`` for the n-th Doc of a DocBin,
the relative path for a whole-file document), relative to the deepest directory holding all inputs.
"""
from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from ..corpora._common import CorpusFormatError, PathLike

__all__ = ["CorpusFormatError", "Record", "Source", "TEXT_UNITS", "find_sources"]

TEXT_UNITS = ("line", "file")
_SHARD_SUFFIXES = (".jsonl", ".spacy")


@dataclass
class Record:
    """One input document: its id, its text (or, from a DocBin, the Doc) and its metadata."""

    id: str
    text: Optional[str] = None
    doc: Any = None  # spacy.tokens.Doc for DocBin input
    meta: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Source:
    """A sequence of documents read in a fixed order: one file, or a directory's text files."""

    name: str  # unique among the sources of a run; the stem of its output shards
    kind: str  # "lines" | "jsonl" | "docbin" | "files"
    paths: tuple
    labels: tuple  # each path relative to the inputs' root, for ids

    def records(self) -> Iterator[Record]:
        """The documents, in order; malformed input raises :class:`CorpusFormatError`."""
        reader = {"lines": _read_lines, "jsonl": _read_jsonl, "docbin": _read_docbin, "files": _read_files}
        return reader[self.kind](self)

    def count(self) -> int:
        """How many documents :meth:`records` yields (reads, and so validates, the whole source)."""
        if self.kind == "docbin":
            return len(_load_docbin(self.paths[0]))
        return sum(1 for _ in self.records())


def find_sources(inputs: Union[PathLike, Sequence[PathLike]], text_unit: Optional[str] = None) -> List[Source]:
    """Resolve files, directories and globs to sources (see the module docstring).

    ``text_unit`` ("line" or "file") says how a plain text file holds documents; by default a
    text file named directly or by a glob holds one a line, a directory's ``.txt`` files one each.
    """
    if text_unit not in (None, *TEXT_UNITS):
        raise ValueError(f"text_unit must be one of {TEXT_UNITS}, not {text_unit!r}")
    specs = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    if not specs:
        raise ValueError("no input given")
    # (path, how its plain text holds documents, the directory it was found in or None)
    found: List[tuple] = []
    for spec in specs:
        matches = sorted(glob.glob(str(spec), recursive=True)) if glob.has_magic(str(spec)) else [str(spec)]
        if not matches:
            raise FileNotFoundError(f"no input matches {str(spec)!r}")
        for match in map(Path, matches):
            if match.is_dir():
                found += [(p, text_unit or "file", match) for p in _corpus_files(match)]
            elif match.is_file():
                found.append((match, text_unit or "line", None))
            else:
                raise FileNotFoundError(f"no such input file or directory: {str(match)!r}")
    if not found:
        raise FileNotFoundError(f"no .txt, .jsonl or .spacy files in {[str(s) for s in specs]}")
    root = Path(os.path.commonpath([p.resolve().parent for p, _, _ in found]))
    sources: List[Source] = []
    whole_files: Dict[Path, List[Path]] = {}
    for path, unit, directory in found:
        label = path.resolve().relative_to(root).as_posix()
        if path.suffix == ".jsonl":
            sources.append(Source(_stem(label), "jsonl", (path,), (label,)))
        elif path.suffix == ".spacy":
            sources.append(Source(_stem(label), "docbin", (path,), (label,)))
        elif unit == "file":
            whole_files.setdefault(directory or path.parent, []).append(path)
        else:
            sources.append(Source(_stem(label), "lines", (path,), (label,)))
    for directory, paths in whole_files.items():
        labels = tuple(p.resolve().relative_to(root).as_posix() for p in paths)
        name = _stem(directory.resolve().relative_to(root).as_posix() if directory.resolve() != root else "")
        sources.append(Source(name or directory.resolve().name or "texts", "files", tuple(paths), labels))
    names = [s.name for s in sources]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise ValueError(f"two inputs would write the same output shards {clashes}; rename one of them")
    return sources


def _corpus_files(directory: Path) -> List[Path]:
    wanted = (*_SHARD_SUFFIXES, ".txt")
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in wanted and not _hidden(p, directory))


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _stem(label: str) -> str:
    """An output shard stem from a relative path: suffix dropped, folders joined by ``__``."""
    path = Path(label)
    return "__".join((*path.parent.parts, path.stem)) if label else ""


def _read_lines(source: Source) -> Iterator[Record]:
    """One document a line; lines end at a line feed only (a carriage return before it is
    dropped, any other, like U+2028, is part of the text), blank lines skipped."""
    path, label = source.paths[0], source.labels[0]
    for number, text in _utf8_lines(path):
        if text.endswith("\r"):
            text = text[:-1]
        if text.strip():
            yield Record(f"{label}:{number}", text)


def _utf8_lines(path: PathLike) -> Iterator[tuple]:
    """(line number, text without its line feed) of each line of a UTF-8 file (a byte-order mark
    at its start dropped); a line that is not UTF-8 raises CorpusFormatError naming it."""
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            yield number, _decode(raw, path, number).rstrip("\n")


def _decode(raw: bytes, path: PathLike, line: Optional[int]) -> str:
    try:
        return raw.decode("utf8")
    except UnicodeDecodeError as error:
        where = "of the line" if line is not None else "of the file"
        raise CorpusFormatError(
            path, line, f"not UTF-8 at byte {error.start + 1} {where} ({raw[error.start:error.start + 1]!r}); give UTF-8 text"
        ) from None


def _read_jsonl(source: Source) -> Iterator[Record]:
    path, label = source.paths[0], source.labels[0]
    for number, line in _utf8_lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            where = f"at character {error.pos + 1}"
            raise CorpusFormatError(path, number, f"not valid JSON ({error.msg} {where})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            got = type(obj.get("text")).__name__ if isinstance(obj, dict) and "text" in obj else "no 'text'"
            raise CorpusFormatError(path, number, f"expected a JSON object with a string field 'text', got {got}")
        meta = {k: v for k, v in obj.items() if k not in ("text", "id")}
        doc_id = str(obj["id"]) if obj.get("id") is not None else f"{label}:{number}"
        yield Record(doc_id, obj["text"], meta=meta)


def _load_docbin(path: Path) -> Any:
    from spacy.tokens import DocBin

    try:
        return DocBin(store_user_data=True).from_disk(path)
    except ValueError as error:  # spaCy's E1014 for anything that is not a DocBin
        raise CorpusFormatError(path, None, f"not a .spacy DocBin ({error})") from None


def _read_docbin(source: Source) -> Iterator[Record]:
    from spacy.vocab import Vocab

    path, label = source.paths[0], source.labels[0]
    for number, doc in enumerate(_load_docbin(path).get_docs(Vocab()), start=1):
        doc_id = doc.user_data.get("id", doc.user_data.get("sent_id"))
        yield Record(str(doc_id) if doc_id is not None else f"{label}:{number}", doc=doc)


def _read_files(source: Source) -> Iterator[Record]:
    for path, label in zip(source.paths, source.labels):
        yield Record(label, _decode(Path(path).read_bytes(), path, None))
