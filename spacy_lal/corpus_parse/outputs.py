"""Output shards: parsed Docs in one of five formats, written atomically.

A batch of Docs is formatted where it was parsed (on the worker), so the driver only joins the
pieces of a shard in input order and writes them. Every document keeps its input id:

- ``spacy``: a DocBin (``store_user_data=True``); ``doc.user_data["id"]``, and ``["meta"]`` for
  JSONL metadata.
- ``jsonl``: one object a line, ``{"id", "meta", "text", "sentences", "tokens", "frames"}``
  (the ``parse --format json`` object of :func:`spacy_lal.corpora.parse_output.doc_to_json`).
- ``conllu``: ``# newdoc id`` and ``# sent_id`` from the id (``<id>-<k>`` for the k-th sentence)
  unless the Doc already had them (DocBin input).
- ``ptb`` (one tree a line) and ``conll05`` (props): formats without room for ids, so each shard
  has a ``.ids`` file beside it: one line per document, ``<id>\\t<number of sentences>``, in order
  (the sentences written: a document of whitespace alone has 0, see :mod:`spacy_lal.corpora.export`).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List, Sequence, Union

__all__ = ["FORMATS", "ID_KEY", "META_KEY", "format_docs", "join_payloads", "shard_files", "write_atomic"]

FORMATS = ("spacy", "jsonl", "conllu", "ptb", "conll05")
SUFFIXES = {"spacy": ".spacy", "jsonl": ".jsonl", "conllu": ".conllu", "ptb": ".ptb", "conll05": ".props"}
ID_KEY = "id"
META_KEY = "meta"
Payload = Union[bytes, str]


def format_docs(docs: Sequence[Any], fmt: str) -> Dict[str, Payload]:
    """The piece of each shard file for ``docs`` (ids and metadata already in ``user_data``).

    Returns ``{"data": ...}`` (bytes for ``spacy``, text otherwise) and, for ptb/conll05, ``"ids"``.
    """
    if fmt == "spacy":
        from spacy.tokens import DocBin

        return {"data": DocBin(store_user_data=True, docs=docs).to_bytes()}
    if fmt == "jsonl":
        from ..corpora.parse_output import doc_to_json, json_line

        lines = [
            json_line({"id": doc.user_data[ID_KEY], "meta": doc.user_data.get(META_KEY, {}), **doc_to_json(doc)})
            for doc in docs
        ]
        return {"data": "".join(line + "\n" for line in lines)}
    from ..corpora.export import word_sentences
    from ..corpora.parse_output import to_text

    if fmt == "conllu":
        for doc in docs:
            doc.user_data.setdefault("doc_id", doc.user_data[ID_KEY])
            doc.user_data.setdefault("sent_id", doc.user_data[ID_KEY])
        return {"data": to_text(docs, fmt)}
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r}; choose one of {FORMATS}")
    ids = "".join(f"{doc.user_data[ID_KEY]}\t{sum(1 for _ in word_sentences(doc))}\n" for doc in docs)
    return {"data": to_text(docs, fmt), "ids": ids}


def join_payloads(pieces: Sequence[Payload], fmt: str) -> bytes:
    """One shard file's content from the pieces of its batches, in order."""
    if fmt == "spacy":
        from spacy.tokens import DocBin

        merged = DocBin(store_user_data=True)
        for piece in pieces:
            merged.merge(DocBin(store_user_data=True).from_bytes(piece))
        return merged.to_bytes()
    return "".join(pieces).encode("utf8")


def shard_files(directory: Path, shard: str, fmt: str) -> Dict[str, Path]:
    """The files of one output shard: ``{"data": ...}`` and, for ptb/conll05, ``"ids"``."""
    files = {"data": directory / f"{shard}{SUFFIXES[fmt]}"}
    if fmt in ("ptb", "conll05"):
        files["ids"] = directory / f"{shard}.ids"
    return files


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside ``path``, flush it to disk, then rename it over ``path``.

    A reader (or a resumed run) sees the old file or the whole new one, never a piece.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def temp_files(directory: Path) -> List[Path]:
    """Leftovers of :func:`write_atomic` interrupted before the rename."""
    return sorted(directory.glob(".*.tmp-*"))
