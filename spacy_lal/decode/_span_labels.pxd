# cython: language_level=3
"""The value and the label of a span's best admissible label, as `_cky` and `_joint` read a chart
row p[0:L] (label 0 the empty label, scored 0 whatever p[0] holds).

The tree score decomposes over spans and a span's label does not interact with its split (nor,
in `_joint`, with its head), so the cores first take each span's best label value, fusing in the
NaN/inf check, and look the label itself up only for the 2n - 1 spans of the best tree.

The kernels are exact: max is the IEEE comparison the scalar code makes, finiteness is tested with
x - x == 0 (0 for finite x, NaN otherwise), and indices are found in a second pass as the first
element equal to the maximum, so ties go to the lowest index exactly as in a left-to-right scan
with strict `>`. So `span_label` returns the label whose value `span_value` returned.
"""
from . cimport _simd
from libc.math cimport INFINITY

cdef extern from *:
    """
    #include <math.h>

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
    """
    float lal_max(const float* p, int lo, int hi, int* ok) noexcept nogil
    int lal_find(const float* p, int lo, int hi, float m) noexcept nogil

# Decoding modes: the best tree, the best tree under a loss augmentation by the Hamming cost
# against a gold chart, or the gold tree itself.
cdef enum:
    ARGMAX = 0
    LOSS = 1
    FORCED = 2


cdef inline double span_value(const float* p, int L, int g, bint need, int mode,
                              int* ok) noexcept nogil:
    """Value of the best admissible label of a span (scores p[0:L], gold label g, 0 without gold;
    need: the span must be labelled) for the mode, clearing *ok if any of p[1:L] is NaN or
    infinite. `span_label` finds the label itself; both
    compute the candidates the same way, so the label's value is exactly this value."""
    cdef float m, m2
    cdef double val
    if mode == LOSS:
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
    if mode == FORCED:
        if g != 0:
            return p[g]
        return -INFINITY if need else 0.0
    if not need and m <= 0.0:
        return 0.0
    return m


cdef inline int span_label(const float* p, int L, int g, bint need, int mode) noexcept nogil:
    """The best admissible label of a span (finite scores): ties go to the lowest label, the
    empty one first; the label whose value `span_value` returns."""
    cdef int lab, k
    cdef int ok = 1
    cdef float m
    cdef double val
    if mode == FORCED:
        return g
    if mode == LOSS:
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
