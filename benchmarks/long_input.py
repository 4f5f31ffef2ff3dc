"""Unpunctuated input: time per word of 1,000 words without sentence punctuation, against the same
words with their punctuation, in one process (issue #35's bar: at most 3x; peak memory < 2 GB).

    python benchmarks/long_input.py corpus/ewt/test.spacy
    python benchmarks/long_input.py corpus/ewt/test.spacy --pipeline spacy_lal/pipelines/en_lal_ewt_trf

The words are the first ``--words`` of the corpus (EWT test by default). *Punctuated*: that text
as raw text, split into sentences by the pipeline itself. *Unpunctuated*: the same words with
every punctuation token dropped, lowercased, as one line, the way a speech transcript or a
scraped list arrives: whatever the sentence splitter leaves long is parsed in pieces of at most
``piece_length`` words (the components' setting). Rounds alternate; the median round counts.
Peak memory is the process's maximum resident set after the runs (``resource.getrusage``).
"""
import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from options import write_json  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--pipeline", default=None, help="the pipeline (default: the shipped en_lal_ewt)")
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args(argv)

    import torch
    from spacy.tokens import DocBin

    import spacy_lal

    torch.set_num_threads(1)
    nlp = spacy_lal.load() if args.pipeline is None else spacy_lal.load(args.pipeline)
    punctuated = []
    for doc in DocBin().from_disk(args.corpus).get_docs(nlp.vocab):
        punctuated.append(doc.text)
        if sum(len(text.split()) for text in punctuated) >= args.words:
            break
    text = " ".join(punctuated)
    bare = " ".join(t.lower_ for t in nlp.make_doc(text) if not (t.is_punct or t.is_space))
    texts = {"punctuated": text, "unpunctuated": bare}
    words = {name: sum(1 for t in nlp.make_doc(value) if not t.is_space) for name, value in texts.items()}
    for value in texts.values():  # warm-up: caches, lazily built copies
        nlp(value)
    seconds = {name: [] for name in texts}
    sentences = {}
    for _ in range(args.rounds):
        for name, value in texts.items():
            start = time.perf_counter()
            doc = nlp(value)
            seconds[name].append(time.perf_counter() - start)
            sentences[name] = len(list(doc.sents))
    per_word = {name: statistics.median(seconds[name]) / words[name] for name in texts}
    ratio = per_word["unpunctuated"] / per_word["punctuated"]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for name in texts:
        print(f"{name:>13}: {words[name]} words, {sentences[name]} sentences, "
              f"{1000 * per_word[name]:.2f} ms/word (median of {args.rounds})")
    print(f"time per word, unpunctuated / punctuated: {ratio:.2f}x; peak memory {peak_mb:.0f} MB")
    write_json(args.output, {"words": words, "sentences": sentences, "ms_per_word": per_word,
                             "ratio": ratio, "peak_mb": peak_mb})
    return 0


if __name__ == "__main__":
    sys.exit(main())
