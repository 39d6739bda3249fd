"""linear.svm_dual_cd: the exact Soft-SVM by dual coordinate descent (Hsieh et al. 2008); and
linear.svm_primal_lbfgs, the squared hinge's primal by L-BFGS.

In float64 against scikit-learn's LinearSVC (liblinear, the same algorithm and objective) with tight
tolerances on both sides: coefficients and intercept, with and without sample weights; against the
book's SGD learner (soft_svm) on its own objective; vmap over C; the converged flag; compilation.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from jaxlearn import datasets
from jaxlearn.linear import (
    SVMDualCDParams,
    SVMPrimalParams,
    soft_svm,
    svm_dual_cd,
    svm_primal_lbfgs,
)
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(0)


def _breast_cancer(m=300):
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:m], (2.0 * y - 1)[:m]


def _objective(w, b, X, y, C, loss="hinge", weight=None):
    """LIBLINEAR's primal with its regularised bias (intercept_scaling = 1)."""
    slack = np.maximum(1 - y * (X @ w + b), 0)
    terms = slack if loss == "hinge" else slack**2
    weight = np.ones_like(y) if weight is None else weight
    return 0.5 * (w @ w + b * b) + C * np.sum(weight * terms)


def _reference(X, y, C, loss, sample_weight=None, fit_intercept=True):
    svc = LinearSVC(
        loss=loss, dual=True, C=C, tol=1e-8, max_iter=10**5, fit_intercept=fit_intercept
    )
    svc.fit(X, y, sample_weight=sample_weight)
    return svc.coef_[0], float(svc.intercept_[0]) if fit_intercept else 0.0


def _assert_relative(got, want, rtol):
    scale = np.max(np.abs(want))
    assert np.max(np.abs(np.asarray(got) - want)) <= rtol * scale, (got, want)


@pytest.mark.parametrize("loss, C", [("hinge", 1.0), ("squared_hinge", 0.1)])
def test_matches_liblinear_in_float64(loss, C):
    X, y = _breast_cancer()
    with jax.enable_x64(True):
        params = svm_dual_cd(C, loss=loss, tol=1e-8, max_iter=10**5, fit_intercept=True).fit(
            KEY, X, y
        )
        assert params.w.dtype == jnp.float64 and bool(params.converged)
        primal = _objective(np.asarray(params.w), float(params.b), X, y, C, loss)
        assert (
            -1e-12 * primal <= float(params.gap) <= 1e-6 * primal
        )  # zero up to rounding at the optimum
    w, b = _reference(X, y, C, loss)
    _assert_relative(params.w, w, 1e-4)
    assert abs(float(params.b) - b) <= 1e-4 * max(abs(b), np.max(np.abs(w)))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_sample_weights_match_liblinear(loss):
    X, y = _breast_cancer(200)
    weight = np.random.RandomState(0).uniform(0, 2, len(y))
    weight[:10] = 0.0  # left out
    with jax.enable_x64(True):
        learner = svm_dual_cd(0.5, loss=loss, tol=1e-8, max_iter=10**5, fit_intercept=True)
        params = learner.fit(KEY, X, y, sample_weight=weight)
        assert bool(params.converged)
        dropped = learner.fit(KEY, X[10:], y[10:], sample_weight=weight[10:])
    w, b = _reference(X, y, 0.5, loss, sample_weight=weight)
    _assert_relative(params.w, w, 1e-4)
    assert abs(float(params.b) - b) <= 1e-4 * np.max(np.abs(w))
    _assert_relative(params.w, np.asarray(dropped.w), 1e-6)  # weight 0 is the example left out


def test_label_zero_leaves_an_example_out():
    # all_pairs("mask") marks the examples of neither class with label 0 (inside its vmap: traced)
    X, y = _breast_cancer(120)
    with jax.enable_x64(True):
        learner = svm_dual_cd(1.0, tol=1e-10, max_iter=10**5)
        masked = jax.jit(learner.fit)(KEY, X, np.where(np.arange(120) < 20, 0.0, y))
        dropped = learner.fit(KEY, X[20:], y[20:])
    _assert_relative(masked.w, np.asarray(dropped.w), 1e-6)


def test_objective_at_most_soft_svm_sgd():
    # C = 1/(lam m): (1/2)|w|^2 + C sum hinge = (1/(lam m)) (lam/2 |w|^2 + mean hinge), UML (15.4)
    X, y = _breast_cancer()
    lam = 0.01
    C = 1.0 / (lam * len(y))
    with jax.enable_x64(True):
        exact = svm_dual_cd(C, tol=1e-6, max_iter=10**4, fit_intercept=True).fit(KEY, X, y)
        sgd = soft_svm(lam, 20_000, fit_intercept=True).fit(KEY, X, y)
    ours = _objective(np.asarray(exact.w), float(exact.b), X, y, C)
    theirs = _objective(np.asarray(sgd.w), float(sgd.b), X, y, C)
    assert ours <= theirs, (ours, theirs)


