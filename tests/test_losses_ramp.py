"""The ramp loss min{1, max{0, 1 - y<w, x>}} (UML section 15.2.3; SPEC 6.1): 0-1 on mistakes, between the
0-1 and hinge losses, sensitive to the scale of w, not convex, and its sub-gradient convention."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import losses


@functools.partial(jax.jit, static_argnames=("n", "d"))
def _examples(key, n=2000, d=4):
    """Random w, x, y with margins spread over [-3, 3], plus margins exactly 0 and 1 (the kinks)."""
    kw, kx, ky = jax.random.split(key, 3)
    W = jax.random.normal(kw, (n, d))
    X = jax.random.normal(kx, (n, d))
    y = jnp.where(jax.random.bernoulli(ky, 0.5, (n,)), 1.0, -1.0)
    margins = jnp.einsum("nd,nd->n", W, X) * y
    target = jnp.concatenate([jnp.zeros(5), jnp.ones(5), jnp.linspace(-3.0, 3.0, n - 10)])
    W = W * (target / margins)[:, None]  # y <w, x> = target exactly, up to rounding
    return W, X, y


def _batch(loss, W, X, y):
    return jax.jit(jax.vmap(loss))(W, X, y)


def test_ramp_is_zero_one_on_mistakes_and_between_zero_one_and_hinge(x64):
    """UML 15.2.3: the ramp equals the 0-1 loss where y<w, x> <= 0 and 0-1 <= ramp <= hinge everywhere;
    it is the hinge capped at 1."""
    W, X, y = _examples(jax.random.PRNGKey(0))
    margin = jnp.einsum("nd,nd->n", W, X) * y
    ramp, zero_one, hinge = (
        _batch(f, W, X, y) for f in (losses.ramp, losses.zero_one, losses.hinge)
    )
    mistakes = margin <= 0
    assert int(mistakes.sum()) > 900  # both sides of 0 are covered
    np.testing.assert_array_equal(ramp[mistakes], zero_one[mistakes])
    np.testing.assert_array_equal(ramp[mistakes], 1.0)
    assert bool(jnp.all(zero_one <= ramp)) and bool(jnp.all(ramp <= hinge))
    np.testing.assert_allclose(ramp, jnp.minimum(1.0, hinge), rtol=0, atol=1e-15)
    strictly_between = (margin > 1e-9) & (margin < 1 - 1e-9)
    assert bool(jnp.all(zero_one[strictly_between] < ramp[strictly_between]))  # a surrogate there
    assert bool(jnp.all(ramp[margin < -1e-9] < hinge[margin < -1e-9]))  # and tighter than the hinge


def test_ramp_depends_on_the_scale_of_w_unlike_zero_one(x64):
    """Scale sensitivity (UML 15.2.3): the 0-1 loss of c w is that of w for every c > 0; the ramp of a
    correct prediction with margin 1/2 is 1 - c/2, down to 0 for c >= 2."""
    w, x, y = jnp.array([0.5, 0.0]), jnp.array([1.0, 3.0]), 1.0
    scales = jnp.array([0.25, 0.5, 1.0, 2.0, 4.0])
    ramp = jnp.stack([losses.ramp(c * w, x, y) for c in scales])
    zero_one = jnp.stack([losses.zero_one(c * w, x, y) for c in scales])
    np.testing.assert_array_equal(zero_one, 0.0)
    np.testing.assert_allclose(ramp, [0.875, 0.75, 0.5, 0.0, 0.0], rtol=0, atol=1e-15)


def test_ramp_is_not_convex_where_the_hinge_is(x64):
    """Non-convexity (UML 15.2.3): f((u + v)/2) <= (f(u) + f(v))/2 fails for the ramp at u = -3, v = 3/2
    (x = 1, y = 1: the midpoint is a mistake, 1 > 1/2); over random pairs the ramp breaks Jensen's
    inequality often while the hinge never does."""
    x, y = jnp.array([1.0]), 1.0
    u, v = jnp.array([-3.0]), jnp.array([1.5])
    mid = losses.ramp((u + v) / 2, x, y)
    assert float(mid) == 1.0 > float((losses.ramp(u, x, y) + losses.ramp(v, x, y)) / 2) == 0.5
    W, X, Y = _examples(jax.random.PRNGKey(1), n=1000)
    V = jnp.roll(W, 1, axis=0) * 2  # pairs (w, v) on the same example (x, y)

    @jax.jit
    def jensen_gaps(W, V):
        gaps = []
        for loss in (losses.ramp, losses.hinge):
            f = jax.vmap(loss)
            gaps.append(f((W + V) / 2, X, Y) - (f(W, X, Y) + f(V, X, Y)) / 2)
        return gaps

    ramp_gap, hinge_gap = jensen_gaps(W, V)

    assert int((ramp_gap > 1e-9).sum()) > 50
    assert float(hinge_gap.max()) <= 1e-12


@pytest.mark.parametrize(
    "target,slope", [(-2.0, 0.0), (0.0, 0.0), (0.5, 1.0), (1.0, 0.0), (2.0, 0.0)]
)
def test_ramp_gradient_is_minus_y_x_inside_the_ramp_and_zero_elsewhere(target, slope, x64):
    """The sub-gradient convention: -y x where 0 < y<w, x> < 1, else 0 (0 at both kinks, as the hinge's)."""
    x, y = jnp.array([1.0, -2.0, 0.5]), -1.0
    w = x * (target / (y * jnp.vdot(x, x)))  # y <w, x> = target
    np.testing.assert_allclose(y * jnp.vdot(w, x), target, atol=1e-15)
    np.testing.assert_allclose(jax.grad(losses.ramp)(w, x, y), -slope * y * x, rtol=0, atol=1e-15)


def test_ramp_is_norm_x_lipschitz(x64):
    """Like the hinge (UML Claim 15.6), the ramp is ||x||-Lipschitz in w: the measured ratio
    |f(u) - f(v)| / ||u - v|| never exceeds ||x|| and reaches it for u - v along x inside the ramp."""
    key_u, key_v = jax.random.split(jax.random.PRNGKey(2))
    x, y = jnp.array([0.6, -0.8, 2.0]), 1.0
    U = jax.random.normal(key_u, (4000, 3))
    V = U + 0.3 * jax.random.normal(key_v, (4000, 3))
    f = jax.jit(jax.vmap(losses.ramp, (0, None, None)))
    ratios = jnp.abs(f(U, x, y) - f(V, x, y)) / jnp.linalg.norm(U - V, axis=1)
    norm = float(jnp.linalg.norm(x))
    assert float(ratios.max()) <= norm * (1 + 1e-12)
    u = x * (0.2 / jnp.vdot(x, x))  # margin 0.2; v = u + 0.1 x / ||x||^2 has margin 0.3
    v = u + x * (0.1 / jnp.vdot(x, x))
    ratio = jnp.abs(losses.ramp(u, x, y) - losses.ramp(v, x, y)) / jnp.linalg.norm(u - v)
    np.testing.assert_allclose(ratio, norm, rtol=1e-12)
