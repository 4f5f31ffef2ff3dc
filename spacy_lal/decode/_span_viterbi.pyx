# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Span-level (semi-Markov) Viterbi for SRL: the best valid BIO sequence whose arguments are all
allowed spans, or, with a finite penalty, whose arguments off the allowed spans pay it.

Inputs are validated by `spacy_lal.decode.span_viterbi_batch`; this module trusts them
(C-contiguous float32 [n, L] scores, int32 [m, 2] allowed spans of two or more words sorted by end,
the penalty, and the role tables of a `BIOScheme`).

A BIO sequence is a segmentation of the words into O words and labelled segments: a segment
(a, b) with role X reads B-X on word a and I-X on a+1..b-1, so it scores
    s[a, B-X] + sum_{a < t < b} s[t, I-X]
and the sequence's score is the sum of its segments' and O words' scores (the BIO decoders'
objective) less the penalty P of each segment of two or more words over a span that is not
allowed. This gives the semi-Markov recursion
    best[t] = max(best[t-1] + s[t-1, O],
                  max_{a < t, X} best[a] + segment(a, t, X) - cost(a, t))
over ends t = 1..n, with per-role prefix sums cum of the I-scores, segment(a, t, X) =
s[a, B-X] - cum[a+1, X] + cum[t, X]. Single words and allowed spans cost 0, and are tried one by
one; every other start a costs P, so for each role only the best of them matters, and
    max_{a <= t-2} best[a] + s[a, B-X] - cum[a+1, X]
is a running maximum over the starts (with an infinite P there is none). That makes it
O(n R + m R) for m allowed spans and R roles, where trying every span is O(n^2 R).
With a predicate p, word p is never O, a segment starting at p has role V and no other segment
has it, and no segment contains p without starting there (so p is B-V and the only one, as in
`_viterbi`). Ties: O first, then the shorter segment, then the lower role (order of the role
table).
"""
cimport numpy as cnp
from libc.math cimport INFINITY, isfinite
from libc.stdlib cimport free, malloc

import numpy as np

cnp.import_array()

OK = 0
NONFINITE = 1
INFEASIBLE = 2

cdef enum:
    _OK = 0
    _NONFINITE = 1
    _INFEASIBLE = 2


cdef struct Roles:
    int R
    const int* bi       # bi[2 r] = index of B-X, bi[2 r + 1] = index of I-X (-1 if none)
    int outside         # index of O
    int v_role          # the role of V (-1 if none)


cdef inline double _value(const float* s, int L, const Roles* ro, const double* cum, const double* best,
                          int a, int t, int r, double cost) noexcept nogil:
    """best[a] + segment(a, t, X_r) - cost."""
    cdef int R = ro.R
    cdef double seg = s[a * L + ro.bi[2 * r]] + cum[t * R + r] - cum[(a + 1) * R + r]
    return best[a] + seg - cost


cdef inline bint _allowed_role(const Roles* ro, int pred, int a, int r) noexcept nogil:
    """Whether a segment starting at a may have role r: V at the predicate's word only."""
    return pred < 0 or (r == ro.v_role) == (a == pred)


cdef inline void _offer(double val, int a, int r, int t, double* best, int* bstart, int* brole) noexcept nogil:
    """Take the segment (a, t) with role r if it beats the best end at t so far; a tie goes to
    the earlier of O (bstart[t] = t while t is being decided), the shorter segment (the later
    start), the lower role."""
    if val > best[t] or (val == best[t] and (a > bstart[t] or (a == bstart[t] and r < brole[t]))):
        best[t] = val
        bstart[t] = a
        brole[t] = r


