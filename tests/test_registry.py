"""Every registered name resolves, every factory builds, and the shipped configs validate."""
import configparser
import importlib
import importlib.metadata
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest
import spacy
from spacy.util import registry

import spacy_lal
from spacy_lal.pretrained import pipeline_path, shipped_pipelines

ROOT = Path(__file__).resolve().parent.parent

# setup.cfg entry-point group -> the spaCy registry it fills.
REGISTRIES = {
    "spacy_factories": "factories",
    "spacy_architectures": "architectures",
    "spacy_scorers": "scorers",
    "spacy_readers": "readers",
    "spacy_augmenters": "augmenters",
    "spacy_callbacks": "callbacks",
    "spacy_loggers": "loggers",
    "spacy_tokenizers": "tokenizers",
    # Thinc's registries take entry points of their own group names.
    "thinc_schedules": "schedules",
    "thinc_optimizers": "optimizers",
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


# The registries' entry points; the console script (spacy-lal) is checked apart.
ENTRY_POINTS = [entry for entry in declared_entry_points() if entry[0] != "console_scripts"]


def test_the_console_script_is_the_cli():
    from spacy_lal.__main__ import main

    (script,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "spacy-lal"]
    assert ("console_scripts", "spacy-lal", script.value) in declared_entry_points()
    assert script.load() is main


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


def test_every_registered_function_has_an_entry_point():
    """What spacy_lal registers by import must also be findable without importing it, so that a
    config naming it works in a fresh process (spaCy loads entry points, not our modules)."""
    import pkgutil

    for module in pkgutil.walk_packages(spacy_lal.__path__, "spacy_lal."):
        if not module.name.startswith("spacy_lal.cli"):
            importlib.import_module(module.name)
    declared = {(REGISTRIES[group], name) for group, name, _ in ENTRY_POINTS}
    ours = set()
    for registry_name in set(REGISTRIES.values()) | {"misc", "callbacks", "loggers", "batchers"}:
        table = getattr(registry, registry_name)
        for name, func in table.get_all().items():
            if getattr(func, "__module__", "").startswith("spacy_lal"):
                ours.add((registry_name, name))
    ours |= {("factories", name) for name in spacy.util.registry.factories.get_all() if name.startswith("lal_")}
    assert ours, "nothing of spacy_lal was found in the registries"
    missing = sorted(ours - declared)
    assert not missing, f"registered without an entry point in setup.cfg: {missing}"


FACTORIES = [name for group, name, _ in ENTRY_POINTS if group == "spacy_factories"]


@pytest.mark.parametrize("factory", FACTORIES)
def test_factory_adds_to_a_blank_pipeline(factory):
    nlp = spacy.blank("en")
    component = nlp.add_pipe(factory)
    assert nlp.pipe_names == [factory] and component.name == factory


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory, parser_sentences, parser_gold_doc):
    """A .spacy file of the parser sentences: validation only needs paths that exist."""
    from spacy.tokens import DocBin

    vocab = spacy.blank("en").vocab
    path = tmp_path_factory.mktemp("corpus") / "tiny.spacy"
    docs = [parser_gold_doc(vocab, *sentence) for sentence in parser_sentences]
    DocBin(docs=docs, store_user_data=True).to_disk(path)
    return path


# Assembled from trained pipelines (`spacy assemble`), not trained: tested on its own below.
ASSEMBLY_CONFIGS = {"en_lal_ewt.cfg"}


