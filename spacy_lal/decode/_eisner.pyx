# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""First-order projective decoding (Eisner 1996) with exactly one dependent of the root.

Inputs are validated by `spacy_lal.decode.eisner_batch`; this module trusts them (C-contiguous
float32 [n+1, n+1] matrices, scores[d, h] = score of head h for dependent d, 0 = root).

Charts are indexed by head: C[h, e] is the best complete span headed by h that ends at e (left of h
or right of it), Inc[h, d] the best incomplete span holding the arc h -> d. With this layout every
inner loop of the O(n^3) recursion reads two contiguous rows (C is also kept transposed).
Single root: the chart covers the words 1..n only, and the root then takes one word r as its sole
dependent, with the complete spans C[r, 1] and C[r, n] on either side.
"""
cimport numpy as cnp
from libc.math cimport INFINITY, isfinite
from libc.stdlib cimport free, malloc

from ._tree_batch cimport decode_tree_batch

import numpy as np

cnp.import_array()

OK = 0
NONFINITE = 1

cdef enum:
    _OK = 0
    _NONFINITE = 1
    _COMPLETE = 0
    _INCOMPLETE = 1


cdef struct Workspace:
    double* C       # C[h * N + e]
    double* Ct      # Ct[e * N + h] == C[h * N + e]
    double* Inc     # Inc[h * N + d] (not `I`: complex.h defines that macro)
    int* bC         # split of C[h, e]
    int* bI         # split of the span min(h, d)..max(h, d), shared by both arc directions
    int* stack      # backtracking stack of (kind, head, end) triples


cdef int _alloc(void* workspace, int N) noexcept nogil:
    cdef Workspace* ws = <Workspace*>workspace
    ws.C = <double*>malloc(N * N * sizeof(double))
    ws.Ct = <double*>malloc(N * N * sizeof(double))
    ws.Inc = <double*>malloc(N * N * sizeof(double))
    ws.bC = <int*>malloc(N * N * sizeof(int))
    ws.bI = <int*>malloc(N * N * sizeof(int))
    ws.stack = <int*>malloc(12 * (N + 1) * sizeof(int))  # <= 4n + 2 items
    return (ws.C == NULL or ws.Ct == NULL or ws.Inc == NULL or ws.bC == NULL or ws.bI == NULL
            or ws.stack == NULL)


cdef void _free(void* workspace) noexcept nogil:
    cdef Workspace* ws = <Workspace*>workspace
    free(ws.C)
    free(ws.Ct)
    free(ws.Inc)
    free(ws.bC)
    free(ws.bI)
    free(ws.stack)


cdef int _eisner(const float* s, int n, void* workspace, long long* heads) noexcept nogil:
    cdef Workspace* ws = <Workspace*>workspace
    cdef int N = n + 1
    cdef int i, j, k, w, h, e, km, r, sp, kind
    cdef double acc, m, t
    cdef double* C = ws.C
    cdef double* Ct = ws.Ct
    cdef double* Inc = ws.Inc
    heads[0] = -1
    if n == 0:
        return _OK
    acc = 0.0
    for i in range(1, N):
        for j in range(N):
            if i != j:
                acc += s[i * N + j]
    if not isfinite(acc):  # inf and NaN both survive the sum
        return _NONFINITE
    for i in range(1, N):
        C[i * N + i] = 0.0
        Ct[i * N + i] = 0.0
    for w in range(1, n):
        for i in range(1, N - w):
            j = i + w
            # Both arcs over (i, j) join a right-facing C[i, k] and a left-facing C[j, k + 1].
            m = -INFINITY
            km = i
            for k in range(i, j):
                t = C[i * N + k] + C[j * N + k + 1]
                if t > m:
                    m = t
                    km = k
            Inc[i * N + j] = m + s[j * N + i]
            Inc[j * N + i] = m + s[i * N + j]
            ws.bI[i * N + j] = km
            ws.bI[j * N + i] = km
            # C[i, j] = max_{i < k <= j} Inc[i, k] + C[k, j]
            m = -INFINITY
            km = j
            for k in range(i + 1, j + 1):
                t = Inc[i * N + k] + Ct[j * N + k]
                if t > m:
                    m = t
                    km = k
            C[i * N + j] = m
            Ct[j * N + i] = m
            ws.bC[i * N + j] = km
            # C[j, i] = max_{i <= k < j} Inc[j, k] + C[k, i]
            m = -INFINITY
            km = i
            for k in range(i, j):
                t = Inc[j * N + k] + Ct[i * N + k]
                if t > m:
                    m = t
                    km = k
            C[j * N + i] = m
            Ct[i * N + j] = m
            ws.bC[j * N + i] = km
    # The root's only dependent r: everything else hangs below r.
    m = -INFINITY
    r = 1
    for k in range(1, N):
        t = C[k * N + 1] + C[k * N + n] + s[k * N]
        if t > m:
            m = t
            r = k
    heads[r] = 0
    ws.stack[0] = _COMPLETE
    ws.stack[1] = r
    ws.stack[2] = 1
    ws.stack[3] = _COMPLETE
    ws.stack[4] = r
    ws.stack[5] = n
    sp = 6
    while sp > 0:
        sp -= 3
        kind = ws.stack[sp]
        h = ws.stack[sp + 1]
        e = ws.stack[sp + 2]
        if kind == _COMPLETE:
            if h == e:
                continue
            # C[h, e] = Inc[h, k] + C[k, e], whichever side of h the span lies on.
            k = ws.bC[h * N + e]
            ws.stack[sp] = _INCOMPLETE
            ws.stack[sp + 1] = h
            ws.stack[sp + 2] = k
            ws.stack[sp + 3] = _COMPLETE
            ws.stack[sp + 4] = k
            ws.stack[sp + 5] = e
            sp += 6
        else:
            heads[e] = h
            i = h if h < e else e
            j = e if h < e else h
            k = ws.bI[h * N + e]
            ws.stack[sp] = _COMPLETE
            ws.stack[sp + 1] = i
            ws.stack[sp + 2] = k
            ws.stack[sp + 3] = _COMPLETE
            ws.stack[sp + 4] = j
            ws.stack[sp + 5] = k + 1
            sp += 6
    return _OK


def eisner_batch(list scores):
    """Decode validated C-contiguous float32 [n+1, n+1] matrices in one GIL-free loop.

    Returns (heads, status): a list of int64 [n+1] arrays and int32 [B] status codes.
    """
    cdef Workspace ws
    return decode_tree_batch(scores, _eisner, &ws, _alloc, _free)
