# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""CKY decoding of fencepost span charts into binarized trees.

Inputs are validated by `spacy_lal.decode.cky_batch`; this module trusts them (C-contiguous float32
charts, int32 gold charts, int32 constraint rows) and never holds the GIL while decoding.

The tree score decomposes over spans and the label of a span does not interact with its split, so
each span first gets the value of its best admissible label (O(n^2 L), one streaming pass over the
chart in memory order, NaN/inf check fused in; `_span_labels`), then an O(n^3) search picks the
splits; the labels themselves are only looked up for the 2n - 1 spans of the best tree, while
backtracking.

The split search is a C kernel below: SSE2 (`_simd`) with several independent accumulators, and a
plain C fallback elsewhere, exact as the scalar scan (see the kernel's comment).
"""
cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from . cimport _simd
from ._chart_batch cimport ChartSentence, chart_sentences
from ._constraints cimport crossed, index_constraints
from ._span_labels cimport ARGMAX, FORCED, LOSS, span_label, span_value

import numpy as np

cnp.import_array()

cdef extern from *:
    """
    /* Split search for all spans of length w (2 <= w <= n) at once, vectorised over the start i
       (the diagonal layout D[d * S + i] = value of span (i, i + d) makes both operands of every
       candidate contiguous in i). For each i in [0, n - w]: the first d in [1, w) maximising
       D[d][i] + D[w - d][i + d] (a left-to-right scan with strict `>` from -inf: the leftmost
       split on ties; none if every candidate is -inf), then D[w][i] += the maximum (-inf when
       there is none) and split[i * N + i + w] = i + d (-1 if none). Sums are never NaN: entries
       are finite or -inf. Lanes past n - w compute junk in the padding (S >= n + 8, rows zeroed
       beforehand); nothing valid ever reads it. */
    static inline void lal_split_block(double* D, int S, int N, int w, int i, int cnt,
                                       int* split, const int nv) {
        int d, l;
        double kd[8];
    #ifdef LAL_SSE2
        __m128d m[4], k[4], c, g, dv;
        for (l = 0; l < nv; ++l) {
            m[l] = _mm_set1_pd(-INFINITY);
            k[l] = _mm_set1_pd(-1.0);
        }
        for (d = 1; d < w; ++d) {
            const double* a = D + d * S + i;
            const double* b = D + (w - d) * S + i + d;
            dv = _mm_set1_pd((double)d);
            for (l = 0; l < nv; ++l) {
                c = _mm_add_pd(_mm_loadu_pd(a + 2 * l), _mm_loadu_pd(b + 2 * l));
                g = _mm_cmpgt_pd(c, m[l]);
                m[l] = _mm_max_pd(c, m[l]);  /* c > m ? c : m */
                k[l] = _mm_or_pd(_mm_and_pd(g, dv), _mm_andnot_pd(g, k[l]));
            }
        }
        for (l = 0; l < nv; ++l) {
            double* o = D + w * S + i + 2 * l;
            _mm_storeu_pd(o, _mm_add_pd(_mm_loadu_pd(o), m[l]));
            _mm_storeu_pd(kd + 2 * l, k[l]);
        }
    #else
        double mm[8];
        for (l = 0; l < 2 * nv; ++l) {
            mm[l] = -INFINITY;
            kd[l] = -1.0;
        }
        for (d = 1; d < w; ++d) {
            const double* a = D + d * S + i;
            const double* b = D + (w - d) * S + i + d;
            for (l = 0; l < 2 * nv; ++l) {
                double c = a[l] + b[l];
                if (c > mm[l]) {
                    mm[l] = c;
                    kd[l] = (double)d;
                }
            }
        }
        for (l = 0; l < 2 * nv; ++l)
            D[w * S + i + l] += mm[l];
    #endif
        for (l = 0; l < 2 * nv && i + l < cnt; ++l)
            split[(i + l) * N + i + l + w] = kd[l] < 0.0 ? -1 : i + l + (int)kd[l];
    }

    static void lal_splits(double* D, int S, int N, int n, int w, int* split) {
        int cnt = n - w + 1, i = 0;
        for (; cnt - i >= 8; i += 8)
            lal_split_block(D, S, N, w, i, cnt, split, 4);
        for (; i < cnt; i += 4)
            lal_split_block(D, S, N, w, i, cnt, split, 2);
    }
    """
    void lal_splits(double* D, int S, int N, int n, int w, int* split) noexcept nogil

# Modes and per-sentence status codes; mirrored in the .pyi stub.
MODE_ARGMAX = ARGMAX
MODE_LOSS = LOSS
MODE_FORCED = FORCED
OK = 0
NONFINITE = 1
INFEASIBLE = 2
BAD_GOLD = 3

cdef enum:
    _OK = 0
    _NONFINITE = 1
    _INFEASIBLE = 2
    _BAD_GOLD = 3


cdef struct Workspace:
    double* best        # best[(j - i) * S + i]: best subtree score over span (i, j), -inf if none
                        # allowed (before the split search: the value of its best admissible label,
                        # -inf if a constraint crosses it); S = N + 8 (padding for vector lanes)
    int* split          # split[i * N + j]: best split point k of span (i, j)
    int* max_end        # max_end[a]: largest end of a constraint span starting at a (-1 if none)
    int* min_start      # min_start[b]: smallest start of a constraint span ending at b (N if none)
    unsigned char* required  # required[i * N + j]: span must carry a non-empty label
    int* stack          # backtracking stack of (i, j) pairs


cdef int _alloc(Workspace* ws, int N) noexcept nogil:
    ws.best = <double*>malloc(N * (N + 8) * sizeof(double))
    ws.split = <int*>malloc(N * N * sizeof(int))
    ws.max_end = <int*>malloc(N * sizeof(int))
    ws.min_start = <int*>malloc(N * sizeof(int))
    ws.required = <unsigned char*>malloc(N * N * sizeof(unsigned char))
    ws.stack = <int*>malloc(4 * N * sizeof(int))
    return (ws.best == NULL or ws.split == NULL
            or ws.max_end == NULL or ws.min_start == NULL or ws.required == NULL
            or ws.stack == NULL)


cdef void _free(Workspace* ws) noexcept nogil:
    free(ws.best)
    free(ws.split)
    free(ws.max_end)
    free(ws.min_start)
    free(ws.required)
    free(ws.stack)


cdef int _cky(const ChartSentence* x, const int* gold, int mode, Workspace* ws,
              double* out_score, long long* out_cost) noexcept nogil:
    """Decode one sentence; writes 2n - 1 (start, end, label) rows to `x.spans` in pre-order."""
    cdef const float* chart = x.chart
    cdef int n = x.n
    cdef int L = x.L
    cdef int* out = x.spans
    cdef int N = n + 1
    cdef int S = N + 8
    cdef int i, j, k, g, lab, w, sp, top
    cdef int mx, mn
    cdef int ok = 1
    cdef bint need, crossing
    cdef double val, score
    cdef long long cost
    cdef const float* p
    out_score[0] = 0.0
    out_cost[0] = 0
    if gold == NULL and mode == LOSS:
        mode = ARGMAX  # a sentence without gold in a loss-augmented batch
    if n == 0:
        return _OK

    # Constraint spans (and, when forcing, the gold spans) may not be crossed by any tree span.
    # In a full binary tree a span that nothing crosses is itself a node, so these spans all
    # become nodes; `required` ones must also be labelled.
    index_constraints(x.cons, x.n_cons, N, ws.max_end, ws.min_start, ws.required)
    if gold != NULL:
        for i in range(N):
            for j in range(i + 1, N):
                g = gold[i * N + j]
                if g < 0 or g >= L:
                    return _BAD_GOLD
                if mode == FORCED and g != 0:
                    if j > ws.max_end[i]:
                        ws.max_end[i] = j
                    if i < ws.min_start[j]:
                        ws.min_start[j] = i
                    ws.required[i * N + j] = 1

    # Label values of all spans, in memory order: rows (i, i+1..n) of the chart are contiguous,
    # so this is one forward stream over the upper triangle. A span crossed by a constraint gets
    # -inf: no tree uses it.
    memset(ws.best, 0, <size_t>N * S * sizeof(double))
    for i in range(n):
        p = chart + (<Py_ssize_t>(i * N + i + 1)) * L
        mx = -1
        mn = N
        for j in range(i + 1, N):
            g = gold[i * N + j] if gold != NULL else 0
            need = ws.required[i * N + j] or (i == 0 and j == n)
            val = span_value(p, L, g, need, mode, &ok)
            crossing = crossed(ws.max_end, ws.min_start, i, j, &mx, &mn)
            ws.best[(j - i) * S + i] = -INFINITY if crossing else val
            ws.split[i * N + j] = -1
            p += L
        if not ok:
            return _NONFINITE

    # Spans by increasing length: every sub-span is ready when needed.
    for w in range(2, N):
        lal_splits(ws.best, S, N, n, w, ws.split)
    if ws.best[n * S] == -INFINITY:
        return _INFEASIBLE

    # Pre-order backtrack, labelling the tree's spans; the model score and the cost are re-summed
    # from the chart so that the score never contains the loss augmentation.
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
        g = gold[i * N + j] if gold != NULL else 0
        need = ws.required[i * N + j] or (i == 0 and j == n)
        lab = span_label(chart + (<Py_ssize_t>(i * N + j)) * L, L, g, need, mode)
        out[3 * top] = i
        out[3 * top + 1] = j
        out[3 * top + 2] = lab
        top += 1
        if lab != 0:
            score += chart[(<Py_ssize_t>(i * N + j)) * L + lab]
        if mode == LOSS and lab != g:
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
    cdef Workspace ws
    cdef ChartSentence* sent = <ChartSentence*>malloc(max(B, 1) * sizeof(ChartSentence))
    cdef const int** gold_p = <const int**>malloc(max(B, 1) * sizeof(int*))
    if sent == NULL or gold_p == NULL:
        free(sent); free(gold_p)
        raise MemoryError()
    cdef cnp.ndarray scores = np.zeros(B, dtype=np.float64)
    cdef cnp.ndarray costs = np.zeros(B, dtype=np.int64)
    cdef cnp.ndarray status = np.zeros(B, dtype=np.int32)
    cdef double* scores_v = <double*>cnp.PyArray_DATA(scores)
    cdef long long* costs_v = <long long*>cnp.PyArray_DATA(costs)
    cdef int* status_v = <int*>cnp.PyArray_DATA(status)
    try:
        spans = chart_sentences(charts, constraints, sent, &max_n)
        for s in range(B):
            gold = golds[s]
            if gold is None:
                gold_p[s] = NULL
            else:
                gold_p[s] = <const int*>cnp.PyArray_DATA(<cnp.ndarray>gold)
        if _alloc(&ws, max_n + 1):
            _free(&ws)
            raise MemoryError()
        with nogil:
            for s in range(B):
                status_v[s] = _cky(&sent[s], gold_p[s], mode, &ws, &scores_v[s], &costs_v[s])
        _free(&ws)
    finally:
        free(sent); free(gold_p)
    return spans, scores, costs, status
