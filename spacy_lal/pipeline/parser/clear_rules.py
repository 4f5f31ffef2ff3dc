"""UD to spaCy's English (ClearNLP) dependency scheme: :func:`ud_to_clear`, a pure function over
lists (heads, labels, words, Penn tags, UPOS), as a list of named rules (:data:`RULES`) applied in
order to one sentence's tree. ``docs/clear-scheme.md`` lists them and what differs from spaCy's
own parser; ``clear.py`` writes the result to Docs. No lemmas are read (the lemmatizer runs after
the parser).
"""
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

__all__ = ["ud_to_clear", "RULES", "LABELS"]

# Plain relabelling (UD label -> ClearNLP label); labels not listed and not handled by a rule stay.
LABELS: Dict[str, str] = {
    "root": "ROOT", "obj": "dobj", "iobj": "dative",
    "nsubj:pass": "nsubjpass", "nsubj:outer": "nsubj", "csubj:pass": "csubjpass", "csubj:outer": "csubj",
    "aux:pass": "auxpass", "nmod:poss": "poss", "compound:prt": "prt", "acl:relcl": "relcl", "advcl:relcl": "relcl",
    "det:predet": "predet", "cc:preconj": "preconj",
    # an obl without a preposition (one with a case child becomes pobj), and bare noun modifiers
    "obl": "npadvmod", "obl:unmarked": "npadvmod", "obl:npmod": "npadvmod", "obl:tmod": "npadvmod",
    "obl:agent": "npadvmod", "nmod:unmarked": "npadvmod", "nmod:npmod": "npadvmod", "nmod:tmod": "npadvmod",
    "nmod:desc": "nmod", "vocative": "npadvmod", "discourse": "intj", "flat": "compound",
    "goeswith": "dep", "reparandum": "dep", "orphan": "dep", "list": "dep", "dislocated": "dep",
}
NEGATIONS = frozenset({"not", "n't", "never", "nt", "n’t"})
BE_FORMS = frozenset({"be", "is", "am", "are", "was", "were", "been", "being", "'s", "'re", "'m", "’s", "’re", "’m"})
# Verbs whose adjectival / nominal xcomp spaCy labels acomp / attr ("seems happy", "became a doctor").
LINKING_VERBS = frozenset(
    "seem seems seemed seeming become becomes became becoming look looks looked looking feel feels felt "
    "feeling sound sounds sounded sounding remain remains remained remaining appear appears appeared "
    "appearing stay stays stayed staying grow grows grew grown growing get gets got gotten getting "
    "turn turns turned turning prove proves proved proven proving".split()
)
BECOME_FORMS = frozenset("become becomes became becoming remain remains remained remaining".split())
POSSESSIVE = frozenset({"'s", "'", "’s", "’", "s"})
# Prepositions that UD (EWT) attaches as ``mark`` to a gerund ("after leaving"): spaCy's prep + pcomp.
GERUND_PREPOSITIONS = frozenset(
    "about after against at before besides by despite for from in instead into of on upon through "
    "toward towards with without".split()
)
SUBJECTS = ("nsubj", "nsubj:pass", "nsubj:outer", "csubj", "csubj:pass", "csubj:outer", "expl")
# Dependents of a copular predicate that belong to the clause (they move to the copula).
CLAUSE_DEPENDENTS = frozenset(
    SUBJECTS
    + ("aux", "aux:pass", "mark", "advcl", "parataxis", "discourse", "vocative", "obl:unmarked", "obl:tmod", "obl:npmod")
    + ("dislocated", "reparandum")
)
CORE_NOMINALS = frozenset({"nsubj", "nsubjpass", "dobj", "attr", "dative", "pobj", "appos"})
NOMINAL_POS = frozenset({"NOUN", "PROPN", "PRON", "NUM", "DET", "SYM", "X"})


@dataclass
class _Parse:
    """One sentence as the rules read and rewrite it: ``head`` and ``dep`` change in place."""

    head: List[int]
    dep: List[str]
    lower: List[str]
    tags: Sequence[str]
    pos: Sequence[str]

    def kids(self, i: int) -> List[int]:
        return _children(self.head, i)


