"""What static int8 input scales would cost and buy (issue #52, build item 1; docs/speed.md,
"Session 43 made that check"): an alternative to ``nn/int8.py``'s row scales, measured, not built.

    python benchmarks/int8_static_scales.py corpus/ewt/train.spacy corpus/ewt/dev.spacy corpus/ewt/test.spacy

``RowInt8Linear`` finds each input row's scale at every call, so that a sentence's product does
not depend on its batch. A static scale per layer, calibrated once, would keep that property
without the row scan. Here ``RowInt8Linear.forward`` is replaced for the run: first it records
each int8 layer's largest row peak ``max |x|`` while the pipeline parses ``--calibrate``
sentences of CALIBRATION, then a layer given a static scale quantizes every input with
``peak / 63`` (inputs clamped to +-63, so that FBGEMM's 16-bit lanes stay exact; weights
repacked with that scale folded in). Printed:

- accuracy on the first ``--limit`` Docs of DEV (gold words, gold predicates), row scales
  everywhere, then each layer alone on a static scale, then all of them;
- speed on ``--timing`` sentences of TIMING, the parser pipeline (up to ``lal_parser``) and the
  whole pipeline, row scales against static scales on every layer but ``--keep-row`` shapes (by
  default the arc scorer's 256x256 MLPs, which need row scales), alternating rounds, medians.

One torch thread. FBGEMM only (x86): where it is missing, the pipeline's int8 runs on
``torch._int_mm`` and this comparison does not apply.
"""
import argparse
import gc
import statistics
import time
from pathlib import Path
from typing import Dict, List

import spacy
import torch
from spacy.tokens import DocBin

from spacy_lal.evaluation import evaluate_pipeline, gold_inputs
from spacy_lal.nn import int8
from spacy_lal.nn.int8 import INPUT_LEVELS, RowInt8Linear

KEYS = ("tree_f", "dep_las", "tag_acc", "srl_f", "srl_sense_acc")
_ROW_FORWARD = RowInt8Linear.forward
_STATE = {"mode": "row"}
_PEAKS: Dict[int, List[torch.Tensor]] = {}


def _forward(self: RowInt8Linear, x: torch.Tensor) -> torch.Tensor:
    rows = x.reshape(-1, self.in_features)
    if _STATE["mode"] == "calibrate" and len(rows):
        _PEAKS.setdefault(id(self), []).append(torch.maximum(rows.amax(dim=1), rows.amin(dim=1).neg()))
    static = getattr(self, "_static", None)
    if _STATE["mode"] != "static" or static is None or not len(rows):
        return _ROW_FORWARD(self, x)
    inverse, packed = static
    scaled = rows.mul(inverse).clamp_(-INPUT_LEVELS, INPUT_LEVELS)
    out = torch.ops.quantized.linear_with_input_q_dq_qweight_dq_output_fp32(scaled, 1.0, INPUT_LEVELS + 1, packed)
    if self.bias is not None:
        out.add_(self.bias)
    return out.reshape(*x.shape[:-1], self.out_features)


def _set_static(layer: RowInt8Linear, on: bool) -> None:
    if not on:
        layer._static = None
        return
    scale = float(torch.cat(_PEAKS[id(layer)]).max()) / INPUT_LEVELS
    layer._static = (1.0 / scale, int8._pack(layer.weight_q, layer.weight_scale * scale))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("calibration", type=Path, help=".spacy corpus whose first --calibrate Docs calibrate")
    parser.add_argument("dev", type=Path, help=".spacy corpus scored for accuracy")
    parser.add_argument("timing", type=Path, help=".spacy corpus timed")
    parser.add_argument("--pipeline", default="spacy_lal/pipelines/en_lal_ewt")
    parser.add_argument("--calibrate", type=int, default=1500)
    parser.add_argument("--limit", type=int, default=800, help="DEV Docs scored")
    parser.add_argument("--timing-limit", type=int, default=600, help="TIMING Docs parsed per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep-row", nargs="*", default=["256x256"], metavar="INxOUT",
                        help="layer shapes left on row scales in the timing (default: the arc MLPs)")
    args = parser.parse_args(argv)
    if int8.fbgemm_engine() is None:
        parser.error("FBGEMM is missing on this machine: the pipeline's int8 runs on torch._int_mm")
    torch.set_num_threads(1)
    RowInt8Linear.forward = _forward
    nlp = spacy.load(args.pipeline)
    read = lambda path, n: list(DocBin().from_disk(path).get_docs(nlp.vocab))[:n]  # noqa: E731
    dev, timing = read(args.dev, args.limit), read(args.timing, args.timing_limit)

    def score(label: str) -> None:
        result = evaluate_pipeline(nlp, dev, srl_predicates="gold")
        print(label, {key: result[key] for key in KEYS if key in result}, flush=True)

    score("row scales")
    _STATE["mode"] = "calibrate"
    list(nlp.pipe(gold_inputs(nlp.vocab, read(args.calibration, args.calibrate)), batch_size=64))
    layers = [obj for obj in gc.get_objects() if isinstance(obj, RowInt8Linear) and id(obj) in _PEAKS]
    _STATE["mode"] = "static"
    for i, layer in enumerate(layers):
        for other in layers:
            _set_static(other, other is layer)
        score(f"static: layer {i} ({layer.in_features}x{layer.out_features}) alone")
    for layer in layers:
        _set_static(layer, True)
    score("static: all layers")

    for layer in layers:
        _set_static(layer, f"{layer.in_features}x{layer.out_features}" not in args.keep_row)
    words = sum(len(doc) for doc in timing)
    parser_pipes = nlp.pipe_names[: nlp.pipe_names.index("lal_parser") + 1]
    seconds: Dict[str, List[float]] = {}
    for r in range(args.rounds):
        for mode in ("row", "static") if r % 2 == 0 else ("static", "row"):
            _STATE["mode"] = mode
            for what, names in (("parser pipeline", parser_pipes), ("whole pipeline", nlp.pipe_names)):
                docs = gold_inputs(nlp.vocab, timing)
                with nlp.select_pipes(enable=names):
                    start = time.perf_counter()
                    list(nlp.pipe(docs, batch_size=64))
                    seconds.setdefault(f"{what} {mode}", []).append(time.perf_counter() - start)
    for what in ("parser pipeline", "whole pipeline"):
        row, static = (statistics.median(seconds[f"{what} {mode}"]) for mode in ("row", "static"))
        print(f"{what}: row scales {words / row:,.0f} words/s, static {words / static:,.0f} words/s, "
              f"static / row speed {row / static:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
