"""Weighted Majority, deterministic (COMP0078) and randomized (UML section 21.2.1), in log space."""

from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._shared import check_scalar_label, zero_counter
from jaxlearn.core import POSITIVE, Interval, Learner, learner_factory, loadable
from jaxlearn.experts._common import (
    as_advice,
    check_advice_stream,
    check_soft_stream,
    init_log_weights,
    log_mass,
    normalize,
)

Array = jax.Array


@loadable
class WeightedMajorityState(NamedTuple):
    """``log_w``: normalised log-weights, :math:`\\log(\\beta^{M_{t,i}} / W_t)`; ``step``: rounds played."""

    log_w: Array
    step: Array


@loadable
class WeightedMajorityInfo(NamedTuple):
    """``prediction``: the weighted-majority vote in {0, 1}; ``loss``/``mistake``: its 0-1 loss."""

    prediction: Array
    loss: Array
    mistake: Array


@loadable
class RandomizedWeightedMajorityState(NamedTuple):
    """``log_w``: normalised log-weights :math:`\\log w^{(t)}`; ``key``: split every round; ``step``."""

    log_w: Array
    key: Array
    step: Array


@loadable
class RandomizedWeightedMajorityInfo(NamedTuple):
    r"""``prediction``: the advice of the expert drawn from :math:`w^{(t)}`; ``loss``: its 0-1 (or
    absolute) loss; ``expected_loss``: :math:`\langle w^{(t)}, v_t\rangle` with
    :math:`v_{t,i} = |x_{t,i} - y_t|`; ``probability``: :math:`p_t = \langle w^{(t)}, x_t\rangle`, the
    probability of predicting 1 (so ``expected_loss`` equals :math:`|p_t - y_t|` for binary advice)."""

    prediction: Array
    loss: Array
    expected_loss: Array
    probability: Array


#: Weighted Majority's penalty :math:`\beta \in [0, 1)`.
PENALTY = Interval(0.0, 1.0, lo_closed=True)


@learner_factory("beta", ranges={"beta": PENALTY})
def weighted_majority(beta: ArrayLike = 1 / jnp.e) -> Learner:
    r"""Deterministic Weighted Majority: a weighted vote of binary experts (a tie predicts 1).

    .. math:: \hat y_t = 1\Big[\sum_{i: x_{t,i} = 1} w_{t,i} \ge \sum_{i: x_{t,i} = 0} w_{t,i}\Big], \qquad
        w_{t+1,i} = w_{t,i}\, \beta^{1[x_{t,i} \ne y_t]}, \qquad w_1 = \mathbf 1.

    Every wrong expert is penalised, even when the vote is right; :math:`\beta = 0` is Halving (a round
    where every expert of positive weight errs then keeps the weights, as Halving does). For every
    expert :math:`i`, :math:`M \le (\ln(1/\beta) M_i + \ln n) / \ln(2/(1+\beta))`, i.e.
    :math:`2.63 (M_i + \ln n)` at :math:`\beta = 1/e` (:func:`jaxlearn.theory.weighted_majority_bound`).

    Args:
      beta: the penalty :math:`\beta \in [0, 1)` (traced; checked when concrete).

    Returns:
      A :class:`~jaxlearn.core.Learner` over binary advice and outcomes; ``Info`` is
      :class:`WeightedMajorityInfo`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, experts, theory
      >>> X, y = datasets.expert_advice(jax.random.PRNGKey(0), 200, 8)  # expert 0 is never wrong
      >>> learner = experts.weighted_majority(0.5)
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.mistake.sum() <= theory.weighted_majority_bound(0.5, 0, 8))
      True

    References:
      COMP0078 "A Solution: Weighted Majority Algorithm".
    """

    def init(example_x, key=None):
        return WeightedMajorityState(init_log_weights(example_x), zero_counter())

    def predict(state, x):
        says_one = as_advice(state.log_w, x) > 0
        return (log_mass(state.log_w, says_one) >= log_mass(state.log_w, ~says_one)).astype(
            jnp.int32
        )

    def update(state, x, y):
        check_scalar_label(y)
        prediction = predict(state, x)
        y = jnp.asarray(y).astype(jnp.int32)
        wrong = (as_advice(state.log_w, x) > 0) != (y > 0)
        # normalised log-weights never underflow; beta = 0 (Halving) gives -inf, never NaN
        log_beta = jnp.log(jnp.asarray(beta).astype(state.log_w.dtype))
        log_w = normalize(jnp.where(wrong, state.log_w + log_beta, state.log_w), state.log_w)
        mistake = prediction != y
        info = WeightedMajorityInfo(prediction, mistake.astype(state.log_w.dtype), mistake)
        return WeightedMajorityState(log_w, state.step + 1), info

    return Learner(init, update, predict, check_advice_stream)


@learner_factory("eta", ranges={"eta": POSITIVE})
def randomized_weighted_majority(eta: ArrayLike) -> Learner:
    r"""Randomized Weighted Majority: follow the advice of an expert drawn from the weights.

    .. math:: i_t \sim w^{(t)}, \qquad v_{t,i} = |x_{t,i} - y_t|, \qquad
        w^{(t+1)}_i \propto w^{(t)}_i e^{-\eta v_{t,i}}, \qquad w^{(1)} = \mathbf 1/n.

    Hedge's weights on the costs :math:`v_t`. Theorem 21.11: with :math:`\eta = \sqrt{2\ln(n)/T}` and
    :math:`T > 2\ln n`, the expected regret (``Info.expected_loss``) is at most :math:`\sqrt{2\ln(n) T}`
    (:func:`jaxlearn.theory.rwm_regret_bound`).

    Args:
      eta: the learning rate :math:`\eta > 0` (traced).

    Returns:
      A :class:`~jaxlearn.core.Learner` over advice and outcomes in [0, 1] (``init(x, key)`` needs a key);
      ``predict`` returns :math:`\langle w^{(t)}, x\rangle`, the probability of predicting 1.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import core, datasets, experts, theory
      >>> X, y = datasets.expert_advice(jax.random.PRNGKey(0), 200, 8)  # expert 0 is never wrong
      >>> learner = experts.randomized_weighted_majority(jnp.sqrt(2 * jnp.log(8) / 200))
      >>> state, trace = core.run(learner, learner.init(X[0], jax.random.PRNGKey(1)), X, y)
      >>> bool(trace.expected_loss.sum() <= theory.rwm_regret_bound(200, 8))
      True

    References:
      UML section 21.2.1, Theorem 21.11 and Corollary 21.12.
    """

    def init(example_x, key: Optional[Array] = None):
        if key is None:
            raise ValueError("randomized_weighted_majority needs a `key` at init: init(x, key)")
        return RandomizedWeightedMajorityState(init_log_weights(example_x), key, zero_counter())

    def predict(state, x):
        """The probability :math:`p_t = \\langle w^{(t)}, x\\rangle` of predicting 1."""
        return jnp.vdot(jnp.exp(state.log_w), as_advice(state.log_w, x))

    def update(state, x, y):
        check_scalar_label(y)
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
