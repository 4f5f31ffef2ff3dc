"""Score a pipeline on a .spacy corpus with the project's reference-equal scorers.

    python scripts/evaluate.py training/lal_parser/model-best corpus/ewt/test.spacy --output metrics/lal.json
    python scripts/evaluate.py training/spacy_parser/model-best corpus/ewt/test.spacy
    python scripts/evaluate.py training/lal_srl/model-best corpus/ewt/test.spacy --srl-predicates gold --srl-decoder viterbi
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --gold-np-constraints require
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --srl-decoder tree --srl-gold-trees
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/dev.spacy --srl-decoder tree --srl-tree-penalty 2
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/test.spacy --raw assets/UD_English-EWT/en_ewt-ud-test.conllu
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/dev.spacy --sense-prior 0
    python scripts/evaluate.py spacy_lal/pipelines/en_lal_ewt corpus/ewt/dev.spacy --ensemble spacy_lal/pipelines/en_lal_ewt_trf

``--raw GOLD.conllu``: raw text in, as the CoNLL 2018 shared task measures a pipeline
(``spacy_lal.evaluation.evaluate_raw_text``): each document of the gold file is given to the
pipeline as text (``--raw-layout conll18``: the shared task's text, paragraphs and 80-character
lines as UD's conllu_to_text.pl writes them; ``joined``: the sentences joined by a space, no
paragraphs), and its own tokenizer and sentence splitter make the words and sentences;
Tokens, Sentences, Words, UPOS, XPOS, UFeats, Lemmas, UAS and LAS by the CoNLL 2018 scorer; roles
end to end (predicted predicates) and EVALB on the sentences whose words match, against the
corpus given (its sentences carry their sent_id). ``--system-conllu`` keeps the pipeline's
CoNLL-U output.

The scoring is ``spacy_lal.evaluation.evaluate_pipeline``. Also reported: PTB tag, UPOS
and morphology accuracy where the pipeline predicts them. The pipeline parses the gold words of each sentence with the gold sentence boundaries (the
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
words), or with ``--srl-tree-penalty P`` charges P (log-probability) for an argument off them; with ``--srl-gold-trees`` the inputs carry the gold trees and lal_parser is left out
(the upper bound of tree-constrained roles). ``--limit N`` scores the first N Docs only.

``--ensemble PIPELINE...`` (after the corpus: it takes every name up to the next option): the
pipeline and these parse as one ensemble (averaged span, arc,
dependency label scores and tag distributions, then, where every member has ``lal_srl``, role
and sense scores, decoded with the first pipeline's decoders: ``spacy_lal/pipeline/ensemble.py``);
the first pipeline's lemmatizer runs on its parses. The options above apply to every member.
"""
import argparse
import json
import sys
from pathlib import Path


def main(argv=None) -> int:
    from spacy_lal.corpora.documents import RAW_TEXT_LAYOUTS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--decoder", choices=["eisner", "mst", "joint"], help="lal_parser's dependency decoder")
    precision = parser.add_mutually_exclusive_group()
    precision.add_argument("--quantize", action="store_true",
                           help="int8 prediction (spacy_lal.quantize: the tok2vecs' products, lal_parser's Linear layers)")
    precision.add_argument("--float", action="store_true",
                           help="float32 prediction (the shipped pipelines predict in int8 by default)")
    parser.add_argument("--srl-predicates", choices=["gold", "predicted"], default="gold", help="lal_srl's predicates")
    parser.add_argument("--srl-decoder", choices=["argmax", "viterbi", "unique_roles", "tree"], help="lal_srl's decoder")
    parser.add_argument("--srl-tree-penalty", type=float, metavar="P",
                        help="lal_srl's tree_penalty: what decoder tree charges an argument off the tree (inf: never one)")
    parser.add_argument("--sense-prior", type=float, metavar="W",
                        help="lal_srl's sense_prior: the weight of each lemma's roleset counts (0: the sense head alone)")
    parser.add_argument("--srl-gold-trees", action="store_true", help="SRL over the gold trees (lal_parser left out)")
    parser.add_argument("--gold-np-constraints", choices=["require", "no_cross"], help="gold NPs with a proper noun as lal_parser constraints")
    parser.add_argument("--disable", nargs="*", default=[], help="components to leave out (e.g. to time the parser alone)")
    parser.add_argument("--limit", type=int, help="score the first N Docs only")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--ensemble", nargs="+", default=[], metavar="PIPELINE",
                        help="parse with an ensemble of the pipeline and these (pipeline/ensemble.py)")
    parser.add_argument("--raw", type=Path, metavar="GOLD.conllu", help="score raw text: the gold CoNLL-U file's documents")
    parser.add_argument("--raw-layout", choices=RAW_TEXT_LAYOUTS, default="conll18",
                        help="with --raw: the CoNLL 2018 shared task's text (paragraphs, wrapped lines) or the sentences joined by a space")
    parser.add_argument("--system-conllu", type=Path, help="with --raw: where to keep the pipeline's CoNLL-U")
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    import spacy_lal
    from spacy_lal.evaluation import evaluate_pipeline, evaluate_raw_text

    nlp = spacy.load(args.pipeline)
    members = [nlp] + [spacy.load(path) for path in args.ensemble]
    for member in members:
        if args.decoder:
            member.get_pipe("lal_parser").set_decoder(args.decoder)
        if args.quantize or args.float:
            spacy_lal.quantize(member, args.quantize)
    if args.srl_decoder and "lal_srl" in nlp.pipe_names:
        nlp.get_pipe("lal_srl").configure(decoder=args.srl_decoder)
    if args.srl_tree_penalty is not None and "lal_srl" in nlp.pipe_names:
        nlp.get_pipe("lal_srl").configure(tree_penalty=args.srl_tree_penalty)
    if args.sense_prior is not None and "lal_srl" in nlp.pipe_names:
        try:
            nlp.get_pipe("lal_srl").configure(sense_prior=args.sense_prior)
        except ValueError as error:
            parser.error(str(error))
    if args.raw:
        if "lal_srl" in nlp.pipe_names:
            nlp.get_pipe("lal_srl").configure(predicates="predicted")
        result = evaluate_raw_text(nlp, args.raw, gold_corpus=args.corpus, system_conllu=args.system_conllu,
                                   layout=args.raw_layout)
        return _report(result, args.output)
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit]
    result = evaluate_pipeline(
        nlp,
        gold,
        srl_predicates=args.srl_predicates,
        srl_gold_trees=args.srl_gold_trees,
        gold_np_constraints=args.gold_np_constraints,
        disable=args.disable,
        batch_size=args.batch_size,
        parse=_ensemble(members, args.batch_size) if args.ensemble else None,
    )
    if args.ensemble:
        result = {"ensemble": [args.pipeline, *args.ensemble], **result}
    return _report(result, args.output)


def _ensemble(members, batch_size):
    from spacy_lal.pipeline.ensemble import ensemble_parse

    return lambda docs: ensemble_parse(members, docs, batch_size=batch_size)


def _report(result: dict, output) -> int:
    text = json.dumps(result, indent=2)
    print(text)
    if output:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
