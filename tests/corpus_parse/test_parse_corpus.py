"""parse_corpus / `python -m spacy_lal parse-corpus`: inputs, output shards, resume, failures,
and the Ray engine (a local 2-CPU cluster) giving what single-process ``nlp.pipe`` gives."""
import functools
import json
import os
import sys
from pathlib import Path
from typing import Any, List, Tuple

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import DocBin
from spacy.util import fix_random_seed

from spacy_lal.__main__ import main as cli
from spacy_lal.corpus_parse import parse_corpus
from spacy_lal.corpus_parse.inputs import find_sources
from spacy_lal.corpus_parse.outputs import SUFFIXES, format_docs

NOUNS = ["cat", "dog", "bank", "river", "student", "report", "city", "printer"]
VERBS = ["saw", "liked", "sold", "moved", "fixed", "wrote"]


def texts(n: int, seed: int = 0) -> List[str]:
    """Short documents, one or two sentences each, all different."""
    out = []
    for i in range(n):
        a, b, v = NOUNS[(i + seed) % 8], NOUNS[(3 * i + 1) % 8], VERBS[(i // 8 + seed) % 6]
        text = f"The {a} {v} {i} {b}s."
        out.append(text + (f" Then the {b} left, didn't it?" if i % 3 == 0 else ""))
    return out


# --- small pipelines, built the same way in every process (workers get these functions pickled) ---


def small_nlp(*traps: Tuple[str, str, str]) -> Language:
    """blank English + sentencizer + an initialized, untrained tagger (same weights everywhere),
    then a trap component per (marker, how, flag): see :func:`_make_trap`."""
    if not Language.has_factory("test_corpus_trap"):
        Language.factory("test_corpus_trap", default_config={"marker": "", "how": "", "flag": ""}, func=_make_trap)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    tagger = nlp.add_pipe("tagger")
    for tag in ("DT", "NN", "VB", "CD", "PUNCT"):
        tagger.add_label(tag)
    for k, (marker, how, flag) in enumerate(traps):
        nlp.add_pipe("test_corpus_trap", name=f"trap{k}", config={"marker": marker, "how": how, "flag": flag})
    fix_random_seed(0)
    nlp.initialize()
    return nlp


def _make_trap(nlp: Language, name: str, marker: str, how: str, flag: str) -> Any:
    """A component that misbehaves on documents containing ``marker``: raises an error
    (``raise``), is interrupted (``interrupt``), or kills its process (``exit``; ``exit_once``:
    only if the file ``flag`` does not exist yet, which it creates)."""

    def trap(doc: Any) -> Any:
        if marker in doc.text:
            if how == "raise":
                raise ValueError("this document is poison")
            if how == "interrupt":
                raise KeyboardInterrupt
            if how == "exit" or (how == "exit_once" and not os.path.exists(flag)):
                Path(flag).touch()
                os._exit(3)  # the worker process dies, as when it is killed
        return doc

    return trap


def trap_nlp(*traps: Tuple[str, str, str]) -> Any:
    return functools.partial(small_nlp, *traps)


@pytest.fixture(scope="module")
def reference() -> Language:
    return small_nlp()


# --- reading the output back ---


def shards(out: Path, fmt: str, prefix: str = "") -> List[Path]:
    """The finished shards whose names start with ``prefix``, in order."""
    names = [json.loads(line)["shard"] for line in (out / "manifest.jsonl").read_text().splitlines()]
    return [out / f"{name}{SUFFIXES[fmt]}" for name in sorted(names) if name.startswith(prefix)]


def output_docs(out: Path, nlp: Language, prefix: str = "") -> List[Any]:
    return [doc for path in shards(out, "spacy", prefix) for doc in DocBin().from_disk(path).get_docs(nlp.vocab)]


def output_text(out: Path, fmt: str, prefix: str = "") -> str:
    return "".join(path.read_text(encoding="utf8") for path in shards(out, fmt, prefix))


def annotation(doc: Any) -> Tuple[Any, ...]:
    return (doc.text, [t.tag_ for t in doc], [s.start for s in doc.sents], [t.to_string() for t in doc._.trees],
            [str(f) for f in doc._.srl])


def expected_text(docs: List[Any], ids: List[str], fmt: str) -> str:
    for doc, doc_id in zip(docs, ids):
        doc.user_data["id"] = doc_id
    return format_docs(docs, fmt)["data"]


def check_equal_to_pipe(out: Path, fmt: str, nlp: Language, inputs: List[Any], ids: List[str], prefix: str = "") -> None:
    """The output (shards starting with ``prefix``) holds every input id once, in order, annotated
    as single-process nlp.pipe does."""
    if fmt == "spacy":
        got = output_docs(out, nlp, prefix)
        assert [doc.user_data["id"] for doc in got] == ids
        assert [annotation(d) for d in got] == [annotation(d) for d in nlp.pipe(inputs)]
    else:
        assert output_text(out, fmt, prefix) == expected_text(list(nlp.pipe(inputs)), ids, fmt)


# --- inputs ---


def write_lines(path: Path, lines: List[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf8")
    return path


def test_inputs_give_each_document_an_id_and_keep_metadata(tmp_path: Path, reference: Language) -> None:
    write_lines(tmp_path / "a.txt", ["First doc.", "", "  ", "Second doc."])
    write_lines(tmp_path / "b.jsonl", [json.dumps({"text": "J one.", "id": 7, "url": "u"}), "", json.dumps({"text": "J two."})])
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "x.txt").write_text("Whole file\nis one document.\n", encoding="utf8")
    (tmp_path / "docs" / "sub" / "y.txt").write_text("Another.", encoding="utf8")
    docbin = DocBin(store_user_data=True, docs=[reference.make_doc("D one."), reference.make_doc("D two.")])
    docbin.to_disk(tmp_path / "c.spacy")

    sources = find_sources([tmp_path / "a.txt", str(tmp_path / "*.jsonl"), tmp_path / "c.spacy", tmp_path / "docs"])
    records = {s.name: [(r.id, r.text if r.doc is None else r.doc.text, r.meta) for r in s.records()] for s in sources}
    assert records == {
        "a": [("a.txt:1", "First doc.", {}), ("a.txt:4", "Second doc.", {})],
        "b": [("7", "J one.", {"url": "u"}), ("b.jsonl:3", "J two.", {})],
        "c": [("c.spacy:1", "D one.", {}), ("c.spacy:2", "D two.", {})],
        "docs": [("docs/sub/y.txt", "Another.", {}), ("docs/x.txt", "Whole file\nis one document.\n", {})],
    }
    assert [s.count() for s in sources] == [2, 2, 2, 2]
    # The same directory read one document a line.
    lines = find_sources(tmp_path / "docs", text_unit="line")
    assert [[r.id for r in s.records()] for s in lines] == [["sub/y.txt:1"], ["x.txt:1", "x.txt:2"]]


@pytest.mark.parametrize(
    "line, message",
    [('{"text": "fine"', "not valid JSON (Expecting ',' delimiter at character 16)"),
     ('{"title": "no text"}', "expected a JSON object with a string field 'text', got no 'text'"),
     ('["a list"]', "expected a JSON object with a string field 'text', got no 'text'"),
     ('{"text": 3}', "expected a JSON object with a string field 'text', got int")],
)
def test_bad_jsonl_line_is_failed_naming_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = write_lines(tmp_path / "in.jsonl", ['{"text": "ok"}', "", line, '{"text": "ok too"}'])
    summary = parse_corpus(path, tmp_path / "out", model=small_nlp, progress=False)
    assert (summary.documents, summary.failed, summary.bad_input) == (2, 1, 1)
    failed = [json.loads(line) for line in (tmp_path / "out" / "failed.jsonl").read_text().splitlines()]
    assert failed == [{"id": "in.jsonl:3", "shard": "in-00000", "file": str(path), "line": 3, "error": message}]
    assert [(d.user_data["id"], d.text) for d in output_docs(tmp_path / "out", spacy.blank("en"))] == [
        ("in.jsonl:1", "ok"), ("in.jsonl:4", "ok too")]


def test_missing_input_and_unknown_model_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no input matches"):
        parse_corpus(str(tmp_path / "*.txt"), tmp_path / "out")
    path = write_lines(tmp_path / "a.txt", ["Hi."])
    with pytest.raises(ValueError, match="cannot find the pipeline 'no/such/pipeline'"):
        parse_corpus(path, tmp_path / "out", model="no/such/pipeline")


def test_transformer_pipelines_are_recognised_for_gpu_workers(tmp_path: Path) -> None:
    from spacy_lal.corpus_parse.worker import uses_transformer

    (tmp_path / "trf").mkdir()
    config = Path(__file__).parents[2] / "configs" / "lal_parser_trf.cfg"
    (tmp_path / "trf" / "config.cfg").write_text(config.read_text(encoding="utf8"), encoding="utf8")
    assert uses_transformer(tmp_path / "trf")
    assert not uses_transformer(None)  # the shipped en_lal_ewt: tok2vec
    assert not uses_transformer(small_nlp)


# --- the local engine ---


@pytest.mark.parametrize("fmt", ["spacy", "jsonl", "conllu", "ptb", "conll05"])
def test_local_engine_writes_what_nlp_pipe_gives(tmp_path: Path, reference: Language, fmt: str) -> None:
    docs = texts(45)
    path = write_lines(tmp_path / "in.txt", docs)
    summary = parse_corpus(path, tmp_path / "out", model=small_nlp, format=fmt, batch_size=7, shard_size=20, progress=False)
    ids = [f"in.txt:{i}" for i in range(1, 46)]
    check_equal_to_pipe(tmp_path / "out", fmt, reference, docs, ids)
    assert (summary.documents, summary.failed, summary.shards_written) == (45, 0, 3)
    assert summary.words == sum(len(d) for d in reference.pipe(docs))
    if fmt in ("ptb", "conll05"):  # ids beside the id-less formats, with each document's sentences
        id_lines = "".join((tmp_path / "out" / f"in-0000{k}.ids").read_text() for k in range(3))
        n_sents = [len(list(d.sents)) for d in reference.pipe(docs)]
        assert id_lines == "".join(f"{i}\t{n}\n" for i, n in zip(ids, n_sents))


def test_local_engine_with_processes_writes_what_nlp_pipe_gives(tmp_path: Path, reference: Language) -> None:
    docs = texts(40)
    path = write_lines(tmp_path / "in.txt", docs)
    summary = parse_corpus(path, tmp_path / "out", model=small_nlp, n_process=2, batch_size=5, shard_size=20,
                           progress=False)
    assert (summary.documents, summary.shards_written) == (40, 2)
    check_equal_to_pipe(tmp_path / "out", "spacy", reference, docs, [f"in.txt:{i}" for i in range(1, 41)])


def test_jsonl_output_keeps_ids_and_metadata(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "in.jsonl", [json.dumps({"id": "d1", "text": "A cat.", "lang": "en", "n": 1}),
                                                json.dumps({"text": "A dog."})])
    parse_corpus(path, tmp_path / "out", model=small_nlp, format="jsonl", progress=False)
    rows = [json.loads(line) for line in output_text(tmp_path / "out", "jsonl").splitlines()]
    assert [(r["id"], r["meta"], r["text"]) for r in rows] == [("d1", {"lang": "en", "n": 1}, "A cat."),
                                                               ("in.jsonl:2", {}, "A dog.")]


def test_failing_document_goes_to_the_failed_file(tmp_path: Path, reference: Language) -> None:
    docs = texts(30)
    docs[11] = "This one is POISON."
    path = write_lines(tmp_path / "in.txt", docs)
    summary = parse_corpus(path, tmp_path / "out", model=trap_nlp(("POISON", "raise", "")), batch_size=8, shard_size=10,
                           progress=False)
    assert (summary.documents, summary.failed) == (29, 1)
    failed = [json.loads(line) for line in (tmp_path / "out" / "failed.jsonl").read_text().splitlines()]
    assert failed == [{"id": "in.txt:12", "shard": "in-00001", "file": str(path), "line": 12,
                       "error": "ValueError: this document is poison"}]
    kept = [t for i, t in enumerate(docs) if i != 11]
    check_equal_to_pipe(tmp_path / "out", "spacy", reference, kept, [f"in.txt:{i}" for i in range(1, 31) if i != 12])


def test_resume_after_an_interrupted_run(tmp_path: Path, reference: Language) -> None:
    docs = texts(50)
    docs[33] = "STOP here, as if Ctrl-C was pressed."
    path = write_lines(tmp_path / "in.txt", docs)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        parse_corpus(path, out, model=trap_nlp(("STOP", "interrupt", "")), batch_size=5, shard_size=10, progress=False)
    done = [json.loads(line)["shard"] for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert done == ["in-00000", "in-00001", "in-00002"]
    assert sorted(p.name for p in out.glob("in-*")) == [f"in-0000{k}.spacy" for k in range(3)]
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("in-*")}

    summary = parse_corpus(path, out, model=small_nlp, batch_size=5, shard_size=10, progress=False)
    assert (summary.shards_skipped, summary.documents_skipped) == (3, 30)
    assert (summary.shards_written, summary.documents) == (2, 20)
    assert {p: (out / p).stat().st_mtime_ns for p in stamps} == stamps  # finished shards untouched
    check_equal_to_pipe(out, "spacy", reference, docs, [f"in.txt:{i}" for i in range(1, 51)])
    again = parse_corpus(path, out, model=small_nlp, batch_size=5, shard_size=10, progress=False)
    assert (again.shards_written, again.shards_skipped) == (0, 5)


def test_torn_manifest_line_redoes_that_shard(tmp_path: Path, reference: Language) -> None:
    docs = texts(20)
    path = write_lines(tmp_path / "in.txt", docs)
    out = tmp_path / "out"
    parse_corpus(path, out, model=small_nlp, shard_size=10, progress=False)
    lines = (out / "manifest.jsonl").read_text().splitlines()
    (out / "manifest.jsonl").write_text(lines[0] + "\n" + lines[1][:25], encoding="utf8")  # a crash mid-append
    summary = parse_corpus(path, out, model=small_nlp, shard_size=10, progress=False)
    assert (summary.shards_skipped, summary.shards_written) == (1, 1)
    check_equal_to_pipe(out, "spacy", reference, docs, [f"in.txt:{i}" for i in range(1, 21)])


def test_rerun_with_other_settings_or_changed_input_is_refused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "in.txt", texts(12))
    out = tmp_path / "out"
    parse_corpus(path, out, model=small_nlp, shard_size=5, progress=False)
    with pytest.raises(ValueError, match="shard_size: 5 then, 4 now"):
        parse_corpus(path, out, model=small_nlp, shard_size=4, progress=False)
    write_lines(path, texts(12, seed=1)[:1] + texts(12)[1:])  # the same count, another first line
    with pytest.raises(ValueError, match="changed since shard in-00000 was written"):
        parse_corpus(path, out, model=small_nlp, shard_size=5, progress=False)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = tmp_path / "model"
    small_nlp().to_disk(model)
    path = write_lines(tmp_path / "in.txt", texts(9))
    args = ["parse-corpus", str(path), str(tmp_path / "out"), "--model", str(model), "--format", "conllu",
            "--shard-size", "4", "--no-progress"]
    assert cli(args) == 0
    assert "parsed 9 documents" in capsys.readouterr().out
    assert len(list((tmp_path / "out").glob("*.conllu"))) == 3
    bad = tmp_path / "bad.spacy"
    bad.write_bytes(b"{oops")
    assert cli(["parse-corpus", str(bad), str(tmp_path / "out2"), "--model", str(model)]) == 1
    assert f"parse-corpus: {bad}: not a .spacy DocBin" in capsys.readouterr().err


# --- the Ray engine ---


@pytest.fixture(scope="module")
def ray_cluster() -> Any:
    ray = pytest.importorskip("ray")
    from ray import cloudpickle

    # The workers cannot import this test module: send its pipeline functions by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def write_input(kind: str, folder: Path, docs: List[str], nlp: Language) -> Tuple[Any, List[str], List[Any]]:
    """An input of each kind in ``folder`` holding ``docs``: (path, expected ids relative to the
    folder's parent, what nlp.pipe takes)."""
    folder.mkdir()
    n, where = len(docs), folder.name
    if kind == "lines":
        return write_lines(folder / "in.txt", docs), [f"{where}/in.txt:{i}" for i in range(1, n + 1)], docs
    if kind == "jsonl":
        write_lines(folder / "in.jsonl", [json.dumps({"id": f"j{i}", "text": t}) for i, t in enumerate(docs)])
        return folder / "in.jsonl", [f"j{i}" for i in range(n)], docs
    if kind == "files":
        for i, text in enumerate(docs):
            (folder / f"doc{i:04d}.txt").write_text(text, encoding="utf8")
        return folder, [f"{where}/doc{i:04d}.txt" for i in range(n)], docs
    made = [nlp.make_doc(t) for t in docs]
    for i, doc in enumerate(made):
        doc.user_data["sent_id"] = f"s{i}"
    for part in range(2):  # two DocBin shards, given as a glob
        DocBin(store_user_data=True, docs=made[part * n // 2 : (part + 1) * n // 2]).to_disk(folder / f"p{part}.spacy")
    fresh = list(DocBin(store_user_data=True, docs=made).get_docs(nlp.vocab))
    return str(folder / "p*.spacy"), [f"s{i}" for i in range(n)], fresh


KINDS = ("lines", "jsonl", "files", "docbin")


def test_ray_engine_writes_what_nlp_pipe_gives(ray_cluster: Any, tmp_path: Path, reference: Language) -> None:
    """Every input kind in one run: 240 documents of each, 2 workers, batches of 16. (A text
    format goes through Ray in the next test; the local tests cover every format.)"""
    fmt = "spacy"
    written = {kind: write_input(kind, tmp_path / kind, texts(240, seed=k), reference) for k, kind in enumerate(KINDS)}
    summary = parse_corpus([path for path, _, _ in written.values()], tmp_path / "out", model=small_nlp, engine="ray",
                           format=fmt, batch_size=16, shard_size=100, progress=False)
    assert (summary.documents, summary.failed, summary.workers) == (4 * 240, 0, 2)
    assert summary.shards_written == 3 * 3 + 2 * 2  # the DocBins hold 120 documents each
    for kind, (_, ids, inputs) in written.items():
        check_equal_to_pipe(tmp_path / "out", fmt, reference, inputs, ids, prefix=kind)


@pytest.mark.slow  # worker processes killed and restarted: about a minute
def test_ray_killed_worker_loses_nothing_and_deadly_document_is_failed(ray_cluster: Any, tmp_path: Path,
                                                                       reference: Language) -> None:
    """A worker killed once mid-batch: the batch is retried, nothing lost or written twice. A
    document that kills every worker parsing it: its batch is split until it is alone, then failed."""
    docs = texts(200)
    docs[123] = "KILL the worker that parses this, once."
    docs[57] = "A DEADLY document."
    path = write_lines(tmp_path / "in.txt", docs)
    flag = tmp_path / "killed"
    model = trap_nlp(("KILL", "exit_once", str(flag)), ("DEADLY", "exit", str(tmp_path / "deadly")))
    summary = parse_corpus(path, tmp_path / "out", model=model, engine="ray", format="jsonl", batch_size=2,
                           shard_size=50, retries=1, progress=False)
    assert flag.exists()  # a worker did die on the KILL document
    assert (summary.documents, summary.failed) == (199, 1)
    [failed] = [json.loads(line) for line in (tmp_path / "out" / "failed.jsonl").read_text().splitlines()]
    assert failed["id"] == "in.txt:58" and failed["error"].startswith("the worker died on it 2 times")
    check_equal_to_pipe(tmp_path / "out", "jsonl", reference, docs[:57] + docs[58:],
                        [f"in.txt:{i}" for i in range(1, 201) if i != 58])


def test_ray_with_the_shipped_pipeline_equals_nlp_pipe(ray_cluster: Any, tmp_path: Path, everyday_texts: List[str]) -> None:
    import spacy_lal

    nlp = spacy_lal.load()
    docs = everyday_texts * 5
    docs = [f"{text} ({i})" for i, text in enumerate(docs)]
    path = write_lines(tmp_path / "in.txt", docs)
    parse_corpus(path, tmp_path / "out", engine="ray", batch_size=4, shard_size=12, progress=False)
    check_equal_to_pipe(tmp_path / "out", "spacy", nlp, docs, [f"in.txt:{i}" for i in range(1, 31)])


def test_auxiliary_frames_are_kept_where_asked(tmp_path: Path) -> None:
    """Silver for a labeller keeps the auxiliary frames lal_srl leaves out of doc._.srl by default
    (docs/results.md, session 40: a student trained without them stopped flagging auxiliaries);
    a pipeline without lal_srl is refused, and so is a rerun without the setting."""
    from spacy_lal.pretrained import shipped_pipelines

    if "en_lal_ewt" not in shipped_pipelines():
        pytest.skip("the shipped pipeline is not built")
    path = write_lines(tmp_path / "in.txt", ["She has finished the report.", "They did not call us."])
    senses = {}
    for keep in (False, True):
        out = tmp_path / f"out_{keep}"
        parse_corpus(path, out, model="en_lal_ewt", shard_size=5, progress=False, auxiliary_frames=keep)
        nlp = spacy.blank("en")
        senses[keep] = {str(f.sense) for doc in output_docs(out, nlp) for f in doc._.srl}
    assert "finish.01" in senses[False]
    auxiliaries = {sense for sense in senses[True] if sense.split(".")[0] in ("have", "do")}
    assert auxiliaries and not auxiliaries & senses[False]
    assert senses[True] - auxiliaries == senses[False]
    with pytest.raises(ValueError, match="auxiliary_frames"):
        parse_corpus(path, tmp_path / "out_False", model="en_lal_ewt", shard_size=5, progress=False,
                     auxiliary_frames=True)
    with pytest.raises(ValueError, match="no lal_srl"):
        parse_corpus(path, tmp_path / "small", model=small_nlp, shard_size=5, progress=False, auxiliary_frames=True)


def test_an_ensemble_writes_what_ensemble_parse_gives(tmp_path: Path) -> None:
    """``ensemble``: the members parse at the score level (pipeline/ensemble.py) inside the
    engine's worker; one process only, and a rerun with other members is refused."""
    from spacy_lal.pipeline.ensemble import ensemble_parse
    from spacy_lal.pretrained import shipped_pipelines

    if not {"en_lal_ewt", "en_lal_ewt_trf"} <= set(shipped_pipelines()):
        pytest.skip("the shipped pipelines are not built")
    docs = ["Mary borrowed a book from the library last week.", "Water the plants before you leave.", "Dogs bark."]
    path = write_lines(tmp_path / "in.txt", docs)
    out = tmp_path / "out"
    parse_corpus(path, out, model="en_lal_ewt", ensemble=["en_lal_ewt_trf"], batch_size=2, shard_size=5,
                 progress=False)
    import spacy_lal

    first, second = spacy_lal.load("en_lal_ewt"), spacy_lal.load("en_lal_ewt_trf")
    expected = list(ensemble_parse([first, second], docs, batch_size=2))
    got = output_docs(out, first)
    assert [doc.user_data["id"] for doc in got] == [f"in.txt:{i}" for i in range(1, 4)]
    assert [annotation(d) for d in got] == [annotation(d) for d in expected]
    assert [[t.head.i for t in d] for d in got] == [[t.head.i for t in d] for d in expected]
    with pytest.raises(ValueError, match="ensemble"):
        parse_corpus(path, out, model="en_lal_ewt", progress=False, shard_size=5)
    with pytest.raises(ValueError, match="an ensemble parses in one process"):
        parse_corpus(path, tmp_path / "two", model="en_lal_ewt", ensemble=["en_lal_ewt_trf"], n_process=2,
                     progress=False)
    with pytest.raises(ValueError, match="cannot find the pipeline 'nope'"):
        parse_corpus(path, tmp_path / "nope", model="en_lal_ewt", ensemble=["nope"], progress=False)
