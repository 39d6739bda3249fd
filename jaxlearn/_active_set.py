"""LIBLINEAR's active set for the dual coordinate descents: a permutation of the coordinates with the
active ones first, visited in a random order, the ones shrunk moved behind them.

An epoch walks positions ``s = 0, 1, ...`` of the first ``n`` entries of ``index``. At each step the
next coordinate is drawn uniformly among the ones not yet visited (a Fisher-Yates swap into position
``s``, by Marsaglia's xorshift generator), so no permutation of all the coordinates is drawn or
sorted at the start of an epoch; a coordinate shrunk trades places with the last active one, and
the active count ``n`` drops by one (Hsieh et al. 2008, section 3; LIBLINEAR's ``solve_l2r_l1l2_svc``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array


def epoch_seed(key: Array, epoch: Array) -> Array:
    """A nonzero 32-bit state for :func:`draw_next`, from ``key`` and the epoch's number."""
    return jax.random.bits(jax.random.fold_in(key, epoch), dtype=jnp.uint32) | 1


def draw_next(index: Array, s: Array, n: Array, bits: Array):
    """Swap a uniformly drawn entry of ``index[s:n]`` into position ``s``; returns ``(index, the
    coordinate now at s, the generator's next state)``."""
    bits = bits ^ (bits << 13)
    bits = bits ^ (bits >> 17)
    bits = bits ^ (bits << 5)
    j = s + (bits % (n - s).astype(jnp.uint32)).astype(jnp.int32)
    i, other = index[j], index[s]
    return index.at[j].set(other).at[s].set(i), i, bits


def retire(index: Array, s: Array, n: Array, shrunk: Array):
    """After the visit of ``index[s]``: a coordinate shrunk trades places with the last active one
    (position ``n - 1``) and ``n`` drops by one, else the walk moves on to ``s + 1``. Returns
    ``(index, s, n)``."""
    i, last = index[s], index[n - 1]
    index = index.at[s].set(jnp.where(shrunk, last, i)).at[n - 1].set(jnp.where(shrunk, i, last))
    return index, s + (~shrunk).astype(jnp.int32), n - shrunk.astype(jnp.int32)


def first(movable: Array):
    """The starting ``(index, n)``: the coordinates that can move first, in their order."""
    return jnp.argsort(~movable, stable=True).astype(jnp.int32), jnp.sum(movable, dtype=jnp.int32)
