# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""BIO decoding (constrained Viterbi, and per-token argmax with repair).

Inputs are validated by `spacy_lal.decode`; this module trusts them (C-contiguous float32 [n, L]
scores and the int32 tables of a `BIOScheme`).

The BIO constraints make Viterbi O(n L) instead of O(n L^2): O and B-X may follow any label, so
they all share the best previous score, and I-X may only follow B-X or I-X.

`bio_unique` adds roles that may start at most once (core roles, He et al. 2017, sec. 3.3): its
states are (roles started so far, label), 2^k L of them for k such roles, at O(n 2^k L).
"""
cimport numpy as cnp
from libc.math cimport INFINITY, isfinite
from libc.stdlib cimport free, malloc

import numpy as np

cnp.import_array()

OK = 0
NONFINITE = 1
INFEASIBLE = 2
# Label kinds in BIOScheme.kinds.
KIND_O = 0
KIND_B = 1
KIND_I = 2

cdef enum:
    _OK = 0
    _NONFINITE = 1
    _INFEASIBLE = 2
    _KIND_I = 2


cdef struct Scheme:
    int L
    const int* kind     # KIND_O, KIND_B or KIND_I per label
    const int* begin    # begin[l]: for I-X, the index of B-X (-1 if the scheme lacks it)
    int outside         # index of O
    int b_v             # index of B-V, -1 if none
    int i_v             # index of I-V, -1 if none


cdef int _viterbi(const float* s, int n, const Scheme* sc, int pred,
                  double* prev, double* cur, int* bp, int* out) noexcept nogil:
    """BIO Viterbi: `_viterbi_unique` without unique roles (one role set, M = 1)."""
    cdef int t
    cdef double acc = 0.0
    cdef double best_m
    cdef int arg_m
    for t in range(n * sc.L):
        acc += s[t]
    if not isfinite(acc):  # inf and NaN both survive the sum
        return _NONFINITE
    return _viterbi_unique(s, n, sc, pred, NULL, 0, prev, cur, &best_m, &arg_m, bp, out)


cdef int _viterbi_unique(const float* s, int n, const Scheme* sc, int pred, const int* bit, int n_bits,
                         double* prev, double* cur, double* best_m, int* arg_m, int* bp, int* out) noexcept nogil:
    """Viterbi over states (m, l): m the set (bit mask) of unique roles started so far, l the
    label. B-X of a unique role X (bit[l] >= 0; bit NULL: no unique roles) may only come from a
    state without X and adds it; every other label keeps m. O and B-X share each m's best
    previous score, I-X follows B-X or I-X (ties to B-X): O(n M L). prev, cur: [M L]; best_m,
    arg_m: [M]; bp: [n M L], the previous state m L + l of each state. Scores are finite."""
    cdef int L = sc.L
    cdef int M = 1 << n_bits
    cdef int t, l, b, k, m, x, state, am
    cdef double best
    cdef double* tmp
    cdef const float* row
    if n == 0:
        return _OK
    for t in range(M * L):
        prev[t] = -INFINITY
    for l in range(L):
        if sc.kind[l] == _KIND_I or (pred >= 0 and (l == sc.b_v) != (pred == 0)):
            continue
        prev[((1 << bit[l]) if bit != NULL and bit[l] >= 0 else 0) * L + l] = s[l]
    for t in range(1, n):
        row = s + t * L
        for m in range(M):
            best_m[m] = -INFINITY
            arg_m[m] = 0
            for l in range(L):
                if prev[m * L + l] > best_m[m]:
                    best_m[m] = prev[m * L + l]
                    arg_m[m] = l
        for m in range(M):
            for l in range(L):
                state = m * L + l
                if sc.kind[l] == _KIND_I:
                    best = prev[state]
                    k = l
                    b = sc.begin[l]
                    if b >= 0 and prev[m * L + b] >= best:
                        best = prev[m * L + b]
                        k = b
                    cur[state] = best + row[l]
                    bp[t * M * L + state] = m * L + k
                elif bit != NULL and bit[l] >= 0:
                    x = 1 << bit[l]
                    if m & x:
                        cur[state] = best_m[m ^ x] + row[l]
                        bp[t * M * L + state] = (m ^ x) * L + arg_m[m ^ x]
                    else:
                        cur[state] = -INFINITY
                        bp[t * M * L + state] = 0
                else:
                    cur[state] = best_m[m] + row[l]
                    bp[t * M * L + state] = m * L + arg_m[m]
            if pred >= 0:
                if t == pred:
                    for l in range(L):
                        if l != sc.b_v:
                            cur[m * L + l] = -INFINITY
                else:
                    cur[m * L + sc.b_v] = -INFINITY
        tmp = prev
        prev = cur
        cur = tmp
    best = -INFINITY
    am = -1
    for state in range(M * L):
        if prev[state] > best:
            best = prev[state]
            am = state
    if am < 0:
        return _INFEASIBLE
    for t in range(n - 1, -1, -1):
        out[t] = am % L
        if t > 0:
            am = bp[t * M * L + am]
    return _OK


cdef void _repair(int* labels, int n, const Scheme* sc, int pred) noexcept nogil:
    """Make a label sequence valid in place (see `spacy_lal.decode.repair_bio`)."""
    cdef int t, l, p, b
    for t in range(n):
        l = labels[t]
        p = labels[t - 1] if t > 0 else -1
        if pred >= 0 and t == pred:
            l = sc.b_v
        elif pred >= 0 and l == sc.b_v:
            l = sc.outside  # only the predicate starts a V span
        elif pred >= 0 and l == sc.i_v and l >= 0:
            if p != sc.b_v and p != sc.i_v:
                l = sc.outside  # a V span that does not grow out of the predicate
        elif sc.kind[l] == _KIND_I:
            b = sc.begin[l]
            if t == 0 or (p != l and p != b):  # (p = -1 at t = 0 may equal a missing b)
                # conlleval reads an I-X that does not continue X as the start of a new X.
                l = b if b >= 0 else sc.outside
        labels[t] = l


cdef int _argmax(const float* s, int n, const Scheme* sc, int pred, int* out) noexcept nogil:
    cdef int L = sc.L
    cdef int t, l, am
    cdef double acc = 0.0
    cdef float m
    cdef const float* row
    for t in range(n):
        row = s + t * L
        m = row[0]
        am = 0
        for l in range(L):
            acc += row[l]
            if row[l] > m:
                m = row[l]
                am = l
        out[t] = am
    if not isfinite(acc):
        return _NONFINITE
    _repair(out, n, sc, pred)
    return _OK


cdef int _set_scheme(Scheme* sc, tuple scheme) except -1:
    cdef cnp.ndarray kind = scheme[0]
    cdef cnp.ndarray begin = scheme[1]
    sc.L = kind.shape[0]
    sc.kind = <const int*>cnp.PyArray_DATA(kind)
    sc.begin = <const int*>cnp.PyArray_DATA(begin)
    sc.outside = scheme[2]
    sc.b_v = scheme[3]
    sc.i_v = scheme[4]
    return 0


def bio_batch(list scores, tuple scheme, const int[::1] predicates, bint viterbi):
    """Decode validated C-contiguous float32 [n, L] score matrices in one GIL-free loop.

    scheme: (kinds int32 [L], begin int32 [L], outside, b_v, i_v) from `BIOScheme.tables`;
    predicates: int32 [B], -1 for none. viterbi: constrained Viterbi, else argmax + repair.
    Returns (labels, status): a list of int32 [n] arrays and int32 [B] status codes.
    """
    cdef Py_ssize_t B = len(scores)
    cdef Py_ssize_t b
    cdef int max_n = 0
    cdef cnp.ndarray arr
    cdef Scheme sc
    _set_scheme(&sc, scheme)
    cdef const float** in_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef int** out_p = <int**>malloc(max(B, 1) * sizeof(int*))
    cdef int* ns = <int*>malloc(max(B, 1) * sizeof(int))
    cdef double* prev = NULL
    cdef double* cur = NULL
    cdef int* bp = NULL
    if in_p == NULL or out_p == NULL or ns == NULL:
        free(in_p); free(out_p); free(ns)
        raise MemoryError()
    status = np.zeros(B, dtype=np.int32)
    cdef int[::1] status_v = status
    labels = []
    try:
        for b in range(B):
            arr = scores[b]
            in_p[b] = <const float*>cnp.PyArray_DATA(arr)
            ns[b] = arr.shape[0]
            max_n = max(max_n, ns[b])
            out = np.empty(ns[b], dtype=np.int32)
            out_p[b] = <int*>cnp.PyArray_DATA(<cnp.ndarray>out)
            labels.append(out)
        prev = <double*>malloc(sc.L * sizeof(double))
        cur = <double*>malloc(sc.L * sizeof(double))
        bp = <int*>malloc(max(max_n, 1) * sc.L * sizeof(int))
        if prev == NULL or cur == NULL or bp == NULL:
            raise MemoryError()
        with nogil:
            for b in range(B):
                if viterbi:
                    status_v[b] = _viterbi(in_p[b], ns[b], &sc, predicates[b], prev, cur, bp,
                                           out_p[b])
                else:
                    status_v[b] = _argmax(in_p[b], ns[b], &sc, predicates[b], out_p[b])
    finally:
        free(in_p); free(out_p); free(ns); free(prev); free(cur); free(bp)
    return labels, status


def bio_unique(cnp.ndarray scores, tuple scheme, int predicate, cnp.ndarray bits, int n_bits):
    """Constrained Viterbi of one validated (and `bio_batch`-decoded, so finite) C-contiguous
    float32 [n, L] score matrix in which the
    roles of ``bits`` (int32 [L]: the role's bit for its B- label, else -1; ``n_bits`` of them)
    start at most once. Returns (labels int32 [n], status)."""
    cdef Scheme sc
    _set_scheme(&sc, scheme)
    cdef int n = scores.shape[0]
    cdef int L = sc.L
    cdef int M = 1 << n_bits
    out = np.empty(n, dtype=np.int32)
    cdef double* prev = <double*>malloc(M * L * sizeof(double))
    cdef double* cur = <double*>malloc(M * L * sizeof(double))
    cdef double* best_m = <double*>malloc(M * sizeof(double))
    cdef int* arg_m = <int*>malloc(M * sizeof(int))
    cdef int* bp = <int*>malloc(max(n, 1) * M * L * sizeof(int))
    cdef const float* s = <const float*>cnp.PyArray_DATA(scores)
    cdef const int* b = <const int*>cnp.PyArray_DATA(bits)
    cdef int* o = <int*>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef int status
    try:
        if prev == NULL or cur == NULL or best_m == NULL or arg_m == NULL or bp == NULL:
            raise MemoryError()
        with nogil:
            status = _viterbi_unique(s, n, &sc, predicate, b, n_bits, prev, cur, best_m, arg_m, bp, o)
    finally:
        free(prev); free(cur); free(best_m); free(arg_m); free(bp)
    return out, status


def repair(int[::1] labels, tuple scheme, int predicate):
    """Repair a validated int32 label sequence in place (see `spacy_lal.decode.repair_bio`)."""
    cdef Scheme sc
    _set_scheme(&sc, scheme)
    with nogil:
        _repair(&labels[0] if labels.shape[0] > 0 else NULL, labels.shape[0], &sc, predicate)
