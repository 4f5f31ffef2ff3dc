"""Worker processes started by "spawn" (and "forkserver") run torch on one thread, as forked ones
do (issue #50: ``spacy_lal.pipeline.torch_bridge``), and ``parse-corpus --n-process 2
--start-method spawn`` with the shipped pipeline writes what one process writes."""
import json
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
import torch

from spacy_lal.pipeline import torch_bridge
from spacy_lal.pretrained import shipped_pipelines


def test_spawned_workers_run_torch_on_one_thread() -> None:
    """A worker gets torch_bridge while it unpickles what it is to run, as nlp.pipe's workers do
    with the pipeline (here a Pool's initializer argument), then reports torch's thread count. A
    fresh interpreter's count shows the test is not vacuous."""
    fresh = subprocess.Popen([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                             stdout=subprocess.PIPE, text=True)
    methods = [m for m in ("spawn", "forkserver") if m in multiprocessing.get_all_start_methods()]
    pools = {m: multiprocessing.get_context(m).Pool(1, initializer=id, initargs=(torch_bridge.PerUnit,))
             for m in methods}
    try:
        threads = {m: pool.apply_async(torch.get_num_threads) for m, pool in pools.items()}
        threads = {m: result.get(timeout=300) for m, result in threads.items()}
    finally:
        for pool in pools.values():
            pool.close()
            pool.join()
    default = int(fresh.communicate(timeout=300)[0])
    if default == 1:
        pytest.skip("torch runs on one thread here anyway")
    assert threads == {m: 1 for m in methods}


def parse_corpus_cli(path: Path, out: Path, *options: str) -> Dict[str, str]:
    """``parse-corpus`` in a process of its own (the start method is global to a process): the
    output folder's files by name (the lock file left out)."""
    command = [sys.executable, "-m", "spacy_lal", "parse-corpus", str(path), str(out), "--format", "jsonl",
               "--shard-size", "7", "--batch-size", "3", "--no-progress", *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return {p.name: p.read_text(encoding="utf8") for p in sorted(out.iterdir()) if p.name != ".lock"}


@pytest.mark.slow  # three pipelines loaded, two of them in spawned workers: about a minute
@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built")
def test_spawned_processes_write_what_one_process_writes(tmp_path: Path, everyday_texts: List[str]) -> None:
    texts: List[str] = [f"{text} ({i})" for i, text in enumerate(everyday_texts * 3)]
    path = tmp_path / "in.txt"
    path.write_text("".join(t + "\n" for t in texts), encoding="utf8")
    one = parse_corpus_cli(path, tmp_path / "one", "--n-process", "1")
    two = parse_corpus_cli(path, tmp_path / "two", "--n-process", "2", "--start-method", "spawn")
    assert sorted(one) == ["in-00000.jsonl", "in-00001.jsonl", "in-00002.jsonl", "manifest.jsonl", "run.json"]
    rows = [json.loads(line) for name in sorted(one) if name.startswith("in-") for line in one[name].splitlines()]
    assert [(r["id"], r["text"]) for r in rows] == [(f"in.txt:{i + 1}", t) for i, t in enumerate(texts)]
    assert all(r["frames"] and r["sentences"][0]["tree"] for r in rows)  # parsed: trees and frames
    assert two == one
