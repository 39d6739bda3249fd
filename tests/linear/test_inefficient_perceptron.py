"""The inefficient Perceptron (SS10 L4 section 4, Algorithm 2, Theorem 4): an exact search for the unit
vector with the most examples at margin gamma, then the Perceptron on those examples."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets, theory
from jaxlearn.linear import inefficient_perceptron
from jaxlearn.linear._inefficient_perceptron import _subsets

KEY = jax.random.PRNGKey(0)


def _brute_force_count(X, y, gamma):
    """max over unit w in R^2 of #{i: y_i <w, x_i> >= gamma}, by sweeping the angle of w: the count
    only changes where some y_i <w, x_i> = gamma, so the critical angles and the midpoints between
    them see every value it takes."""
    V = np.asarray(y)[:, None] * np.asarray(X)
    r, phi = np.linalg.norm(V, axis=1), np.arctan2(V[:, 1], V[:, 0])
    reach = r > gamma
    half = np.arccos(gamma / r[reach])
    critical = np.sort(np.concatenate([phi[reach] + half, phi[reach] - half]) % (2 * np.pi))
    following = np.append(critical[1:], critical[0] + 2 * np.pi)
    angles = np.concatenate([critical, (critical + following) / 2])
    W = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return int(np.max(np.sum(V @ W.T >= gamma - 1e-12, axis=0)))


@pytest.mark.parametrize("seed", range(4))
def test_margin_error_equals_a_brute_force_count(seed, x64):
    """SS10 L4 Algorithm 2: M_gamma(S) = min over unit w* of #{i: y_i <w*, x_i> < gamma} / m, here found
    exactly on tiny noisy samples in R^2 and compared with an angle sweep."""
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(seed), 12, 2, 0.2, dtype=jnp.float64)
    for gamma in (0.05, 0.2, 0.4):
        params = inefficient_perceptron(gamma).fit(KEY, X, y)
        best = _brute_force_count(X, y, gamma)
        assert int(params.inliers.sum()) == best, (seed, gamma)
        assert float(params.margin_error) == pytest.approx(1 - best / 12, abs=1e-12)
        assert float(jnp.linalg.norm(params.w_star)) == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_array_equal(params.inliers, y * (X @ params.w_star) >= gamma)


def test_best_direction_beats_random_directions_in_3d(x64):
    """SS10 L4 Algorithm 2: no unit vector has more examples at margin gamma than w* (20000 random
    directions in R^3 tried)."""
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(5), 15, 3, 0.2, dtype=jnp.float64)
    directions = jax.random.normal(jax.random.PRNGKey(6), (20_000, 3), jnp.float64)
    directions = directions / jnp.linalg.norm(directions, axis=1, keepdims=True)
    for gamma in (0.1, 0.3):
        params = inefficient_perceptron(gamma).fit(KEY, X, y)
        random_best = int(jnp.max(jnp.sum((y[:, None] * X) @ directions.T >= gamma, axis=0)))
        assert int(params.inliers.sum()) >= random_best >= 1


@pytest.mark.parametrize("gamma", [0.05, 0.2])
def test_perceptron_on_the_inliers_stops_within_theorem_3(gamma):
    """SS10 L4 Algorithm 2 + Theorem 3: the inliers are separable with margin gamma in the unit ball, so
    the Perceptron on them makes at most 1/gamma^2 updates and classifies all of them correctly."""
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(7), 40, 2, 0.15)
    learner = inefficient_perceptron(gamma)
    params = learner.fit(KEY, X, y)
    assert bool(params.converged) and 0 < int(params.num_updates) <= 1 / gamma**2
    assert bool(jnp.all(learner.predict(params, X)[params.inliers] == y[params.inliers]))
    assert float(jnp.mean(learner.predict(params, X) != y)) <= float(params.margin_error) + 1e-6


def test_error_stays_below_theorem_4():
    """SS10 L4 Theorem 4: L_D(w) <= M + sqrt(M 4 ln(m/delta)/(gamma^2 m)) + 8 ln(m/delta)/(gamma^2 m)
    with probability >= 1 - delta. D: x = y' (cos phi, sin phi), phi ~ U[-0.3, 0.3], y' = +-1, the label
    y' flipped with probability p = 0.05: the clean examples have margin >= cos 0.3 > gamma = 0.9 along
    e_1, so M_gamma(S) is exactly the fraction of flipped labels, and L_D(w) = p + (1 - 2p) P[y' <w, x> <= 0]
    (computed on a grid of 20001 angles)."""
    m, gamma, delta, p, runs = 250, 0.9, 0.1, 0.05, 20
    grid = jnp.linspace(-0.3, 0.3, 20_001)

    def measure(key):
        k_sign, k_phi, k_flip = jax.random.split(key, 3)
        clean = jnp.where(jax.random.bernoulli(k_sign, 0.5, (m,)), 1.0, -1.0)
        phi = jax.random.uniform(k_phi, (m,), minval=-0.3, maxval=0.3)
        X = clean[:, None] * jnp.stack([jnp.cos(phi), jnp.sin(phi)], axis=1)
        flipped = jax.random.bernoulli(k_flip, p, (m,))
        params = inefficient_perceptron(gamma).fit(key, X, jnp.where(flipped, -clean, clean))
        clean_error = jnp.mean(jnp.cos(grid) * params.w[0] + jnp.sin(grid) * params.w[1] <= 0)
        return params.margin_error, jnp.mean(flipped), p + (1 - 2 * p) * clean_error

    margin_error, flip_rate, true_error = jax.jit(jax.vmap(measure))(jax.random.split(KEY, runs))
    np.testing.assert_allclose(margin_error, flip_rate, atol=1e-6)
    bounds = np.asarray(theory.inefficient_perceptron_bound(margin_error, gamma, m, delta))
    assert np.mean(np.asarray(true_error) <= bounds) >= 1 - delta
    assert np.max(bounds) < 0.5 and np.mean(bounds) <= 10 * np.mean(
        np.asarray(true_error)
    )  # not vacuous


def test_refuses_samples_with_too_many_candidate_directions():
    """The search is exponential in d: sum_(k<=d) C(m, k) candidates, at most 10^6."""
    X, y = np.ones((200, 3), np.float32), np.ones(200, np.float32)
    with pytest.raises(ValueError, match="expected `X` with at most 1000000 candidate sets"):
        inefficient_perceptron(0.1).fit(KEY, X, y)


@pytest.mark.parametrize("m, k", [(5, 1), (6, 2), (7, 3), (8, 4)])
def test_candidate_sets_are_all_k_subsets_in_order(m, k):
    """The search tries every set of k <= d examples once (the exactness argument needs all of them)."""
    np.testing.assert_array_equal(
        _subsets(m, k), np.array(list(itertools.combinations(range(m), k)))
    )
