"""Soft-SVM with kernels by SGD, in the alpha/beta form (SPEC 10.8; UML section 16.3, Lemma 16.3).

The learner touches the examples only through the kernel: ``fit`` runs the book's SGD over the Gram
matrix, and ``decision_function`` scores new points by the expansion
:math:`\\sum_j \\bar\\alpha_j K(x_j, x)` (:func:`jaxlearn.kernels.expansion`). With the same key it visits
the same examples as :func:`jaxlearn.linear.soft_svm` (:func:`~jaxlearn.core.sample_indices`), so on an
explicit feature map the two return the same predictor (Lemma 16.3; tested in float64).
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import (
    POSITIVE,
    POSITIVE_INT,
    BatchLearner,
    as_float,
    check_positive_int,
    check_sample,
    check_variant,
    float_dtype,
    learner_factory,
    regularized_sgd,
    sample_indices,
    sign_label,
)
from jaxlearn.kernels import Kernel, as_tree, check_kernel, expansion, gram
from jaxlearn.linear._common import as_support_dtype, kernel_example

Array = jax.Array


class KernelSVMParams(NamedTuple):
    r"""``support``: the (m, d) training instances :math:`x_j`; ``alpha``: (m,) the averaged coefficients
    :math:`\bar\alpha`, so that :math:`\bar w = \sum_j \bar\alpha_j \psi(x_j)`; ``num_steps``: :math:`T`
    (int32)."""

    support: Array
    alpha: Array
    num_steps: Array


@learner_factory("kernel", "lam", ranges={"lam": POSITIVE, "steps": POSITIVE_INT, "batch_size": POSITIVE_INT})
def kernel_svm(
    kernel: Kernel,
    lam: ArrayLike,
    steps: int,
    *,
    variant: str = "uml",
    precompute: bool = True,
    batch_size: Optional[int] = None,
) -> BatchLearner:
    r"""Soft-SVM with a kernel, by SGD on the coefficients (UML section 16.3).

    .. math:: \alpha^{(t)} = \frac{\beta^{(t)}}{\lambda t},\quad \beta^{(t+1)}_i = \beta^{(t)}_i
        + y_i 1[y_i \sum_j \alpha^{(t)}_j K(x_j, x_i) < 1],\quad \bar\alpha = \frac1T\sum_t \alpha^{(t)}

    (:func:`~jaxlearn.core.regularized_sgd` with :math:`\theta = \beta`): by Lemma 16.3,
    :math:`\sum_j \bar\alpha_j \psi(x_j)` is the :math:`\bar w` of :func:`~jaxlearn.linear.soft_svm`.

    Args:
      kernel, lam: ``k(x, z)`` (:mod:`jaxlearn.kernels`; parameters traced); :math:`\lambda > 0` (traced).
      steps, variant: :math:`T` (static); ``"uml"`` or ``"ss10"`` (divide by :math:`\lambda(t-1)`).
      precompute, batch_size: the Gram matrix once (:math:`m^2` memory) or a row per step (O(m)); rows of
        kernel values computed at a time (``None``: all at once).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> KernelSVMParams`` (labels in {-1, +1}),
      ``predict`` the labels, ``decision_function`` the scores :math:`\sum_j \bar\alpha_j K(x_j, x)`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import kernels
      >>> X = jnp.array([[0.0, 0.0], [0.1, -0.1], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.1], [0.1, 2.0]])
      >>> learner = kernel_svm(kernels.gaussian(0.5), lam=0.01, steps=500)  # +1 inside the unit circle
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, jnp.sign(1 - (X ** 2).sum(1))), X).tolist()
      [1.0, 1.0, -1.0, -1.0, -1.0, -1.0]

    References:
      UML section 16.3, Lemma 16.3 (SPEC 10.8); UML section 15.5 and SS10 Algorithm 7 (SPEC 9.7).
    """
    kernel = as_tree(kernel)
    steps = check_positive_int("steps", steps)
    check_variant(variant)
    if batch_size is not None:
        batch_size = check_positive_int("batch_size", batch_size)
    structure = dict(steps=steps, variant=variant, precompute=bool(precompute), batch_size=batch_size)

    def check(X, y):
        check_sample(X, y)
        check_kernel(kernel, kernel_example(X))

    def fit(key, X, y):  # bool/int X promoted before the kernel sees it
        return _fit(kernel, key, *as_float(X, y), lam, **structure)

    def decision_function(params, X):
        return _scores(kernel, params.support, params.alpha, as_support_dtype(params, X), batch_size)

    def predict(params, X):
        return sign_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function, check=check)


@functools.partial(jax.jit, static_argnames=("steps", "variant", "precompute", "batch_size"))
def _fit(kernel, key, X, y, lam, *, steps, variant, precompute, batch_size):
    dtype = float_dtype(X)
    m = X.shape[0]
    if precompute:
        G = gram(kernel, X, batch_size=batch_size).astype(dtype)
        row = lambda i: G[i]
    else:
        row = lambda i: jax.vmap(kernel, in_axes=(0, None))(X, X[i]).astype(dtype)

    def hinge_subgradient(beta, scale, i):  # -y_i e_i on a margin violation, alpha = scale * beta
        violated = y[i] * (jnp.vdot(row(i), beta) * scale) < 1
        return i, -jnp.where(violated, y[i], jnp.zeros((), dtype))

    idx = sample_indices(key, steps, m)
    zeros = jnp.zeros((m,), dtype)
    alpha = regularized_sgd(hinge_subgradient, idx, lam, zeros, variant=variant, sparse=True)
    return KernelSVMParams(support=X, alpha=alpha, num_steps=jnp.asarray(steps, jnp.int32))


@functools.partial(jax.jit, static_argnums=(4,))
def _scores(kernel, support, alpha, X, batch_size):
    return expansion(kernel, support, alpha, X, batch_size=batch_size)
