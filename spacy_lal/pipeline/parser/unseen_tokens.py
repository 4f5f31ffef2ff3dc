"""Tags for the tokens a treebank-trained tagger never saw, which ``lal_parser`` (and
``lal_dependency_parser``) write before anything reads them.

- Whitespace tokens get spaCy's whitespace tag and POS (``_SP``, ``SPACE``) and no morphology:
  treebanks have no whitespace tokens, so taggers trained on them never predict ``_SP`` (issue
  #17), and a morphologizer gave one ``Degree=Cmp`` (#37).
- Emoji tokens (``tokenizer.EMOJI``) get what UD gives emoticons: ``NFP``, ``SYM``, no features.
  EWT has no emoji, and the taggers guessed CD, NNS or punctuation for them (#37).

Why the parser writes them: it is the first of our components after spaCy's tagger and
morphologizer, and its own output depends on them (the clear scheme's conversion reads TAG and POS,
``clear.py``), as do the lemmatizer and ``lal_srl`` after it. A component of its own would change
the shipped pipelines' configs, and a pipeline saved before would parse differently without it.
"""
import re

import numpy
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

from ...doc.tree import WHITESPACE_TAG
from ...tokenizer import EMOJI

__all__ = ["tag_unseen_tokens"]

_EMOJI_TOKEN = re.compile(f"(?:{EMOJI})+")
# Every emoji lies in this range: a Doc without a character in it is not read token by token.
_MAYBE_EMOJI = re.compile("[\u2600-\U000E007F]")


def tag_unseen_tokens(doc: Doc) -> None:
    """Give ``doc``'s whitespace and emoji tokens the tags, POS and (empty) morphology above."""
    for i in numpy.flatnonzero(doc.to_array(IS_SPACE)).tolist():
        doc[i].tag_, doc[i].pos_ = WHITESPACE_TAG, "SPACE"
        doc[i].set_morph(None)
    if not _MAYBE_EMOJI.search(doc.text):
        return
    for token in doc:
        if _EMOJI_TOKEN.fullmatch(token.text):
            token.tag_, token.pos_ = "NFP", "SYM"
            token.set_morph(None)
