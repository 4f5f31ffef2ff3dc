"""``lal_sentence_breaks``: what the trained sentence splitter cannot learn from a treebank.

It runs after the splitter (``senter``) and before the components that read sentences:

- **A blank line ends a sentence.** A treebank's raw text has no line breaks to learn from
  (EWT's documents are sentences joined by a space), but users' text has them, and a blank line
  (two or more line breaks between two words, with any spaces or tabs) ends a paragraph in every
  genre: titles, list items and e-mail signatures included. A single line break is left to the
  splitter: hard-wrapped text breaks lines inside sentences.
- **No sentence starts on whitespace.** spaCy keeps runs of extra spaces as whitespace tokens,
  which the splitter never saw in training and sometimes marks as a sentence start (after a full
  stop and two spaces); the start moves to the word after it, so the whitespace stays at the end
  of the sentence before, where the parsers expect it (a sentence of whitespace only would get
  no tree).
"""
from spacy.language import Language
from spacy.tokens import Doc

__all__ = ["SentenceBreaks", "make_sentence_breaks"]


@Language.factory("lal_sentence_breaks", assigns=["token.is_sent_start"])
def make_sentence_breaks(nlp: Language, name: str) -> "SentenceBreaks":
    """The component; it has no settings and no weights."""
    return SentenceBreaks(name)


class SentenceBreaks:
    """Start a sentence at the first word after each blank line, and move sentence starts off
    whitespace tokens onto the word after them (see the module docstring)."""

    def __init__(self, name: str = "lal_sentence_breaks") -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        if doc.has_annotation("DEP"):  # spaCy refuses new boundaries in a parsed Doc
            return doc
        between = ""  # the whitespace since the last word
        seen_word = False
        move_start = False
        for token in doc:
            if token.is_space:
                between += token.text_with_ws
                if token.i > 0 and token.is_sent_start:
                    token.is_sent_start = False
                    move_start = True
                continue
            if seen_word and (move_start or between.count("\n") >= 2):
                token.is_sent_start = True
            seen_word = True
            move_start = False
            between = token.whitespace_
        return doc
