# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Joint span + dependency decoding: lexicalized CKY (the "joint span" decoder of Zhou and Zhao
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
value V of its best admissible label, exactly as in CKY, and the search is over heads and splits.

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

from ._constraints cimport index_constraints

import numpy as np

cnp.import_array()

cdef extern from *:
    """
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    #define LAL_SSE2 1
    #endif

    /* The two inner loops of the search, each a maximum over a candidate index t for a range of
       heads h at once:
           split: out[h] = max_{i < k < j} A_k[h] + B_k[h],  A_k / B_k the rows of (i, k) / (k, j)
           hook:  out[h] = max_{i <= t < j} x_t + W_t[h],     x_t = out[t], W_t a row of arc scores
       Only the maxima are computed; the maximising t of the 2n - 1 entries on the best structure
       are found while backtracking, by the same additions in the same order (bit-identical
       sums), which halves the work here and drops an n^3 table of backpointers. Compilers do not
       vectorise these max reductions without -ffast-math (NaN semantics), so they are SSE2 (the
       x86-64 baseline): a block of 2 * NV heads stays in registers across the whole t loop, NV
       independent chains hiding the latency of maxpd; per candidate pair: one or two loads, an
       add and a max. maxpd(c, m) is the scalar `c > m ? c : m`. A range not a multiple of 4 ends
       with a block overlapping the previous one: its lanes recompute identical values. */
    #ifdef LAL_SSE2
    #define LAL_BLOCK(NV, LOADS) do { \
            __m128d mv[4]; \
            for (int l = 0; l < NV; ++l) \
                mv[l] = _mm_set1_pd(-INFINITY); \
            for (t = t0; t < t1; ++t) { \
                LOADS \
                for (int l = 0; l < NV; ++l) \
                    mv[l] = _mm_max_pd(LAL_CAND(l), mv[l]); \
            } \
            for (int l = 0; l < NV; ++l) \
                _mm_storeu_pd(out + h + 2 * l, mv[l]); \
        } while (0)

    /* Blocks of 8 heads, then overlapping blocks of 4 (ranges of at least 4 heads). */
    #define LAL_RANGE(lo, hi, BLOCK8, BLOCK4) do { \
            for (h = lo; h + 8 <= hi; h += 8) \
                BLOCK8; \
            for (; h < hi; h += 4) { \
                if (h + 4 > hi) \
                    h = hi - 4; \
                BLOCK4; \
            } \
        } while (0)
    #endif

    /* split, for the heads h in [i, j); T holds the span rows of n entries, off[a] is the row of
       span (a, a + 1), so span (a, b) is row off[a] + b - a - 1. */
    static void lal_split_max(double* out, const double* T, const int* off, int n, int i, int j) {
        int h = i, t, t0 = i + 1, t1 = j;
    #ifdef LAL_SSE2
        if (j - i >= 4) {
            const double *a, *b;
            #define LAL_CAND(l) _mm_add_pd(_mm_loadu_pd(a + 2 * (l)), _mm_loadu_pd(b + 2 * (l)))
            #define LAL_LOADS a = T + (size_t)(off[i] + t - i - 1) * n + h; \
                              b = T + (size_t)(off[t] + j - t - 1) * n + h;
            LAL_RANGE(i, j, LAL_BLOCK(4, LAL_LOADS), LAL_BLOCK(2, LAL_LOADS));
            #undef LAL_LOADS
            #undef LAL_CAND
            return;
        }
    #endif
        for (; h < j; ++h) {
            double m = -INFINITY;
            for (t = t0; t < t1; ++t) {
                double c = T[(size_t)(off[i] + t - i - 1) * n + h]
                         + T[(size_t)(off[t] + j - t - 1) * n + h];
                m = c > m ? c : m;
            }
            out[h] = m;
        }
    }

    /* hook, for the outside heads h in [lo, hi) of span (i, j) (x_t = out[t] are read from the
       row that receives the results, at entries disjoint from [lo, hi)). */
    static void lal_hook_max(double* out, const double* W, int n, int i, int j, int lo, int hi) {
        int h = lo, t, t0 = i, t1 = j;
    #ifdef LAL_SSE2
        if (hi - lo >= 4) {
            const double* w;
            __m128d x;
            #define LAL_CAND(l) _mm_add_pd(x, _mm_loadu_pd(w + 2 * (l)))
            #define LAL_LOADS w = W + (size_t)t * n + h; x = _mm_set1_pd(out[t]);
            LAL_RANGE(lo, hi, LAL_BLOCK(4, LAL_LOADS), LAL_BLOCK(2, LAL_LOADS));
            #undef LAL_LOADS
            #undef LAL_CAND
            return;
        }
    #endif
        for (; h < hi; ++h) {
            double m = -INFINITY;
            for (t = t0; t < t1; ++t) {
                double c = out[t] + W[(size_t)t * n + h];
                m = c > m ? c : m;
            }
            out[h] = m;
        }
    }
    """
    void lal_split_max(double* out, const double* T, const int* off, int n,
                       int i, int j) noexcept nogil
    void lal_hook_max(double* out, const double* W, int n, int i, int j,
                      int lo, int hi) noexcept nogil


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