def ud_to_clear(
    heads: Sequence[int],
    deps: Sequence[str],
    words: Sequence[str],
    tags: Sequence[str],
    pos: Sequence[str],
) -> Tuple[List[int], List[str]]:
    """Convert a UD dependency forest to spaCy's English (ClearNLP) scheme.

    ``heads[i]``: the index of token ``i``'s head (``i`` itself for a root), over the same token
    list as ``deps`` (UD labels, EWT's subtypes), ``words``, ``tags`` (Penn tags) and ``pos``
    (UPOS). Returns the new heads and labels; the result is always a forest over the same tokens
    (should a rule ever make a cycle, the input's heads are kept with the labels relabelled only).
    """
    n = len(heads)
    if not (len(deps) == len(words) == len(tags) == len(pos) == n):
        raise ValueError("ud_to_clear: heads, deps, words, tags and pos must have the same length")
    parse = _Parse([int(h) for h in heads], list(deps), [w.lower() for w in words], tags, pos)
    for rule in RULES:
        rule(parse)
    if not _is_tree(parse.head):
        return [int(h) for h in heads], _relabel_only(heads, deps, parse.lower)
    return parse.head, parse.dep


def _copular_clauses(s: "_Parse") -> None:
    """Copular clauses: the copula heads the clause, the predicate becomes its attr / acomp."""
    head, dep, lower, tags, pos, n, kids = s.head, s.dep, s.lower, s.tags, s.pos, len(s.head), s.kids
    for c in range(n):
        if dep[c] != "cop" or head[c] == c:
            continue
        p = head[c]
        p_head, p_dep = head[p], dep[p]
        span_end = max([j for j in _subtree(head, p) if dep[j] != "punct"] + [p])
        for j in kids(p):
            if j == c:
                continue
            label = dep[j]
            moves = (
                label in CLAUSE_DEPENDENTS
                or j < c
                or (label == "advmod" and lower[j] in NEGATIONS)
                or (label == "punct" and j > span_end)
                or (label == "conj" and (pos[j] in ("VERB", "AUX") or any(dep[k] in SUBJECTS for k in kids(j))))
                or (label == "cc" and _next_conj_moves(head, dep, pos, p, j, kids))
            )
            if moves:
                head[j] = c
        head[c] = c if p_head == p else p_head
        dep[c] = p_dep
        head[p] = c
        if any(dep[j] == "det" for j in kids(p)):
            dep[p] = "attr"  # "is the same", "is the greatest"
        elif pos[p] == "ADJ" or tags[p] in ("JJ", "JJR", "JJS"):
            dep[p] = "acomp"
        elif pos[p] == "ADV":
            dep[p] = "advmod"
        elif pos[p] == "VERB":
            dep[p] = "xcomp"
        else:
            dep[p] = "attr"


def _flat_names(s: "_Parse") -> None:
    """flat (names): the last word heads, as spaCy's compounds do ("John Smith": John <-
    Smith)."""
    head, dep, n, kids = s.head, s.dep, len(s.head), s.kids
    for f in range(n):
        if dep[f] != "flat" or head[f] == f:
            continue
        first = head[f]
        if dep[first] == "flat":  # handled with its own first word
            continue
        group = sorted([first] + [j for j in kids(first) if dep[j] == "flat"])
        last = group[-1]
        for j in kids(first):
            if j not in group:
                head[j] = last
        head[last] = last if head[first] == first else head[first]
        dep[last] = dep[first]
        for j in group[:-1]:
            head[j] = last
            dep[j] = "compound"


def _prepositions(s: "_Parse") -> None:
    """Prepositions head their objects: case -> prep (agent for the passive's "by"), noun ->
    pobj."""
    head, dep, lower, tags, pos, n, kids = s.head, s.dep, s.lower, s.tags, s.pos, len(s.head), s.kids
    for x in range(n):
        if dep[x] != "case" or head[x] == x:
            continue
        if lower[x] in POSSESSIVE or tags[x] == "POS":
            continue  # possessive 's stays case under its possessor
        obj = head[x]
        cases = sorted(j for j in kids(obj) if dep[j] == "case" and not (lower[j] in POSSESSIVE or tags[j] == "POS"))
        if x != cases[0]:
            continue  # the first preposition heads the chain ("out of": out -> of -> noun)
        chain = []
        for k in cases:
            chain.append(k)
            chain.extend(sorted(j for j in kids(k) if dep[j] == "fixed"))
        top = chain[0]
        obj_head, obj_dep = head[obj], dep[obj]
        if obj_head == obj:
            head[top] = top
            dep[top] = "ROOT"
        else:
            head[top] = obj_head
            if obj_dep == "conj":
                # "to A and to B": the second preposition is a conjunct of the first.
                first_prep = _governing_prep(head, dep, obj_head)
                if first_prep is not None:
                    head[top] = first_prep
                dep[top] = "conj"
            elif obj_dep == "obl:agent" and lower[top] == "by":
                dep[top] = "agent"
            else:
                dep[top] = "prep"
        for a, b in zip(chain, chain[1:]):
            head[b] = a
            dep[b] = "prep" if tags[b] in ("IN", "TO", "RP") else "pcomp"
        head[obj] = chain[-1]
        dep[obj] = "pcomp" if pos[obj] in ("VERB", "AUX") else "pobj"
        # Words before the preposition that UD puts under the noun ("right after the game",
        # "only for members"): they modify the prepositional phrase.
        # A conjunct's cc and commas go with its preposition (and on to the conjunct before, 5.).
        moving = ("advmod", "cc:preconj", "cc", "punct") if obj_dep == "conj" else ("advmod", "cc:preconj")
        for j in kids(obj):
            if j < top and dep[j] in moving:
                head[j] = top


