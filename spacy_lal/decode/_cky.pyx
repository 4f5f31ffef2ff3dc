# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""CKY decoding of fencepost span charts into binarized trees.

Inputs are validated by `spacy_lal.decode.cky_batch`; this module trusts them (C-contiguous float32
charts, int32 gold charts, int32 constraint rows) and never holds the GIL while decoding.

The tree score decomposes over spans and the label of a span does not interact with its split, so
each span first gets the value of its best admissible label (O(n^2 L), one streaming pass over the
chart in memory order, NaN/inf check fused in), then an O(n^3) search picks the splits; the labels
themselves are only looked up for the 2n - 1 spans of the best tree, while backtracking.

The inner loops are C kernels below: SSE2 (the x86-64 baseline, so no -march flag is needed) with
several independent accumulators, and a plain C fallback elsewhere. They are exact: max is the
IEEE comparison the scalar code makes, finiteness is tested with x - x == 0 (0 for finite x, NaN
otherwise), and indices are found in a second pass as the first element equal to the maximum, so
ties go to the lowest index exactly as in a left-to-right scan with strict `>`.
"""
cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._constraints cimport index_constraints

import numpy as np

cnp.import_array()

cdef extern from *:
    """
    #include <math.h>
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    #define LAL_SSE2 1
    #endif

    static inline int lal_ctz(unsigned int mask) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctz(mask);
    #else
        int k = 0;
        while (!(mask & 1u)) { mask >>= 1; ++k; }
        return k;
    #endif
    }

    /* Largest of p[lo:hi] (-INFINITY if the range is empty); clears *ok when any of them is NaN
       or infinite. Four independent 4-lane maxima (maxps has the same semantics as the scalar
       `x > m ? x : m`); a short tail is covered by re-reading the last 4 elements, harmless for
       both the maximum and the check. */
    static inline float lal_max(const float* p, int lo, int hi, int* ok) {
        int n = hi - lo, l = 0;
        float m = -INFINITY;
        p += lo;
    #ifdef LAL_SSE2
        if (n >= 4) {
            __m128 m0 = _mm_loadu_ps(p), m1 = m0, m2 = m0, m3 = m0;
            __m128 z0 = _mm_setzero_ps(), z1 = z0, z2 = z0, z3 = z0;
            __m128 x0, x1, x2, x3;
            for (; l + 16 <= n; l += 16) {
                x0 = _mm_loadu_ps(p + l);
                x1 = _mm_loadu_ps(p + l + 4);
                x2 = _mm_loadu_ps(p + l + 8);
                x3 = _mm_loadu_ps(p + l + 12);
                m0 = _mm_max_ps(m0, x0);
                m1 = _mm_max_ps(m1, x1);
                m2 = _mm_max_ps(m2, x2);
                m3 = _mm_max_ps(m3, x3);
                z0 = _mm_add_ps(z0, _mm_sub_ps(x0, x0));
                z1 = _mm_add_ps(z1, _mm_sub_ps(x1, x1));
                z2 = _mm_add_ps(z2, _mm_sub_ps(x2, x2));
                z3 = _mm_add_ps(z3, _mm_sub_ps(x3, x3));
            }
            for (; l + 4 <= n; l += 4) {
                x0 = _mm_loadu_ps(p + l);
                m0 = _mm_max_ps(m0, x0);
                z0 = _mm_add_ps(z0, _mm_sub_ps(x0, x0));
            }
            if (l < n) {
                x1 = _mm_loadu_ps(p + n - 4);
                m1 = _mm_max_ps(m1, x1);
                z1 = _mm_add_ps(z1, _mm_sub_ps(x1, x1));
            }
            m0 = _mm_max_ps(_mm_max_ps(m0, m1), _mm_max_ps(m2, m3));
            z0 = _mm_add_ps(_mm_add_ps(z0, z1), _mm_add_ps(z2, z3));
            m0 = _mm_max_ps(m0, _mm_shuffle_ps(m0, m0, _MM_SHUFFLE(1, 0, 3, 2)));
            m0 = _mm_max_ps(m0, _mm_shuffle_ps(m0, m0, _MM_SHUFFLE(2, 3, 0, 1)));
            if (_mm_movemask_ps(_mm_cmpneq_ps(z0, _mm_setzero_ps())))  /* a NaN lane */
                *ok = 0;
            return _mm_cvtss_f32(m0);
        }
    #endif
        {
            int good = 1;
            for (; l < n; ++l) {
                float x = p[l];
                good &= (x - x) == 0.0f;
                m = x > m ? x : m;
            }
            if (!good)
                *ok = 0;
        }
        return m;
    }

    /* Index of the first p[l] == m with lo <= l < hi, -1 if none. */
    static inline int lal_find(const float* p, int lo, int hi, float m) {
        int l = lo;
    #ifdef LAL_SSE2
        __m128 v = _mm_set1_ps(m);
        for (; l + 8 <= hi; l += 8) {
            int mask = _mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(p + l), v))
                     | (_mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(p + l + 4), v)) << 4);
            if (mask)
                return l + lal_ctz((unsigned int)mask);
        }
    #endif
        for (; l < hi; ++l)
            if (p[l] == m)
                return l;
        return -1;
    }

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
    float lal_max(const float* p, int lo, int hi, int* ok) noexcept nogil
    int lal_find(const float* p, int lo, int hi, float m) noexcept nogil
    void lal_splits(double* D, int S, int N, int n, int w, int* split) noexcept nogil

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


