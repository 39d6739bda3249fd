"""The per-feature preprocessing of a fit: stable sorted orders (exact thresholds) and quantile bins."""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array


def presort(X: Array) -> Array:
    """Each feature's stable sorting permutation, (d, m) int32 (equal values keep their order).

    float32 samples of up to :math:`2^{20}` examples are sorted by a least-significant-digit radix
    sort on the order-preserving integer image of the floats: each pass is a one-operand sort of
    int32 keys (digit, current position), which XLA's CPU sort runs several times faster than the
    two-operand sort behind ``argsort``. Other samples use ``jnp.argsort``.
    """
    m = X.shape[0]
    if X.dtype != jnp.float32 or m > 2**20:
        return jnp.argsort(X.T, axis=1, stable=True).astype(jnp.int32)
    bits = max(1, (m - 1).bit_length())
    digit_bits = 31 - bits
    ints = jax.lax.bitcast_convert_type(jnp.where(X.T == 0, 0, X.T).astype(jnp.float32), jnp.int32)
    flipped = jnp.where(ints < 0, ~ints, ints | jnp.int32(-(2**31)))  # order-preserving, as uint32
    keys = jax.lax.bitcast_convert_type(flipped, jnp.uint32)
    positions = jnp.broadcast_to(jnp.arange(m, dtype=jnp.int32), keys.shape)
    perm = positions
    for shift in range(0, 32, digit_bits):  # a static, short loop over the digits (2-3 passes)
        digit = (
            (jnp.take_along_axis(keys, perm, axis=1) >> shift) & ((1 << digit_bits) - 1)
        ).astype(jnp.int32)
        ranked = jnp.sort((digit << bits) | positions, axis=1) & ((1 << bits) - 1)
        perm = jnp.take_along_axis(perm, ranked, axis=1)
    return perm


def bin_features(X: Array, max_bins: int) -> tuple[Array, Array]:
    """Quantile bins: ``(bins, edges)``, (m, d) int32 bin indices in ``0..max_bins-1`` and the
    (max_bins, d) upper edges (per-feature quantiles of ``X``, values present in ``X``).

    A value goes to the first bin whose upper edge is at least the value; of equal edges only the
    first is ever used, so the used bins of a feature have strictly increasing edges.
    """
    qs = jnp.linspace(0, 1, max_bins + 1, dtype=X.dtype)[1:]
    edges = jnp.quantile(X, qs, axis=0, method="higher")  # (max_bins, d), values present in X

    def one(column, edge):
        return jnp.clip(jnp.searchsorted(edge, column, side="left"), 0, max_bins - 1).astype(
            jnp.int32
        )

    return jax.vmap(one, in_axes=(1, 1), out_axes=1)(X, edges), edges


def quantize(X: Array, max_bins: int) -> Array:
    """Each value replaced by the upper edge of its quantile bin (at most ``max_bins`` per feature)."""
    bins, edges = bin_features(X, max_bins)
    return jnp.take_along_axis(edges, bins, axis=0)
