"""SGD (SS10 Algorithms 5-6): reference traces, the rates of Theorem 5 and Lemma 7 over 20 seeds,
optax optimisers on the same objective, logistic regression and ridge against their optima, bad input."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxlearn import datasets, losses, theory
from jaxlearn._regularized import sample_indices
from jaxlearn.linear._sgd import SGDParams, sgd
from jaxlearn.online import l2_ball

KEY = jax.random.PRNGKey(0)


# --------------------------------------------------------------------------------------------
# A plain NumPy transcription of Algorithms 5/6, driven by the same index sequence
# --------------------------------------------------------------------------------------------


def _hinge_grad(w, x, y):
    return -y * x if y * (w @ x) < 1 else np.zeros_like(x)


def _logistic_grad(w, x, y):
    return -y * x / (1 + np.exp(y * (w @ x)))


def _reference(X, y, idx, grad, eta, lam=0.0, radius=None):
    """w_1 = 0; v_t = grad + lam w_t; w_{t+1} = Pi(w_t - eta(t) v_t); returns (mean of w_1..w_T, w_{T+1})."""
    X, y = np.asarray(X, np.float64), np.asarray(y, np.float64)
    w, total = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for t, i in enumerate(np.asarray(idx), start=1):
        total += w
        w = w - eta(t) * (grad(w, X[i], y[i]) + lam * w)
        if radius is not None and np.linalg.norm(w) > radius:
            w = w * radius / np.linalg.norm(w)
    return total / len(idx), w


_noisy_halfspace = jax.jit(
    datasets.noisy_halfspace, static_argnums=(1, 2), static_argnames=("dtype",)
)


@functools.lru_cache(maxsize=None)
def _small(seed=11, m=40, d=3, flip=0.15):
    """A tiny noisy sample in the unit ball, float64 NumPy arrays."""
    with jax.enable_x64(True):
        X, y, _ = _noisy_halfspace(jax.random.PRNGKey(seed), m, d, flip, dtype=jnp.float64)
        return np.asarray(X), np.asarray(y)


def test_one_step_outputs_w1_equal_zero():
    # The output averages w_1..w_T, w_1 = 0 included and w_{T+1} excluded: after one step it is 0.
    X, y = _small()
    params = sgd(losses.hinge, steps=1, lam=0.5).fit(
        KEY, X.astype(np.float32), y.astype(np.float32)
    )
    i = int(sample_indices(KEY, 1, X.shape[0])[0])
    np.testing.assert_array_equal(params.w, np.zeros(3))
    np.testing.assert_allclose(
        params.last, y[i] * X[i] / 0.5, rtol=1e-6
    )  # w_2 = -eta_1 v_1 = y x / lam
    assert int(params.num_steps) == 1


@pytest.mark.parametrize(
    "name, loss, grad, kwargs, eta, lam, radius",
    [
        (
            "alg6_hinge",
            losses.hinge,
            _hinge_grad,
            dict(lam=0.3),
            lambda t: 1 / (0.3 * t),
            0.3,
            None,
        ),
        (
            "alg6_logistic",
            losses.logistic,
            _logistic_grad,
            dict(lam=0.1),
            lambda t: 1 / (0.1 * t),
            0.1,
            None,
        ),
        (
            "alg5_hinge_ball",
            losses.hinge,
            _hinge_grad,
            dict(eta=0.7, projection=l2_ball(1.5)),
            lambda t: 0.7 / np.sqrt(t),
            0.0,
            1.5,
        ),
        (
            "schedule_lam",
            losses.logistic,
            _logistic_grad,
            dict(eta=lambda c: 2.0 / (c + 4.0), lam=0.2),
            lambda t: 2.0 / (t + 3.0),
            0.2,
            None,
        ),
    ],
)
def test_fit_equals_numpy_transcription(x64, name, loss, grad, kwargs, eta, lam, radius):
    X, y = _small()
    steps = 300
    params = sgd(loss, steps=steps, **kwargs).fit(KEY, X, y)
    want_avg, want_last = _reference(
        X, y, sample_indices(KEY, steps, X.shape[0]), grad, eta, lam, radius
    )
    np.testing.assert_allclose(params.w, want_avg, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(params.last, want_last, rtol=1e-10, atol=1e-12)
    last = sgd(loss, steps=steps, average=False, **kwargs).fit(KEY, X, y)
    np.testing.assert_allclose(last.w, want_last, rtol=1e-10, atol=1e-12)
    assert not np.allclose(want_avg, want_last)  # the two outputs really differ


def test_optax_sgd_with_the_book_schedule_is_algorithm_6(x64):
    X, y = _small()
    lam = 0.25
    book = sgd(losses.hinge, steps=300, lam=lam).fit(KEY, X, y)
    tx = optax.sgd(lambda count: 1.0 / (lam * (count + 1.0)))  # optax counts from 0
    via_optax = sgd(losses.hinge, steps=300, lam=lam, optimizer=tx).fit(KEY, X, y)
    np.testing.assert_allclose(via_optax.w, book.w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(via_optax.last, book.last, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Rates (SS10 Theorem 5, Lemma 7) on average over 20 seeds, on problems with a known optimum
# --------------------------------------------------------------------------------------------


def _hinge_lp_optimum(X, y):
    """min_w (1/m) sum_i max(0, 1 - y_i <w, x_i>) as a linear program (exact, HiGHS)."""
    from scipy.optimize import linprog

    m, d = X.shape
    c = np.concatenate([np.zeros(d), np.full(m, 1.0 / m)])
    A = np.hstack([-(y[:, None] * X), -np.eye(m)])
    res = linprog(
        c, A_ub=A, b_ub=-np.ones(m), bounds=[(None, None)] * d + [(0, None)] * m, method="highs"
    )
    assert res.status == 0
    return res.x[:d], res.fun


def _avg_loss(loss, W, X, y):
    per_example = jax.vmap(jax.vmap(loss, (None, 0, 0)), (0, None, None))(W, X, y)
    return jnp.mean(per_example, axis=-1)


SEEDS = jax.random.split(jax.random.PRNGKey(2024), 20)


def test_theorem_5_rate_over_20_seeds(x64):
    # f = average hinge over A = {||w|| <= B}; B = the norm of an exact minimiser, so min_A f = min f.
    X, y = _small()
    u, f_star = _hinge_lp_optimum(X, y)
    B = float(np.linalg.norm(u))
    U, rho, T = 2 * B, float(theory.radius(X)), 50_000  # diameter of A; ||v_t|| <= ||x|| <= rho
    eta = U / (rho * np.sqrt(2))
    fit = sgd(losses.hinge, steps=T, eta=eta, projection=l2_ball(B)).fit
    W = jax.vmap(fit, (0, None, None))(SEEDS, X, y).w
    assert float(jnp.max(jnp.linalg.norm(W, axis=1))) <= B * (1 + 1e-12)
    gaps = np.asarray(_avg_loss(losses.hinge, W, X, y)) - f_star
    bound = float(theory.sgd_convex_bound(U, rho, T))
    assert np.all(gaps >= -1e-9)  # f_star is the optimum
    assert gaps.mean() <= bound, (gaps.mean(), bound)
    # not vacuous: the bound is far below the gap of the starting point w_1 = 0
    assert bound < 0.25 * (1.0 - f_star)
    # and T matters: 100x fewer steps leave a larger gap
    W_short = jax.vmap(
        sgd(losses.hinge, steps=T // 100, eta=eta, projection=l2_ball(B)).fit, (0, None, None)
    )(SEEDS, X, y).w
    assert (np.asarray(_avg_loss(losses.hinge, W_short, X, y)) - f_star).mean() > gaps.mean()


def _regularised(loss, lam, W, X, y):
    return _avg_loss(loss, W, X, y) + lam / 2 * jnp.sum(W * W, axis=-1)


def _logistic_optimum(X, y, lam):
    from scipy.optimize import minimize

    def f(w):
        z = y * (X @ w)
        value = np.mean(np.logaddexp(0, -z)) + lam / 2 * w @ w
        grad = -(X.T @ (y / (1 + np.exp(z)))) / len(y) + lam * w
        return value, grad

    res = minimize(
        f, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15)
    )
    return res.x, res.fun


def _svm_optimum(X, y, lam):
    from sklearn.svm import LinearSVC

    svc = LinearSVC(
        loss="hinge",
        C=1 / (lam * len(y)),
        fit_intercept=False,
        dual=True,
        tol=1e-10,
        max_iter=10**6,
    )
    w = svc.fit(X, y).coef_[0]
    return w, float(lam / 2 * w @ w + np.mean(np.maximum(0, 1 - y * (X @ w))))


@pytest.mark.parametrize("loss_name", ["hinge", "logistic"])
def test_lemma_7_rate_over_20_seeds(x64, loss_name):
    # f = lam/2 ||w||^2 + L_S(w) is lam-strongly convex; the iterates of eta_t = 1/(lam t) stay in
    # ||w|| <= R/lam, so ||v_t|| <= lam ||w_t|| + R <= 2R (SPEC 9.7): rho = 2R.
    X, y = _small()
    lam, T = 0.1, 50_000
    loss = getattr(losses, loss_name)
    _, f_star = (_svm_optimum if loss_name == "hinge" else _logistic_optimum)(X, y, lam)
    R = float(theory.radius(X))
    W = jax.vmap(sgd(loss, steps=T, lam=lam).fit, (0, None, None))(SEEDS, X, y).w
    gaps = np.asarray(_regularised(loss, lam, W, X, y)) - f_star
    bound = float(theory.sgd_strongly_convex_bound(2 * R, lam, T))
    assert np.all(gaps >= -1e-8)
    assert gaps.mean() <= bound, (gaps.mean(), bound)
    f_zero = float(_regularised(loss, lam, jnp.zeros((1, X.shape[1])), X, y)[0])
    assert bound < 0.25 * (f_zero - f_star)  # not vacuous


# --------------------------------------------------------------------------------------------
# Logistic regression, optax optimisers, ridge
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _breast_cancer():
    X, y = datasets.load_breast_cancer(dtype=np.float64)
    return np.asarray(datasets.standardize(X)), y


def test_logistic_regression_matches_sklearn_on_breast_cancer():
    from sklearn.linear_model import LogisticRegression

    X, y = _breast_cancer()
    lam = 0.01
    clf = LogisticRegression(
        C=1 / (lam * len(y)), fit_intercept=False, tol=1e-10, max_iter=10_000
    ).fit(X, y)
    # sklearn minimises 1/2 ||w||^2 + C sum log-loss = (1/lam) (lam/2 ||w||^2 + mean log-loss)
    w_sk = clf.coef_[0]
    f = lambda w: float(_regularised(losses.logistic, lam, jnp.asarray(w)[None], X, y)[0])
    learner = sgd(losses.logistic, steps=100_000, lam=lam)
    params = learner.fit(KEY, X.astype(np.float32), y.astype(np.float32))
    gap = (f(np.asarray(params.w, np.float64)) - f(w_sk)) / f(w_sk)
    assert -1e-4 <= gap <= 0.01, gap
    agree = np.mean(np.asarray(learner.predict(params, X.astype(np.float32))) == clf.predict(X))
    assert agree >= 0.99


def test_adam_on_the_same_objective_reaches_the_optimum(x64):
    X, y = _small()
    lam = 0.1
    _, f_star = _logistic_optimum(X, y, lam)
    params = sgd(losses.logistic, steps=20_000, lam=lam, optimizer=optax.adam(0.01)).fit(KEY, X, y)
    gap = float(_regularised(losses.logistic, lam, params.w[None], X, y)[0]) - f_star
    assert 0 <= gap <= 1e-2 * f_star, gap
    # the book's rule and Adam are different algorithms on the same draws
    book = sgd(losses.logistic, steps=20_000, lam=lam).fit(KEY, X, y)
    assert not np.allclose(book.w, params.w, rtol=1e-3)


def test_squared_loss_regression_reaches_the_ridge_solution(x64):
    X, _ = _small()
    w_true = np.array([1.0, -2.0, 0.5])
    t = X @ w_true + 0.1 * np.sin(np.arange(len(X)))
    lam = 2.0
    m = len(t)
    # minimiser of lam/2 ||w||^2 + (1/m) sum (<w, x> - t)^2 (squared loss without 1/2)
    w_star = np.linalg.solve(lam * np.eye(3) + 2 * X.T @ X / m, 2 * X.T @ t / m)
    objective = lambda w: lam / 2 * w @ w + np.mean((X @ w - t) ** 2)
    learner = sgd(losses.squared, steps=20_000, lam=lam, labels=None)
    params = learner.fit(KEY, X, t)
    assert objective(np.asarray(params.w)) - objective(w_star) <= 1e-3 * objective(w_star)
    np.testing.assert_allclose(learner.predict(params, X), X @ np.asarray(params.w), rtol=1e-12)


def test_predict_is_sign_with_zero_negative():
    learner = sgd(losses.hinge, steps=5, lam=1.0)
    zero = SGDParams(w=jnp.zeros(3), last=jnp.zeros(3), num_steps=jnp.zeros([], jnp.int32))
    np.testing.assert_array_equal(learner.predict(zero, jnp.ones((4, 3))), -np.ones(4))
    np.testing.assert_array_equal(learner.decision_function(zero, jnp.ones((4, 3))), np.zeros(4))


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "steps, error",
    [(0, ValueError), (-3, ValueError), (1.5, TypeError), (True, TypeError), ("100", TypeError)],
)
def test_steps_must_be_a_positive_int(steps, error):
    with pytest.raises(error, match=r"expected `steps` an integer in \[1, inf\)"):
        sgd(losses.hinge, steps=steps, lam=0.1)
    with pytest.raises(ValueError, match="expected `steps` a positive int"):
        sgd(losses.hinge, steps=None, lam=0.1)


@pytest.mark.parametrize("lam", [0.0, -0.1, np.array([0.1, -1.0])])
def test_lam_must_be_positive(lam):
    with pytest.raises(ValueError, match=r"expected `lam` a number in \(0, inf\)"):
        sgd(losses.hinge, steps=10, lam=lam)


def test_eta_must_be_positive_and_exclusive_with_optimizer():
    with pytest.raises(ValueError, match=r"expected `eta` a number in \(0, inf\)"):
        sgd(losses.hinge, steps=10, eta=-1.0)
    with pytest.raises(ValueError, match="`eta=None` with an `optimizer`"):
        sgd(losses.hinge, steps=10, eta=0.1, optimizer=optax.adam(0.1))
    with pytest.raises(ValueError, match="expected `eta`.*or `lam`"):
        sgd(losses.hinge, steps=10)


def test_traced_lam_is_not_value_checked():
    # inside vmap lam is a tracer: no host-side check, the sweep runs
    X, y = _small()
    W = jax.vmap(lambda lam: sgd(losses.hinge, steps=10, lam=lam).fit(KEY, X, y).w)(
        jnp.array([0.1, 1.0])
    )
    assert W.shape == (2, 3)


def test_fit_rejects_bad_shapes_and_values():
    X, y = _small()
    X, y = X.astype(np.float32), y.astype(np.float32)
    learner = sgd(losses.hinge, steps=10, lam=0.1)
    with pytest.raises(ValueError, match=r"expected `y` of shape \(m,\), got \(40, 1\)"):
        learner.fit(KEY, X, y[:, None])
    with pytest.raises(ValueError, match="non-empty"):
        learner.fit(KEY, X[:0], y[:0])
    with pytest.raises(ValueError, match="`y` to be finite"):
        learner.fit(KEY, X, np.where(np.arange(40) == 3, np.nan, y).astype(np.float32))
    with pytest.raises(ValueError, match=r"found values \{0, 1\}"):
        learner.fit(KEY, X, (y > 0).astype(np.int32))
    # regression losses take real targets
    sgd(losses.squared, steps=10, lam=3.0, labels=None).fit(KEY, X, X[:, 0])


# --------------------------------------------------------------------------------------------
# Divergence: the last finite iterate is kept, `diverged` is set, an eager fit warns
# --------------------------------------------------------------------------------------------


def _squared_grad(w, x, y):
    return 2 * (w @ x - y) * x


def test_divergence_keeps_the_last_finite_iterate():
    X, y = _small()
    X, t = X.astype(np.float32), (3 * X[:, 0]).astype(np.float32)
    steps, eta = 400, 1e6
    with pytest.warns(RuntimeWarning, match="diverged"):
        params = sgd(losses.squared, steps=steps, eta=eta, labels=None).fit(KEY, X, t)
    assert bool(params.diverged) and np.isfinite(params.w).all() and np.isfinite(params.last).all()
    # float32 NumPy transcription: stop before the first iterate (or sum) that is not finite
    idx = np.asarray(sample_indices(KEY, steps, len(X)))
    w, total, count = np.zeros(3, np.float32), np.zeros(3, np.float32), 0
    with np.errstate(over="ignore", invalid="ignore"):
        for step, i in enumerate(idx, start=1):
            summed = total + w
            new = (w - np.float32(eta / np.sqrt(step)) * _squared_grad(w, X[i], t[i])).astype(
                np.float32
            )
            if not np.isfinite(summed).all():
                break
            total, count = summed, count + 1
            if not np.isfinite(new).all():
                break
            w = new
    np.testing.assert_allclose(params.last, w, rtol=1e-4)
    np.testing.assert_allclose(params.w, total / count, rtol=1e-4)
    assert count < steps


def test_no_divergence_flag_on_a_sane_step_and_under_vmap():
    X, y = _small()
    X, y = X.astype(np.float32), y.astype(np.float32)
    assert not bool(sgd(losses.logistic, steps=200, eta=0.1).fit(KEY, X, y).diverged)
    fit = jax.jit(
        jax.vmap(lambda eta: sgd(losses.squared, steps=200, eta=eta, labels=None).fit(KEY, X, y))
    )
    params = fit(jnp.array([0.01, 1e6, 0.1]))
    assert params.diverged.tolist() == [False, True, False]
    assert np.isfinite(params.w).all() and np.isfinite(params.last).all()
    want = sgd(losses.squared, steps=200, eta=0.1, labels=None).fit(KEY, X, y)
    np.testing.assert_allclose(params.w[2], want.w, rtol=1e-6)
    optax_fit = sgd(losses.squared, steps=200, optimizer=optax.sgd(1e6), labels=None)
    with pytest.warns(RuntimeWarning, match="diverged"):
        assert bool(optax_fit.fit(KEY, X, y).diverged)
