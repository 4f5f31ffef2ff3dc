"""What a release is made of (scripts/check_release.py checks the built artifacts themselves)."""
import configparser
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "spacy_lal"


def module_folders():
    """Folders of spacy_lal that hold Python modules (the shipped pipelines' files aside)."""
    return sorted({p.parent for p in PACKAGE.rglob("*.py")
                   if "pipelines" not in p.relative_to(PACKAGE).parts[:1] and "__pycache__" not in p.parts})


def test_every_folder_of_modules_is_a_package():
    """`packages = find:` leaves out a folder without __init__.py, and its modules with it (#50:
    the wheel lacked pipeline/{parser,srl,spa,layers}, so the package did not import)."""
    missing = [str(folder.relative_to(ROOT)) for folder in module_folders() if not (folder / "__init__.py").is_file()]
    assert not missing


def test_the_shipped_pipelines_are_not_package_data():
    """The pipelines are packages of their own (pipelines/README.md): in the code's wheel they made
    it 129 MB, over what a package index takes."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert "pipelines" not in config["options.package_data"]["spacy_lal"]
    assert "prune spacy_lal/pipelines" in (ROOT / "MANIFEST.in").read_text()


def test_each_shipped_pipeline_has_a_package():
    for name in ("en_lal_ewt", "en_lal_ewt_trf"):
        assert (PACKAGE / "pipelines" / name / "config.cfg").is_file()
        folder = ROOT / "pipelines" / name
        assert f'setup_pipeline("{name}")' in (folder / "setup.py").read_text()
        assert "def load(" in (folder / name / "__init__.py").read_text()

