"""Soft-SVM by SGD (UML 15.5, SS10 Algorithm 7) and Hard-SVM (UML 15.1-15.4): reference traces, the
objective against scikit-learn's LinearSVC, the max-margin separator against SVC, duality identities,
non-separable samples, bad input."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, losses, online, theory
from jaxlearn._regularized import sample_indices
from jaxlearn.linear._sgd import sgd
from jaxlearn.linear._svm import check_separable, hard_svm, sample_margin, soft_svm

KEY = jax.random.PRNGKey(0)
_separable = jax.jit(datasets.separable, static_argnums=(1, 2), static_argnames=("dtype",))
_noisy = jax.jit(datasets.noisy_halfspace, static_argnums=(1, 2), static_argnames=("dtype",))


def _np64(*arrays):
    return tuple(np.asarray(a, np.float64) for a in arrays)


@functools.lru_cache(maxsize=None)
def _noisy_sample(seed=3, m=1000, d=20, flip=0.1):
    with jax.enable_x64(True):
        X, y, _ = _noisy(jax.random.PRNGKey(seed), m, d, flip, dtype=jnp.float64)
        return _np64(X, y)


@functools.lru_cache(maxsize=None)
def _separable_sample(seed=0, m=60, d=4, margin=0.1):
    with jax.enable_x64(True):
        X, y, w_star = _separable(jax.random.PRNGKey(seed), m, d, margin, dtype=jnp.float64)
        return _np64(X, y, w_star)


@functools.lru_cache(maxsize=None)
def _breast_cancer():
    X, y = datasets.load_breast_cancer(dtype=np.float64)
    return np.asarray(datasets.standardize(X)), y


def _objective(w, X, y, lam, b=0.0):
    """UML (15.12): lam/2 ||w||^2 + mean hinge (b, when given, is regularised like a weight)."""
    w = np.asarray(w, np.float64)
    return lam / 2 * (w @ w + b * b) + np.mean(np.maximum(0, 1 - y * (X @ w + b)))


# --------------------------------------------------------------------------------------------
# Soft-SVM: the two algorithms exactly as written
# --------------------------------------------------------------------------------------------


def _uml_reference(X, y, idx, lam):
    """UML 15.5 literally: w(t) = theta(t) / (lam t); theta += y x on a margin violation; mean of w(1..T)."""
    theta, total = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for t, i in enumerate(np.asarray(idx), start=1):
        w = theta / (lam * t)
        total += w
        if y[i] * (w @ X[i]) < 1:
            theta = theta + y[i] * X[i]
    return total / len(idx)


def _ss10_reference(X, y, idx, lam):
    """SS10 Algorithm 7 literally: w_{t+1} = (1 - 1/t) w_t (+ y x / (lam t) on a violation); mean w_1..w_T."""
    w, total = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for t, i in enumerate(np.asarray(idx), start=1):
        total += w
        violated = y[i] * (w @ X[i]) < 1
        w = (1 - 1 / t) * w + (y[i] * X[i] / (lam * t) if violated else 0)
    return total / len(idx)


@pytest.mark.parametrize("variant, reference", [("uml", _uml_reference), ("ss10", _ss10_reference)])
def test_soft_svm_equals_the_algorithm_as_written(x64, variant, reference):
    X, y = _noisy_sample(m=60, d=4)
    lam, steps = 0.05, 400
    params = soft_svm(lam, steps, variant=variant).fit(KEY, X, y)
    want = reference(X, y, sample_indices(KEY, steps, len(y)), lam)
    np.testing.assert_allclose(params.w, want, rtol=1e-10, atol=1e-12)
    assert float(params.b) == 0.0


def test_the_two_versions_differ_by_the_off_by_one(x64):
    # SPEC 9.7: UML divides theta(t) by lam t, SS10 (= exact SGD) by lam (t - 1): not iterate-identical.
    X, y = _noisy_sample(m=60, d=4)
    uml = soft_svm(0.05, 400).fit(KEY, X, y).w
    ss10 = soft_svm(0.05, 400, variant="ss10").fit(KEY, X, y).w
    assert not np.allclose(uml, ss10, rtol=1e-3)
    # SS10 Algorithm 7 is SGD with eta_t = 1/(lam t) on lam/2 ||w||^2 + hinge (SS10 Algorithm 6)
    via_sgd = sgd(losses.hinge, steps=400, lam=0.05).fit(KEY, X, y).w
    np.testing.assert_allclose(ss10, via_sgd, rtol=1e-9, atol=1e-12)


def test_intercept_is_a_regularised_constant_feature(x64):
    X, y = _noisy_sample(m=60, d=4)
    params = soft_svm(0.05, 400, fit_intercept=True).fit(KEY, X, y)
    augmented = soft_svm(0.05, 400).fit(KEY, np.hstack([X, np.ones((60, 1))]), y)
    np.testing.assert_allclose(params.w, augmented.w[:4], rtol=1e-12)
    np.testing.assert_allclose(params.b, augmented.w[4], rtol=1e-12)
    learner = soft_svm(0.05, 400, fit_intercept=True)
    np.testing.assert_allclose(
        learner.decision_function(params, X), X @ params.w + params.b, rtol=1e-12
    )


# --------------------------------------------------------------------------------------------
# Soft-SVM: within 1% of the optimum of the same objective (scikit-learn LinearSVC)
# --------------------------------------------------------------------------------------------


def _linear_svc(X, y, lam, fit_intercept=False):
    from sklearn.svm import LinearSVC

    # LinearSVC minimises 1/2 ||w||^2 + C sum hinge; with C = 1/(lam m) that is (1/lam) times (15.12).
    # With fit_intercept, liblinear appends a constant feature (intercept_scaling=1) and regularises it.
    svc = LinearSVC(
        loss="hinge",
        C=1 / (lam * len(y)),
        fit_intercept=fit_intercept,
        dual=True,
        tol=1e-8,
        max_iter=100_000,
    ).fit(X, y)
    return svc.coef_[0], float(svc.intercept_[0]) if fit_intercept else 0.0


# (data, lam, steps): breast cancer standardised (R = 20.5) and a generated noisy halfspace (R <= 1).
SKLEARN_CASES = {
    "breast_cancer": (_breast_cancer, 0.02, 100_000),
    "generated": (_noisy_sample, 1e-3, 50_000),
}


@pytest.mark.parametrize("variant", ["uml", "ss10"])
@pytest.mark.parametrize("name", list(SKLEARN_CASES))
def test_soft_svm_objective_within_one_percent_of_linear_svc(name, variant):
    data, lam, steps = SKLEARN_CASES[name]
    X, y = data()
    w_ref, _ = _linear_svc(X, y, lam)
    optimum = _objective(w_ref, X, y, lam)
    keys = jax.random.split(KEY, 3)
    W = jax.vmap(soft_svm(lam, steps, variant=variant).fit, (0, None, None))(
        keys, X.astype(np.float32), y
    )
    gaps = [(_objective(w, X, y, lam) - optimum) / optimum for w in np.asarray(W.w, np.float64)]
    assert min(gaps) >= -1e-5, gaps  # LinearSVC's point is optimal: SGD cannot beat it
    assert max(gaps) <= 0.01, gaps


def test_one_percent_is_not_free():
    # The criterion discriminates: 50x fewer steps miss it on breast cancer.
    X, y = _breast_cancer()
    lam = 0.02
    optimum = _objective(_linear_svc(X, y, lam)[0], X, y, lam)
    w = soft_svm(lam, 2_000).fit(KEY, X.astype(np.float32), y).w
    assert (_objective(w, X, y, lam) - optimum) / optimum > 0.01


def test_intercept_objective_within_one_percent_of_linear_svc():
    X, y = _noisy_sample()
    X = X + 0.5  # a shifted sample: the intercept matters
    lam = 0.01
    w_ref, b_ref = _linear_svc(X, y, lam, fit_intercept=True)
    optimum = _objective(w_ref, X, y, lam, b_ref)
    params = soft_svm(lam, 50_000, fit_intercept=True).fit(KEY, X.astype(np.float32), y)
    gap = (_objective(params.w, X, y, lam, float(params.b)) - optimum) / optimum
    assert -1e-5 <= gap <= 0.01, gap
    assert abs(b_ref) > 0.1  # the reference does use its intercept


# --------------------------------------------------------------------------------------------
# Hard-SVM
# --------------------------------------------------------------------------------------------


def test_hard_svm_agrees_with_sklearn_svc_on_symmetric_data(x64):
    # SVC fits a bias; on a sample closed under (x, y) -> (-x, -y) the max-margin separator has b = 0,
    # so SVC's solution is the homogeneous one. Mirror pairs share y x, so only the pair sums of alpha
    # (and the support pairs) are determined.
    from sklearn.svm import SVC

    X, y, _ = _separable_sample(seed=1, m=30, d=3, margin=0.1)
    n = len(y)
    Xs, ys = np.vstack([X, -X]), np.concatenate([y, -y])
    svc = SVC(kernel="linear", C=1e8, tol=1e-10).fit(Xs, ys)
    assert abs(svc.intercept_[0]) < 1e-6
    params = hard_svm().fit(KEY, Xs, ys)
    assert bool(params.converged) and bool(params.separable)
    np.testing.assert_allclose(params.w, svc.coef_[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params.margin, 1 / np.linalg.norm(svc.coef_[0]), rtol=1e-5)
    svc_alpha = np.zeros(2 * n)
    svc_alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    ours = np.asarray(params.alpha)
    np.testing.assert_allclose(
        ours[:n] + ours[n:], svc_alpha[:n] + svc_alpha[n:], rtol=1e-5, atol=1e-6
    )
    support = np.asarray(params.support)
    svc_support = np.zeros(2 * n, bool)
    svc_support[svc.support_] = True
    np.testing.assert_array_equal(support[:n] | support[n:], svc_support[:n] | svc_support[n:])
    assert (
        2 <= (support[:n] | support[n:]).sum() <= 4
    )  # a few support vectors, not the whole sample


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_svm_duality_identities(x64, seed):
    X, y, w_star = _separable_sample(seed=seed)
    params = hard_svm().fit(KEY, X, y)
    w, alpha = np.asarray(params.w), np.asarray(params.alpha)
    assert bool(params.converged) and int(params.num_steps) < 10_000
    assert np.all(alpha >= 0)
    np.testing.assert_allclose(alpha.sum(), w @ w, rtol=1e-6)  # sum alpha = ||w_0||^2 (SPEC 9.3)
    np.testing.assert_allclose(
        w, (alpha * y) @ X, rtol=1e-12, atol=1e-12
    )  # w = sum alpha_i y_i x_i
    scores = y * (X @ w)
    assert scores.min() >= 1 - 1e-6  # feasible for (15.3)
    np.testing.assert_allclose(
        scores[params.support], 1.0, atol=1e-6
    )  # support vectors on the margin
    assert np.all(scores[~np.asarray(params.support)] > 1 - 1e-6)
    # gamma(S) = 1/||w_0||: the margin of w_0 itself, at least the true direction's, and never
    # beaten by any of 20,000 random unit directions
    gamma = float(params.margin)
    np.testing.assert_allclose(gamma, 1 / np.linalg.norm(w), rtol=1e-12)
    np.testing.assert_allclose(gamma, theory.halfspace_margin(w, X, y), rtol=1e-6)
    assert gamma >= float(theory.halfspace_margin(w_star, X, y)) - 1e-12
    U = np.random.default_rng(seed).normal(size=(20_000, X.shape[1]))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    assert (y[:, None] * (X @ U.T)).min(axis=0).max() <= gamma + 1e-12
    # ||w||/sum(alpha), an upper bound on gamma(S) for every alpha >= 0, is tight at the optimum
    np.testing.assert_allclose(np.linalg.norm(w) / alpha.sum(), gamma, rtol=1e-6)


def test_hard_svm_converges_in_float32():
    X, y, _ = _separable_sample(seed=2)
    params = hard_svm().fit(KEY, X.astype(np.float32), y.astype(np.float32))
    assert params.w.dtype == jnp.float32 and bool(params.converged)
    exact = hard_svm().fit(KEY, X, y)  # float64 inputs, x64 off: computed in float32 too
    np.testing.assert_allclose(params.margin, exact.margin, rtol=1e-5)
    with jax.enable_x64(True):
        gamma64 = float(hard_svm().fit(KEY, X, y).margin)
    np.testing.assert_allclose(float(params.margin), gamma64, rtol=1e-4)


def test_perceptron_updates_within_the_hard_svm_bound():
    # SPEC 9.2 (iv): Perceptron mistakes <= (R ||w_0||)^2 = (R / gamma(S))^2, cycling until separated.
    X, y, _ = _separable_sample(seed=4, margin=0.05)
    X, y = X.astype(np.float32), y.astype(np.float32)
    gamma = float(sample_margin(X, y))
    stream = np.tile(X, (30, 1)), np.tile(y, 30)
    learner = online.perceptron()
    _, trace = core.run(learner, learner.init(X[0]), *stream)
    mistakes = int(trace.mistake.sum())
    assert not bool(trace.mistake[-len(y) :].any())  # separated by the end
    assert 0 < mistakes <= float(theory.perceptron_mistake_bound(theory.radius(X), gamma))


def test_non_separable_sample_is_reported():
    X, y = _noisy_sample(m=60, d=4)
    params = hard_svm().fit(KEY, X.astype(np.float32), y.astype(np.float32))
    assert not bool(params.separable) and not bool(params.converged)
    assert float(params.margin) == 0.0
    assert int(params.num_steps) < 10_000  # detected through the margin bound, before max_steps
    assert np.isfinite(np.asarray(params.w)).all()
    with pytest.raises(ValueError, match="not linearly separable"):
        check_separable(params)
    with pytest.raises(ValueError, match="not linearly separable"):
        sample_margin(X, y)
    Xs, ys, _ = _separable_sample()
    with pytest.raises(ValueError, match="did not converge within max_steps=2"):
        sample_margin(Xs, ys, max_steps=2)
    # a zero instance can never satisfy y <w, x> >= 1
    degenerate = hard_svm().fit(KEY, np.vstack([Xs, np.zeros((1, 4))]), np.append(ys, 1.0))
    assert not bool(degenerate.separable) and int(degenerate.num_steps) == 0


def test_separability_flag_under_vmap_and_jit():
    Xs, ys, _ = _separable_sample()
    Xn, yn = _noisy_sample(m=60, d=4)
    X = jnp.asarray(np.stack([Xs, Xn]), jnp.float32)
    y = jnp.asarray(np.stack([ys, yn]), jnp.float32)
    batch = jax.vmap(hard_svm().fit, (None, 0, 0))(KEY, X, y)
    np.testing.assert_array_equal(batch.separable, [True, False])
    with pytest.raises(ValueError, match=r"fits \[1\]"):
        check_separable(batch)
    margins = jax.jit(jax.vmap(sample_margin))(
        X, y
    )  # traced: no raise, 0 for the non-separable one
    assert float(margins[0]) > 0 and float(margins[1]) == 0.0
    np.testing.assert_allclose(margins[0], sample_margin(Xs, ys), rtol=1e-5)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def test_soft_svm_rejects_bad_hyperparameters():
    with pytest.raises(ValueError, match=r"expected `lam` a number in \(0, inf\)"):
        soft_svm(0.0, 100)
    with pytest.raises(ValueError, match=r"expected `lam` a number in \(0, inf\)"):
        soft_svm(-1.0, 100)
    with pytest.raises(ValueError, match=r"expected `steps` an integer in \[1, inf\)"):
        soft_svm(0.1, 0)
    with pytest.raises(TypeError, match=r"expected `steps` an integer in \[1, inf\)"):
        soft_svm(0.1, 10.0)
    with pytest.raises(ValueError, match=r"expected `lam` a number in \(0, inf\), got inf"):
        soft_svm(float("inf"), 10)
    with pytest.raises(ValueError, match="expected `variant` in"):
        soft_svm(0.1, 10, variant="pegasos")


def test_hard_svm_rejects_bad_hyperparameters():
    with pytest.raises(ValueError, match=r"expected `max_steps` an integer in \[1, inf\)"):
        hard_svm(max_steps=0)
    with pytest.raises(ValueError, match=r"expected `tol` a number in \(0, inf\)"):
        hard_svm(tol=0.0)


@pytest.mark.parametrize(
    "make", [lambda: soft_svm(0.1, 10), lambda: hard_svm()], ids=["soft", "hard"]
)
def test_svms_reject_bad_samples(make):
    X, y, _ = _separable_sample()
    X, y = X.astype(np.float32), y.astype(np.float32)
    learner = make()
    with pytest.raises(ValueError, match=r"expected `y` in \{-1, 1\}, found values \{0, 1\}"):
        learner.fit(KEY, X, (y + 1) / 2)
    with pytest.raises(ValueError, match="`X` to be finite"):
        learner.fit(KEY, np.where(X > 0.5, np.nan, X), y)
    with pytest.raises(ValueError, match=r"expected `X` of shape \(m, d\), got \(60,\)"):
        learner.fit(KEY, X[:, 0], y)