cdef inline double _span_value(const float* p, int L, int g, bint need, int mode,
                               int* ok) noexcept nogil:
    """Value of the best admissible label of a span (scores p[0:L], gold label g) for the mode,
    clearing *ok if any of p[1:L] is NaN or infinite. `_span_label` finds the label itself; both
    compute the candidates the same way, so the label's value is exactly this value."""
    cdef float m, m2
    cdef double val
    if mode == _LOSS:
        # Every label but gold's gains 1: the best label below g, g itself, the best above g.
        val = -INFINITY if need else (1.0 if g != 0 else 0.0)
        m = lal_max(p, 1, g, ok)  # empty (-inf) when g <= 1
        if m + 1.0 > val:
            val = m + 1.0
        if g >= 1:
            ok[0] &= (p[g] - p[g]) == <float>0.0
            if p[g] > val:
                val = p[g]
        m2 = lal_max(p, g + 1 if g >= 1 else 1, L, ok)
        if m2 + 1.0 > val:
            val = m2 + 1.0
        return val
    m = lal_max(p, 1, L, ok)
    if mode == _FORCED:
        if g != 0:
            return p[g]
        return -INFINITY if need else 0.0
    if not need and m <= 0.0:
        return 0.0
    return m


cdef inline int _span_label(const float* p, int L, int g, bint need, int mode) noexcept nogil:
    """The best admissible label of a span (finite scores): ties go to the lowest label, the
    empty one first; the label whose value `_span_value` returns."""
    cdef int lab, k
    cdef int ok = 1
    cdef float m
    cdef double val
    if mode == _FORCED:
        return g
    if mode == _LOSS:
        lab = -1
        val = -INFINITY
        if not need:
            lab = 0
            val = 1.0 if g != 0 else 0.0
        m = lal_max(p, 1, g, &ok)
        if m + 1.0 > val:
            val = m + 1.0
            lab = lal_find(p, 1, g, m)
        if g >= 1 and p[g] > val:
            val = p[g]
            lab = g
        k = g + 1 if g >= 1 else 1
        m = lal_max(p, k, L, &ok)
        if m + 1.0 > val:
            lab = lal_find(p, k, L, m)
        return lab
    m = lal_max(p, 1, L, &ok)
    if not need and m <= 0.0:
        return 0
    return lal_find(p, 1, L, m)


cdef int _cky(const float* chart, int n, int L, const int* gold, int mode,
              const int* cons, int n_cons, Workspace* ws,
              int* out, double* out_score, long long* out_cost) noexcept nogil:
    """Decode one sentence; writes 2n - 1 (start, end, label) rows to `out` in pre-order."""
    cdef int N = n + 1
    cdef int S = N + 8
    cdef int i, j, k, a, b, g, lab, w, sp, top
    cdef int mx, mn
    cdef int ok = 1
    cdef bint need
    cdef double val, score
    cdef long long cost
    cdef const float* p
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
    index_constraints(cons, n_cons, N, ws.max_end, ws.min_start, ws.required)
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

    # Label values of all spans, in memory order: rows (i, i+1..n) of the chart are contiguous,
    # so this is one forward stream over the upper triangle. A span crossed by a constraint gets
    # -inf: mx / mn = the largest end / smallest start of a constraint span starting / ending
    # strictly inside it.
    memset(ws.best, 0, <size_t>N * S * sizeof(double))
    for i in range(n):
        p = chart + (<Py_ssize_t>(i * N + i + 1)) * L
        mx = -1
        mn = N
        for j in range(i + 1, N):
            if j > i + 1:
                if ws.max_end[j - 1] > mx:
                    mx = ws.max_end[j - 1]
                if ws.min_start[j - 1] < mn:
                    mn = ws.min_start[j - 1]
            g = gold[i * N + j] if gold != NULL else 0
            need = ws.required[i * N + j] or (i == 0 and j == n)
            val = _span_value(p, L, g, need, mode, &ok)
            ws.best[(j - i) * S + i] = -INFINITY if mx > j or mn < i else val
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
        lab = _span_label(chart + (<Py_ssize_t>(i * N + j)) * L, L, g, need, mode)
        out[3 * top] = i
        out[3 * top + 1] = j
        out[3 * top + 2] = lab
        top += 1
        if lab != 0:
            score += chart[(<Py_ssize_t>(i * N + j)) * L + lab]
        if mode == _LOSS and lab != g:
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
    cdef cnp.ndarray scores = np.zeros(B, dtype=np.float64)
    cdef cnp.ndarray costs = np.zeros(B, dtype=np.int64)
    cdef cnp.ndarray status = np.zeros(B, dtype=np.int32)
    cdef double* scores_v = <double*>cnp.PyArray_DATA(scores)
    cdef long long* costs_v = <long long*>cnp.PyArray_DATA(costs)
    cdef int* status_v = <int*>cnp.PyArray_DATA(status)
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
