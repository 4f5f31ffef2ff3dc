"""PropBank's roleset inventory at run time: which senses a lemma has and what their roles mean.

The inventory is the package data ``data/propbank_frames.json.gz``: PropBank 3.4's frame files
(github.com/propbank/propbank-frames, CC BY-SA 4.0; ``python -m spacy_lal frames`` rebuilds it,
``corpora/propbank_frames.py`` reads the XML and writes it), loaded once, on first use.

    >>> roleset("borrow.01").roles["2"]
    'loaner'
    >>> [r.id for r in rolesets("pick_up")]
    ['pick_up.04', 'pick_up.05', 'pick_up.06', 'pick_up.11']
    >>> [r.id for r in predicate_rolesets("evacuation")]
    ['evacuate.01']
    >>> frame_lemma("pick_up.04"), frame_lemma("like.01")
    ('pick', 'liken')

Role labels are those of the data (``ARG0``, ``ARG1-DSP``, ``ARGM-TMP``, ``C-ARG1``, ``R-ARG0``):
:func:`numbered_role` and :func:`role_description` read them.
"""
from __future__ import annotations

import functools
import gzip
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

INVENTORY_PATH = Path(__file__).parents[1] / "data" / "propbank_frames.json.gz"

# lemma -> roleset id -> {"name": str, "roles": {key: description}}
Inventory = Dict[str, Dict[str, Dict[str, Any]]]

# 2: rolesets keep their frame file's name ("file") where it is not their id's lemma. A version-1
# file lacks it and would give srl-eval.pl wrong lemmas without a word, so it is refused.
# 3: rolesets keep their noun, adjective and verb aliases ("aliases"), which a version-2 file
# lacks: its nominal predicates would silently get no sense.
FORMAT_VERSION = 3

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
    or, for a modifier role listed there, "m-TAG" ("m-LOC"); ``frame_file``: the name (without
    ".xml") of the frame file defining it, empty when it is the id's lemma."""

    id: str
    name: str
    roles: Mapping[str, str]
    frame_file: str = ""

    @property
    def lemma(self) -> str:
        return roleset_lemma(self.id)

    @property
    def frame_lemma(self) -> str:
        """The lemma PropBank's annotation writes for this roleset's predicates: its frame file's
        name ("pick" for pick_up.04, "liken" for like.01, "better" for good.02; see
        :func:`frame_lemma`)."""
        return self.frame_file or self.lemma

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


def roleset_lemma(roleset_id: str) -> str:
    """The lemma part of a roleset id: ``pick_up.04`` -> "pick_up" (an id without a "." is its own)."""
    return roleset_id.rpartition(".")[0] or roleset_id


def read_inventory(path: Union[str, Path]) -> Inventory:
    """The inventory that :func:`spacy_lal.corpora.propbank_frames.write_inventory` wrote."""
    with gzip.open(path, "rt", encoding="utf8") as file_:
        payload = json.load(file_)
    if payload.get("format") != FORMAT_VERSION:
        raise ValueError(
            f"{path}: frame inventory format {payload.get('format')!r}, expected {FORMAT_VERSION} "
            "(rebuild it: python -m spacy_lal frames BUILD-FROM OUTPUT)"
        )
    return payload["lemmas"]


@functools.lru_cache(maxsize=None)
def _inventory() -> Tuple[Dict[str, Tuple[Roleset, ...]], Dict[str, Roleset], Dict[str, Tuple[Roleset, ...]]]:
    """(lemma -> its rolesets in the frame files' order, id -> roleset, alias that is no lemma of
    its own -> the rolesets listing it, in the same order), read once."""
    data: Inventory = read_inventory(INVENTORY_PATH)
    by_lemma = {
        lemma: tuple(
            Roleset(rid, entry["name"], entry["roles"], entry.get("file", "")) for rid, entry in rolesets.items()
        )
        for lemma, rolesets in data.items()
    }
    by_id = {r.id: r for rolesets in by_lemma.values() for r in rolesets}
    by_alias: Dict[str, List[Roleset]] = {}
    for rolesets in data.values():
        for rid, entry in rolesets.items():
            for alias in entry.get("aliases", ()):
                if alias not in by_lemma:
                    by_alias.setdefault(alias, []).append(by_id[rid])
    return by_lemma, by_id, {alias: tuple(found) for alias, found in by_alias.items()}


def rolesets(lemma: str) -> Tuple[Roleset, ...]:
    """The rolesets of ``lemma`` (lowercase; phrasal lemmas joined by "_": "pick_up"), in the
    frame files' order; empty when PropBank has no such lemma."""
    return _inventory()[0].get(lemma, ())


def predicate_rolesets(lemma: str) -> Tuple[Roleset, ...]:
    """The rolesets a predicate of ``lemma`` may take: :func:`rolesets`, or where PropBank has no
    such lemma, those whose frame files list it as a noun, adjective or verb alias
    ("evacuation" -> evacuate.01, "advice" -> advise.01: PropBank annotates nominal predicates
    with their verb's roleset); empty when neither has it."""
    by_lemma, _, by_alias = _inventory()
    return by_lemma.get(lemma) or by_alias.get(lemma, ())


def roleset(roleset_id: Optional[str]) -> Optional[Roleset]:
    """The roleset of id ``roleset_id`` ("borrow.01"), None when PropBank has none."""
    if not roleset_id:
        return None
    return _inventory()[1].get(roleset_id)


def has_lemma(lemma: str) -> bool:
    """Whether PropBank has rolesets for ``lemma``."""
    return lemma in _inventory()[0]


# Rolesets EWT's PropBank annotation uses that 3.4's frame files no longer define, whose frame file
# (the skeletons' lemma column) is not their id's lemma: the labeller can learn these senses from
# EWT train (4 + 2 propositions there), and srl-eval.pl would drop them under the id's lemma.
_RETIRED_FRAME_FILES: Mapping[str, str] = {"deep.02": "deepen", "hanging.07": "hang"}


def frame_lemma(roleset_id: str) -> str:
    """The predicate lemma PropBank's annotation gives a predicate of sense ``roleset_id``: the
    first column of CoNLL-2005 props, column 7 of the EWT skeletons, the lemma ``srl-eval.pl``
    pairs propositions by. It is the name of the frame file defining the roleset, not the id's
    lemma: "pick" for pick_up.04 (phrasal rolesets sit in their verb's file), "liken" for like.01,
    "better" for good.02, "madden" for mad.04. An id PropBank 3.4 lacks (have.LV, a roleset of an
    older release) gives its lemma less any particle, for the same reason: pass_away.16 -> "pass";
    but for the two such ids of EWT whose old frame file was named otherwise (deep.02, hanging.07).
    """
    found = roleset(roleset_id)
    if found is not None:
        return found.frame_lemma
    if roleset_id in _RETIRED_FRAME_FILES:
        return _RETIRED_FRAME_FILES[roleset_id]
    return roleset_lemma(roleset_id).split("_", 1)[0] or roleset_id


def is_auxiliary(roleset_id: Optional[str]) -> bool:
    """Whether ``roleset_id`` is an auxiliary or modal roleset (be.03 "auxiliary", have.02
    "modal", go.04 "modal / future", ...), as its frame file names it."""
    found = roleset(roleset_id)
    return found is not None and found.name.startswith(("auxiliary", "modal"))
