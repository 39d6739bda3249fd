"""multiclass.multiclass_svm_dual_cd: the Crammer-Singer SVM by the sequential dual method.

In float64 against scikit-learn's LinearSVC(multi_class="crammer_singer") (liblinear -s 4) with tight
tolerances on both sides, with and without sample weights; the exact sub-problem solver against a
brute-force check of its optimality conditions; the SGD learner (multiclass_svm) on its own objective;
vmap over C; the converged flag; compilation.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from jaxlearn.multiclass import MulticlassSVMDualCDParams, multiclass_svm, multiclass_svm_dual_cd
from jaxlearn.multiclass._crammer_singer import sub_problem
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(0)


def _iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _digits(m=300):
    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X)[:m], y[:m]


def _objective(W, b, X, y, C, weight=None):
    """(1/2)|W|^2 (bias included, intercept_scaling = 1) + C sum_i s_i max_k (1[k != y_i] + s_ik - s_iy)."""
    scores = X @ W.T + b
    margins = (
        (np.arange(W.shape[0])[None, :] != y[:, None])
        + scores
        - scores[np.arange(len(y)), y][:, None]
    )
    weight = np.ones(len(y)) if weight is None else weight
    return 0.5 * (np.sum(W * W) + b @ b) + C * np.sum(weight * margins.max(axis=1))


def _reference(X, y, C, sample_weight=None):
    svc = LinearSVC(multi_class="crammer_singer", C=C, tol=1e-8, max_iter=10**5)
    return svc.fit(X, y, sample_weight=sample_weight)


def _assert_relative(got, want, rtol):
    assert np.max(np.abs(np.asarray(got) - want)) <= rtol * np.max(np.abs(want)), (got, want)


@pytest.mark.parametrize("name, C", [("iris", 1.0), ("digits", 0.1)])
def test_matches_liblinear_in_float64(name, C):
    X, y = _iris() if name == "iris" else _digits()
    k = int(y.max()) + 1
    with jax.enable_x64(True):
        learner = multiclass_svm_dual_cd(C, k, tol=1e-8, max_iter=10**5, fit_intercept=True)
        params = learner.fit(KEY, X, y)
        assert params.w.dtype == jnp.float64 and bool(params.converged)
        primal = _objective(np.asarray(params.w), np.asarray(params.b), X, y, C)
        assert -1e-12 * primal <= float(params.gap) <= 1e-6 * primal
        svc = _reference(X, y, C)
        np.testing.assert_array_equal(learner.predict(params, X), svc.predict(X))
    _assert_relative(params.w, svc.coef_, 1e-4)
    _assert_relative(params.b, svc.intercept_, 1e-4)


def test_sample_weights_match_liblinear():
    X, y = _iris()
    weight = np.random.RandomState(1).uniform(0, 3, len(y))
    weight[::15] = 0.0
    with jax.enable_x64(True):
        learner = multiclass_svm_dual_cd(0.5, 3, tol=1e-8, max_iter=10**5, fit_intercept=True)
        params = learner.fit(KEY, X, y, sample_weight=weight)
        kept = weight > 0
        dropped = learner.fit(KEY, X[kept], y[kept], sample_weight=weight[kept])
    svc = _reference(X, y, 0.5, sample_weight=weight)
    _assert_relative(params.w, svc.coef_, 1e-4)
    _assert_relative(params.b, svc.intercept_, 1e-4)
    _assert_relative(params.w, np.asarray(dropped.w), 1e-6)


def test_sub_problem_is_exact():
    # KKT of min A/2 |a|^2 + <B, a> s.t. sum a = 0, a_k <= c 1[k = y]: a_k = min(u_k, (beta - B_k)/A)
    rng = np.random.RandomState(0)
    solve = jax.jit(sub_problem)
    with jax.enable_x64(True):
        for _ in range(40):
            k, A, c = rng.choice([2, 3, 5, 7, 40]), rng.uniform(0.1, 5), rng.uniform(0.01, 3)
            B, y = np.round(rng.normal(size=k), 1), rng.randint(k)  # with ties
            a = np.asarray(solve(jnp.float64(A), jnp.asarray(B), jnp.int32(y), jnp.float64(c)))
            upper = np.where(np.arange(k) == y, c, 0.0)
            assert abs(a.sum()) < 1e-12 and np.all(a <= upper + 1e-12)
            free = a < upper - 1e-12
            beta = A * a[free] + B[free]  # the multiplier: equal on every free coordinate
            assert free.any() and np.ptp(beta) < 1e-10
            assert np.all(
                A * upper[~free] + B[~free] <= beta[0] + 1e-10
            )  # at the bound: no gain inside


def test_objective_at_most_multiclass_svm_sgd():
    # C = 1/(lam m): multiclass_svm's lam/2 |w|^2 + mean generalised hinge, times 1/(lam m)
    X, y = _iris()
    lam = 0.01
    C = 1.0 / (lam * len(y))
    with jax.enable_x64(True):
        exact = multiclass_svm_dual_cd(C, 3, tol=1e-6, fit_intercept=True).fit(KEY, X, y)
        sgd = multiclass_svm(lam, 20_000, 3, fit_intercept=True).fit(KEY, X, y)
    ours = _objective(np.asarray(exact.w), np.asarray(exact.b), X, y, C)
    W = np.asarray(sgd.w).reshape(3, -1)
    theirs = _objective(W, np.asarray(sgd.b), X, y, C)
    assert ours <= theirs, (ours, theirs)


def test_vmap_over_C_equals_separate_fits():
    X, y = _iris()
    Cs = jnp.array([0.01, 0.1, 1.0])
    with jax.enable_x64(True):
        fit = lambda C: multiclass_svm_dual_cd(
            C, 3, tol=1e-5, max_iter=10**4, fit_intercept=True
        ).fit(KEY, X, y)  # noqa: E731
        swept = jax.vmap(fit)(Cs)
        for i, C in enumerate(Cs):
            one = fit(float(C))
            np.testing.assert_allclose(swept.w[i], one.w, rtol=1e-9, atol=1e-12)
            assert int(swept.n_iter[i]) == int(one.n_iter) and bool(swept.converged[i])


def test_converges_and_learns_in_float32():
    X, y = _digits(500)
    params = multiclass_svm_dual_cd(1.0, 10, fit_intercept=True).fit(KEY, X.astype(np.float32), y)
    assert isinstance(params, MulticlassSVMDualCDParams) and params.w.shape == (10, 64)
    assert bool(params.converged) and float(params.violation) < 1e-4
    predict = multiclass_svm_dual_cd(1.0, 10).predict
    assert float(jnp.mean(predict(params, X.astype(np.float32)) == y)) > 0.99
    capped = multiclass_svm_dual_cd(100.0, 10, tol=1e-8, max_iter=2).fit(
        KEY, X.astype(np.float32), y
    )
    assert int(capped.n_iter) == 2 and not bool(capped.converged)


def test_fit_compiles_once_per_shape():
    X, y = _iris()
    fit = lambda C, X, y: multiclass_svm_dual_cd(C, 3).fit(KEY, X, y)  # noqa: E731
    jax.block_until_ready(fit(1.0, X[:75], y[:75]))
    with count_compilations() as compiled:
        jax.block_until_ready(fit(0.5, X[75:], y[75:]))
    assert compiled[0] == 0


def test_bad_inputs_name_the_argument():
    X, y = _iris()
    learner = multiclass_svm_dual_cd(1.0, 3)
    with pytest.raises(ValueError, match="`sample_weight` of shape"):
        learner.fit(KEY, X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="labels in 0..2"):
        learner.fit(KEY, X, y + 1)
    with pytest.raises(ValueError, match="`num_classes`"):
        multiclass_svm_dual_cd(1.0, 1)
