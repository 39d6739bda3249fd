"""Multiclass guarantees against measured risks (UML section 17.2.5, Corollaries 17.1-17.2, Exercise 17.1;
SPEC 11.5-11.6), and the fixed-step SGD for multiclass learning that Corollary 17.2 is about.

The distribution D of every risk below is the uniform distribution over a fixed pool of points: a draw of
SGD or of a training sample from the pool is then a draw from D, and L_D is computed exactly (no test-set
error). The reference figures (a separator of least norm, the best generalised hinge risk in a ball) are
solved in float64 by scipy and certified: the separator is feasible, the best risk comes as an interval.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import optimize

from jaxlearn import theory
from jaxlearn.multiclass import multiclass_sgd, multiclass_svm, multivector
from tests.multiclass.data import blobs

K = 3  # classes of the cluster pools
SEEDS = jax.random.split(jax.random.PRNGKey(0), 32)


# --- float64 references -----------------------------------------------------------------------------


def cluster_pool(size=300, noise=0.0, seed=0):
    """UML Exercise 17.1 data: points uniform in discs of radius r = 1 around the corners of an equilateral
    triangle of side 4r centred at 0 (||mu_i - mu_j|| >= 4r), the constant 1 appended; a fraction
    ``noise`` of the labels moved to another class. Returns ``(X, y, mu)``."""
    rng = np.random.default_rng(seed)
    angle = np.pi / 2 + 2 * np.pi * np.arange(K) / K
    mu = 4 / np.sqrt(3) * np.c_[np.cos(angle), np.sin(angle)]
    y = np.arange(size) % K
    direction = rng.standard_normal((size, 2))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    X = mu[y] + np.sqrt(rng.uniform(0, 1, (size, 1))) * direction
    moved = rng.permutation(size)[: int(round(noise * size))]
    y[moved] = (y[moved] + rng.integers(1, K, moved.size)) % K
    return np.c_[X, np.ones(size)], y.astype(np.int32), mu


def differences(X, y, k):
    r"""The rows :math:`\Psi(x_i, y_i) - \Psi(x_i, y')` (multivector map), one per example and other label,
    shape ``(m (k - 1), k n)``."""
    m, n = X.shape
    rows = []
    for shift in range(1, k):
        D = np.zeros((m, k, n))
        D[np.arange(m), y] += X
        D[np.arange(m), (y + shift) % k] -= X
        rows.append(D.reshape(m, -1))
    return np.concatenate(rows)


def min_norm_separator(X, y, k):
    r"""The multiclass separator of least norm, :math:`\min\|w\|` subject to
    :math:`\langle w, \Psi(x_i, y_i) - \Psi(x_i, y)\rangle \ge 1` (hard multiclass SVM, SLSQP in float64),
    scaled so that every margin is >= 1 (feasible: what the theorems need; least up to the solver).
    Returns ``W`` of shape ``(k, n)``."""
    D = differences(X, y, k)
    solution = optimize.minimize(
        lambda w: (w @ w, 2 * w),
        np.zeros(D.shape[1]),
        jac=True,
        method="SLSQP",
        constraints=[dict(type="ineq", fun=lambda w: D @ w - 1, jac=lambda w: D)],
        options=dict(maxiter=1000, ftol=1e-14),
    )
    w = solution.x / (D @ solution.x).min() * (1 + 1e-12)  # margins >= 1 through the rounding too
    assert (D @ w).min() >= 1.0
    return w.reshape(k, -1)


def hinge_terms(W, X, y):
    r""":math:`\Delta(y', y_i) + \langle w, \Psi(x_i, y') - \Psi(x_i, y_i)\rangle` (0-1 cost), ``(m, k)``."""
    scores = X @ W.T
    return (np.arange(W.shape[0]) != y[:, None]) + scores - scores[np.arange(len(y)), y][:, None]


def hinge_risk(W, X, y):
    """The generalised hinge risk (UML (17.3)) on the pool."""
    return hinge_terms(W, X, y).max(axis=1).mean()


def zero_one_risk(W, X, y):
    """The zero-one risk of the argmax (ties to the first label) on the pool."""
    return np.mean(np.argmax(X @ W.T, axis=1) != y)


def best_hinge_in_ball(X, y, k, B, tol=1e-7):
    r"""An interval ``[lower, upper]`` of width < ``tol`` holding :math:`\min_{\|u\| \le B} L^{g-hinge}(u)`
    on the pool: linear programs over polytopes that contain the ball (cutting planes) give ``lower``,
    their solutions scaled into the ball give ``upper``."""
    m, n = X.shape
    d = k * n
    D = differences(X, y, k)  # xi_i >= 1 - <u, D_r>, xi >= 0
    A_hinge = np.c_[-D, -np.tile(np.eye(m), (k - 1, 1))]
    cuts = list(np.r_[np.eye(d), -np.eye(d)])
    cost = np.r_[np.zeros(d), np.ones(m) / m]
    upper = np.inf
    for _ in range(300):
        A = np.r_[A_hinge, np.c_[np.array(cuts), np.zeros((len(cuts), m))]]
        b = np.r_[-np.ones(len(D)), B * np.ones(len(cuts))]
        lp = optimize.linprog(cost, A_ub=A, b_ub=b, bounds=[(None, None)] * d + [(0, None)] * m)
        u, lower = lp.x[:d], lp.fun
        norm = np.linalg.norm(u)
        upper = min(upper, hinge_risk((u * min(1.0, B / norm)).reshape(k, n), X, y))
        if upper - lower < tol:
            return lower, upper
        cuts.append(u / norm)
    raise AssertionError(f"no certified minimum: [{lower}, {upper}]")


def _risks(W, X, y):
    """The hinge and zero-one risks of each row of the stacked flat weights ``W`` ``(seeds, k n)``."""
    W = np.asarray(W).reshape(len(W), -1, X.shape[1])
    return np.array([hinge_risk(w, X, y) for w in W]), np.array([zero_one_risk(w, X, y) for w in W])


def _corollary_17_2(X, y, B, epsilon, steps=None):
    """Multiclass SGD over the pool with Corollary 17.2's T (or ``steps`` >= it) and eta, one fit per seed
    (vmapped); returns the hinge and zero-one risks of w_bar per seed."""
    k = int(y.max()) + 1
    rho = 2 * np.linalg.norm(X, axis=1).max()  # ||Psi(x, y)|| = ||x|| <= rho / 2
    smallest = float(theory.multiclass_sgd_steps(rho, B, epsilon))
    steps = int(np.ceil(smallest)) if steps is None else steps
    assert steps >= smallest
    eta = np.sqrt(B**2 / (rho**2 * steps))
    learner = multiclass_sgd(eta, steps, k)
    W = jax.vmap(lambda key: learner.fit(key, X, y).w)(SEEDS)
    return _risks(np.asarray(W), X, y)


# --- Corollary 17.2: SGD for multiclass learning ------------------------------------------------------


def test_multiclass_sgd_hinge_risk_stays_below_corollary_17_2_on_cluster_data(x64):
    """UML Corollary 17.2 and Exercise 17.1 (section 17.2.5; SPEC 11.5-11.6), realizable: Exercise 17.1's
    w_i = [mu_i, -||mu_i||^2 / 2] has zero generalised hinge loss on every point (margins >= 4 r^2 = 4),
    so min_{||u|| <= B} L_D^{g-hinge}(u) = 0 for B = ||u|| of the least-norm separator (<= ||w|| / 4).
    With T = ceil(B^2 rho^2 / eps^2) and eta = sqrt(B^2 / (rho^2 T)), the mean over 32 seeds of
    L_D^{g-hinge}(w_bar) is <= eps = 0.1 and every L_D^0-1 <= L_D^{g-hinge}. Measured: 0.021 eps (the
    bound is the worst case; the next test builds data that comes within a factor 2)."""
    X, y, mu = cluster_pool()
    exercise = np.c_[mu, -0.5 * (mu**2).sum(axis=1)]
    terms = hinge_terms(exercise, X, y)
    assert terms.max() == 0.0  # Exercise 17.1: zero loss on every point
    assert np.sort(terms, axis=1)[:, -2].max() <= 1 - 4.0  # margins s_y - s_y' >= 4 r^2 = 4 (r = 1)
    u = min_norm_separator(X, y, K)
    assert hinge_terms(u, X, y).max() <= 1e-12
    B = np.linalg.norm(u)
    assert B <= np.linalg.norm(exercise) / 4
    epsilon = 0.1
    hinge, zero_one = _corollary_17_2(X, y, B, epsilon)
    assert np.all(zero_one <= hinge)
    assert hinge.mean() <= epsilon, (hinge.mean(), epsilon)
    assert hinge.mean() >= epsilon / 100  # the average includes w^(1) = 0, of hinge risk 1


def test_multiclass_sgd_comes_within_a_factor_2_5_of_corollary_17_2_on_point_clusters(x64):
    """UML Corollary 17.2 (section 17.2.5), close to tight: two clusters of radius 0 at a e_0 and a e_1
    (a = 2): the least-norm separator has ||u|| = B = 1 / a, rho = 2a, and every update moves the margin
    of its point by exactly 1 / sqrt(T), so L_D^{g-hinge}(w_bar) is the ramp of the early iterates, about
    B rho / (2 sqrt(T)). T is the first n^2 - 1 >= B^2 rho^2 / eps^2 (the corollary allows any larger T,
    with eta = sqrt(B^2 / (rho^2 T))): the last update then lands the margin just past 1 instead of
    overshooting it by up to 1 / sqrt(T), which would cut the ramp short. The mean over 32 seeds lies in
    [eps / 2.5, eps] for eps = 0.1 (measured 0.49 eps)."""
    k, a = 2, 2.0
    X, y = a * np.eye(k), np.arange(k, dtype=np.int32)
    u = min_norm_separator(X, y, k)
    B, rho, epsilon = np.linalg.norm(u), 2 * a, 0.1
    np.testing.assert_allclose(B, 1 / a, rtol=1e-8)
    n = int(np.ceil(np.sqrt(float(theory.multiclass_sgd_steps(rho, B, epsilon)) + 1)))
    hinge, zero_one = _corollary_17_2(X, y, B, epsilon, steps=n * n - 1)
    assert np.all(zero_one <= hinge)
    assert epsilon / 2.5 <= hinge.mean() <= epsilon, (hinge.mean(), epsilon)


def test_multiclass_sgd_stays_within_epsilon_of_the_best_hinge_in_the_ball_on_noisy_clusters(x64):
    """UML Corollary 17.2 (section 17.2.5), unrealizable: the cluster pool with 10% of its labels moved,
    B the norm of the clean pool's least-norm separator; min_{||u|| <= B} L_D^{g-hinge}(u) (= 0.265,
    certified to 1e-7 by cutting-plane linear programs) > 0. With Corollary 17.2's T and eta for eps = 0.1,
    the mean over 32 seeds of L_D^{g-hinge}(w_bar) is <= that minimum + eps, and at least half of it (the
    bound is within a factor 2 of the measured risk; measured 0.266 against 0.365)."""
    X, y_clean, _ = cluster_pool()
    _, y, _ = cluster_pool(noise=0.1)
    B = np.linalg.norm(min_norm_separator(X, y_clean, K))
    lower, upper = best_hinge_in_ball(X, y, K, B)
    assert 0.2 < lower <= upper < lower + 1e-6
    epsilon = 0.1
    hinge, zero_one = _corollary_17_2(X, y, B, epsilon)
    assert np.all(zero_one <= hinge)
    assert hinge.mean() <= lower + epsilon, (hinge.mean(), lower, epsilon)
    assert hinge.mean() >= (upper + epsilon) / 2


# --- Corollary 17.1: the multiclass SVM ------------------------------------------------------------


@pytest.mark.parametrize("noise", [0.0, 0.1])
def test_multiclass_svm_risk_stays_below_corollary_17_1(x64, noise):
    """UML Corollary 17.1 (section 17.2.5): S ~ D^m with m = 1000 from the cluster pool (clean: the best
    hinge in the ball is 0; 10% of labels moved: 0.265, certified), the multiclass SVM at the book's
    lambda = sqrt(2 rho^2 / (B^2 m)) (``multiclass_svm``'s ``lam`` is twice the book's lambda: it
    minimises lam / 2 ||w||^2 + L_S). Over 32 samples (vmapped), the mean L_D^{g-hinge}(w_S) is at most
    min_{||u|| <= B} L_D^{g-hinge}(u) + sqrt(8 rho^2 B^2 / m) (= 0.59 < 1: not vacuous for the zero-one
    risk) and every L_D^0-1 <= L_D^{g-hinge}; the excess over the minimum is >= 1/40 of the bound
    (measured: 0.08 of it clean, 0.04 with the moved labels). ``multiclass_svm`` reaches the regularised
    minimiser by 2000 SGD steps: what remains of the optimisation is part of the measured risk."""
    X, y_clean, _ = cluster_pool()
    _, y, _ = cluster_pool(noise=noise)
    B = np.linalg.norm(min_norm_separator(X, y_clean, K))
    lower, upper = best_hinge_in_ball(X, y, K, B)
    rho, m = 2 * np.linalg.norm(X, axis=1).max(), 1000
    bound = float(theory.multiclass_svm_bound(rho, B, m))
    assert bound < 1
    lam = 2 * np.sqrt(2 * rho**2 / (B**2 * m))
    learner = multiclass_svm(lam, 2000, K)
    pool_X, pool_y = jnp.asarray(X), jnp.asarray(y)

    def one_sample(key):
        draw, fit = jax.random.split(key)
        rows = jax.random.randint(draw, (m,), 0, len(X))
        return learner.fit(fit, pool_X[rows], pool_y[rows]).w

    hinge, zero_one = _risks(np.asarray(jax.vmap(one_sample)(SEEDS)), X, y)
    assert np.all(zero_one <= hinge)
    assert hinge.mean() <= lower + bound, (hinge.mean(), lower, bound)
    assert hinge.mean() - upper >= bound / 40, (hinge.mean(), upper, bound)


# --- the learner ----------------------------------------------------------------------------------


def _book_loop(X, y, eta, steps, delta, key):
    """UML 17.2.5's SGD for multiclass learning, in NumPy, step by step: returns w_bar as (k, n)."""
    k = delta.shape[0]
    w, total = np.zeros((k, X.shape[1])), np.zeros((k, X.shape[1]))
    for i in np.asarray(jax.random.randint(key, (steps,), 0, X.shape[0], dtype=jnp.int32)):
        total += w
        scores = w @ X[i]
        terms = delta[:, y[i]] + scores - scores[y[i]]
        terms[y[i]] = -np.inf
        y_hat = int(np.argmax(terms))
        if terms[y_hat] > 0:  # w <- w - eta (Psi(x, y_hat) - Psi(x, y))
            w[y_hat] -= eta * X[i]
            w[y[i]] += eta * X[i]
    return total / steps


