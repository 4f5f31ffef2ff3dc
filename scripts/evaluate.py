"""Score a pipeline on a .spacy corpus with the project's reference-equal scorers.

    python scripts/evaluate.py training/lal_parser/model-best corpus/ewt/test.spacy --output metrics/lal.json
    python scripts/evaluate.py training/spacy_parser/model-best corpus/ewt/test.spacy
    python scripts/evaluate.py training/lal_srl/model-best corpus/ewt/test.spacy --srl-predicates gold --srl-decoder viterbi
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --gold-np-constraints require
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --srl-decoder tree --srl-gold-trees

Also reported: PTB tag, UPOS and morphology accuracy where the pipeline predicts them.
The pipeline parses the gold words of each sentence with the gold sentence boundaries (the
parsing papers' setting; spaCy's `gold_preproc`). Trees are scored like EVALB (COLLINS.prm), dependencies like the CoNLL 2018 UD
scorer (and without gold-PUNCT words), roles like srl-eval.pl, whichever the pipeline predicts,
so spacy-lal and spaCy's own parser are scored by the same code. Roles are labelled for the
gold predicates (``--srl-predicates gold``, the paper's setting: the predicted Docs get the gold
predicate tokens) or end to end for the predicates lal_srl finds itself (``predicted``); both
also report predicate identification F1 and sense accuracy. Prints and writes percentages.

Constraints (lal_parser's ``constraints`` setting): ``--gold-np-constraints require|no_cross``
puts the gold tree's NP constituents that contain a proper noun (NNP/NNPS; named-entity-like
spans) into ``doc.spans["gold_np_propn"]`` of each input and makes them constraints of that kind.
``--srl-decoder tree`` restricts arguments to the predicted tree's constituents (plus single
words); with ``--srl-gold-trees`` the inputs carry the gold trees and lal_parser is left out
(the upper bound of tree-constrained roles). ``--limit N`` scores the first N Docs only.
"""
import argparse
import json
import sys
import time
from pathlib import Path


def gold_inputs(vocab, gold: list) -> list:
    """Unannotated Docs with the gold words and gold sentence boundaries, as the papers
    evaluate: a sentencizer in the pipeline keeps them (it does not overwrite), and spaCy's
    parser does not split them."""
    from spacy.tokens import Doc

    return [
        Doc(
            vocab,
            words=[t.text for t in d],
            spaces=[bool(t.whitespace_) for t in d],
            sent_starts=[t.i == 0 or bool(t.is_sent_start) for t in d],
        )
        for d in gold
    ]


GOLD_NP_KEY = "gold_np_propn"


def proper_noun_phrases(ref) -> list:
    """(start, end) of the gold tree's NP constituents that contain a proper noun (NNP/NNPS)."""
    from spacy_lal.extensions import stored_trees

    out = []
    for first, _, spans in stored_trees(ref):
        for s, e, labels in spans:
            if "NP" in labels and any(t.tag_ in ("NNP", "NNPS") for t in ref[first + s : first + e]):
                out.append((first + s, first + e))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--decoder", choices=["eisner", "mst", "joint"], help="lal_parser's dependency decoder")
    parser.add_argument("--quantize", action="store_true",
                        help="int8 prediction (spacy_lal.quantize: the tok2vecs' products, lal_parser's Linear layers)")
    parser.add_argument("--srl-predicates", choices=["gold", "predicted"], default="gold", help="lal_srl's predicates")
    parser.add_argument("--srl-decoder", choices=["argmax", "viterbi", "unique_roles", "tree"], help="lal_srl's decoder")
    parser.add_argument("--srl-gold-trees", action="store_true", help="SRL over the gold trees (lal_parser left out)")
    parser.add_argument("--gold-np-constraints", choices=["require", "no_cross"], help="gold NPs with a proper noun as lal_parser constraints")
    parser.add_argument("--disable", nargs="*", default=[], help="components to leave out (e.g. to time the parser alone)")
    parser.add_argument("--limit", type=int, help="score the first N Docs only")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin
    from spacy.scorer import Scorer
    from spacy.training import Example

    import spacy_lal
    from spacy_lal.pipeline.lal_srl import make_srl_full_scorer, mark_predicates
    from spacy_lal.scoring.spacy_scorers import score_constituency, score_dependencies

    nlp = spacy.load(args.pipeline)
    if args.decoder:
        nlp.get_pipe("lal_parser").set_decoder(args.decoder)
    if args.quantize:
        spacy_lal.quantize(nlp)
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit]
    inputs = gold_inputs(nlp.vocab, gold)
    disable = list(args.disable)
    if args.gold_np_constraints:
        for doc, ref in zip(inputs, gold):
            doc.spans[GOLD_NP_KEY] = [doc[s:e] for s, e in proper_noun_phrases(ref)]
        nlp.get_pipe("lal_parser").set_constraints(**{args.gold_np_constraints: [f"spans:{GOLD_NP_KEY}"]})
        scores_extra = {"constraint_spans": sum(len(doc.spans[GOLD_NP_KEY]) for doc in inputs)}
    else:
        scores_extra = {}
    if args.srl_gold_trees:
        from spacy_lal.extensions import set_tree, stored_trees

        for doc, ref in zip(inputs, gold):
            for first, n, spans in stored_trees(ref):
                set_tree(doc[first : first + n], spans)
        disable.append("lal_parser")
    if "lal_srl" in nlp.pipe_names:
        srl = nlp.get_pipe("lal_srl")
        srl.cfg["predicates"] = args.srl_predicates
        if args.srl_decoder:
            srl.cfg["decoder"] = args.srl_decoder
        if args.srl_predicates == "gold":
            for doc, ref in zip(inputs, gold):
                mark_predicates(doc, [frame.predicate.i for frame in ref._.srl])
    start = time.perf_counter()
    with nlp.select_pipes(disable=[name for name in disable if name in nlp.pipe_names]):
        predicted = list(nlp.pipe(inputs, batch_size=args.batch_size))
    seconds = time.perf_counter() - start
    examples = [Example(p, g) for p, g in zip(predicted, gold)]
    scores = {"words": sum(len(d) for d in gold), "seconds": round(seconds, 2), **scores_extra}
    scores["words_per_second"] = round(scores["words"] / seconds, 1)
    # Token attributes a tagger/morphologizer set (the PTB tags are the trees' leaves).
    for annotation, attr, getter in (("TAG", "tag", getattr), ("POS", "pos", getattr),
                                     ("MORPH", "morph", lambda token, attr: token.morph.key)):
        if any(d.has_annotation(annotation) for d in predicted):
            scores[f"{attr}_acc"] = Scorer.score_token_attr(examples, attr, getter=getter)[f"{attr}_acc"]
    if any(d._.trees for d in predicted) and not args.srl_gold_trees:
        scores.update(score_constituency(examples))
    if any(d.has_annotation("DEP") for d in predicted):
        scores.update({k: v for k, v in score_dependencies(examples).items() if k != "dep_las_per_type"})
    if "lal_srl" in nlp.pipe_names and "lal_srl" not in disable and any(d._.srl for d in predicted):
        scores.update(make_srl_full_scorer()(examples))
    result = {k: (round(100 * v, 2) if isinstance(v, float) and (k.startswith(("tree", "dep", "srl")) or k.endswith("_acc")) else v) for k, v in scores.items()}
    text = json.dumps(result, indent=2)
    print(text)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
