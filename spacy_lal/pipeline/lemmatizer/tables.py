"""spaCy's English rule-lemmatizer tables, read from package data (``data/en_lemma_tables.json.gz``).

They are spacy-lookups-data's ``lemma_rules``, ``lemma_exc`` and ``lemma_index`` for English
(``scripts/build_lemma_tables.py`` rebuilds the file; source, version and license in
docs/data.md), so the rule lemmatizer runs without that package and without downloads. Read
once per process, on first use.
"""
import functools
import gzip
import json
from pathlib import Path
from typing import Any, Dict

from spacy.lookups import Lookups

__all__ = ["TABLES_PATH", "TABLE_NAMES", "english_lookups", "read_tables"]

TABLES_PATH = Path(__file__).resolve().parents[2] / "data" / "en_lemma_tables.json.gz"
# What spaCy's Lemmatizer in mode "rule" requires (Lemmatizer.get_lookups_config).
TABLE_NAMES = ("lemma_rules", "lemma_exc", "lemma_index")


def read_tables(path: Path = TABLES_PATH) -> Dict[str, Any]:
    """The file's content: ``source``, ``notice`` (the license notice) and ``tables``."""
    with gzip.open(path, "rt", encoding="utf8") as f:
        data = json.load(f)
    missing = [name for name in TABLE_NAMES if name not in data.get("tables", {})]
    if missing:
        raise ValueError(f"{path}: lemma tables {missing} missing (scripts/build_lemma_tables.py rebuilds it)")
    return data


@functools.lru_cache(maxsize=None)
def english_lookups() -> Lookups:
    """The tables as spaCy's Lemmatizer reads them (``lemmatizer.lookups``); shared, not to be
    changed. The index's word lists become frozensets: spaCy tests ``form in index`` for every
    candidate form, a linear scan of up to 57,528 nouns on a list."""
    tables = read_tables()["tables"]
    lookups = Lookups()
    lookups.add_table("lemma_rules", tables["lemma_rules"])
    lookups.add_table("lemma_exc", tables["lemma_exc"])
    lookups.add_table("lemma_index", {pos: frozenset(words) for pos, words in tables["lemma_index"].items()})
    return lookups
