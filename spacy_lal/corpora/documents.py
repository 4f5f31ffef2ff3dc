"""CoNLL-U files read as documents: one Doc per ``# newdoc`` document, its sentences joined.

Sentence splitters learn from, and raw-text evaluation reads, whole documents: the text a user
gives a pipeline. As the CoNLL 2018 shared task made its raw text, a document is its sentences
one after the other with one space between them (a sentence's own ``SpaceAfter=No`` applies
inside it only); the Doc keeps every word's annotation and the gold sentence boundaries
(``doc.sents``). Files without ``# newdoc`` comments are one document.
"""
from itertools import groupby
from typing import Iterator, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ._common import PathLike
from .conllu import read_ud_sentences

__all__ = ["read_ud_documents"]


def read_ud_documents(path: PathLike, vocab: Union[Vocab, Language]) -> Iterator[Doc]:
    """One Doc per document of the CoNLL-U file at ``path`` (see the module docstring), with
    ``doc.user_data["doc_id"]`` set where the file names its documents (sentence ids are not
    kept)."""
    vocab = getattr(vocab, "vocab", vocab)
    for doc_id, sentences in groupby(read_ud_sentences(path), key=lambda sent: sent.doc_id):
        docs = []
        for sent in sentences:
            docs.append(sent.to_doc(vocab))
            docs[-1].user_data.clear()  # sentence ids: Doc.from_docs drops string keys, noisily
        doc = Doc.from_docs(docs, ensure_whitespace=True)
        if doc_id is not None:
            doc.user_data["doc_id"] = doc_id
        yield doc

