# cython: language_level=3
"""The GIL-free batch loop shared by the tree decoders (_eisner, _mst).

A decoder module hands over its per-matrix decoder and its workspace's alloc/free as function
pointers over an opaque workspace (each casts the void* back to its own Workspace struct); the
workspace is sized once, for the longest sentence.
"""
cimport numpy as cnp
from libc.stdlib cimport free, malloc

ctypedef int (*decode_fn)(const float* scores, int n, void* ws, long long* heads) noexcept nogil
ctypedef int (*alloc_fn)(void* ws, int N) noexcept nogil
ctypedef void (*free_fn)(void* ws) noexcept nogil


cdef inline tuple decode_tree_batch(list scores, decode_fn decode, void* ws, alloc_fn alloc, free_fn release):
    """Decode validated C-contiguous float32 [n+1, n+1] matrices in one GIL-free loop.

    Returns (heads, status): a list of int64 [n+1] arrays and int32 [B] status codes.
    """
    import numpy as np

    cdef Py_ssize_t B = len(scores)
    cdef Py_ssize_t b
    cdef int max_n = 0
    cdef cnp.ndarray arr
    cdef const float** in_p = <const float**>malloc(max(B, 1) * sizeof(float*))
    cdef long long** out_p = <long long**>malloc(max(B, 1) * sizeof(long long*))
    cdef int* ns = <int*>malloc(max(B, 1) * sizeof(int))
    if in_p == NULL or out_p == NULL or ns == NULL:
        free(in_p); free(out_p); free(ns)
        raise MemoryError()
    status = np.zeros(B, dtype=np.int32)
    cdef int[::1] status_v = status
    heads = []
    try:
        for b in range(B):
            arr = scores[b]
            in_p[b] = <const float*>cnp.PyArray_DATA(arr)
            ns[b] = arr.shape[0] - 1
            max_n = max(max_n, ns[b])
            out = np.empty(ns[b] + 1, dtype=np.int64)
            out_p[b] = <long long*>cnp.PyArray_DATA(<cnp.ndarray>out)
            heads.append(out)
        if alloc(ws, max_n + 1):
            release(ws)
            raise MemoryError()
        with nogil:
            for b in range(B):
                status_v[b] = decode(in_p[b], ns[b], ws, out_p[b])
        release(ws)
    finally:
        free(in_p); free(out_p); free(ns)
    return heads, status
