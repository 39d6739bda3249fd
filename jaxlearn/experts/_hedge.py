"""Hedge, HA-1 and HA-2: exponential weights in the allocation setting (COMP0078 "HEDGE Algorithm")."""

from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import check_width
from jaxlearn._shared import zero_counter
from jaxlearn.core import POSITIVE, Learner, learner_factory, loadable
from jaxlearn.experts._common import check_loss_stream, init_log_weights, normalize
from jaxlearn.experts._hedge_blocks import allocations

Array = jax.Array

#: Rounds per block of ``core.run``'s default path: a stream of up to this many rounds is one block,
#: which :func:`~jaxlearn.experts._hedge_blocks.allocations` cuts into chunks played side by side.
BLOCK_SIZE = 2**18


@loadable
class HedgeState(NamedTuple):
    """``log_v``: the allocation :math:`\\log v_t` (normalised); ``key``: for HA-2 sampling (a dummy key
    when ``sample=False``); ``step``: rounds played."""

    log_v: Array
    key: Array
    step: Array


@loadable
class HedgeInfo(NamedTuple):
    r"""``prediction``: the allocation :math:`v_t`; ``loss``: :math:`v_t \cdot \ell_t` (HA-1);
    ``action``: the action sampled from :math:`v_t` (HA-2; -1 without sampling); ``action_loss``:
    :math:`\ell_{t, \hat y_t}` (HA-2; equal to ``loss`` without sampling)."""

    prediction: Array
    loss: Array
    action: Array
    action_loss: Array


@learner_factory("eta", ranges={"eta": POSITIVE})
def hedge(eta: ArrayLike, *, sample: bool = False) -> Learner:
    r"""Hedge (HA-1, or HA-2 with ``sample``): exponential weights over :math:`n` actions.

    .. math:: \text{loss}_t = v_t \cdot \ell_t, \qquad v_{t+1,i} \propto v_{t,i}\, e^{-\eta \ell_{t,i}},
        \qquad v_1 = \mathbf 1/n.

    ``ys`` are loss vectors :math:`\ell_t \in [0,1]^n` (``xs=None``); ``predict`` is :math:`v_t`. Regret at
    most :math:`\ln(n)/\eta + \eta T/2`, :math:`\sqrt{2T\ln n}` at :math:`\eta = \sqrt{2\ln(n)/T}`
    (:func:`jaxlearn.theory.hedge_regret_bound`). :func:`jaxlearn.core.run` plays a stream of up to
    ``BLOCK_SIZE`` rounds as one block: since :math:`v_t` is the softmax of :math:`-\eta` times the
    cumulative losses, a block's allocations are one exponential per round and action: for a long
    stream over many actions, in chunks of rounds side by side after one pass for the chunks' totals;
    else, and under ``jax.vmap``, 16 rounds at a time (equal to the round-by-round updates up to
    rounding; ``block_size=0`` plays them one by one).

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
        e^{-\eta (L_{t-1} - L_{t_0 - 1})}` is a softmax, one exponential per round and action
        (:func:`~jaxlearn.experts._hedge_blocks.allocations`: long blocks in chunks played side by side)."""
        check_width("ys", losses, state.log_v.shape[0])
        losses = jnp.asarray(losses).astype(state.log_v.dtype)
        size = losses.shape[0]
        final, loss, v, log_v = allocations(
            state.log_v, losses, jnp.asarray(eta).astype(losses.dtype)
        )
        key = state.key
        if sample:

            def split(k, _):
                k, draw = jax.random.split(k)
                return k, draw

            key, draws = jax.lax.scan(split, state.key, None, length=size)
            action = jax.vmap(jax.random.categorical)(draws, log_v).astype(jnp.int32)
            action_loss = jnp.take_along_axis(losses, action[:, None], axis=1)[:, 0]
        else:
            action, action_loss = jnp.full(loss.shape, -1, jnp.int32), loss
        info = HedgeInfo(v, loss, action, action_loss)
        return HedgeState(final, key, state.step + size), info

    return Learner(init, update, predict, check_loss_stream, run_block, BLOCK_SIZE)
