"""linear.svm_primal_newton: the squared hinge's primal by Newton's method on its generalised Hessian.

In float64 against scikit-learn's LinearSVC(dual=False) (liblinear's trust-region Newton method on the
same objective), with and without sample weights, on raw and standardised data; against the L-BFGS and
dual solvers of the same problem; the stopping rule; vmap over C; labels 0; compilation; errors.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from jaxlearn.linear import SVMPrimalParams, svm_dual_cd, svm_primal_lbfgs, svm_primal_newton
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(0)


def _breast_cancer(m=300, scaled=True):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X) if scaled else X
    return X[:m], (2.0 * y - 1)[:m]


def _objective(w, b, X, y, C, weight):
    """LIBLINEAR's primal with its regularised bias (intercept_scaling = 1)."""
    slack = np.maximum(1 - y * (X @ w + b), 0)
    return 0.5 * (w @ w + b * b) + C * np.sum(weight * slack**2)


def _assert_relative(got, want, rtol):
    scale = np.max(np.abs(want))
    assert np.max(np.abs(np.asarray(got) - want)) <= rtol * scale, (got, want)


@pytest.mark.parametrize("scaled", [True, False], ids=["standardised", "raw"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_matches_liblinear_primal_in_float64(scaled, weighted):
    X, y = _breast_cancer(scaled=scaled)
    weight = np.random.RandomState(2).uniform(0, 2, len(y)) if weighted else np.ones(len(y))
    with jax.enable_x64(True):
        newton = svm_primal_newton(0.5, tol=1e-10, max_iter=100, fit_intercept=True)
        params = newton.fit(None, X, y, sample_weight=weight)
        assert isinstance(params, SVMPrimalParams) and bool(params.converged)
        assert params.w.dtype == jnp.float64
        assert int(params.n_iter) <= 30  # Newton: a few dozen iterations at most, even on raw data
    svc = LinearSVC(dual=False, C=0.5, tol=1e-10, max_iter=10**5).fit(X, y, sample_weight=weight)
    _assert_relative(params.w, svc.coef_[0], 1e-5)
    assert abs(float(params.b) - svc.intercept_[0]) <= 1e-5 * np.max(np.abs(svc.coef_))
    ours = _objective(np.asarray(params.w), float(params.b), X, y, 0.5, weight)
    theirs = _objective(svc.coef_[0], svc.intercept_[0], X, y, 0.5, weight)
    assert ours <= theirs * (1 + 1e-10)


def test_the_minimiser_of_lbfgs_and_the_dual_in_float64():
    X, y = _breast_cancer(200)
    with jax.enable_x64(True):
        newton = svm_primal_newton(2.0, tol=1e-10, fit_intercept=True).fit(None, X, y)
        lbfgs = svm_primal_lbfgs(2.0, tol=1e-10, max_iter=10**4, fit_intercept=True).fit(None, X, y)
        dual = svm_dual_cd(2.0, loss="squared_hinge", tol=1e-10, max_iter=10**5, fit_intercept=True)
        exact = dual.fit(KEY, X, y)
    _assert_relative(newton.w, np.asarray(lbfgs.w), 1e-5)
    _assert_relative(newton.w, np.asarray(exact.w), 1e-5)
    assert int(newton.n_iter) < int(lbfgs.n_iter)


def test_stops_at_liblinears_gradient_rule():
    X, y = _breast_cancer(200)
    with jax.enable_x64(True):
        for tol in (1e-1, 1e-3, 1e-8):
            params = svm_primal_newton(1.0, tol=tol, fit_intercept=True).fit(None, X, y)
            start = np.linalg.norm(2 * np.concatenate([X, np.ones((len(y), 1))], 1).T @ y)
            share = max(min(np.sum(y > 0), np.sum(y < 0)), 1) / len(y)
            assert bool(params.converged)
            assert float(params.grad_norm) <= tol * share * start


def test_max_iter_bounds_the_iterations_and_the_flag_says_so():
    X, y = _breast_cancer(200, scaled=False)
    params = svm_primal_newton(1.0, tol=1e-12, max_iter=2, fit_intercept=True).fit(None, X, y)
    assert int(params.n_iter) == 2 and not bool(params.converged)


def test_label_zero_or_weight_zero_leaves_an_example_out():
    # the scikit-learn layer pads its rows with label 0 (traced, inside its vmap) and weight 0
    X, y = _breast_cancer(120)
    with jax.enable_x64(True):
        learner = svm_primal_newton(1.0, tol=1e-10, fit_intercept=True)
        dropped = learner.fit(None, X[20:], y[20:])
        masked = jax.jit(learner.fit)(None, X, np.where(np.arange(120) < 20, 0.0, y))
        weighted = learner.fit(None, X, y, sample_weight=(np.arange(120) >= 20).astype(float))
    for params in (masked, weighted):
        _assert_relative(params.w, np.asarray(dropped.w), 1e-8)


def test_vmap_over_C_equals_separate_fits_in_float32():
    X, y = _breast_cancer(200)
    X = X.astype(np.float32)
    Cs = jnp.array([0.01, 1.0, 10.0])
    fit = lambda C: svm_primal_newton(C, fit_intercept=True).fit(None, X, y)  # noqa: E731
    swept = jax.vmap(fit)(Cs)
    for i, C in enumerate(Cs):
        one = fit(float(C))
        np.testing.assert_allclose(swept.w[i], one.w, rtol=1e-4, atol=1e-5)
    assert np.all(np.asarray(swept.converged))


def test_float32_reaches_the_minimiser_with_collinear_features_and_a_large_C():
    """Four features are sums of others: at C = 1000 the Hessian's condition number passes 1/eps of
    float32, its Cholesky factor gives no descent direction, and the fit finishes by QR directions."""
    X, y = make_classification(2000, 20, n_informative=8, n_redundant=4, random_state=0)
    y = 2.0 * y - 1
    X32, y32 = X.astype(np.float32), y.astype(np.float32)
    Cs = (10.0, 1000.0)
    swept = jax.vmap(lambda C: svm_primal_newton(C, fit_intercept=True).fit(None, X32, y32))(
        jnp.array(Cs, jnp.float32)
    )
    ones = np.ones_like(y)
    for i, C in enumerate(Cs):
        got = svm_primal_newton(C, fit_intercept=True).fit(None, X32, y32)
        with jax.enable_x64(True):
            best = svm_primal_newton(C, fit_intercept=True).fit(
                None, jnp.asarray(X), jnp.asarray(y)
            )
        assert bool(got.converged) and bool(swept.converged[i])
        optimum = _objective(np.asarray(best.w), float(best.b), X, y, C, ones)
        for w, b in ((got.w, got.b), (swept.w[i], swept.b[i])):
            value = _objective(np.asarray(w, float), float(b), X, y, C, ones)
            assert value <= optimum * (1 + 1e-6), (C, value, optimum)


def test_fit_compiles_once_per_shape():
    X, y = _breast_cancer(100)
    jax.block_until_ready(svm_primal_newton(1.0).fit(None, X, y))
    with count_compilations() as compiled:
        for C in (0.1, 3.0):
            jax.block_until_ready(svm_primal_newton(C).fit(None, X, y))
    assert compiled[0] == 0


def test_bad_inputs_name_the_argument():
    X, y = _breast_cancer(20)
    with pytest.raises(ValueError, match="`C`"):
        svm_primal_newton(-1.0)
    with pytest.raises(ValueError, match="`max_iter`"):
        svm_primal_newton(1.0, max_iter=0)
    with pytest.raises(TypeError, match="`fit_intercept`"):
        svm_primal_newton(1.0, fit_intercept="yes")
    with pytest.raises(ValueError, match="`sample_weight`"):
        svm_primal_newton(1.0).fit(None, X, y, sample_weight=-np.ones(len(y)))
