"""The Perceptron in a kernel's feature space, with a static budget (SS10 L5 section 7, Algorithm 4)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn._checks import check_binary_stream, check_ndim, check_width
from jaxlearn._shared import (
    check_scalar_label,
    float_dtype,
    on_device,
    sign_label,
    zero_counter,
    zeros,
)
from jaxlearn.core import POSITIVE_INT, Learner, learner_factory, loadable
from jaxlearn.kernels import Kernel, expansion

Array = jax.Array


@loadable
class KernelPerceptronState(NamedTuple):
    """``support``: (budget, d) stored mistakes (zero rows past ``count``); ``alpha``: (budget,)
    their coefficients :math:`y_i`; ``count``: how many are stored (int32)."""

    support: Array
    alpha: Array
    count: Array


@loadable
class KernelPerceptronInfo(NamedTuple):
    """``prediction``, ``loss``, ``mistake`` as for the Perceptron; ``budget_full``: the round was a
    mistake that could not be stored because the budget is full (the state is then left unchanged)."""

    prediction: Array
    loss: Array
    mistake: Array
    budget_full: Array


@learner_factory("kernel", ranges={"budget": POSITIVE_INT}, functions=("kernel",))
def kernel_perceptron(kernel: Kernel, budget: int) -> Learner:
    r"""The online kernel Perceptron, storing at most ``budget`` mistakes.

    .. math:: f_t = \sum_{i \in I_t} y_i K(x_i, \cdot), \qquad
        I_{t+1} = I_t \cup \{t\} \text{ if } y_t f_t(x_t) \le 0.

    The Perceptron in feature space: at most :math:`(R/\gamma)^2` mistakes, :math:`R^2 = \max_t K(x_t, x_t)`
    (:func:`jaxlearn.theory.perceptron_mistake_bound`); with the budget full, a mistake is only flagged.

    Args:
      kernel: a kernel from :mod:`jaxlearn.kernels` (or any ``k(x, z) -> scalar``); its parameters are traced.
      budget: the most mistakes stored (static); choose at least the mistake bound.

    Returns:
      A :class:`~jaxlearn.core.Learner`, labels in {-1, +1}; ``Info`` is :class:`KernelPerceptronInfo`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import core, kernels, online
      >>> X = jnp.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]] * 3)
      >>> learner = online.kernel_perceptron(kernels.polynomial(2), budget=8)
      >>> state, trace = core.run(learner, learner.init(X[0]), X, X[:, 0] * X[:, 1])  # XOR
      >>> trace.mistake.astype(int).tolist(), int(state.count)
      ([1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], 4)

    References:
      SS10 L5 section 7, Algorithm 4 (online form); UML Exercise 16.2.
    """
    budget = int(budget)

    def init(example_x, key=None):
        x = on_device(example_x)
        check_ndim("example_x", x, 1, "(d,)")
        dtype = float_dtype(x)
        return KernelPerceptronState(
            support=zeros((budget, x.shape[0]), dtype, like=x),
            alpha=zeros((budget,), dtype, like=x),
            count=zero_counter(),
        )

    def decision(state, x):
        return decision_function(state, kernel, x[None])[0]

    def update(state, x, y):
        check_width("x", x, state.support.shape[1])
        check_scalar_label(y)
        x = jnp.asarray(x).astype(state.support.dtype)
        y = jnp.asarray(y).astype(state.alpha.dtype)
        score = decision(state, x)
        mistake = y * score <= 0
        store = mistake & (state.count < budget)
        slot = jnp.minimum(state.count, budget - 1)
        new = KernelPerceptronState(
            support=state.support.at[slot].set(jnp.where(store, x, state.support[slot])),
            alpha=state.alpha.at[slot].set(jnp.where(store, y, state.alpha[slot])),
            count=state.count + store.astype(jnp.int32),
        )
        info = KernelPerceptronInfo(
            prediction=sign_label(score),
            loss=mistake.astype(score.dtype),
            mistake=mistake,
            budget_full=mistake & ~store,
        )
        return new, info

    def predict(state, x):
        check_width("x", x, state.support.shape[1])
        score = decision(state, jnp.asarray(x).astype(state.support.dtype))
        return sign_label(score)

    return Learner(init, update, predict, check_binary_stream)


def decision_function(state: KernelPerceptronState, kernel: Kernel, X: Array) -> Array:
    r"""The scores :math:`\sum_i \alpha_i K(x_i, x)` of a kernel Perceptron state on a batch ``X``."""
    return expansion(kernel, state.support, state.alpha, X)
