"""The output directory's book-keeping: which shards are done, which documents failed.

- ``run.json``: the settings that decide what a shard holds (format, shard size). A rerun with
  other settings would cut other shards, so it is refused.
- ``manifest.jsonl``: one line per finished shard, appended (and flushed to disk) only after the
  shard's files were renamed into place: ``{"shard", "docs", "failed", "words", "first_id",
  "last_id", "digest"}``. A shard is done iff it has a line here. A line cut short by a crash is ignored.
- ``failed.jsonl``: ``{"id", "shard", "file", "line", "error"}`` for each document that could not
  be parsed: a bad input record (:mod:`.inputs`) or one the pipeline failed on; ``file`` is the
  input file as given, ``line`` its 1-based line (a DocBin's Doc number; for a whole-file
  document null, or the line of its first byte that is not UTF-8), ``error`` the reason. Written
  before the shard's manifest line; a run starts by dropping lines of unfinished shards, so a
  shard redone after a crash does not list its failures twice. A line holding an id that is not
  Unicode (a lone surrogate) is written with ``\\u`` escapes.
- ``.lock``: locked (``flock``) by the run writing to the directory, from before it touches
  anything there until it ends: a second run into the same directory fails at once
  (:class:`OutputInUseError`). The file stays; the lock goes when the run ends or its process dies
  (forked ``nlp.pipe`` workers share it while they live).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..logs import logger
from .outputs import temp_files, write_atomic

__all__ = ["Failure", "OutputDir", "OutputInUseError", "ShardRecord"]

LOCK_FILE = ".lock"



@dataclass(frozen=True)
class ShardRecord:
    shard: str
    docs: int
    failed: int
    words: int
    first_id: str
    last_id: str
    digest: str  # of the shard's input ids and texts: a rerun checks the input did not change


@dataclass(frozen=True)
class Failure:
    """A document that could not be parsed: its id, where it is in the input, and why."""

    id: str
    file: str
    line: Optional[int]
    error: str


class OutputInUseError(RuntimeError):
    """Another run holds the output directory's lock."""


class OutputDir:
    """The manifest, the failed file and the run settings of one output directory, locked for this
    run (a context manager: the lock is let go on leaving it, or by :meth:`close`)."""

    def __init__(self, path: Path, settings: Dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock = _lock(self.path / LOCK_FILE)
        try:
            self.manifest = self.path / "manifest.jsonl"
            self.failed = self.path / "failed.jsonl"
            self._check_settings(settings)
            for leftover in temp_files(self.path):
                leftover.unlink()
            self.done: Dict[str, ShardRecord] = self._read_manifest()
            self._drop_unfinished_failures()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "OutputDir":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the directory's lock (the run is over)."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def record(self, entry: ShardRecord, failures: Sequence[Failure]) -> None:
        """Mark a shard done (its files are in place), after listing its failed documents."""
        if failures:
            lines = [
                _json_line({"id": f.id, "shard": entry.shard, "file": f.file, "line": f.line, "error": f.error})
                for f in failures
            ]
            _append(self.failed, lines)
        _append(self.manifest, [_json_line(entry.__dict__)])
        self.done[entry.shard] = entry

    def _check_settings(self, settings: Dict[str, Any]) -> None:
        run = self.path / "run.json"
        if run.exists():
            before = json.loads(run.read_text(encoding="utf8"))
            # Both ways: a setting given then and not now (an ensemble, auxiliary frames) changed too.
            changed = {k: (before.get(k), settings.get(k)) for k in {**before, **settings}
                       if before.get(k) != settings.get(k)}
            if changed:
                what = ", ".join(f"{k}: {old!r} then, {new!r} now" for k, (old, new) in changed.items())
                raise ValueError(
                    f"{self.path} holds a run with other settings ({what}); resume with the same "
                    "settings or write to another directory"
                )
        else:
            write_atomic(run, json.dumps(settings, indent=2).encode("utf8"))

    def _read_manifest(self) -> Dict[str, ShardRecord]:
        done: Dict[str, ShardRecord] = {}
        if not self.manifest.exists():
            return done
        lines = self.manifest.read_text(encoding="utf8").splitlines()
        for number, line in enumerate(lines, start=1):
            try:
                entry = ShardRecord(**json.loads(line))
            except (json.JSONDecodeError, TypeError):
                # Only the last line can be torn (appends are flushed one by one): redo that shard.
                if number < len(lines):
                    raise ValueError(f"{self.manifest}, line {number}: not a manifest entry: {line[:80]!r}") from None
                logger.warning("%s: ignoring a torn last line (a crash while writing it)", self.manifest)
                self.manifest.write_text("".join(l + "\n" for l in lines[:-1]), encoding="utf8")
                continue
            done[entry.shard] = entry
        return done

    def _drop_unfinished_failures(self) -> None:
        if not self.failed.exists():
            return
        lines = self.failed.read_text(encoding="utf8").splitlines()
        kept = [line for line in lines if _shard_of(line) in self.done]
        if len(kept) != len(lines):
            write_atomic(self.failed, "".join(line + "\n" for line in kept).encode("utf8"))

    def failures(self) -> List[Dict[str, str]]:
        if not self.failed.exists():
            return []
        return [json.loads(line) for line in self.failed.read_text(encoding="utf8").splitlines()]


def _lock(path: Path) -> int:
    """An exclusive lock on ``path`` (created if need be), taken without waiting: the open file
    descriptor, whose closing lets go of it. Another process holding it: OutputInUseError."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _try_lock(fd)
    except OSError:
        os.close(fd)
        raise OutputInUseError(
            f"{path.parent} is in use by another parse-corpus run (it holds {path.name} there): two runs cannot "
            "write to one output directory at once; wait for that run to end or write to another directory"
        ) from None
    return fd


def _try_lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        return
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _json_line(obj: Dict[str, Any]) -> str:
    """``obj`` as one JSON line; with ``\\u`` escapes where a string is not Unicode (a lone
    surrogate, which UTF-8 cannot hold)."""
    line = json.dumps(obj, ensure_ascii=False)
    try:
        line.encode("utf8")
    except UnicodeEncodeError:
        return json.dumps(obj)
    return line


def _shard_of(line: str) -> Any:
    try:
        return json.loads(line).get("shard")
    except json.JSONDecodeError:
        return None


def _append(path: Path, lines: List[str]) -> None:
    with open(path, "a", encoding="utf8") as f:
        f.write("".join(line + "\n" for line in lines))
        f.flush()
        os.fsync(f.fileno())
