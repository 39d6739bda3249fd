"""The Perceptron as sub-gradient descent (UML section 14.8, Exercise 3; SPEC 4.9) and as conservative
online gradient descent on the hinge loss (COMP0078 "Deriving the perceptron algorithm/bound from OGD";
SPEC 4.10), through the public learners and plain ``jnp``.

On a separable sample with w* the minimal-norm vector with y_i <w*, x_i> >= 1 (``linear.hard_svm``),
f(w) = max_i (1 - y_i <w, x_i>).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, linear, losses, online, theory


def _sample(seed=0, m=60, d=4, margin=0.1):
    X, y, _ = datasets.separable(jax.random.PRNGKey(seed), m, d, margin, dtype=jnp.float64)
    return X, y


def _orthogonal(n=8):
    """x_i = e_i with mixed labels: w* = sum_i y_i e_i, ||w*||^2 = n, R = 1: the worst case."""
    return jnp.eye(n), jnp.where(jnp.arange(n) % 3 == 0, -1.0, 1.0)


def _f(w, X, y):
    """f(w) = max_i (1 - y_i <w, x_i>) for one w (d,) or a batch (k, d) (NumPy or JAX arrays)."""
    return (1 - y * (w @ X.T)).max(axis=-1)


def _subgradient(w, X, y):
    """-y_j x_j for j = argmax_i (1 - y_i <w, x_i>), the most violated example (first on ties)."""
    j = jnp.argmax(1 - y * (X @ w))
    return -y[j] * X[j], j


def _min_norm_separator(X, y):
    params = linear.hard_svm(tol=1e-11).fit(None, X, y)  # exact to 1e-11 (float64)
    assert bool(params.converged)
    return params.w


def _subgradient_descent(X, y, eta, steps):
    """w_{t+1} = w_t - eta g_t from w_1 = 0: the iterates (steps + 1, d) and the picked indices."""

    def step(w, _):
        g, j = _subgradient(w, X, y)
        return w - eta * g, (w, j)

    last, (ws, picks) = jax.lax.scan(step, jnp.zeros(X.shape[1], X.dtype), None, length=steps)
    return jnp.concatenate([ws, last[None]]), picks


def _most_violated_perceptron(X, y, steps):
    """The batch Perceptron that adds y_j x_j for j = argmin_i y_i <w, x_i> (no stopping: the test
    reads where it would stop)."""

    def step(w, _):
        j = jnp.argmin(y * (X @ w))
        return w + y[j] * X[j], (w, j)

    last, (ws, picks) = jax.lax.scan(step, jnp.zeros(X.shape[1], X.dtype), None, length=steps)
    return jnp.concatenate([ws, last[None]]), picks


def test_min_of_f_over_the_ball_of_radius_norm_w_star_is_zero_at_w_star(x64):
    """UML 14.8 Ex. 3 (1): min_{||w|| <= ||w*||} f(w) = 0, attained at w*: f(w*) = 0, no point of the ball
    (20,000 random ones, half of them within 1e-3 of w*) goes below 0, while the slightly larger ball
    holds 1.01 w* with f = -0.01 (so the radius ||w*|| is exactly where the minimum reaches 0)."""
    X, y = (np.asarray(a) for a in _sample())
    w_star = np.asarray(_min_norm_separator(X, y))
    radius, d = np.linalg.norm(w_star), X.shape[1]
    np.testing.assert_allclose(_f(w_star, X, y), 0.0, atol=1e-9)
    rng = np.random.default_rng(1)
    directions = rng.normal(size=(10_000, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    inside = directions * radius * rng.uniform(size=(10_000, 1)) ** (1 / d)
    near = w_star + 1e-3 * radius * rng.normal(size=(10_000, d))
    near *= np.minimum(1.0, radius / np.linalg.norm(near, axis=1, keepdims=True))  # into the ball
    assert _f(np.vstack([inside, near]), X, y).min() >= -1e-9
    assert _f(near, X, y).min() < 2e-3  # the search does come close to the minimum
    np.testing.assert_allclose(_f(1.01 * w_star, X, y), -0.01, atol=1e-9)


def test_f_below_one_is_exactly_separating(x64):
    """UML 14.8 Ex. 3 (2): f(w) < 1 iff min_i y_i <w, x_i> > 0 (w separates S), on 20,000 random w,
    half of them near w* (both outcomes occur)."""
    X, y = (np.asarray(a) for a in _sample(seed=1))
    w_star = np.asarray(_min_norm_separator(X, y))
    rng = np.random.default_rng(2)
    near = w_star + 0.5 * np.linalg.norm(w_star) * rng.normal(size=(10_000, X.shape[1]))
    W = np.vstack([rng.normal(size=(10_000, X.shape[1])), near])
    separates = (y * (W @ X.T)).min(axis=1) > 0
    np.testing.assert_array_equal(_f(W, X, y) < 1, separates)
    assert 100 < separates.sum() < len(W) - 100


def test_subgradient_of_f_is_minus_y_x_at_the_most_violated_example(x64):
    """UML 14.8 Ex. 3 (3): g = -y_j x_j, j = argmax_i (1 - y_i <w, x_i>), is a sub-gradient of f at w:
    f(u) >= f(w) + <g, u - w> for 2,000 random u at each of 50 random w (and it is jax.grad of f there);
    the opposite sign breaks the inequality."""
    X, y = _sample(seed=2)
    rng = np.random.default_rng(3)
    W, U = 5.0 * rng.normal(size=(50, X.shape[1])), 5.0 * rng.normal(size=(2_000, X.shape[1]))
    G, grads = jax.jit(
        lambda W: (
            jax.vmap(lambda w: _subgradient(w, X, y)[0])(W),
            jax.vmap(jax.grad(lambda w: _f(w, X, y)))(W),
        )
    )(W)
    G = np.asarray(G)
    np.testing.assert_allclose(G, grads, rtol=0, atol=1e-12)
    X, y = np.asarray(X), np.asarray(y)
    f_w, f_u = _f(W, X, y), _f(U, X, y)
    linear_part = np.einsum("wd,wud->wu", G, U[None] - W[:, None])
    assert (f_u[None] - f_w[:, None] - linear_part).min() >= -1e-12
    assert (f_u[None] - f_w[:, None] + linear_part).min() < -0.1


@pytest.mark.parametrize("data", ["random", "orthogonal"])
def test_subgradient_descent_is_the_scaled_most_violated_perceptron(x64, data):
    """UML 14.8 Ex. 3 (4): sub-gradient descent on f with a fixed eta is eta times the batch Perceptron
    that picks the most violated example, step for step (the same picks; bit-equal for eta a power of
    2, 1e-12 otherwise); it reaches f < 1 within (R ||w*||)^2 steps (the Perceptron bound, met with
    equality on orthogonal examples), where it separates S, the Perceptron's stopping point. (Going on
    past it need not keep S separated: f is not monotone along sub-gradient steps.)"""
    X, y = _sample(seed=3) if data == "random" else _orthogonal()
    w_star = _min_norm_separator(X, y)
    bound = float(theory.perceptron_mistake_bound(theory.radius(X), 1 / jnp.linalg.norm(w_star)))
    steps = int(np.ceil(bound)) + 5
    perceptron, picks = _most_violated_perceptron(X, y, steps)
    etas = jnp.array([0.5, 4.0, 0.3])
    descent, descent_picks = jax.vmap(lambda eta: _subgradient_descent(X, y, eta, steps))(etas)
    np.testing.assert_array_equal(descent_picks, jnp.broadcast_to(picks, descent_picks.shape))
    np.testing.assert_array_equal(descent[:2], etas[:2, None, None] * perceptron)  # exact scaling
    np.testing.assert_allclose(descent[2], 0.3 * perceptron, rtol=1e-12, atol=1e-15)
    values = _f(perceptron, X, y)
    first = int(np.argmax(np.asarray(values < 1)))  # the Perceptron's stopping time
    assert values[first] < 1 and (values[:first] >= 1).all() and 0 < first <= bound * (1 + 1e-9)
    if data == "orthogonal":
        assert first == X.shape[0] and abs(bound - X.shape[0]) < 1e-6
    assert (jnp.min(y * (descent[:, first] @ X.T), axis=1) > 0).all()  # for every eta
    assert float(theory.halfspace_margin(perceptron[first], X, y)) > 0


def _conservative_ogd(eta, X, y):
    """OGD on the hinge loss, updated only on the rounds where y_t <w_t, x_t> <= 0: the mistakes and w."""
    learner = online.online_gradient_descent(losses.hinge, eta)

    def round_(state, example):
        x, label = example
        new, info = learner.update(state, x, label)
        mistake = label * info.prediction <= 0
        return jax.tree_util.tree_map(lambda a, b: jnp.where(mistake, a, b), new, state), mistake

    state, mistakes = jax.lax.scan(round_, learner.init(X[0]), (X, y))
    return state.w, mistakes


@pytest.mark.parametrize("data", ["random", "orthogonal"])
def test_conservative_ogd_is_the_perceptron_for_every_eta(x64, data):
    """SPEC 4.10 (COMP0078): conservative OGD on the hinge loss makes the same mistakes for every
    eta > 0 (0.01 to 100), those of online.perceptron, with w = eta w_perceptron; and
    M <= U^2 R^2 with U = ||w_0|| (hard_svm), attained on orthogonal examples. Updating on every round
    of positive hinge loss instead (plain OGD) does depend on eta."""
    S = _sample(seed=4, margin=0.05) if data == "random" else _orthogonal()
    U = jnp.linalg.norm(_min_norm_separator(*S))
    X, y = jnp.tile(S[0], (4, 1)), jnp.tile(S[1], 4)  # cycle: later passes make no mistakes
    etas = jnp.array([0.01, 0.5, 3.0, 100.0])
    ws, mistakes = jax.vmap(lambda eta: _conservative_ogd(eta, X, y))(etas)
    learner = online.perceptron()
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    np.testing.assert_array_equal(mistakes, jnp.broadcast_to(trace.mistake, mistakes.shape))
    np.testing.assert_allclose(ws, etas[:, None] * state.w[None], rtol=1e-12, atol=1e-12)
    bound = float(theory.perceptron_mistake_bound(theory.radius(X), 1 / U))
    M = int(trace.mistake.sum())
    assert 0 < M <= bound * (1 + 1e-9)  # ||w_0|| is exact to the solver's 1e-11
    if data == "orthogonal":
        assert M == X.shape[1] and abs(bound - M) < 1e-6
    else:
        plain = [
            core.run(ogd, ogd.init(X[0]), X, y)[1].prediction
            for ogd in (online.online_gradient_descent(losses.hinge, eta) for eta in (0.01, 100.0))
        ]
        assert not np.array_equal(np.sign(plain[0]), np.sign(plain[1]))
