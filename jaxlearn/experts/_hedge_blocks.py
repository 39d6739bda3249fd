r"""Hedge's exact block rule: the allocations of many rounds at once (``core.run``'s default path).

The allocation of round :math:`t` is a softmax of the cumulative losses before it,
:math:`v_t \propto v_{t_0} e^{-\eta (L_{t-1} - L_{t_0-1})}`, so a block of rounds needs partial sums, not a
loop of updates. Three layouts compute the same allocations (up to float rounding):

- :func:`direct`: every round of a short block at once, from the exclusive cumulative sums
  (:func:`earlier_rounds`), each row shifted by its own maximum;
- :func:`in_short_blocks`: :func:`direct` over blocks of 16 rounds, in a ``lax.scan``;
- :func:`chunked`: the block cut into ``C`` chunks of ``S`` consecutive rounds. One read of the losses
  gives each chunk's total, a scan over the ``C`` totals the allocation at each chunk's start, and a
  scan over the ``S`` rounds advances all chunks at once: a ``(C, n)`` slab of exponentials per step,
  large fused kernels that XLA spreads over the CPU's cores (a scan over short blocks keeps one core
  busy).

:func:`allocations` takes :func:`chunked` for one long stream over many actions (a slab of at least
:data:`MIN_SLAB_ENTRIES`), and :func:`in_short_blocks` for shorter or narrower streams and under
``jax.vmap`` (where the batch already fills the kernels and the short blocks stay in cache). Under a
``vmap`` over rates or starting weights on one stream (a sweep), the rate axis goes inside each round
(:func:`direct` of ``(k, n)`` log-weights): the stream is read once per block for all ``k`` rates, each
round's loss is one ``(k, n)`` by ``(n,)`` product, and the rows' shifts come from the block's start where
that is safe (:func:`shift_for_rates`). A custom batching rule makes the choice; a custom JVP
differentiates the one-stream layout, so ``jax.grad`` of a run with respect to ``eta`` works as through
plain JAX.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from jaxlearn.experts._common import normalize

Array = jax.Array

#: Rounds summed by plain additions inside a long block (:func:`earlier_rounds`).
GROUP = 8
#: Entries of the ``(C, n)`` slab of :func:`chunked` (2 MiB of float32): at n = 1,000, 400-500 chunks of
#: 200-250 rounds.
SLAB_ENTRIES = 2**19
#: The smallest slab worth chunks: below it the kernels are too small to spread over cores, and a stream
#: takes :func:`in_short_blocks`, as a sweep does (so that a sweep and its separate runs round alike).
MIN_SLAB_ENTRIES = 2**16
#: The fewest rounds per chunk (shorter chunks make the scan over chunk starts the long loop), and the
#: rounds per block of :func:`in_short_blocks`.
MIN_CHUNK_ROUNDS = 16
#: Blocks of up to this many rounds go by :func:`direct`. Longer direct blocks lose float32 digits (their
#: log-weights grow to eta times the block's cumulative losses), and a vmapped and a single program
#: then round them differently (1 ulp of eta L, 8e-6 at eta = 5 over 32 rounds).
DIRECT_ROUNDS = MIN_CHUNK_ROUNDS
#: A sweep's block takes its rows' shifts from the block's start when no weight that matters can fall
#: below this fraction of the float type's exponent range (:func:`shift_for_rates`).
SAFE_RANGE = 0.1


def earlier_rounds(losses: Array) -> Array:
    r"""Row :math:`t` of the result is :math:`\sum_{s < t} \ell_s` (the exclusive cumulative sum over rows).

    Up to ``4 GROUP`` rows: one triangular matrix product, in full precision (``Precision.HIGHEST``: on
    GPUs the default rounds the losses to TF32's 10-bit mantissa, 1e-3 off the scan). Longer: rows go
    in groups of ``GROUP``; inside a group the sums are a chain of additions, one per row, and the
    groups' offsets are the same sums over the group totals, recursively: a few additions per entry and
    no loop over rows, where one triangular matrix product would cost :math:`2T` flops per entry.

    Examples:
      >>> import jax.numpy as jnp
      >>> earlier_rounds(jnp.arange(12.0).reshape(6, 2))[:, 0]
      Array([ 0.,  0.,  2.,  6., 12., 20.], dtype=float32)
    """
    size = losses.shape[0]
    if size <= 4 * GROUP:
        lower = jnp.tril(jnp.ones((size, size), losses.dtype), -1)
        return jnp.matmul(lower, losses, precision=jax.lax.Precision.HIGHEST)
    num_groups = -(-size // GROUP)
    padded = jnp.pad(losses, [(0, num_groups * GROUP - size)] + [(0, 0)] * (losses.ndim - 1))
    groups = padded.reshape(num_groups, GROUP, *losses.shape[1:])
    partial = [jnp.zeros_like(groups[:, 0])]
    for j in range(1, GROUP):  # GROUP static additions, not a loop over the stream
        partial.append(partial[-1] + groups[:, j - 1])
    inside = jnp.stack(partial, axis=1)
    offsets = earlier_rounds(partial[-1] + groups[:, -1])
    return (inside + offsets[:, None]).reshape(padded.shape)[:size]


def direct(log_v: Array, losses: Array, eta: Array) -> tuple[Array, Array, Array, Array]:
    """All rounds of a block at once: ``(next log_v, loss_t, v_t, log v_t)`` for the ``(size, n)`` losses
    from the normalised log-weights ``log_v`` (the next state keeps ``log_v`` if every weight is 0).

    ``log_v`` of shape ``(k, n)`` with ``eta`` of shape ``(k,)`` plays ``k`` rates on the one stream, the
    rate axis second in every row (``loss_t`` of shape ``(size, k)``, ``v_t`` ``(size, k, n)``): each
    round's losses then meet all ``k`` rates in one matrix product, with no batched copy of the stream.
    """
    size = losses.shape[0]
    # One more row, of zero losses: row `size` of z is the next state's log-weights.
    padded = jnp.concatenate([losses, jnp.zeros_like(losses[:1])])
    earlier = earlier_rounds(padded)
    if log_v.ndim == 2:  # k rates: (rows, k, n)
        shift = shift_for_rates(
            log_v, earlier, eta
        )  # first: then XLA fuses z into the exponentials
        z = log_v - eta[:, None] * earlier[:, None]  # log v_t up to a constant per row
    else:
        z = log_v - eta * earlier
        shift = jnp.max(z, axis=-1, keepdims=True)
    shift = jnp.where(jnp.isfinite(shift), shift, 0)
    e = jnp.exp(z - shift)
    total = jnp.sum(e, axis=-1, keepdims=True)
    # sum_i e_ti l_ti as a product: for k rates one (k, n) by (n,) product per round, rather than a
    # product and sum over the stream broadcast to the k rates
    weighted = jnp.einsum("t...i,ti->t...", e, padded, precision=jax.lax.Precision.HIGHEST)
    loss = weighted[:size] / total[:size, ..., 0]
    log_rows = z - shift - jnp.log(total)
    final = jnp.where(total[-1] > 0, log_rows[-1], log_v)
    return final, loss, e[:size] / total[:size], log_rows[:size]


def shift_for_rates(log_v: Array, earlier: Array, eta: Array) -> Array:
    r"""The ``(rows, k, 1)`` shifts of :func:`direct`'s rows for ``k`` rates: each row's maximum, or without a
    pass over the rows when it is safe, :math:`\max_i \log v_i - \eta \min_i S_{ti}` (``S = earlier``).

    The latter is at least every entry of row t, so no exponential exceeds 1, and it exceeds the row's
    maximum by at most :math:`\eta (\max_i S_{ti} - \min_i S_{ti})`, so the largest weight stays above
    the float type's smallest normal number to the power :data:`SAFE_RANGE` where that spread times the
    largest rate allows (every rate >= 0); one test for the whole block (a ``lax.cond``), which spares the
    block a pass over its ``(rows, k, n)`` log-weights.
    """
    lowest = jnp.min(earlier, axis=-1, keepdims=True)
    spread = jnp.max(jnp.max(earlier, axis=-1) - lowest[:, 0])
    limit = -SAFE_RANGE * jnp.log(jnp.finfo(log_v.dtype).tiny)
    safe = (jnp.min(eta) >= 0) & (jnp.max(eta) * spread <= limit)  # False if a loss is not finite
    eta = eta[:, None]

    def from_start(lv, lo, ea):  # (k, 1) - (rows, k, 1)
        return jnp.max(lv, axis=-1, keepdims=True) - eta * lo[:, None]

    def row_maxima(
        lv, lo, ea
    ):  # the rows computed again here: passing them in would make XLA write
        return jnp.max(lv - eta * ea[:, None], axis=-1, keepdims=True)  # them out on either branch

    return jax.lax.cond(safe, from_start, row_maxima, log_v, lowest, earlier)


def chunked(log_v: Array, losses: Array, eta: Array, chunks: int) -> tuple[Array, ...]:
    """:func:`direct`'s result computed in ``chunks`` chunks of consecutive rounds (the last ``size %
    chunks`` rounds by :func:`play`)."""
    size, n = losses.shape
    per_chunk = size // chunks
    main = chunks * per_chunk
    first_rows = jnp.arange(chunks) * per_chunk

    def round_j(
        j,
    ):  # (chunks, n): round j of every chunk, rows gathered from the stream (a slice of
        return losses[first_rows + j]  # the stream, reshaped, would be copied whole by XLA)

    totals = jax.lax.scan(
        lambda acc, j: (acc + round_j(j), None),
        jnp.zeros_like(losses[:chunks]),
        jnp.arange(per_chunk),
    )[0]

    def chunk_start(
        lv, total
    ):  # the common part of the totals taken out first: it cancels, exactly
        return normalize(lv - eta * (total - jnp.min(total)), lv), lv

    final, starts = jax.lax.scan(chunk_start, log_v, totals)

    def peak(z):
        m = jnp.max(z, axis=-1, keepdims=True)
        return jnp.where(jnp.isfinite(m), m, 0)

    def round_of_every_chunk(carry, j):
        z, m = carry
        z = z - m  # each row shifted to maximum 0: the entries that matter stay small
        ell = round_j(j)
        e = jnp.exp(z)
        total = jnp.sum(e, axis=-1, keepdims=True)
        out = (jnp.sum(e * ell, axis=-1) / total[:, 0], e / total, z - jnp.log(total))
        z = z - eta * ell
        return (z, peak(z)), out

    _, rows = jax.lax.scan(round_of_every_chunk, (starts, peak(starts)), jnp.arange(per_chunk))
    # (per_chunk, chunks, ...) -> rounds in stream order
    rows = tuple(jnp.swapaxes(a, 0, 1).reshape(main, *a.shape[2:]) for a in rows)
    return (final, *rows) if main == size else _followed_by(rows, play(final, losses[main:], eta))


def in_short_blocks(log_v: Array, losses: Array, eta: Array) -> tuple[Array, ...]:
    """:func:`direct` over blocks of :data:`MIN_CHUNK_ROUNDS` rounds in a ``lax.scan`` (the layout for a
    batch of streams)."""
    rounds = MIN_CHUNK_ROUNDS
    num, rest = divmod(losses.shape[0], rounds)

    def block(lv, i):  # a slice of the stream, not a copy of it
        final, *rows = direct(lv, jax.lax.dynamic_slice_in_dim(losses, i * rounds, rounds), eta)
        return final, tuple(rows)

    final, rows = jax.lax.scan(block, log_v, jnp.arange(num))
    rows = tuple(a.reshape(-1, *a.shape[2:]) for a in rows)
    return (
        _followed_by(rows, direct(final, losses[num * rounds :], eta)) if rest else (final, *rows)
    )


def _followed_by(rows, tail):
    """``(tail's next log_v, *rows then the tail's rows)``: a block's main part joined to its tail."""
    return tail[0], *(jnp.concatenate([a, b]) for a, b in zip(rows, tail[1:]))