cdef int _decode(const float* s, int n, int L, const int* spans, int m, double penalty,
                 const Roles* ro, int pred, double* best, int* bstart, int* brole, double* cum,
                 double* top, int* top_start, int* out) noexcept nogil:
    cdef int R = ro.R
    cdef int t, u, r, a, k, lab_i
    cdef double acc, entry
    cdef bint priced = isfinite(penalty)  # segments off the allowed spans are possible
    if n == 0:
        return _OK
    acc = 0.0
    for t in range(n * L):
        acc += s[t]
    if not isfinite(acc):  # inf and NaN both survive the sum
        return _NONFINITE
    # cum[t * R + r] = sum of s[u, I-X_r] over u < t (0 for roles without I-X).
    for r in range(R):
        cum[r] = 0.0
        top[r] = -INFINITY
        top_start[r] = -1
    for t in range(n):
        for r in range(R):
            lab_i = ro.bi[2 * r + 1]
            cum[(t + 1) * R + r] = cum[t * R + r] + (s[t * L + lab_i] if lab_i >= 0 else 0.0)
    best[0] = 0.0
    k = 0
    for t in range(1, n + 1):
        # Candidates are offered in any order (_offer settles ties): bstart[t] = t stands for O.
        best[t] = -INFINITY
        bstart[t] = t
        brole[t] = -1
        if t - 1 != pred:
            best[t] = best[t - 1] + s[(t - 1) * L + ro.outside]
        # The single word t-1 (every one is allowed).
        a = t - 1
        if best[a] != -INFINITY:
            for r in range(R):
                if _allowed_role(ro, pred, a, r):
                    _offer(_value(s, L, ro, cum, best, a, t, r, 0.0), a, r, t, best, bstart, brole)
        # The allowed spans of two or more words ending at t, at no cost.
        while k < m and spans[2 * k + 1] == t:
            a = spans[2 * k]
            k += 1
            if (pred >= 0 and a < pred < t) or best[a] == -INFINITY:
                continue  # the predicate's word may only start a segment
            for r in range(R):
                if ro.bi[2 * r + 1] < 0 or not _allowed_role(ro, pred, a, r):
                    continue
                _offer(_value(s, L, ro, cum, best, a, t, r, 0.0), a, r, t, best, bstart, brole)
        if priced:
            # Every start a <= t-2 at the penalty: top[r] is the best entry
            # best[a] + s[a, B-X_r] - cum[a+1, X_r] over them (ties: the later start).
            a = t - 2
            if a >= 0 and best[a] != -INFINITY:
                for r in range(R):
                    if ro.bi[2 * r + 1] < 0 or not _allowed_role(ro, pred, a, r):
                        continue
                    entry = best[a] + s[a * L + ro.bi[2 * r]] - cum[(a + 1) * R + r]
                    if entry >= top[r]:
                        top[r] = entry
                        top_start[r] = a
            if pred >= 0 and t == pred + 1:
                for r in range(R):  # from here on no segment may start before the predicate
                    top[r] = -INFINITY
                    top_start[r] = -1
            for r in range(R):
                a = top_start[r]
                if a < 0:
                    continue
                _offer(_value(s, L, ro, cum, best, a, t, r, penalty), a, r, t, best, bstart, brole)
        if bstart[t] == t:
            bstart[t] = -1
    if best[n] == -INFINITY:
        return _INFEASIBLE
    t = n
    while t > 0:
        a = bstart[t]
        if a < 0:
            out[t - 1] = ro.outside
            t -= 1
            continue
        r = brole[t]
        out[a] = ro.bi[2 * r]
        for u in range(a + 1, t):
            out[u] = ro.bi[2 * r + 1]
        t = a
    return _OK


def span_viterbi_batch(list scores, list spans, double penalty, const int[:, ::1] roles, int outside,
                       int v_role, const int[::1] predicates):
    """Decode validated sentences in one GIL-free loop.

    scores: C-contiguous float32 [n, L]; spans: C-contiguous int32 [m, 2], the allowed spans of
    two or more words, sorted by end; penalty: what a segment of two
    or more words off them costs (inf: none is possible); roles: int32 [R, 2] (B index, I index
    or -1); outside: index of O; v_role: row of V in roles (-1 if none); predicates: int32 [B],
    -1 for none. Returns (labels, status): a list of int32 [n] arrays and int32 [B] status codes.
    """
    cdef Py_ssize_t B = len(scores)
    cdef Py_ssize_t b
    cdef int max_n = 0
    cdef int R = roles.shape[0]
    cdef Roles ro
    ro.R = R
    ro.bi = &roles[0, 0] if R > 0 else NULL
    ro.outside = outside
    ro.v_role = v_role
    cdef const float** in_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef const int** span_p = <const int**>malloc(max(B, 1) * sizeof(int*))
    cdef int** out_p = <int**>malloc(max(B, 1) * sizeof(int*))
    cdef int* dims = <int*>malloc(max(B, 1) * 3 * sizeof(int))
    cdef double* best = NULL
    cdef double* cum = NULL
    cdef double* top = NULL
    cdef int* top_start = NULL
    cdef int* bstart = NULL
    cdef int* brole = NULL
    cdef cnp.ndarray arr
    if in_p == NULL or span_p == NULL or out_p == NULL or dims == NULL:
        free(in_p); free(span_p); free(out_p); free(dims)
        raise MemoryError()
    status = np.zeros(B, dtype=np.int32)
    cdef int[::1] status_v = status
    labels = []
    try:
        for b in range(B):
            arr = scores[b]
            in_p[b] = <const float*>cnp.PyArray_DATA(arr)
            dims[3 * b] = arr.shape[0]
            dims[3 * b + 1] = arr.shape[1]
            max_n = max(max_n, dims[3 * b])
            arr = spans[b]
            span_p[b] = <const int*>cnp.PyArray_DATA(arr)
            dims[3 * b + 2] = arr.shape[0]
            out = np.empty(dims[3 * b], dtype=np.int32)
            out_p[b] = <int*>cnp.PyArray_DATA(<cnp.ndarray>out)
            labels.append(out)
        best = <double*>malloc((max_n + 1) * sizeof(double))
        cum = <double*>malloc((max_n + 1) * max(R, 1) * sizeof(double))
        top = <double*>malloc(max(R, 1) * sizeof(double))
        top_start = <int*>malloc(max(R, 1) * sizeof(int))
        bstart = <int*>malloc((max_n + 1) * sizeof(int))
        brole = <int*>malloc((max_n + 1) * sizeof(int))
        if best == NULL or cum == NULL or top == NULL or top_start == NULL or bstart == NULL or brole == NULL:
            raise MemoryError()
        with nogil:
            for b in range(B):
                status_v[b] = _decode(in_p[b], dims[3 * b], dims[3 * b + 1], span_p[b], dims[3 * b + 2],
                                      penalty, &ro, predicates[b], best, bstart, brole, cum, top,
                                      top_start, out_p[b])
    finally:
        free(in_p); free(span_p); free(out_p); free(dims)
        free(best); free(cum); free(top); free(top_start); free(bstart); free(brole)
    return labels, status
