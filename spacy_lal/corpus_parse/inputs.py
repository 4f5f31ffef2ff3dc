"""The documents of a corpus: where they are and how each is read, with a stable id.

An input is a file, a directory or a glob (or a list of them); each resolves to *sources*, and
each source reads as a stream of :class:`Record` in a fixed order, so that a rerun cuts the
same shards:

- ``*.jsonl``: one JSON object a line with a string ``text``; ``id`` (if present) is the
  document's id, every other field is kept as metadata. Blank lines are skipped.
- ``*.spacy``: a DocBin; a Doc's id is ``user_data["id"]`` or ``["sent_id"]`` if set. A file that
  is no DocBin raises CorpusFormatError.
- any other file: plain text, one document a line (lines end at a line feed; blank lines
  skipped), or with ``text_unit="file"`` the whole file is one document.

A record that cannot be parsed is still read, as a *bad* record (:attr:`Record.error` says why;
no text): a line that is not UTF-8 (or a whole-file document that is not), a JSONL line that is
not JSON, or not an object with a string ``text``, or whose strings hold a lone surrogate
(``"\\ud800"``: JSON allows it, UTF-8 cannot hold it). The driver lists bad records as failed and
parses the others, so one bad line does not stop a corpus.
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
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ..corpora._common import CorpusFormatError, PathLike

__all__ = ["CorpusFormatError", "Record", "Source", "TEXT_UNITS", "find_sources"]

TEXT_UNITS = ("line", "file")
_SHARD_SUFFIXES = (".jsonl", ".spacy")


@dataclass
class Record:
    """One input document: its id, its text (or, from a DocBin, the Doc) and its metadata, and
    where it is: ``file`` (the path as given) and ``line`` (1-based: the line of a one-document-a-
    line file, the Doc's position in a DocBin, None for a whole-file document but the line of the
    first byte that is not UTF-8 in one that is not). A bad record has ``error`` (why it cannot be
    parsed) and neither text nor Doc."""

    id: str
    text: Optional[str] = None
    doc: Any = None  # spacy.tokens.Doc for DocBin input
    meta: Dict[str, Any] = field(default_factory=dict)
    file: str = ""
    line: Optional[int] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class Source:
    """A sequence of documents read in a fixed order: one file, or a directory's text files."""

    name: str  # unique among the sources of a run; the stem of its output shards
    kind: str  # "lines" | "jsonl" | "docbin" | "files"
    paths: tuple
    labels: tuple  # each path relative to the inputs' root, for ids

    def records(self) -> Iterator[Record]:
        """The documents, in order, bad records included (:attr:`Record.error`); a file that is no
        DocBin raises :class:`CorpusFormatError`."""
        reader = {"lines": _read_lines, "jsonl": _read_jsonl, "docbin": _read_docbin, "files": _read_files}
        return reader[self.kind](self)

    def index(self) -> Iterator[Tuple[str, str, Optional[int], bool]]:
        """(id, file, line, bad) of each record of :meth:`records`, in order (see :class:`Record`);
        a DocBin's ids are read without making its Docs."""
        if self.kind != "docbin":
            return ((r.id, r.file, r.line, r.error is not None) for r in self.records())
        file = str(self.paths[0])
        return ((doc_id, file, number, False) for doc_id, number in _docbin_ids(self))

    def count(self) -> int:
        """How many records :meth:`records` yields, bad ones included."""
        return sum(1 for _ in self.index())

    def place(self, file: str, line: Optional[int]) -> str:
        """Where a record is, for messages: ``file:line``, ``file (Doc n)`` in a DocBin, or the file."""
        if line is None:
            return file
        return f"{file} (Doc {line})" if self.kind == "docbin" else f"{file}:{line}"


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
    file = str(path)
    for number, text, error in _utf8_lines(path):
        if error is not None:
            yield Record(f"{label}:{number}", file=file, line=number, error=error)
            continue
        if text.endswith("\r"):
            text = text[:-1]
        if text.strip():
            yield Record(f"{label}:{number}", text, file=file, line=number)


def _utf8_lines(path: PathLike) -> Iterator[Tuple[int, str, Optional[str]]]:
    """(line number, text without its line feed, None) of each line of a UTF-8 file (a byte-order
    mark at its start dropped); for a line that is not UTF-8, (line number, its text with U+FFFD
    for the bytes that are not, why)."""
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                yield number, raw.decode("utf8").rstrip("\n"), None
            except UnicodeDecodeError as error:
                yield number, raw.decode("utf8", "replace").rstrip("\n"), _not_utf8(raw, error, "of the line")


