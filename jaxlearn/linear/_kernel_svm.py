"""Soft-SVM with kernels by SGD, in the alpha/beta form (SPEC 10.8; UML section 16.3, Lemma 16.3).

The learner touches the examples only through the kernel: ``fit`` runs the book's SGD over the Gram
matrix, and ``decision_function`` scores new points by the expansion
:math:`\\sum_j \\bar\\alpha_j K(x_j, x)` (:func:`jaxlearn.kernels.expansion`). With the same key it visits
the same examples as :func:`jaxlearn.linear.soft_svm` (:func:`~jaxlearn.linear._sgd.sample_indices`),
so on an explicit feature map the two return the same predictor (Lemma 16.3; tested in float64).
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import BatchLearner, check_positive_int, float_dtype
from jaxlearn.kernels import Kernel, _check_batch_size, as_tree, check_kernel, expansion, gram
from jaxlearn.linear._common import (
    check_positive,
    check_sample,
    sample_indices,
    sign_label,
)

Array = jax.Array

#: The two soft-SVM SGD variants (SPEC 9.7): the divisor of :math:`\beta^{(t)}` in :math:`\alpha^{(t)}`.
VARIANTS = ("uml", "ss10")


class KernelSVMParams(NamedTuple):
    r"""``support``: the (m, d) training instances :math:`x_j`; ``alpha``: (m,) the averaged coefficients
    :math:`\bar\alpha`, so that :math:`\bar w = \sum_j \bar\alpha_j \psi(x_j)`; ``num_steps``: :math:`T`
    (int32)."""

    support: Array
    alpha: Array
    num_steps: Array


def kernel_svm(
    kernel: Kernel,
    lam: ArrayLike,
    steps: int,
    *,
    variant: str = "uml",
    precompute: bool = True,
    batch_size: Optional[int] = None,
) -> BatchLearner:
    r"""Soft-SVM with a kernel, by SGD on the coefficients (UML section 16.3, "SGD for Solving Soft-SVM
    with Kernels").

    The goal is UML (16.5), :math:`\min_w \frac\lambda2\|w\|^2 + \frac1m\sum_i
    \max\{0, 1 - y_i\langle w, \psi(x_i)\rangle\}`. Keeping :math:`\theta^{(t)} = \sum_j \beta_j^{(t)}
    \psi(x_j)` and :math:`w^{(t)} = \sum_j \alpha_j^{(t)} \psi(x_j)` (UML (16.6), (16.7)):

    .. math::
        \beta^{(1)} = 0; \quad \text{for } t = 1..T:\ \alpha^{(t)} = \frac{\beta^{(t)}}{\lambda t},\
        i \sim U[m],\ \beta^{(t+1)}_i = \beta^{(t)}_i + y_i \,
        1\Big[y_i \sum_j \alpha^{(t)}_j K(x_j, x_i) < 1\Big]; \qquad
        \bar\alpha = \frac1T \sum_{t=1}^T \alpha^{(t)}.

    The prediction is :math:`\operatorname{sign}(\sum_j \bar\alpha_j K(x_j, x))` (+1 iff the score is
    positive). UML Lemma 16.3: :math:`\sum_j \bar\alpha_j \psi(x_j)` is exactly the :math:`\bar w` of the
    feature-space SGD of UML section 15.5 run on the same indices. ``variant="ss10"`` divides by
    :math:`\lambda(t - 1)` instead (:math:`\alpha^{(1)} = 0`), the kernel form of SS10 Algorithm 7, which
    minimises the same objective (SPEC 9.7 explains why the two are not iterate-identical).

    Each step costs O(m): one row of the Gram matrix against :math:`\beta`. The average is not
    accumulated step by step: an increment of :math:`\beta_i` at step :math:`s` enters every later
    :math:`\alpha^{(t)}`, so :math:`\bar\alpha_i = \frac{1}{\lambda T}\sum_{s: i_s = i} \Delta_s
    \sum_{t=s+1}^T \frac1t` (``uml``) is one scatter-add after the scan.

    Memory: the precomputed Gram matrix has :math:`m^2` entries (m = 20,000 is 1.6 GB in float32). With
    ``precompute=False`` each step evaluates its row, :math:`m` kernel values, instead (memory O(m),
    time O(T m) kernel evaluations); ``batch_size`` bounds the intermediates of the Gram matrix and of
    ``decision_function`` to ``batch_size`` rows at a time.

    Args:
      kernel: ``k(x, z) -> scalar`` (:mod:`jaxlearn.kernels`): its numeric parameters (``sigma``) are
        traced, the rest is structural. Its output shape is checked at trace time.
      lam: :math:`\lambda > 0` (traced: sweep it with ``jax.vmap``; checked when concrete).
      steps: :math:`T`, the number of SGD steps (static).
      variant: ``"uml"`` (UML section 16.3, the default) or ``"ss10"`` (SS10 Algorithm 7).
      precompute: compute the Gram matrix once (True) or a row per step (False); same result.
      batch_size: rows of kernel values computed at a time (``None``: all at once).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y)`` with labels in {-1, +1} returns
      :class:`KernelSVMParams`; ``predict(params, X)`` the labels; ``decision_function(params, X)`` the
      scores :math:`\sum_j \bar\alpha_j K(x_j, x)`.

    Raises:
      ValueError: on a non-positive concrete ``lam``, ``steps`` not a positive int, an unknown
        ``variant``; ``fit`` on shapes, NaN/inf, labels outside {-1, +1}, or a kernel that does not
        return a scalar.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import kernels
      >>> X = jnp.array([[0.0, 0.0], [0.1, -0.1], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.1], [0.1, 2.0]])
      >>> y = jnp.array([1.0, 1.0, -1.0, -1.0, -1.0, -1.0])  # inside vs outside a circle
      >>> learner = kernel_svm(kernels.gaussian(0.5), lam=0.01, steps=500)
      >>> params = learner.fit(jax.random.PRNGKey(0), X, y)
      >>> learner.predict(params, X).tolist()
      [1.0, 1.0, -1.0, -1.0, -1.0, -1.0]

    References:
      UML section 16.3, Lemma 16.3 (SPEC 10.8); UML section 15.5 and SS10 Algorithm 7 (SPEC 9.7).
    """
    kernel = as_tree(kernel)
    steps = check_positive_int("steps", steps)
    check_positive("lam", lam)
    if variant not in VARIANTS:
        raise ValueError(f"expected `variant` in {VARIANTS}, got {variant!r}")
    if batch_size is not None:
        batch_size = _check_batch_size(batch_size)
    structure = dict(steps=steps, variant=variant, precompute=bool(precompute), batch_size=batch_size)

    def fit(key, X, y):
        check_sample(X, y)
        check_kernel(kernel, X)
        return _fit(kernel, key, jnp.asarray(X), jnp.asarray(y), lam, **structure)

    def decision_function(params, X):
        return _scores(kernel, params.support, params.alpha, X, batch_size)

    def predict(params, X):
        return sign_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function)


@functools.partial(jax.jit, static_argnames=("steps", "variant", "precompute", "batch_size"))
def _fit(kernel, key, X, y, lam, *, steps, variant, precompute, batch_size):
    dtype = float_dtype(X)
    m = X.shape[0]
    y = y.astype(dtype)
    lam = jnp.asarray(lam).astype(dtype)
    idx = sample_indices(key, steps, m)
    t = jnp.arange(1, steps + 1, dtype=jnp.int32)
    divisor = (t if variant == "uml" else jnp.maximum(t - 1, 1)).astype(dtype)  # alpha = beta / (lam d_t)

    if precompute:
        G = gram(kernel, X, batch_size=batch_size).astype(dtype)
        row = lambda i: G[i]
    else:
        row = lambda i: jax.vmap(kernel, in_axes=(0, None))(X, X[i]).astype(dtype)

    def step(beta, it):
        i, d = it
        violated = y[i] * (jnp.vdot(row(i), beta) / (lam * d)) < 1
        increment = jnp.where(violated, y[i], jnp.zeros((), dtype))
        return beta.at[i].add(increment), increment

    _, increments = jax.lax.scan(step, jnp.zeros((m,), dtype), (idx, divisor))
    # weight of step s's increment in sum_{t=1}^T beta^(t) / d_t: sum over t = s+1..T of 1 / d_t
    tail = jnp.cumsum((1 / divisor)[::-1])[::-1]  # sum over t = s..T, smallest terms first
    later = jnp.concatenate([tail[1:], jnp.zeros((1,), dtype)])
    alpha = jnp.zeros((m,), dtype).at[idx].add(increments * later) / (lam * jnp.asarray(steps, dtype))
    return KernelSVMParams(support=X, alpha=alpha, num_steps=jnp.asarray(steps, jnp.int32))


@functools.partial(jax.jit, static_argnums=(4,))
def _scores(kernel, support, alpha, X, batch_size):
    return expansion(kernel, support, alpha, X, batch_size=batch_size)
