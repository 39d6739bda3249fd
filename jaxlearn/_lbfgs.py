r"""L-BFGS to a gradient tolerance, for the smooth regularised objectives (private to the
families), and the checks of per-example sample weights.

:func:`minimize_lbfgs` runs L-BFGS (the two-loop recursion over the last 10 pairs, Nocedal & Wright,
*Numerical Optimization*, Algorithms 7.4-7.5) with a line search for the strong Wolfe conditions
(bracketing, then zooming by safeguarded cubic interpolation, Algorithms 3.5-3.6) until
:math:`\max_j |\nabla_j f| \le` ``tol`` or ``max_iter`` iterations, as scikit-learn's ``lbfgs``
solver stops. The iterations and the line search's trials are one ``lax.while_loop`` that evaluates
:math:`f` and :math:`\nabla f` once per turn, so the compiled program holds the objective twice (at
the start and in the loop) however many trials a line search makes. Everything is traced: it runs
under ``jit`` and ``vmap``.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree

from jaxlearn._checks import check_finite, check_ndim, is_concrete

Array = jax.Array

#: The strong Wolfe constants (sufficient decrease, curvature) of L-BFGS (Nocedal & Wright, 3.6-3.7).
ARMIJO, CURVATURE = 1e-4, 0.9
#: How much higher than f at the start the approximate Wolfe conditions let f be, relative to it.
APPROXIMATE = 1e-6
#: The most trials of the line search in one iteration (scikit-learn asks SciPy for 50).
MAX_TRIALS = 50


class LBFGSResult(NamedTuple):
    """``x``: the last iterate; ``value``: :math:`f(x)`; ``grad_norm``: :math:`\\max_j|\\nabla_j f(x)|`;
    ``n_iter``: the iterations made (int32); ``converged``: ``grad_norm <= tol``."""

    x: Any
    value: Array
    grad_norm: Array
    n_iter: Array
    converged: Array


class _Point(NamedTuple):  # a step length along the direction, f there and its slope
    step: Array
    value: Array
    slope: Array


class _State(NamedTuple):
    x: Array  # the iterate, its value and gradient
    value: Array
    grad: Array
    direction: Array
    trial: Array  # the step length tried next
    last: _Point  # bracketing: the previous trial (step 0 at the start of a line search)
    low: _Point  # zooming: the end of the interval with the lower value, and the other end
    high: _Point
    zooming: Array
    trials: Array
    S: Array  # the memory: the last steps s and gradient changes y in rows, oldest first, and
    Y: Array  # 1 / <s, y> (0: no pair in the row)
    rho: Array
    n_iter: Array
    stalled: Array


def _direction(grad, S, Y, rho):
    """:math:`-H \\nabla f` by the two-loop recursion (Nocedal & Wright, Algorithm 7.4) over the pairs
    in the rows of ``S`` and ``Y`` (oldest first; ``rho`` :math:`= 1/\\langle s, y\\rangle`, 0 in a row
    without a pair), :math:`H_0 = \\gamma I` with :math:`\\gamma = \\langle s, y\\rangle / \\langle y,
    y\\rangle` of the newest pair (1 without pairs). Only products of vectors, which round alike with
    and without ``vmap``."""
    used = rho != 0

    def backward(q, i):
        alpha = jnp.where(used[i], rho[i] * (S[i] @ q), 0.0)
        return q - alpha * Y[i], alpha

    q, alphas = jax.lax.scan(backward, grad, jnp.arange(S.shape[0]), reverse=True)  # newest first
    gamma = jnp.where(used[-1], 1 / (jnp.where(used[-1], rho[-1], 1.0) * (Y[-1] @ Y[-1])), 1.0)

    def forward(r, i):
        beta = rho[i] * (Y[i] @ r)
        return r + jnp.where(used[i], alphas[i] - beta, 0.0) * S[i], None

    r, _ = jax.lax.scan(forward, gamma * q, jnp.arange(S.shape[0]))
    return -r


def _choose(condition, a: _Point, b: _Point) -> _Point:
    return _Point(*(jnp.where(condition, x, y) for x, y in zip(a, b)))


def _interpolate(low: _Point, high: _Point) -> Array:
    """The minimiser of the cubic through both ends' values and slopes (Nocedal & Wright, (3.59)),
    kept at least a tenth of the interval from its ends; the midpoint where the cubic has none."""
    span = high.step - low.step
    d1 = low.slope + high.slope - 3 * (low.value - high.value) / (low.step - high.step)
    d2 = jnp.sign(span) * jnp.sqrt(jnp.maximum(d1 * d1 - low.slope * high.slope, 0.0))
    cubic = high.step - span * (high.slope + d2 - d1) / (high.slope - low.slope + 2 * d2)
    near, far = jnp.minimum(low.step, high.step), jnp.maximum(low.step, high.step)
    margin = 0.1 * (far - near)
    ok = jnp.isfinite(cubic) & (d1 * d1 >= low.slope * high.slope)
    return jnp.where(ok, jnp.clip(cubic, near + margin, far - margin), low.step + span / 2)


def minimize_lbfgs(
    fun: Callable[[Any], Array], x0: Any, *, tol: Any, max_iter: int, memory_size: int = 10
) -> LBFGSResult:
    r"""Minimise a smooth ``fun`` from ``x0`` (a pytree of float arrays) by L-BFGS.

    .. math:: x_{k+1} = x_k + \alpha_k d_k,\quad d_k = -H_k \nabla f(x_k), \quad \text{until}\
        \max_j |\nabla_j f(x_k)| \le \mathrm{tol} \text{ or } k = \mathrm{max\_iter},

    :math:`H_k` the two-loop recursion over the last ``memory_size`` pairs (a pair with
    :math:`\langle s, y\rangle \le \epsilon \|y\|^2` is not kept), :math:`\alpha_k` a step that
    satisfies the strong Wolfe conditions with constants :math:`10^{-4}` and :math:`0.9` (or, at the
    float resolution of :math:`f`, Hager and Zhang's approximate ones), tried first at 1 (at
    :math:`\min(1, 1/\|\nabla f(x_0)\|_2)` on the first iteration). A line search that finds no such
    step in 50 trials takes its last trial where that one lowers :math:`f`, and otherwise ends the loop
    unconverged, as does a step that leaves :math:`x` unchanged (no decrease at the float resolution).

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
    flat0, unravel = ravel_pytree(x0)
    dtype = flat0.dtype
    value_and_grad = jax.value_and_grad(lambda flat: jnp.asarray(fun(unravel(flat))).astype(dtype))
    tol = jnp.asarray(tol).astype(dtype)
    zero, one = jnp.zeros([], dtype), jnp.ones([], dtype)

    def restart(x, value, grad, direction, first):
        """A line search from ``x`` along ``direction``."""
        slope = grad @ direction
        trial = jnp.where(first, jnp.minimum(one, 1 / jnp.linalg.norm(grad)), one)
        at_zero = _Point(zero, value, slope)
        return dict(
            x=x,
            value=value,
            grad=grad,
            direction=direction,
            trial=trial,
            last=at_zero,
            low=at_zero,
            high=at_zero,
            zooming=jnp.zeros([], bool),
            trials=jnp.zeros([], jnp.int32),
        )

    def body(state: _State) -> _State:
        x, value, grad, direction = state.x, state.value, state.grad, state.direction
        slope0 = grad @ direction
        new_x = x + state.trial * direction
        new_value, new_grad = value_and_grad(new_x)
        here = _Point(state.trial, new_value, new_grad @ direction)
        # sufficient decrease, or near the float resolution of f the approximate one of Hager & Zhang
        # (2005): f no higher up to a relative 1e-6 and the slope down to (2 c1 - 1) of the first
        # (comparisons that are False where f is not finite)
        decrease = (here.value <= value + ARMIJO * here.step * slope0) | (
            (here.value <= value + APPROXIMATE * jnp.abs(value))
            & ((2 * ARMIJO - 1) * slope0 >= here.slope)
        )
        flat = jnp.abs(here.slope) <= CURVATURE * jnp.abs(slope0)
        trials = state.trials + 1
        take = (decrease & flat) | (decrease & (trials >= MAX_TRIALS))
        failed = ~take & (trials >= MAX_TRIALS)

        # the line search goes on: bracketing (Algorithm 3.5) until an interval holds a Wolfe step,
        # then zooming into it (Algorithm 3.6)
        worse = ~decrease | (here.value >= state.last.value) & (state.trials > 0)
        climbing = here.slope >= 0
        to_zoom = ~state.zooming & (worse | climbing)
        # bracketing: the interval (last, here) when here is worse, else (here, last)
        bracket_low, bracket_high = (
            _choose(worse, state.last, here),
            _choose(worse, here, state.last),
        )
        # zooming: here replaces the high end when it is no lower than the low end, else the low
        # end, the old low end becoming the high one when the slope points past it
        above = ~decrease | (here.value >= state.low.value)
        past = here.slope * (state.high.step - state.low.step) >= 0
        zoom_low = _choose(above, state.low, here)
        zoom_high = _choose(above, here, _choose(past, state.low, state.high))
        low = _choose(state.zooming, zoom_low, bracket_low)
        high = _choose(state.zooming, zoom_high, bracket_high)
        zooming = state.zooming | to_zoom
        trial = jnp.where(zooming, _interpolate(low, high), 2 * state.trial)
        searching = state._replace(
            trial=trial, last=here, low=low, high=high, zooming=zooming, trials=trials
        )

        # the step taken: the new pair into the memory, the next direction
        s, y = new_x - x, new_grad - grad
        sy = s @ y
        keep = sy > jnp.finfo(dtype).eps * (y @ y)
        S = jnp.where(keep, jnp.roll(state.S, -1, axis=0).at[-1].set(s), state.S)  # newest last
        Y = jnp.where(keep, jnp.roll(state.Y, -1, axis=0).at[-1].set(y), state.Y)
        rho = jnp.where(keep, jnp.roll(state.rho, -1).at[-1].set(1 / sy), state.rho)
        next_direction = _direction(new_grad, S, Y, rho)
        next_direction = jnp.where(new_grad @ next_direction < 0, next_direction, -new_grad)
        stepped = state._replace(
            **restart(new_x, new_value, new_grad, next_direction, jnp.zeros([], bool)),
            S=S,
            Y=Y,
            rho=rho,
        )

        moved = jnp.any(new_x != x)
        chosen = jax.tree.map(lambda a, b: jnp.where(take, a, b), stepped, searching)
        return chosen._replace(
            n_iter=state.n_iter + take.astype(jnp.int32), stalled=failed | (take & ~moved)
        )

    def cond(state: _State):
        grad_norm = jnp.max(jnp.abs(state.grad))
        return (grad_norm > tol) & (state.n_iter < max_iter) & ~state.stalled

    value, grad = value_and_grad(flat0)
    memory = (memory_size, flat0.shape[0])
    init = _State(
        **restart(flat0, value, grad, -grad, jnp.ones([], bool)),
        S=jnp.zeros(memory, dtype),
        Y=jnp.zeros(memory, dtype),
        rho=jnp.zeros(memory_size, dtype),
        n_iter=jnp.zeros([], jnp.int32),
        stalled=jnp.zeros([], bool),
    )
    state = jax.lax.while_loop(cond, body, init)
    grad_norm = jnp.max(jnp.abs(state.grad))
    return LBFGSResult(unravel(state.x), state.value, grad_norm, state.n_iter, grad_norm <= tol)


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
