"""python scripts/predicate_f1.py GOLD.spacy PIPELINE [PIPELINE ...]

Predicate identification of each pipeline's ``lal_srl`` on gold words (the pipeline predicts its
own predicates, as end-to-end role scoring does), as F1 over predicate tokens: over every frame,
and over the frames whose roleset is not an auxiliary-or-copula lemma's (be, have, do: gold
rolesets for the missed predicates, predicted ones for the spurious). Auxiliary frames are kept
while scoring, as PropBank 3.4 annotates them (``keep_auxiliary_frames``). Session 40
found a student's predicate F1 down 1.7 with all of its loss on those lemmas (docs/results.md).
"""
import argparse
import json
from pathlib import Path
from typing import Callable, Dict, List, Sequence

import spacy
from spacy.tokens import Doc, DocBin

from spacy_lal.evaluation import gold_inputs, keep_auxiliary_frames

AUXILIARY_LEMMAS = frozenset({"be", "have", "do"})


def predicate_scores(gold: Sequence[Doc], predicted: Sequence[Doc]) -> Dict[str, Dict[str, float]]:
    """F1, false positives and false negatives of predicate tokens, all and without auxiliaries."""
    keeps: Dict[str, Callable[[str], bool]] = {
        "all": lambda sense: True,
        "without be/have/do": lambda sense: sense.split(".")[0] not in AUXILIARY_LEMMAS,
    }
    scores = {}
    for name, keep in keeps.items():
        tp = fp = fn = 0
        for g, p in zip(gold, predicted):
            wanted = {f.predicate.i for f in g._.srl or [] if keep(str(f.sense))}
            found = {f.predicate.i for f in p._.srl or [] if keep(str(f.sense))}
            tp, fp, fn = tp + len(wanted & found), fp + len(found - wanted), fn + len(wanted - found)
        scores[name] = {"f": round(200 * tp / max(1, 2 * tp + fp + fn), 2), "false_positives": fp, "false_negatives": fn}
    return scores


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gold", type=Path)
    parser.add_argument("pipelines", nargs="+")
    args = parser.parse_args(argv)
    for path in args.pipelines:
        nlp = spacy.load(path)
        keep_auxiliary_frames(nlp)
        gold = list(DocBin().from_disk(args.gold).get_docs(nlp.vocab))
        predicted = list(nlp.pipe(gold_inputs(nlp.vocab, gold), batch_size=32))
        print(json.dumps({"pipeline": path, **predicate_scores(gold, predicted)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
