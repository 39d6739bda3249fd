"""Ridge and kernel ridge regression in closed form (SPEC 10.9, 10.10; UML Exercise 16.3)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from jaxlearn import kernels
from jaxlearn.linear import kernel_ridge, ridge

KEY = jax.random.PRNGKey(0)


def _regression(seed, m=40, d=3, dtype=None):
    X = jax.random.normal(jax.random.PRNGKey(seed), (m, d), dtype)
    noise = jax.random.normal(jax.random.PRNGKey(seed + 1000), (m,), X.dtype)
    return X, (X[:, 0] - 2 * X[:, 1] * X[:, 2] + 0.1 * noise).astype(X.dtype)


def _ridge_objective(w, X, y, lam):  # SPEC 10.10: a sum of squares plus lam ||w||^2
    return jnp.sum((X @ w - y) ** 2) + lam * jnp.vdot(w, w)


def _uml_objective(w, Phi, y, lam):  # UML (16.8): lam ||w||^2 + (1 / 2m) sum of squares
    return lam * jnp.vdot(w, w) + jnp.sum((Phi @ w - y) ** 2) / (2 * y.shape[0])


@pytest.mark.parametrize("rows", [442, 6], ids=["d<m (primal)", "d>m (dual)"])
@pytest.mark.parametrize("lam", [0.01, 1.0, 30.0])
def test_ridge_equals_sklearn_and_its_gradient_vanishes(rows, lam, x64):
    X, y = load_diabetes(return_X_y=True)
    X, y = jnp.asarray(X[:rows]), jnp.asarray(y[:rows])
    params = ridge(lam).fit(KEY, X, y)
    want = (
        Ridge(alpha=lam, fit_intercept=False, solver="cholesky")
        .fit(np.asarray(X), np.asarray(y))
        .coef_
    )
    np.testing.assert_allclose(params.w, want, rtol=1e-8, atol=1e-10 * np.abs(want).max())
    grad = jax.grad(_ridge_objective)(params.w, X, y, lam)
    assert float(jnp.abs(grad).max()) <= 1e-9 * float(jnp.abs(X.T @ y).max())


def test_ridge_is_kernel_ridge_with_the_linear_kernel_and_lam_over_2m(x64):
    X, y = _regression(0)
    X_new, _ = _regression(1)
    lam, m = 0.7, X.shape[0]
    primal = ridge(lam)
    dual = kernel_ridge(kernels.linear(), lam / (2 * m))
    np.testing.assert_allclose(
        dual.predict(dual.fit(KEY, X, y), X_new),
        primal.predict(primal.fit(KEY, X, y), X_new),
        rtol=1e-10,
    )


@pytest.mark.parametrize("degree, lam", [(2, 1e-3), (3, 0.1)])
def test_kernel_ridge_equals_primal_ridge_on_the_explicit_feature_map(degree, lam, x64):
    X, y = _regression(2, m=30)
    X_new, _ = _regression(3, m=20)
    psi = jax.vmap(lambda x: kernels.polynomial_features(x, degree))
    Phi, m = psi(X), X.shape[0]
    # the primal closed form of UML (16.8): w* = (Phi^T Phi + 2 lam m I)^{-1} Phi^T y
    w_star = jnp.linalg.solve(Phi.T @ Phi + 2 * lam * m * jnp.eye(Phi.shape[1]), Phi.T @ y)
    learner = kernel_ridge(kernels.polynomial(degree), lam)
    params = learner.fit(KEY, X, y)
    scale = float(jnp.abs(psi(X_new) @ w_star).max())
    np.testing.assert_allclose(
        learner.predict(params, X_new), psi(X_new) @ w_star, atol=1e-9 * scale
    )
    np.testing.assert_allclose(
        Phi.T @ params.alpha, w_star, atol=1e-9 * float(jnp.abs(w_star).max())
    )
    # the representer w = Phi^T alpha minimises f: its gradient vanishes
    grad = jax.grad(_uml_objective)(Phi.T @ params.alpha, Phi, y, lam)
    assert float(jnp.abs(grad).max()) <= 1e-9 * float(jnp.abs(Phi.T @ y).max() / m)
    assert float(_uml_objective(Phi.T @ params.alpha, Phi, y, lam)) <= float(
        _uml_objective(Phi.T @ params.alpha * 1.001, Phi, y, lam)
    )


@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_kernel_ridge_equals_sklearn_kernel_ridge(sigma, x64):
    X, y = _regression(4, m=50)
    X_new, _ = _regression(5, m=10)
    lam, m = 0.01, X.shape[0]
    learner = kernel_ridge(kernels.gaussian(sigma), lam, batch_size=16)
    got = learner.predict(learner.fit(KEY, X, y), X_new)
    # sklearn solves (K + alpha I) c = y: alpha = 2 lam m; its rbf gamma = 1 / (2 sigma) (book's sigma)
    reference = KernelRidge(alpha=2 * lam * m, kernel="rbf", gamma=1 / (2 * sigma))
    want = reference.fit(np.asarray(X), np.asarray(y)).predict(np.asarray(X_new))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("rows", [400, 12], ids=["primal", "dual"])
def test_collinear_features_and_a_tiny_lam_in_float32_still_solve(rows):
    """Five features are sums of others: in float32 the formed system is indefinite by rounding and
    its Cholesky factor not finite. Ridge then solves by X's SVD and predicts as in float64; kernel
    ridge (a Gram matrix only) by its eigenvalues, finite where float32 cannot resolve more."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 10))
    X = np.hstack([X, X[:, :5] + X[:, 5:]])
    y = X @ rng.normal(size=15) + 0.1 * rng.normal(size=rows)
    X32, y32 = X.astype(np.float32), y.astype(np.float32)
    lam = 1e-8
    with jax.enable_x64(True):
        want = ridge(lam).predict(ridge(lam).fit(KEY, X, y), X)
    got = ridge(lam).predict(ridge(lam).fit(KEY, X32, y32), X32)
    assert np.max(np.abs(np.asarray(got) - np.asarray(want))) <= 1e-4 * np.max(np.abs(y))
    learner = kernel_ridge(kernels.linear(), lam / (2 * rows))
    assert np.all(np.isfinite(np.asarray(learner.predict(learner.fit(KEY, X32, y32), X32))))


