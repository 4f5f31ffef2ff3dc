"""spaCy's English dependency scheme (ClearNLP style) from Universal Dependencies.

``lal_parser`` predicts UD (EWT's labels). Code written for spaCy's English pipelines (textacy,
spaCy's English ``noun_chunks``, ``DependencyMatcher`` patterns) expects the scheme of
``en_core_web_sm``: ``dobj``, ``pobj`` under a ``prep``, the copula heading its clause, ``neg``,
``nsubjpass``... With ``dependency_scheme = "clear"`` the parser writes that scheme as
``token.dep_`` / ``token.head``, converted by :func:`ud_to_clear`, and keeps its UD tree readable
as ``token._.ud_dep`` / ``token._.ud_head`` (:func:`store_ud`; in the "ud" scheme they read
``token.dep_`` / ``token.head``). ``docs/clear-scheme.md`` lists the rules and what differs from
spaCy's own parser.

:func:`ud_to_clear` (``clear_rules.py``) is a pure function over lists (heads, labels, words,
tags, UPOS), so it is tested on hand-built trees; it needs no lemmas (the lemmatizer runs after
the parser).
"""
from functools import lru_cache
from typing import Callable, Iterator, List, Optional, Tuple, Union

from spacy.attrs import DEP, HEAD, IDX, ORTH, POS, TAG
from spacy.tokens import Doc, Span, Token
from spacy.vocab import Vocab

from ..heads import has_no_words
from .clear_rules import ud_to_clear

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


def check_scheme(name: str, scheme: str) -> str:
    if scheme not in DEPENDENCY_SCHEMES:
        raise ValueError(
            f"{name}: dependency_scheme must be 'ud' (Universal Dependencies, as trained) or 'clear' "
            f"(spaCy's English scheme, converted from UD; docs/clear-scheme.md), got {scheme!r}"
        )
    return scheme


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
