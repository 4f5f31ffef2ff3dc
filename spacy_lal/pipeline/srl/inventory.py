"""The frame inventory as data for ``lal_srl`` (``frames = "propbank"``, the default): every
sense is a roleset of PropBank 3.4's frame files (``spacy_lal.doc.propbank``), and only the numbered
roles that roleset defines are predicted.

Per row (unit, predicate) of a batch :func:`frame_choices` gives ``adapter.FrameChoices``:
among the sense classes the model has, those whose ``lemma.class`` PropBank defines, each with
the sense prior's bonus (``frames.sense_bonus``), and the role labels each allows (ARG0-ARG6,
ARGA and their C-/R- forms only where the roleset defines them; modifiers always). The adapter
chooses the best-scoring allowed class; when no class forms a roleset of the lemma, the lemma's
first roleset in the frame files. The lemma of a predicate with a particle child (UD
``compound:prt``, ``prt`` in the "clear" dependency scheme) is the phrasal one (``pick_up``)
where PropBank has it; one with an adverb after it (``advmod``) is phrasal where the training
data made that pair phrasal more often than not (``phrasal_adverbs``: "look forward to" is
look_forward.03, "go back" is go.02). A lemma PropBank has no rolesets of takes those that list
it as an alias ("evacuation": evacuate.01; ``propbank.predicate_rolesets``). A predicate whose
lemma is neither gets no sense (None), its roles labelled unconstrained (said once in the log).
"""
from collections import Counter
from typing import Collection, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence

import numpy
from spacy.tokens import Doc, Token

from ...doc import propbank
from ...doc.frames import FrameData
from ...logs import log_once
from ..units import Unit
from .adapter import FrameChoices, FrameScores
from .targets import roleset_key, sense_bonus, split_roleset

# A particle's dependency label: UD's, and the "clear" scheme's (lal_parser's dependency_scheme).
PARTICLE_DEPS = ("compound:prt", "prt")
# An adverb's, in both schemes. UD-EWT labels "forward" in "look forward to" advmod, and a
# PropBank phrasal lemma of the verb and an adverb is as often not the annotated roleset as it
# is (go_back, come_in), so these pairs are learned (``learn_phrasal_adverbs``), not assumed.
ADVERB_DEPS = ("advmod",)


def frame_choices(
    component: str,
    docs: Sequence[Doc],
    units: Sequence[Unit],
    scores: FrameScores,
    *,
    labels: Sequence[str],
    senses: Sequence[str],
    sense_lemmas: Mapping[str, str],
    sense_counts: Mapping[str, Mapping[str, int]],
    sense_prior: float,
    phrasal_adverbs: Collection[str] = (),
) -> FrameChoices:
    """What the inventory allows each row of ``scores`` (see the module docstring)."""
    if sense_prior and not sense_counts:
        log_once(
            f"{component}: sense_prior is {sense_prior:g} but this labeller has no roleset counts "
            "(it was trained before they existed), so its senses come from the sense head alone; "
            "scripts/add_sense_counts.py PIPELINE --train CORPUS gives it the counts",
        )
    n_rows, n_senses = len(scores.units), len(senses)
    constrained = numpy.zeros(n_rows, dtype=bool)
    bonus = numpy.full((n_rows, n_senses), -numpy.inf)
    role_masks = numpy.ones((n_rows, n_senses + 1, len(labels)), dtype=bool)
    rolesets: List[List[Optional[str]]] = [[None] * (n_senses + 1) for _ in range(n_rows)]
    suffix_ids = {suffix: c for c, suffix in enumerate(senses)}
    # The roleset key of each label ("B-ARG2" -> "2"), None for labels always allowed.
    numbers = [None if label == "O" else propbank.numbered_role(label[2:]) for label in labels]
    masks: Dict[str, numpy.ndarray] = {}

    def allowed(roleset: propbank.Roleset) -> numpy.ndarray:
        if roleset.id not in masks:
            masks[roleset.id] = numpy.asarray([n is None or n in roleset.roles for n in numbers], dtype=bool)
        return masks[roleset.id]

    for r, (u, position) in enumerate(zip(scores.units, scores.positions)):
        unit = units[u]
        lemma = frame_lemma(docs[unit.doc_index][unit.words[position]], sense_lemmas, phrasal_adverbs)
        candidates = propbank.predicate_rolesets(lemma)
        if not candidates:
            log_once(
                f"{component}: frames = 'propbank': predicates whose lemma has no PropBank roleset or alias "
                f"(such as {lemma!r}) get no sense, and their roles are not constrained",
            )
            continue
        constrained[r] = True
        rolesets[r][n_senses] = candidates[0].id
        role_masks[r, n_senses] = allowed(candidates[0])
        for roleset in candidates:
            suffix = roleset.id.rpartition(".")[2]
            c = suffix_ids.get(suffix)
            if c is None or rolesets[r][c] is not None:  # the first roleset of a class stands for it
                continue
            # Counted under the roleset's own lemma, which an alias ("evacuation") is not.
            seen = sense_counts.get(roleset.lemma, {}).get(suffix, 0) if sense_prior else 0
            bonus[r, c] = sense_bonus(seen, sense_prior)
            rolesets[r][c] = roleset.id
            role_masks[r, c] = allowed(roleset)
    return FrameChoices(constrained, bonus, role_masks, rolesets)