def _gerund_prepositions(s: "_Parse") -> None:
    """A preposition that EWT attaches to a gerund as ``mark`` ("after leaving", "by doing"):
    prep + pcomp."""
    head, dep, lower, tags, n, kids = s.head, s.dep, s.lower, s.tags, len(s.head), s.kids
    for m in range(n):
        if dep[m] != "mark" or head[m] == m or lower[m] not in GERUND_PREPOSITIONS or tags[m] != "IN":
            continue
        v = head[m]
        if tags[v] != "VBG" or any(dep[j] in SUBJECTS for j in kids(v)) or head[v] == v:
            continue
        head[m], dep[m] = head[v], "prep"
        head[v], dep[v] = m, "pcomp"


def _raising_to_object(s: "_Parse") -> None:
    """Raising to object ("let me know", "makes him look", "get them to meet"): UD's object
    and xcomp are, in spaCy's scheme, the subject of a ccomp."""
    head, dep, pos, n, kids = s.head, s.dep, s.pos, len(s.head), s.kids
    for j in range(n):
        if dep[j] != "xcomp" or head[j] == j or pos[j] not in ("VERB", "AUX"):
            continue
        objects = [o for o in kids(head[j]) if dep[o] == "obj" and o < j]
        if objects:
            head[objects[-1]], dep[objects[-1]] = j, "nsubj"
            dep[j] = "ccomp"


def _labels(s: "_Parse") -> None:
    """The labels of the remaining heads: ROOT, neg, quantmod, relcl for an infinitival relative,
    aux for infinitival "to", acomp / attr / oprd for a nominal or adjectival xcomp, attr after
    "become", dobj for a lone iobj, nsubj for a non-existential expl, prt, compound / amod, fixed,
    attr in existentials; then the plain table (``LABELS``), or the label without its subtype."""
    head, dep, lower, tags, pos, n, kids = s.head, s.dep, s.lower, s.tags, s.pos, len(s.head), s.kids
    for i in range(n):
        label = dep[i]
        if head[i] == i:
            dep[i] = "ROOT"
        elif label == "advmod" and lower[i] in NEGATIONS:
            dep[i] = "neg"
        elif label == "advmod" and pos[head[i]] == "NUM" and dep[head[i]] == "nummod":
            dep[i] = "quantmod"
        elif label == "acl" and pos[head[i]] in NOMINAL_POS and any(tags[j] == "TO" for j in kids(i)):
            dep[i] = "relcl"  # "a way to go", "a role to play"
        elif label == "mark" and tags[i] == "TO":
            dep[i] = "aux"  # infinitival "to"
        elif label == "xcomp" and (pos[i] == "ADJ" or pos[i] in NOMINAL_POS):
            if lower[head[i]] in LINKING_VERBS:
                dep[i] = "acomp" if pos[i] == "ADJ" else "attr"  # "seems happy", "became president"
            else:
                dep[i] = "oprd"  # "elected president", "made him happy"
        elif label == "obj" and lower[head[i]] in BECOME_FORMS:
            dep[i] = "attr"  # "became a doctor"
        elif label == "iobj" and not any(dep[j] == "obj" for j in kids(head[i])):
            dep[i] = "dobj"  # a lone object ("told him"): spaCy's dative needs a direct object beside it
        elif label == "expl" and lower[i] != "there":
            dep[i] = "nsubj"  # "it is clear that ...": ClearNLP's expl is existential "there" only
        elif label == "advmod" and tags[i] == "RP":
            dep[i] = "prt"
        elif label == "amod" and tags[i].startswith("NN"):
            dep[i] = "compound"  # a noun modifying a noun
        elif label == "compound" and tags[i] in ("JJ", "JJR", "JJS") and pos[head[i]] in ("NOUN", "PROPN"):
            dep[i] = "amod"
        elif label == "fixed":
            dep[i] = "prep" if tags[i] in ("IN", "TO") else "advmod" if pos[i] == "ADV" else "dep"
        elif label == "nsubj" and lower[head[i]] in BE_FORMS and any(dep[j] == "expl" for j in kids(head[i])):
            dep[i] = "attr"  # "There is a cat": cat is attr
        elif label in LABELS:
            dep[i] = LABELS[label]
        elif ":" in label:
            dep[i] = label.split(":")[0]


