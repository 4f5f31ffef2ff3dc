"""Speed of the Cython decoders against straightforward vectorised NumPy versions of the same
algorithms, and their share of parse time.

    python benchmarks/decoders.py [--lengths 10 20 40 80 160] [--budget 0.3]

For every sentence length n it prints the time per sentence of each decoder (the public, validating
entry point) and of its NumPy twin, and the ratio. The twins implement the same algorithms with the
inner loops (over split points, heads or labels) vectorised; they are checked against the Cython
results before being timed. Then it compares batched with single calls on a mixed-length batch.

`decode_share(parse_step)` is the hook for the parser: it times a parse step and the part of it
spent in the decoders (see its docstring).
"""
from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any, Callable, Dict, Iterator, List

import numpy as np

from spacy_lal import decode
from spacy_lal.decode import (
    BIOScheme,
    bio_viterbi,
    bio_viterbi_batch,
    chu_liu_edmonds,
    chu_liu_edmonds_batch,
    cky,
    cky_batch,
    eisner,
    eisner_batch,
)

CKY_LABELS = 100
BIO_ROLES = 19  # O + B-/I- for 19 roles (V among them) + one spare B- = 40 labels
NEG = -np.inf


# ----------------------------------------------------------------------------- NumPy twins


def cky_numpy(chart: np.ndarray) -> tuple[list[tuple[int, int, int]], float]:
    """CKY over fenceposts: best label per span, then the split search vectorised over k."""
    n = chart.shape[0] - 1
    real = chart[..., 1:]
    label = real.argmax(-1) + 1
    value = real.max(-1).astype(np.float64)
    root_label, root_value = label[0, n], value[0, n]
    label = np.where(value > 0, label, 0)
    value = np.maximum(value, 0.0)
    label[0, n], value[0, n] = root_label, root_value
    best = np.zeros((n + 1, n + 1))
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n):
        best[i, i + 1] = value[i, i + 1]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length
            candidates = best[i, i + 1 : j] + best[i + 1 : j, j]
            k = int(candidates.argmax())
            best[i, j] = value[i, j] + candidates[k]
            split[i, j] = i + 1 + k
    spans, stack = [], [(0, n)]
    while stack:
        i, j = stack.pop()
        spans.append((i, j, int(label[i, j])))
        if j > i + 1:
            stack += [(split[i, j], j), (i, split[i, j])]
    return spans, float(best[0, n])


def eisner_numpy(scores: np.ndarray) -> np.ndarray:
    """Eisner with a single root dependent, head-indexed charts, vectorised over split points."""
    n = scores.shape[0] - 1
    s = scores.astype(np.float64)
    C = np.full((n + 1, n + 1), NEG)
    inc = np.full((n + 1, n + 1), NEG)
    bC = np.zeros((n + 1, n + 1), dtype=np.int64)
    bI = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(1, n + 1):
        C[i, i] = 0.0
    for w in range(1, n):
        for i in range(1, n + 1 - w):
            j = i + w
            joint = C[i, i:j] + C[j, i + 1 : j + 1]
            k = int(joint.argmax())
            inc[i, j] = joint[k] + s[j, i]
            inc[j, i] = joint[k] + s[i, j]
            bI[i, j] = bI[j, i] = i + k
            right = inc[i, i + 1 : j + 1] + C[i + 1 : j + 1, j]
            k = int(right.argmax())
            C[i, j], bC[i, j] = right[k], i + 1 + k
            left = inc[j, i:j] + C[i:j, i]
            k = int(left.argmax())
            C[j, i], bC[j, i] = left[k], i + k
    heads = np.full(n + 1, -1, dtype=np.int64)
    if n == 0:
        return heads
    r = int((C[1:, 1] + C[1:, n] + s[1:, 0]).argmax()) + 1
    heads[r] = 0
    stack = [(True, r, 1), (True, r, n)]
    while stack:
        complete, h, e = stack.pop()
        if complete:
            if h != e:
                k = bC[h, e]
                stack += [(False, h, k), (True, k, e)]
        else:
            heads[e] = h
            k = bI[h, e]
            stack += [(True, min(h, e), k), (True, max(h, e), k + 1)]
    return heads


