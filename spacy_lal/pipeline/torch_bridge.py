"""Between spaCy's per-Doc token vectors and the padded per-sentence tensors of the torch models.

Shared by the parser and SRL architectures: gather the rows of each unit (sentence) from the
per-Doc tok2vec output into one zero-padded batch, and scatter gradients back; convert between
Thinc and torch; keep a torch module in eval mode while any thread predicts with it
(:func:`eval_mode`, :class:`PredictionShim`); and the forward/init of a tok2vec + torch-layer
architecture, whose torch layer (an adapter ``nn.Module``: ``parser/adapter.py``, ``srl/adapter.py``, ``spa/adapter.py``) is reached by the Thinc ref
``TORCH_LAYER`` and :func:`torch_module`.
"""
import dataclasses
import multiprocessing
import multiprocessing.util
import os
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc
from thinc.api import ArgsKwargs, Model, Ops, PyTorchShim, PyTorchWrapper_v3, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d, Ints1d

from .units import Unit, length_sorted_chunks

if TYPE_CHECKING:
    import torch

# The Thinc ref naming the torch layer of a unit-based model (``model.layers[1]`` once built).
TORCH_LAYER = "torch_layer"


class PerUnit:
    """Base of a decoded output dataclass whose every field holds one value per unit: ``merge``
    puts the length-sorted chunks' outputs back in unit order (:func:`forward_units`)."""

    @classmethod
    def merge(cls, parts: Sequence[Any], chunks: Sequence[Sequence[int]], n: int) -> Any:
        names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
        merged: dict = {name: [None] * n for name in names}
        for part, chunk in zip(parts, chunks):
            for name in names:
                values = getattr(part, name)
                for k, b in enumerate(chunk):
                    merged[name][b] = values[k]
        return cls(**merged)


def _single_threaded(_: object = None) -> None:
    import torch

    torch.set_num_threads(1)


# nlp.pipe(n_process=N) forks (the default start method on Linux before Python 3.14). A forked
# child that enters torch's (GNU) OpenMP pool set up by the parent deadlocks, and N children should
# not each use every core anyway: children run torch on one thread.
os.register_at_fork(after_in_child=_single_threaded)


class _ChildStart:
    """The key of :func:`_single_threaded` in multiprocessing's start-up hooks (a weak reference)."""


_CHILD_START = _ChildStart()


def _in_started_child() -> bool:
    """Whether this process is a child that multiprocessing started: one that runs (it has a
    parent process), or one spawned and still unpickling what it is to run (spawn starts a child
    with the command-line flag ``--multiprocessing-fork``; ``sys.orig_argv``, Python 3.10+, keeps it)."""
    if multiprocessing.parent_process() is not None:
        return True
    return "--multiprocessing-fork" in getattr(sys, "orig_argv", ())


# Under "spawn" or "forkserver" a child is a fresh interpreter (torch on every core again), which
# the fork hook does not reach, and nlp.pipe's workers import this module while they unpickle the
# pipeline, before they run. A spawned child is made single-threaded at that import (spawn runs
# no start-up hooks). A child of the fork server runs multiprocessing's start-up hooks before its
# code (multiprocessing.util.register_after_fork: despite the name, registered in the child while
# it unpickles; a forked child runs the parent's, harmlessly). A multiprocessing child importing
# the module while it runs (a Pool worker loading a pipeline) is made single-threaded at that
# import. Either way before any of the child's own code that comes after the import: its
# torch.set_num_threads after loading the pipeline still chooses otherwise.
if _in_started_child():
    _single_threaded()
else:
    multiprocessing.util.register_after_fork(_CHILD_START, _single_threaded)


# Modules some thread is predicting with now: how many threads, and the mode to put back when the
# last one leaves. Entries live only while a prediction runs (so no weak references are needed).
_PREDICTING: Dict["torch.nn.Module", List[Any]] = {}
_PREDICTING_LOCK = threading.Lock()


@contextmanager
def eval_mode(module: "torch.nn.Module") -> Iterator[None]:
    """``module`` in eval mode inside the block, its mode before it put back by the last thread
    to leave. One ``nlp`` may predict in several threads at once: a thread that put the module
    back in training mode on leaving (as Thinc's ``PyTorchShim.predict`` does) would run dropout
    in the predictions of those still inside it. The lock is taken on entering and leaving, once
    per batch, never during the forward pass."""
    with _PREDICTING_LOCK:
        entry = _PREDICTING.get(module)
        if entry is None:
            entry = _PREDICTING[module] = [0, module.training]
            module.eval()
        entry[0] += 1
    try:
        yield
    finally:
        with _PREDICTING_LOCK:
            entry[0] -= 1
            if entry[0] == 0:
                del _PREDICTING[module]
                module.train(entry[1])


