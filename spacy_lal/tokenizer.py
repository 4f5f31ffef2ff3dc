"""spacy-lal.EWTTokenizer.v1: spaCy's English tokenizer, changed where UD_English-EWT tokenizes
otherwise (issue #35).

A pipeline trained on EWT reads EWT's words; on raw text it reads the tokenizer's, so every
disagreement is a word the parser never saw (and a miss for the CoNLL 2018 scorer). spaCy's
English tokenizer disagrees with EWT (UD 2.16) on about 2.5% of the test words. This one keeps
spaCy's rules wherever EWT agrees with them and changes those below, all found on EWT **train**
(``scripts/tokenization_diff.py train``; dev for checking, test never looked at for rules).
Each rule: what EWT does, an example, the count in train that says why.

Punctuation

1. *Runs of ! and ?* are one token, with one "." before them: ``wow!!!`` -> ``wow !!!``,
   ``really?!`` -> ``really ?!``, ``decade.?`` -> ``decade .?`` (train: 70 ``!!``, 57 ``!!!``, 29
   ``.?``...; spaCy: one token per character). An ellipsis or an abbreviation keeps its dots
   apart: ``camera...?`` -> ``camera ... ?``, ``T.V.?`` -> ``T.V. ?``.
2. *Runs of one repeated symbol* are one token: ``<<``, ``>>``, ``***``, ``====``, ``____``,
   ``))`` (train: 49 ``<<``, 48 ``>>``, 8 ``***``...); so are two single quotes written for a
   double one (``''``, ``‘’``: 11) and a separator line of mixed ``- = _ * + ~ # < > |``
   (``----==``, ``===>``: 7 of 7).
3. *A closing bracket or quote before an opening bracket* is split, also inside what looks like a
   URL or an e-mail address: ``file.pdf)(See`` -> ``file.pdf ) ( See``, ``"Julie"<julie@x.com>``
   -> ``" Julie " < julie@x.com >`` (train: 4 of 4). An ellipsis before ``@`` stays inside the
   address: ``julie...@x.com`` (EWT's masked addresses).
4. *A hyphen at the edge of a word* is split: ``-for`` -> ``- for``, ``book-`` -> ``book -``,
   ``-2:30`` -> ``- 2:30`` (train: 19 of 21 before letters, 4 of 4 before numbers, 40 of 40
   after letters; spaCy kept them attached).

Hyphens, slashes, brackets

5. *Bound prefixes keep their hyphen*: ``e-mail``, ``non-stop``, ``pre-war``, ``anti-American``,
   ``re-run``, ``mid-1980s`` stay one token, while other hyphenated compounds are split as spaCy
   splits them (``well - informed``, ``al - Ani``). EWT splits hyphens except after a prefix;
   train: ``e-`` 38 whole (1 split), ``non-`` 28/0, ``mid-`` 18/0, ``pre-`` 15/0, ``anti-`` 14/0,
   ``re-`` 13/0, and every other first part (``well-``, ``self-``, ``al-``...) split. The prefixes
   are those whole more often than split in train: :data:`HYPHEN_PREFIXES`. Only the hyphen right
   after the prefix is kept: ``pro-same-gender`` -> ``pro-same - gender``.
6. *A letter and a number across a hyphen are split*: ``F-102`` -> ``F - 102`` (train: 16 of 20;
   spaCy kept them whole); the prefixes of rule 5 stay whole (``mid-2004``).
7. *Phone numbers are one token*: ``713-853-3989``, ``1-800-991-9019``, ``345-9945``,
   ``3-1663`` (three or more groups of digits, or up to three digits and four; train: 90 of 91
   with three groups, 25 of 25 of the second kind; spaCy split every hyphen between digits).
   Other number ranges stay split as spaCy splits them (``1969 - 1970``: 56 in train).
8. *A slash between words is split*: ``and/or`` -> ``and / or`` (train: 133 of 143), except
   after a single letter: ``w/o``, ``l/c``, ``I/S`` stay whole (10 of 10). spaCy had a special
   case for ``and/or`` and split ``l/c``.
9. *A bracket opening inside a word is split*: ``account(s)`` -> ``account ( s )`` (11 of 11).

Numbers

10. *Times and thousands*: ``7:30PM`` -> ``7:30 PM``, ``11AM`` -> ``11 AM``, ``65k`` -> ``65 k``,
    ``75-80k.`` -> ``75 - 80 k .`` (train: am/pm 51 of 51 in any case, k 12 of 12; spaCy only
    had the special cases ``1am``...``12pm``, lower case without minutes, and merged ``k .``).
11. *A number keeps its 's*: ``1990's``, ``60's`` (decades; train: 11 of 12 whole).

Words

12. *No special cases that EWT does not have*: ``id`` and ``wed`` are words (spaCy: ``i d``,
    ``we d``; train: ``id`` whole 4 of 5 times, ``Wed``/``wed`` never split, 5 times); ``and/or``
    see rule 8; ``):`` is a bracket and a colon (7 of 7); ``k.`` and ``m.`` (rule 10).
13. *Abbreviations of train keep their period*: weekdays (``Mon.``, ``Tue.``, ``Tues.``, ``Wed.``,
    ``Thu.``, ``Thur.``, ``Thurs.``, ``Fri.``, ``Sat.``, ``Sun.``), ``Ft.``, ``Lt.``, ``Col.``,
    ``Sr.``, ``Reps.``, ``Attn.``, ``ext.`` (as spaCy's list keeps ``Mr.``, ``Jan.``, ``Gen.``).
    Not ``etc.`` (whole 19 times, split 29: EWT splits the period of a sentence-final one).
14. *Contractions in capitals*: ``DON'T`` -> ``DO N'T``, ``CANT`` -> ``CA NT``: every special
    case of spaCy's that splits a lower-case word (``don't``, ``cant``, ``i'm``, ``gonna``...)
    also in upper case, as EWT splits them whatever the case.
15. *More multi-word forms*: ``wanna`` -> ``wan na``, ``outta`` -> ``out ta`` (as spaCy already
    splits ``gonna`` -> ``gon na``, ``gotta`` -> ``got ta``; EWT train writes all four so).
16. *A clitic after a backtick*: ``mama`s`` -> ``mama `s`` (train: 10 of 10), as after ``'``.
17. *File names are one token*: ``ld2d-#69366-1.DOC``, ``ENRON.XLS`` (a name with a known
    extension; train: 62 of 62).
18. *An emoji is one token*: a zero-width-joined sequence, a flag, a skin tone, a keycap
    (``👨‍👩‍👧``, ``🇺🇸``, ``👍🏽``, ``❤️``): EWT has none to count; spaCy cut them into pieces.

Found on the CoNLL 2018 shared task's text of train (``--layout conll18``: a sentence ending
without a space before the next one, as the writer typed it, stays glued to it there)

19. *? and ! between words are split*: ``day?Grimy`` -> ``day ? Grimy``, ``it?how`` -> ``it ?
    how``, ``room!it`` -> ``room ! it`` (train: 11 of 11; spaCy kept them whole). A URL keeps its
    query (``index.php?id=3`` is left to spaCy's URL rule).
20. *A two-digit year keeps its apostrophe*: ``class of '68`` -> ``'68`` (train: 5 of 7).
21. *A hyphen before a dollar amount is split, and its $*: ``$10,000-$20,000`` -> ``$ 10,000 -
    $ 20,000``, ``-$0.05`` -> ``- $ 0.05`` (train: 2 of 2); and ``Yahoo!`` is one token (3 of 3).

Multi-word tokens (what the CoNLL-U export groups)

spaCy's tokens are EWT's *words*: ``don't`` is ``do`` + ``n't``. EWT writes such a group as one
*token* of several words (a range line ``2-3 don't`` in CoNLL-U). :func:`multiword_token_spans`
finds those groups in a tokenized Doc, so that :func:`spacy_lal.corpora.export.write_conllu`
writes them back as ranges. Learned from train, where EWT writes a token of several words:

- the forms that the tokenizer's special cases split without an apostrophe
  (:data:`MULTIWORD_FORMS`: ``cannot`` = ``can`` + ``not``, ``dont`` = ``do`` + ``nt``, ``im`` =
  ``i`` + ``m``, ``gonna`` = ``gon`` + ``na``...), whatever their case;
- a word followed, with no space, by clitics: :data:`APOSTROPHE_CLITICS` (``'s`` 949 in train,
  ``n't`` 659, ``'m`` 198, ``'ll`` 149, ``'ve`` 125, ``'re`` 101, ``'d`` 53; the apostrophe may be
  ``'``, ``’`` or `````): ``don't``, ``I'm``, ``it's``, ``Bush's``, ``I'd've``, a multi-word token
  every time in train (2234 of 2234); and after a word of letters :data:`BARE_CLITICS` (``it s``,
  ``do nt``, ``can not``, ``you r``...: 329 of 329);
- a word ending in s and a possessive apostrophe, ``Sanders'`` = ``Sanders`` + ``'``, when a space
  and a word follow and no single quote opened shortly before (the apostrophe would close it):
  32 right, 12 wrong in train (the other closing quotes are told apart).

Read back on EWT's own words, these give train's 2614 ranges but 15 (``awhile``, ``dunno``...)
and no other. Not done, as the tokenizer cannot tell from the text: ``its`` written for ``it's``
(EWT: ``it`` + ``s``, 56 in train, against hundreds of possessive ``its``), ``your`` for
``you're``, ``everyday`` for ``every day``, a sentence-final ``etc.`` or ``p.m.`` (EWT splits the
period off only at the end of a sentence).

Serialization: all rules are regular expressions (flags written inline) and special cases, which
``Tokenizer.to_disk`` keeps; a pipeline saved with this tokenizer loads with it, from its files,
whatever its config names.
"""
from __future__ import annotations

