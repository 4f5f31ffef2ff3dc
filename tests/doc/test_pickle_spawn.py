"""Docs parsed by the shipped pipeline, in both dependency schemes, survive pickling and
``nlp.pipe(n_process=2)`` under the "spawn" start method (issue #50): spawning pickles the
pipeline, its vocab (with the noun-chunk iterator) and every registered extension, so none of
them may hold a local closure."""
import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import pytest
from spacy.language import Language
from spacy.tokens import Doc

import spacy_lal

SCHEMES = ("ud", "clear")
SENTENCE = "The new library will not lend books to students."
TEXTS = [
    "The council will not include the auditorium.",
    "Mary borrowed a book from the library.",
    "Large banks shift credit risk toward small investors.",
    "Go now!",
]


@pytest.fixture(scope="module")
def shipped() -> Dict[str, Language]:
    """The shipped pipeline in each dependency scheme, loaded once for the module."""
    return {scheme: spacy_lal.load(config={"components": {"lal_parser": {"dependency_scheme": scheme}}})
            for scheme in SCHEMES}


def summary(doc: Doc) -> Dict[str, Any]:
    """What the pipeline wrote on ``doc``, as plain values to compare."""
    return {
        "tree": doc._.tree.to_string() if doc._.tree is not None else None,
        "heads": [token.head.i for token in doc],
        "deps": [token.dep_ for token in doc],
        "ud": [(token._.ud_dep, token._.ud_head.i) for token in doc],
        "srl": [(frame.predicate.i, frame.sense, str(frame)) for frame in doc._.srl],
        "noun_chunks": [chunk.text for chunk in doc.noun_chunks],
        "labels": [token._.labels for token in doc],
    }


@pytest.mark.parametrize("scheme", SCHEMES)
def test_pickle_round_trip(shipped, scheme):
    doc = shipped[scheme](SENTENCE)
    expected = summary(doc)
    # Not vacuous: the parse has a tree, frames and noun chunks, and the schemes differ.
    assert expected["tree"].startswith("(S ") and expected["srl"] and expected["noun_chunks"]
    assert expected["deps"][4] == ("neg" if scheme == "clear" else "advmod")  # "not"
    copy = pickle.loads(pickle.dumps(doc))
    assert copy is not doc and copy.text == doc.text
    assert summary(copy) == expected
    assert [(c.start, c.end, c.label_) for c in copy[:].noun_chunks] == [
        (c.start, c.end, c.label_) for c in doc[:].noun_chunks]
    assert copy.noun_chunks_iterator is doc.noun_chunks_iterator  # the process's one iterator


# Run as a script: the start method is global to a process, so the spawned pipe runs in one of its
# own. It writes the Docs (pickled) that two spawned workers parsed, one list per scheme.
SPAWN_SCRIPT = textwrap.dedent("""
    import json
    import multiprocessing as mp
    import pickle
    import sys

    if __name__ == "__main__":
        mp.set_start_method("spawn", force=True)
        import spacy_lal

        texts, schemes, out = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
        parsed = {}
        for scheme in schemes:
            nlp = spacy_lal.load(config={"components": {"lal_parser": {"dependency_scheme": scheme}}})
            parsed[scheme] = list(nlp.pipe(texts, n_process=2, batch_size=1))
        with open(out, "wb") as file:
            pickle.dump(parsed, file)
""")


@pytest.mark.slow
def test_pipe_with_spawned_processes(shipped, tmp_path: Path):
    script = tmp_path / "spawn_pipe.py"
    script.write_text(SPAWN_SCRIPT)
    out = tmp_path / "docs.pickle"
    # One torch thread per worker, as the in-process parse here runs (conftest's one_torch_thread).
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(script), json.dumps(TEXTS), json.dumps(list(SCHEMES)), str(out)],
                          capture_output=True, text=True, timeout=1200, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out, "rb") as file:
        spawned: Dict[str, List[Doc]] = pickle.load(file)
    for scheme in SCHEMES:
        in_process = [summary(doc) for doc in shipped[scheme].pipe(TEXTS, n_process=1, batch_size=1)]
        assert [doc.text for doc in spawned[scheme]] == TEXTS
        assert [summary(doc) for doc in spawned[scheme]] == in_process, scheme
        assert all(parse["tree"] and parse["srl"] for parse in in_process[:3])