def _coordination(s: "_Parse") -> None:
    """Coordination: conjuncts chained, cc and commas under the conjunct before them."""
    head, dep, n, kids = s.head, s.dep, len(s.head), s.kids
    for h in sorted({head[j] for j in range(n) if dep[j] == "conj" and head[j] < j}):
        conjs = sorted(j for j in kids(h) if dep[j] == "conj" and j > h)
        if not conjs:
            continue
        previous = h
        for j in conjs:
            head[j] = previous
            for k in kids(j):
                if k < j and dep[k] in ("cc", "punct") and k > previous:
                    head[k] = previous
            previous = j


def _edge_punctuation(s: "_Parse") -> None:
    """Punctuation at the edge of a phrase goes to the phrase's head ("Usually , they ...",
    ", killing four", the commas around a relative clause): UD puts it under the phrase. A
    subject's or object's commas around its relative clause or apposition ("The house , which
    ... , needs") and a conjunct's stay."""
    head, dep, n, kids = s.head, s.dep, len(s.head), s.kids
    if _is_tree(head):
        first, last = _edges(head)
        for k in range(n):
            if dep[k] != "punct":
                continue
            j = head[k]
            while j != k and head[j] != j and dep[j] != "conj" and (k == first[j] or k == last[j]):
                if dep[j] in CORE_NOMINALS and any(dep[c] in ("relcl", "appos", "acl") for c in kids(j)):
                    break
                head[k] = j = head[j]


#: The conversion, rule by rule, in the order it runs.
RULES: Tuple[Callable[[_Parse], None], ...] = (
    _copular_clauses, _flat_names, _prepositions, _gerund_prepositions, _raising_to_object, _labels, _coordination,
    _edge_punctuation,
)


def _children(heads: Sequence[int], i: int) -> List[int]:
    return [j for j, h in enumerate(heads) if h == i and j != i]


def _is_tree(heads: Sequence[int]) -> bool:
    """Every token reaches a root (a token heading itself) without a cycle."""
    state = [0] * len(heads)  # 0 unseen, 1 on the current path, 2 reaches a root
    for start in range(len(heads)):
        path = []
        i = start
        while state[i] == 0:
            state[i] = 1
            path.append(i)
            if heads[i] == i:
                break
            i = heads[i]
            if not 0 <= i < len(heads):
                return False
        else:
            if state[i] == 1:
                return False
        for j in path:
            state[j] = 2
    return True



def _edges(head: Sequence[int]) -> Tuple[List[int], List[int]]:
    """The first and last token of each token's subtree (``head`` must be a forest)."""
    first = list(range(len(head)))
    last = list(range(len(head)))
    for t in range(len(head)):
        i = t
        while head[i] != i:
            i = head[i]
            if t < first[i]:
                first[i] = t
            if t > last[i]:
                last[i] = t
    return first, last


def _subtree(head: Sequence[int], i: int) -> List[int]:
    out, stack = [], [i]
    while stack:
        k = stack.pop()
        out.append(k)
        stack.extend(j for j, h in enumerate(head) if h == k and j != k)
    return out


def _next_conj_moves(head, dep, pos, p: int, cc: int, kids) -> bool:
    """A cc left under a copular predicate (rare: UD puts cc under the conjunct) moves with the
    clause-level conjunct after it."""
    later = sorted(j for j in kids(p) if dep[j] == "conj" and j > cc)
    return bool(later) and (pos[later[0]] in ("VERB", "AUX") or any(dep[k] in SUBJECTS for k in kids(later[0])))


def _governing_prep(head: Sequence[int], dep: Sequence[str], i: int) -> Optional[int]:
    """The preposition that now heads token ``i`` as its pobj, if any."""
    if dep[i] == "pobj" and head[i] != i:
        return head[i]
    return None


def _relabel_only(heads: Sequence[int], deps: Sequence[str], lower: Sequence[str]) -> List[str]:
    out = []
    for i, label in enumerate(deps):
        if heads[i] == i:
            out.append("ROOT")
        elif label == "advmod" and lower[i] in NEGATIONS:
            out.append("neg")
        else:
            out.append(LABELS.get(label, label.split(":")[0]))
    return out
