# cython: language_level=3
"""SSE2 for the C kernels of `_cky`, `_joint` and `_span_labels`: it is the x86-64 baseline, so
the kernels need no -march flag, and they fall back to plain C elsewhere (LAL_SSE2 undefined).
Cimporting this module puts the block below ahead of the kernels' own."""

cdef extern from *:
    """
    #ifndef LAL_SIMD_H
    #define LAL_SIMD_H
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    #define LAL_SSE2 1
    #endif
    #endif
    """
