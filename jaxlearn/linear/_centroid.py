"""The closest-centroid classifier in a kernel's feature space (UML Exercise 16.6)."""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn._checks import check_positive_int, check_sample, is_concrete
from jaxlearn._shared import as_float, float_dtype
from jaxlearn.core import POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.kernels import Kernel, as_tree, check_kernel, expansion
from jaxlearn.linear._common import as_support_dtype, kernel_example

Array = jax.Array


@loadable
class KernelCentroidParams(NamedTuple):
    r"""``support``: the (m, d) training instances; ``alpha``: (m,) :math:`1/m_+` on the positive
    examples and :math:`-1/m_-` on the negative ones, so that :math:`w = c_+ - c_- = \sum_i \alpha_i
    \psi(x_i)`; ``b``: the scalar :math:`\frac12(\|c_-\|^2 - \|c_+\|^2)`."""

    support: Array
    alpha: Array
    b: Array


@learner_factory("kernel", ranges={"batch_size": POSITIVE_INT}, functions=("kernel",))
def kernel_centroid(kernel: Kernel, *, batch_size: Optional[int] = None) -> BatchLearner:
    r"""The closest-centroid classifier in a kernel's feature space (a tie is positive).

    .. math:: \tfrac12\big(\|\psi(x) - c_-\|^2 - \|\psi(x) - c_+\|^2\big) = \langle c_+ - c_-, \psi(x)\rangle
        + \tfrac12(\|c_-\|^2 - \|c_+\|^2), \qquad c_y = \frac{1}{m_y}\sum_{i: y_i = y}\psi(x_i),

    All through the kernel (:math:`m^2` values to fit, never stored); ``decision_function`` is this
    half-difference, ``predict`` +1 iff it is :math:`\ge 0`; ``key`` is unused.

    Args:
      kernel: ``k(x, z) -> scalar`` (:mod:`jaxlearn.kernels`); its numeric parameters are traced.
      batch_size: rows of kernel values computed at a time (``None``: all at once; static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`; ``fit`` (both labels) gives :class:`KernelCentroidParams`.
      An example of label 0 is in neither centroid (one-vs-one's other classes take no part).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import kernels, linear
      >>> X, y = jnp.array([[1.0], [3.0], [-1.0]]), jnp.array([1.0, 1.0, -1.0])  # c+ = 2, c- = -1
      >>> learner = linear.kernel_centroid(kernels.linear())
      >>> params = learner.fit(jax.random.PRNGKey(0), X, y)
      >>> learner.predict(params, jnp.array([[0.4], [0.5], [0.6]])).tolist()  # 0.5 is a tie
      [-1.0, 1.0, 1.0]

    References:
      UML Exercise 16.6.
    """
    kernel = as_tree(kernel)
    if batch_size is not None:
        batch_size = check_positive_int("batch_size", batch_size)

    def fit(key, X, y):
        if is_concrete(y) and not ((np.asarray(y) > 0).any() and (np.asarray(y) < 0).any()):
            raise ValueError(
                "expected `y` with examples of both classes -1 and +1, found one class only"
            )
        check_kernel(kernel, kernel_example(X))
        return _fit(kernel, *as_float(X, y), batch_size)  # bool/int X promoted before the kernel

    def decision_function(params, X):
        return _scores(kernel, params, as_support_dtype(params, X), batch_size)

    def predict(params, X):
        score = decision_function(params, X)
        return jnp.where(score >= 0, 1, -1).astype(score.dtype)

    return BatchLearner(fit, predict, decision_function, check_sample)


@functools.partial(jax.jit, static_argnums=(3,))
def _fit(kernel, X, y, batch_size):
    dtype = float_dtype(X)
    positive, negative = y > 0, y < 0  # an example of label 0 is in neither centroid
    one, zero = jnp.ones((), dtype), jnp.zeros((), dtype)
    # max(count, 1): a traced sample with one class gives a zero centroid for the other, never NaN
    m_pos = jnp.maximum(jnp.sum(positive), 1).astype(dtype)
    m_neg = jnp.maximum(jnp.sum(negative), 1).astype(dtype)
    a_pos = jnp.where(positive, one / m_pos, zero)
    a_neg = jnp.where(negative, one / m_neg, zero)
    # G @ [a_pos, a_neg] through the kernel, then ||c_y||^2 = a_y^T G a_y
    G_a = expansion(kernel, X, jnp.stack([a_pos, a_neg], axis=1), X, batch_size=batch_size)
    b = (jnp.vdot(a_neg, G_a[:, 1]) - jnp.vdot(a_pos, G_a[:, 0])) / 2
    return KernelCentroidParams(support=X, alpha=a_pos - a_neg, b=b)


@functools.partial(jax.jit, static_argnums=(3,))
def _scores(kernel, params, X, batch_size):
    return expansion(kernel, params.support, params.alpha, X, batch_size=batch_size) + params.b
