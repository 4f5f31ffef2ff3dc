"""LAS of a pipeline on test sentences parsed one per Doc, then several consecutive ones per Doc
(as running text arrives), with gold words and sentence boundaries in both:

    python scripts/multi_sentence_las.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --per-doc 5

A tok2vec that carried state across sentence boundaries scored lower on the second line.
"""
import argparse

import spacy
from spacy.tokens import Doc, DocBin

import spacy_lal  # noqa: F401  (factories, extensions)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("corpus")
    parser.add_argument("--per-doc", type=int, default=5)
    args = parser.parse_args(argv)
    nlp = spacy.load(args.pipeline, exclude=["lal_srl", "trainable_lemmatizer"])
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))

    def as_input(group):
        words = [t.text for d in group for t in d]
        starts = [t.i == 0 for d in group for t in d]
        return Doc(nlp.vocab, words=words, sent_starts=starts)

    def las(groups) -> float:
        right = total = 0
        for group, doc in zip(groups, nlp.pipe(as_input(g) for g in groups)):
            offset = 0
            for sentence in group:
                for t in sentence:
                    p = doc[offset + t.i]
                    right += p.head.i - offset == t.head.i and p.dep_ == t.dep_
                    total += 1
                offset += len(sentence)
        return 100 * right / total

    n = args.per_doc
    print(f"LAS one sentence per Doc {las([[d] for d in gold]):.2f}, "
          f"{n} per Doc {las([gold[i : i + n] for i in range(0, len(gold), n)]):.2f}")


if __name__ == "__main__":
    main()
