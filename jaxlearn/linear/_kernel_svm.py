"""Soft-SVM with kernels by SGD, in the alpha/beta form (UML section 16.3, Lemma 16.3).

The learner touches the examples only through the kernel: ``fit`` runs the book's SGD over the Gram
matrix, and ``decision_function`` scores new points by the expansion
:math:`\\sum_j \\bar\\alpha_j K(x_j, x)` (:func:`jaxlearn.kernels.expansion`). With the same key it visits
the same examples as :func:`jaxlearn.linear.soft_svm` (``sample_indices``), so on an
explicit feature map the two return the same predictor (Lemma 16.3; tested in float64).
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._regularized import (
    average_of_increments,
    check_variant,
    regularized_sgd,
    sample_indices,
    step_scales,
)
from jaxlearn._shared import as_float, float_dtype, sign_label
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.kernels import Kernel, as_tree, check_kernel, expansion, gram
from jaxlearn.linear._common import as_support_dtype, kernel_example

Array = jax.Array
HIGHEST = jax.lax.Precision.HIGHEST  # float32 products in float32 (no TF32 on a GPU)
#: SGD steps per block when the Gram matrix is precomputed and T > m (:func:`_fit_in_blocks`).
BLOCK = 64


@loadable
class KernelSVMParams(NamedTuple):
    r"""``support``: the (m, d) training instances :math:`x_j`; ``alpha``: (m,) the averaged coefficients
    :math:`\bar\alpha`, so that :math:`\bar w = \sum_j \bar\alpha_j \psi(x_j)`; ``num_steps``: :math:`T`
    (int32)."""

    support: Array
    alpha: Array
    num_steps: Array


@learner_factory(
    "kernel",
    "lam",
    ranges={"lam": POSITIVE, "steps": POSITIVE_INT, "batch_size": POSITIVE_INT},
    functions=("kernel",),
)
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

    (``regularized_sgd`` with :math:`\theta = \beta`): by Lemma 16.3,
    :math:`\sum_j \bar\alpha_j \psi(x_j)` is the :math:`\bar w` of :func:`~jaxlearn.linear.soft_svm`.

    Args:
      kernel, lam: ``k(x, z)`` (:mod:`jaxlearn.kernels`; parameters traced); :math:`\lambda > 0` (traced).
      steps, variant: :math:`T` (static); ``"uml"`` or ``"ss10"`` (divide by :math:`\lambda(t-1)`).
      precompute, batch_size: the kernel matrix once, of the visited examples when :math:`T \le m`
        (:math:`T^2` memory and kernel evaluations) else the Gram matrix (:math:`m^2`, read in blocks of
        steps), or a row per step (O(m)); rows of kernel values computed at a time (``None``: all at once).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> KernelSVMParams`` (labels in {-1, +1}),
      ``predict`` the labels, ``decision_function`` the scores :math:`\sum_j \bar\alpha_j K(x_j, x)`
      (over the at most :math:`T` nonzero :math:`\bar\alpha_j` when :math:`T < m`).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import kernels
      >>> X = jnp.array([[0.0, 0.0], [0.1, -0.1], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.1], [0.1, 2.0]])
      >>> learner = kernel_svm(kernels.gaussian(0.5), lam=0.01, steps=500)  # +1 inside the unit circle
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, jnp.sign(1 - (X ** 2).sum(1))), X).tolist()
      [1.0, 1.0, -1.0, -1.0, -1.0, -1.0]

    References:
      UML section 16.3, Lemma 16.3; UML section 15.5 and SS10 Algorithm 7.
    """
    kernel = as_tree(kernel)
    steps = check_positive_int("steps", steps)
    check_variant(variant)
    if batch_size is not None:
        batch_size = check_positive_int("batch_size", batch_size)
    structure = dict(
        steps=steps, variant=variant, precompute=bool(precompute), batch_size=batch_size
    )

    def check(X, y):
        check_sample(X, y)
        check_kernel(kernel, kernel_example(X))

    def fit(key, X, y):  # bool/int X promoted before the kernel sees it
        return _fit(kernel, key, *as_float(X, y), lam, **structure)

    def decision_function(params, X):
        X = as_support_dtype(params, X)
        return _scores(kernel, params.support, params.alpha, X, batch_size, steps)

    def predict(params, X):
        return sign_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function, check=check)


@functools.partial(jax.jit, static_argnames=("steps", "variant", "precompute", "batch_size"))
def _fit(kernel, key, X, y, lam, *, steps, variant, precompute, batch_size):
    dtype = float_dtype(X)
    m = X.shape[0]
    idx = sample_indices(key, steps, m)
    if precompute and steps <= m:
        alpha = _fit_on_visited(kernel, X[idx], y[idx], idx, m, lam, variant, batch_size, dtype)
        return KernelSVMParams(support=X, alpha=alpha, num_steps=jnp.asarray(steps, jnp.int32))
    if precompute:
        G = gram(kernel, X, batch_size=batch_size).astype(dtype)
        alpha = _fit_in_blocks(G, y, idx, lam, variant, dtype)
        return KernelSVMParams(support=X, alpha=alpha, num_steps=jnp.asarray(steps, jnp.int32))
    row = lambda i: jax.vmap(kernel, in_axes=(0, None))(X, X[i]).astype(dtype)

    def hinge_subgradient(beta, scale, i):  # -y_i e_i on a margin violation, alpha = scale * beta
        violated = y[i] * (jnp.vdot(row(i), beta, precision=HIGHEST) * scale) < 1
        return i, -jnp.where(violated, y[i], jnp.zeros((), dtype))

    zeros = jnp.zeros((m,), dtype)
    alpha = regularized_sgd(hinge_subgradient, idx, lam, zeros, variant=variant, sparse=True)
    return KernelSVMParams(support=X, alpha=alpha, num_steps=jnp.asarray(steps, jnp.int32))


