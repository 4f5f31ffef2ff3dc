"""Wall time of the default test suite against a baseline checkout's, in alternating rounds.

    git worktree add /work/old 49eecc1          # beside ../shared, as the checkout is
    cp -a .venv /work/venv_old && /work/venv_old/bin/python -m pip install -e /work/old --no-deps --no-build-isolation
    python benchmarks/suite_time.py --baseline /work/old --baseline-python /work/venv_old/bin/python --rounds 2

Each round runs ``python -m pytest -q -p no:cacheprovider`` (the default suite: the ``slow`` and
GPU tests are left out by ``pyproject.toml``'s options in both checkouts) in the baseline checkout
with the baseline's interpreter, then in this checkout with this one, or the other way round in
every second round, so that machine noise hits both alike. A checkout runs against its own
installed package (an editable install per environment: the registries' entry points must name
modules the checkout has). Prints each round's seconds and test counts, the medians, and the
ratio this / baseline (below 1: this suite is faster). Issue #53's "the default test suite no
slower" is measured with it.
"""
import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Tuple

HERE = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|errors?|deselected)")


def run_suite(python: str, checkout: Path, extra: List[str]) -> Tuple[float, str]:
    """Seconds the suite took in ``checkout`` and pytest's summary counts."""
    start = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=checkout, capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    counts = ", ".join(f"{n} {what}" for n, what in SUMMARY.findall(tail))
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest in {checkout} exited {done.returncode}: {tail}")
    # A failing test still counts its time; which ones failed is said, as they may end early.
    failed = [line.split(" - ")[0] for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    return seconds, "; ".join([counts or tail, *failed])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True, help="the baseline checkout (a git worktree)")
    parser.add_argument("--baseline-python", required=True, help="the interpreter of an environment with the baseline installed")
    parser.add_argument("--python", default=sys.executable, help="this checkout's interpreter (default: this one)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments, for both (after --)")
    args = parser.parse_args(argv)

    runs = {"baseline": [], "this": []}
    sides = {"baseline": (args.baseline_python, args.baseline.resolve()), "this": (args.python, HERE)}
    for r in range(args.rounds):
        order = ("baseline", "this") if r % 2 == 0 else ("this", "baseline")
        for side in order:
            python, checkout = sides[side]
            seconds, counts = run_suite(python, checkout, args.pytest_args)
            runs[side].append(seconds)
            print(f"round {r + 1} {side:8s} {seconds:7.1f} s  ({counts})", flush=True)
    base, this = statistics.median(runs["baseline"]), statistics.median(runs["this"])
    print(f"median: baseline {base:.1f} s, this {this:.1f} s; ratio this/baseline {this / base:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
