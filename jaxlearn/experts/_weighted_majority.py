"""Weighted Majority, deterministic (COMP0078) and randomized (UML section 21.2.1), in log space."""

from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import Learner, is_concrete, learner_factory, zero_counter
from jaxlearn.experts._common import (
    as_advice,
    check_advice_stream,
    check_soft_stream,
    init_log_weights,
    log_mass,
    normalize,
)

Array = jax.Array


class WeightedMajorityState(NamedTuple):
    """``log_w``: normalised log-weights, :math:`\\log(\\beta^{M_{t,i}} / W_t)`; ``step``: rounds played."""

    log_w: Array
    step: Array


class WeightedMajorityInfo(NamedTuple):
    """``prediction``: the weighted-majority vote in {0, 1}; ``loss``/``mistake``: its 0-1 loss."""

    prediction: Array
    loss: Array
    mistake: Array


class RandomizedWeightedMajorityState(NamedTuple):
    """``log_w``: normalised log-weights :math:`\\log w^{(t)}`; ``key``: split every round; ``step``."""

    log_w: Array
    key: Array
    step: Array


class RandomizedWeightedMajorityInfo(NamedTuple):
    r"""``prediction``: the advice of the expert drawn from :math:`w^{(t)}`; ``loss``: its 0-1 (or
    absolute) loss; ``expected_loss``: :math:`\langle w^{(t)}, v_t\rangle` with
    :math:`v_{t,i} = |x_{t,i} - y_t|`; ``probability``: :math:`p_t = \langle w^{(t)}, x_t\rangle`, the
    probability of predicting 1 (so ``expected_loss`` equals :math:`|p_t - y_t|` for binary advice)."""

    prediction: Array
    loss: Array
    expected_loss: Array
    probability: Array


def _check_beta(beta) -> None:
    if is_concrete(beta) and not 0 <= float(beta) < 1:
        raise ValueError(f"expected `beta` in [0, 1), got {float(beta)}")


@learner_factory("beta")
def weighted_majority(beta: ArrayLike = 1 / jnp.e) -> Learner:
    r"""Deterministic Weighted Majority (COMP0078 "A Solution: Weighted Majority Algorithm").

    .. math::
        w_{t,i} = \beta^{M_{t,i}}, \quad
        \hat y_t = 1\Big[\sum_{i: x_{t,i} = 1} w_{t,i} \ge \sum_{i: x_{t,i} = 0} w_{t,i}\Big], \quad
        w_{t+1,i} = w_{t,i}\, \beta^{1[x_{t,i} \ne y_t]}.

    Every wrong expert is multiplied by :math:`\beta`, whether or not the master erred; a tied vote
    predicts 1 (the bound holds for any tie rule). For every expert :math:`i`,
    :math:`M \le \frac{\ln(1/\beta)}{\ln(2/(1+\beta))} M_i + \frac{\ln n}{\ln(2/(1+\beta))}`
    (:func:`jaxlearn.theory.weighted_majority_bound`; 2.63 for both constants at :math:`\beta = 1/e`).

    The weights are stored as normalised logs and the vote compares two log-sum-exps, so millions of
    rounds never underflow; :math:`\beta = 0` (Halving) gives ``-inf`` log-weights, never NaN.

    Args:
      beta: the penalty :math:`\beta \in [0, 1)` (traced; checked when concrete).
    """
    _check_beta(beta)

    def init(example_x, key=None):
        return WeightedMajorityState(init_log_weights(example_x), zero_counter())

    def predict(state, x):
        says_one = as_advice(state.log_w, x) > 0
        return (log_mass(state.log_w, says_one) >= log_mass(state.log_w, ~says_one)).astype(jnp.int32)

    def update(state, x, y):
        prediction = predict(state, x)
        y = jnp.asarray(y).astype(jnp.int32)
        wrong = (as_advice(state.log_w, x) > 0) != (y > 0)
        log_beta = jnp.log(jnp.asarray(beta).astype(state.log_w.dtype))
        log_w = normalize(jnp.where(wrong, state.log_w + log_beta, state.log_w))
        mistake = prediction != y
        info = WeightedMajorityInfo(prediction, mistake.astype(state.log_w.dtype), mistake)
        return WeightedMajorityState(log_w, state.step + 1), info

    return Learner(init, update, predict, check_advice_stream)


@learner_factory("eta")
def randomized_weighted_majority(eta: ArrayLike) -> Learner:
    r"""Randomized Weighted Majority (UML section 21.2.1, Theorem 21.11 and Corollary 21.12).

    .. math::
        w^{(t)} = \tilde w^{(t)} / Z_t, \quad i_t \sim w^{(t)}, \quad
        v_{t,i} = |x_{t,i} - y_t|, \quad \tilde w^{(t+1)}_i = \tilde w^{(t)}_i e^{-\eta v_{t,i}}.

    The learner predicts the advice of a randomly drawn expert (``Info.prediction``); its expected
    loss :math:`\langle w^{(t)}, v_t\rangle` is what Theorem 21.11 bounds: with
    :math:`\eta = \sqrt{2\ln(n)/T}` and :math:`T > 2\ln n`, the expected regret against the best expert
    is at most :math:`\sqrt{2 \ln(n) T}` (:func:`jaxlearn.theory.rwm_regret_bound`). Its weights are
    those of :func:`hedge` run on the cost vectors :math:`v_t`.

    Args:
      eta: the learning rate (traced).

    Returns:
      A learner whose ``init(example_x, key)`` needs a ``jax.random`` key; advice may be in [0, 1].
    """

    def init(example_x, key: Optional[Array] = None):
        if key is None:
            raise ValueError("randomized_weighted_majority needs a `key` at init: init(x, key)")
        return RandomizedWeightedMajorityState(init_log_weights(example_x), key, zero_counter())

    def predict(state, x):
        """The probability :math:`p_t = \\langle w^{(t)}, x\\rangle` of predicting 1."""
        return jnp.vdot(jnp.exp(state.log_w), as_advice(state.log_w, x))

    def update(state, x, y):
        x = as_advice(state.log_w, x)
        y = jnp.asarray(y).astype(x.dtype)
        key, draw = jax.random.split(state.key)
        expert = jax.random.categorical(draw, state.log_w)
        costs = jnp.abs(x - y)
        w = jnp.exp(state.log_w)
        info = RandomizedWeightedMajorityInfo(
            prediction=x[expert],
            loss=costs[expert],
            expected_loss=jnp.vdot(w, costs),
            probability=jnp.vdot(w, x),
        )
        log_w = normalize(state.log_w - jnp.asarray(eta).astype(x.dtype) * costs)
        return RandomizedWeightedMajorityState(log_w, key, state.step + 1), info

    return Learner(init, update, predict, check_soft_stream)
