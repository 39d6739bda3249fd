"""Online standardisation: running mean and variance, a :class:`~jaxlearn.core.Transform`."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn._checks import check_ndim, check_width
from jaxlearn._shared import float_dtype
from jaxlearn.core import Transform, learner_factory, loadable

Array = jax.Array


@loadable
class StandardizeState(NamedTuple):
    """``count``: instances observed (int32); ``mean``: their running mean; ``m2``: the running sum of
    squared deviations (Welford), so the variance is ``m2 / count``."""

    count: Array
    mean: Array
    m2: Array


@learner_factory()
def standardize() -> Transform:
    r"""Standardise each feature with the mean and variance of the instances seen before it.

    .. math:: T_t(x) = (x - \mu_{t-1}) / \sigma_{t-1}, \qquad \mu, \sigma^2 \text{ of } x_1..x_{t-1}
              \text{ (Welford's update; population variance)},

    and 0 for a feature whose variance is still 0 (the first round, a constant feature), as river's
    ``preprocessing.StandardScaler`` does. Use it in :func:`jaxlearn.core.pipeline`: the statistics are
    updated after the round's prediction and learning step, so there is no look-ahead. (river's
    pipeline updates the scaler before the learner learns; here the learner learns on the instance it
    predicted on.)

    Returns:
      A :class:`~jaxlearn.core.Transform` whose state is a :class:`StandardizeState`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import online
      >>> scaler = online.standardize()
      >>> state = scaler.init(jnp.zeros(2))
      >>> for x in ([1.0, 10.0], [3.0, 10.0]):
      ...     state = scaler.observe(state, jnp.array(x))
      >>> scaler.apply(state, jnp.array([4.0, 12.0])).tolist()  # mean (2, 10), std (1, 0)
      [2.0, 0.0]
    """

    def init(example_x):
        x = jnp.asarray(example_x)
        check_ndim("example_x", x, 1, "(d,)")
        zeros = jnp.zeros(x.shape, float_dtype(x))
        return StandardizeState(jnp.zeros([], jnp.int32), zeros, zeros)

    def apply(state, x):
        check_width("x", x, state.mean.shape[0])
        x = jnp.asarray(x).astype(state.mean.dtype)
        var = state.m2 / jnp.maximum(state.count, 1).astype(state.mean.dtype)
        positive = var > 0
        return jnp.where(positive, (x - state.mean) / jnp.sqrt(jnp.where(positive, var, 1)), 0)

    def observe(state, x):
        x = jnp.asarray(x).astype(state.mean.dtype)
        count = state.count + 1
        delta = x - state.mean
        mean = state.mean + delta / count.astype(x.dtype)
        return StandardizeState(count, mean, state.m2 + delta * (x - mean))

    return Transform(init, apply, observe)
