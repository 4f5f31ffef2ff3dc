"""Check a release as users get it: what the built artifacts hold, and what the installed package
does. ``scripts/test_release.sh`` runs both.

    python scripts/check_release.py files dist/        # the code's sdist and wheel, the pipelines' wheels
    python scripts/check_release.py installed          # run by the interpreter the wheels went into

``files``: the code's wheel holds every module of the checkout's ``spacy_lal/`` (a folder of
modules without ``__init__.py`` is what ``packages = find:`` leaves out), its compiled decoders,
every package-data file, every module an entry point names, and no shipped pipeline; the sdist
holds what building the wheel needs; each pipeline wheel holds its pipeline; every artifact is
under the 100 MB a package index takes by default.

``installed``: imported from outside the checkout, every module of the installed ``spacy_lal``
imports, every entry point of its distribution loads, each shipped pipeline loads by name from
its installed package and parses, ``nlp.add_pipe("lal_parser")`` starts from the installed
weights, and ``spacy-lal parse`` and ``python -m spacy_lal parse`` print a tree.
"""
import argparse
import importlib
import importlib.metadata
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Iterable, List, Set

ROOT = Path(__file__).resolve().parents[1]
MAX_BYTES = 100 * 1000 * 1000
PIPELINES = ("en_lal_ewt", "en_lal_ewt_trf")
DECODERS = ("cky", "eisner", "joint", "mst", "span_viterbi", "viterbi")


def checkout_modules() -> Set[str]:
    """``spacy_lal/...py`` paths of the checkout's modules (the pipelines' folders aside)."""
    package = ROOT / "spacy_lal"
    return {
        p.relative_to(ROOT).as_posix() for p in package.rglob("*.py")
        if "pipelines" not in p.relative_to(package).parts[:1] and "__pycache__" not in p.parts
    }


def package_data() -> Set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "spacy_lal" / "data").iterdir() if p.is_file()} | {
        "spacy_lal/py.typed"
    } | {p.relative_to(ROOT).as_posix() for ext in ("pyx", "pxd", "pyi") for p in (ROOT / "spacy_lal" / "decode").glob(f"*.{ext}")}


def entry_point_modules() -> Set[str]:
    """The module file of every ``module:attr`` entry point setup.cfg declares."""
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    modules = set()
    for value in config["options.entry_points"].values():
        for line in value.strip().splitlines():
            if "=" in line:
                module = line.split("=", 1)[1].strip().split(":")[0]
                modules.add(module.replace(".", "/") + ".py")
    return modules


def check_files(dist: Path) -> List[str]:
    problems = []
    wheels = sorted(dist.glob("spacy_lal-*.whl"))
    sdists = sorted(dist.glob("spacy_lal-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [f"{dist}: expected one spacy_lal wheel and one sdist, found {[p.name for p in wheels + sdists]}"]
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    wanted = checkout_modules() | package_data() | entry_point_modules()
    problems += [f"{wheels[0].name}: lacks {name}" for name in sorted(wanted - names)]
    for decoder in DECODERS:
        if not any(n.startswith(f"spacy_lal/decode/_{decoder}.") and n.endswith((".so", ".pyd")) for n in names):
            problems.append(f"{wheels[0].name}: lacks the compiled decoder _{decoder}")
    problems += [f"{wheels[0].name}: holds a shipped pipeline's file {n}" for n in sorted(names)
                 if n.startswith("spacy_lal/pipelines/")][:5]
    with tarfile.open(sdists[0]) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    for needed in ["setup.py", "setup.cfg", "pyproject.toml", *(f"spacy_lal/decode/_{d}.pyx" for d in DECODERS)]:
        if needed not in members:
            problems.append(f"{sdists[0].name}: lacks {needed}")
    problems += [f"{sdists[0].name}: holds a shipped pipeline's file {m}" for m in sorted(members)
                 if m.startswith("spacy_lal/pipelines/")][:5]
    for name in PIPELINES:
        found = sorted(dist.glob(f"{name}-*.whl"))
        if len(found) != 1:
            problems.append(f"{dist}: expected one {name} wheel, found {[p.name for p in found]}")
            continue
        members = zipfile.ZipFile(found[0]).namelist()
        source = ROOT / "spacy_lal" / "pipelines" / name
        expected = {p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file()}
        data = {m.split("/", 2)[2] for m in members if m.count("/") >= 2 and m.startswith(f"{name}/")}
        problems += [f"{found[0].name}: lacks {f}" for f in sorted(expected - data)]
    for artifact in wheels + sdists + sorted(dist.glob("en_lal_*.whl")):
        size = artifact.stat().st_size
        print(f"{artifact.name}: {size / 1e6:.1f} MB")
        if size > MAX_BYTES:
            problems.append(f"{artifact.name}: {size / 1e6:.1f} MB, over the {MAX_BYTES / 1e6:.0f} MB a package index takes")
    return problems


def check_installed() -> List[str]:
    import spacy_lal

    problems = []
    location = Path(spacy_lal.__file__).resolve().parent
    checkout = ROOT / "spacy_lal"  # the release's venv may live inside the checkout (.release/)
    if location == checkout:
        return [f"spacy_lal was imported from the checkout ({location}), not from an installed package"]
    for path in sorted(location.rglob("*.py")):
        module = ".".join(path.relative_to(location.parent).with_suffix("").parts).removesuffix(".__init__")
        if module.endswith("__main__"):
            continue
        try:
            importlib.import_module(module)
        except ImportError as error:
            if "ray" in str(error) or "transformers" in str(error):  # optional extras
                continue
            problems.append(f"{module}: {type(error).__name__}: {error}")
    for entry in importlib.metadata.distribution("spacy-lal").entry_points:
        try:
            entry.load()
        except Exception as error:  # noqa: BLE001  (a report of each, whatever it is)
            problems.append(f"entry point {entry.group}:{entry.name} = {entry.value}: {type(error).__name__}: {error}")
    import spacy

    for name in PIPELINES:
        try:
            nlp = spacy.load(name)
        except Exception as error:  # noqa: BLE001
            problems.append(f"spacy.load({name!r}): {type(error).__name__}: {error}")
            continue
        path = spacy_lal.pipeline_path(name)
        if checkout in path.resolve().parents:
            problems.append(f"spacy_lal.pipeline_path({name!r}) is in the checkout: {path}")
        doc = nlp("The cat sat on the mat.")
        if doc._.tree is None or not doc._.srl:
            problems.append(f"{name}: parsed 'The cat sat on the mat.' without a tree or frames")
    blank = spacy.blank("en")
    blank.add_pipe("sentencizer")
    blank.add_pipe("lal_parser")  # the factory's default model: the installed en_lal_ewt's weights
    if blank("The cat sat on the mat.")._.tree is None:
        problems.append("spacy.blank('en') + add_pipe('lal_parser') gave no tree")
    for command in (["spacy-lal"], [sys.executable, "-m", "spacy_lal"]):
        done = subprocess.run([*command, "parse", "The cat sat on the mat."], capture_output=True, text=True)
        if done.returncode != 0 or "tree:" not in done.stdout:
            problems.append(f"{' '.join(command)} parse: exit {done.returncode}: {done.stderr[-500:]}")
    return problems


def main(argv: Iterable[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    files = sub.add_parser("files")
    files.add_argument("dist", type=Path)
    sub.add_parser("installed")
    args = parser.parse_args(argv)
    problems = check_files(args.dist) if args.what == "files" else check_installed()
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_release {args.what}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
