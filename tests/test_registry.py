"""Every registered name resolves, every factory builds, and the shipped configs validate."""
import configparser
import importlib
import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest
import spacy
from spacy.util import registry

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus" / "ewt"

# setup.cfg entry-point group -> the spaCy registry it fills.
REGISTRIES = {
    "spacy_factories": "factories",
    "spacy_architectures": "architectures",
    "spacy_scorers": "scorers",
    "spacy_readers": "readers",
}


def declared_entry_points() -> List[Tuple[str, str, str]]:
    """(group, name, "module:attr") for every entry point declared in setup.cfg."""
    parser = configparser.ConfigParser()
    parser.optionxform = str  # keep the names' case
    parser.read(ROOT / "setup.cfg")
    entries = []
    for group, lines in parser["options.entry_points"].items():
        for line in lines.strip().splitlines():
            name, _, target = line.partition("=")
            entries.append((group, name.strip(), target.strip()))
    return entries


ENTRY_POINTS = declared_entry_points()


def test_every_group_is_a_spacy_registry():
    assert {group for group, _, _ in ENTRY_POINTS} <= set(REGISTRIES)


@pytest.mark.parametrize("group,name,target", ENTRY_POINTS, ids=[f"{g}:{n}" for g, n, _ in ENTRY_POINTS])
def test_entry_point_resolves(group, name, target):
    module_name, _, attr = target.partition(":")
    declared = getattr(importlib.import_module(module_name), attr)
    installed = {ep.name: ep for ep in importlib.metadata.entry_points(group=group)}
    assert name in installed, (
        f"{name} is in setup.cfg but not installed: "
        "pip install --no-build-isolation --no-deps -e ."
    )
    assert installed[name].value == target
    assert installed[name].load() is declared
    assert getattr(registry, REGISTRIES[group]).get(name) is declared


FACTORIES = [name for group, name, _ in ENTRY_POINTS if group == "spacy_factories"]


@pytest.mark.parametrize("factory", FACTORIES)
def test_factory_adds_to_a_blank_pipeline(factory):
    nlp = spacy.blank("en")
    component = nlp.add_pipe(factory)
    assert nlp.pipe_names == [factory] and component.name == factory


@pytest.mark.parametrize("config", ["lal_parser_cpu.cfg", "lal_parser_trf.cfg"])
def test_config_validates(config):
    paths = {split: CORPUS / f"{split}.spacy" for split in ("train", "dev")}
    if not all(path.exists() for path in paths.values()):
        pytest.skip(f"no corpus under {CORPUS} (run the corpus step of project.yml)")
    if "trf" in config:
        pytest.importorskip("spacy_transformers")
    # Validation builds the pipeline: the transformer must come from the local package.
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [sys.executable, "-m", "spacy", "debug", "config", str(ROOT / "configs" / config)]
    for split, path in paths.items():
        command += [f"--paths.{split}", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Config is valid" in result.stdout
