"""Hedge, HA-1 and HA-2: exponential weights in the allocation setting (COMP0078 "HEDGE Algorithm")."""

from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import POSITIVE, Learner, check_width, learner_factory, zero_counter
from jaxlearn.experts._common import check_loss_stream, init_log_weights, normalize

Array = jax.Array


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


@learner_factory("eta", ranges={"eta": POSITIVE})
def hedge(eta: ArrayLike, *, sample: bool = False) -> Learner:
    r"""Hedge (HA-1, or HA-2 with ``sample``): exponential weights over :math:`n` actions.

    .. math:: \text{loss}_t = v_t \cdot \ell_t, \qquad v_{t+1,i} \propto v_{t,i}\, e^{-\eta \ell_{t,i}},
        \qquad v_1 = \mathbf 1/n.

    ``ys`` are loss vectors :math:`\ell_t \in [0,1]^n` (``xs=None``); ``predict`` is :math:`v_t`. Regret at
    most :math:`\ln(n)/\eta + \eta T/2`, :math:`\sqrt{2T\ln n}` at :math:`\eta = \sqrt{2\ln(n)/T}`
    (:func:`jaxlearn.theory.hedge_regret_bound`).

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
        r"""A block of rounds at once: :math:`\log v_t \propto \log v_{t_0} - \eta \sum_{t_0 \le s < t}
        \ell_s` for every round of the block, the partial sums as one triangular matrix product."""
        check_width("ys", losses, state.log_v.shape[0])
        losses = jnp.asarray(losses).astype(state.log_v.dtype)
        eta_ = jnp.asarray(eta).astype(losses.dtype)
        B = losses.shape[0]
        before = jnp.tril(jnp.ones((B, B), losses.dtype), -1) @ losses  # sum of the earlier rounds
        z = state.log_v - eta_ * before
        z = z - jnp.max(z, axis=-1, keepdims=True)
        log_v = z - jnp.log(jnp.sum(jnp.exp(z), axis=-1, keepdims=True))
        v = jnp.exp(log_v)
        loss = jnp.sum(v * losses, axis=-1)
        key = state.key
        if sample:

            def split(k, _):
                k, draw = jax.random.split(k)
                return k, draw

            key, draws = jax.lax.scan(split, state.key, None, length=losses.shape[0])
            action = jax.vmap(jax.random.categorical)(draws, log_v).astype(jnp.int32)
            action_loss = jnp.take_along_axis(losses, action[:, None], axis=1)[:, 0]
        else:
            action, action_loss = jnp.full(loss.shape, -1, jnp.int32), loss
        final = normalize(state.log_v - eta_ * (before[-1] + losses[-1]))
        info = HedgeInfo(v, loss, action, action_loss)
        return HedgeState(final, key, state.step + losses.shape[0]), info

    return Learner(init, update, predict, check_loss_stream, run_block)
