"""The SVM generalisation bounds of ``jaxlearn.theory`` against measured test errors (UML Theorem 15.4,
Corollary 15.7): many samples from one distribution, each fitted, each scored on a large test set."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import optimize

from jaxlearn import datasets, linear, theory

DRAWS, TEST = 10, 20_000


def _samples(X, y, m):
    """``DRAWS`` samples of size ``m`` and a test set, all from one draw of the distribution."""
    n = DRAWS * m
    return X[:n].reshape(DRAWS, m, -1), y[:n].reshape(DRAWS, m), X[n:], y[n:]


def test_hard_svm_error_within_theorem_15_4():
    """A (gamma, rho)-separable distribution (rho = 1, gamma = 0.5): with probability 1 - delta the
    Hard-SVM's error is at most sqrt(4 (rho/gamma)^2 / m) + sqrt(2 ln(2/delta) / m) = 0.336 at m = 400,
    delta = 0.05 (UML Theorem 15.4), so no more than a fraction delta of the draws may exceed it (measured:
    none, every error 0). The check can fail: a learner returning a random unit direction, or a constant
    prediction, exceeds the bound on more than a fraction delta of the same draws."""
    m, gamma, delta = 400, 0.5, 0.05
    X, y, _ = datasets.separable(jax.random.PRNGKey(0), DRAWS * m + TEST, 5, gamma)
    Xs, ys, X_test, y_test = _samples(X, y, m)
    params = jax.vmap(linear.hard_svm().fit, in_axes=(None, 0, 0))(None, Xs, ys)
    assert bool(params.converged.all())
    bound = float(theory.hard_svm_bound(1.0, gamma, m, delta))
    assert bound == pytest.approx(0.336, abs=1e-3)

    def errors(W):  # the test error of each row of W
        return jnp.mean(jnp.sign(X_test @ W.T) != y_test[:, None], axis=0)

    assert float(jnp.mean(errors(params.w) > bound)) <= delta
    assert float(errors(params.w).max()) < 0.05  # far below the 1/2 of a useless halfspace
    random = jax.random.normal(jax.random.PRNGKey(3), (DRAWS, X.shape[1]), X.dtype)
    assert float(jnp.mean(errors(random) > bound)) > delta  # a broken learner fails the check
    constant = jnp.mean(y_test != 1.0)  # predict +1 everywhere
    assert float(jnp.minimum(constant, 1 - constant)) > bound


def test_hard_svm_error_on_a_rare_opposite_point_is_exact_and_within_theorem_15_4():
    """UML Theorem 15.4 where Hard-SVM's error is not 0: x = y p with p = p_A = (gamma, c) with
    probability 1 - q and p = p_B = (gamma, -c) with probability q (rho = 1, gamma = 0.5, c = sqrt(0.75),
    <p_A, p_B> < 0). Without p_B in the sample Hard-SVM returns w ~ p_A and errs on p_B: its exact risk is
    q; with p_B it returns (1/gamma, 0), risk 0. Measured over 200 draws at m = 400, q = 0.005: the risk
    is exactly q 1[p_B unseen] on every draw, p_B is unseen in (1 - q)^m = 13.5% of the draws (+-0.08),
    no draw exceeds the bound 0.336 (at most delta = 0.05 may), and the worst draw is within a factor 70
    of the bound (the theorem's sqrt(1/m) rate against the realizable 1/m: loose by nature)."""
    m, gamma, q, delta, draws = 400, 0.5, 0.005, 0.05, 200
    c = (1 - gamma**2) ** 0.5
    p_a, p_b = jnp.array([gamma, c]), jnp.array([gamma, -c])
    k_type, k_label = jax.random.split(jax.random.PRNGKey(4))
    rare = jax.random.bernoulli(k_type, q, (draws, m))
    y = jnp.where(jax.random.bernoulli(k_label, 0.5, (draws, m)), 1.0, -1.0)
    X = y[..., None] * jnp.where(rare[..., None], p_b, p_a)
    params = jax.vmap(linear.hard_svm().fit, in_axes=(None, 0, 0))(None, X, y)
    assert bool(params.converged.all())
    # x = y p is classified correctly iff <w, p> > 0, for either label: the risk over D is exact
    risk = jnp.where(params.w @ p_a <= 0, 1 - q, 0.0) + jnp.where(params.w @ p_b <= 0, q, 0.0)
    unseen = ~rare.any(axis=1)
    np.testing.assert_allclose(risk, jnp.where(unseen, q, 0.0), atol=1e-7)
    assert abs(float(unseen.mean()) - (1 - q) ** m) <= 0.08
    bound = float(theory.hard_svm_bound(1.0, gamma, m, delta))
    assert float(jnp.mean(risk > bound)) <= delta
    assert bound <= 70 * float(risk.max())


def test_soft_svm_hinge_risk_within_corollary_15_7():
    """UML Corollary 15.7: a halfspace with 10% label noise, ||x|| <= rho = 1, B = 5, m = 1000, lam =
    sqrt(2 rho^2 / (B^2 m)) (the book's lam ||w||^2, soft_svm's lam / 2): the expected hinge risk of
    Soft-SVM is at most min_{||w|| <= B} L_D^hinge(w) + sqrt(8 rho^2 B^2 / m) (0.447), and the 0-1 risk at
    most the hinge risk. The minimum over the ball is bracketed on the 20,000-point test set: from below by
    the unconstrained minimum (the dual LP max sum alpha_i s.t. sum alpha_i y_i x_i = 0, 0 <= alpha <= 1/N),
    from above by that minimiser scaled into the ball (bracket width <= 1e-3; measured 0.424). Every fit lies
    in the ball, so its risk is at least the minimum (excess >= 0); the mean excess is 0.04, a tenth of the
    bound. The predictor w = 0 (hinge risk 1) and random unit directions fail the check."""
    m, B = 1000, 5.0
    X, y, w_star = datasets.noisy_halfspace(jax.random.PRNGKey(1), DRAWS * m + TEST, 5, 0.1)
    rho = float(jnp.linalg.norm(X, axis=1).max())
    assert rho <= 1.0 + 1e-6
    lam = (2 * rho**2 / (B**2 * m)) ** 0.5
    Xs, ys, X_test, y_test = _samples(X, y, m)
    keys = jax.random.split(jax.random.PRNGKey(2), DRAWS)
    W = jax.vmap(linear.soft_svm(2 * lam, 20 * m).fit)(keys, Xs, ys).w

    def hinge_risk(w):
        return jnp.mean(jnp.maximum(0.0, 1.0 - y_test * (X_test @ w)))

    Z = np.asarray(y_test[:, None] * X_test, np.float64)
    n = Z.shape[0]
    lp = optimize.linprog(
        -np.ones(n), A_eq=Z.T, b_eq=np.zeros(Z.shape[1]), bounds=(0, 1 / n), method="highs"
    )
    lower = -lp.fun  # min over all w of the test hinge risk: <= the minimum over the ball
    w_min = -lp.eqlin.marginals  # the primal minimiser (the LP's dual)
    assert float(np.mean(np.maximum(0.0, 1 - Z @ w_min))) == pytest.approx(lower, abs=1e-9)
    upper = float(np.mean(np.maximum(0.0, 1 - Z @ (w_min * min(1.0, B / np.linalg.norm(w_min))))))
    assert lower <= upper <= lower + 1e-3

    risks = jax.vmap(hinge_risk)(W)
    errors = jnp.mean(jnp.sign(X_test @ W.T) != y_test[:, None], axis=0)
    bound = float(theory.soft_svm_bound(rho, B, m))
    assert bool(jnp.all(jnp.linalg.norm(W, axis=1) <= B))
    assert float(risks.min()) >= lower - 1e-6  # excess risk >= 0
    assert float(risks.mean()) <= lower + bound
    assert float(errors.mean()) <= float(risks.mean())
    assert float(risks.mean()) - upper <= bound / 5  # the fit is measured, not only bounded
    assert 1.0 > lower + bound  # w = 0, hinge risk 1, fails
    random = jax.random.normal(jax.random.PRNGKey(5), (DRAWS, X.shape[1]), X.dtype)
    random = random / jnp.linalg.norm(random, axis=1, keepdims=True)
    assert float(jax.vmap(hinge_risk)(random).mean()) > lower + bound
    assert float(hinge_risk(B * w_star)) >= lower - 1e-6