import re
from typing import Callable, Dict, List, Sequence, Tuple

from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.lang.en import English
from spacy.lang.tokenizer_exceptions import URL_PATTERN
from spacy.language import Language
from spacy.symbols import ORTH
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc, Span, Token
from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex, registry

__all__ = [
    "APOSTROPHE_CLITICS",
    "BARE_CLITICS",
    "HYPHEN_PREFIXES",
    "MULTIWORD_FORMS",
    "create_ewt_tokenizer",
    "ewt_tokenizer",
    "multiword_token_spans",
]

# -- rule 5: the prefixes after which EWT keeps the hyphen (train: whole more often than split) --
HYPHEN_PREFIXES: Tuple[str, ...] = (
    "anti", "arch", "co", "counter", "cross", "e", "ex", "intra", "micro", "mid", "multi", "neo",
    "non", "over", "post", "pre", "pro", "psycho", "re", "semi", "sub", "un",
)

# -- rules 1, 2: punctuation runs --------------------------------------------------------------
# One "." (not part of an ellipsis) and a run of ! and ?; a repeated symbol; two single quotes.
# (The suffix regex puts "$" after each pattern, hence the groups around alternatives.)
_BANG_RUN = r"(?:(?:(?<!\.)\.)?[!?]{2,}|(?<!\.)(?<!\.\w)\.[!?]+)"
_QUOTE_PAIR = r"[‘’']{2}"
_PREFIX_RUNS = [r"(?:\.?[!?]{2,}|\.[!?]+)", r"(?P<prefix_run>[^\w\s.!?'‘’]|_)(?P=prefix_run)+", _QUOTE_PAIR]
_SUFFIX_RUNS = [_BANG_RUN, r"(?P<suffix_run>[^\w\s.!?'‘’]|_)(?P=suffix_run)+", _QUOTE_PAIR]

