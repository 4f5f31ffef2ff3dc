# cython: language_level=3
"""Constraint spans as `_cky` and `_joint` index them (rows (start, end, required) of int32).

A constraint span (a, b) crosses a span (i, j) when i < a < j < b or a < i < b < j. Crossing is
tested in O(1) per span (i, j) from the largest end of a constraint starting strictly inside it
and the smallest start of one ending strictly inside it, both carried along a row of the chart
(`crossed`), so marking the spans that no tree may use costs O(n^2) on top of the chart pass.
"""


cdef inline void index_constraints(const int* cons, int n_cons, int N, int* max_end,
                                   int* min_start, unsigned char* required) noexcept nogil:
    """max_end[a]: largest end of a constraint starting at a (-1 if none); min_start[b]:
    smallest start of one ending at b (N if none); required[a * N + b]: (a, b) must be
    labelled. Arrays of N, N and N * N entries."""
    cdef int a, b, k
    for a in range(N):
        max_end[a] = -1
        min_start[a] = N
    for k in range(N * N):
        required[k] = 0
    for k in range(n_cons):
        a = cons[3 * k]
        b = cons[3 * k + 1]
        if b > max_end[a]:
            max_end[a] = b
        if a < min_start[b]:
            min_start[b] = a
        if cons[3 * k + 2]:
            required[a * N + b] = 1


cdef inline bint crossed(const int* max_end, const int* min_start, int i, int j,
                         int* inner_end, int* inner_start) noexcept nogil:
    """Whether a constraint span crosses (i, j), for the spans of row i taken in order, j = i + 1,
    i + 2, ...: *inner_end and *inner_start start the row at -1 and N and carry the largest end /
    smallest start of the constraints starting / ending strictly inside (i, j) from one j to the
    next (so the row costs O(1) per span rather than O(j - i))."""
    if j > i + 1:
        if max_end[j - 1] > inner_end[0]:
            inner_end[0] = max_end[j - 1]
        if min_start[j - 1] < inner_start[0]:
            inner_start[0] = min_start[j - 1]
    return inner_end[0] > j or inner_start[0] < i
