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

``--repair-disagreeing``: the same Docs teach the verb's attachment instead: each such argument
is moved to its verb in the tree and the dependencies (``repair_disagreeing``), and the Docs where
that is not a safe edit lose their parse as above. On en_lal_ewt_trf's parses: 473 repaired, 162
without their parse (session 57).
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from spacy.tokens import Doc

from spacy_lal.doc.extensions import set_trees, stored_trees


def _disagreements(doc: Doc) -> Iterator[Tuple[int, Tuple[int, int], Tuple[int, int, str]]]:
    """``(predicate, ARG1 span, argument)`` for each argument of ``disagreeing_arguments``."""
    for frame in doc._.srl:
        if not frame.predicate.tag_.startswith("VB"):
            continue
        objects = [(arg.start, arg.end) for arg in frame.arguments if arg.label_ == "ARG1"]
        for arg in frame.arguments:
            if arg.label_ in ("ARG0", "ARG1", "V") or arg.label_.startswith(("C-", "R-")):
                continue
            head = arg.root.head.i
            for start, end in objects:
                if start <= head < end:
                    yield frame.predicate.i, (start, end), (arg.start, arg.end, arg.label_)
                    break


def disagreeing_arguments(doc: Doc) -> List[Tuple[int, int, str]]:
    """The gold arguments ``(start, end, label)`` of ``doc``'s verbal frames (the predicate's
    predicted tag VB*) that are not ARG0, ARG1, V or a continuation or reference, whose head word's
    predicted head lies inside the same frame's ARG1."""
    return [arg for _, _, arg in _disagreements(doc)]


# The relation of a phrase moved from a noun to a verb: UD's nominal and clausal modifiers of a
# noun have verbal counterparts. Any other relation (a determiner, a conjunct, a relative clause)
# means the teacher's analysis is wrong in more than the attachment: that Doc is not repaired.
VERBAL_RELATION = {
    "nmod": "obl", "nmod:unmarked": "obl:unmarked", "nmod:tmod": "obl:tmod", "nmod:npmod": "obl:npmod",
    "acl": "advcl", "obl": "obl", "obl:unmarked": "obl:unmarked", "advcl": "advcl", "advmod": "advmod",
}

# A predicate the teacher parsed as a clause's head; as an adjective or a noun (*We acetylated
# recombinant OGG1*, read as a noun phrase) the parse is wrong beyond the argument's attachment.
CLAUSAL_RELATIONS = {"root", "conj", "advcl", "ccomp", "xcomp", "acl", "parataxis", "csubj"}


def repair_disagreeing(doc: Doc) -> Optional[Doc]:
    """``doc`` (one parsed sentence) with each argument of ``disagreeing_arguments`` moved out of
    the frame's ARG1 to its verb, or None where that is not a safe edit (frames and user data are
    the caller's to copy).

    Dependencies: the argument's head word hangs from the predicate, its relation mapped to the
    verbal one (``VERBAL_RELATION``: *nmod* becomes *obl*), when the predicate heads a clause
    (``CLAUSAL_RELATIONS``). Tree: each constituent without the
    predicate that overlaps both the ARG1 and the argument is cut back to end with the ARG1 (or
    to start with it, for an argument before it), and dropped where that repeats a constituent
    already there: PTB's [NP [NP a book] [PP from the library]] becomes [NP a book] and the PP a
    sister under the verb's VP. Cutting back keeps the constituents nested, since every span that
    reaches into the argument from the ARG1 is cut at the same boundary. Not safe (None): another
    relation, a predicate that heads no clause, a predicate inside the argument's subtree (hanging it there would make a cycle), or
    an argument of more than one word that is not a constituent after the edit."""
    edits = list(_disagreements(doc))
    trees = list(stored_trees(doc))
    if not edits or len(trees) != 1 or trees[0][:2] != (0, len(doc)):
        return None
    if any(doc[predicate].dep_.split(":")[0] not in CLAUSAL_RELATIONS for predicate, _, _ in edits):
        return None
    heads = [t.head.i for t in doc]
    deps = [t.dep_ for t in doc]
    spans = {(s, e): labels for s, e, labels in trees[0][2]}
    for predicate, (a, b), (c, d, _) in edits:
        root = doc[c:d].root.i
        if deps[root] not in VERBAL_RELATION:
            return None
        ancestor = predicate
        while heads[ancestor] != ancestor:  # a cycle if the predicate lies under the argument
            if ancestor == root or heads[ancestor] == root:
                return None
            ancestor = heads[ancestor]
        heads[root], deps[root] = predicate, VERBAL_RELATION[deps[root]]
        cut = {}
        for (s, e), labels in sorted(spans.items(), key=lambda item: (item[0][0], -item[0][1])):
            if s <= predicate < e or not (s < b and a < e and s < d and c < e):
                cut.setdefault((s, e), labels)
                continue
            edited = (s, b) if c >= b else (a, e)
            if edited not in spans and edited not in cut:
                cut[edited] = labels
        spans = cut
        if d - c > 1 and (c, d) not in spans:
            return None
    repaired = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                   tags=[t.tag_ for t in doc], pos=[t.pos_ for t in doc], morphs=[str(t.morph) for t in doc],
                   lemmas=[t.lemma_ for t in doc], heads=heads, deps=deps)
    if len(list(repaired.sents)) != 1:
        return None
    try:
        set_trees(repaired, [(repaired[:], [(s, e, labels) for (s, e), labels in spans.items()])])
    except ValueError:  # not expected (see above); the caller drops the parse and counts it
        return None
    return repaired


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
    disagreeing = parser.add_mutually_exclusive_group()
    disagreeing.add_argument("--drop-disagreeing", action="store_true",
                             help="leave out the tree and dependencies of Docs whose parse hangs a gold argument inside "
                                  "the frame's ARG1 (see above)")
    disagreeing.add_argument("--repair-disagreeing", action="store_true",
                             help="move such arguments to their verb (repair_disagreeing); drop the parse where that is "
                                  "not safe")
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
    frames = dropped = repaired = 0
    for source, doc in zip(gold, parsed):
        gold_frames: List = [frame.data for frame in source._.srl]
        set_frames(doc, gold_frames)
        if (args.drop_disagreeing or args.repair_disagreeing) and disagreeing_arguments(doc):
            edited = repair_disagreeing(doc) if args.repair_disagreeing else None
            if edited is None:
                doc = without_parse(doc)
                dropped += 1
            else:
                doc = edited
                repaired += 1
            set_frames(doc, gold_frames)
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
    if args.repair_disagreeing:
        card["silver"]["repaired"] = (f"{repaired} Docs whose parse hung a gold argument inside the frame's ARG1: "
                                      "the argument moved to its verb (tree and dependencies)")
    if args.drop_disagreeing or args.repair_disagreeing:
        card["silver"]["without_parse"] = (f"{dropped} Docs whose parse hangs a gold argument inside the frame's "
                                           "ARG1" + (" and cannot be repaired" if args.repair_disagreeing else "")
                                           + ": tags and frame kept, no tree or dependencies")
    args.output.with_suffix(".card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf8")
    print(f"Wrote {args.output}: {len(gold)} Docs, {frames} gold frames, parsed by {' + '.join(card['silver']['teachers'])}"
          + (f"; {repaired} repaired" if args.repair_disagreeing else "")
          + (f"; {dropped} without their parse" if args.drop_disagreeing or args.repair_disagreeing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