# -- rule 18: an emoji is one token, as a reader sees it ------------------------------------------
# EWT has no emoji to learn from (one ♥ in 254k words); users' text has many, and spaCy cut the
# sequences that render as one picture into pieces: a family (three pictures joined by zero-width
# joiners), a flag (two regional indicators), a skin tone, a presentation selector, a keycap, a
# subdivision flag (a black flag and tag characters). Each is one token here (a prefix or a
# suffix of a longer string); a run of one repeated emoji stays one token (rule 2).
_EMOJI_MODIFIER = "[\uFE0E\uFE0F\u20E3\U0001F3FB-\U0001F3FF\U000E0020-\U000E007F]"
_EMOJI_BASE = "[\u2600-\u27BF\u2B00-\u2BFF\U0001F000-\U0001F1E5\U0001F200-\U0001FAFF]"
EMOJI = (
    "(?:[\U0001F1E6-\U0001F1FF]{{2}}|[0-9#*]\uFE0F?\u20E3|{b}{m}*(?:\u200D{b}{m}*)*)"
).format(b=_EMOJI_BASE, m=_EMOJI_MODIFIER)

# -- rule 10: a number and am/pm (any case, with or without periods) or k ------------------------
_NUMBER_SUFFIXES = [r"(?<=[0-9])(?i:[ap]\.m\.|[ap]m)", r"(?<=[0-9])[kK]"]