@pytest.mark.parametrize(
    "config", sorted(p.name for p in (ROOT / "configs").glob("*.cfg") if p.name not in ASSEMBLY_CONFIGS)
)
def test_config_validates(config, tiny_corpus, monkeypatch, capsys):
    """What `spacy debug config` does, in this process (a process per config spent about 10 s on
    imports alone): build the pipeline, resolve [initialize] and [training]. Validation builds the
    pipeline: the transformer comes from the local package (conftest.py keeps the hub offline).
    That every registered name is found through its entry point, as a fresh process finds it, is
    test_every_registered_function_has_an_entry_point's."""
    from spacy.cli.debug_config import debug_config

    if "trf" in config:
        pytest.importorskip("spacy_transformers")
    monkeypatch.chdir(ROOT)
    overrides = {"paths.train": str(tiny_corpus), "paths.dev": str(tiny_corpus)}
    sources = [key for key in ("student", "teacher") if key in spacy.util.load_config(ROOT / "configs" / config)["paths"]]
    if sources and "en_lal_ewt" not in shipped_pipelines():
        pytest.skip("sources its components from a trained pipeline: the shipped one stands in")
    overrides.update({f"paths.{key}": str(pipeline_path()) for key in sources})
    try:
        debug_config(ROOT / "configs" / config, overrides=overrides)
    except SystemExit:  # spaCy's show_validation_error has printed the errors
        pytest.fail(f"{config} does not validate:\n{capsys.readouterr().out}")
    assert "Config is valid" in capsys.readouterr().out


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
def test_package_config_assembles_the_shipped_pipeline(tmp_path):
    """`spacy project run package` from trained pipelines; here the shipped one is the source."""
    shipped = pipeline_path("en_lal_ewt")
    command = [sys.executable, "-m", "spacy", "assemble", str(ROOT / "configs" / "en_lal_ewt.cfg")]
    command += [str(tmp_path / "out"), "--paths.parser", str(shipped), "--paths.srl", str(shipped)]
    command += ["--paths.lemmatizer", str(shipped), "--paths.senter", str(shipped)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assembled = spacy.load(tmp_path / "out")
    assert assembled.pipe_names == spacy_lal.load().pipe_names
    text = "Mary borrowed a book. She read it."
    ours, theirs = assembled(text), spacy_lal.load()(text)
    def annotations(doc):
        return [(t.tag_, t.lemma_, t.head.i, t.dep_) for t in doc]

    assert annotations(ours) == annotations(theirs)
    assert [f.data for f in ours._.srl] == [f.data for f in theirs._.srl]


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
def test_package_script_counts_the_labellers_senses_when_asked(tmp_path):
    """scripts/package_pipeline.py --sense-counts: the assembled labeller gets the sense prior's
    counts of the corpus given (a fine-tuned labeller sourced from a run that had none); it is
    saved to predict in int8 (the shipped default), and --test writes the scores of the pipeline
    as saved into its meta (scripts/score_meta.py)."""
    import srsly
    from spacy.tokens import DocBin

    from spacy_lal.pipeline.srl.targets import count_senses

    shipped = pipeline_path("en_lal_ewt")
    docs = list(spacy_lal.load().pipe(["Mary borrowed a book.", "She left the library and went home."]))
    DocBin(docs=docs, store_user_data=True).to_disk(tmp_path / "train.spacy")
    command = [sys.executable, str(ROOT / "scripts" / "package_pipeline.py"), str(shipped), str(shipped),
               str(shipped), str(tmp_path / "out"), "--senter", str(shipped), "--sense-counts", str(tmp_path / "train.spacy"),
               "--test", str(tmp_path / "train.spacy"), "--metrics", str(tmp_path / "metrics")]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    counts = srsly.read_json(tmp_path / "out" / "lal_srl" / "cfg")["sense_counts"]
    expected = count_senses(frame.sense for doc in docs for frame in doc._.srl)
    assert counts == expected and {"borrow", "leave", "go"} <= set(counts)
    assembled = spacy.load(tmp_path / "out")
    assert assembled.meta["name"] == "out"
    assert assembled.get_pipe("lal_parser").cfg["quantize"] is True
    assert all(layer.ops.int8 for layer in assembled.get_pipe("tok2vec").model.walk() if hasattr(layer.ops, "int8"))
    # scored on the shipped pipeline's own parses (int8 both): the same parses, so every tree, head and tag
    performance = assembled.meta["performance"]
    assert performance["tree_f"] == performance["dep_las"] == performance["tag_acc"] == 100.0
    assert "end_to_end_srl_f" in performance and (tmp_path / "metrics" / "out_test.json").exists()