class PredictionShim(PyTorchShim):
    """Thinc's ``PyTorchShim`` whose predictions keep the module in eval mode until the last
    thread predicting with it leaves (:func:`eval_mode`), which puts back the mode it found
    (Thinc's always puts back training mode: the same for a module at rest in it, as all are
    until they predict); everything else is Thinc's."""

    def predict(self, inputs: ArgsKwargs) -> Any:
        import torch

        with eval_mode(self._model), torch.no_grad():
            with torch.autocast(device_type="cuda", enabled=self._mixed_precision):
                return self._model(*inputs.args, **inputs.kwargs)


def thread_safe_prediction(model: Model) -> Model:
    """Give the torch layers in ``model`` (Thinc's wrappers build a plain ``PyTorchShim``) a
    :class:`PredictionShim`; returns ``model``. The shim's class is swapped rather than the shim
    rebuilt: its state (device, serializers, grad scaler) and Thinc's wrapper stay as they are."""
    for layer in model.walk():
        for shim in layer.shims:
            if type(shim) is PyTorchShim:
                shim.__class__ = PredictionShim
    return model


def pad_units(
    ops: Ops, vectors: List[Floats2d], units: Sequence[Unit]
) -> Tuple[Floats3d, Ints1d, Callable[[Floats3d], List[Floats2d]]]:
    """Stack the word vectors of each unit into a (batch, max_len, width) array.

    Returns the padded array, the unit lengths and a callback that turns the gradient of the
    padded array into gradients of ``vectors``.
    """
    width = vectors[0].shape[1] if vectors else 0
    lengths = ops.asarray1i([len(unit) for unit in units])
    max_len = int(lengths.max()) if len(units) else 0
    padded = ops.alloc3f(len(units), max_len, width)
    xp = ops.xp
    rows = [xp.asarray(unit.words, dtype="int64") for unit in units]
    for b, (unit, row) in enumerate(zip(units, rows)):
        padded[b, : len(row)] = vectors[unit.doc_index][row]

    def backprop(d_padded: Floats3d) -> List[Floats2d]:
        d_vectors = [ops.alloc2f(*v.shape) for v in vectors]
        for b, (unit, row) in enumerate(zip(units, rows)):
            # Pieces of one sentence never share tokens, so a plain add is exact.
            d_vectors[unit.doc_index][row] += d_padded[b, : len(row)]
        return d_vectors

    return padded, lengths, backprop


def convert_padded_inputs(model: Model, X: Tuple, is_train: bool) -> Tuple[ArgsKwargs, Callable[[ArgsKwargs], Tuple]]:
    """Thinc -> torch for ``(padded, lengths, *rest)``: only ``padded`` carries a gradient;
    the rest (targets, options) passes through as it is."""
    shim = model.shims[0]
    padded, lengths, *rest = X
    padded_t = xp2torch(padded, requires_grad=is_train, device=shim.device)
    lengths_t = xp2torch(lengths, device=shim.device).long()

    def backprop(d_inputs: ArgsKwargs) -> Tuple:
        return (torch2xp(d_inputs.args[0]), None, *(None for _ in rest))

    return ArgsKwargs(args=(padded_t, lengths_t, *rest), kwargs={}), backprop


# The architecture pattern shared by the unit-based models: ``model.layers = [tok2vec, torch
# layer]``, input ``(docs, units, batch)``; the torch layer gets ``(padded, lengths, batch)`` and
# returns a scalar loss tensor in training (the batch holds targets) or decoded structures.


def init_tok2vec(model: Model, X: Optional[Tuple] = None, Y: Any = None) -> None:
    """``init`` of a unit-based model: only the tok2vec is initialized here; the torch layer is
    built later, once the component knows its labels (:func:`set_torch_layer`)."""
    model.layers[0].initialize(X=None if X is None else X[0])


def set_torch_layer(model: Model, module: "torch.nn.Module", nI: int) -> None:
    """Wrap ``module`` for Thinc and make it the model's torch layer (replacing an earlier one)."""
    wrapper = thread_safe_prediction(
        PyTorchWrapper_v3(module, convert_inputs=convert_padded_inputs, convert_outputs=convert_loss_outputs)
    )
    model.set_dim("nI", nI, force=True)
    model._layers = [model.layers[0], wrapper]
    model.set_ref(TORCH_LAYER, wrapper)


