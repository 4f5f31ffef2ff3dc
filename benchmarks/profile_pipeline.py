"""Where a whole pipeline's time goes, component by component (issue #52).

    python benchmarks/profile_pipeline.py corpus/ewt/test.spacy --limit 600
    python benchmarks/profile_pipeline.py corpus/ewt/test.spacy --ours PIPELINE --cprofile 25 --torch 15
    python benchmarks/profile_pipeline.py corpus/ewt/test.spacy --ours NEW --against OLD --rounds 15

The Docs are built from the corpus's words, one sentence each (as ``parse_speed.py`` gives them),
and run through the pipeline one component at a time, each over all of them in ``--batch-size``
batches, so that each component's wall time is its own (a listener reads the tok2vec's
``doc.tensor`` at prediction, as in ``nlp.pipe``). ``lal_srl`` labels the predicates it
predicts, as raw text gets it. Rounds alternate over the components; the median round counts.
Then, optionally, one more pass of the whole pipeline under cProfile (``--cprofile N``: the N
functions with the most time of their own) and torch's profiler (``--torch N``: the N operators
with the most CPU time of their own). One torch thread unless ``--threads``.

``--against OLD``: a second pipeline with the same components, timed in the same rounds (the
order of the two alternating), and each component's speed against it: the median over the
rounds of OLD's seconds over ours (above 1: ours is faster). A ratio of the same round's two
timings cancels the machine's slow swings, which move whole rounds.
"""
import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).parent))

from options import add_corpus_options, write_json  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_corpus_options(parser)
    parser.add_argument("--ours", type=Path, help="the pipeline (default: the shipped en_lal_ewt)")
    parser.add_argument("--against", type=Path, help="a second pipeline to time each component against, in the same rounds")
    parser.add_argument("--float", action="store_true", help="float prediction (default: as shipped)")
    parser.add_argument("--cprofile", type=int, default=0, metavar="N", help="print cProfile's top N functions")
    parser.add_argument("--torch", type=int, default=0, metavar="N", help="print torch's profiler's top N operators")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)

    import spacy
    import torch
    from spacy.tokens import Doc, DocBin

    import spacy_lal
    from spacy_lal.pipeline.layers.transformer_features import clear_feature_caches

    torch.set_num_threads(args.threads)

    def load(path: Path) -> "spacy.Language":
        nlp = spacy.load(path)
        if args.float:
            spacy_lal.quantize(nlp, False)
        if "lal_srl" in nlp.pipe_names:
            nlp.get_pipe("lal_srl").configure(predicates="predicted")
        return nlp

    nlp = load(args.ours or spacy_lal.pipeline_path())
    other = None if args.against is None else load(args.against)
    if other is not None and other.pipe_names != nlp.pipe_names:
        parser.error(f"--against has the components {other.pipe_names}, ours {nlp.pipe_names}")
    gold = list(DocBin().from_disk(args.corpus).get_docs(nlp.vocab))[: args.limit]
    words = [[t.text for t in d] for d in gold]
    n_words = sum(map(len, words))

    def fresh(nlp: "spacy.Language") -> List[Doc]:
        clear_feature_caches(nlp)
        return [Doc(nlp.vocab, words=w) for w in words]

    def one_round(nlp: "spacy.Language") -> Dict[str, float]:
        docs, seconds = fresh(nlp), {}
        for name, proc in nlp.pipeline:
            start = time.perf_counter()
            if hasattr(proc, "pipe"):
                docs = list(proc.pipe(docs, batch_size=args.batch_size))
            else:  # a plain function component
                docs = [proc(doc) for doc in docs]
            seconds[name] = time.perf_counter() - start
        return seconds

    rounds, other_rounds = [], []
    for nlp_ in (nlp, other):
        if nlp_ is not None:
            one_round(nlp_)  # warm-up: lazy initialisation is not parsing
    for r in range(args.rounds):
        if other is not None and r % 2:
            other_rounds.append(one_round(other))
        rounds.append(one_round(nlp))
        if other is not None and not r % 2:
            other_rounds.append(one_round(other))
    median = {name: statistics.median(r[name] for r in rounds) for name in nlp.pipe_names}
    total = sum(median.values())
    print(f"{nlp.meta.get('name')} ({', '.join(nlp.pipe_names)}), {len(words)} sentences, {n_words} words, "
          f"torch threads {args.threads}, median of {args.rounds} rounds:")
    for name, seconds in median.items():
        print(f"  {name:<22} {seconds:7.3f} s  {100 * seconds / total:5.1f}%")
    print(f"  {'all':<22} {total:7.3f} s  {n_words / total:,.0f} words/s")
    against = {}
    if other is not None:
        for name in nlp.pipe_names + ["all"]:
            seconds = [sum(r.values()) if name == "all" else r[name] for r in rounds]
            theirs = [sum(r.values()) if name == "all" else r[name] for r in other_rounds]
            against[name] = statistics.median(t / o for t, o in zip(theirs, seconds))
        print(f"against {args.against} in the same rounds (its seconds over ours, median of {args.rounds} rounds):")
        for name, ratio in against.items():
            print(f"  {name:<22} {ratio:6.3f}x")

    def whole() -> None:
        list(nlp.pipe(fresh(nlp), batch_size=args.batch_size))

    if args.cprofile:
        profile = cProfile.Profile()
        profile.runcall(whole)
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.cprofile)
        print(out.getvalue())
    if args.torch:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            whole()
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=args.torch))
    write_json(args.output, {"words": n_words, "seconds": {k: round(v, 4) for k, v in median.items()},
                             "words_per_second": round(n_words / total, 1),
                             **({"against": {k: round(v, 4) for k, v in against.items()}} if against else {})})
    return 0


if __name__ == "__main__":
    sys.exit(main())
