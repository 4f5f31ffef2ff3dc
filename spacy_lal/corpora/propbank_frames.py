"""PropBank's frame files (``propbank-frames/frames/*.xml``) read into a compact roleset inventory.

Each frame file holds one ``<frameset>`` of ``<predicate lemma="turn">`` elements, each with its
``<roleset id="turn.01" name="...">`` and their ``<roles><role n="0" f="PAG" descr="turner"/>``.
Phrasal lemmas sit in the base verb's file (``turn.xml`` holds ``<predicate lemma="turn_off">``
with ``turn_off.07``). Only what prediction needs is kept: per lemma, its rolesets in file order,
each with its name and its roles' descriptions, keyed by the role's ``n``: "0"-"6" (ARG0-ARG6),
"a" (ARGA, should a roleset define it) and, for the modifier roles a roleset lists itself
(``n="m" f="LOC"``), "m-LOC", and the one-word noun, adjective and verb forms its
``<aliases>`` list besides the lemma itself (``ALIAS_POS``; "evacuation" for ``evacuate.01``),
as ``"aliases"``. Examples, multi-word and light-verb aliases, argument aliases and links to
VerbNet/FrameNet are dropped.
A roleset whose id's lemma is not the name of its frame file also keeps that name, as ``"file"``
(``pick_up.04`` -> "pick", ``like.01`` -> "liken", ``good.02`` -> "better"): PropBank's
annotation writes the frame file's name as the predicate's lemma (the first column of CoNLL-2005
props, column 7 of the EWT skeletons), and ``srl-eval.pl`` drops every argument of a proposition
whose lemma differs from the gold one's.

The inventory is written as gzipped JSON (``spacy_lal/data/propbank_frames.json.gz``, rebuilt by
``python -m spacy_lal frames BUILD-FROM OUTPUT``)::

    {"format": 3, "source": ..., "lemmas": {"turn": {"turn.01": {"name": "...", "roles": {"0": "turner", ...},
                                                          "aliases": ["turning"]},
                                              ...}, "turn_off": {"turn_off.07": {..., "file": "turn"}}}}

No torch, no pipeline: the format's reader and the run-time lookups are ``spacy_lal.doc.propbank``'s.
"""
from __future__ import annotations

import gzip
import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ..doc.propbank import FORMAT_VERSION, Inventory, roleset_lemma
from ._common import CorpusFormatError

PathLike = Union[str, Path]
# PropBank 3.4 has two frame files that are not well-formed XML, both in an <example> (check.xml:
# a <arg> closed by </rel>; rend.xml: an unquoted src attribute). The inventory keeps no
# examples, so the folder reader may read such a file again without them (``examples="drop"``).
_EXAMPLE = re.compile(r"<example\b.*?</example>", re.S)
# The <alias pos> kept: nouns, adjectives and verbs (a nominalisation, "evacuation"; a spelling,
# "characterise"). The others are multi-word expressions ("l" light verbs, "m", "x", "p") whose
# lookup would need the whole phrase, or adverbs, which PropBank annotates only with their frame.
ALIAS_POS = ("n", "j", "v")


def role_key(n: str, function: Optional[str]) -> str:
    """The inventory's key of a ``<role n f>``: the number ("0"-"6"), "a", or "m-TAG" for a
    modifier role the roleset lists (plain "m" without a function tag)."""
    n = n.strip().lower()
    if n == "m" and function:
        return f"m-{function.strip().upper()}"
    return n


