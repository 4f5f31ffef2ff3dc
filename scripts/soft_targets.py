"""A teacher's soft dependency targets added to silver (issue #51: distillation from distributions).

    python scripts/soft_targets.py corpus/silver/trf49/texts_0.125 corpus/silver/soft50/texts_0.125 \\
        --teacher spacy_lal/pipelines/en_lal_ewt_trf

Reads the silver ``.spacy`` files of ``SILVER`` (a file, or a folder of ``parse-corpus --format
spacy`` shards), runs the teacher up to its ``lal_parser`` over their Docs as they are (their
words, sentences and trees kept), stores on every word its likeliest heads and the labels of its
arc (``spacy_lal.pipeline.soft_targets``) and writes each file, user data kept, under the same
name in ``OUTPUT``, with a ``card.json`` naming the source, the teacher and the settings.
``lal_parser``'s ``soft_target_weight`` setting trains on them. The teacher should be the one
(or one of the ensemble) that parsed the silver: the labels are those of the Docs' own arcs.
"""
import argparse
import json
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("silver", type=Path, help="a .spacy file or a folder of them")
    parser.add_argument("output", type=Path, help="a folder (created)")
    parser.add_argument("--teacher", required=True, help="the teacher pipeline (a path or a shipped name)")
    parser.add_argument("--top-heads", type=int, default=4)
    parser.add_argument("--top-labels", type=int, default=3)
    parser.add_argument("--temperature", type=float, default=1.0, help="divides the teacher's scores (above 1: softer)")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    import spacy_lal
    from spacy_lal.pipeline.soft_targets import add_soft_targets

    if not args.silver.exists():
        print(f"soft_targets: no silver at {args.silver}", file=sys.stderr)
        return 1
    files = [args.silver] if args.silver.is_file() else sorted(args.silver.rglob("*.spacy"))
    if not files:
        print(f"soft_targets: no .spacy files under {args.silver}", file=sys.stderr)
        return 1
    teacher_path = Path(args.teacher)
    nlp = spacy.load(teacher_path if teacher_path.exists() else spacy_lal.pipeline_path(args.teacher))
    args.output.mkdir(parents=True, exist_ok=True)
    start, docs_done, words = time.perf_counter(), 0, 0
    for path in files:
        target = args.output / (path.name if args.silver.is_file() else path.relative_to(args.silver))
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            docs = list(DocBin().from_disk(path).get_docs(nlp.vocab))
        except Exception as error:  # noqa: BLE001 - say which file
            print(f"soft_targets: {path}: not a DocBin ({error})", file=sys.stderr)
            return 1
        out = DocBin(store_user_data=True)
        for doc in add_soft_targets(nlp, docs, top_heads=args.top_heads, top_labels=args.top_labels,
                                    temperature=args.temperature, batch_size=args.batch_size):
            out.add(doc)
            docs_done += 1
            words += len(doc)
        out.to_disk(target)
        print(f"{target}: {len(docs)} docs ({words} words so far, {time.perf_counter() - start:.0f} s)", flush=True)
    card = {
        "source": str(args.silver),
        "teacher": str(args.teacher),
        "top_heads": args.top_heads,
        "top_labels": args.top_labels,
        "temperature": args.temperature,
        "files": [str(path) for path in files],
        "documents": docs_done,
        "words": words,
        "seconds": round(time.perf_counter() - start, 1),
        "what": "each word's likeliest heads and its arc's likeliest labels under the teacher "
                "(spacy_lal/pipeline/soft_targets.py), beside the silver parse; licenses as the source's card",
    }
    (args.output / "card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
