"""Between spaCy's per-Doc token vectors and the padded per-sentence tensors of the torch models.

Shared by the parser and SRL architectures: gather the rows of each unit (sentence) from the
per-Doc tok2vec output into one zero-padded batch, and scatter gradients back.
"""
import os
from typing import Callable, List, Sequence, Tuple

from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d, Ints1d

from .units import Unit


def _single_threaded_after_fork() -> None:
    import torch

    torch.set_num_threads(1)


# nlp.pipe(n_process=N) forks. A forked child that enters torch's (GNU) OpenMP pool set up by
# the parent deadlocks, and N children should not each use every core anyway: children run
# torch on one thread.
os.register_at_fork(after_in_child=_single_threaded_after_fork)


def pad_units(
    ops, vectors: List[Floats2d], units: Sequence[Unit]
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


def convert_padded_inputs(model: Model, X: Tuple, is_train: bool):
    """Thinc -> torch for ``(padded, lengths, *rest)``: only ``padded`` carries a gradient;
    the rest (targets, options) passes through as it is."""
    shim = model.shims[0]
    padded, lengths, *rest = X
    padded_t = xp2torch(padded, requires_grad=is_train, device=shim.device)
    lengths_t = xp2torch(lengths, device=shim.device).long()

    def backprop(d_inputs: ArgsKwargs) -> Tuple:
        return (torch2xp(d_inputs.args[0]), None, *(None for _ in rest))

    return ArgsKwargs(args=(padded_t, lengths_t, *rest), kwargs={}), backprop