def chunk_count(size: int, n: int) -> int:
    """Chunks for a block of ``size`` rounds of ``n`` actions: the ``(C, n)`` slab near
    :data:`SLAB_ENTRIES`, chunks at least :data:`MIN_CHUNK_ROUNDS` long."""
    return max(1, min(size // MIN_CHUNK_ROUNDS, SLAB_ENTRIES // n))


def play(log_v: Array, losses: Array, eta: Array, batched: bool = False) -> tuple[Array, ...]:
    """The layout for a block of ``(size, n)`` losses: :func:`direct` up to :data:`DIRECT_ROUNDS`
    rounds; else :func:`chunked` for one stream whose slab reaches :data:`MIN_SLAB_ENTRIES`, and
    :func:`in_short_blocks` for a batch of streams or a smaller slab."""
    size, n = losses.shape
    chunks = chunk_count(size, n)
    if size <= DIRECT_ROUNDS:
        return direct(log_v, losses, eta)
    if batched or chunks < 2 or chunks * n < MIN_SLAB_ENTRIES:
        return in_short_blocks(log_v, losses, eta)
    return chunked(log_v, losses, eta, chunks)


def _normalized(log_v, losses, eta, batched=False):
    final, *rows = play(log_v, losses, eta, batched)
    # Normalised once more: entries of size eta * L (L the cumulative losses of up to MIN_CHUNK_ROUNDS
    # rounds) carry rounding of order ulp(eta * L) that XLA need not round alike where it computes them
    # twice (in a shift and in an exponent), which leaves the weights summing to 1 +- ulp(eta * L);
    # renormalised, these entries are small and the sum is 1 to float rounding.
    return (normalize(final, log_v), *rows)


def _rates_on_one_stream(log_v, losses, eta):
    """``k`` rates (or starts) on one stream: :func:`play` with the rate axis inside each round (see
    :func:`direct`), the results with the rate axis first, as ``jax.vmap`` returns them."""
    final, *rows = play(log_v, losses, eta, batched=True)
    return (jax.vmap(normalize)(final, log_v), *(jnp.swapaxes(a, 0, 1) for a in rows))


@jax.custom_batching.custom_vmap
def _batch_aware(log_v, losses, eta):
    return _normalized(log_v, losses, eta)


@_batch_aware.def_vmap
def _batched(axis_size, in_batched, log_v, losses, eta):
    if not in_batched[1]:  # one stream: the rate axis inside each round (see direct)
        log_v = log_v if in_batched[0] else jnp.broadcast_to(log_v, (axis_size, *log_v.shape))
        eta = eta if in_batched[2] else jnp.broadcast_to(eta, (axis_size,))
        out = _rates_on_one_stream(log_v, losses, eta)
    else:
        in_axes = tuple(0 if b else None for b in in_batched)
        out = jax.vmap(functools.partial(_normalized, batched=True), in_axes)(log_v, losses, eta)
    return out, (True,) * len(out)


@jax.custom_jvp
def allocations(log_v: Array, losses: Array, eta: Array) -> tuple[Array, Array, Array, Array]:
    """Hedge over a block of rounds: ``(next log_v, loss_t, v_t, log v_t)``, by :func:`play`'s layout
    (:func:`in_short_blocks` under ``jax.vmap``), the next ``log_v`` normalised.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> losses = jax.random.uniform(jax.random.PRNGKey(0), (1000, 4))  # 1,000 rounds: in chunks
      >>> log_v, loss, v, _ = allocations(jnp.full(4, -jnp.log(4.0)), losses, jnp.float32(0.1))
      >>> v.shape, bool(jnp.allclose(v.sum(axis=1), 1)), bool(jnp.allclose(loss, (v * losses).sum(1)))
      ((1000, 4), True, True)
    """
    return _batch_aware(log_v, losses, eta)


@allocations.defjvp
def _allocations_jvp(primals, tangents):
    return jax.jvp(_normalized, primals, tangents)
