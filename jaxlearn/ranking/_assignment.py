r"""A jittable exact solver of the linear assignment problem (UML section 17.4.1, (17.9)-(17.10)).

:func:`linear_sum_assignment` finds a permutation :math:`\sigma` minimising :math:`\sum_i C_{i,\sigma(i)}`
for a square real cost matrix ``C`` by the shortest augmenting path method (Jonker and Volgenant 1987,
in the form of Crouse 2016, the algorithm of ``scipy.optimize.linear_sum_assignment``): row by row, a
Dijkstra search over reduced costs :math:`C_{ij} - u_i - v_j \ge 0` finds the cheapest way to give the
new row a column, and the duals :math:`u, v` are updated so that every assigned edge stays tight. Each
of the :math:`r` searches scans at most :math:`r` columns at :math:`O(r)` each: :math:`O(r^3)`, exact
for real costs (the duals certify optimality, LP duality of (17.10)).

It is written in ``lax.while_loop`` loops with the same operations in the same order as SciPy's C++ (the
same row order, the same column scan order and the same tie rule), so from the empty start it returns
the assignment SciPy returns, bit for bit in float64; it runs inside ``jit``, ``vmap`` (a batch of
matrices waits for its longest search) and on any backend, with no host round trip. A warm start
(``start``: duals and a partial assignment on tight edges) leaves only its free rows to search:
:func:`jaxlearn.ranking.ndcg_loss_augmented` starts from the sorted scores.
"""

from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
from jax import lax

Array = jax.Array


