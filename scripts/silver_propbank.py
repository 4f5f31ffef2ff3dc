"""PropBank's frame-file examples as silver for the student (issue #51, build item 3): trees, tags,
morphology, lemmas and dependencies from a teacher (or an ensemble of teachers), the annotated
predicate's sense and roles kept gold.

    python scripts/silver_propbank.py corpus/propbank_examples.spacy corpus/propbank_silver.spacy \\
        --teacher training/lal_ewt_teacher_pipeline --ensemble spacy_lal/pipelines/en_lal_ewt_trf

The input is ``convert propbank-examples``'s output: one sentence per Doc, one gold frame, marked
partial (``doc.user_data["lal_srl_partial"]``: ``lal_srl`` trains on that predicate alone). Each
Doc's words are parsed as one sentence (gold words, as ``spacy train`` reads gold corpora) by the
teacher, or by ``pipeline/ensemble.py`` when ``--ensemble`` names more pipelines, with ``lal_srl``
left out (the roles of the other predicates are not silver: they get no loss); the parse is then
written with the gold frame and the Doc's user data (``sent_id``, ``src``, the partial mark) into
a ``.spacy`` file that keeps user data. The corpus card of the input is copied beside the output
with the teacher named. ``--limit N``: the first N Docs only.

``--drop-disagreeing``: where the teacher's arcs hang one of a verb's gold arguments (not ARG0 or
ARG1) from a word inside the same frame's gold ARG1 (*accompanied [the group of travellers]
[ARG3 from the frying pan]*, read as the travellers' phrase), the gold frame says the teacher is
wrong, so that Doc keeps its tags and frame but loses its tree and dependencies (no parser loss:
``pipeline/parser/charts.py``, ``component.py``) instead of teaching the student #51's second
pattern. On en_lal_ewt_trf's parses of the examples: 659 arguments in 635 of 21,351 Docs
(session 56, docs/results.md).
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

from spacy.tokens import Doc


def disagreeing_arguments(doc: Doc) -> List[Tuple[int, int, str]]:
    """The gold arguments ``(start, end, label)`` of ``doc``'s verbal frames (the predicate's
    predicted tag VB*) that are not ARG0, ARG1, V or a continuation or reference, whose head word's
    predicted head lies inside the same frame's ARG1."""
    found = []
    for frame in doc._.srl:
        if not frame.predicate.tag_.startswith("VB"):
            continue
        objects = [(arg.start, arg.end) for arg in frame.arguments if arg.label_ == "ARG1"]
        for arg in frame.arguments:
            if arg.label_ in ("ARG0", "ARG1", "V") or arg.label_.startswith(("C-", "R-")):
                continue
            head = arg.root.head.i
            if any(start <= head < end for start, end in objects):
                found.append((arg.start, arg.end, arg.label_))
    return found


def without_parse(doc: Doc) -> Doc:
    """``doc``'s words, sentence, tags, morphology and lemmas without its tree and dependencies
    (user data and frames are the caller's to copy)."""
    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               tags=[t.tag_ for t in doc], pos=[t.pos_ for t in doc], morphs=[str(t.morph) for t in doc],
               lemmas=[t.lemma_ for t in doc], sent_starts=[True] + [False] * (len(doc) - 1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("examples", type=Path, help="convert propbank-examples' .spacy file")
    parser.add_argument("output", type=Path)
    parser.add_argument("--teacher", required=True, help="the teacher pipeline (a path or a shipped name)")
    parser.add_argument("--ensemble", nargs="*", default=[], metavar="PIPELINE", help="more pipelines: parse with the ensemble")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--drop-disagreeing", action="store_true",
                        help="leave out the tree and dependencies of Docs whose parse hangs a gold argument inside the "
                             "frame's ARG1 (see above)")
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    import spacy_lal
    from spacy_lal.doc.extensions import set_frames
    from spacy_lal.pipeline.ensemble import ensemble_parse

    def load(name: str) -> spacy.language.Language:
        path = Path(name)
        return spacy.load(path if path.exists() else spacy_lal.pipeline_path(name), exclude=["lal_srl"])

    pipelines = [load(name) for name in [args.teacher, *args.ensemble]]
    first = pipelines[0]
    if not args.examples.exists():
        raise SystemExit(f"{args.examples}: no such file (python -m spacy project run propbank-silver writes it)")
    gold = list(DocBin().from_disk(args.examples).get_docs(first.vocab))
    if args.limit:
        gold = gold[: args.limit]

    def inputs() -> Iterator[Doc]:
        for doc in gold:
            yield Doc(first.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                      sent_starts=[True] + [False] * (len(doc) - 1))

    if len(pipelines) > 1:
        parsed = ensemble_parse(pipelines, inputs(), batch_size=args.batch_size)
    else:
        parsed = first.pipe(inputs(), batch_size=args.batch_size)
    out = DocBin(store_user_data=True)
    frames = dropped = 0
    for source, doc in zip(gold, parsed):
        gold_frames: List = [frame.data for frame in source._.srl]
        set_frames(doc, gold_frames)
        if args.drop_disagreeing and disagreeing_arguments(doc):
            doc = without_parse(doc)
            set_frames(doc, gold_frames)
            dropped += 1
        user_data = {key: value for key, value in source.user_data.items() if isinstance(key, str)}
        doc.user_data.update(user_data)  # sent_id, src, example, the partial mark
        frames += len(gold_frames)
        out.add(doc)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    out.to_disk(args.output)
    card_in = args.examples.with_suffix(".card.json")
    card = json.loads(card_in.read_text(encoding="utf8")) if card_in.exists() else {}
    card["silver"] = {
        "teachers": [args.teacher, *args.ensemble],
        "parsed": "trees, tags, morphology, lemmas, dependencies (gold words, one sentence per Doc); "
                  "the annotated predicate's sense and roles are the frame file's (gold)",
    }
    if args.drop_disagreeing:
        card["silver"]["without_parse"] = (f"{dropped} Docs whose parse hangs a gold argument inside the frame's "
                                           "ARG1: tags and frame kept, no tree or dependencies")
    args.output.with_suffix(".card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf8")
    print(f"Wrote {args.output}: {len(gold)} Docs, {frames} gold frames, parsed by {' + '.join(card['silver']['teachers'])}"
          + (f"; {dropped} without their parse (--drop-disagreeing)" if args.drop_disagreeing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
