"""PropBank's frame files: the reader (corpora/propbank_frames.py), the shipped inventory and its
lookups (spacy_lal.doc.propbank), and the ``frames`` command."""
import gzip
import json
import shutil
from pathlib import Path

import pytest

from spacy_lal.doc import propbank
from spacy_lal.corpora import CorpusFormatError
from spacy_lal.corpora.propbank_frames import count, read_frame_file, read_frames, write_inventory
from spacy_lal.doc.propbank import read_inventory

FRAMES = Path(__file__).parents[2] / ".." / "shared" / "assets" / "propbank-frames" / "frames"
needs_frames = pytest.mark.skipif(not FRAMES.is_dir(), reason="no ../shared/assets/propbank-frames")


@needs_frames
def test_a_real_frame_file_with_phrasal_rolesets():
    pick = read_frame_file(FRAMES / "pick.xml")
    assert list(pick["pick"]) == ["pick.01", "pick.09", "pick.10"]
    assert list(pick["pick_up"]) == ["pick_up.04", "pick_up.05", "pick_up.06", "pick_up.11"]
    assert pick["pick"]["pick.01"]["roles"] == {
        "0": "picker", "1": "thing picked", "2": "group or source", "3": "benefactive"
    }
    # pick_up.05 (increase) has no ARG0
    assert "0" not in pick["pick_up"]["pick_up.05"]["roles"] and pick["pick_up"]["pick_up.05"]["name"] == "pick up: increase"


@needs_frames
def test_modifier_roles_a_roleset_lists_are_kept_with_their_tag(tmp_path):
    # A role n="m" keeps its function tag: "m-LOC".
    found = [
        (path.name, rid, roles)
        for path in sorted(FRAMES.glob("a*.xml"))
        for rolesets in read_frame_file(path, broken_examples="drop").values()
        for rid, entry in rolesets.items()
        for roles in [entry["roles"]]
        if any(key.startswith("m-") for key in roles)
    ]
    assert found and all(key in "0123456a" or key.startswith("m-") for _, _, roles in found for key in roles)


def test_malformed_xml_names_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<frameset>\n  <predicate lemma="x">\n    <roleset id="x.01" name="x">\n  </predicate>\n</frameset>\n')
    with pytest.raises(CorpusFormatError, match=r"bad\.xml, line 4: malformed frame file: mismatched tag") as error:
        read_frame_file(bad)
    assert error.value.line_no == 4 and error.value.path == str(bad)
    # A folder holding it fails on it too: the break is outside the examples.
    with pytest.raises(CorpusFormatError, match=r"bad\.xml, line 4"):
        read_frames(tmp_path)


@needs_frames
def test_a_file_broken_only_in_its_examples_is_read_without_them(tmp_path):
    # PropBank 3.4's rend.xml has an unquoted attribute in an <example>.
    with pytest.raises(CorpusFormatError, match=r"rend\.xml, line 38"):
        read_frame_file(FRAMES / "rend.xml")
    rend = read_frame_file(FRAMES / "rend.xml", broken_examples="drop")
    assert rend["rend"]["rend.01"]["roles"]["0"]
    for name in ("rend.xml", "borrow.xml"):
        shutil.copy(FRAMES / name, tmp_path / name)
    repaired = []
    inventory = read_frames(tmp_path, repaired=repaired)
    assert repaired == ["rend.xml"] and set(inventory) == {"borrow", "rend"}


def test_not_a_frameset_and_an_empty_folder(tmp_path):
    (tmp_path / "x.xml").write_text("<frames/>")
    with pytest.raises(CorpusFormatError, match=r"x\.xml: expected a <frameset>"):
        read_frame_file(tmp_path / "x.xml")
    with pytest.raises(FileNotFoundError):
        read_frames(tmp_path / "none")


@needs_frames
def test_write_and_read_back(tmp_path):
    for name in ("pick.xml", "turn.xml", "borrow.xml"):
        shutil.copy(FRAMES / name, tmp_path / name)
    inventory = read_frames(tmp_path)
    out = tmp_path / "out" / "frames.json.gz"
    size = write_inventory(inventory, out, {"revision": "r"})
    assert size == out.stat().st_size
    assert read_inventory(out) == inventory
    assert json.loads(gzip.open(out).read())["source"] == {"revision": "r"}
    # Deterministic bytes (gzip mtime 0).
    again = tmp_path / "again.json.gz"
    write_inventory(inventory, again, {"revision": "r"})
    assert again.read_bytes() == out.read_bytes()
    assert "turn_off.07" in inventory["turn_off"]


@needs_frames
def test_the_shipped_inventory_is_the_frame_files(tmp_path):
    """The package data holds exactly what the frame files give (rebuild it with
    `python -m spacy_lal frames` if this fails after the files changed)."""
    shipped = read_inventory(propbank.INVENTORY_PATH)
    assert count(shipped) == {"lemmas": 9089, "rolesets": 11207, "phrasal_lemmas": 1076}
    for name in ("borrow.xml", "pick.xml", "leave.xml", "check.xml"):
        for lemma, rolesets in read_frame_file(FRAMES / name, broken_examples="drop").items():
            for rid, entry in rolesets.items():
                assert shipped[rid.rpartition(".")[0]][rid] == entry