def torch_module(model: Model) -> Optional["torch.nn.Module"]:
    """The torch adapter module of a unit-based model, or None before it is built."""
    if not model.has_ref(TORCH_LAYER) or model.get_ref(TORCH_LAYER) is None:
        return None
    return model.get_ref(TORCH_LAYER).shims[0]._model


def forward_units(
    model: Model, X: Tuple[List[Doc], Sequence[Unit], Any], is_train: bool
) -> Tuple[Any, Callable[[Any], Any]]:
    """tok2vec over the Docs, then the torch layer over the padded units.

    With ``model.attrs["max_chart_cells"]`` (the parser), the units run in length-sorted chunks
    so that padding stays small and a chunk's chart (units x (length+1)^2 x labels) stays within
    that many cells; the batch must then offer ``select(rows, width)`` and the decoded output
    ``merge(parts, chunks, n_units)``. Chunk losses are added up: sums over their units as they
    are, means (a torch layer whose ``loss_reduction`` is "mean") weighted into a mean over all
    units, so that every unit counts the same whatever chunk it fell in.
    """
    docs, units, batch = X
    if torch_module(model) is None:
        raise ValueError(f"the {model.name} model has no labels yet: initialize the component first")
    tok2vec, torch_layer = model.layers
    vectors, bp_vectors = tok2vec(docs, is_train)
    max_cells = model.attrs.get("max_chart_cells")
    if not max_cells:
        padded, lengths, bp_padded = pad_units(model.ops, vectors, units)
        output, bp_torch = torch_layer((padded, lengths, batch), is_train)
        return output, lambda d_output: bp_vectors(bp_padded(bp_torch(d_output)[0]))
    chunks = length_sorted_chunks(units, max_cells)
    if not is_train:
        parts = _predict_chunks(model, vectors, units, batch, chunks)
        return type(parts[0]).merge(parts, chunks, len(units)), lambda d: None
    results = []
    for chunk in chunks:
        padded, lengths, bp_padded = pad_units(model.ops, vectors, [units[b] for b in chunk])
        output, bp_torch = torch_layer((padded, lengths, batch.select(chunk, int(lengths.max()) + 1)), is_train)
        results.append((output, bp_torch, bp_padded))
    mean = getattr(torch_module(model), "loss_reduction", "sum") == "mean"
    weights = [len(chunk) / len(units) if mean else 1.0 for chunk in chunks]
    loss = sum(w * output for w, (output, _, _) in zip(weights, results))

    def backprop(d_loss: float) -> Any:
        d_vectors = None
        for w, (_, bp_torch, bp_padded) in zip(weights, results):
            d_chunk = bp_padded(bp_torch(d_loss * w)[0])
            d_vectors = d_chunk if d_vectors is None else [a + b for a, b in zip(d_vectors, d_chunk)]
        return bp_vectors(d_vectors)

    return loss, backprop


def _predict_chunks(model: Model, vectors: List[Floats2d], units: Sequence[Unit], batch: Any,
                    chunks: List[List[int]]) -> List[Any]:
    """The torch layer's decoded output for each chunk of ``units`` (rows), the module in
    eval mode once for all of them: Thinc's shim would switch every module to eval mode and back
    around each chunk, 0.65 ms for the parser's 85 modules (chunks of about 20 sentences: 3% of a
    parse)."""
    import torch

    torch_layer, module = model.get_ref(TORCH_LAYER), torch_module(model)
    with eval_mode(module):
        parts = []
        for chunk in chunks:
            padded, lengths, _ = pad_units(model.ops, vectors, [units[b] for b in chunk])
            selected = batch.select(chunk, int(lengths.max()) + 1)
            inputs, _ = convert_padded_inputs(torch_layer, (padded, lengths, selected), False)
            with torch.no_grad():
                parts.append(module(*inputs.args, **inputs.kwargs))
        return parts


def convert_loss_outputs(model: Model, X_Ytorch: Tuple[Any, Any], is_train: bool) -> Tuple[Any, Callable[[Any], Any]]:
    """Torch -> Thinc for layers returning a scalar loss tensor (passed on as a float whose
    gradient is a float) or, when decoding, any other object (passed through)."""
    import torch

    _, Ytorch = X_Ytorch
    if not isinstance(Ytorch, torch.Tensor):
        return Ytorch, lambda dY: None
    loss = Ytorch

    def backprop(d_loss: float) -> ArgsKwargs:
        d = xp2torch(model.ops.asarray1f([float(d_loss)]).reshape(()), device=loss.device)
        return ArgsKwargs(args=([loss],), kwargs={"grad_tensors": [d]})

    return float(loss.detach()), backprop
