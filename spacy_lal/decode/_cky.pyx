# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""CKY decoding of fencepost span charts into binarized trees.

Inputs are validated by `spacy_lal.decode.cky_batch`; this module trusts them (C-contiguous float32
charts, int32 gold charts, int32 constraint rows) and never holds the GIL while decoding.

The tree score decomposes over spans and the label of a span does not interact with its split, so
each span first picks its best admissible label (O(n^2 L)), then an O(n^3) search picks the splits.
"""
cimport numpy as cnp
from libc.math cimport INFINITY, isfinite
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

cnp.import_array()

# Modes and per-sentence status codes; mirrored in the .pyi stub.
MODE_ARGMAX = 0
MODE_LOSS = 1
MODE_FORCED = 2
OK = 0
NONFINITE = 1
INFEASIBLE = 2
BAD_GOLD = 3

cdef enum:
    _ARGMAX = 0
    _LOSS = 1
    _FORCED = 2
    _OK = 0
    _NONFINITE = 1
    _INFEASIBLE = 2
    _BAD_GOLD = 3


cdef struct Workspace:
    double* best        # best[i * N + j]: best subtree score over span (i, j), -inf if none allowed
    double* best_t      # best_t[j * N + i] == best[i * N + j]: keeps the split search contiguous
    int* split          # split[i * N + j]: best split point k of span (i, j)
    int* label          # label[i * N + j]: best admissible label of span (i, j)
    int* max_end        # max_end[a]: largest end of a constraint span starting at a (-1 if none)
    int* min_start      # min_start[b]: smallest start of a constraint span ending at b (N if none)
    unsigned char* required  # required[i * N + j]: span must carry a non-empty label
    int* stack          # backtracking stack of (i, j) pairs


cdef int _alloc(Workspace* ws, int N) noexcept nogil:
    ws.best = <double*>malloc(N * N * sizeof(double))
    ws.best_t = <double*>malloc(N * N * sizeof(double))
    ws.split = <int*>malloc(N * N * sizeof(int))
    ws.label = <int*>malloc(N * N * sizeof(int))
    ws.max_end = <int*>malloc(N * sizeof(int))
    ws.min_start = <int*>malloc(N * sizeof(int))
    ws.required = <unsigned char*>malloc(N * N * sizeof(unsigned char))
    ws.stack = <int*>malloc(4 * N * sizeof(int))
    return (ws.best == NULL or ws.best_t == NULL or ws.split == NULL or ws.label == NULL
            or ws.max_end == NULL or ws.min_start == NULL or ws.required == NULL
            or ws.stack == NULL)


cdef void _free(Workspace* ws) noexcept nogil:
    free(ws.best)
    free(ws.best_t)
    free(ws.split)
    free(ws.label)
    free(ws.max_end)
    free(ws.min_start)
    free(ws.required)
    free(ws.stack)


cdef inline bint _finite(const float* p, int lo, int hi) noexcept nogil:
    """Whether p[lo:hi] holds no NaN or inf (x - x is 0 only for finite x); vectorises."""
    cdef int ok = 1
    cdef int l
    for l in range(lo, hi):
        ok &= (p[l] - p[l]) == <float>0.0
    return ok


cdef inline int _argmax(const float* p, int lo, int hi, float* best) noexcept nogil:
    """Index of the largest of the finite p[lo:hi], the lowest on ties (-1 if empty).

    Eight independent running maxima keep the CPU busy: a single one is a chain of dependent
    compares, several times slower over the L ~ 100 labels of every span.
    """
    cdef float m0, m1, m2, m3, m4, m5, m6, m7, m
    cdef int l = lo
    if lo >= hi:
        return -1
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = p[lo]
    while l + 8 <= hi:
        m0 = p[l] if p[l] > m0 else m0
        m1 = p[l + 1] if p[l + 1] > m1 else m1
        m2 = p[l + 2] if p[l + 2] > m2 else m2
        m3 = p[l + 3] if p[l + 3] > m3 else m3
        m4 = p[l + 4] if p[l + 4] > m4 else m4
        m5 = p[l + 5] if p[l + 5] > m5 else m5
        m6 = p[l + 6] if p[l + 6] > m6 else m6
        m7 = p[l + 7] if p[l + 7] > m7 else m7
        l += 8
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    m4 = m5 if m5 > m4 else m4
    m6 = m7 if m7 > m6 else m6
    m0 = m2 if m2 > m0 else m0
    m4 = m6 if m6 > m4 else m4
    m = m4 if m4 > m0 else m0
    while l < hi:
        m = p[l] if p[l] > m else m
        l += 1
    l = lo
    while p[l] != m:
        l += 1
    best[0] = m
    return l


cdef int _cky(const float* chart, int n, int L, const int* gold, int mode,
              const int* cons, int n_cons, Workspace* ws,
              int* out, double* out_score, long long* out_cost) noexcept nogil:
    """Decode one sentence; writes 2n - 1 (start, end, label) rows to `out` in pre-order."""
    cdef int N = n + 1
    cdef int i, j, k, l, a, b, g, lab, first, km, sp, top
    cdef int mx, mn
    cdef bint need
    cdef double val, m, t, score
    cdef float fv = 0.0
    cdef long long cost
    cdef const float* p
    cdef double* row
    cdef double* col
    out_score[0] = 0.0
    out_cost[0] = 0
    if gold == NULL and mode == _LOSS:
        mode = _ARGMAX  # a sentence without gold in a loss-augmented batch
    if n == 0:
        return _OK

    # Constraint spans (and, when forcing, the gold spans) may not be crossed by any tree span.
    # In a full binary tree a span that nothing crosses is itself a node, so these spans all
    # become nodes; `required` ones must also be labelled. Crossing is tested in O(1) per span
    # from the largest end of a constraint starting inside it and the smallest start of one
    # ending inside it.
    for a in range(N):
        ws.max_end[a] = -1
        ws.min_start[a] = N
    memset(ws.required, 0, <size_t>(N * N))
    for k in range(n_cons):
        a = cons[3 * k]
        b = cons[3 * k + 1]
        if b > ws.max_end[a]:
            ws.max_end[a] = b
        if a < ws.min_start[b]:
            ws.min_start[b] = a
        if cons[3 * k + 2]:
            ws.required[a * N + b] = 1
    if gold != NULL:
        for i in range(N):
            for j in range(i + 1, N):
                g = gold[i * N + j]
                if g < 0 or g >= L:
                    return _BAD_GOLD
                if mode == _FORCED and g != 0:
                    if j > ws.max_end[i]:
                        ws.max_end[i] = j
                    if i < ws.min_start[j]:
                        ws.min_start[j] = i
                    ws.required[i * N + j] = 1

    # Spans by increasing end, then decreasing start: every sub-span is ready when needed.
    for j in range(1, N):
        mx = -1
        mn = N
        for i in range(j - 1, -1, -1):
            if i + 1 < j:
                if ws.max_end[i + 1] > mx:
                    mx = ws.max_end[i + 1]
                if ws.min_start[i + 1] < mn:
                    mn = ws.min_start[i + 1]
            p = chart + (<Py_ssize_t>(i * N + j)) * L
            if not _finite(p, 1, L):
                return _NONFINITE
            g = gold[i * N + j] if gold != NULL else 0
            need = ws.required[i * N + j] or (i == 0 and j == n)
            # Best admissible label; ties go to the lowest label (the empty one first).
            first = 1 if need else 0
            if mode == _FORCED:
                lab = g
                if g != 0:
                    val = p[g]
                elif need:
                    val = -INFINITY
                else:
                    val = 0.0
            elif mode == _LOSS:
                # Every label but gold's gains 1: take the best label below g, g itself and the
                # best above g, in label order so that ties still go to the lowest.
                lab = -1
                val = -INFINITY
                if first == 0:
                    lab = 0
                    val = 1.0 if g != 0 else 0.0
                k = _argmax(p, max(first, 1), min(g, L) if g > 0 else 0, &fv)
                if k >= 0 and fv + 1.0 > val:
                    val = fv + 1.0
                    lab = k
                if g >= max(first, 1) and p[g] > val:
                    val = p[g]
                    lab = g
                k = _argmax(p, max(first, 1, g + 1), L, &fv)
                if k >= 0 and fv + 1.0 > val:
                    val = fv + 1.0
                    lab = k
            else:
                lab = _argmax(p, 1, L, &fv)
                val = fv
                if not need and val <= 0.0:
                    lab = 0
                    val = 0.0
            ws.label[i * N + j] = lab
            km = -1
            if mx > j or mn < i:
                val = -INFINITY
            elif j > i + 1:
                row = ws.best + i * N
                col = ws.best_t + j * N
                m = -INFINITY
                for k in range(i + 1, j):
                    t = row[k] + col[k]
                    if t > m:
                        m = t
                        km = k
                val += m
                if km < 0:
                    val = -INFINITY
            ws.best[i * N + j] = val
            ws.best_t[j * N + i] = val
            ws.split[i * N + j] = km
    if ws.best[n] == -INFINITY:
        return _INFEASIBLE

    # Pre-order backtrack; the model score and the cost are re-summed from the chart so that the
    # score never contains the loss augmentation.
    score = 0.0
    cost = 0
    sp = 0
    top = 0
    ws.stack[0] = 0
    ws.stack[1] = n
    sp = 2
    while sp > 0:
        sp -= 2
        i = ws.stack[sp]
        j = ws.stack[sp + 1]
        lab = ws.label[i * N + j]
        out[3 * top] = i
        out[3 * top + 1] = j
        out[3 * top + 2] = lab
        top += 1
        if lab != 0:
            score += chart[(<Py_ssize_t>(i * N + j)) * L + lab]
        if mode == _LOSS and lab != gold[i * N + j]:
            cost += 1
        k = ws.split[i * N + j]
        if k >= 0:
            ws.stack[sp] = k  # right child below the left one: left is emitted first
            ws.stack[sp + 1] = j
            ws.stack[sp + 2] = i
            ws.stack[sp + 3] = k
            sp += 4
    out_score[0] = score
    out_cost[0] = cost
    return _OK


def cky_batch(list charts, list golds, list constraints, int mode):
    """Decode validated sentences in one GIL-free loop.

    charts: C-contiguous float32 [n+1, n+1, L]; golds: C-contiguous int32 [n+1, n+1] or None;
    constraints: C-contiguous int32 [m, 3] rows (start, end, required) or None.
    Returns (spans, scores, costs, status): spans a list of int32 [2n-1, 3] arrays, scores float64 [B],
    costs int64 [B], status int32 [B] (OK, NONFINITE, INFEASIBLE or BAD_GOLD per sentence).
    """
    cdef Py_ssize_t B = len(charts)
    cdef Py_ssize_t s
    cdef int max_n = 0
    cdef cnp.ndarray arr
    cdef Workspace ws
    cdef const float** chart_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef const int** gold_p = <const int**>malloc(max(B, 1) * sizeof(int*))
    cdef const int** cons_p = <const int**>malloc(max(B, 1) * sizeof(int*))
    cdef int** out_p = <int**>malloc(max(B, 1) * sizeof(int*))
    cdef int* dims = <int*>malloc(max(B, 1) * 3 * sizeof(int))
    if chart_p == NULL or gold_p == NULL or cons_p == NULL or out_p == NULL or dims == NULL:
        free(chart_p); free(gold_p); free(cons_p); free(out_p); free(dims)
        raise MemoryError()
    scores = np.zeros(B, dtype=np.float64)
    costs = np.zeros(B, dtype=np.int64)
    status = np.zeros(B, dtype=np.int32)
    cdef double[::1] scores_v = scores
    cdef long long[::1] costs_v = costs
    cdef int[::1] status_v = status
    spans = []
    try:
        for s in range(B):
            arr = charts[s]
            chart_p[s] = <const float*>cnp.PyArray_DATA(arr)
            dims[3 * s] = arr.shape[0] - 1
            dims[3 * s + 1] = arr.shape[2]
            max_n = max(max_n, dims[3 * s])
            gold = golds[s]
            if gold is None:
                gold_p[s] = NULL
            else:
                gold_p[s] = <const int*>cnp.PyArray_DATA(<cnp.ndarray>gold)
            cons = constraints[s]
            if cons is None:
                cons_p[s] = NULL
                dims[3 * s + 2] = 0
            else:
                cons_p[s] = <const int*>cnp.PyArray_DATA(<cnp.ndarray>cons)
                dims[3 * s + 2] = (<cnp.ndarray>cons).shape[0]
            out = np.empty((max(2 * dims[3 * s] - 1, 0), 3), dtype=np.int32)
            out_p[s] = <int*>cnp.PyArray_DATA(<cnp.ndarray>out)
            spans.append(out)
        if _alloc(&ws, max_n + 1):
            _free(&ws)
            raise MemoryError()
        with nogil:
            for s in range(B):
                status_v[s] = _cky(chart_p[s], dims[3 * s], dims[3 * s + 1], gold_p[s], mode,
                                   cons_p[s], dims[3 * s + 2], &ws,
                                   out_p[s], &scores_v[s], &costs_v[s])
        _free(&ws)
    finally:
        free(chart_p); free(gold_p); free(cons_p); free(out_p); free(dims)
    return spans, scores, costs, status
