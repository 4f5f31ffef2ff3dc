"""PropBank's roleset inventory at run time: which senses a lemma has and what their roles mean.

The inventory is the package data ``data/propbank_frames.json.gz``: PropBank 3.4's frame files
(github.com/propbank/propbank-frames, CC BY-SA 4.0; ``python -m spacy_lal frames`` rebuilds it,
``corpora/propbank_frames.py`` reads the XML), loaded once, on first use.

    >>> roleset("borrow.01").roles["2"]
    'loaner'
    >>> [r.id for r in rolesets("pick_up")]
    ['pick_up.04', 'pick_up.05', 'pick_up.06', 'pick_up.11']

Role labels are those of the data (``ARG0``, ``ARG1-DSP``, ``ARGM-TMP``, ``C-ARG1``, ``R-ARG0``):
:func:`numbered_role` and :func:`role_description` read them.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Dict, Mapping, NamedTuple, Optional, Tuple

from .corpora.propbank_frames import Inventory, read_inventory

INVENTORY_PATH = Path(__file__).parent / "data" / "propbank_frames.json.gz"

# PropBank's function tags of modifier arguments (ARGM-*), as the PropBank annotation guidelines
# (Bonial et al. 2015, sec. 1.4) and the EWT/OntoNotes data use them.
FUNCTION_TAGS: Mapping[str, str] = {
    "ADJ": "adjectival",
    "ADV": "adverbial",
    "CAU": "cause",
    "COM": "comitative",
    "CXN": "constructional",
    "DIR": "directional",
    "DIS": "discourse",
    "DSP": "direct speech",
    "EXT": "extent",
    "GOL": "goal",
    "LOC": "locative",
    "LVB": "light verb",
    "MNR": "manner",
    "MOD": "modal",
    "NEG": "negation",
    "PNC": "purpose not cause",
    "PRD": "secondary predication",
    "PRP": "purpose",
    "PRR": "predicating relation",
    "REC": "reciprocal",
    "TMP": "temporal",
}

# ARG0-ARG6 and ARGA, with a function tag or not (ARG1-DSP): the roles a roleset numbers.
_NUMBERED = re.compile(r"^ARG([0-6A])(?:-|$)")


class Roleset(NamedTuple):
    """One PropBank roleset: ``id`` ("borrow.01"), ``name`` ("get temporarily") and ``roles``:
    the description of each role it defines, keyed as the frame files number them ("0"-"6", "a")
    or, for a modifier role listed there, "m-TAG" ("m-LOC")."""

    id: str
    name: str
    roles: Mapping[str, str]

    @property
    def lemma(self) -> str:
        return self.id.rpartition(".")[0] or self.id

    def defines(self, label: str) -> bool:
        """Whether a role ``label`` is allowed by this roleset: numbered roles (and their C-/R-
        forms) only if the roleset defines the number; every other label (ARGM-*, V) always."""
        number = numbered_role(label)
        return number is None or number in self.roles

    def role_description(self, label: str) -> Optional[str]:
        """What ``label`` means in this roleset: a numbered role's description ("ARG2" of
        borrow.01: "loaner"), None when the roleset does not define it; ARGM-TAG: the roleset's own
        description if it lists that modifier, else the tag's general meaning ("temporal");
        C-/R- roles are described by their base role."""
        base = base_role(label)
        number = numbered_role(base)
        if number is not None:
            return self.roles.get(number)
        if base.startswith("ARGM-"):
            tag = base[5:].split("-")[0].upper()
            return self.roles.get(f"m-{tag}") or FUNCTION_TAGS.get(tag)
        return None


def base_role(label: str) -> str:
    """The role a continuation or reference role stands for: "C-ARG1" -> "ARG1", "R-ARGM-LOC" ->
    "ARGM-LOC"."""
    return label[2:] if label.startswith(("C-", "R-")) else label


def numbered_role(label: str) -> Optional[str]:
    """The roleset key of a numbered role ("0"-"6", "a"), C-/R- forms and function tags included
    ("R-ARG0" -> "0", "ARG1-DSP" -> "1", "ARGA" -> "a"); None for modifiers, V and the rest."""
    match = _NUMBERED.match(base_role(label))
    return match.group(1).lower() if match else None


@functools.lru_cache(maxsize=None)
def _inventory() -> Tuple[Dict[str, Tuple[Roleset, ...]], Dict[str, Roleset]]:
    """(lemma -> its rolesets in the frame files' order, id -> roleset), read once."""
    data: Inventory = read_inventory(INVENTORY_PATH)
    by_lemma = {
        lemma: tuple(Roleset(rid, entry["name"], entry["roles"]) for rid, entry in rolesets.items())
        for lemma, rolesets in data.items()
    }
    by_id = {r.id: r for rolesets in by_lemma.values() for r in rolesets}
    return by_lemma, by_id


def rolesets(lemma: str) -> Tuple[Roleset, ...]:
    """The rolesets of ``lemma`` (lowercase; phrasal lemmas joined by "_": "pick_up"), in the
    frame files' order; empty when PropBank has no such lemma."""
    return _inventory()[0].get(lemma, ())


def roleset(roleset_id: Optional[str]) -> Optional[Roleset]:
    """The roleset of id ``roleset_id`` ("borrow.01"), None when PropBank has none."""
    if not roleset_id:
        return None
    return _inventory()[1].get(roleset_id)


def has_lemma(lemma: str) -> bool:
    """Whether PropBank has rolesets for ``lemma``."""
    return lemma in _inventory()[0]
