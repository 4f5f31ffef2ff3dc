"""The English pipeline shipped inside the package, and the architecture that makes
``nlp.add_pipe("lal_parser")`` / ``nlp.add_pipe("lal_srl")`` start from its weights.

The pipeline (``en_lal_ewt``: sentencizer, tok2vec, tagger, lal_parser, lemmatizer, lal_srl;
trained on UD/PropBank EWT by ``spacy project run all``) lives in
``spacy_lal/pipelines/en_lal_ewt`` and is installed with the package, so nothing is downloaded
at run time::

    import spacy_lal
    nlp = spacy_lal.load()                       # == spacy.load(spacy_lal.pipeline_path())

``spacy-lal.Pretrained.v1`` is the default ``model`` of the ``lal_parser`` and ``lal_srl``
factories: it loads one component from a shipped (or any trained) pipeline, with a private copy
of the tok2vec it listened to, and hands its trained model, labels and settings to the new
component. Any other ``model`` config means a model trained from scratch; see the README.
"""
from pathlib import Path
from typing import Any, Dict, List, Union

from spacy.language import Language
from spacy.util import load_config, registry
from thinc.api import Model

PIPELINES_DIR = Path(__file__).parent / "pipelines"
DEFAULT_PIPELINE = "en_lal_ewt"
PRETRAINED_ATTR = "lal_pretrained"  # model.attrs key: where the weights came from + pipe cfg
# The components whose outputs a sourced component may listen to: kept when loading it.
_EMBEDDERS = ("tok2vec", "transformer")


def shipped_pipelines() -> List[str]:
    """Names of the pipelines installed with the package."""
    if not PIPELINES_DIR.is_dir():
        return []
    return sorted(p.name for p in PIPELINES_DIR.iterdir() if (p / "config.cfg").is_file())


def pipeline_path(name: Union[str, Path] = DEFAULT_PIPELINE) -> Path:
    """The directory of a shipped pipeline (by name) or of any saved pipeline (by path)."""
    shipped = PIPELINES_DIR / str(name)
    if (shipped / "config.cfg").is_file():
        return shipped
    path = Path(name)
    if (path / "config.cfg").is_file():
        return path
    raise ValueError(
        f"No pretrained pipeline {str(name)!r}: shipped pipelines are {shipped_pipelines() or 'none'} "
        f"(in {PIPELINES_DIR}); otherwise give the directory of a saved spaCy pipeline. "
        "The shipped pipeline is built by `python -m spacy project run all`."
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
    model.attrs[PRETRAINED_ATTR] = {
        "pipeline": str(pipeline),
        "component": component,
        "factory": source.get_pipe_meta(component).factory,
        "cfg": dict(pipe.cfg),
    }
    return model


def adopt_pretrained(
    name: str, factory: str, model: Model, cfg: Dict[str, Any], settings: Dict[str, Any]
) -> bool:
    """Fill a new component's ``cfg`` from a ``spacy-lal.Pretrained.v1`` model: labels and
    shapes from the trained component, ``settings`` (the new factory's own arguments, such as
    the decoder) kept as given. Returns whether the model is pretrained."""
    info = model.attrs.get(PRETRAINED_ATTR)
    if info is None:
        return False
    if info["factory"] != factory:
        raise ValueError(
            f"{name}: the pretrained model is the {info['factory']!r} component {info['component']!r} "
            f"of {info['pipeline']!r}; a {factory!r} component cannot use it. Give {name} a model "
            "config of its own to train one."
        )
    cfg.update(info["cfg"])
    cfg.update(settings)
    return True
