"""``parse_corpus``: the driver. It reads the inputs (refusing duplicate ids), locks the output
directory, cuts shards, hands batches to an engine, puts each shard's results back in input order
and writes the shard once all its documents are accounted for (parsed or failed: a bad input
record fails without reaching the engine)."""
from __future__ import annotations

import hashlib
import math
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from tqdm import tqdm

from ..corpora._common import PathLike
from ..logs import logger
from .engines import ENGINES, LocalEngine, RayEngine
from .inputs import Record, Source, find_sources
from .manifest import Failure, OutputDir, ShardRecord
from .outputs import FORMATS, join_payloads, shard_files, write_atomic
from .worker import Batch, BatchResult, ModelSpec, check_model

__all__ = ["Summary", "parse_corpus"]



@dataclass
class Summary:
    """What a run did. Counts are of this run; ``*_skipped`` were done by an earlier run."""

    output: Path
    engine: str
    workers: int
    documents: int = 0
    words: int = 0
    failed: int = 0  # bad input records included
    bad_input: int = 0
    shards_written: int = 0
    shards_skipped: int = 0
    documents_skipped: int = 0
    seconds: float = 0.0  # parsing, once the workers were ready
    startup_seconds: float = 0.0  # starting Ray and loading the pipeline in every worker

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds else 0.0

    def __str__(self) -> str:
        skipped = _count(self.shards_skipped, "shard")
        done_before = ""
        if self.shards_skipped:
            done_before = f"; {skipped} ({self.documents_skipped:,} documents) were already done"
        lines = [
            f"parsed {self.documents:,} documents ({self.words:,} words) in {self.seconds:,.1f} s: "
            f"{self.documents / max(self.seconds, 1e-9):,.1f} docs/s, {self.words_per_second:,.0f} words/s "
            f"({self.engine}, {_count(self.workers, 'worker')}, "
            f"after {self.startup_seconds:,.1f} s of start-up)",
            f"wrote {_count(self.shards_written, 'shard')} to {self.output}{done_before}",
        ]
        if self.failed:
            bad = f" ({self.bad_input:,} of them bad input)" if self.bad_input else ""
            lines.append(f"{_count(self.failed, 'document')} failed{bad}: see {self.output / 'failed.jsonl'}")
        return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def parse_corpus(
    inputs: Union[PathLike, Sequence[PathLike]],
    output: PathLike,
    *,
    model: ModelSpec = None,
    engine: str = "local",
    format: str = "spacy",
    address: Optional[str] = None,
    workers: Optional[int] = None,
    batch_size: int = 64,
    shard_size: int = 1000,
    n_process: int = 1,
    text_unit: Optional[str] = None,
    retries: int = 2,
    gpus_per_worker: Optional[float] = None,
    progress: bool = True,
    auxiliary_frames: bool = False,
    ensemble: Sequence[ModelSpec] = (),
) -> Summary:
    """Parse every document of ``inputs`` into shards in the directory ``output``.

    ``inputs``: files, directories or globs (:func:`.inputs.find_sources`). ``model``: a shipped
    pipeline's name (default: the shipped ``en_lal_ewt``), a saved pipeline's directory, a
    package name, or a function returning the pipeline. ``format``: one of :data:`FORMATS`.
    Each input file is cut into shards of ``shard_size`` documents, parsed in batches of
    ``batch_size``. ``engine="local"`` parses in this process (``n_process`` as in ``nlp.pipe``);
    ``engine="ray"`` on Ray actors (``address``, ``workers``, ``retries``, ``gpus_per_worker``:
    see :class:`.engines.RayEngine`). ``auxiliary_frames``: keep the frames of auxiliary rolesets
    in ``doc._.srl`` (the pipeline's ``lal_srl`` leaves them out by default; silver for training a
    labeller needs them, as PropBank 3.4 annotates them).

    Reruns resume: shards listed in ``output/manifest.jsonl`` are skipped. Documents that cannot
    be parsed are listed in ``output/failed.jsonl`` with their file, line and the reason: bad input
    records (a line that is not UTF-8, not JSON, without a string ``text``, or holding a lone
    surrogate: see :mod:`.inputs`) and documents the pipeline fails on; every other document is in
    exactly one shard, in input order, with its input id. Refused before anything is parsed or
    written: two documents with one id (ValueError naming both places), a file that is no DocBin
    (:class:`spacy_lal.corpora.CorpusFormatError`), an output directory another run is writing to
    (:class:`.manifest.OutputInUseError`: the run holds ``output/.lock`` while it runs).
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    for name, value in (("batch_size", batch_size), ("shard_size", shard_size), ("n_process", n_process)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
    if engine == "ray" and n_process != 1:
        raise ValueError("n_process is for the local engine; give the Ray engine more workers instead")
    if ensemble and n_process != 1:
        raise ValueError("an ensemble parses in one process: split the input and run one parse-corpus per part, "
                         "or use the Ray engine's workers")
    for spec in [model, *ensemble]:
        check_model(spec)
    sources = find_sources(inputs, text_unit)
    counts = _count_and_check_ids(sources)
    settings: Dict[str, Any] = {"format": format, "shard_size": shard_size}
    if auxiliary_frames:  # only when set: outputs written before the setting existed still resume
        settings["auxiliary_frames"] = True
    if ensemble:
        settings["ensemble"] = [str(spec) for spec in ensemble]
    with OutputDir(Path(output), settings) as out:  # locked until the end
        planned = {f"{name}-{k:05d}" for name, n in counts.items() for k in range(math.ceil(n / shard_size))}
        summary = Summary(Path(output), engine, workers or n_process)
        summary.shards_skipped = len(planned & out.done.keys())
        summary.documents_skipped = sum(out.done[s].docs + out.done[s].failed for s in planned & out.done.keys())
        if not planned - out.done.keys():
            for name, records, source in _shards(sources, shard_size):
                _check_unchanged(out.done[name], records, source)
            logger.info("%s: all %d shards are done", output, len(planned))
            return summary

        # A whole shard per call lets nlp.pipe's processes run through it; one batch otherwise.
        unit = shard_size if engine == "local" and n_process > 1 else batch_size
        start = time.perf_counter()
        runner: Any = (
            LocalEngine(model, format, batch_size, n_process=n_process, auxiliary_frames=auxiliary_frames,
                        ensemble=ensemble)
            if engine == "local"
            else RayEngine(model, format, batch_size, address=address, workers=workers, retries=retries,
                           gpus_per_worker=gpus_per_worker, auxiliary_frames=auxiliary_frames, ensemble=ensemble)
        )
        with runner, tqdm(
            total=sum(counts.values()), initial=summary.documents_skipped, unit="doc", disable=not progress,
            smoothing=0.1,
        ) as bar:
            summary.workers = runner.workers
            summary.startup_seconds = time.perf_counter() - start
            start = time.perf_counter()
            shards = _Assembler(out, format, summary, bar.update)
            words = 0
            for result in runner.map(_batches(sources, out, shard_size, unit, shards)):
                shards.add(result)
                words += result.words
                bar.update(result.size)
                bar.set_postfix_str(f"{words / (time.perf_counter() - start):,.0f} words/s", refresh=False)
            summary.seconds = time.perf_counter() - start
        return summary


def _count_and_check_ids(sources: List[Source]) -> Dict[str, int]:
    """The number of records of each source (bad ones included); two records with one id raise
    ValueError naming both places."""
    counts: Dict[str, int] = {}
    seen: Dict[str, Tuple[int, str, Optional[int]]] = {}
    for k, source in enumerate(sources):
        n = 0
        for doc_id, file, line, _ in source.index():
            n += 1
            first = seen.get(doc_id)
            if first is not None:
                raise ValueError(
                    f"duplicate id {doc_id!r}: {sources[first[0]].place(first[1], first[2])} and "
                    f"{source.place(file, line)}; give every document an id of its own (the output keeps them)"
                )
            seen[doc_id] = (k, file, line)
        counts[source.name] = n
    return counts


def _batches(
    sources: List[Source], out: OutputDir, shard_size: int, unit: int, shards: "_Assembler"
) -> Iterator[Batch]:
    """The batches of the shards still to do, read lazily; a done shard is only checked. Bad
    records go to the assembler as failed, not to the engine."""
    for name, records, source in _shards(sources, shard_size):
        if name in out.done:
            _check_unchanged(out.done[name], records, source)
            continue
        shards.expect(name, records)
        good = [r for r in records if r.error is None]
        for b, start in enumerate(range(0, len(good), unit)):
            yield _batch(name, (b,), good[start : start + unit])


def _shards(sources: List[Source], shard_size: int) -> Iterator[Tuple[str, List[Record], Source]]:
    """Each source cut into shards of ``shard_size`` documents: (shard name, records, source)."""
    for source in sources:
        for k, records in enumerate(_chunks(source.records(), shard_size)):
            yield f"{source.name}-{k:05d}", records, source


def _check_unchanged(done: ShardRecord, records: List[Record], source: Source) -> None:
    if _digest(records) != done.digest:
        raise ValueError(
            f"the input {', '.join(map(str, source.paths[:3]))} changed since shard {done.shard} was written "
            f"(its {done.docs + done.failed} documents from {done.first_id} to {done.last_id} are not the same); "
            "write to a new output directory"
        )


def _digest(records: List[Record]) -> str:
    """A fingerprint of a shard's input: ids and texts (a bad record's reason)."""
    sha = hashlib.sha1()
    for record in records:
        text = record.doc.text if record.doc is not None else record.text if record.text is not None else record.error
        sha.update(f"{len(record.id)}:{record.id}{len(text)}:{text}".encode("utf8", "surrogatepass"))
    return sha.hexdigest()


def _chunks(records: Iterator[Record], size: int) -> Iterator[List[Record]]:
    chunk: List[Record] = []
    for record in records:
        chunk.append(record)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _batch(shard: str, key: tuple, records: List[Record]) -> Batch:
    ids = [r.id for r in records]
    metas = [r.meta for r in records]
    if records[0].doc is None:
        return Batch(shard, key, ids, metas, texts=[r.text for r in records])
    from spacy.tokens import DocBin

    return Batch(shard, key, ids, metas, docbin=DocBin(store_user_data=True, docs=[r.doc for r in records]).to_bytes())


@dataclass
class _Shard:
    size: int
    first_id: str
    last_id: str
    digest: str
    places: Dict[str, Tuple[int, str, Optional[int]]]  # id: (position in the shard, file, line)
    results: List[BatchResult] = field(default_factory=list)

    @property
    def received(self) -> int:
        return sum(r.size for r in self.results)


class _Assembler:
    """Collects the results of each shard and writes the shard when it is complete."""

    def __init__(self, out: OutputDir, fmt: str, summary: Summary, progress: Callable[[int], Any]) -> None:
        self.out, self.fmt, self.summary, self.progress = out, fmt, summary, progress
        self.pending: Dict[str, _Shard] = {}
        self._warned: set = set()

    def expect(self, name: str, records: List[Record]) -> None:
        """A shard whose batches will come; its bad records are failed now."""
        places = {r.id: (k, r.file, r.line) for k, r in enumerate(records)}
        self.pending[name] = _Shard(len(records), records[0].id, records[-1].id, _digest(records), places)
        bad = [(r.id, r.error) for r in records if r.error is not None]
        if bad:
            self.summary.bad_input += len(bad)
            self.progress(len(bad))
            self.add(BatchResult(name, (-1,), pieces={}, failures=bad))

    def add(self, result: BatchResult) -> None:
        self._warn(result.warnings)
        shard = self.pending[result.shard]
        shard.results.append(result)
        if shard.received == shard.size:
            self._write(result.shard, self.pending.pop(result.shard))

    def _write(self, name: str, shard: _Shard) -> None:
        results = sorted(shard.results, key=lambda r: r.key)
        files = shard_files(self.out.path, name, self.fmt)
        write_atomic(files["data"], join_payloads([r.pieces["data"] for r in results if r.pieces], self.fmt))
        if "ids" in files:
            write_atomic(files["ids"], "".join(r.pieces["ids"] for r in results if r.pieces).encode("utf8"))
        failures = sorted(
            (Failure(i, *shard.places[i][1:], error) for r in results for i, error in r.failures),
            key=lambda f: shard.places[f.id][0],
        )
        docs, words = sum(r.docs for r in results), sum(r.words for r in results)
        entry = ShardRecord(name, docs, len(failures), words, shard.first_id, shard.last_id, shard.digest)
        self.out.record(entry, failures)
        self.summary.documents += docs
        self.summary.words += words
        self.summary.failed += len(failures)
        self.summary.shards_written += 1

    def _warn(self, messages: List[str]) -> None:
        # Each batch's writer warns with its own counts: say each kind of warning once.
        for message in messages:
            kind = re.sub(r"\d+", "N", message.split(": ", 1)[-1])
            if kind not in self._warned:
                self._warned.add(kind)
                warnings.warn(f"{message.split(': ', 1)[-1]} (in one batch; said once)", stacklevel=3)