def cle_numpy(scores: np.ndarray) -> np.ndarray:
    """Tarjan's dense Chu-Liu-Edmonds with root arcs ranked last, vectorised over heads."""
    n = scores.shape[0] - 1
    N = n + 1
    heads = np.full(N, -1, dtype=np.int64)
    if n == 0:
        return heads
    W = scores.astype(np.float64)
    E = np.arange(N * N, dtype=np.int64).reshape(N, N)
    active = np.ones(N, dtype=bool)
    active[0] = False
    on_path = np.zeros(N, dtype=bool)
    in_w = np.zeros(N)
    slot_node = list(range(N))
    in_edge: Dict[int, int] = {}
    parent: Dict[int, int] = {}
    children: Dict[int, List[int]] = {}
    path: List[int] = []
    n_active, n_nodes, cur = n, N, 1
    while n_active > 1:
        candidates = np.where(active, W[cur], NEG)
        candidates[cur] = NEG
        u = int(candidates.argmax())
        in_w[cur] = candidates[u]
        in_edge[slot_node[cur]] = int(E[cur, u])
        path.append(cur)
        on_path[cur] = True
        if not on_path[u]:
            cur = u
            continue
        start = path.index(u)
        members = np.array(path[start:])
        node = n_nodes
        n_nodes += 1
        children[node] = [slot_node[c] for c in members]
        for c in members:
            parent[slot_node[c]] = node
        outside = active.copy()
        outside[members] = False
        into = W[members] - in_w[members, None]
        k = into.argmax(0)
        rows = np.flatnonzero(outside | (np.arange(N) == 0))
        W[u, rows] = into[k[rows], rows]
        E[u, rows] = E[members[k[rows]], rows]
        cols = np.flatnonzero(outside)
        out = W[np.ix_(cols, members)]
        k = out.argmax(1)
        W[cols, u] = out[np.arange(len(cols)), k]
        E[cols, u] = E[cols, members[k]]
        on_path[members] = False
        active[members] = False
        active[u] = True
        n_active -= len(members) - 1
        del path[start:]
        slot_node[u] = node
        cur = u
    in_edge[slot_node[cur]] = int(E[cur, 0])
    deleted = set()
    stack = [slot_node[cur]]
    while stack:
        e = in_edge[stack.pop()]
        heads[e // N] = e % N
        prev, node = -1, e // N
        while node != -1 and node not in deleted:
            deleted.add(node)
            stack += [c for c in children.get(node, ()) if c != prev]
            prev, node = node, parent.get(node, -1)
    return heads


def bio_viterbi_numpy(scores: np.ndarray, scheme: BIOScheme, predicate: int) -> list[int]:
    """BIO Viterbi in O(nL): O/B-X share the best previous score, I-X looks at B-X and I-X."""
    n, L = scores.shape
    s = scores.astype(np.float64)
    is_i = scheme.kinds == 2
    begin = np.where(scheme.begin >= 0, scheme.begin, np.arange(L))
    allowed = np.ones((n, L), dtype=bool)
    allowed[:, scheme.b_v] = False
    allowed[predicate] = False
    allowed[predicate, scheme.b_v] = True
    delta = np.where(allowed[0] & ~is_i, s[0], NEG)
    back = np.zeros((n, L), dtype=np.int64)
    labels = np.arange(L)
    for t in range(1, n):
        am = int(delta.argmax())
        from_begin = delta[begin] >= delta
        prev_i = np.where(from_begin, begin, labels)
        prev = np.where(is_i, prev_i, am)
        delta = np.where(allowed[t], delta[prev] + s[t], NEG)
        back[t] = prev
    out = [int(delta.argmax())]
    for t in range(n - 1, 0, -1):
        out.append(int(back[t, out[-1]]))
    return out[::-1]


# ----------------------------------------------------------------------------- timing


def per_call(fn: Callable[[], Any], budget: float, min_reps: int = 1) -> float:
    """Seconds per call: the best of several rounds, within about `budget` seconds."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    reps = max(min_reps, int(budget / 5 / once))
    best = once
    for _ in range(5 if reps * once * 5 <= budget * 1.5 else 1):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def bio_scheme() -> BIOScheme:
    roles = ["V"] + [f"ARG{i}" for i in range(6)] + [f"ARGM-{m}" for m in
                                                    ("TMP", "LOC", "MNR", "ADV", "DIS", "MOD",
                                                     "NEG", "PRP", "DIR", "EXT")] + ["C-ARG1", "R-ARG0"]
    assert len(roles) == BIO_ROLES
    labels = ["O"] + [f"{p}-{r}" for r in roles for p in "BI"] + ["B-ARGA"]
    return BIOScheme(labels)


def decoder_table(lengths: List[int], budget: float) -> None:
    rng = np.random.default_rng(0)
    scheme = bio_scheme()
    print("time per sentence (validating Python entry point; NumPy twin in the same process)")
    print(f"CKY L = {CKY_LABELS}, BIO L = {len(scheme)}\n")
    header = f"{'decoder':<16}{'n':>5}{'cython':>12}{'numpy':>12}{'ratio':>9}"
    print(header)
    print("-" * len(header))
    for name in ("cky", "eisner", "chu_liu_edmonds", "bio_viterbi"):
        for n in lengths:
            if name == "cky":
                x = rng.normal(size=(n + 1, n + 1, CKY_LABELS)).astype(np.float32)
                fast, slow = (lambda: cky(x)), (lambda: cky_numpy(x))
                assert abs(cky(x).score - cky_numpy(x)[1]) < 1e-3
            elif name == "bio_viterbi":
                x = rng.normal(size=(n, len(scheme))).astype(np.float32)
                p = n // 2
                fast, slow = (lambda: bio_viterbi(x, scheme, p)), (lambda: bio_viterbi_numpy(x, scheme, p))
                assert bio_viterbi(x, scheme, p) == bio_viterbi_numpy(x, scheme, p)
            else:
                x = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
                cy, twin = (eisner, eisner_numpy) if name == "eisner" else (chu_liu_edmonds, cle_numpy)
                fast, slow = (lambda: cy(x)), (lambda: twin(x))
                assert np.array_equal(cy(x), twin(x)), name
            t_fast = per_call(fast, budget)
            t_slow = per_call(slow, budget)
            print(f"{name:<16}{n:>5}{t_fast * 1e6:>10.1f}us{t_slow * 1e6:>10.0f}us"
                  f"{t_slow / t_fast:>8.0f}x")
        print()


def batch_table(budget: float, count: int = 256) -> None:
    rng = np.random.default_rng(1)
    scheme = bio_scheme()
    lengths = rng.integers(5, 60, size=count)
    charts = [rng.normal(size=(n + 1, n + 1, CKY_LABELS)).astype(np.float32) for n in lengths]
    arcs = [rng.normal(size=(n + 1, n + 1)).astype(np.float32) for n in lengths]
    tokens = [rng.normal(size=(n, len(scheme))).astype(np.float32) for n in lengths]
    preds = [int(n) // 2 for n in lengths]
    cases = [
        ("cky", lambda: cky_batch(charts), lambda: [cky(c) for c in charts]),
        ("eisner", lambda: eisner_batch(arcs), lambda: [eisner(a) for a in arcs]),
        ("chu_liu_edmonds", lambda: chu_liu_edmonds_batch(arcs),
         lambda: [chu_liu_edmonds(a) for a in arcs]),
        ("bio_viterbi", lambda: bio_viterbi_batch(tokens, scheme, preds),
         lambda: [bio_viterbi(t, scheme, p) for t, p in zip(tokens, preds)]),
    ]
    print(f"batched vs single calls: {count} sentences, n uniform in [5, 60), "
          f"mean n = {lengths.mean():.1f}; time per sentence\n")
    header = f"{'decoder':<16}{'batch':>12}{'single':>12}{'speed-up':>10}"
    print(header)
    print("-" * len(header))
    for name, batched, single in cases:
        t_batch = per_call(batched, budget) / count
        t_single = per_call(single, budget) / count
        print(f"{name:<16}{t_batch * 1e6:>10.1f}us{t_single * 1e6:>10.1f}us{t_single / t_batch:>9.2f}x")
    print()


# ----------------------------------------------------------------------------- parser hook

CORES = [
    (decode._cky, "cky_batch"),
    (decode._joint, "joint_batch"),
    (decode._eisner, "eisner_batch"),
    (decode._mst, "chu_liu_edmonds_batch"),
    (decode._viterbi, "bio_batch"),
]


@contextlib.contextmanager
def _timed_cores(clock: List[float]) -> Iterator[None]:
    """Accumulate into clock[0] the time spent in the Cython decoder cores while active."""
    saved = [(module, attr, getattr(module, attr)) for module, attr in CORES]

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                clock[0] += time.perf_counter() - start
        return timed

    try:
        for module, attr, fn in saved:
            setattr(module, attr, wrap(fn))
        yield
    finally:
        for module, attr, fn in saved:
            setattr(module, attr, fn)


def decode_share(parse_step: Callable[[], Any], repeats: int = 3) -> Dict[str, float]:
    """The decoders' share of a parse (used by `benchmarks/parse_speed.py`).

    Runs `parse_step` (a zero-argument callable doing one full parse, e.g.
    `lambda: list(nlp.pipe(texts, batch_size=64))`) `repeats` times and returns the best total time
    and the time spent in it by the decoders, both in seconds, and the decoders' share. The time is
    taken around the Cython cores (which every public decoder, single or batched, calls through its
    module attribute), so it counts the decoding itself whatever way the parser imported the
    decoders; the Python-side validation (a few microseconds a call) is counted as parse time.
    """
    best: Dict[str, float] = {}
    for _ in range(repeats):
        clock = [0.0]
        with _timed_cores(clock):
            start = time.perf_counter()
            parse_step()
            total = time.perf_counter() - start
        if not best or total < best["total_s"]:
            best = {"total_s": total, "decode_s": clock[0], "share": clock[0] / total}
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 20, 40, 80, 160])
    parser.add_argument("--budget", type=float, default=0.3,
                        help="seconds of timing per cell (NumPy at large n takes at least one call)")
    args = parser.parse_args()
    decoder_table(args.lengths, args.budget)
    batch_table(args.budget)
    # The hook on a stand-in parse step (a fake network: one matmul per sentence, then decoding).
    rng = np.random.default_rng(2)
    feats = [rng.normal(size=(n + 1, 256)).astype(np.float32) for n in rng.integers(5, 60, 64)]
    proj = rng.normal(size=(256, 256)).astype(np.float32)
    share = decode_share(lambda: chu_liu_edmonds_batch([f @ proj @ f.T for f in feats]))
    print("decode_share hook on a stand-in parse step (64 sentences, matmul scorer + CLE): "
          f"total {share['total_s'] * 1e3:.2f} ms, decoding {share['decode_s'] * 1e3:.2f} ms "
          f"({share['share']:.1%})")


if __name__ == "__main__":
    main()
