"""The everyday behaviour set (issue #51): ``spacy_lal/data/behaviour_everyday.jsonl``, read by name.

Same format as the core set (``tests/test_behaviour.py`` describes it), six constructions that are
rare in EWT's training text: noun-or-verb words (``noun_or_verb``), phrases that belong to the verb
rather than the nearest noun (``verb_attachment``), particles and stranded prepositions
(``phrasal_stranded``), role numbers and sense families (``role_numbers``), whose-relatives
(``whose_relative``) and auxiliaries, relative clauses and recipe imperatives (``roles_on_tree``).
Every expectation was written from the PTB/EWT bracketing, UD English-EWT and PropBank 3.4 frame
files, before and without looking at any model output; nothing here asks for a pass rate.
"""
import json
from collections import Counter
from pathlib import Path

import pytest

import spacy_lal
from spacy_lal import behaviour
from spacy_lal.behaviour import SETS, read_sentences, read_set, set_path
from spacy_lal.doc import propbank

CONSTRUCTIONS = ["noun_or_verb", "verb_attachment", "phrasal_stranded", "role_numbers", "whose_relative",
                 "roles_on_tree"]


def test_sets_by_name():
    assert set(SETS) == {"core", "everyday"}
    assert set_path() == set_path("core") == Path(spacy_lal.__file__).parent / "data" / "behaviour.jsonl"
    assert set_path("everyday").name == "behaviour_everyday.jsonl" and set_path("everyday").exists()
    assert [s.id for s in read_set("everyday")] == [s.id for s in read_sentences(set_path("everyday"))]
    with pytest.raises(ValueError, match="unknown behaviour set 'nope'.*core, everyday"):
        set_path("nope")


def test_everyday_set_is_well_formed(check_behaviour_sentence):
    sentences = read_set("everyday")  # raises on a malformed check (indices, fields, kinds)
    assert len(sentences) >= 40
    ids = [s.id for s in sentences]
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {s.id for s in read_set("core")}  # one id, one sentence, whichever the set
    checks = Counter()
    for s in sentences:
        assert s.construction in CONSTRUCTIONS, s.id
        check_behaviour_sentence(s)
        checks[s.construction] += len(s.checks)
        senses = {}
        for check in s.checks:
            if check["kind"] == "frame":
                # Every sense named is a roleset of PropBank 3.4's inventory (phrasal ones included:
                # give_up.07 lives in give.xml), and each predicate has one frame check.
                assert check["sense"] is not None and propbank.roleset(check["sense"]) is not None, (s.id, check)
                assert check["predicate"] not in senses, (s.id, check)
                senses[check["predicate"]] = check["sense"]
        # Every role is checked against its predicate's named roleset: one that roleset defines.
        for check in s.checks:
            if check["kind"] == "role":
                assert check["predicate"] in senses, (s.id, check)
                assert propbank.roleset(senses[check["predicate"]]).defines(check["label"]), (s.id, check)
    # Every pattern of issue #51 is there, each with checks enough for a rate.
    assert list(checks) == CONSTRUCTIONS
    assert all(n >= 50 for n in checks.values()), checks
    assert sum(checks.values()) >= 150


def test_the_patterns_issue_51_names():
    """The sentences issue #51 names, with the expectations it states (from the frame files)."""
    by_text = {s.text: s for s in read_set("everyday")}
    borrow = by_text["Mary borrowed a book from the library last week."]
    assert {"kind": "frame", "predicate": 1, "sense": "borrow.01"} in borrow.checks
    assert {"kind": "role", "predicate": 1, "start": 4, "end": 7, "label": "ARG2"} in borrow.checks
    assert {"kind": "dependency", "token": 6, "head": 1, "label": "obl"} in borrow.checks
    whose = by_text["The woman whose car was stolen called the police."]
    assert {"kind": "role", "predicate": 5, "start": 2, "end": 4, "label": "R-ARG1"} in whose.checks
    assert {"kind": "dependency", "token": 2, "head": 3, "label": "nmod:poss"} in whose.checks
    stir = by_text["Stir in the sugar."]
    assert {"kind": "tag", "token": 1, "tag": "RP"} in stir.checks
    assert {"kind": "dependency", "token": 1, "head": 0, "label": "compound:prt"} in stir.checks
    senses = {c["sense"] for s in by_text.values() for c in s.checks if c["kind"] == "frame"}
    assert {"raise.01", "raise.02", "rise.01", "give_up.07", "turn_off.07", "look_forward.03"} <= senses
    roots = {s.text: c["label"] for s in by_text.values() for c in s.checks if c["kind"] == "root_label"}
    assert roots["Prices rise."] == roots["Water the plants."] == "S"
    assert roots["Who did you give it to?"] == "SBARQ"


def test_cli_runs_the_set_asked_for(tmp_path, capsys, monkeypatch):
    """``behaviour --set everyday`` scores the everyday set (a blank pipeline here: every check is
    evaluated, whatever it gives); the default is still the core set, and ``--set`` and ``--data``
    exclude each other."""
    import spacy

    from spacy_lal.__main__ import main as cli

    loaded = []

    def load(name, **kwargs):
        loaded.append(name)
        return spacy.blank("en")

    monkeypatch.setattr(spacy, "load", load)
    scored = []
    run_checks = behaviour.run_checks

    def recording_run_checks(nlp, path):
        scored.append(Path(path))
        return run_checks(nlp, path)

    monkeypatch.setattr(behaviour, "run_checks", recording_run_checks)

    assert cli(["behaviour", "--model", "blank-pipeline", "--set", "everyday", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    everyday = read_set("everyday")
    assert scored == [set_path("everyday")] and loaded == ["blank-pipeline"]
    assert report["checks"] == sum(len(s.checks) for s in everyday)
    assert list(report["by_construction"]) == CONSTRUCTIONS

    assert cli(["behaviour", "--model", "blank-pipeline", "--set", "everyday"]) == 0
    table = capsys.readouterr().out
    for name in CONSTRUCTIONS:
        assert f"\n{name} " in table

    scored.clear()
    assert cli(["behaviour", "--model", "blank-pipeline", "--json"]) == 0
    assert scored == [set_path("core")]
    assert json.loads(capsys.readouterr().out)["checks"] == sum(len(s.checks) for s in read_set("core"))

    with pytest.raises(SystemExit):
        cli(["behaviour", "--set", "everyday", "--data", str(tmp_path / "x.jsonl")])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli(["behaviour", "--set", "nope"])
    assert "invalid choice" in capsys.readouterr().err
