"""spaCy's English dependency scheme (ClearNLP style) from Universal Dependencies.

``lal_parser`` predicts UD (EWT's labels). Code written for spaCy's English pipelines (textacy,
spaCy's English ``noun_chunks``, ``DependencyMatcher`` patterns) expects the scheme of
``en_core_web_sm``: ``dobj``, ``pobj`` under a ``prep``, the copula heading its clause, ``neg``,
``nsubjpass``... With ``dependency_scheme = "clear"`` the parser writes that scheme as
``token.dep_`` / ``token.head``, converted by :func:`ud_to_clear`, and keeps its UD tree readable
as ``token._.ud_dep`` / ``token._.ud_head`` (:func:`store_ud`; in the "ud" scheme they read
``token.dep_`` / ``token.head``). ``docs/clear-scheme.md`` lists the rules and what differs from
spaCy's own parser.

:func:`ud_to_clear` is a pure function over lists (heads, labels, words, tags, UPOS), so it is
tested on hand-built trees; it needs no lemmas (the lemmatizer runs after the parser).
"""
from functools import lru_cache
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.attrs import DEP, HEAD, IDX, ORTH, POS, TAG
from spacy.tokens import Doc, Span, Token
from spacy.vocab import Vocab

from .dependencies import has_no_words

__all__ = [
    "DEPENDENCY_SCHEMES",
    "UD_ATTR",
    "check_scheme",
    "set_clear_dependencies",
    "ud_to_clear",
    "use_english_noun_chunks",
    "register_ud_extensions",
]

DEPENDENCY_SCHEMES = ("ud", "clear")
UD_ATTR = "lal_ud"  # token extension holding [UD label, UD head - token.i] in the "clear" scheme

