"""Where batches are parsed: in this process (``local``) or on a pool of Ray actors (``ray``).

An engine is a context manager whose ``map(batches)`` yields one :class:`BatchResult` per input
document range, in any order; the driver puts the pieces of each shard back in order.

The Ray engine starts one actor per worker, each holding a :class:`BatchParser` (the pipeline is
loaded once per actor), and keeps one batch in flight per actor. Reliability is Ray's:

- ``max_restarts=-1``: an actor whose process dies (killed, out of memory, a crash in native
  code) is started again, loading the pipeline anew;
- ``max_task_retries=retries``: the batch it was parsing is then run again. A result is returned
  once per batch, so a retried batch is neither lost nor written twice.
- A batch that still kills its worker after the retries is split in two and each half retried,
  down to the single document, which is reported as failed (so one poisonous document costs a few
  restarts, not the run).

Plain actors and ``ray.wait`` rather than ``ray.util.ActorPool`` (whose ``get_next_unordered``
does not say which batch an error belongs to, and the halving needs that) or Ray Data (whose
``map_batches`` fails the whole dataset once a batch's retries are spent, and whose writers know
nothing of our manifest): what the driver adds is the ordering and atomic writing of shards.

Ray is imported only here, inside :class:`RayEngine`: the local engine needs no Ray.
"""
from __future__ import annotations

import os
from collections import deque
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ..logs import logger
from .worker import Batch, BatchParser, BatchResult, ModelSpec, uses_transformer


__all__ = ["ENGINES", "LocalEngine", "RayEngine"]

ENGINES = ("local", "ray")


class LocalEngine:
    """Batches parsed one after the other in this process (``nlp.pipe`` with ``n_process``)."""

    def __init__(self, model: ModelSpec, fmt: str, batch_size: int, n_process: int = 1,
                 auxiliary_frames: bool = False, ensemble: Sequence[ModelSpec] = ()) -> None:
        self.parser = BatchParser(model, fmt, batch_size, n_process=n_process, auxiliary_frames=auxiliary_frames,
                                  ensemble=ensemble)
        self.workers = n_process

    def __enter__(self) -> "LocalEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, batches: Iterable[Batch]) -> Iterator[BatchResult]:
        for batch in batches:
            yield self.parser.parse(batch)


class RayEngine:
    """Batches parsed by a pool of Ray actors, one pipeline per actor (see the module docstring).

    ``address``: join that running cluster (``ray start --head`` printed it; "auto" finds a local
    one); without it, and unless Ray is already initialized in this process, a local cluster with
    ``num_cpus=workers`` is started and shut down at the end. ``workers``: actors (default: the
    cluster's CPUs, or its GPUs when each worker takes one). ``gpus_per_worker``: default 1 for a
    transformer pipeline on a cluster with GPUs, else 0.
    """

    def __init__(
        self,
        model: ModelSpec,
        fmt: str,
        batch_size: int,
        *,
        address: Optional[str] = None,
        workers: Optional[int] = None,
        retries: int = 2,
        gpus_per_worker: Optional[float] = None,
        auxiliary_frames: bool = False,
        ensemble: Sequence[ModelSpec] = (),
    ) -> None:
        self.model, self.fmt, self.batch_size = model, fmt, batch_size
        self.auxiliary_frames, self.ensemble = auxiliary_frames, list(ensemble)
        self.address, self.workers, self.retries = address, workers, retries
        self.gpus_per_worker = gpus_per_worker
        self.actors: List[Any] = []
        self._started_ray = False

    def __enter__(self) -> "RayEngine":
        try:
            import ray
        except ImportError:
            raise ImportError('engine="ray" needs Ray: pip install "spacy-lal[ray]"') from None
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address)
            else:
                ray.init(num_cpus=self.workers or os.cpu_count(), include_dashboard=False)
            self._started_ray = True
        try:
            self._start_actors(ray)
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start_actors(self, ray: Any) -> None:
        resources = ray.cluster_resources()
        gpus = self.gpus_per_worker
        if gpus is None:
            gpus = 1.0 if resources.get("GPU", 0) and uses_transformer(self.model) else 0.0
        if self.workers is not None:
            n = self.workers
        elif gpus:
            n = int(resources.get("GPU", 0) // gpus)
        else:
            n = int(resources.get("CPU", 1))
        if n < 1:
            raise ValueError(f"no worker fits the cluster ({resources}) with {gpus} GPUs per worker")
        actor = ray.remote(BatchParser).options(
            num_cpus=1, num_gpus=gpus, max_restarts=-1, max_task_retries=self.retries
        )
        self.actors = [actor.remote(self.model, self.fmt, self.batch_size, use_gpu=bool(gpus),
                                    auxiliary_frames=self.auxiliary_frames, ensemble=self.ensemble)
                       for _ in range(n)]
        self.workers = n
        try:
            ray.get([a.ready.remote() for a in self.actors])
        except ray.exceptions.RayError as error:
            raise RuntimeError(f"a Ray worker could not load the pipeline {self.model!r}: {error}") from None

    def __exit__(self, *exc: object) -> None:
        import ray

        for a in self.actors:
            ray.kill(a, no_restart=True)
        self.actors = []
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False

    def map(self, batches: Iterable[Batch]) -> Iterator[BatchResult]:
        import ray
        from ray.exceptions import RayActorError

        upcoming = iter(batches)
        retry: Deque[Batch] = deque()  # halves of batches that killed their worker
        idle = list(self.actors)
        running: Dict[Any, Tuple[Any, Batch]] = {}
        while True:
            while idle:
                batch = retry.popleft() if retry else next(upcoming, None)
                if batch is None:
                    break
                actor = idle.pop()
                running[actor.parse.remote(batch)] = (actor, batch)
            if not running:
                return
            [ref], _ = ray.wait(list(running), num_returns=1)
            actor, batch = running.pop(ref)
            idle.append(actor)
            try:
                result = ray.get(ref)
            except RayActorError as error:
                if len(batch) > 1:
                    logger.warning(
                        "a worker died %d times on a batch of %d documents of %s; retrying its halves",
                        self.retries + 1, len(batch), batch.shard,
                    )
                    retry.extendleft(reversed(batch.halves()))
                else:
                    tries = self.retries + 1
                    reason = (
                        f"the worker died on it {tries} time{'s' if tries > 1 else ''} "
                        f"({' '.join(str(error).split())[:300]})"
                    )
                    yield BatchResult(batch.shard, batch.key, pieces={}, failures=[(batch.ids[0], reason)])
                continue
            yield result
