"""The SVM generalisation bounds of ``jaxlearn.theory`` against measured test errors (UML Theorem 15.4,
Corollary 15.7): many samples from one distribution, each fitted, each scored on a large test set."""

import jax
import jax.numpy as jnp
import pytest

from jaxlearn import datasets, linear, theory

DRAWS, TEST = 10, 20_000


def _samples(X, y, m):
    """``DRAWS`` samples of size ``m`` and a test set, all from one draw of the distribution."""
    n = DRAWS * m
    return X[:n].reshape(DRAWS, m, -1), y[:n].reshape(DRAWS, m), X[n:], y[n:]


def test_hard_svm_error_within_theorem_15_4():
    """A (gamma, rho)-separable distribution (rho = 1, gamma = 0.5): with probability 1 - delta the
    Hard-SVM's error is at most sqrt(4 (rho/gamma)^2 / m) + sqrt(2 ln(2/delta) / m) = 0.336 at m = 400,
    delta = 0.05, below the 1/2 of a useless halfspace; so no more than a fraction delta of the draws
    may exceed it (measured: none, every error 0)."""
    m, gamma, delta = 400, 0.5, 0.05
    X, y, _ = datasets.separable(jax.random.PRNGKey(0), DRAWS * m + TEST, 5, gamma)
    Xs, ys, X_test, y_test = _samples(X, y, m)
    params = jax.vmap(linear.hard_svm().fit, in_axes=(None, 0, 0))(None, Xs, ys)
    assert bool(params.converged.all())
    errors = jnp.mean(jnp.sign(X_test @ params.w.T) != y_test[:, None], axis=0)
    bound = float(theory.hard_svm_bound(1.0, gamma, m, delta))
    assert bound == pytest.approx(0.336, abs=1e-3)
    assert float(jnp.mean(errors > bound)) <= delta


def test_soft_svm_hinge_risk_within_corollary_15_7():
    """A halfspace with 10% label noise, ||x|| <= rho = 1, B = 5: with lam = sqrt(2 rho^2 / (B^2 m)) (the
    book's lam ||w||^2, soft_svm's lam / 2), the expected hinge risk is at most
    min_{||w|| <= B} L_D(w) + sqrt(8 rho^2 B^2 / m) <= L_D(B w*) + sqrt(8 rho^2 B^2 / m). Measured at
    m = 500: mean test hinge 0.49 against L_D(B w*) = 0.42 plus the bound 0.63; the 0-1 risk is below
    the hinge risk."""
    m, B = 500, 5.0
    X, y, w_star = datasets.noisy_halfspace(jax.random.PRNGKey(1), DRAWS * m + TEST, 5, 0.1)
    rho = float(jnp.linalg.norm(X, axis=1).max())
    assert rho <= 1.0 + 1e-6
    lam = (2 * rho**2 / (B**2 * m)) ** 0.5
    Xs, ys, X_test, y_test = _samples(X, y, m)
    keys = jax.random.split(jax.random.PRNGKey(2), DRAWS)
    W = jax.vmap(linear.soft_svm(2 * lam, 20 * m).fit)(keys, Xs, ys).w

    def hinge_risk(w):
        return jnp.mean(jnp.maximum(0.0, 1.0 - y_test * (X_test @ w)))

    risks = jax.vmap(hinge_risk)(W)
    errors = jnp.mean(jnp.sign(X_test @ W.T) != y_test[:, None], axis=0)
    bound = float(theory.soft_svm_bound(rho, B, m))
    assert float(risks.mean()) <= float(hinge_risk(B * w_star)) + bound
    assert float(errors.mean()) <= float(risks.mean())
    assert float(risks.mean()) < 1.0  # better than w = 0, whose hinge risk is 1: the fit is measured
