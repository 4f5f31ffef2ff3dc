# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Maximum spanning arborescence (Chu-Liu-Edmonds) with exactly one dependent of the root, O(n^2).

Inputs are validated by `spacy_lal.decode.chu_liu_edmonds_batch`; this module trusts them
(C-contiguous float32 [n+1, n+1], scores[d, h] = score of head h for dependent d, 0 = root).

Algorithm: Tarjan's dense O(n^2) contraction phase with Camerini et al.'s (1979) expansion.
A path is grown by following best incoming edges; when it closes a cycle, the cycle is contracted
into a supernode whose incoming weights are reweighted (w(u -> v) - w(best edge into v)), and the
path goes on from the supernode. Each contraction costs O(cycle size * n) and at most 2n nodes are
ever on the path, hence O(n^2). The contraction tree then lets the expansion recover the
arborescence in O(n).

Single root: weigh every arc by the pair (-[head is the root], score), ordered lexicographically.
That is a totally ordered abelian group, over which Edmonds' algorithm stays exact, and its optimum
is the best tree among those with the fewest (= one) root dependents. Cycles never contain the root,
so reweighting never changes the first component: in practice, a node takes a root arc only when no
other node is left to take an arc from, i.e. the contraction runs until one supernode remains, and
that supernode takes the best (reweighted) root arc. Compare Zmigrod, Vieira and Cotterell (2020),
"Please Mind the Root".
"""
cimport numpy as cnp
from libc.math cimport INFINITY, isfinite
from libc.stdlib cimport free, malloc

from ._tree_batch cimport decode_tree_batch

import numpy as np

cnp.import_array()

OK = 0
NONFINITE = 1

cdef enum:
    _OK = 0
    _NONFINITE = 1


cdef struct Workspace:
    double* W              # W[v * N + u]: reweighted best arc from supernode u into supernode v
    int* E                 # E[v * N + u]: that arc in the original graph, coded dependent * N + head
    double* in_w           # in_w[v]: weight of the arc supernode v took (in its own frame)
    int* slot_node         # slot_node[v]: contraction-tree node now held by matrix slot v
    unsigned char* active  # slot holds a live supernode
    unsigned char* on_path
    unsigned char* in_cycle
    int* path
    # Contraction tree: nodes 1..n are the words, n+1.. the supernodes (at most 2n nodes in all).
    int* in_edge           # arc chosen by the node while it was on the path
    int* parent
    int* first_child
    int* next_sibling
    unsigned char* deleted
    int* stack


cdef int _alloc(void* workspace, int N) noexcept nogil:
    cdef Workspace* ws = <Workspace*>workspace
    ws.W = <double*>malloc(N * N * sizeof(double))
    ws.E = <int*>malloc(N * N * sizeof(int))
    ws.in_w = <double*>malloc(N * sizeof(double))
    ws.slot_node = <int*>malloc(N * sizeof(int))
    ws.active = <unsigned char*>malloc(N)
    ws.on_path = <unsigned char*>malloc(N)
    ws.in_cycle = <unsigned char*>malloc(N)
    ws.path = <int*>malloc(N * sizeof(int))
    ws.in_edge = <int*>malloc(2 * N * sizeof(int))
    ws.parent = <int*>malloc(2 * N * sizeof(int))
    ws.first_child = <int*>malloc(2 * N * sizeof(int))
    ws.next_sibling = <int*>malloc(2 * N * sizeof(int))
    ws.deleted = <unsigned char*>malloc(2 * N)
    ws.stack = <int*>malloc(2 * N * sizeof(int))
    return (ws.W == NULL or ws.E == NULL or ws.in_w == NULL or ws.slot_node == NULL
            or ws.active == NULL or ws.on_path == NULL or ws.in_cycle == NULL or ws.path == NULL
            or ws.in_edge == NULL or ws.parent == NULL or ws.first_child == NULL
            or ws.next_sibling == NULL or ws.deleted == NULL or ws.stack == NULL)


cdef void _free(void* workspace) noexcept nogil:
    cdef Workspace* ws = <Workspace*>workspace
    free(ws.W)
    free(ws.E)
    free(ws.in_w)
    free(ws.slot_node)
    free(ws.active)
    free(ws.on_path)
    free(ws.in_cycle)
    free(ws.path)
    free(ws.in_edge)
    free(ws.parent)
    free(ws.first_child)
    free(ws.next_sibling)
    free(ws.deleted)
    free(ws.stack)


cdef int _cle(const float* s, int n, void* workspace, long long* heads) noexcept nogil:
    cdef Workspace* ws = <Workspace*>workspace
    cdef int N = n + 1
    cdef int u, v, x, c, k, cur, best_u, rep, start, plen, n_active, n_nodes, node, prev, sp, e
    cdef int be
    cdef double acc, m, w, bw
    cdef double* W = ws.W
    cdef int* E = ws.E
    heads[0] = -1
    if n == 0:
        return _OK
    acc = 0.0
    for v in range(1, N):
        for u in range(N):
            if u != v:
                W[v * N + u] = s[v * N + u]
                acc += s[v * N + u]
                E[v * N + u] = v * N + u
    if not isfinite(acc):  # inf and NaN both survive the sum
        return _NONFINITE
    for v in range(N):
        ws.on_path[v] = 0
        ws.in_cycle[v] = 0
    ws.active[0] = 0  # the root is never a candidate head on the path (see module docstring)
    for v in range(1, N):
        ws.active[v] = 1
        ws.slot_node[v] = v
    for v in range(2 * N):
        ws.parent[v] = -1
        ws.first_child[v] = -1
        ws.next_sibling[v] = -1

    # Contraction phase.
    n_active = n
    n_nodes = N
    cur = 1
    plen = 0
    while n_active > 1:
        m = -INFINITY
        best_u = -1
        for u in range(1, N):
            if ws.active[u] and u != cur and W[cur * N + u] > m:
                m = W[cur * N + u]
                best_u = u
        ws.in_w[cur] = m
        ws.in_edge[ws.slot_node[cur]] = E[cur * N + best_u]
        ws.path[plen] = cur
        plen += 1
        ws.on_path[cur] = 1
        if not ws.on_path[best_u]:
            cur = best_u
            continue
        # The path closed a cycle: path[start:plen], from best_u up to cur. Contract it into
        # slot `rep` under a new contraction-tree node.
        start = plen - 1
        while ws.path[start] != best_u:
            start -= 1
        rep = best_u
        node = n_nodes
        n_nodes += 1
        for k in range(start, plen):
            c = ws.path[k]
            ws.in_cycle[c] = 1
            ws.parent[ws.slot_node[c]] = node
            ws.next_sibling[ws.slot_node[c]] = ws.first_child[node]
            ws.first_child[node] = ws.slot_node[c]
        for x in range(N):
            if ws.in_cycle[x] or not (x == 0 or ws.active[x]):
                continue
            # Into the cycle: best reweighted arc from x into any member.
            bw = -INFINITY
            be = -1
            for k in range(start, plen):
                c = ws.path[k]
                w = W[c * N + x] - ws.in_w[c]
                if w > bw:
                    bw = w
                    be = E[c * N + x]
            W[rep * N + x] = bw
            E[rep * N + x] = be
            if x == 0:
                continue
            # Out of the cycle: best arc from any member into x (no reweighting).
            bw = -INFINITY
            be = -1
            for k in range(start, plen):
                c = ws.path[k]
                if W[x * N + c] > bw:
                    bw = W[x * N + c]
                    be = E[x * N + c]
            W[x * N + rep] = bw
            E[x * N + rep] = be
        for k in range(start, plen):
            c = ws.path[k]
            ws.in_cycle[c] = 0
            ws.on_path[c] = 0
            if c != rep:
                ws.active[c] = 0
        n_active -= plen - start - 1
        plen = start
        ws.slot_node[rep] = node
        cur = rep
    # One supernode (or word) is left; it takes the best root arc into it.
    ws.in_edge[ws.slot_node[cur]] = E[cur * N]

    # Expansion (Camerini et al.): applying a node's arc, which enters word d, dissolves every
    # contraction-tree node on the way up from d; the other children of those nodes then apply
    # their own arcs.
    for v in range(n_nodes):
        ws.deleted[v] = 0
    ws.stack[0] = ws.slot_node[cur]
    sp = 1
    while sp > 0:
        sp -= 1
        e = ws.in_edge[ws.stack[sp]]
        v = e // N
        heads[v] = e % N
        prev = -1
        node = v
        while node != -1 and not ws.deleted[node]:
            ws.deleted[node] = 1
            c = ws.first_child[node]
            while c != -1:
                if c != prev:
                    ws.stack[sp] = c
                    sp += 1
                c = ws.next_sibling[c]
            prev = node
            node = ws.parent[node]
    return _OK


def chu_liu_edmonds_batch(list scores):
    """Decode validated C-contiguous float32 [n+1, n+1] matrices in one GIL-free loop.

    Returns (heads, status): a list of int64 [n+1] arrays and int32 [B] status codes.
    """
    cdef Workspace ws
    return decode_tree_batch(scores, _cle, &ws, _alloc, _free)