# -- rules 11, 16, 4: 's (not after a number; also after a backtick), hyphens at a word's edge --
_POSSESSIVE_SUFFIXES = ("'s", "'S", "’s", "’S")  # spaCy's, replaced by:
_CLITIC_S = r"(?<![0-9])['’`][sS]"
_EDGE_HYPHEN_PREFIX = r"-{{1,3}}(?=[{a}0-9$])".format(a=ALPHA)  # rule 21: also before "$"

# -- rule 20: an apostrophe before two digits is no prefix (a zero-length match: nothing split) --
_YEAR_APOSTROPHE = r"(?=['’][0-9]{2}(?![0-9\w]))"
_EDGE_HYPHEN_SUFFIX = r"(?<=[{a}])-{{1,3}}".format(a=ALPHA)


def _not_after_prefix() -> str:
    # One fixed-width lookbehind per prefix (Python's `re` takes no variable-width lookbehind);
    # \b: the prefix is a whole word part ("mid-", not "humid-").
    return "".join(rf"(?<!\b(?i:{p}))" for p in HYPHEN_PREFIXES)


def _infixes(base: Sequence[str]) -> List[str]:
    hyphen = r"(?<=[{a}0-9])(?:{h})(?=[{a}])".format(a=ALPHA, h=HYPHENS)
    slash = r"(?<=[{a}0-9])[:<>=/](?=[{a}])".format(a=ALPHA)
    out = []
    for pattern in base:
        if pattern == r"\.\.+":  # rule 3: an ellipsis before "@" is no infix
            pattern = r"\.\.+(?![.@])"
        elif pattern == hyphen:  # rule 5: not after a bound prefix
            pattern = _not_after_prefix() + pattern
        elif pattern == slash:  # rule 8: "/" only after two letters or digits
            pattern = r"(?<=[{a}0-9])[:<>=](?=[{a}])|(?<=[{a}0-9]{{2}})/(?=[{a}])".format(a=ALPHA)
        out.append(pattern)
    if len(out) != len(set(out)) or not any(_not_after_prefix() in p for p in out):
        raise ValueError("spaCy's English infixes changed: spacy_lal.tokenizer needs updating")
    out.append(_not_after_prefix() + r"(?<=[{a}])-(?=[0-9])".format(a=ALPHA))  # rule 6
    out.append(r"(?<=[{a}])\((?=[{a}])".format(a=ALPHA))  # rule 9
    out.append(r"[)\]\"”](?=[(<\[])|(?<=[)\]\"”])[(<\[]")  # rule 3
    out.append(r"(?<=[{a}])[!?]+(?=[{a}])".format(a=ALPHA))  # rule 19
    out.append(r"(?<=[0-9])-(?=\$)|(?<=[0-9]-)\$(?=[0-9])")  # rule 21
    return out


