"""setuptools for a shipped pipeline's own package (``pip install ./pipelines/NAME``).

The pipeline's files stay where training writes them, ``spacy_lal/pipelines/NAME`` (moving tens
of MB of weights would only grow the repository's history); the build copies them into the
package as spaCy's ``spacy package`` lays a pipeline out, ``NAME/LANG_NAME-VERSION/``, so that
``spacy.load("NAME")`` and ``spacy_lal.load("NAME")`` find it. The package's version and
requirements come from the pipeline's ``meta.json``. Building needs the checkout, hence no sdist:
the wheel is the release artifact (``scripts/build_release.sh``).
"""
import json
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

SPACY_LAL = Path(__file__).resolve().parent.parent / "spacy_lal"


def setup_pipeline(name: str) -> None:
    source = SPACY_LAL / "pipelines" / name
    if not (source / "meta.json").is_file():
        raise SystemExit(
            f"{source}: no pipeline here. A pipeline package is built from a spacy-lal checkout "
            f"(pip install ./pipelines/{name}), where its files are."
        )
    meta = json.loads((source / "meta.json").read_text(encoding="utf8"))
    data_dir = f"{meta['lang']}_{meta['name']}-{meta['version']}"
    code_version = _code_version()

    class BuildPipeline(build_py):
        def run(self) -> None:
            super().run()
            target = Path(self.build_lib) / name
            shutil.rmtree(target / data_dir, ignore_errors=True)
            shutil.copytree(source, target / data_dir, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy2(source / "meta.json", target / "meta.json")

    class NoSdist(sdist):
        def run(self) -> None:
            raise SystemExit(f"{name}: build the wheel (pip wheel ./pipelines/{name}); an sdist would lack the weights")

    # spacy-lal[transformers] and the like, pinned to the code these weights were trained with.
    requirements = [
        req if not req.startswith("spacy-lal") else f"{req}>={code_version}"
        for req in meta.get("requirements", [])
    ]
    if not any(req.startswith("spacy-lal") for req in requirements):
        requirements.append(f"spacy-lal>={code_version}")
    setup(
        name=name,
        version=meta["version"],
        description=meta.get("description", ""),
        long_description=_long_description(name, meta),
        long_description_content_type="text/markdown",
        license=meta.get("license"),
        packages=[name],
        python_requires=">=3.9",
        install_requires=[f"spacy{meta['spacy_version']}", *requirements],
        zip_safe=False,
        cmdclass={"build_py": BuildPipeline, "sdist": NoSdist},
    )


def _code_version() -> str:
    """spacy-lal's version from its ``__init__`` (``__version__ = "..."``), without importing it."""
    for line in (SPACY_LAL / "__init__.py").read_text(encoding="utf8").splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise SystemExit(f"{SPACY_LAL / '__init__.py'}: no __version__")


def _long_description(name: str, meta: dict) -> str:
    return (
        f"# {name}\n\n{meta.get('description', '')}\n\nA pipeline of "
        "spacy-lal: `spacy.load(\"" + name + "\")` or "
        f"`spacy_lal.load(\"{name}\")`. Accuracy: the `performance` of its meta.json.\n"
    )
