"""Parse a whole corpus into output shards, in this process or on a Ray cluster.

    from spacy_lal.corpus_parse import parse_corpus
    summary = parse_corpus("crawl/*.jsonl", "parsed/", format="conllu", engine="ray", workers=8)

- :mod:`.inputs`: text, JSONL, directories of .txt files and DocBins, one id per document;
- :mod:`.outputs`: the shard formats (spacy, jsonl, conllu, ptb, conll05) and atomic writes;
- :mod:`.manifest`: finished shards (resume) and failed documents;
- :mod:`.worker`: parsing and formatting one batch, the same in every engine;
- :mod:`.engines`: the local engine and the Ray actor pool (Ray imported only there);
- :mod:`.driver`: :func:`parse_corpus`.
"""
from .driver import Summary, parse_corpus
from .inputs import CorpusFormatError
from .outputs import FORMATS

__all__ = ["CorpusFormatError", "FORMATS", "Summary", "parse_corpus"]
