"""int8 products against float, one product shape at a time: ``nn/int8.py``'s RowInt8Linear (each
input row its own scale, batch-independent) on FBGEMM and on the portable ``torch._int_mm``, and
torch's dynamic quantization (one scale per input matrix), each timed beside ``torch.nn.functional.linear`` in alternating rounds on one
thread; medians, and each int8 kind's time as a ratio of float's.

    python benchmarks/int8_products.py
    python benchmarks/int8_products.py --shape 860x576x576 --shape 400x256x112 --rounds 9

SHAPE is ROWSxINxOUT. The defaults are the shipped tok2vec's maxout product (sentences of a batch
of 600 words and more) and layers of lal_parser's sizes.
"""
import argparse
import statistics
import time
import warnings

import torch

from spacy_lal.nn import int8
from spacy_lal.nn.int8 import RowInt8Linear

SHAPES = ["860x576x576", "400x736x256", "400x256x736", "400x256x256", "400x128x384", "400x256x112"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", action="append", help="ROWSxINxOUT (repeatable)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=50, help="products per timed round")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"{'shape':>14}  {'float ms':>9}  {'row int8 ms':>11}  {'ratio':>6}  {'int_mm ms':>9}  {'ratio':>6}  "
          f"{'dynamic int8 ms':>15}  {'ratio':>6}  row int8 max error")
    for shape in args.shape or SHAPES:
        rows, n_in, n_out = (int(part) for part in shape.split("x"))
        linear = torch.nn.Linear(n_in, n_out)
        x = torch.randn(rows, n_in)
        row = RowInt8Linear.from_float(linear)
        engine, int8.fbgemm_engine = int8.fbgemm_engine, lambda: None
        portable = RowInt8Linear.from_float(linear)  # the kernel of ARM builds (and of x86 before)
        int8.fbgemm_engine = engine
        with warnings.catch_warnings():  # torch announces that torch.ao.quantization will go
            warnings.simplefilter("ignore")
            dynamic = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(linear), {torch.nn.Linear}, dtype=torch.qint8)
        kinds = {"float": lambda: torch.nn.functional.linear(x, linear.weight, linear.bias), "row": lambda: row(x),
                 "int_mm": lambda: portable(x), "dynamic": lambda: dynamic(x)}
        times = {name: [] for name in kinds}
        with torch.no_grad():
            for name, run in kinds.items():
                run()
            for _ in range(args.rounds):
                for name, run in kinds.items():
                    began = time.perf_counter()
                    for _ in range(args.calls):
                        run()
                    times[name].append((time.perf_counter() - began) / args.calls * 1e3)
            error = (row(x) - kinds["float"]()).abs().max().item()
        med = {name: statistics.median(values) for name, values in times.items()}
        print(f"{shape:>14}  {med['float']:9.3f}  {med['row']:11.3f}  {med['row'] / med['float']:6.2f}  "
              f"{med['int_mm']:9.3f}  {med['int_mm'] / med['float']:6.2f}  {med['dynamic']:15.3f}  {med['dynamic'] / med['float']:6.2f}  {error:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