cdef inline float _label_max(const float* p, int L, int* ok) noexcept nogil:
    """Largest of the real-label scores p[1:L] (L >= 2); clears *ok if any is NaN or infinite.
    Four independent chains: a single `m = max(m, x)` chain is latency-bound."""
    cdef float m0 = p[1]
    cdef float m1 = p[1]
    cdef float m2 = p[1]
    cdef float m3 = p[1]
    cdef float z = 0.0  # x - x is 0 for finite x and NaN otherwise; NaN survives the sum
    cdef int l = 1
    while l + 4 <= L:
        m0 = p[l] if p[l] > m0 else m0
        m1 = p[l + 1] if p[l + 1] > m1 else m1
        m2 = p[l + 2] if p[l + 2] > m2 else m2
        m3 = p[l + 3] if p[l + 3] > m3 else m3
        z += (p[l] - p[l]) + (p[l + 1] - p[l + 1]) + (p[l + 2] - p[l + 2]) + (p[l + 3] - p[l + 3])
        l += 4
    while l < L:
        m0 = p[l] if p[l] > m0 else m0
        z += p[l] - p[l]
        l += 1
    if not z == 0.0:
        ok[0] = 0
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    return m2 if m2 > m0 else m0


cdef inline int _label(const float* p, int L, bint need) noexcept nogil:
    """The label whose value `_label_max` gave: the empty label unless a real one scores above 0
    (or the span must be labelled), else the first real label reaching the maximum."""
    cdef int ok = 1
    cdef int l
    cdef float m = _label_max(p, L, &ok)
    if not need and m <= 0.0:
        return 0
    for l in range(1, L):
        if p[l] == m:
            return l
    return 1  # unreachable for finite scores


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


cdef int _joint(const float* chart, const float* arcs, int n, int L, double lam,
                const int* cons, int n_cons, Workspace* ws,
                int* out, long long* heads, double* out_score) noexcept nogil:
    """Decode one sentence: 2n - 1 (start, end, label) rows in pre-order to `out`, heads[0..n].
    cons: n_cons (start, end, required) rows, as `_cky` takes them."""
    cdef int N = n + 1
    cdef int i, j, k, h, d, r, lab, top, sp, a, b, mx, mn
    cdef bint need
    cdef int ok = 1
    cdef float m
    cdef float z = 0.0
    cdef double best, t, labels, arc_sum
    cdef double* row
    cdef const float* p
    cdef double* T = ws.T
    heads[0] = -1
    out_score[0] = 0.0
    if n == 0:
        return _OK

    # Constraint spans (`_constraints.pxd`).
    index_constraints(cons, n_cons, N, ws.max_end, ws.min_start, ws.required)

    # Label values, one forward stream over the upper triangle of the chart (rows (i, i+1..n) are
    # contiguous), with the finiteness check fused in; -inf for spans a constraint crosses.
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
            m = _label_max(p, L, &ok)
            need = ws.required[i * N + j] or (i == 0 and j == n)
            if mx > j or mn < i:
                ws.V[i * N + j] = -INFINITY
            else:
                ws.V[i * N + j] = m if (m > 0.0 or need) else 0.0
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
        lab = _label(p, L, ws.required[i * N + j] or (i == 0 and j == n))
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
            ws.stack[sp] = k
            ws.stack[sp + 1] = j
            ws.stack[sp + 2] = d
            ws.stack[sp + 3] = i
            ws.stack[sp + 4] = k
            ws.stack[sp + 5] = h
        else:      # h heads the right child; the left child's head d depends on h
            d = _best_dependent(T + <size_t>(ws.off[i] + k - i - 1) * n, ws.W, n, i, k, h)
            ws.stack[sp] = k
            ws.stack[sp + 1] = j
            ws.stack[sp + 2] = h
            ws.stack[sp + 3] = i
            ws.stack[sp + 4] = k
            ws.stack[sp + 5] = d
        sp += 6  # right child below the left one: left is emitted first
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
    cdef cnp.ndarray arr
    cdef Workspace ws
    cdef const float** chart_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef const float** arcs_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef int** out_p = <int**>malloc(max(B, 1) * sizeof(int*))
    cdef long long** heads_p = <long long**>malloc(max(B, 1) * sizeof(long long*))
    cdef const int** cons_p = <const int**>malloc(max(B, 1) * sizeof(int*))
    cdef int* dims = <int*>malloc(max(B, 1) * 3 * sizeof(int))
    if (chart_p == NULL or arcs_p == NULL or out_p == NULL or heads_p == NULL or cons_p == NULL
            or dims == NULL):
        free(chart_p); free(arcs_p); free(out_p); free(heads_p); free(cons_p); free(dims)
        raise MemoryError()
    cdef cnp.ndarray scores = np.zeros(B, dtype=np.float64)
    cdef cnp.ndarray status = np.zeros(B, dtype=np.int32)
    cdef double* scores_v = <double*>cnp.PyArray_DATA(scores)
    cdef int* status_v = <int*>cnp.PyArray_DATA(status)
    spans = []
    heads = []
    try:
        for s in range(B):
            arr = charts[s]
            chart_p[s] = <const float*>cnp.PyArray_DATA(arr)
            dims[3 * s] = arr.shape[0] - 1
            dims[3 * s + 1] = arr.shape[2]
            max_n = max(max_n, dims[3 * s])
            arcs_p[s] = <const float*>cnp.PyArray_DATA(<cnp.ndarray>arcs[s])
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
            out = np.empty(dims[3 * s] + 1, dtype=np.int64)
            heads_p[s] = <long long*>cnp.PyArray_DATA(<cnp.ndarray>out)
            heads.append(out)
        # One workspace for the longest sentence; shorter ones use a prefix of each table.
        if _alloc(&ws, max(max_n, 1)):
            _free(&ws)
            raise MemoryError()
        with nogil:
            for s in range(B):
                status_v[s] = _joint(chart_p[s], arcs_p[s], dims[3 * s], dims[3 * s + 1], lam,
                                     cons_p[s], dims[3 * s + 2], &ws,
                                     out_p[s], heads_p[s], &scores_v[s])
        _free(&ws)
    finally:
        free(chart_p); free(arcs_p); free(out_p); free(heads_p); free(cons_p); free(dims)
    return spans, heads, scores, status