def test_vmap_over_C_equals_separate_fits():
    X, y = _breast_cancer(150)
    Cs = jnp.array([0.01, 0.3, 3.0])
    with jax.enable_x64(True):
        swept = jax.vmap(lambda C: svm_dual_cd(C, tol=1e-6, fit_intercept=True).fit(KEY, X, y))(Cs)
        for i, C in enumerate(Cs):
            one = svm_dual_cd(float(C), tol=1e-6, fit_intercept=True).fit(KEY, X, y)
            np.testing.assert_allclose(swept.w[i], one.w, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(swept.b[i], one.b, rtol=1e-9, atol=1e-12)
            assert int(swept.n_iter[i]) == int(one.n_iter) and bool(swept.converged[i])


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_converges_on_separable_and_noisy_data(loss):
    for generator, parameter in ((datasets.separable, 0.1), (datasets.noisy_halfspace, 0.2)):
        X, y, _ = generator(KEY, 200, 5, parameter)
        params = svm_dual_cd(1.0, loss=loss, fit_intercept=True).fit(KEY, X, y)  # float32, tol 1e-4
        assert isinstance(params, SVMDualCDParams)
        assert bool(params.converged) and 0 < int(params.n_iter) < 1000, (
            generator.__name__,
            params,
        )
        assert float(params.violation) <= 1e-4
        accuracy = float(jnp.mean(svm_dual_cd(1.0).predict(params, X) == y))
        assert accuracy > (0.97 if generator is datasets.separable else 0.7)


def test_max_iter_bounds_the_epochs():
    X, y = _breast_cancer()
    params = svm_dual_cd(100.0, tol=1e-8, max_iter=3).fit(KEY, X, y)
    assert int(params.n_iter) == 3 and not bool(params.converged)


def test_fit_compiles_once_per_shape():
    X, y = _breast_cancer(100)
    X2, y2 = _breast_cancer(200)[0][100:], _breast_cancer(200)[1][100:]
    fit = lambda C, X, y: svm_dual_cd(C, fit_intercept=True).fit(KEY, X, y)  # noqa: E731
    jax.block_until_ready(fit(1.0, X, y))
    with count_compilations() as compiled:
        jax.block_until_ready(fit(0.5, X2, y2))
        jax.block_until_ready(fit(2.0, X, y))
    assert compiled[0] == 0


def test_bad_inputs_name_the_argument():
    X, y = _breast_cancer(20)
    learner = svm_dual_cd(1.0)
    with pytest.raises(ValueError, match="`sample_weight` of shape"):
        learner.fit(KEY, X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="sample_weight"):
        learner.fit(KEY, X, y, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="`loss`"):
        svm_dual_cd(1.0, loss="log")
    with pytest.raises(ValueError, match="`C`"):
        svm_dual_cd(0.0)


# --------------------------------------------------------------------------------------------
# svm_primal_lbfgs: the squared hinge's primal, the same minimiser
# --------------------------------------------------------------------------------------------


def test_primal_matches_liblinear_primal_and_the_dual_in_float64():
    X, y = _breast_cancer()
    weight = np.random.RandomState(2).uniform(0, 2, len(y))
    with jax.enable_x64(True):
        primal = svm_primal_lbfgs(0.5, tol=1e-10, max_iter=10**4, fit_intercept=True)
        params = primal.fit(None, X, y, sample_weight=weight)
        assert isinstance(params, SVMPrimalParams) and bool(params.converged)
        dual = svm_dual_cd(0.5, loss="squared_hinge", tol=1e-10, max_iter=10**5, fit_intercept=True)
        exact = dual.fit(KEY, X, y, sample_weight=weight)
    svc = LinearSVC(dual=False, C=0.5, tol=1e-10, max_iter=10**5).fit(X, y, sample_weight=weight)
    _assert_relative(params.w, svc.coef_[0], 1e-4)
    assert abs(float(params.b) - svc.intercept_[0]) <= 1e-4 * np.max(np.abs(svc.coef_))
    _assert_relative(params.w, np.asarray(exact.w), 1e-5)


def test_primal_vmap_over_C_and_convergence_in_float32():
    """Each member of the sweep is its own C's solution to within what its stopping point guarantees:
    F is 1-strongly convex (the bias regularised, as LIBLINEAR's), so ||w - w*|| <= ||grad F(w)||.
    Checked against the float64 minimiser, and the sweep against the separate fits (batched float32
    arithmetic rounds apart from a single fit's, so the two L-BFGS paths need not stop at one point)."""
    X, y = _breast_cancer(200)
    Cs = jnp.array([0.01, 1.0, 10.0])
    fit = lambda C: svm_primal_lbfgs(C, fit_intercept=True).fit(None, X.astype(np.float32), y)  # noqa: E731
    swept = jax.vmap(fit)(Cs)
    assert np.all(np.asarray(swept.converged))

    def flat(w, b):
        return np.r_[np.asarray(w, np.float64), float(b)]

    for i, C in enumerate(Cs.tolist()):
        one = fit(C)
        with jax.enable_x64(True):
            exact = svm_primal_lbfgs(C, tol=1e-12, max_iter=10**4, fit_intercept=True).fit(
                None, X.astype(np.float64), y
            )
        assert bool(exact.converged)
        gap = float(swept.grad_norm[i])
        distance = np.linalg.norm(flat(one.w, one.b) - flat(exact.w, exact.b))
        assert distance <= float(one.grad_norm) * 1.01 + 1e-5
        distance = np.linalg.norm(flat(swept.w[i], swept.b[i]) - flat(exact.w, exact.b))
        assert distance <= gap * 1.01 + 1e-5
        np.testing.assert_allclose(swept.w[i], one.w, rtol=0, atol=gap + float(one.grad_norm))
