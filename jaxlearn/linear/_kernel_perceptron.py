"""The batch kernel Perceptron on the Gram matrix (SS10 L5 Algorithm 4; UML Exercise 16.2)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._shared import as_float, sign_label
from jaxlearn.core import POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.kernels import Kernel, as_tree, check_kernel, expansion, gram
from jaxlearn.linear._common import as_support_dtype, cyclic_passes, kernel_example

Array = jax.Array
HIGHEST = jax.lax.Precision.HIGHEST  # float32 products in float32 (no TF32 on a GPU)


@loadable
class KernelBatchPerceptronParams(NamedTuple):
    r"""``support``: the (m, d) training instances; ``alpha``: (m,) the coefficients, so that
    :math:`w = \sum_i \alpha_i \psi(x_i)` (:math:`\alpha_i` is :math:`y_i` times the updates made on
    example :math:`i`); ``num_updates``, ``num_epochs``: updates and passes over the sample (int32);
    ``converged``: the last pass made no update (every :math:`y_i (G\alpha)_i > 0`). ``False`` after
    ``max_epochs`` passes: the sample is not separable in feature space, or more passes are needed."""

    support: Array
    alpha: Array
    num_updates: Array
    num_epochs: Array
    converged: Array


@learner_factory("kernel", ranges={"max_epochs": POSITIVE_INT}, functions=("kernel",))
def kernel_batch_perceptron(kernel: Kernel, max_epochs: int = 1000) -> BatchLearner:
    r"""The batch Perceptron in a kernel's feature space, run on the Gram matrix :math:`G_{ij} = K(x_i, x_j)`.

    .. math::
        \alpha = 0; \quad \text{while } \exists i: y_i (G\alpha)_i \le 0:
        \; \alpha_i \leftarrow \alpha_i + y_i,
        \qquad h(x) = \mathrm{sign}\Big(\sum_i \alpha_i K(x_i, x)\Big)

    with :math:`(G\alpha)_i = \sum_j \alpha_j K(x_j, x_i)`, the violating :math:`i` taken in a cyclic scan
    as :func:`~jaxlearn.linear.batch_perceptron` takes it: the same updates as that Perceptron on
    :math:`\psi(x_1), \dots, \psi(x_m)`, :math:`w = \sum_i \alpha_i \psi(x_i)` at every step. At most
    :math:`(R/\gamma)^2` updates, :math:`R^2 = \max_i K(x_i, x_i)` and :math:`\gamma` the margin in feature
    space (:func:`jaxlearn.theory.perceptron_mistake_bound`; SS10's :math:`1/\gamma^2` for a kernel with
    :math:`K(x, x) = 1`). The Gram matrix is built once (:math:`m^2` memory); ``key`` is unused.

    Args:
      kernel: ``k(x, z) -> scalar`` (:mod:`jaxlearn.kernels`); its numeric parameters are traced.
      max_epochs: the most passes over the sample (static; ``params.converged`` tells if it stopped earlier).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner` (labels :math:`\pm1`; a zero score predicts -1); ``fit``
      gives :class:`KernelBatchPerceptronParams`, ``decision_function`` the expansion
      :math:`\sum_i \alpha_i K(x_i, x)`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import kernels, linear
      >>> X = jnp.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
      >>> learner = linear.kernel_batch_perceptron(kernels.polynomial(2))
      >>> params = learner.fit(None, X, X[:, 0] * X[:, 1])  # XOR: no halfspace of R^2 separates it
      >>> params.alpha.tolist(), int(params.num_updates), bool(params.converged)
      ([1.0, -1.0, -1.0, 1.0], 4, True)

    References:
      SS10 L5 section 7, Algorithm 4 and its exercise; UML Exercise 16.2.
    """
    kernel = as_tree(kernel)
    max_epochs = check_positive_int("max_epochs", max_epochs)

    def fit(key, X, y):
        del key  # deterministic: cyclic passes
        check_kernel(kernel, kernel_example(X))
        return _fit(kernel, *as_float(X, y), max_epochs=max_epochs)  # bool/int X promoted first

    def decision_function(params, X):
        return _scores(kernel, params, as_support_dtype(params, X))

    def predict(params, X):
        return sign_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function, check_sample)


# One compiled program per (kernel structure, shapes, max_epochs): a kernel of another sigma reuses it.
@functools.partial(jax.jit, static_argnames=("max_epochs",))
def _fit(kernel, X, y, *, max_epochs):
    columns = gram(kernel, X).T.astype(X.dtype)  # row i: K(x_j, x_i) over j

    def visit(alpha, i):
        violated = y[i] * jnp.matmul(columns[i], alpha, precision=HIGHEST) <= 0
        return alpha.at[i].add(jnp.where(violated, y[i], jnp.zeros_like(y[i]))), violated

    alpha0 = jnp.zeros(X.shape[0], X.dtype)
    alpha, updates, epochs, converged = cyclic_passes(visit, alpha0, X.shape[0], max_epochs)
    return KernelBatchPerceptronParams(X, alpha, updates, epochs, converged)


@jax.jit
def _scores(kernel, params, X):
    return expansion(kernel, params.support, params.alpha, X)
