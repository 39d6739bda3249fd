"""Hedge, HA-1 and HA-2: exponential weights in the allocation setting (COMP0078 "HEDGE Algorithm")."""

from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import POSITIVE, Learner, check_width, learner_factory, zero_counter
from jaxlearn.experts._common import check_loss_stream, init_log_weights, normalize

Array = jax.Array

#: Rounds per block of ``core.run``'s default path (see ``run_block``): of 8 to 1,024, the fastest for a
#: vmapped sweep of rates on a 2-core CPU at n = 1,000 (one long stream runs about 25% faster at 128,
#: the 64-rate sweep 1.3-2x slower: its blocks then leave the cache).
BLOCK_SIZE = 16
#: Rounds summed by plain additions inside a long block (:func:`earlier_rounds`).
GROUP = 8


class HedgeState(NamedTuple):
    """``log_v``: the allocation :math:`\\log v_t` (normalised); ``key``: for HA-2 sampling (a dummy key
    when ``sample=False``); ``step``: rounds played."""

    log_v: Array
    key: Array
    step: Array


class HedgeInfo(NamedTuple):
    r"""``prediction``: the allocation :math:`v_t`; ``loss``: :math:`v_t \cdot \ell_t` (HA-1);
    ``action``: the action sampled from :math:`v_t` (HA-2; -1 without sampling); ``action_loss``:
    :math:`\ell_{t, \hat y_t}` (HA-2; equal to ``loss`` without sampling)."""

    prediction: Array
    loss: Array
    action: Array
    action_loss: Array


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


@learner_factory("eta", ranges={"eta": POSITIVE})
def hedge(eta: ArrayLike, *, sample: bool = False) -> Learner:
    r"""Hedge (HA-1, or HA-2 with ``sample``): exponential weights over :math:`n` actions.

    .. math:: \text{loss}_t = v_t \cdot \ell_t, \qquad v_{t+1,i} \propto v_{t,i}\, e^{-\eta \ell_{t,i}},
        \qquad v_1 = \mathbf 1/n.

    ``ys`` are loss vectors :math:`\ell_t \in [0,1]^n` (``xs=None``); ``predict`` is :math:`v_t`. Regret at
    most :math:`\ln(n)/\eta + \eta T/2`, :math:`\sqrt{2T\ln n}` at :math:`\eta = \sqrt{2\ln(n)/T}`
    (:func:`jaxlearn.theory.hedge_regret_bound`). :func:`jaxlearn.core.run` plays ``BLOCK_SIZE`` (16)
    rounds at a time: since :math:`v_t` is the softmax of :math:`-\eta` times the cumulative losses, a
    block's allocations are one exponential per round and action, with no dependence between its rounds
    (equal to the round-by-round updates up to rounding; ``block_size=0`` plays them one by one).

    Args:
      eta: the learning rate :math:`\eta > 0` (traced).
      sample: HA-2: also draw an action :math:`\hat y_t \sim v_t` (static); ``init`` then needs a ``key``.

    Returns:
      A :class:`~jaxlearn.core.Learner` (``init(jnp.zeros(n))``); ``Info`` is :class:`HedgeInfo`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import core, experts, theory
      >>> losses = jax.random.uniform(jax.random.PRNGKey(0), (100, 5))  # T = 100 rounds, n = 5 actions
      >>> learner = experts.hedge(jnp.sqrt(2 * jnp.log(5) / 100))
      >>> state, trace = core.run(learner, learner.init(jnp.zeros(5)), None, losses)
      >>> bool(trace.loss.sum() - losses.sum(0).min() <= theory.hedge_regret_bound(100, 5))
      True

    References:
      COMP0078 "HEDGE Algorithm", "The Hedge Algorithm (HA) - Summary"; Freund and Schapire (1997).
    """

    def init(example_x, key: Optional[Array] = None):
        if sample and key is None:
            raise ValueError("hedge(eta, sample=True) needs a `key` at init: init(x, key)")
        key = jax.random.PRNGKey(0) if key is None else key
        return HedgeState(init_log_weights(example_x), key, zero_counter())

    def predict(state, x=None):
        return jnp.exp(state.log_v)

    def update(state, x, losses):
        check_width("y", losses, state.log_v.shape[0])
        losses = jnp.asarray(losses).astype(state.log_v.dtype)
        v = jnp.exp(state.log_v)
        loss = jnp.vdot(v, losses)
        key = state.key
        if sample:
            key, draw = jax.random.split(state.key)
            action = jax.random.categorical(draw, state.log_v).astype(jnp.int32)
            action_loss = losses[action]
        else:
            action, action_loss = jnp.int32(-1), loss
        log_v = normalize(state.log_v - jnp.asarray(eta).astype(losses.dtype) * losses)
        return HedgeState(log_v, key, state.step + 1), HedgeInfo(v, loss, action, action_loss)

    def run_block(state, xs, losses):
        r"""A block of rounds at once, from the cumulative losses: :math:`v_t \propto v_{t_0}\,
        e^{-\eta (L_{t-1} - L_{t_0 - 1})}` is a softmax, one exponential per round and action, each row
        shifted by its own maximum (no per-round log-sum-exp; the partial sums by
        :func:`earlier_rounds`)."""
        check_width("ys", losses, state.log_v.shape[0])
        losses = jnp.asarray(losses).astype(state.log_v.dtype)
        eta_ = jnp.asarray(eta).astype(losses.dtype)
        size = losses.shape[0]
        # One more row, of zero losses: row `size` of z is the next state's log-weights.
        padded = jnp.concatenate([losses, jnp.zeros_like(losses[:1])])
        z = state.log_v - eta_ * earlier_rounds(padded)  # log v_t up to a constant per row
        shift = jnp.max(z, axis=-1, keepdims=True)
        shift = jnp.where(jnp.isfinite(shift), shift, 0)
        e = jnp.exp(z - shift)
        total = jnp.sum(e, axis=-1, keepdims=True)
        loss = jnp.sum(e * padded, axis=-1)[:size] / total[:size, 0]
        v = e[:size] / total[:size]
        log_v = z - shift - jnp.log(total)
        final = jnp.where(total[-1] > 0, log_v[-1], state.log_v)  # all weights 0: keep the last
        key = state.key
        if sample:

            def split(k, _):
                k, draw = jax.random.split(k)
                return k, draw

            key, draws = jax.lax.scan(split, state.key, None, length=size)
            action = jax.vmap(jax.random.categorical)(draws, log_v[:size]).astype(jnp.int32)
            action_loss = jnp.take_along_axis(losses, action[:, None], axis=1)[:, 0]
        else:
            action, action_loss = jnp.full(loss.shape, -1, jnp.int32), loss
        info = HedgeInfo(v, loss, action, action_loss)
        return HedgeState(final, key, state.step + size), info

    return Learner(init, update, predict, check_loss_stream, run_block, BLOCK_SIZE)