def linear_sum_assignment(cost: Array, start: Optional[tuple] = None) -> Array:
    r"""The column :math:`\sigma(i)` of each row of a minimum-cost assignment of the ``(r, r)`` ``cost``.

    .. math:: \sigma \in \arg\min_{\sigma \in S_r} \sum_{i=1}^r C_{i,\sigma(i)}

    Among optimal assignments it returns the one ``scipy.optimize.linear_sum_assignment`` returns
    (``cost`` finite, floating; vmap for a batch).

    ``start``, optional, is a warm start ``(u, v, col4row)``: duals with :math:`C_{ij} - u_i - v_j \ge 0`
    and a partial assignment (``col4row[i] = -1`` for a free row) on edges where equality holds. Only
    the free rows are then searched (rows in increasing order), so a start close to the optimum costs
    a few Dijkstra steps instead of about :math:`r^2/4`; the result is still an optimal assignment, and
    SciPy's whenever the optimum is unique. ``None``: the empty start (all rows free, zero duals), which
    is SciPy's.

    Examples:
      >>> cost = jnp.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
      >>> linear_sum_assignment(cost).tolist()  # total 1 + 2 + 2 = 5
      [1, 0, 2]
    """
    cost = jnp.asarray(cost)
    if cost.ndim != 2 or cost.shape[0] != cost.shape[1] or cost.shape[0] == 0:
        raise ValueError(
            f"expected `cost` a square (r, r) matrix with r >= 1, got shape {cost.shape}"
        )
    if not jnp.issubdtype(cost.dtype, jnp.floating):
        raise TypeError(f"expected `cost` of a floating dtype, got {cost.dtype}")
    r, dtype = cost.shape[0], cost.dtype
    if start is None:
        zeros = jnp.zeros((r,), dtype)
        start = (zeros, zeros, jnp.full((r,), -1, jnp.int32))
    u0, v0, col4row0 = (jnp.asarray(x) for x in start)
    col4row0 = col4row0.astype(jnp.int32)
    inf = jnp.array(jnp.inf, dtype)
    columns = jnp.arange(r, dtype=jnp.int32)
    scan_order = columns[::-1]  # SciPy scans the columns r-1, ..., 0 (its `remaining` list)

    def search_and_augment(state):
        n, u, v, col4row, row4col, path = state
        row = lax.dynamic_index_in_dim(free_rows, n, keepdims=False)
        # under vmap the body also runs for finished matrices (then discarded): they must not search
        active = n < n_free

        def not_found(s):  # at most r steps: a NaN cost (no finite column) cannot loop forever
            return (s[-1] < 0) & active & (s[6] > 0)

        def scan(s):
            # one Dijkstra step from row i: relax the unscanned columns, scan the closest one
            i, min_val, dist, rows_seen, remaining, pos, n_left, path, _ = s
            rows_seen = rows_seen | (columns == i)
            left = pos >= 0
            reduced = min_val + lax.dynamic_index_in_dim(cost, i, keepdims=False)
            reduced = reduced - lax.dynamic_index_in_dim(u, i, keepdims=False) - v
            better = left & (reduced < dist)
            path = jnp.where(better, i, path)
            dist = jnp.where(better, reduced, dist)
            lowest = jnp.min(jnp.where(left, dist, inf))
            # SciPy's tie rule in its scan order: the last free column at the lowest distance, else the
            # first column at it. One key, unique per column, ranks the candidates (exact in floats).
            tie = left & (dist == lowest)
            posf = pos.astype(dtype)
            key = jnp.where(tie & (row4col < 0), r + posf, jnp.where(tie, (r - 1) - posf, -1))
            best = jnp.max(key)
            free = best >= r
            at = jnp.where(free, best - r, (r - 1) - best).astype(
                jnp.int32
            )  # its place in the scan order
            j = lax.dynamic_index_in_dim(remaining, at, keepdims=False)
            last = lax.dynamic_index_in_dim(remaining, n_left - 1, keepdims=False)
            remaining = lax.dynamic_update_index_in_dim(
                remaining, last, at, 0
            )  # SciPy's swap-remove
            pos = jnp.where(columns == last, at, pos)
            pos = jnp.where(columns == j, -1, pos)
            owner = lax.dynamic_index_in_dim(row4col, j, keepdims=False)
            i = jnp.where(free, i, owner)
            return (
                i,
                lowest,
                dist,
                rows_seen,
                remaining,
                pos,
                n_left - 1,
                path,
                jnp.where(free, j, -1),
            )

        start = (
            row,
            jnp.zeros((), dtype),
            jnp.full((r,), inf),
            jnp.zeros((r,), bool),
            scan_order,
            scan_order,  # pos[j]: the place of column j in `remaining` (-1 once scanned)
            jnp.int32(r),
            path,
            jnp.int32(-1),
        )
        _, min_val, dist, rows_seen, _, pos, _, path, sink = lax.while_loop(not_found, scan, start)
        # dual update: the new row, the rows and the columns the search reached
        cols_seen = pos < 0
        dist_of_row = dist[jnp.maximum(col4row, 0)]
        u = jnp.where(
            columns == row, u + min_val, jnp.where(rows_seen, u + (min_val - dist_of_row), u)
        )
        v = jnp.where(cols_seen, v - (min_val - dist), v)

        # augment along the path sink <- path[sink] <- its old column <- ... <- row
        def along(a):
            return a[0] & (a[1] < r)

        def flip(a):
            _, steps, j, col4row, row4col = a
            i = lax.dynamic_index_in_dim(path, j, keepdims=False)
            row4col = lax.dynamic_update_index_in_dim(row4col, i, j, 0)
            previous = lax.dynamic_index_in_dim(col4row, i, keepdims=False)
            col4row = lax.dynamic_update_index_in_dim(col4row, j, i, 0)
            return i != row, steps + 1, previous, col4row, row4col

        walk = (active & (sink >= 0), jnp.int32(0), sink, col4row, row4col)
        _, _, _, col4row, row4col = lax.while_loop(along, flip, walk)
        return n + 1, u, v, col4row, row4col, path

    minus_one = jnp.full((r,), -1, jnp.int32)
    matched = col4row0 >= 0
    row4col0 = minus_one.at[jnp.where(matched, col4row0, r)].set(columns, mode="drop")
    free_rows = jnp.argsort(matched, stable=True).astype(jnp.int32)  # the free rows first, in order
    n_free = jnp.sum(~matched).astype(jnp.int32)
    state = (jnp.int32(0), u0.astype(dtype), v0.astype(dtype), col4row0, row4col0, minus_one)
    return lax.while_loop(lambda s: s[0] < n_free, search_and_augment, state)[3]
