"""The Weighted Average algorithm WA (COMP0078 "The Weighted Average Algorithm")."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn import losses as _losses
from jaxlearn.core import Learner, learner_factory, zero_counter
from jaxlearn.experts._common import as_advice, check_soft_stream, init_log_weights, normalize

Array = jax.Array

LOSSES = {"entropic": _losses.entropic, "square": _losses.square}


class WeightedAverageState(NamedTuple):
    """``log_v``: the normalised log-weights :math:`\\log v_t`; ``step``: rounds played."""

    log_v: Array
    step: Array


class WeightedAverageInfo(NamedTuple):
    r"""``prediction``: :math:`\hat y_t = v_t \cdot x_t`; ``loss``: :math:`L(y_t, \hat y_t)`;
    ``expert_losses``: :math:`L(y_t, x_{t,i})` for every expert (their cumsum gives :math:`L_{t,i}`)."""

    prediction: Array
    loss: Array
    expert_losses: Array


@learner_factory("eta")
def weighted_average(eta: ArrayLike = 1.0, loss: str = "entropic") -> Learner:
    r"""The Weighted Average algorithm (COMP0078 "The Weighted Average Algorithm").

    .. math::
        \hat y_t = v_t \cdot x_t, \qquad
        v_{t+1,i} = \frac{v_{t,i} e^{-\eta L(y_t, x_{t,i})}}{\sum_j v_{t,j} e^{-\eta L(y_t, x_{t,j})}},
        \qquad v_1 = (1/n, \dots, 1/n).

    Advice :math:`x_t \in [0,1]^n`, outcomes :math:`y_t \in [0,1]`. Theorem: the regret against the
    best expert is at most :math:`(1/\eta)\ln n`: :math:`\ln n` for the entropic loss with
    :math:`\eta = 1`, :math:`2 \ln n` for the square loss with :math:`\eta = 1/2`
    (:func:`jaxlearn.theory.weighted_average_regret_bound`). For the entropic loss with
    :math:`\eta = 1` and binary outcomes, every round satisfies the identity
    :math:`L(y_t, \hat y_t) - \sum_i u_i L(y_t, x_{t,i}) = d(u, v_t) - d(u, v_{t+1})`.

    An expert whose entropic loss is infinite (advice 0 or 1 contradicting the outcome) gets weight 0
    (log-weight ``-inf``), exactly as the formula says.

    Args:
      eta: the learning rate (traced).
      loss: ``"entropic"`` or ``"square"`` (structural).
    """
    if loss not in LOSSES:
        raise ValueError(f"expected `loss` in {{'entropic', 'square'}}, got {loss!r}")
    loss_fn = LOSSES[loss]

    def init(example_x, key=None):
        return WeightedAverageState(init_log_weights(example_x), zero_counter())

    def predict(state, x):
        return jnp.vdot(jnp.exp(state.log_v), as_advice(state.log_v, x))

    def update(state, x, y):
        x = as_advice(state.log_v, x)
        y = jnp.asarray(y).astype(x.dtype)
        y_hat = jnp.clip(jnp.vdot(jnp.exp(state.log_v), x), 0, 1)
        expert_losses = loss_fn(y, x)
        log_v = normalize(state.log_v - jnp.asarray(eta).astype(x.dtype) * expert_losses)
        info = WeightedAverageInfo(y_hat, loss_fn(y, y_hat), expert_losses)
        return WeightedAverageState(log_v, state.step + 1), info

    return Learner(init, update, predict, check_soft_stream)