# Plain relabelling (UD label -> ClearNLP label); labels not listed and not handled by a rule stay.
LABELS: Dict[str, str] = {
    "root": "ROOT",
    "obj": "dobj",
    "iobj": "dative",
    "nsubj:pass": "nsubjpass",
    "nsubj:outer": "nsubj",
    "csubj:pass": "csubjpass",
    "csubj:outer": "csubj",
    "aux:pass": "auxpass",
    "nmod:poss": "poss",
    "compound:prt": "prt",
    "acl:relcl": "relcl",
    "advcl:relcl": "relcl",
    "det:predet": "predet",
    "cc:preconj": "preconj",
    "obl": "npadvmod",  # an obl without a preposition (one with a case child becomes pobj)
    "obl:unmarked": "npadvmod",
    "obl:npmod": "npadvmod",
    "obl:tmod": "npadvmod",
    "obl:agent": "npadvmod",
    "nmod:unmarked": "npadvmod",
    "nmod:npmod": "npadvmod",
    "nmod:tmod": "npadvmod",
    "nmod:desc": "nmod",
    "vocative": "npadvmod",
    "discourse": "intj",
    "flat": "compound",
    "goeswith": "dep",
    "reparandum": "dep",
    "orphan": "dep",
    "list": "dep",
    "dislocated": "dep",
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


def check_scheme(name: str, scheme: str) -> str:
    if scheme not in DEPENDENCY_SCHEMES:
        raise ValueError(
            f"{name}: dependency_scheme must be 'ud' (Universal Dependencies, as trained) or 'clear' "
            f"(spaCy's English scheme, converted from UD; docs/clear-scheme.md), got {scheme!r}"
        )
    return scheme


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
    head = [int(h) for h in heads]
    dep = list(deps)
    lower = [w.lower() for w in words]

    def kids(i: int) -> List[int]:
        return _children(head, i)

    # 1. Copular clauses: the copula heads the clause, the predicate becomes its attr / acomp.
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

    # 2. flat (names): the last word heads, as spaCy's compounds do ("John Smith": John <- Smith).
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

    # 3. Prepositions head their objects: case -> prep (agent for the passive's "by"), noun -> pobj.
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

    # 3b. "after leaving", "by doing": EWT's mark on a gerund -> prep + pcomp.
    for m in range(n):
        if dep[m] != "mark" or head[m] == m or lower[m] not in GERUND_PREPOSITIONS or tags[m] != "IN":
            continue
        v = head[m]
        if tags[v] != "VBG" or any(dep[j] in SUBJECTS for j in kids(v)) or head[v] == v:
            continue
        head[m], dep[m] = head[v], "prep"
        head[v], dep[v] = m, "pcomp"

    # 3c. Raising to object ("let me know", "makes him look", "get them to meet"): UD's object
    # and xcomp are, in spaCy's scheme, the subject of a ccomp.
    for j in range(n):
        if dep[j] != "xcomp" or head[j] == j or pos[j] not in ("VERB", "AUX"):
            continue
        objects = [o for o in kids(head[j]) if dep[o] == "obj" and o < j]
        if objects:
            head[objects[-1]], dep[objects[-1]] = j, "nsubj"
            dep[j] = "ccomp"

    # 4. Labels.
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

    # 5. Coordination: conjuncts chained, cc and commas under the conjunct before them.
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

    # 6. Punctuation at the edge of a phrase goes to the phrase's head ("Usually , they ...",
    # ", killing four", the commas around a relative clause): UD puts it under the phrase. A
    # subject's or object's commas around its relative clause or apposition ("The house , which
    # ... , needs") and a conjunct's stay.
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
    if not _is_tree(head):
        return [int(h) for h in heads], _relabel_only(heads, deps, lower)
    return head, dep


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


# Docs ------------------------------------------------------------------------------------------


def register_ud_extensions() -> None:
    """``token._.lal_ud`` (stored: ``[UD label, UD head - token.i]``, set in the "clear" scheme),
    and the getters ``token._.ud_dep`` / ``token._.ud_head``: the UD label and head (the stored
    ones, else ``token.dep_`` / ``token.head``, which are UD in the "ud" scheme)."""
    if not Token.has_extension(UD_ATTR):
        Token.set_extension(UD_ATTR, default=None)
    if not Token.has_extension("ud_dep"):
        Token.set_extension("ud_dep", getter=_ud_dep)
    if not Token.has_extension("ud_head"):
        Token.set_extension("ud_head", getter=_ud_head)


def _stored(token: Token) -> Optional[list]:
    return token.doc.user_data.get(("._.", UD_ATTR, token.idx, None))


def _ud_dep(token: Token) -> str:
    stored = _stored(token)
    return token.dep_ if stored is None else stored[0]


def _ud_head(token: Token) -> Token:
    stored = _stored(token)
    return token.head if stored is None else token.doc[token.i + stored[1]]


def clear_ud(doc: Doc) -> None:
    """Drop stored UD values (a Doc parsed again in the "ud" scheme)."""
    data = doc.user_data
    for key in [k for k in data if isinstance(k, tuple) and len(k) == 4 and k[0] == "._." and k[1] == UD_ATTR]:
        del data[key]


def set_clear_dependencies(doc: Doc) -> None:
    """Rewrite ``doc``'s UD heads and labels (as the parser set them) in spaCy's English scheme,
    storing the UD ones under ``token._.lal_ud``, and give ``doc`` spaCy's English noun chunks."""
    n = len(doc)
    if not n:
        return
    import numpy

    strings = doc.vocab.strings
    columns = doc.to_array([HEAD, DEP, ORTH, TAG, POS, IDX])
    heads = (columns[:, 0].copy().view("int64") + numpy.arange(n, dtype="int64")).tolist()
    deps, words, tags, pos = ([strings[int(x)] for x in columns[:, c]] for c in (1, 2, 3, 4))
    new_heads: List[int] = []
    new_deps: List[str] = []
    for sent in doc.sents:  # sentences are whole trees; the rules are quadratic in their length
        a, b = sent.start, sent.end
        sent_heads, sent_deps = ud_to_clear([h - a for h in heads[a:b]], deps[a:b], words[a:b], tags[a:b], pos[a:b])
        new_heads.extend(h + a for h in sent_heads)
        new_deps.extend(sent_deps)
    data = doc.user_data
    for i, idx in enumerate(columns[:, 5].tolist()):
        data[("._.", UD_ATTR, idx, None)] = [deps[i], heads[i] - i]
    array = numpy.zeros((n, 2), dtype="uint64")
    array[:, 0] = (numpy.asarray(new_heads, dtype="int64") - numpy.arange(n, dtype="int64")).view("uint64")
    array[:, 1] = [doc.vocab.strings.add(label) for label in new_deps]
    doc.from_array([HEAD, DEP], array)
    use_english_noun_chunks(doc.vocab, doc)


class _WordsOnlyNounChunks:
    """A language's own noun-chunk iterator (its spaCy syntax iterator), but none for a Doc
    without words. An object, not a closure: the vocab (and so every Doc) holds it, and pickling
    a Doc, or sending the pipeline to ``nlp.pipe(n_process=N)``'s workers under the "spawn" start
    method, pickles it; pickle finds functions by their qualified name only."""

    def __init__(self, lang: str, iterator: Callable[[Union[Doc, Span]], Iterator[Tuple[int, int, int]]]) -> None:
        self.lang = lang
        self.iterator = iterator

    def __call__(self, doclike: Union[Doc, Span]) -> Iterator[Tuple[int, int, int]]:
        if not has_no_words(doclike.doc):
            yield from self.iterator(doclike)

    def __reduce__(self) -> Tuple[Callable[[str], Optional["_WordsOnlyNounChunks"]], Tuple[str]]:
        # Unpickled as this process's one iterator of the language, the one that
        # use_english_noun_chunks installs.
        return _language_noun_chunks, (self.lang,)

    def __repr__(self) -> str:
        return f"<{self.iterator.__module__}.{self.iterator.__name__}, but none for a Doc without words>"


@lru_cache(maxsize=None)
def _language_noun_chunks(lang: str) -> Optional[_WordsOnlyNounChunks]:
    from spacy.util import get_lang_class

    try:
        iterator = get_lang_class(lang).Defaults.syntax_iterators.get("noun_chunks")
    except Exception:  # no language (a blank Vocab): nothing to restore
        return None
    if iterator is None:
        return None
    return _WordsOnlyNounChunks(lang, iterator)


def use_english_noun_chunks(vocab: Vocab, doc: Optional[Doc] = None) -> None:
    """Give ``vocab`` (and ``doc``) its language's own noun-chunk iterator back (spaCy's English
    one reads the "clear" scheme), replacing the UD one the parser installs for UD labels. A Doc
    without words (whitespace only, which the parser leaves unparsed) gets none, as in the "ud"
    scheme, where spaCy's iterator alone would raise E029."""
    iterator = _language_noun_chunks(vocab.lang)
    vocab.get_noun_chunks = iterator
    if doc is not None:
        doc.noun_chunks_iterator = iterator


register_ud_extensions()
