"""Where a pipeline's dependencies and its own tree disagree, which one does gold follow?

    python scripts/experiments/tree_arc_disagreement.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/dev.spacy

Parses CORPUS's gold words (gold sentence starts; the parser pipeline only) and, in each
predicted tree, looks at every child constituent X of a constituent Y whose one outside-headed
word t has its predicted head inside a sibling of X rather than at Y's head word (the README's
*library*, an `nmod` of *book* while the tree puts *from the library* beside *a book* under the
VP). Punctuation, `cc` and `conj` arcs are left out: UD hangs them on a sibling by convention.
Prints, per (Y, X, predicted relation), how often gold heads t at Y's head (the tree was right),
at the predicted head (the arc was right) or elsewhere: a rule moving such arcs to the tree's
head gains the first count and loses the second (docs/decoders.md, session 53).
"""
import argparse
import collections
from typing import Counter, Dict, List, Tuple

import spacy
from spacy.tokens import Doc, DocBin

import spacy_lal  # noqa: F401
from spacy_lal.doc.extensions import stored_trees

LEFT_OUT = ("punct", "cc", "conj")


def disagreements(heads: List[int], deps: List[str], gold_heads: List[int], trees) -> Dict[Tuple[str, str, str], Counter]:
    """(Y label, X label, predicted relation) -> counts of which head gold takes."""
    found: Dict[Tuple[str, str, str], Counter] = collections.defaultdict(collections.Counter)
    for first, _, spans in trees:
        labels = {(first + s, first + e): labs for s, e, labs in spans}
        nodes = sorted(labels, key=lambda span: (span[0], -span[1]))

        def outside_headed(start: int, end: int) -> List[int]:
            return [i for i in range(start, end) if heads[i] == i or not start <= heads[i] < end]

        for ys, ye in nodes:
            y_heads = outside_headed(ys, ye)
            if len(y_heads) != 1:
                continue
            inner = [n for n in nodes if ys <= n[0] and n[1] <= ye and n != (ys, ye)]
            children = [n for n in inner if not any(o != n and o[0] <= n[0] and n[1] <= o[1] for o in inner)]
            for xs, xe in children:
                x_heads = outside_headed(xs, xe)
                if len(x_heads) != 1:
                    continue
                t = x_heads[0]
                h = heads[t]
                if h in (t, y_heads[0]) or not ys <= h < ye or deps[t] in LEFT_OUT:
                    continue
                which = "tree" if gold_heads[t] == y_heads[0] else "arc" if gold_heads[t] == h else "neither"
                found[(labels[(ys, ye)][-1], labels[(xs, xe)][0], deps[t])][which] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("corpus")
    args = parser.parse_args()
    nlp = spacy.load(args.pipeline, exclude=["senter", "lal_sentence_breaks", "lal_srl", "trainable_lemmatizer"])
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))
    docs = (Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g],
                sent_starts=[bool(t.is_sent_start) for t in g]) for g in gold)
    total: Dict[Tuple[str, str, str], Counter] = collections.defaultdict(collections.Counter)
    for g, doc in zip(gold, nlp.pipe(docs, batch_size=64)):
        found = disagreements([t.head.i for t in doc], [t.dep_ for t in doc], [t.head.i for t in g], list(stored_trees(doc)))
        for key, counts in found.items():
            total[key].update(counts)
    overall = sum(total.values(), collections.Counter())
    print(f"{sum(overall.values())} disagreements: gold follows the tree {overall['tree']}, "
          f"the arc {overall['arc']}, neither {overall['neither']}")
    for key, counts in sorted(total.items(), key=lambda kv: -sum(kv[1].values()))[:15]:
        print(" ".join(key), dict(counts))


if __name__ == "__main__":
    main()
