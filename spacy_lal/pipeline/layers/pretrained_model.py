"""``spacy-lal.Pretrained.v1``, the default ``model`` of the ``lal_parser`` and ``lal_srl``
factories: it loads one component from a shipped (or any trained) pipeline
(:mod:`spacy_lal.pretrained` finds it), with a private copy of the tok2vec it listened to, and hands
its trained model, labels and settings to the new component (``adopt_pretrained``). Any other
``model`` config means a model trained from scratch; see docs/components.md.

The shipped tok2vecs read static vectors (GloVe) from the vocab, which a model cannot carry:
a component adopting such a model brings the source pipeline's vectors into its own vocab when
that vocab has none (logged), and refuses, with a clear error, a vocab holding other vectors
(the model would silently read the wrong ones).
"""
from pathlib import Path
from typing import Any, Dict, Optional, Union

from spacy.util import load_config, registry
from spacy.vocab import Vocab
from thinc.api import Model

from ...logs import logger
from ...pretrained import DEFAULT_PIPELINE, load, pipeline_path
from .gemm import set_int8

PRETRAINED_ATTR = "lal_pretrained"  # model.attrs key: where the weights came from + pipe cfg
# The components whose outputs a sourced component may listen to: kept when loading it.
_EMBEDDERS = ("tok2vec", "transformer")


@registry.architectures("spacy-lal.Pretrained.v1")
def build_pretrained(pipeline: str = DEFAULT_PIPELINE, component: str = "lal_parser") -> Model:
    """The trained model of ``component`` in ``pipeline`` (a shipped name or a path).

    A Tok2Vec listener in it is replaced by a copy of the tok2vec it listened to, so the model
    stands alone in the pipeline it is added to. The component's labels and settings travel in
    ``model.attrs["lal_pretrained"]``; the component adopts them (``adopt_pretrained``)."""
    path = pipeline_path(pipeline)
    names = list(load_config(path / "config.cfg")["nlp"]["pipeline"])
    if component not in names:
        raise ValueError(f"The pipeline {pipeline!r} has no component {component!r}; it has {names}.")
    keep = {component} | {name for name in names if name in _EMBEDDERS}
    source = load(path, exclude=[name for name in names if name not in keep])
    for name, pipe in source.pipeline:
        if component in getattr(pipe, "listening_components", []):
            source.replace_listeners(name, component, ["model.tok2vec"])
    pipe = source.get_pipe(component)
    model = pipe.model
    # The shipped tok2vecs predict in int8 (their config); a component added on its own takes the
    # factory's settings, float among them (``quantize``), its private tok2vec copy included:
    # spacy_lal.quantize(nlp) turns both on.
    set_int8(model, False)
    model.attrs[PRETRAINED_ATTR] = {
        "pipeline": str(pipeline),
        "component": component,
        "factory": source.get_pipe_meta(component).factory,
        "cfg": dict(pipe.cfg),
        "vectors": source.vocab.vectors.n_keys > 0,
    }
    return model


def adopt_pretrained(
    name: str, factory: str, model: Model, cfg: Dict[str, Any], settings: Dict[str, Any],
    vocab: Optional[Vocab] = None,
) -> bool:
    """Fill a new component's ``cfg`` from a ``spacy-lal.Pretrained.v1`` model: labels and
    shapes from the trained component, ``settings`` (the new factory's own arguments, such as
    the decoder) kept as given; the source's static vectors go into ``vocab`` (see the module
    docstring). Returns whether the model is pretrained."""
    info = model.attrs.get(PRETRAINED_ATTR)
    if info is None:
        return False
    if info.get("vectors") and vocab is not None:
        share_vectors(name, vocab, info["pipeline"])
    if info["factory"] != factory:
        raise ValueError(
            f"{name}: the pretrained model is the {info['factory']!r} component {info['component']!r} "
            f"of {info['pipeline']!r}; a {factory!r} component cannot use it. Give {name} a model "
            "config of its own to train one."
        )
    cfg.update(info["cfg"])
    cfg.update(settings)
    return True


def share_vectors(name: str, vocab: Vocab, pipeline: Union[str, Path]) -> None:
    """Give ``vocab`` the static vectors of ``pipeline`` (whose model ``name`` adopts) if it has
    none; raise if it has different ones."""
    source = Vocab().from_disk(pipeline_path(pipeline) / "vocab", exclude=["strings", "lookups"]).vectors
    if vocab.vectors.n_keys == 0:
        vocab.vectors = source
        logger.info("%s: added the static vectors of %s (%d keys) to the pipeline's vocab", name, pipeline,
                    source.n_keys)
    elif vocab.vectors != source:
        raise ValueError(
            f"{name}: the pretrained model reads the static vectors of {str(pipeline)!r} "
            f"({source.shape[0]} x {source.shape[1]}), but this pipeline's vocab has other vectors "
            f"({vocab.vectors.shape[0]} x {vocab.vectors.shape[1]}), which it would read instead. Add it to "
            "a pipeline without vectors (such as spacy.blank or a small pipeline), or train a model "
            "of your own on your vectors."
        )
