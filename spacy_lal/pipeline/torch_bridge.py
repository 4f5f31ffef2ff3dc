"""Between spaCy's per-Doc token vectors and the padded per-sentence tensors of the torch models.

Shared by the parser and SRL architectures: gather the rows of each unit (sentence) from the
per-Doc tok2vec output into one zero-padded batch, and scatter gradients back; and the
forward/init/output-conversion functions of a tok2vec + torch-layer architecture.
"""
import logging
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import srsly
from spacy import util
from spacy.tokens import Doc
from thinc.api import ArgsKwargs, Model, set_dropout_rate, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d, Ints1d

from .units import Unit, make_units

logger = logging.getLogger("spacy_lal")


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


# The architecture pattern shared by the unit-based models: ``model.layers = [tok2vec, torch
# layer]``, input ``(docs, units, extra)``; the torch layer gets ``(padded, lengths, extra)`` and
# returns a scalar loss tensor in training (``extra`` holds targets) or a decoded Python object.


def init_tok2vec(model: Model, X: Optional[Tuple] = None, Y: Any = None) -> None:
    """``init`` of a unit-based model: only the tok2vec is initialized here; the torch layer is
    built later, once the component knows its labels."""
    model.layers[0].initialize(X=None if X is None else X[0])


def forward_units(model: Model, X: Tuple[List[Doc], Sequence[Unit], Any], is_train: bool):
    """tok2vec over the Docs, then the torch layer over the padded units (see above)."""
    docs, units, extra = X
    if len(model.layers) < 2:
        raise ValueError(f"the {model.name} model has no labels yet: initialize the component first")
    tok2vec, torch_layer = model.layers
    vectors, bp_vectors = tok2vec(docs, is_train)
    padded, lengths, bp_padded = pad_units(model.ops, vectors, units)
    output, bp_torch = torch_layer((padded, lengths, extra), is_train)

    def backprop(d_output) -> List[Doc]:
        return bp_vectors(bp_padded(bp_torch(d_output)[0]))

    return output, backprop


def convert_loss_outputs(model: Model, X_Ytorch, is_train: bool):
    """Torch -> Thinc for layers returning a scalar loss tensor (passed on as a float whose
    gradient is a float) or, when decoding, any other object (passed through)."""
    import torch

    _, Ytorch = X_Ytorch
    if not isinstance(Ytorch, torch.Tensor):
        return Ytorch, lambda dY: None
    loss = Ytorch

    def backprop(d_loss) -> ArgsKwargs:
        d = xp2torch(model.ops.asarray1f([float(d_loss)]).reshape(()), device=loss.device)
        return ArgsKwargs(args=([loss],), kwargs={"grad_tensors": [d]})

    return float(loss.detach()), backprop


class BuildsTorchLayerOnLoad:
    """Mixin for a ``TrainablePipe`` whose torch layer's shape depends on its cfg (label
    counts): ``from_bytes``/``from_disk`` read the saved cfg, call ``_build_torch_model()``,
    then load the weights into the freshly built layer. A component whose model comes from
    ``spacy-lal.Pretrained.v1`` takes its cfg from the trained component instead."""

    # cfg keys set by the factory from the pipeline config that only steer prediction (decoders,
    # where predicates come from): on load the config's values win over the saved cfg's, so
    # `spacy.load(path, config={"components": {name: {"decoder": ...}}})` is obeyed.
    RUNTIME_SETTINGS: Tuple[str, ...] = ()

    def _load_cfg(self, saved: Dict[str, Any]) -> None:
        settings = {key: self.cfg[key] for key in self.RUNTIME_SETTINGS}
        self.cfg.update(saved)
        self.cfg.update(settings)

    @property
    def max_length(self) -> int:
        """The longest sentence, in words, the model reads in one piece (see ``units.py``)."""
        return int(self.model.attrs["max_length"])

    def add_label(self, label: str) -> int:
        raise NotImplementedError(
            f"{self.name}: labels are read from the training data by initialize(), or given "
            f"there as labels={{...}} with the keys of `label_data`: {sorted(self.label_data)}"
        )

    def _learn(self, docs: List[Doc], units: List[Unit], batch: Any, *, drop: float, sgd: Optional[Any],
               losses: Dict[str, float]) -> Dict[str, float]:
        """One training step on a prepared batch: the model returns the loss itself, as a float,
        and its backprop takes the loss's gradient."""
        set_dropout_rate(self.model, drop)
        loss, backprop = self.model.begin_update((docs, units, batch))
        backprop(1.0)
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples, scores):
        raise NotImplementedError(f"{self.name} computes its loss inside update(), in its torch model")

    def _initialize_model(self, get_examples: Callable[[], Any]) -> None:
        """Initialize the tok2vec on a sample of the examples, then build the torch layer for
        the labels already in ``cfg``: its input width is the tok2vec's output width."""
        sample = [eg.x for _, eg in zip(range(10), get_examples())]
        self.model.initialize(X=(sample, make_units(sample, self.max_length), None))
        self.cfg["nI"] = self.model.layers[0].get_dim("nO")
        self._build_torch_model()

    def adopt_pretrained(self, factory: str, settings: Dict[str, Any]) -> bool:
        """Take labels and shapes from a pretrained model, keeping ``settings`` (the factory's
        own arguments); returns whether the model is pretrained."""
        from ..pretrained import adopt_pretrained

        return adopt_pretrained(self.name, factory, self.model, self.cfg, settings)

    def keeps_pretrained_weights(self) -> bool:
        """Whether ``initialize`` must leave the model alone: its weights are pretrained."""
        from ..pretrained import PRETRAINED_ATTR

        info = self.model.attrs.get(PRETRAINED_ATTR)
        if info is not None:
            logger.info(
                "%s: keeping the pretrained weights of %s (%r); training fine-tunes them. "
                "Give the component a model config of its own to train from scratch.",
                self.name, info["component"], info["pipeline"],
            )
        return info is not None

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        def load_model(data: bytes) -> None:
            self._build_torch_model()
            self.model.from_bytes(data)

        deserialize = {
            "cfg": lambda b: self._load_cfg(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
            "model": load_model,
        }
        util.from_bytes(bytes_data, deserialize, exclude)
        return self

    def from_disk(self, path, *, exclude=tuple()):
        def load_model(p) -> None:
            self._build_torch_model()
            with open(p, "rb") as file_:
                self.model.from_bytes(file_.read())

        deserialize = {
            "cfg": lambda p: self._load_cfg(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
            "model": load_model,
        }
        util.from_disk(path, deserialize, exclude)
        return self
