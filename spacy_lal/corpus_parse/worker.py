"""What a worker does with a batch: parse it with ``nlp.pipe`` (or an ensemble's
:func:`~spacy_lal.pipeline.ensemble.ensemble_parse`) and format the result.

The same :class:`BatchParser` runs in the driver's process (``engine="local"``) and inside each
Ray actor, so both engines give the same output. A batch that makes the pipeline raise is parsed
again one document at a time, and only the documents that still raise are reported as failed
(the others are parsed alone: for a pipeline whose output depends on the batch, they may differ
from a batched parse).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .outputs import ID_KEY, META_KEY, Payload, format_docs

__all__ = ["Batch", "BatchParser", "BatchResult", "ModelSpec", "check_model", "load_pipeline"]

# A shipped pipeline's name, a saved pipeline's directory, an installed package's name, or a
# function returning the pipeline (pickled to the workers; it must be importable or defined by value).
ModelSpec = Union[str, Path, Callable[[], Any], None]


@dataclass
class Batch:
    """Documents sent to a worker together; ``key`` orders the batches of a shard."""

    shard: str
    key: Tuple[int, ...]
    ids: List[str]
    metas: List[Dict[str, Any]]
    texts: Optional[List[str]] = None
    docbin: Optional[bytes] = None  # DocBin input: the Docs, serialized

    def __len__(self) -> int:
        return len(self.ids)

    def inputs(self, vocab: Any) -> List[Any]:
        """What ``nlp.pipe`` takes: the texts, or fresh Docs on ``vocab``."""
        if self.texts is not None:
            return list(self.texts)
        from spacy.tokens import DocBin

        return list(DocBin(store_user_data=True).from_bytes(self.docbin).get_docs(vocab))

    def halves(self) -> Tuple["Batch", "Batch"]:
        """Two batches of the first and second half, ordered after this one's place."""
        from spacy.vocab import Vocab

        mid = len(self) // 2
        items = self.inputs(Vocab()) if self.docbin is not None else self.texts
        out = []
        for part, (lo, hi) in enumerate([(0, mid), (mid, len(self))]):
            chunk = items[lo:hi]
            out.append(
                Batch(
                    self.shard,
                    (*self.key, part),
                    self.ids[lo:hi],
                    self.metas[lo:hi],
                    texts=chunk if self.texts is not None else None,
                    docbin=_docbin_bytes(chunk) if self.docbin is not None else None,
                )
            )
        return out[0], out[1]