def frame_lemma(token: Token, sense_lemmas: Mapping[str, str], phrasal_adverbs: Collection[str] = ()) -> str:
    """The lemma a predicate's roleset is looked up under: the roleset key, mapped through the
    table learned at ``initialize`` ("decision" -> "decide"), joined with a particle child's
    text where PropBank has that phrasal lemma ("picked ... up" -> "pick_up"), or else with an
    adverb after it where ``phrasal_adverbs`` lists the pair ("look forward" -> "look_forward")."""
    lemma = _table_lemma(token, sense_lemmas)
    for child in token.children:
        if child.dep_ in PARTICLE_DEPS or _ud_dep(child) == "compound:prt":
            phrasal = f"{lemma}_{child.lower_}"
            if propbank.has_lemma(phrasal):
                return phrasal
    if phrasal_adverbs:
        for phrasal in _adverb_phrasals(token, lemma):
            if phrasal in phrasal_adverbs:
                return phrasal
    return lemma


def learn_phrasal_adverbs(
    predicates: Iterable[Token], senses: Iterable[Optional[str]], sense_lemmas: Mapping[str, str]
) -> List[str]:
    """The phrasal lemmas of a verb and an adverb after it (``ADVERB_DEPS``) that PropBank has
    and that the gold ``senses`` of these ``predicates`` (tokens of gold-parsed Docs) chose more
    often than the verb's own rolesets when that adverb was there; sorted. Lemmas are looked up
    as :func:`frame_lemma` looks them up."""
    counts: Dict[str, Counter] = {}
    for token, sense in zip(predicates, senses):
        lemma, suffix = split_roleset(sense)
        if suffix is None:
            continue
        for phrasal in _adverb_phrasals(token, _table_lemma(token, sense_lemmas)):
            counts.setdefault(phrasal, Counter())[phrasal == lemma] += 1
    return sorted(phrasal for phrasal, c in counts.items() if c[True] > c[False])


def _table_lemma(token: Token, sense_lemmas: Mapping[str, str]) -> str:
    """The token's roleset key mapped through the lemma table. The table holds the lemma that
    the key's gold rolesets named most often, so a verb most of whose uses in training had a
    particle maps to the phrasal lemma ("pick" -> pick_up, "stir" -> stir_up, "dry" ->
    dry_out); for a verb, that lemma stands only with one of its particles among the verb's
    children, and the verb's own lemma otherwise ("Stir in the sugar" is no stir_up.04, "She
    dried the dishes" no dry_out.03; :func:`frame_lemma` joins a particle back). A noun keeps
    it ("takeover" -> take_over).

    The table is learned without a lemmatizer, so it also maps word forms ("found" -> find,
    "saw" -> see). A verb that a lemmatizer gave a lemma PropBank has rolesets of keeps that
    lemma: "founded" takes found's roleset (3.4's found.04), not find.01 (on EWT dev and test
    with gold lemmas this changes 4 predicates' lemma, all to the gold one)."""
    key = roleset_key(token)
    lemma = sense_lemmas.get(key, key)
    verb, _, particles = lemma.partition("_")
    if token.pos_ in ("VERB", "AUX") or token.tag_.startswith("VB"):
        if particles:
            if not {child.lower_ for child in token.children} & set(particles.split("_")):
                return verb
        elif lemma != key and token.lemma_ and propbank.has_lemma(key):
            return key
    return lemma


def _adverb_phrasals(token: Token, lemma: str) -> Iterator[str]:
    """``lemma_adverb`` for each adverb child after ``token`` where PropBank has that lemma."""
    for child in token.rights:
        if child.dep_ in ADVERB_DEPS or _ud_dep(child) in ADVERB_DEPS:
            phrasal = f"{lemma}_{child.lower_}"
            if propbank.has_lemma(phrasal):
                yield phrasal


def without_auxiliaries(doc: Doc, frames: List[FrameData]) -> List[FrameData]:
    """``frames`` less those of an auxiliary or modal roleset without arguments ("be.03 [V were]"):
    PropBank 3.4 annotates them, so the labeller finds them and scoring keeps them, but a reader of
    ``doc._.srl`` gets clutter. A predicate the caller marked (the frames already on the Doc)
    keeps its frame."""
    given = {frame.predicate.i for frame in doc._.srl}
    return [
        frame for frame in frames
        if frame.arguments or frame.predicate in given or not propbank.is_auxiliary(frame.sense)
    ]


def _ud_dep(token: Token) -> Optional[str]:
    """The token's UD label where the "clear" scheme stores it (``token._.ud_dep``), by the
    extension's getter: ``token._`` builds an object per access, five times the getter's cost."""
    extension = Token.get_extension("ud_dep")
    return extension[2](token) if extension else None
