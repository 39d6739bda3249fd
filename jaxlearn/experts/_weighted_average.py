"""The Weighted Average algorithm WA (COMP0078 "The Weighted Average Algorithm")."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn import losses as _losses
from jaxlearn._shared import check_scalar_label, zero_counter
from jaxlearn.core import POSITIVE, Learner, learner_factory, loadable
from jaxlearn.experts._common import as_advice, check_soft_stream, init_log_weights, normalize

Array = jax.Array

LOSSES = {"entropic": _losses.entropic, "square": _losses.square}


@loadable
class WeightedAverageState(NamedTuple):
    """``log_v``: the normalised log-weights :math:`\\log v_t`; ``step``: rounds played."""

    log_v: Array
    step: Array


@loadable
class WeightedAverageInfo(NamedTuple):
    r"""``prediction``: :math:`\hat y_t = v_t \cdot x_t`; ``loss``: :math:`L(y_t, \hat y_t)`;
    ``expert_losses``: :math:`L(y_t, x_{t,i})` for every expert (their cumsum gives :math:`L_{t,i}`)."""

    prediction: Array
    loss: Array
    expert_losses: Array


@learner_factory("eta", ranges={"eta": POSITIVE})
def weighted_average(eta: ArrayLike = 1.0, loss: str = "entropic") -> Learner:
    r"""The Weighted Average algorithm (WA): predict the weighted mean of the experts' advice.

    .. math:: \hat y_t = v_t \cdot x_t, \qquad v_{t+1,i} \propto v_{t,i}\, e^{-\eta L(y_t, x_{t,i})},
        \qquad v_1 = \mathbf 1/n.

    Regret at most :math:`\ln(n)/\eta`, e.g. :math:`\ln n` for the entropic loss at :math:`\eta = 1`
    (:func:`jaxlearn.theory.weighted_average_regret_bound`). The weights live in log space: an expert
    whose advice 0 or 1 contradicts the outcome has an infinite entropic loss and gets weight 0; a
    round in which every expert of positive weight does so keeps :math:`v_t`, so :math:`v_t` stays a
    distribution and :math:`\hat y_t` finite. The entropic loss of :math:`\hat y_t` takes
    :math:`1 - \hat y_t` as :math:`v_t \cdot (1 - x_t)`, so it is infinite only where the book's is
    (every expert of positive weight contradicts :math:`y_t`), not where :math:`v_t \cdot x_t` rounds
    to 1 (advice 1 and just below 1).

    Args:
      eta: the learning rate :math:`\eta > 0` (traced).
      loss: ``"entropic"`` (an expert of infinite loss gets weight 0) or ``"square"`` (static).

    Returns:
      A :class:`~jaxlearn.core.Learner` (advice, outcomes in [0, 1]); ``Info``: :class:`WeightedAverageInfo`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, experts, theory
      >>> X = jax.random.uniform(jax.random.PRNGKey(0), (100, 4))  # the advice of 4 experts
      >>> y = jax.random.bernoulli(jax.random.PRNGKey(1), 0.7, (100,)).astype(X.dtype)
      >>> learner = experts.weighted_average()  # entropic loss, eta = 1
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.loss.sum() - trace.expert_losses.sum(0).min() <= theory.weighted_average_regret_bound(4))
      True

    References:
      COMP0078 "The Weighted Average Algorithm".
    """
    if loss not in LOSSES:
        raise ValueError(f"expected `loss` in {{'entropic', 'square'}}, got {loss!r}")
    loss_fn = LOSSES[loss]

    def init(example_x, key=None):
        return WeightedAverageState(init_log_weights(example_x), zero_counter())

    def predict(state, x):
        return jnp.vdot(jnp.exp(state.log_v), as_advice(state.log_v, x))

    def update(state, x, y):
        check_scalar_label(y)
        x = as_advice(state.log_v, x)
        y = jnp.asarray(y).astype(x.dtype)
        v = jnp.exp(state.log_v)
        y_hat = jnp.clip(jnp.vdot(v, x), 0, 1)
        expert_losses = loss_fn(y, x)
        log_v = normalize(
            state.log_v - jnp.asarray(eta).astype(x.dtype) * expert_losses, state.log_v
        )
        if (
            loss == "entropic"
        ):  # 1 - y_hat as its own sum: 0 only where every weighted expert says 1
            own_loss = _entropic(y, y_hat, jnp.clip(jnp.vdot(v, 1 - x), 0, 1))
        else:
            own_loss = loss_fn(y, y_hat)
        info = WeightedAverageInfo(y_hat, own_loss, expert_losses)
        return WeightedAverageState(log_v, state.step + 1), info

    return Learner(init, update, predict, check_soft_stream)


def _entropic(y: Array, y_hat: Array, complement: Array) -> Array:
    r"""The entropic loss :math:`y \ln\frac{y}{\hat y} + (1-y)\ln\frac{1-y}{1-\hat y}`, :math:`0 \ln 0 = 0`
    (COMP0078, "A regret bound for the entropic (log) loss"), :math:`1 - \hat y` given as ``complement``."""
    xlogy = jax.scipy.special.xlogy
    return xlogy(y, y) - xlogy(y, y_hat) + xlogy(1 - y, 1 - y) - xlogy(1 - y, complement)