def _fit_on_visited(kernel, X_visited, y_visited, idx, m, lam, variant, batch_size, dtype):
    r"""The same SGD with one coefficient per step instead of per example (for ``T <= m``).

    :math:`\beta^{(t)}_j` sums the increments :math:`\delta_u = y_{i_u} 1[\text{violation at } u]` of
    the steps :math:`u < t` with :math:`i_u = j`, so the score
    :math:`\sum_j \beta^{(t)}_j K(x_j, x_{i_t}) = \sum_{u < t} \delta_u K(x_{i_u}, x_{i_t})` needs the
    (T, T) kernel matrix of the visited examples only; :math:`\bar\alpha` adds up each example's steps.
    """
    steps = idx.shape[0]
    K = gram(kernel, X_visited, batch_size=batch_size).astype(dtype)

    def hinge_subgradient(delta, scale, t):  # delta: the increments so far, zero from step t on
        violated = y_visited[t] * (jnp.vdot(K[t], delta, precision=HIGHEST) * scale) < 1
        return t, -jnp.where(violated, y_visited[t], jnp.zeros((), dtype))

    zeros = jnp.zeros((steps,), dtype)
    steps_range = jnp.arange(steps, dtype=jnp.int32)
    per_step = regularized_sgd(
        hinge_subgradient, steps_range, lam, zeros, variant=variant, sparse=True
    )
    return jnp.zeros((m,), dtype).at[idx].add(per_step)


def _fit_in_blocks(G, y, idx, lam, variant, dtype):
    r"""The same SGD over the Gram matrix, :data:`BLOCK` steps at a time (for ``T > m``).

    In a block the score of step :math:`t` is the score at the block's start (one product of the
    block's (BLOCK, m) rows of G with :math:`\beta`) plus the increments of the block's earlier steps
    through the (BLOCK, BLOCK) kernel matrix of its examples: the same iterates as one step at a time,
    with G read as one matrix-vector product per block. The padding steps past :math:`T` are not averaged.
    """
    steps, m = idx.shape[0], G.shape[0]
    scales = step_scales(lam, steps, variant, dtype)  # those of regularized_sgd
    padding = -steps % BLOCK
    blocks = jnp.concatenate([idx, jnp.zeros((padding,), idx.dtype)]).reshape(-1, BLOCK)
    block_scales = jnp.concatenate([scales, jnp.ones((padding,), dtype)]).reshape(-1, BLOCK)

    def block(beta, inputs):
        i, scale = inputs
        rows = G[i]
        start, within, labels = jnp.matmul(rows, beta, precision=HIGHEST), rows[:, i], y[i]

        def step(k, delta):  # delta: the block's increments y_i 1[violation] so far
            score = (start[k] + jnp.vdot(within[k], delta, precision=HIGHEST)) * scale[k]
            return delta.at[k].set(
                jnp.where(labels[k] * score < 1, labels[k], jnp.zeros((), dtype))
            )

        delta = jax.lax.fori_loop(0, BLOCK, step, jnp.zeros((BLOCK,), dtype))
        return beta.at[i].add(delta), delta

    _, increments = jax.lax.scan(block, jnp.zeros((m,), dtype), (blocks, block_scales))
    return average_of_increments(
        jnp.zeros((m,), dtype), idx, increments.reshape(-1)[:steps], scales
    )


@functools.partial(jax.jit, static_argnums=(4, 5))
def _scores(kernel, support, alpha, X, batch_size, size):
    """The expansion over the nonzero coefficients, ``size`` of them at a time (a fit of ``T < m`` steps
    has at most ``T``: then one chunk of ``T`` support points instead of all ``m``)."""
    m = alpha.shape[0]
    if size >= m:
        return expansion(kernel, support, alpha, X, batch_size=batch_size)
    count = jnp.count_nonzero(alpha)
    chunks = -(-m // size)
    nonzero = jnp.argsort(alpha == 0, stable=True)  # the nonzero coefficients first, in order
    nonzero = jnp.concatenate([nonzero, jnp.zeros((chunks * size - m,), nonzero.dtype)])
    coefficients = jnp.where(
        jnp.arange(chunks * size) < count, alpha[nonzero], jnp.zeros((), alpha.dtype)
    )

    def add_chunk(c, scores):
        j = jax.lax.dynamic_slice_in_dim(nonzero, c * size, size)
        a = jax.lax.dynamic_slice_in_dim(coefficients, c * size, size)
        return scores + expansion(kernel, support[j], a, X, batch_size=batch_size)

    zeros = jnp.zeros((X.shape[0],), alpha.dtype)
    return jax.lax.fori_loop(0, (count + size - 1) // size, add_chunk, zeros)
