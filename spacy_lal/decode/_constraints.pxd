# cython: language_level=3
"""Constraint spans as `_cky` and `_joint` index them (rows (start, end, required) of int32).

Crossing is then tested in O(1) per span (i, j) from the largest end of a constraint starting
strictly inside it and the smallest start of one ending strictly inside it.
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