def test_multiclass_sgd_equals_the_book_loop_with_a_cost_matrix(x64):
    """UML section 17.2.5 (SPEC 11.5): w^(1) = 0, a fixed eta, no regulariser, the average of
    w^(1)..w^(T) (w^(T+1) excluded), the cost inside the loss-augmented argmax; float64, rtol 1e-12."""
    key = jax.random.PRNGKey(3)
    X, y = blobs(jax.random.PRNGKey(1), 30, jnp.float64, k=4)
    delta = np.array([[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]], np.float64)
    params = multiclass_sgd(0.05, 200, 4, delta=delta).fit(key, X, y)
    want = _book_loop(np.asarray(X), np.asarray(y), 0.05, 200, delta, key)
    np.testing.assert_allclose(params.w.reshape(4, -1), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(params.b, 0.0)
    assert np.abs(want).max() > 0.1
    generic = multiclass_sgd(
        0.05, 200, 4, delta=delta, feature_map=lambda x, y, k: multivector(x, y, k)
    )
    np.testing.assert_allclose(generic.fit(key, X, y).w, params.w, rtol=1e-12, atol=1e-14)


def test_multiclass_sgd_does_not_move_where_every_margin_holds(x64):
    """UML section 17.2.5 (SPEC 11.5 test): when y_hat = y the sub-gradient is 0 and w is unchanged; with
    a zero cost matrix every margin holds at w = 0, so w_bar = 0 exactly. After one step from w = 0 (all
    scores tie, zero-one cost) the first other label is pushed down: w_bar = (0 - eta v_1) / 2."""
    X, y = blobs(jax.random.PRNGKey(2), 20, jnp.float64)
    still = multiclass_sgd(0.5, 50, K, delta=np.zeros((K, K))).fit(jax.random.PRNGKey(0), X, y)
    np.testing.assert_array_equal(still.w, 0.0)
    x, label = jnp.array([[1.0, 2.0]]), jnp.array([2], jnp.int32)
    params = multiclass_sgd(0.5, 2, K).fit(jax.random.PRNGKey(0), x, label)
    np.testing.assert_array_equal(params.w.reshape(K, 2), [[-0.25, -0.5], [0.0, 0.0], [0.25, 0.5]])
