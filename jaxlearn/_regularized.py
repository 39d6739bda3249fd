r"""The one SGD driver of the regularised learners (private to the families).

Soft-SVM, its kernel form, the multiclass, ranking and structured SVMs all run the book's SGD for
regularised loss minimisation (UML section 15.5; SS10 Algorithm 7) and differ only in the sub-gradient
of their loss: :func:`regularized_sgd` is that loop, once; each learner supplies ``(w, i) -> v``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._progress import scan

Array = jax.Array

#: The divisor of :math:`\theta^{(t)}`: :math:`\lambda t` (UML section 15.5) or :math:`\lambda(t-1)` (SS10
#: section 19, Algorithm 7).
VARIANTS = ("uml", "ss10")


def check_variant(variant: str) -> str:
    """``variant`` if it is one of :data:`VARIANTS`, else a ``ValueError``."""
    if variant not in VARIANTS:
        raise ValueError(f"expected `variant` in {VARIANTS}, got {variant!r}")
    return variant


def sample_indices(key: Array, steps: int, m: int) -> Array:
    """The examples SGD visits: ``jax.random.randint(key, (steps,), 0, m)`` (uniform, with replacement),
    int32 whether or not x64 is on, so float32 and float64 fits visit the same examples."""
    return jax.random.randint(key, (steps,), 0, m, dtype=jnp.int32)


def present_indices(key: Array, steps: int, weight: Array) -> tuple[Array, Array]:
    r"""The examples SGD visits when some have weight 0: ``(idx, count)``.

    ``idx`` (``steps``,) are :func:`sample_indices`' draws over the :math:`m_+` examples of positive
    ``weight`` (m,), each mapped to that example's position (with every weight positive, the draws
    themselves); ``count`` is how many of them to run, :math:`\lfloor T m_+ / m \rfloor` (at least
    one), the steps per example of the whole sample. Appending examples of weight 0 to a sample,
    with ``steps`` grown by as many per example, changes neither the first ``count`` draws (JAX's
    partitionable threefry, its default, draws element ``t`` from ``t`` alone) nor ``count``.
    """
    m = weight.shape[0]
    present = weight > 0
    m_plus = jnp.sum(present, dtype=jnp.int32)
    iota = jnp.arange(m, dtype=jnp.int32)
    rows = jax.lax.top_k(jnp.where(present, -iota, -iota - m), m)[1]  # present first, in order
    draws = jax.random.randint(key, (steps,), 0, m_plus, dtype=jnp.int32)
    whole, rest = divmod(steps, m)  # T = whole m + rest; rest m_+ / m rounded down in float32
    count = whole * m_plus + jnp.floor((rest / m) * m_plus.astype(jnp.float32)).astype(jnp.int32)
    return rows[draws], jnp.maximum(count, 1)


def hinge_subgradient(X: Array, y: Array) -> Callable[[Array, Array], Array]:
    r"""The sub-gradient of the hinge loss on example ``i`` of ``(X, y)`` as :func:`regularized_sgd` takes
    it, ``(w, i) -> v``: :math:`v = -\mathbb 1[y_i \langle w, x_i\rangle < 1]\, y_i x_i` (UML section 15.5;
    at the kink, margin exactly 1, the sub-gradient 0). Soft-SVM's step, and each all-pairs pair's.

    Examples:
      >>> import jax.numpy as jnp
      >>> step = hinge_subgradient(jnp.array([[1.0, 2.0], [3.0, 0.0]]), jnp.array([1.0, -1.0]))
      >>> step(jnp.zeros(2), 1)  # margin 0 < 1: -y x
      Array([3., 0.], dtype=float32)
      >>> bool(jnp.all(step(jnp.array([1.0, 0.0]), 0) == 0))  # margin exactly 1: no step
      True
    """

    def subgradient(w, i):
        x, label = X[i], y[i]
        return -(jnp.where(label * jnp.vdot(w, x) < 1, label, jnp.zeros_like(label)) * x)

    return subgradient


def regularized_sgd(
    subgradient: Callable[[Any, Array], Any],
    idx: Array,
    lam: ArrayLike,
    zeros: Any,
    *,
    variant: str = "uml",
    sparse: bool = False,
    progress: bool = False,
    count: Optional[ArrayLike] = None,
) -> Any:
    r"""SGD for regularised loss minimisation, averaged (UML section 15.5; SS10 Algorithm 7).

    .. math::
        \theta^{(1)} = 0;\quad t = 1..T:\ w^{(t)} = \frac{\theta^{(t)}}{\lambda d_t},\
        \theta^{(t+1)} = \theta^{(t)} - v_t;\quad \bar w = \frac1T\sum_{t=1}^T w^{(t)}

    :math:`v_t` a sub-gradient of the loss at :math:`w^{(t)}` on example :math:`i_t`; :math:`d_t = t`
    (``"uml"``) or :math:`\max(t - 1, 1)` (``"ss10"``). One ``lax.scan``, scales computed up front.

    Args:
      subgradient: ``(w, i) -> v``, the loss's sub-gradient at ``w`` on example ``i``.
      idx: the visited examples :math:`i_1..i_T` (:func:`sample_indices`), shape ``(T,)``.
      lam: :math:`\lambda > 0` (may be traced).
      zeros: :math:`\theta^{(1)} = 0`, an array (or pytree of arrays) fixing the shape and dtype of ``w``.
      variant: ``"uml"`` or ``"ss10"`` (static).
      sparse: the sub-gradient has one non-zero coordinate (the kernel SVM's :math:`-y_i e_i`): then
        ``subgradient(theta, scale, i) -> (j, v_j)`` with :math:`w^{(t)} = scale \cdot \theta^{(t)}`,
        a step costs the learner's score only, and :math:`\bar w` is formed after the loop from the
        increments (each weighted by :math:`\sum_{t > u} 1/(\lambda d_t)`).
      progress: a tqdm bar over the steps (static; needs the ``progress`` extra).
      count: run the first ``count`` steps of ``idx`` only, :math:`1 \le` ``count`` :math:`\le T`
        (may be traced: one program for every count), and average their iterates; ``None``: all
        (not with ``sparse`` or ``progress``).

    Returns:
      :math:`\bar w`, shaped like ``zeros``.

    Examples:
      >>> import jax.numpy as jnp
      >>> X, y = jnp.array([[1.0, 0.0], [0.0, -1.0]]), jnp.array([1.0, -1.0])
      >>> hinge = lambda w, i: -jnp.where(y[i] * (X[i] @ w) < 1, y[i], 0.0) * X[i]
      >>> regularized_sgd(hinge, jnp.array([0, 1]), 1.0, jnp.zeros(2)).tolist()  # (0 + (1/2, 0)) / 2
      [0.25, 0.0]
    """
    check_variant(variant)
    dtype = jax.tree_util.tree_leaves(zeros)[0].dtype
    steps = idx.shape[0]
    scales = step_scales(lam, steps, variant, dtype)

    if count is not None and (sparse or progress):
        raise ValueError("expected `count` None with `sparse=True` or `progress=True`")
    if sparse:
        return _sparse_sgd(subgradient, idx, scales, zeros)

    def step(carry, it):
        theta, total = carry
        i, scale = it
        w = jax.tree_util.tree_map(lambda a: a * scale, theta)
        theta = jax.tree_util.tree_map(jnp.subtract, theta, subgradient(w, i))
        return (theta, jax.tree_util.tree_map(jnp.add, total, w)), None

    if count is None:
        (_, total), _ = scan(
            step, (zeros, zeros), (idx, scales), progress=progress, desc="jaxlearn SGD"
        )
    else:  # a loop of `count` steps: one program for every count, no step past it
        theta_total = jax.lax.fori_loop(
            0, count, lambda t, carry: step(carry, (idx[t], scales[t]))[0], (zeros, zeros)
        )
        total = theta_total[1]
    run = steps if count is None else count
    return jax.tree_util.tree_map(lambda a: a / jnp.asarray(run, a.dtype), total)


def _sparse_sgd(subgradient, idx, scales, zeros):
    def step(theta, it):
        i, scale = it
        j, v = subgradient(theta, scale, i)
        return theta.at[j].add(-v), (j, v)

    _, (coordinates, values) = jax.lax.scan(step, zeros, (idx, scales))
    return average_of_increments(zeros, coordinates, -values, scales)


def step_scales(lam: ArrayLike, steps: int, variant: str, dtype) -> Array:
    r"""The scales :math:`1/(\lambda d_t)`, :math:`t = 1..T`, of :math:`w^{(t)} = \theta^{(t)}/(\lambda d_t)`,
    with :math:`d_t = t` (``"uml"``) or :math:`\max(t - 1, 1)` (``"ss10"``)."""
    t = jnp.arange(1, steps + 1, dtype=jnp.int32).astype(dtype)
    divisors = t if variant == "uml" else jnp.maximum(t - 1, 1)
    return 1 / (jnp.asarray(lam).astype(dtype) * divisors)


def average_of_increments(
    zeros: Array, coordinates: Array, increments: Array, scales: Array
) -> Array:
    r""":math:`\bar w = \frac1T \sum_t w^{(t)}` of a sparse run, from its increments: step :math:`u`
    adds ``increments[u]`` to :math:`\theta_{coordinates[u]}`, which is in every :math:`\theta^{(t)}`,
    :math:`t > u` (``scales`` from :func:`step_scales`)."""
    tail = jnp.cumsum(scales[::-1])[::-1]  # sum over t = u..T, smallest terms first
    later = jnp.concatenate([tail[1:], jnp.zeros((1,), scales.dtype)])
    total = zeros.at[coordinates].add(increments * later)
    return total / jnp.asarray(scales.shape[0], total.dtype)
