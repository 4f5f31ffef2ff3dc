# cython: language_level=3
"""The sentences of a batch of span charts as `_cky` and `_joint` read them, gathered under the GIL
before their GIL-free decoding loops."""
cimport numpy as cnp


cdef struct ChartSentence:
    const float* chart  # float32 [n + 1, n + 1, L]
    const int* cons     # n_cons (start, end, required) rows; NULL without constraints
    int* spans          # the result: 2n - 1 (start, end, label) rows
    int n
    int L
    int n_cons


cdef inline list chart_sentences(list charts, list constraints, ChartSentence* out, int* max_n):
    """Fill out[0:B] from validated C-contiguous float32 charts [n+1, n+1, L] and int32 [m, 3]
    constraint rows (or None), raising *max_n to the longest sentence. Returns the int32
    [2n - 1, 3] arrays that the `spans` pointers write into."""
    import numpy as np

    cdef Py_ssize_t s
    cdef cnp.ndarray arr
    spans = []
    for s in range(len(charts)):
        arr = charts[s]
        out[s].chart = <const float*>cnp.PyArray_DATA(arr)
        out[s].n = arr.shape[0] - 1
        out[s].L = arr.shape[2]
        max_n[0] = max(max_n[0], out[s].n)
        cons = constraints[s]
        if cons is None:
            out[s].cons = NULL
            out[s].n_cons = 0
        else:
            out[s].cons = <const int*>cnp.PyArray_DATA(<cnp.ndarray>cons)
            out[s].n_cons = (<cnp.ndarray>cons).shape[0]
        arr = np.empty((max(2 * out[s].n - 1, 0), 3), dtype=np.int32)
        out[s].spans = <int*>cnp.PyArray_DATA(arr)
        spans.append(arr)
    return spans
