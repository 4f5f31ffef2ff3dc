"""scripts/predicate_f1.py: predicate identification F1, all and without be/have/do frames."""
import sys
from pathlib import Path

import spacy
from spacy.tokens import Doc

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.doc.extensions import set_frames
from spacy_lal.doc.frames import FrameData

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import predicate_f1  # noqa: E402


def test_auxiliary_frames_are_scored_apart():
    vocab = spacy.blank("en").vocab
    words = "She has finished the report and did not call .".split()
    gold, predicted = Doc(vocab, words=words), Doc(vocab, words=words)
    set_frames(gold, [FrameData(1, "have.01", ()), FrameData(2, "finish.01", ((0, 1, "ARG0"), (3, 5, "ARG1"))),
                      FrameData(6, "do.01", ()), FrameData(8, "call.02", ((0, 1, "ARG0"),))])
    # the auxiliaries missed, "finish" found, "report" flagged by mistake, "call" missed
    set_frames(predicted, [FrameData(2, "finish.01", ((0, 1, "ARG0"),)), FrameData(4, "report.01", ())])
    scores = predicate_f1.predicate_scores([gold], [predicted])
    assert scores["all"] == {"f": round(200 * 1 / (2 + 1 + 3), 2), "false_positives": 1, "false_negatives": 3}
    assert scores["without be/have/do"] == {"f": 50.0, "false_positives": 1, "false_negatives": 1}
