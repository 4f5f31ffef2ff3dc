"""Acceptance on the real EWT (slow, needs ../shared/assets): gold exported and scored against
gold gives 100 in each reference-equal scorer, for dev and test."""
from pathlib import Path

import pytest
import spacy

from spacy_lal.corpora import write_conll05, write_conllu, write_ptb
from spacy_lal.corpora.ewt import join_ewt_split
from spacy_lal.scoring.evalb import score_tree_files
from spacy_lal.scoring.srl_eval import score_props_files
from spacy_lal.scoring.ud import score_conllu_files

ASSETS = Path(__file__).parents[2] / ".." / "shared" / "assets"


@pytest.mark.slow
@pytest.mark.skipif(not (ASSETS / "UD_English-EWT").exists(), reason="needs ../shared/assets")
@pytest.mark.parametrize("split", ["dev", "test"])
def test_gold_scored_against_gold_is_100(split, tmp_path):
    vocab = spacy.blank("en").vocab
    docs, _ = join_ewt_split(
        ASSETS / "UD_English-EWT" / f"en_ewt-ud-{split}.conllu", ASSETS / "propbank-release", split, vocab
    )
    write_ptb(docs, tmp_path / "gold.mrg")
    write_conllu(docs, tmp_path / "gold.conllu")
    write_conll05(docs, tmp_path / "gold.props")
    trees = score_tree_files(tmp_path / "gold.mrg", tmp_path / "gold.mrg")
    # EVALB skips sentences with no words left (punctuation only) but reports no error.
    assert trees.all.error_sentences == 0
    assert trees.all.f1 == 1.0 and trees.all.complete_match == 1.0
    deps = score_conllu_files(tmp_path / "gold.conllu", tmp_path / "gold.conllu")
    assert deps.las.f1 == 1.0 and deps.las_nopunct.f1 == 1.0
    srl = score_props_files(tmp_path / "gold.props", tmp_path / "gold.props")
    assert srl.overall.f1 == 1.0 and srl.perfect == 1.0