def read_frame_file(path: PathLike, *, broken_examples: str = "error") -> Inventory:
    """The rolesets of one frame file, by ``<predicate lemma>``; a roleset whose id's lemma is not
    the file's name keeps the name as ``"file"`` (see the module docstring). Raises
    :class:`CorpusFormatError` naming the file (and the line, from the XML parser) when the file
    is not well-formed or not a frameset; with ``broken_examples="drop"``, a file that parses
    once its ``<example>`` elements are cut out is read without them (the error is raised if it
    still does not parse)."""
    path = Path(path)
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        line = error.position[0] if getattr(error, "position", None) else None
        failure = CorpusFormatError(path, line, f"malformed frame file: {error}")
        if broken_examples != "drop":
            raise failure from None
        try:
            root = ElementTree.fromstring(_EXAMPLE.sub("", path.read_text(encoding="utf8")))
        except ElementTree.ParseError:
            raise failure from None
    if root.tag != "frameset":
        raise CorpusFormatError(path, None, f"expected a <frameset> root element, found <{root.tag}>")
    inventory: Inventory = {}
    for predicate in root.iter("predicate"):
        lemma = (predicate.get("lemma") or "").strip()
        if not lemma:
            raise CorpusFormatError(path, None, "a <predicate> without a lemma")
        rolesets = inventory.setdefault(lemma, {})
        for roleset in predicate.iter("roleset"):
            rid = (roleset.get("id") or "").strip()
            if not rid:
                raise CorpusFormatError(path, None, f"a roleset of {lemma!r} without an id")
            roles: Dict[str, str] = {}
            for role in roleset.findall("roles/role"):
                n = role.get("n")
                if n is None:
                    raise CorpusFormatError(path, None, f"{rid}: a <role> without n")
                key = role_key(n, role.get("f"))
                # A roleset listing the same key twice (two ARGM-LOCs) keeps the first description.
                roles.setdefault(key, " ".join((role.get("descr") or "").split()))
            entry: Dict[str, Any] = {"name": " ".join((roleset.get("name") or "").split()), "roles": roles}
            aliases = _aliases(roleset, roleset_lemma(rid))
            if aliases:
                entry["aliases"] = aliases
            if roleset_lemma(rid) != path.stem:
                entry["file"] = path.stem
            rolesets[rid] = entry
    return inventory


def _aliases(roleset: ElementTree.Element, lemma: str) -> List[str]:
    """The one-word ``ALIAS_POS`` aliases of a ``<roleset>`` other than ``lemma``, lowercased, in
    file order, each once."""
    found: List[str] = []
    for alias in roleset.findall("aliases/alias"):
        word = (alias.text or "").strip().lower()
        if alias.get("pos") in ALIAS_POS and word and word != lemma and not re.search(r"[\s_]", word) and word not in found:
            found.append(word)
    return found


def read_frames(folder: PathLike, *, repaired: Optional[List[str]] = None) -> Inventory:
    """The rolesets of every ``*.xml`` frame file of ``folder`` (files in name order, rolesets in
    file order), grouped by the lemma part of their id (``turn_off.07`` under "turn_off"), which
    is what a predicted sense is built from; the ``<predicate lemma>`` differs from it in a dozen
    PropBank 3.4 rolesets (``chop_out.04`` under ``chop_up``, ``cabg.02`` under ``graft``). An id
    without a "." (``up_creek-13``) stays under its predicate's lemma.

    A file that is not well-formed only inside its examples is read without them, its name
    appended to ``repaired``. A roleset defined in two files keeps the definition of the file named
    after its lemma (3.4's ``overhang.01`` is in ``hang.xml`` and ``overhang.xml``); any other
    malformed file or repeated id is a :class:`CorpusFormatError` naming the file."""
    folder = Path(folder)
    paths = sorted(folder.glob("*.xml"))
    if not paths:
        raise FileNotFoundError(f"no frame files (*.xml) in {folder}")
    inventory: Inventory = {}
    seen: Dict[str, Path] = {}
    for path in paths:
        try:
            by_predicate = read_frame_file(path)
        except CorpusFormatError:
            by_predicate = read_frame_file(path, broken_examples="drop")
            if repaired is not None:
                repaired.append(path.name)
        for predicate_lemma, rolesets in by_predicate.items():
            for rid, data in rolesets.items():
                lemma = rid.rpartition(".")[0] or predicate_lemma
                if rid in seen:
                    if seen[rid].stem == lemma:
                        continue
                    if path.stem != lemma:
                        raise CorpusFormatError(path, None, f"roleset {rid} is also defined in {seen[rid]}")
                seen[rid] = path
                inventory.setdefault(lemma, {})[rid] = data
    return inventory


def write_inventory(inventory: Inventory, path: PathLike, source: Optional[Dict[str, str]] = None) -> int:
    """Write ``inventory`` as gzipped JSON (compact, keys in order; ``mtime`` 0 so that the same
    frames give the same bytes); ``source`` describes where it came from. Returns the size in bytes."""
    payload = {"format": FORMAT_VERSION, "source": source or {}, "lemmas": inventory}
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
        out.write(text.encode("utf8"))
    return path.stat().st_size


def count(inventory: Inventory) -> Dict[str, int]:
    """How many lemmas, rolesets and phrasal lemmas (with "_") an inventory holds."""
    return {
        "lemmas": len(inventory),
        "rolesets": sum(len(r) for r in inventory.values()),
        "phrasal_lemmas": sum(1 for lemma in inventory if "_" in lemma),
    }
