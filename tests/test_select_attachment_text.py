"""scripts/select_attachment_text.py: the V NP P NP sentences that #51's attachment silver reads."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import select_attachment_text as select  # noqa: E402


@pytest.mark.parametrize("words, tags, expected", [
    ("borrowed a book from the library", "VBD DT NN IN DT NN", True),
    ("took it from the shelf", "VBD PRP IN DT NN", True),
    ("met the team last week", "VBD DT NN JJ NN", True),
    # a subordinator after the object starts a clause, not a phrase that could hang on either
    ("told the story because it rained", "VBD DT NN IN PRP VBD", False),
    # no object between the verb and the phrase: nothing to hang the phrase on but the verb
    ("sat on the mat", "VBD IN DT NN", False),
    # the object's noun phrase must end in a noun before the preposition
    ("bought the red for him", "VBD DT JJ IN PRP", False),
])
def test_quadruples_are_found_from_the_tags_alone(words, tags, expected):
    assert select.has_quadruple(words.split(), tags.split()) is expected


def test_a_malformed_line_names_its_file_and_line(tmp_path):
    path = tmp_path / "texts.jsonl"
    path.write_text('{"text": "fine"}\n\n{"txt": "no text"}\n')
    with pytest.raises(ValueError, match=r"texts.jsonl:3"):
        list(select.read_texts(path))
    assert json.loads(path.read_text().splitlines()[0])["text"] == "fine"