def _not_utf8(raw: bytes, error: UnicodeDecodeError, where: str) -> str:
    return f"not UTF-8 at byte {error.start + 1} {where} ({raw[error.start:error.start + 1]!r}); give UTF-8 text"


def _read_jsonl(source: Source) -> Iterator[Record]:
    path, label = source.paths[0], source.labels[0]
    file = str(path)
    for number, line, error in _utf8_lines(path):
        default_id = f"{label}:{number}"
        if error is not None:
            yield Record(_id_in(line) or default_id, file=file, line=number, error=error)
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as bad:
            error = f"not valid JSON ({bad.msg} at character {bad.pos + 1})"
            yield Record(default_id, file=file, line=number, error=error)
            continue
        doc_id = str(obj["id"]) if isinstance(obj, dict) and obj.get("id") is not None else default_id
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            got = type(obj.get("text")).__name__ if isinstance(obj, dict) and "text" in obj else "no 'text'"
            error = f"expected a JSON object with a string field 'text', got {got}"
        elif "\\u" in line:  # only a \u escape can make a lone surrogate: the line is UTF-8
            error = _lone_surrogate(obj)
        if error is not None:
            yield Record(doc_id, file=file, line=number, error=error)
            continue
        meta = {k: v for k, v in obj.items() if k not in ("text", "id")}
        yield Record(doc_id, obj["text"], meta=meta, file=file, line=number)


def _id_in(line: str) -> Optional[str]:
    """The id of a JSONL line that is not UTF-8 (read with U+FFFD for its bad bytes), if it can be
    read and the bad bytes are not in it."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    doc_id = str(obj["id"]) if isinstance(obj, dict) and obj.get("id") is not None else None
    return doc_id if doc_id is not None and "\ufffd" not in doc_id else None


def _lone_surrogate(value: Any, path: str = "") -> Optional[str]:
    """Why a JSON value cannot be written as UTF-8, or None: a lone surrogate in one of its
    strings (the field, as ``meta.tags[2]``, and the character)."""
    if isinstance(value, str):
        try:
            value.encode("utf8")
        except UnicodeEncodeError as error:
            return (
                f"{f'field {path!r}' if path else 'a key'} holds a lone surrogate U+{ord(value[error.start]):04X} "
                f"at character {error.start + 1} (a \\u escape without its pair): not Unicode text"
            )
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key) or _lone_surrogate(item, f"{path}.{key}" if path else key)
            if found:
                return found
    elif isinstance(value, list):
        for k, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{k}]")
            if found:
                return found
    return None


def _load_docbin(path: Path) -> Any:
    from spacy.tokens import DocBin

    try:
        return DocBin(store_user_data=True).from_disk(path)
    except ValueError as error:  # spaCy's E1014 for anything that is not a DocBin
        raise CorpusFormatError(path, None, f"not a .spacy DocBin ({error})") from None


def _doc_id(user_data: Dict[Any, Any], label: str, number: int) -> str:
    doc_id = user_data.get("id", user_data.get("sent_id"))
    return str(doc_id) if doc_id is not None else f"{label}:{number}"


def _read_docbin(source: Source) -> Iterator[Record]:
    from spacy.vocab import Vocab

    path, label = source.paths[0], source.labels[0]
    file = str(path)
    for number, doc in enumerate(_load_docbin(path).get_docs(Vocab()), start=1):
        yield Record(_doc_id(doc.user_data, label, number), doc=doc, file=file, line=number)


def _docbin_ids(source: Source) -> Iterator[Tuple[str, int]]:
    """(id, number) of each Doc of a DocBin, read from its user data as ``get_docs`` reads it."""
    import srsly

    path, label = source.paths[0], source.labels[0]
    docbin = _load_docbin(path)
    for number in range(1, len(docbin) + 1):
        packed = docbin.user_data[number - 1] if number - 1 < len(docbin.user_data) else None
        user_data = srsly.msgpack_loads(packed, use_list=False) if packed is not None else {}
        yield _doc_id(user_data, label, number), number


def _read_files(source: Source) -> Iterator[Record]:
    for path, label in zip(source.paths, source.labels):
        raw = Path(path).read_bytes()
        try:
            yield Record(label, raw.decode("utf8"), file=str(path))
        except UnicodeDecodeError as error:
            line = raw.count(b"\n", 0, error.start) + 1
            yield Record(label, file=str(path), line=line, error=_not_utf8(raw, error, "of the file"))