# -- rules 7, 2, 17: what is kept whole once its affixes are off (token_match) -----------------
TOKEN_MATCH = (
    # rule 7: phone numbers
    r"(?:[0-9]+-){2,}[0-9]+$|[0-9]{1,3}-[0-9]{4}$"
    # rule 2: a separator line of mixed symbols
    r"|[-=_*+~#<>|]{2,}$"
    # rule 17: file names
    r"|[\w#%!~-]+(?:\.[\w#%!~-]+)*\.(?i:docx?|xlsx?|pptx?|pdf|txt|rtf|html?|jpe?g|gif|png|mp3|wav|zip|exe)$"
)

# -- rule 3: spaCy's URL pattern, but not across a closing and an opening bracket ---------------
URL_MATCH = r"(?u)(?!.*[)\]\"”][(<\[])" + URL_PATTERN

# -- rules 12-15: special cases ------------------------------------------------------------------
_REMOVED_SPECIAL_CASES = ("id", "Id", "wed", "Wed", "and/or", "):", "k.", "m.")
_ABBREVIATIONS = (
    "Mon.", "Tue.", "Tues.", "Wed.", "Thu.", "Thur.", "Thurs.", "Fri.", "Sat.", "Sun.",
    "Ft.", "Lt.", "Col.", "Sr.", "Reps.", "Attn.", "ext.",
)
_NAMES = ("Yahoo!",)  # rule 21
_EXTRA_MULTIWORD = {"wanna": ("wan", "na"), "outta": ("out", "ta")}

# The later words of EWT's multi-word tokens (train; lower case, any apostrophe read as "'"):
# with an apostrophe, always a multi-word token after a word (2234 of 2234 in train)...
APOSTROPHE_CLITICS = frozenset({"'s", "n't", "'m", "'ll", "'ve", "'re", "'d"})
# ... and without one, always a multi-word token after a word of letters (329 of 329: "it s",
# "do nt", "can not", "I m", "you r", "gon na", "I ve", "got ta", "you re", "it ll", "i d").
BARE_CLITICS = frozenset({"s", "nt", "not", "m", "r", "na", "ve", "ta", "re", "ll", "d"})
_APOSTROPHES = str.maketrans({"\u2019": "'", "`": "'"})


def _special_cases(base: Dict[str, List[dict]]) -> Dict[str, List[dict]]:
    rules = {key: [dict(piece) for piece in pieces] for key, pieces in base.items()
             if key not in _REMOVED_SPECIAL_CASES}
    for form, pieces in _EXTRA_MULTIWORD.items():
        rules[form] = [{ORTH: p} for p in pieces]
        rules[form.capitalize()] = [{ORTH: pieces[0].capitalize()}] + [{ORTH: p} for p in pieces[1:]]
    for form in _ABBREVIATIONS + _NAMES:
        rules[form] = [{ORTH: form}]
    # rule 14: the upper-case form of every special case that splits a lower-case word
    for key, pieces in list(rules.items()):
        upper = key.upper()
        if len(pieces) > 1 and key == key.lower() and upper != key and upper not in rules:
            rules[upper] = [{**piece, ORTH: piece[ORTH].upper()} for piece in pieces]
    return rules


def _multiword_forms(rules: Dict[str, List[dict]]) -> Dict[str, Tuple[str, ...]]:
    """The special cases that give EWT's multi-word tokens without an apostrophe clitic, lower
    case: surface -> words (``cannot`` -> ``can``, ``not``)."""
    forms = {}
    for key, pieces in rules.items():
        words = tuple(piece[ORTH].lower() for piece in pieces)
        if len(words) > 1 and "".join(words) == key.lower() and key.isalpha():
            forms[key.lower()] = words
    return forms


_RULES = _special_cases(English.Defaults.tokenizer_exceptions)
MULTIWORD_FORMS: Dict[str, Tuple[str, ...]] = _multiword_forms(_RULES)
_LONGEST_FORM = max(len(words) for words in MULTIWORD_FORMS.values())


