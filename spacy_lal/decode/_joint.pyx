# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Joint span + dependency decoding by lexicalized CKY (the "joint span" decoder of Zhou and Zhao
2019, used by Mrini et al. 2020), exact, O(n^4) time, O(n^3) memory (8 bytes per span and word).

Inputs are validated by `spacy_lal.decode.joint_batch`; this module trusts them (C-contiguous
float32 charts [n+1, n+1, L] and arc matrices [n+1, n+1], arcs[d, h] with 0 = the root).

A structure is a full binary bracketing of the n words whose every node carries a lexical head:
a leaf (i, i+1) is headed by word i, an inner node by the head of one of its two children, and the
head of the other child depends on it. The dependency tree is read off those choices (plus the
arc from the root to the head of the whole sentence), so it is projective with one root dependent.
    score = sum over nodes of the label score (as in `_cky`: best label per span, 0 for the empty
            label, the root labelled) + lam * sum of the arc scores.
The label of a span does not interact with its head or its split, so each span first gets the
value V of its best admissible label, exactly as in CKY (`_span_labels`), and the search is over
heads and splits.

Words are 0-based here (word h spans fenceposts h..h+1); they are h + 1 in the arc matrix and in
the returned heads. One table T holds two things per span (i, j), sharing a row of n doubles:
    h in [i, j):   T[(i, j), h] = best subtree over (i, j) headed by h
    h outside:     T[(i, j), h] = best subtree over (i, j) hanging below h
                                = max_{h' in [i, j)} T[(i, j), h'] + lam * arcs[h' + 1, h + 1]
The second half is the "hook" precomputation that makes the search O(n^4) instead of O(n^5): it
costs O(n) per (span, outside head). With it the inner recursion needs no case split at all: for
a split k of (i, j) and a head h in [i, j), h lies in exactly one child, where T holds the
subtree headed by h, and the other child's entry at h is its best subtree hanging below h, so
    T[(i, j), h] = V[i, j] + max_{i < k < j} T[(i, k), h] + T[(k, j), h]
for every h at once: one pass over two contiguous rows per split, like the CKY split search.
A cheaper exact algorithm is unlikely: the span scores couple the left and right extents of a
head's projections (the interleaving of its left and right attachments matters), which is what
Eisner's O(n^3) split-head trick needs to be absent; O(n^4) is Eisner and Satta's (1999) bound for
such bilexical grammars.

Constraints (as `_cky`): a span that a constraint span crosses gets V = -inf, so no structure
uses it, and in a full binary tree a span nothing crosses is a node; a required span's V is its
best real label (it must be labelled). -inf values propagate through the sums and maxima (nothing
is +inf), so a span without any admissible subtree stays -inf, and a root row of -inf means
the constraints admit no tree.

Ties: empty label, then lowest label (as `_cky`); leftmost split; lowest-numbered head of a
dependent subtree; leftmost root dependent. Sums are in double precision; the returned score is
re-summed from the inputs along the decoded structure.
"""
cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc

from ._chart_batch cimport ChartSentence, chart_sentences
from ._constraints cimport crossed, index_constraints
from ._joint_kernels cimport lal_hook_max, lal_split_max
from ._span_labels cimport ARGMAX, span_label, span_value

import numpy as np

cnp.import_array()

# Per-sentence status codes; mirrored in the .pyi stub.
OK = 0
NONFINITE_CHART = 1
NONFINITE_ARCS = 2
INFEASIBLE = 3

cdef enum:
    _OK = 0
    _NONFINITE_CHART = 1
    _NONFINITE_ARCS = 2
    _INFEASIBLE = 3


cdef struct Workspace:
    double* T       # T[sid(i, j) * n + h], see the module docstring, sid(i, j) = off[i] + j - i - 1;
                    # no backpointers: the argmaxes on the best structure are recomputed
    double* V       # V[i * N + j]: value of the best admissible label of span (i, j), -inf if
                    # a constraint span crosses it
    double* W       # W[d * n + h] = lam * arcs[d + 1, h + 1]: word-pair arc scores, scaled once
    int* off        # off[i]: index of span (i, i + 1) in the triangle of spans, row by row
    int* stack      # backtracking stack of (i, j, h) triples
    int* max_end    # max_end[a]: largest end of a constraint span starting at a (-1 if none)
    int* min_start  # min_start[b]: smallest start of a constraint span ending at b (N if none)
    unsigned char* required  # required[i * N + j]: span must carry a non-empty label


cdef int _alloc(Workspace* ws, int n) noexcept nogil:
    # Spans (i, j) of an n-word sentence: n (n + 1) / 2 rows of n entries (n >= 1 here).
    cdef size_t cells = <size_t>n * (n + 1) // 2 * n
    cdef size_t N = n + 1
    ws.T = <double*>malloc(cells * sizeof(double))
    ws.V = <double*>malloc(N * N * sizeof(double))
    ws.W = <double*>malloc(<size_t>n * n * sizeof(double))
    ws.off = <int*>malloc(N * sizeof(int))
    ws.stack = <int*>malloc(6 * N * sizeof(int))  # at most n + 1 pending (i, j, h) triples
    ws.max_end = <int*>malloc(N * sizeof(int))
    ws.min_start = <int*>malloc(N * sizeof(int))
    ws.required = <unsigned char*>malloc(N * N * sizeof(unsigned char))
    return (ws.T == NULL or ws.V == NULL or ws.W == NULL or ws.off == NULL
            or ws.stack == NULL or ws.max_end == NULL or ws.min_start == NULL
            or ws.required == NULL)


cdef void _free(Workspace* ws) noexcept nogil:
    free(ws.T)
    free(ws.V)
    free(ws.W)
    free(ws.off)
    free(ws.stack)
    free(ws.max_end)
    free(ws.min_start)
    free(ws.required)


cdef inline int _best_split(const double* T, const int* off, int n, int i, int j,
                            int h) noexcept nogil:
    """The first split k of (i, j) maximising T[(i, k), h] + T[(k, j), h]: the sums are the ones
    `lal_split_max` maximised, bit for bit, so this is the split behind T[(i, j), h]."""
    cdef int k
    cdef int kb = i + 1
    cdef double c
    cdef double m = -INFINITY
    for k in range(i + 1, j):
        c = T[<size_t>(off[i] + k - i - 1) * n + h] + T[<size_t>(off[k] + j - k - 1) * n + h]
        if c > m:
            m = c
            kb = k
    return kb


cdef inline int _best_dependent(const double* row, const double* W, int n, int i, int j,
                                int h) noexcept nogil:
    """The lowest head d in [i, j) of the subtree over (i, j) (its table row `row`) hanging below
    h: the argmax behind the hook entry row[h], by the same sums as `lal_hook_max`."""
    cdef int t
    cdef int tb = i
    cdef double c
    cdef double m = -INFINITY
    for t in range(i, j):
        c = row[t] + W[<size_t>t * n + h]
        if c > m:
            m = c
            tb = t
    return tb


cdef int _joint(const ChartSentence* x, const float* arcs, double lam, Workspace* ws,
                long long* heads, double* out_score) noexcept nogil:
    """Decode one sentence: 2n - 1 (start, end, label) rows in pre-order to `x.spans`,
    heads[0..n]."""
    cdef const float* chart = x.chart
    cdef int n = x.n
    cdef int L = x.L
    cdef int* out = x.spans
    cdef int N = n + 1
    cdef int i, j, k, h, d, r, lab, top, sp, mx, mn, left_head, right_head
    cdef bint need, crossing
    cdef int ok = 1
    cdef float z = 0.0
    cdef double value, best, t, labels, arc_sum
    cdef double* row
    cdef const float* p
    cdef double* T = ws.T
    heads[0] = -1
    out_score[0] = 0.0
    if n == 0:
        return _OK

    # Constraint spans (`_constraints.pxd`).
    index_constraints(x.cons, x.n_cons, N, ws.max_end, ws.min_start, ws.required)

    # Label values, one forward stream over the upper triangle of the chart (rows (i, i+1..n) are
    # contiguous), with the finiteness check fused in; -inf for spans a constraint crosses.
    for i in range(n):
        p = chart + (<Py_ssize_t>(i * N + i + 1)) * L
        mx = -1
        mn = N
        for j in range(i + 1, N):
            need = ws.required[i * N + j] or (i == 0 and j == n)
            value = span_value(p, L, 0, need, ARGMAX, &ok)
            crossing = crossed(ws.max_end, ws.min_start, i, j, &mx, &mn)
            ws.V[i * N + j] = -INFINITY if crossing else value
            p += L
    if not ok:
        return _NONFINITE_CHART
    # Word-to-word arcs, scaled once (the O(n^4) loops add them n^2 times each); the root arcs
    # are read only for the root dependent, but all are checked, as in `_eisner`.
    for d in range(n):
        for h in range(n):
            if h != d:
                t = arcs[(d + 1) * N + h + 1]
                z += <float>t - <float>t
                ws.W[d * n + h] = lam * t
        z += arcs[(d + 1) * N] - arcs[(d + 1) * N]
    if not z == 0.0:
        return _NONFINITE_ARCS

    ws.off[0] = 0
    for i in range(1, n):
        ws.off[i] = ws.off[i - 1] + n - i + 1

    # Spans by decreasing start, then increasing end: the children (i, k) and (k, j) of a split,
    # k in (i, j), are then complete, and a span's hook entries are computed right after its
    # headed ones. Unlike a width-major order this keeps the rows (i, k) of the current start,
    # read by every span (i, j), hot in cache. The whole-sentence span hangs below nothing but
    # the root, so it needs no hook entries.
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, N):
            row = T + <size_t>(ws.off[i] + j - i - 1) * n
            if j == i + 1:
                row[i] = ws.V[i * N + j]
            else:
                # Every split k serves every head h in [i, j): h lies in exactly one child, which
                # holds h's headed subtree, while the other holds its best subtree below h.
                lal_split_max(row, T, ws.off, n, i, j)
                for h in range(i, j):
                    row[h] += ws.V[i * N + j]
            if j - i < n:
                lal_hook_max(row, ws.W, n, i, j, 0, i)
                lal_hook_max(row, ws.W, n, i, j, j, n)

    # The root's only dependent heads the whole sentence.
    row = T + <size_t>(ws.off[0] + n - 1) * n
    best = -INFINITY
    r = 0
    for h in range(n):
        t = row[h] + lam * arcs[(h + 1) * N]
        if t > best:
            best = t
            r = h
    if best == -INFINITY:
        return _INFEASIBLE
    heads[r + 1] = 0

    # Pre-order backtrack; the score is re-summed from the inputs along the structure.
    labels = 0.0
    arc_sum = arcs[(r + 1) * N]
    top = 0
    ws.stack[0] = 0
    ws.stack[1] = n
    ws.stack[2] = r
    sp = 3
    while sp > 0:
        sp -= 3
        i = ws.stack[sp]
        j = ws.stack[sp + 1]
        h = ws.stack[sp + 2]
        p = chart + (<Py_ssize_t>(i * N + j)) * L
        lab = span_label(p, L, 0, ws.required[i * N + j] or (i == 0 and j == n), ARGMAX)
        out[3 * top] = i
        out[3 * top + 1] = j
        out[3 * top + 2] = lab
        top += 1
        if lab != 0:
            labels += p[lab]
        if j - i == 1:
            continue
        k = _best_split(T, ws.off, n, i, j, h)
        if h < k:  # h heads the left child; the right child's head d depends on h
            d = _best_dependent(T + <size_t>(ws.off[k] + j - k - 1) * n, ws.W, n, k, j, h)
            left_head = h
            right_head = d
        else:      # h heads the right child; the left child's head d depends on h
            d = _best_dependent(T + <size_t>(ws.off[i] + k - i - 1) * n, ws.W, n, i, k, h)
            left_head = d
            right_head = h
        ws.stack[sp] = k  # right child below the left one: left is emitted first
        ws.stack[sp + 1] = j
        ws.stack[sp + 2] = right_head
        ws.stack[sp + 3] = i
        ws.stack[sp + 4] = k
        ws.stack[sp + 5] = left_head
        sp += 6
        heads[d + 1] = h + 1
        arc_sum += arcs[(d + 1) * N + h + 1]
    out_score[0] = labels + lam * arc_sum
    return _OK


def joint_batch(list charts, list arcs, list constraints, double lam):
    """Decode validated sentences in one GIL-free loop.

    charts: C-contiguous float32 [n+1, n+1, L] (L >= 2); arcs: C-contiguous float32 [n+1, n+1];
    constraints: C-contiguous int32 [m, 3] rows (start, end, required) or None, as `_cky` takes.
    Returns (spans, heads, scores, status): int32 [2n-1, 3] and int64 [n+1] arrays per sentence,
    float64 [B] scores and int32 [B] status (OK, NONFINITE_CHART, NONFINITE_ARCS or INFEASIBLE).
    """
    cdef Py_ssize_t B = len(charts)
    cdef Py_ssize_t s
    cdef int max_n = 0
    cdef Workspace ws
    cdef ChartSentence* sent = <ChartSentence*>malloc(max(B, 1) * sizeof(ChartSentence))
    cdef const float** arcs_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef long long** heads_p = <long long**>malloc(max(B, 1) * sizeof(long long*))
    if sent == NULL or arcs_p == NULL or heads_p == NULL:
        free(sent); free(arcs_p); free(heads_p)
        raise MemoryError()
    cdef cnp.ndarray scores = np.zeros(B, dtype=np.float64)
    cdef cnp.ndarray status = np.zeros(B, dtype=np.int32)
    cdef double* scores_v = <double*>cnp.PyArray_DATA(scores)
    cdef int* status_v = <int*>cnp.PyArray_DATA(status)
    heads = []
    try:
        spans = chart_sentences(charts, constraints, sent, &max_n)
        for s in range(B):
            arcs_p[s] = <const float*>cnp.PyArray_DATA(<cnp.ndarray>arcs[s])
            out = np.empty(sent[s].n + 1, dtype=np.int64)
            heads_p[s] = <long long*>cnp.PyArray_DATA(<cnp.ndarray>out)
            heads.append(out)
        # One workspace for the longest sentence; shorter ones use a prefix of each table.
        if _alloc(&ws, max(max_n, 1)):
            _free(&ws)
            raise MemoryError()
        with nogil:
            for s in range(B):
                status_v[s] = _joint(&sent[s], arcs_p[s], lam, &ws, heads_p[s], &scores_v[s])
        _free(&ws)
    finally:
        free(sent); free(arcs_p); free(heads_p)
    return spans, heads, scores, status
