"""python scripts/lemma_accuracy.py PIPELINE GOLD.spacy VERBS.jsonl [--reference MODEL] [--json OUT]

Lemma accuracy of a pipeline's lemmatizer in lal_lemmatizer's three modes, on the same trained
model and the pipeline's own predicted POS and morphology: (a) "trained" (spaCy's trainable
lemmatizer), (b) "rules" (spaCy's English rule lemmatizer on spacy_lal's tables), (c) "combined".
GOLD: gold words and sentences (e.g. EWT test); accuracy over the tokens with a gold lemma, as
spaCy's lemma_acc, and per gold UPOS. VERBS: JSON lines {"text", "word", "lemma"}
(tests/data/lemmas/inflected_verbs.jsonl), the text run through the whole pipeline from raw text.
A pipeline whose lemmatizer is still a trainable_lemmatizer is upgraded in a temporary copy
(scripts/upgrade_lemmatizer.py). --reference: a spaCy pipeline (en_core_web_sm) scored beside, with
its own tagger and lemmatizer (on EWT, on the gold words).
The components after the lemmatizer and lal_parser (it writes nothing a lemmatizer reads) are not run.
"""
import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import spacy
from spacy.language import Language
from spacy.tokens import Doc, DocBin

sys.path.insert(0, str(Path(__file__).resolve().parent))
import upgrade_lemmatizer  # noqa: E402

from spacy_lal.evaluation import gold_inputs  # noqa: E402
from spacy_lal.pipeline.lemmatizer.component import RuleBackedLemmatizer  # noqa: E402

SKIP = ("lal_parser", "lal_srl")
COLUMNS = {"trained": "(a) trained", "rules": "(b) rules", "combined": "(c) combined"}


def load_upgraded(path: Path, component: str, tmp: Path) -> Language:
    nlp = spacy.load(path)
    if isinstance(nlp.get_pipe(component), RuleBackedLemmatizer):
        return nlp
    copy = tmp / "pipeline"
    import shutil

    shutil.copytree(path, copy)
    upgrade_lemmatizer.upgrade(copy, component)
    return spacy.load(copy)


def upstream(nlp: Language, component: str, docs: Sequence[Doc]) -> List[Doc]:
    """The Docs after the components before the lemmatizer (those in SKIP left out)."""
    names = nlp.pipe_names[: nlp.pipe_names.index(component)]
    with nlp.select_pipes(enable=[n for n in names if n not in SKIP]):
        return list(nlp.pipe(docs, batch_size=64))


def lemmatize(lemmatizer: RuleBackedLemmatizer, mode: str, docs: Sequence[Doc],
              seconds: Optional[Dict[str, float]] = None) -> List[List[str]]:
    lemmatizer.mode = mode  # the setting read at every call: one trained model for all three
    copies = [d.copy() for d in docs]
    start = time.perf_counter()
    done = list(lemmatizer.pipe(copies))
    if seconds is not None:
        seconds[mode] = time.perf_counter() - start
    return [[t.lemma_ for t in doc] for doc in done]


def scores(predicted: List[List[str]], gold: Sequence[Doc]) -> Dict[str, List[int]]:
    """{UPOS or "ALL": [correct, tokens]} over the tokens with a gold lemma."""
    out: Dict[str, List[int]] = collections.defaultdict(lambda: [0, 0])
    for lemmas, ref in zip(predicted, gold):
        for lemma, token in zip(lemmas, ref):
            if not token.lemma_:
                continue
            for key in ("ALL", token.pos_):
                out[key][0] += lemma == token.lemma_
                out[key][1] += 1
    return out


def verb_lemmas(docs: Sequence[Doc], lemmas: List[List[str]], items: Sequence[dict]) -> List[str]:
    found = []
    for doc, doc_lemmas, item in zip(docs, lemmas, items):
        index = next(t.i for t in doc if t.text == item["word"])
        found.append(doc_lemmas[index])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("gold", type=Path)
    parser.add_argument("verbs", type=Path)
    parser.add_argument("--component", default="trainable_lemmatizer")
    parser.add_argument("--reference", default=None, help="a spaCy pipeline scored beside (en_core_web_sm)")
    parser.add_argument("--rules-first", default=None, help="comma-separated UPOS: the component's rules_first setting")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        nlp = load_upgraded(args.pipeline, args.component, Path(tmp))
    lemmatizer = nlp.get_pipe(args.component)
    if args.rules_first is not None:
        lemmatizer.rules_first = frozenset(p for p in args.rules_first.split(",") if p)
    print(f"{args.component}: rules_first = {sorted(lemmatizer.rules_first)}")
    gold = list(DocBin().from_disk(args.gold).get_docs(nlp.vocab))
    ewt_docs = upstream(nlp, args.component, gold_inputs(nlp.vocab, gold))
    items = [json.loads(line) for line in args.verbs.read_text(encoding="utf8").splitlines() if line.strip()]
    verb_docs = upstream(nlp, args.component, [nlp.make_doc(item["text"]) for item in items])
    table: Dict[str, Dict[str, List[int]]] = {}
    verbs: Dict[str, List[str]] = {}
    seconds: Dict[str, float] = {}
    for mode in ("trained", "rules", "combined"):
        table[COLUMNS[mode]] = scores(lemmatize(lemmatizer, mode, ewt_docs, seconds), gold)
        verbs[COLUMNS[mode]] = verb_lemmas(verb_docs, lemmatize(lemmatizer, mode, verb_docs), items)
    if args.reference:
        reference = spacy.load(args.reference)
        ref_gold = gold_inputs(reference.vocab, gold)
        table["(d) " + args.reference] = scores([[t.lemma_ for t in d] for d in reference.pipe(ref_gold)], gold)
        ref_docs = list(reference.pipe(item["text"] for item in items))
        verbs["(d) " + args.reference] = verb_lemmas(ref_docs, [[t.lemma_ for t in d] for d in ref_docs], items)
    columns = list(table)
    order = ["ALL"] + sorted((k for k in table[columns[0]] if k != "ALL"), key=lambda k: -table[columns[0]][k][1])
    print(f"lemma accuracy, {args.gold} (gold words, predicted POS/morphology)")
    print("| UPOS | tokens | " + " | ".join(columns) + " |")
    print("|---|---:|" + "---:|" * len(columns))
    for key in order:
        cells = [f"{100 * table[c][key][0] / table[c][key][1]:.2f}" for c in columns]
        print(f"| {key} | {table[columns[0]][key][1]:,} | " + " | ".join(cells) + " |")
    print("lemmatizer seconds on the gold corpus: " + ", ".join(f"{COLUMNS[m]} {t:.2f}" for m, t in seconds.items()))
    correct = {c: sum(lemma == item["lemma"] for lemma, item in zip(verbs[c], items)) for c in columns}
    print(f"\n{args.verbs}: {len(items)} inflected verbs, correct: "
          + ", ".join(f"{c} {correct[c]}" for c in columns))
    for i, item in enumerate(items):
        wrong = [f"{c.split()[0]} {verbs[c][i]}" for c in columns if verbs[c][i] != item["lemma"]]
        if wrong:
            print(f"  {item['word']} -> {item['lemma']}: " + ", ".join(wrong))
    if args.json:
        args.json.write_text(json.dumps({"ewt": table, "verbs": verbs, "verbs_correct": correct}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
