r"""L-BFGS to a gradient tolerance, for the smooth regularised objectives (private to the
families), and the checks of per-example sample weights.

:func:`minimize_lbfgs` runs optax's L-BFGS (two-loop recursion, memory 10, zoom line search for the
strong Wolfe conditions; Nocedal & Wright, *Numerical Optimization*, Algorithms 7.4-7.5 and 3.5-3.6)
inside one bounded ``lax.while_loop`` until :math:`\max_j |\nabla_j f| \le` ``tol`` or ``max_iter``
iterations, as scikit-learn's ``lbfgs`` solver stops. Everything is traced, so it runs under ``jit``
and ``vmap``.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import optax.tree_utils as otu

from jaxlearn._checks import check_finite, check_ndim, is_concrete

Array = jax.Array


class LBFGSResult(NamedTuple):
    """``x``: the last iterate; ``value``: :math:`f(x)`; ``grad_norm``: :math:`\\max_j|\\nabla_j f(x)|`;
    ``n_iter``: the iterations made (int32); ``converged``: ``grad_norm <= tol``."""

    x: Any
    value: Array
    grad_norm: Array
    n_iter: Array
    converged: Array


def _max_abs(tree) -> Array:
    return jnp.max(jnp.stack([jnp.max(jnp.abs(leaf)) for leaf in jax.tree_util.tree_leaves(tree)]))


def minimize_lbfgs(
    fun: Callable[[Any], Array], x0: Any, *, tol: Any, max_iter: int, memory_size: int = 10
) -> LBFGSResult:
    r"""Minimise a smooth ``fun`` from ``x0`` (a pytree of float arrays) by L-BFGS.

    .. math:: x_{k+1} = x_k - \alpha_k H_k \nabla f(x_k), \quad \text{until}\
        \max_j |\nabla_j f(x_k)| \le \mathrm{tol} \text{ or } k = \mathrm{max\_iter},

    :math:`H_k` the two-loop recursion over the last ``memory_size`` pairs, :math:`\alpha_k` from the
    zoom line search (strong Wolfe; at most 50 trials, as scikit-learn asks of SciPy). A step that
    leaves :math:`x` unchanged (the line search found no decrease at the float resolution) ends the
    loop unconverged.

    Args:
      fun: the objective, ``fun(x) -> scalar``.
      x0: the start.
      tol: the gradient tolerance (traced).
      max_iter: the most iterations (static).
      memory_size: the pairs kept (static).

    Returns:
      :class:`LBFGSResult`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn._lbfgs import minimize_lbfgs
      >>> f = lambda x: jnp.sum((x - 3.0) ** 2)
      >>> result = minimize_lbfgs(f, jnp.zeros(2), tol=1e-6, max_iter=50)
      >>> result.x.round(4).tolist(), bool(result.converged)
      ([3.0, 3.0], True)

    References:
      Nocedal & Wright (2006), *Numerical Optimization*, 2nd ed., Algorithms 3.5-3.6, 7.4-7.5.
    """
    linesearch = optax.scale_by_zoom_linesearch(
        max_linesearch_steps=50, initial_guess_strategy="one"
    )
    opt = optax.lbfgs(memory_size=memory_size, linesearch=linesearch)
    value_and_grad = optax.value_and_grad_from_state(fun)
    dtype = jax.tree_util.tree_leaves(x0)[0].dtype
    tol = jnp.asarray(tol).astype(dtype)

    def cond(carry):
        _, _, grad_norm, k, stalled = carry
        return (grad_norm > tol) & (k < max_iter) & ~stalled

    def body(carry):
        x, state, _, k, _ = carry
        with jax.numpy_dtype_promotion(
            "standard"
        ):  # optax's internals are not strict-promotion clean
            value, grad = value_and_grad(x, state=state)
            updates, state = opt.update(grad, state, x, value=value, grad=grad, value_fn=fun)
            new = optax.apply_updates(x, updates)
        new = jax.tree_util.tree_map(lambda a, b: a.astype(b.dtype), new, x)
        moved = jnp.any(
            jnp.stack([jnp.any(a != b) for a, b in zip(*map(jax.tree_util.tree_leaves, (new, x)))])
        )
        grad_norm = _max_abs(otu.tree_get(state, "grad")).astype(dtype)
        finite = jnp.isfinite(grad_norm)
        return new, state, grad_norm, k + 1, ~moved | ~finite

    with jax.numpy_dtype_promotion("standard"):
        state = opt.init(x0)
    grad_norm = _max_abs(jax.grad(fun)(x0)).astype(dtype)
    init = (x0, state, grad_norm, jnp.zeros([], jnp.int32), jnp.zeros([], bool))
    x, state, grad_norm, k, _ = jax.lax.while_loop(cond, body, init)
    return LBFGSResult(x, jnp.asarray(fun(x)).astype(dtype), grad_norm, k, grad_norm <= tol)


def check_sample_weight(sample_weight: Any, num_examples: int) -> None:
    """``sample_weight`` ``None`` or of shape (m,) (shapes checked on tracers too); when concrete,
    finite, ``>= 0`` and not all zero."""
    if sample_weight is None:
        return
    check_ndim("sample_weight", sample_weight, 1, "(m,)")
    n = np.shape(sample_weight)[0]
    if n != num_examples:
        raise ValueError(
            f"expected `sample_weight` of shape (m,) with one weight per example, got {n} weights "
            f"for {num_examples} examples"
        )
    if not is_concrete(sample_weight):
        return
    check_finite("sample_weight", np.asarray(sample_weight, dtype=float))
    values = np.asarray(sample_weight, dtype=float)
    if (values < 0).any():
        raise ValueError(f"expected `sample_weight` >= 0, found {values.min():g}")
    if not values.sum() > 0:
        raise ValueError("expected `sample_weight` with a positive sum, got all zeros")
