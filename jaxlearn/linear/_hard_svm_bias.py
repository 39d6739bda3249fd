r"""Hard-SVM with an unregularised bias, UML (15.2), by pairwise dual coordinate ascent (UML section 15.4).

.. math::
    \min_{w, b} \|w\|^2 \ \text{s.t.}\ y_i(\langle w, x_i\rangle + b) \ge 1
    \quad\Longleftrightarrow\quad
    \max_{\alpha \ge 0,\ \sum_i \alpha_i y_i = 0}\
    \sum_i \alpha_i - \frac12\Big\|\sum_i \alpha_i y_i x_i\Big\|^2

The equality constraint (stationarity in :math:`b`) rules out one-coordinate steps: every step moves a
pair, :math:`\alpha_i \mathrel{+}= y_i t`, :math:`\alpha_j \mathrel{-}= y_j t` (Platt's SMO), with
:math:`i` the most violating index and :math:`j` chosen by the second-order rule of Fan, Chen and Lin
(2005, LIBSVM's "WSS2"), :math:`t` the exact maximiser along that direction, clipped to :math:`\alpha \ge 0`.
Used by :func:`jaxlearn.linear.hard_svm` with ``fit_intercept=True``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from jaxlearn.linear._common import DualState, dual_unbounded, kkt_tolerance


# With s_t = y_t - <w, x_t> (= -y_t times the gradient of the dual objective), the KKT conditions are
# max_{t in I_up} s_t <= min_{t in I_low} s_t, I_up = {y = +1} u {alpha > 0}, I_low = {y = -1} u {alpha > 0};
# b = the midpoint of the two. Every constraint y_t(<w, x_t> + b) >= 1 then holds to half their gap,
# and holds with equality to within it where alpha_t > 0: "violation" below is that half-gap. The
# scores s are updated alongside alpha in a sweep of m pair steps and recomputed from w after it.
# The sample is centred first (w is unchanged, b shifts by <w, mean>), and on a sample that is not
# separable the dual is unbounded: ||w|| / sum(alpha) bounds the margin of every (w', b') (sum alpha y = 0)
# and the loop stops once it is below max(sqrt(eps), 1e-5) R, R the radius of the centred sample.
@functools.partial(jax.jit, static_argnames=("max_steps",))
def hard_svm_bias_fit(X, y, tol, present, *, max_steps):
    """``(w, b, alpha, violation, num_steps)`` of (15.2) over the examples marked ``present`` (bool,
    (m,)): float arrays in ``X``'s dtype, an int32 count."""
    dtype = X.dtype
    eps = jnp.finfo(dtype).eps
    tol = jnp.asarray(tol).astype(dtype)
    center = present_mean(X, present)
    Xc = jnp.where(present[:, None], X - center, jnp.zeros_like(X))  # an absent example: 0
    sq_norms = jnp.sum(Xc * Xc, axis=1)
    radius = jnp.sqrt(jnp.max(sq_norms))
    # one class: w = 0, b = y (no pair to step on)
    both = jnp.any(present & (y > 0)) & jnp.any(present & (y < 0))
    count = jnp.sum(present, dtype=jnp.int32)
    # a pair of points closer than sqrt(eps) R with opposite labels (no curvature: the dual is unbounded
    # along it) stops the loop: its margin is below the resolution
    min_curvature = jnp.maximum(eps * radius**2, jnp.finfo(dtype).tiny)

    def extremes(alpha, s):
        up = present & ((y > 0) | (alpha > 0))
        low = present & ((y < 0) | (alpha > 0))
        return jnp.max(jnp.where(up, s, -jnp.inf)), jnp.min(jnp.where(low, s, jnp.inf))

    def pair_step(_, carry):
        alpha, s, flat = carry
        up = present & ((y > 0) | (alpha > 0))
        low = present & ((y < 0) | (alpha > 0))
        i = jnp.argmax(jnp.where(up, s, -jnp.inf))
        k_i = Xc @ Xc[i]
        gain = s[i] - s  # the first-order gain of the pair (i, t)
        curvature = jnp.maximum(sq_norms[i] + sq_norms - 2 * k_i, min_curvature)  # ||x_i - x_t||^2
        candidate = low & (gain > 0)
        j = jnp.argmin(
            jnp.where(candidate, -(gain**2) / curvature, jnp.inf)
        )  # the largest dual increase
        found = jnp.any(candidate)
        flat = flat | (found & (curvature[j] <= min_curvature) & (y[i] != y[j]))
        t = gain[j] / curvature[j]
        t = jnp.where(y[i] < 0, jnp.minimum(t, alpha[i]), t)  # alpha_i + y_i t >= 0
        t = jnp.where(y[j] > 0, jnp.minimum(t, alpha[j]), t)  # alpha_j - y_j t >= 0
        t = jnp.where(found & ~flat, t, jnp.zeros_like(t))
        alpha = alpha.at[i].add(y[i] * t).at[j].add(-y[j] * t)
        return jnp.maximum(alpha, 0), s - t * (k_i - Xc @ Xc[j]), flat  # w moves by t (x_i - x_j)

    def kkt(alpha, w):
        high, low = extremes(alpha, y - Xc @ w)
        violation = jnp.where(both, (high - low) / 2, jnp.zeros_like(high))
        return violation, (violation <= kkt_tolerance(tol, radius, w)) | dual_unbounded(
            alpha, w, radius
        )

    def body(state):
        carry = (state.alpha, y - Xc @ state.w, jnp.array(False))
        alpha, _, flat = jax.lax.fori_loop(0, count, pair_step, carry)  # a pair step per example
        w = Xc.T @ (alpha * y)  # recompute: no drift from the incremental updates
        violation, stop = kkt(alpha, w)
        return DualState(alpha, w, violation, stop | flat, state.step + 1)

    def cond(state):
        return ~state.stop & (state.step < max_steps)

    zeros = jnp.zeros(X.shape[0], dtype)
    init = DualState(
        zeros, jnp.zeros(X.shape[1], dtype), jnp.asarray(jnp.inf, dtype), ~both, jnp.int32(0)
    )
    state = jax.lax.while_loop(cond, body, init)
    high, low = extremes(state.alpha, y - Xc @ state.w)
    first = y[jnp.argmax(present)]
    b = jnp.where(both, (high + low) / 2, first) - jnp.vdot(state.w, center)
    violation = jnp.where(both, state.violation, jnp.zeros_like(state.violation))
    return state.w, b, state.alpha, violation, state.step


def present_mean(X, present):
    """The mean of the rows of ``X`` marked ``present`` (``X``'s mean when every row is)."""
    total = jnp.sum(jnp.where(present[:, None], X, jnp.zeros_like(X)), axis=0)
    return total / jnp.sum(present).astype(X.dtype)
