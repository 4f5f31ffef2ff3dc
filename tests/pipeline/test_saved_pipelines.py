"""Pipelines saved by an earlier version of the package load and parse the same.

``tests/data/saved_pipelines`` holds tiny trained pipelines written by the package before its
components moved to one folder each (issue #34), with what they parsed then
(``make_saved_pipelines.py`` there). Registered names, saved cfgs and weight keys are the
contract with a user's saved pipeline; a rename that breaks it fails here.
"""
import json
import sys
from pathlib import Path

import pytest
import spacy

SAVED = Path(__file__).parents[1] / "data" / "saved_pipelines"
sys.path.insert(0, str(SAVED))
from make_saved_pipelines import PIPELINES, parses  # noqa: E402


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_pipeline_saved_before_the_move_parses_the_same(name):
    nlp = spacy.load(SAVED / name)
    assert nlp.pipe_names == [factory for factory, _ in PIPELINES[name]]
    expected = json.loads((SAVED / f"{name}.json").read_text(encoding="utf8"))
    assert parses(nlp) == expected