@dataclass
class BatchResult:
    shard: str
    key: Tuple[int, ...]
    pieces: Dict[str, Payload]  # format_docs output
    docs: int = 0
    words: int = 0
    failures: List[Tuple[str, str]] = field(default_factory=list)  # (id, error)
    warnings: List[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Input documents accounted for: parsed or failed."""
        return self.docs + len(self.failures)


def check_model(model: ModelSpec) -> None:
    """Fail early, on the driver, for a model name that no worker could load."""
    if model is None or callable(model):
        return
    from spacy.util import is_package

    from ..pretrained import shipped_pipelines

    if str(model) in shipped_pipelines() or (Path(model) / "config.cfg").is_file() or is_package(str(model)):
        return
    raise ValueError(
        f"cannot find the pipeline {str(model)!r}: give a shipped pipeline "
        f"({', '.join(shipped_pipelines()) or 'none installed'}), the directory of a saved spaCy "
        "pipeline, the name of an installed pipeline package or a function returning a pipeline"
    )


def load_pipeline(model: ModelSpec) -> Any:
    import spacy

    import spacy_lal
    from ..pretrained import shipped_pipelines

    if model is None:
        return spacy_lal.load()
    if callable(model):
        return model()
    if str(model) in shipped_pipelines():
        return spacy_lal.load(str(model))
    return spacy.load(model)


def uses_transformer(model: ModelSpec) -> bool:
    """Whether a saved pipeline runs a transformer (then a worker wants a GPU if there is one)."""
    if callable(model):
        return False
    from spacy.util import get_package_path, is_package, load_config

    from ..pretrained import DEFAULT_PIPELINE, pipeline_path

    name = str(model or DEFAULT_PIPELINE)
    try:
        path = get_package_path(name) if is_package(name) else pipeline_path(name)
        config = load_config(Path(path) / "config.cfg", interpolate=False)
    except (OSError, ValueError):
        return False
    # spacy-transformers' "transformer", spacy-curated-transformers' "curated_transformer"
    return any("transformer" in str(c.get("factory", "")) for c in config.get("components", {}).values())


class BatchParser:
    """Loads the pipeline once, then parses and formats batch after batch."""

    def __init__(self, model: ModelSpec, fmt: str, batch_size: int, n_process: int = 1, use_gpu: bool = False,
                 auxiliary_frames: bool = False, ensemble: Sequence[ModelSpec] = ()):
        if use_gpu:
            import spacy

            spacy.require_gpu()
        self.nlp = load_pipeline(model)
        # More pipelines parse with the first at the score level (pipeline/ensemble.py): the
        # first one's Docs and settings, the members' averaged tags, trees, arcs and frames.
        self.members = [load_pipeline(member) for member in ensemble]
        if auxiliary_frames:
            # Silver for a labeller's training needs the auxiliary frames (be.03, have.01, do.01)
            # the pipeline leaves out of doc._.srl by default: PropBank 3.4 annotates them, and a
            # student trained without them learns that auxiliaries are no predicates
            # (docs/results.md, session 40).
            from ..pipeline.srl.component import keep_auxiliary_frames

            if not keep_auxiliary_frames(self.nlp):
                raise ValueError(f"auxiliary_frames: the pipeline has no lal_srl (components: {self.nlp.pipe_names})")
        self.fmt = fmt
        self.batch_size = batch_size
        self.n_process = n_process

    def ready(self) -> List[str]:
        """The pipeline's components (a cheap call that waits for the pipeline to load)."""
        return list(self.nlp.pipe_names)

    def parse(self, batch: Batch) -> BatchResult:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parsed, failures = self._parse(batch)
            pieces, docs, more_failures = self._format([doc for doc in parsed if doc is not None])
        return BatchResult(
            batch.shard,
            batch.key,
            pieces,
            docs=len(docs),
            words=sum(len(doc) for doc in docs),
            failures=failures + more_failures,
            warnings=[str(w.message) for w in caught],
        )

    def _parse(self, batch: Batch) -> Tuple[List[Any], List[Tuple[str, str]]]:
        try:
            inputs = batch.inputs(self.nlp.vocab)
            docs = self._pipe(inputs, self.n_process)
            failures: List[Tuple[str, str]] = []
        except Exception:  # noqa: BLE001 - isolate the document(s) at fault below
            docs, failures = [], []
            for doc_id, item in zip(batch.ids, batch.inputs(self.nlp.vocab)):
                try:
                    docs.extend(self._pipe([item], 1))
                except Exception as error:  # noqa: BLE001 - reported in the failed file
                    docs.append(None)
                    failures.append((doc_id, _describe(error)))
        for doc, doc_id, meta in zip(docs, batch.ids, batch.metas):
            if doc is not None:
                doc.user_data[ID_KEY] = doc_id
                if meta:
                    doc.user_data[META_KEY] = meta
        return docs, failures

    def _pipe(self, inputs: List[Any], n_process: int) -> List[Any]:
        if self.members:
            from ..pipeline.ensemble import ensemble_parse

            return list(ensemble_parse([self.nlp, *self.members], inputs, batch_size=self.batch_size))
        return list(self.nlp.pipe(inputs, batch_size=self.batch_size, n_process=n_process))

    def _format(self, docs: List[Any]) -> Tuple[Dict[str, Payload], List[Any], List[Tuple[str, str]]]:
        """The formatted pieces, the Docs in them and the Docs that could not be written."""
        try:
            return format_docs(docs, self.fmt), docs, []
        except Exception:  # noqa: BLE001 - a document the writer cannot write: find it
            kept, failures = [], []
            for doc in docs:
                try:
                    format_docs([doc], self.fmt)
                    kept.append(doc)
                except Exception as error:  # noqa: BLE001 - reported in the failed file
                    failures.append((doc.user_data[ID_KEY], "cannot write it: " + _describe(error)))
            return format_docs(kept, self.fmt), kept, failures


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


def _docbin_bytes(docs: List[Any]) -> bytes:
    from spacy.tokens import DocBin

    return DocBin(store_user_data=True, docs=docs).to_bytes()
