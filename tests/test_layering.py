"""The package's layers, as DEVELOPING.md draws them: imports only run downwards.

- ``nn/`` is plain torch: no spaCy, no Thinc;
- ``decode/`` is Cython and NumPy: no torch, spaCy or Thinc;
- ``doc/`` (the Doc model) imports none of the package's other folders;
- library code never imports the command line (``cli/``, ``__main__``) or the project's
  ``scripts/`` and ``benchmarks/``.
Read from the source (every ``import`` statement, including those inside functions), so an
import added anywhere is caught without running it.
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "spacy_lal"


def imported_modules(path: Path):
    """Absolute names of the modules ``path`` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(path.relative_to(PACKAGE.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, node.lineno
            for alias in node.names:  # `from . import cli`
                yield f"{module}.{alias.name}", node.lineno


def violations(folder: str, forbidden):
    found = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        for module, line in imported_modules(path):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    return found


@pytest.mark.parametrize(
    "folder, forbidden",
    [
        ("nn", ["spacy", "thinc", "spacy_lal.pipeline", "spacy_lal.decode", "spacy_lal.cli"]),
        ("decode", ["torch", "spacy", "thinc", "spacy_lal.nn", "spacy_lal.pipeline", "spacy_lal.cli"]),
        ("scoring", ["torch", "spacy_lal.pipeline", "spacy_lal.cli"]),
        ("corpora", ["torch", "spacy_lal.pipeline", "spacy_lal.cli"]),
        ("pipeline", ["spacy_lal.cli", "spacy_lal.corpus_parse", "spacy_lal.interpret", "spacy_lal.evaluation"]),
        # The Doc model is what the rest builds on: the components, readers and scorers above it.
        ("doc", ["torch", "thinc", "spacy_lal.nn", "spacy_lal.decode", "spacy_lal.pipeline", "spacy_lal.corpora",
                 "spacy_lal.scoring", "spacy_lal.cli", "spacy_lal.interpret", "spacy_lal.corpus_parse",
                 "spacy_lal.evaluation", "spacy_lal.pretrained", "spacy_lal.training", "spacy_lal.render"]),
        ("interpret", ["spacy_lal.cli", "spacy_lal.corpus_parse", "spacy_lal.evaluation"]),
        ("corpus_parse", ["spacy_lal.cli", "spacy_lal.interpret", "spacy_lal.evaluation"]),
        # What spacy train runs with: readers, callbacks, the optimizer; no component code.
        ("training", ["spacy_lal.pipeline", "spacy_lal.cli", "spacy_lal.interpret",
                      "spacy_lal.corpus_parse", "spacy_lal.evaluation"]),
    ],
)
def test_imports_run_downwards(folder, forbidden):
    assert violations(folder, forbidden) == []


# The command line sits on top of everything; the shipped pipelines' folder holds no code.
TOP_FOLDERS = {"cli", "pipelines", "data", "__pycache__"}


def test_every_folder_has_its_rule():
    """A new folder gets a row in test_imports_run_downwards (or is named top here)."""
    ruled = {row[0] for row in test_imports_run_downwards.pytestmark[0].args[1]}
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir()}
    assert folders - ruled - TOP_FOLDERS == set()


def test_the_pipeline_lookup_imports_no_pipeline_machinery():
    """``pretrained.py`` (which pipelines ship, where they are) is what pipeline/ builds on
    (``pipeline/layers/pretrained_model.py`` loads from it), so it must not import pipeline/ back."""
    found = [f"{module}:{line}" for module, line in imported_modules(PACKAGE / "pretrained.py")
             if module.startswith("spacy_lal.pipeline")]
    assert found == []


# Each component family's folder has the same four roles (spacy-experimental's layout), and each
# command's module is named after its command: every other module name is used once.
FAMILY_MODULES = {"component.py", "model.py", "adapter.py", "settings.py"}


def test_one_name_per_file():
    seen = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if path.name == "__init__.py" or path.name in FAMILY_MODULES or rel.parts[0] == "cli":
            continue
        seen.setdefault(path.name, []).append(str(rel))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


@pytest.mark.parametrize("folder, limit", [("", 450), ("pipeline", 400)])
def test_files_stay_small(folder, limit):
    """Every module under 450 lines, every pipeline/ module under 400: past that a file holds
    more than one thing (issue #53)."""
    long = {str(p.relative_to(PACKAGE)): n for p in sorted((PACKAGE / folder).rglob("*.py"))
            if (n := len(p.read_text(encoding="utf8").splitlines())) >= limit}
    assert long == {}


def test_no_library_module_imports_the_command_line_or_the_project_scripts():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] in ("cli", "__main__.py"):
            continue
        for module, line in imported_modules(path):
            if module.split(".")[0] in ("scripts", "benchmarks", "evaluate") or module.startswith("spacy_lal.cli"):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert found == []


def test_the_checker_sees_relative_and_nested_imports(tmp_path):
    """The checker itself: a relative import two levels up, inside a function, is resolved."""
    module = PACKAGE / "pipeline" / "parser" / "component.py"
    names = {name for name, _ in imported_modules(module)}
    assert "spacy_lal.doc.extensions" in names  # from ...doc.extensions import ...
    assert "spacy_lal.pipeline.base" in names  # from ..base import ...
    assert "spacy_lal.pipeline.parser.model" in names  # imported inside _build_torch_model


def test_the_code_names_files_that_exist_and_no_machine_path():
    """A docstring or comment that names a module (``adapter.py``, ``decode/_cky.pyx``) names one
    the repository has; none names a path of the machine it was written on."""
    import re

    root = PACKAGE.parent
    files = [p for p in root.rglob("*") if p.is_file() and not {".venv", ".git", ".release", "build"} & set(p.parts)]
    names = {p.name for p in files}
    relative = {p.relative_to(root).as_posix() for p in files}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf8")
        for match in re.finditer(r"[\w/.]*\w\.(?:py|pyx|pxd)\b", text):
            ref = match.group(0).lstrip("./")
            known = ref in names if "/" not in ref else any(r == ref or r.endswith("/" + ref) for r in relative)
            if not known:
                found.append(f"{path.relative_to(root)} names {ref}")
        for machine in re.findall(r"(?:/work|/home|/root|/tmp)/\w+", text):
            found.append(f"{path.relative_to(root)} names the machine path {machine}")
    assert found == []
