# cython: language_level=3
"""The two inner loops of `_joint`'s search as C kernels: SSE2 (`_simd`), a plain C fallback
elsewhere; the comment below says why and how."""
from . cimport _simd

cdef extern from *:
    """
    #include <math.h>

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