def ewt_tokenizer(nlp: Language) -> Tokenizer:
    """The tokenizer of rules 1-21 on ``nlp``'s vocab (English defaults underneath)."""
    defaults = English.Defaults
    suffixes = [p for p in defaults.suffixes if p not in _POSSESSIVE_SUFFIXES]
    if len(suffixes) != len(defaults.suffixes) - len(_POSSESSIVE_SUFFIXES):
        raise ValueError("spaCy's English suffixes changed: spacy_lal.tokenizer needs updating")
    return Tokenizer(
        nlp.vocab,
        rules=_special_cases(defaults.tokenizer_exceptions),
        prefix_search=compile_prefix_regex(
            [_YEAR_APOSTROPHE] + _PREFIX_RUNS + [EMOJI, _EDGE_HYPHEN_PREFIX] + list(defaults.prefixes)
        ).search,
        suffix_search=compile_suffix_regex(
            _SUFFIX_RUNS + [EMOJI] + _NUMBER_SUFFIXES + [_CLITIC_S, _EDGE_HYPHEN_SUFFIX] + suffixes
        ).search,
        infix_finditer=compile_infix_regex(_infixes(defaults.infixes)).finditer,
        token_match=re.compile(TOKEN_MATCH).match,
        url_match=re.compile(URL_MATCH).match,
    )


@registry.tokenizers("spacy-lal.EWTTokenizer.v1")
def create_ewt_tokenizer() -> Callable[[Language], Tokenizer]:
    """``[nlp.tokenizer] @tokenizers = "spacy-lal.EWTTokenizer.v1"``: spaCy's English tokenizer
    with EWT's tokenization (see the module docstring)."""
    return ewt_tokenizer


# -- multi-word tokens ---------------------------------------------------------------------------


def _is_clitic(token: Token, host: Token) -> bool:
    text = token.lower_.translate(_APOSTROPHES)
    return text in APOSTROPHE_CLITICS or (text in BARE_CLITICS and host.is_alpha)


def multiword_token_spans(doc: Doc) -> List[Span]:
    """The groups of tokens that EWT writes as one token of several words, in order, each of
    tokens with no whitespace between them: the words of a form of :data:`MULTIWORD_FORMS`
    (``can not`` written ``cannot``), else a word and the clitics attached to it (``do n't``,
    ``I 'd 've``, ``it s``; :data:`APOSTROPHE_CLITICS` after any word, :data:`BARE_CLITICS` after
    a word of letters), else a plural and its possessive apostrophe (``Sanders '``, when followed
    by a space and a word and no single quote opened shortly before)."""
    spans: List[Span] = []
    n = len(doc)
    i = 0
    while i < n:
        end = i + 1
        host = doc[i]
        if any(c.isalnum() for c in host.text):
            end = _multiword_form_end(doc, i)
            if end == i + 1:
                while end < n and not doc[end - 1].whitespace_ and _is_clitic(doc[end], host):
                    end += 1
            if end == i + 1 and _is_possessive_apostrophe(doc, i):
                end = i + 2
        if end - i > 1:
            spans.append(doc[i:end])
        i = end
    return spans


_QUOTE_WINDOW = 12  # tokens looked back at for an opening single quote


def _is_possessive_apostrophe(doc: Doc, i: int) -> bool:
    host = doc[i]
    if not (host.is_alpha and host.text[-1] in "sS" and not host.whitespace_ and i + 2 < len(doc)):
        return False
    if doc[i + 1].text not in ("'", "\u2019") or not doc[i + 1].whitespace_ or not doc[i + 2].text[:1].isalnum():
        return False
    for j in range(i - 1, max(-1, i - _QUOTE_WINDOW), -1):
        token = doc[j]
        if token.text in ("'", "\u2018") and not token.whitespace_ and (j == 0 or doc[j - 1].whitespace_):
            return False  # an opening quote: this one closes it
    return True


def _multiword_form_end(doc: Doc, i: int) -> int:
    """The end of the longest form of :data:`MULTIWORD_FORMS` starting at token ``i``, or i + 1."""
    end = i + 1
    text = ""
    words: List[str] = []
    for j in range(i, min(len(doc), i + _LONGEST_FORM)):
        words.append(doc[j].lower_)
        text += doc[j].lower_
        if len(words) > 1 and MULTIWORD_FORMS.get(text) == tuple(words):
            end = j + 1
        if doc[j].whitespace_:
            break
    return end
