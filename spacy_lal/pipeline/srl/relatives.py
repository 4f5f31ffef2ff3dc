"""*whose* phrases in relative clauses as PropBank annotates them (``whose_phrases``).

In PropBank, and in the EWT skeletons, the relative phrase of a *whose* clause is one argument of
the clause's predicate, a reference role, and the antecedent is the role it refers to: "[ARG1 The
woman] [R-ARG1 whose car] was [V stolen]". Every gold R- argument that starts with *whose* in EWT
train and dev (15) spans the whole phrase. The labeller, which sees few of them, splits the phrase
("[R-ARG0 whose] [ARG0 sister] lives") or joins it to the antecedent ("[ARG1 The woman whose car]
was stolen"). Both are repaired over the parser's dependencies, where they give the phrase:

- an R- argument that is the word *whose* alone grows to the phrase of the noun it depends on
  (that noun's subtree, which *whose* starts); arguments inside the phrase were pieces of it and
  are dropped;
- an argument that ends with a *whose* phrase, holds words before it (the antecedent) and whose
  predicate is in the clause the phrase belongs to (the subtree of the word the phrase's noun
  depends on) is split into the antecedent, its label kept, and the phrase as its R- role;
- an argument that is exactly a *whose* phrase of the predicate's clause, labelled with the role
  of the argument just before it (the antecedent, nothing but punctuation between them: "[ARG0 a
  friend] [ARG0 whose sister] lives", which a decoder keeping arguments on the tree gives), is
  that role's R- form.

Nothing changes where the dependencies do not give such a phrase, where the grown phrase would
cross another argument or hold the predicate, or where the label has no R- form (C- roles, V).
"""
from typing import List, Optional, Tuple

from spacy.attrs import LOWER
from spacy.strings import get_string_id
from spacy.tokens import Doc, Token

from ...doc.frames import Argument, FrameData

WHOSE = "whose"
_WHOSE_ID = get_string_id(WHOSE)


def whose_phrases(doc: Doc, frames: List[FrameData]) -> List[FrameData]:
    """``frames`` with their *whose* phrases as PropBank annotates them (the module docstring)."""
    # Runs on every parsed Doc: one array comparison, not a Token object per word, to find none.
    if not frames or not (doc.to_array(LOWER) == _WHOSE_ID).any():
        return frames
    return [_repair(doc, frame) for frame in frames]


def _repair(doc: Doc, frame: FrameData) -> FrameData:
    arguments = list(frame.arguments)
    for start, end, label in frame.arguments:
        if (start, end, label) not in arguments:  # dropped as a piece of a grown phrase
            continue
        if label.startswith("R-") and end - start == 1 and doc[start].lower_ == WHOSE:
            arguments = _grow(doc, frame.predicate, arguments, (start, end, label))
        elif _has_reference_form(label) and doc[start].lower_ == WHOSE:
            arguments = _refer(doc, frame.predicate, arguments, (start, end, label))
        elif _has_reference_form(label):
            arguments = _split(doc, frame.predicate, arguments, (start, end, label))
    if arguments == list(frame.arguments):
        return frame
    return frame._replace(arguments=tuple(sorted(arguments)))


def _grow(doc: Doc, predicate: int, arguments: List[Argument], whose: Argument) -> List[Argument]:
    phrase = _phrase(doc[whose[0]])
    if phrase is None:
        return arguments
    start, end, _ = phrase
    if start <= predicate < end:
        return arguments
    others = [a for a in arguments if a != whose]
    inside = [a for a in others if start <= a[0] and a[1] <= end]
    if any(a[0] < end and start < a[1] for a in others if a not in inside):
        return arguments
    return [a for a in others if a not in inside] + [(start, end, whose[2])]


def _split(doc: Doc, predicate: int, arguments: List[Argument], argument: Argument) -> List[Argument]:
    start, end, label = argument
    for token in doc[start + 1:end]:
        if token.lower_ != WHOSE:
            continue
        phrase = _phrase(token)
        if phrase is None or phrase[1] != end or not _in_clause(phrase, predicate):
            continue
        rest = [a for a in arguments if a != argument]
        return rest + [(start, token.i, label), (token.i, end, f"R-{label}")]
    return arguments


def _refer(doc: Doc, predicate: int, arguments: List[Argument], argument: Argument) -> List[Argument]:
    start, end, label = argument
    phrase = _phrase(doc[start])
    if phrase is None or phrase[:2] != (start, end) or not _in_clause(phrase, predicate):
        return arguments
    antecedent = max((a for a in arguments if a[1] <= start), key=lambda a: a[1], default=None)
    if antecedent is None or antecedent[2] != label:
        return arguments
    if any(not token.is_punct for token in doc[antecedent[1]:start]):
        return arguments
    return [a for a in arguments if a != argument] + [(start, end, f"R-{label}")]


def _phrase(whose: Token) -> Optional[Tuple[int, int, Token]]:
    """The (start, end) of the noun phrase *whose* starts, and its noun: the subtree of the noun
    *whose* depends on, when that noun comes after it and *whose* is the subtree's first word."""
    noun = whose.head
    if noun.i <= whose.i or noun.pos_ not in ("NOUN", "PROPN") or noun.left_edge.i != whose.i:
        return None
    return whose.i, noun.right_edge.i + 1, noun


def _in_clause(phrase: Tuple[int, int, Token], predicate: int) -> bool:
    """Whether ``predicate`` is in the relative clause of the phrase: the subtree of the word its
    noun depends on, a subtree that the phrase starts."""
    start, _, noun = phrase
    clause = noun.head
    if clause is noun:
        return False
    return clause.left_edge.i == start and clause.left_edge.i <= predicate <= clause.right_edge.i


def _has_reference_form(label: str) -> bool:
    return label.startswith("ARG") and not label.startswith(("R-", "C-"))