def test_a_roleset_keeps_its_one_word_noun_adjective_and_verb_aliases(tmp_path):
    frame = tmp_path / "evacuate.xml"
    frame.write_text(
        '<frameset><predicate lemma="evacuate"><roleset id="evacuate.01" name="empty">'
        '<aliases><alias pos="v">evacuate</alias><alias pos="n">Evacuation</alias>'
        '<alias pos="j">evacuated</alias><alias pos="l">make_evacuation</alias>'
        '<alias pos="n">evacuation</alias><alias pos="r">evacuatingly</alias>'
        '<argalias arg="2" pos="n">evacuee</argalias></aliases>'
        '<roles><role n="0" descr="causer"/></roles></roleset>'
        '<roleset id="evacuate.02" name="no aliases"><roles/></roleset></predicate></frameset>'
    )
    rolesets = read_frame_file(frame)["evacuate"]
    # the lemma itself, a repeat, a light verb, an adverb and an argument alias are left out
    assert rolesets["evacuate.01"]["aliases"] == ["evacuation", "evacuated"]
    assert "aliases" not in rolesets["evacuate.02"]


def test_lookups():
    assert propbank.roleset("borrow.01").name == "get temporarily"
    assert propbank.roleset("borrow.02") is None and propbank.roleset(None) is None
    assert [r.id for r in propbank.rolesets("borrow")] == ["borrow.01"]
    assert [r.id for r in propbank.rolesets("pick_up")] == ["pick_up.04", "pick_up.05", "pick_up.06", "pick_up.11"]
    assert "turn_off.07" in [r.id for r in propbank.rolesets("turn_off")]
    assert propbank.rolesets("florp") == () and not propbank.has_lemma("florp")
    # leave.01 and join.02 are not PropBank 3.4 rolesets (issue #36's examples)
    assert propbank.roleset("leave.01") is None and propbank.roleset("join.02") is None
    assert propbank.roleset("leave.11").lemma == "leave"
    # A word PropBank has no lemma of: the rolesets listing it as an alias; a lemma: its own.
    assert [r.id for r in propbank.predicate_rolesets("evacuation")] == ["evacuate.01"]
    assert [r.id for r in propbank.predicate_rolesets("advice")] == ["advise.01"]
    assert propbank.predicate_rolesets("borrow") == propbank.rolesets("borrow")
    assert propbank.predicate_rolesets("florp") == () and not propbank.has_lemma("evacuation")


def test_role_descriptions():
    borrow = propbank.roleset("borrow.01")
    assert borrow.role_description("ARG2") == "loaner"
    assert borrow.role_description("C-ARG1") == borrow.role_description("R-ARG1") == "thing borrowed"
    assert borrow.role_description("ARG4") is None
    assert borrow.role_description("ARGM-TMP") == "temporal" and borrow.role_description("ARGM-LOC") == "locative"
    assert borrow.role_description("R-ARGM-MNR") == "manner"
    assert borrow.defines("ARG3") and not borrow.defines("ARG4") and not borrow.defines("R-ARG4")
    assert borrow.defines("ARGM-TMP") and borrow.defines("V") and borrow.defines("C-V")
    assert not borrow.defines("ARGA")  # no PropBank 3.4 roleset numbers an ARGA
    # ARG1-DSP is ARG1 with a function tag
    assert propbank.numbered_role("ARG1-DSP") == "1" and propbank.numbered_role("ARGM-LOC") is None


def test_a_roleset_s_own_modifier_description_wins():
    base = propbank.roleset("base.01")  # lists n="m" f="LOC"
    assert base.role_description("ARGM-LOC") == base.roles["m-LOC"] != "locative"
    assert base.role_description("ARGM-TMP") == "temporal"
    assert propbank.roleset("await.01").role_description("ARGM-TMP") == "period of time waited through"


@needs_frames
def test_the_frames_command(tmp_path, capsys):
    from spacy_lal.__main__ import main

    source = tmp_path / "frames"
    source.mkdir()
    shutil.copy(FRAMES / "borrow.xml", source / "borrow.xml")
    assert main(["frames", str(source), str(tmp_path / "out.json.gz")]) == 0
    assert "1 rolesets of 1 lemmas" in capsys.readouterr().out
    source_info = json.loads(gzip.open(tmp_path / "out.json.gz").read())["source"]
    assert source_info["revision"] == "c66e0ccf28b53f00051b187db83e937b5bee2e32" and "CC BY-SA 4.0" in source_info["license"]
    (source / "bad.xml").write_text("<frameset><predicate></frameset>")
    assert main(["frames", str(source), str(tmp_path / "out2.json.gz")]) == 1
    assert "bad.xml, line 1" in capsys.readouterr().err


@needs_frames
def test_a_roleset_outside_its_lemma_s_file_keeps_the_file_name():
    """PropBank's annotation writes the frame file's name as the predicate lemma (issue #50)."""
    pick = read_frame_file(FRAMES / "pick.xml")
    assert pick["pick_up"]["pick_up.04"]["file"] == "pick" and "file" not in pick["pick"]["pick.01"]
    liken = read_frame_file(FRAMES / "liken.xml")
    assert liken["like"]["like.01"]["file"] == "liken"


def test_an_inventory_of_another_format_is_refused(tmp_path):
    # Format 2 had no aliases: its nominal predicates would get no sense without a word.
    old = tmp_path / "old.json.gz"
    with gzip.open(old, "wt", encoding="utf8") as file_:
        json.dump({"format": 2, "source": {}, "lemmas": {}}, file_)
    with pytest.raises(ValueError, match="format 2, expected 3 .rebuild it"):
        read_inventory(old)
    assert propbank.roleset("pick_up.04").frame_file == "pick" and propbank.roleset("pick.01").frame_file == ""