def test_regressors_predict_real_values():
    X, y = _regression(6)
    for learner in (ridge(0.1), kernel_ridge(kernels.gaussian(1.0), 0.01)):
        prediction = learner.predict(learner.fit(KEY, X, y), X)
        assert prediction.dtype == jnp.float32
        assert not bool(jnp.all(jnp.isin(prediction, jnp.array([-1.0, 1.0]))))
        assert float(jnp.mean((prediction - y) ** 2)) < float(jnp.var(y))


POLY = kernels.polynomial(2)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make", [ridge, lambda lam: kernel_ridge(POLY, lam)], ids=["ridge", "kernel_ridge"]
)
def test_bad_inputs(make):
    X, y = _regression(13, m=10)
    for lam in (0.0, -2.0):
        with pytest.raises(ValueError, match=r"`lam` a number in \(0, inf\)"):
            make(lam)
    learner = make(0.1)
    with pytest.raises(ValueError, match="`y` to be finite"):
        learner.fit(KEY, X, y.at[3].set(jnp.inf))
    with pytest.raises(ValueError, match=r"`y` of shape \(m,\)"):
        learner.fit(KEY, X, y[:, None])
    with pytest.raises(ValueError, match="non-empty sample"):
        learner.fit(KEY, X[:0], y[:0])


def test_kernel_of_the_wrong_shape():
    X, y = _regression(14, m=10)
    with pytest.raises(ValueError, match=r"`kernel` to return a scalar .* got shape \(3,\)"):
        kernel_ridge(lambda x, z: x - z, 0.1).fit(KEY, X, y)
