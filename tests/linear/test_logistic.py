"""L2-regularised logistic regression by L-BFGS (UML section 9.3): binary and multinomial, against
scikit-learn's ``LogisticRegression(solver="lbfgs")`` on the same objective, in float64."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from jaxlearn import linear, losses, multiclass
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(0)
TIGHT = dict(tol=1e-10, max_iter=10**4)


@functools.lru_cache(maxsize=None)
def _cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@functools.lru_cache(maxsize=None)
def _wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _weights(m, seed=0):
    return np.random.RandomState(seed).uniform(0.0, 3.0, m)


def _objective(w, b, X, y, C, s):  # C sum_i s_i log(1 + exp(-y_i z_i)) + |w|^2 / 2, labels {0, 1}
    s = np.ones(len(y)) if s is None else s
    return C * s @ np.logaddexp(0, -(2 * y - 1) * (X @ np.asarray(w) + float(b))) + 0.5 * np.sum(
        np.square(w)
    )


def _close(ours, want, rtol=1e-4):
    ours, want = np.asarray(ours), np.asarray(want)
    np.testing.assert_allclose(ours, want, rtol=0, atol=rtol * max(np.abs(want).max(), 1.0))


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_binary_equals_sklearn(C, weighted, x64):
    X, y = _cancer()
    s = _weights(len(y)) if weighted else None
    want = LogisticRegression(C=C, **TIGHT).fit(X, y, sample_weight=s)
    learner = linear.logistic_regression(C, **TIGHT)
    params = learner.fit(KEY, X, 2.0 * y - 1, s)
    assert bool(params.converged) and float(params.grad_norm) <= 1e-10
    _close(params.w, want.coef_[0])
    _close(params.b, want.intercept_[0])
    proba = linear.logistic_predict_proba(params, X)
    # at C = 20 SciPy stops on its relative decrease (ftol) with |grad| ~ 5e-9 > tol: ours is the lower
    np.testing.assert_allclose(proba, want.predict_proba(X), rtol=0, atol=1e-6 if C <= 1 else 2e-6)
    ours, theirs = (
        _objective(params.w, params.b, X, y, C, s),
        _objective(want.coef_[0], want.intercept_[0], X, y, C, s),
    )
    assert ours <= theirs * (1 + 1e-12)
    np.testing.assert_array_equal(learner.predict(params, X), 2 * want.predict(X) - 1)


def test_binary_without_intercept_equals_sklearn(x64):
    X, y = _cancer()
    want = LogisticRegression(C=0.5, fit_intercept=False, **TIGHT).fit(X, y)
    params = linear.logistic_regression(0.5, fit_intercept=False, **TIGHT).fit(KEY, X, 2.0 * y - 1)
    _close(params.w, want.coef_[0])
    assert float(params.b) == 0.0


@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_multinomial_equals_sklearn(C, weighted, x64):
    X, y = _wine()
    s = _weights(len(y), 1) if weighted else None
    want = LogisticRegression(C=C, **TIGHT).fit(X, y, sample_weight=s)
    learner = multiclass.multinomial_logistic_regression(C, 3, **TIGHT)
    params = learner.fit(KEY, X, y, s)
    assert bool(params.converged)
    _close(params.w, want.coef_)
    _close(params.b, want.intercept_)
    np.testing.assert_allclose(jnp.sum(params.w, axis=0), 0.0, atol=1e-8)  # the penalty's optimum
    np.testing.assert_allclose(
        multiclass.multinomial_predict_proba(params, X), want.predict_proba(X), atol=1e-6
    )
    np.testing.assert_array_equal(learner.predict(params, X), want.predict(X))


def test_vmap_over_C_is_the_separate_fits(x64):
    X, y = _cancer()
    X, y = X[:200], 2.0 * y[:200] - 1
    Cs = jnp.array([0.01, 1.0, 100.0])
    swept = jax.vmap(lambda C: linear.logistic_regression(C, **TIGHT).fit(KEY, X, y))(Cs)
    for i, C in enumerate(Cs.tolist()):
        one = linear.logistic_regression(C, **TIGHT).fit(KEY, X, y)
        # float64 solves to TIGHT's tolerance; a vmapped matmul may sum in another order (AVX2 CPUs
        # differ from AVX-512 ones by about 1e-7 of the largest weight at C = 100)
        _close(swept.w[i], one.w, 1e-6)
        _close(swept.b[i], one.b, 1e-6)
    assert (
        swept.converged.all() and len(set(swept.n_iter.tolist())) > 1
    )  # each member stops on its own
    Xw, yw = _wine()
    swept = jax.vmap(
        lambda C: multiclass.multinomial_logistic_regression(C, 3, **TIGHT).fit(KEY, Xw, yw)
    )(Cs)
    one = multiclass.multinomial_logistic_regression(100.0, 3, **TIGHT).fit(KEY, Xw, yw)
    _close(swept.w[2], one.w, 1e-7)


def _scaled_objective(w, b, X, y, C, s):  # scikit-learn's objective over C sum(s)
    return s @ jax.nn.softplus(-y * (X @ w + b)) / s.sum() + w @ w / (2 * C * s.sum())


def test_converged_flag_and_gradient(x64):
    X, y = _cancer()
    y = 2.0 * y - 1
    s = jnp.asarray(_weights(len(y)))
    params = linear.logistic_regression(1.0).fit(KEY, X, y, s)
    grads = jax.grad(_scaled_objective, argnums=(0, 1))(params.w, params.b, X, y, 1.0, s)
    gmax = max(float(jnp.abs(g).max()) for g in grads)
    assert bool(params.converged) and gmax <= 1e-4
    np.testing.assert_allclose(float(params.grad_norm), gmax, rtol=1e-6)
    early = linear.logistic_regression(1.0, max_iter=2).fit(KEY, X, y)
    assert not bool(early.converged) and int(early.n_iter) == 2 and float(early.grad_norm) > 1e-4


def test_objective_at_most_sgd_on_the_logistic_loss(x64):
    # linear.sgd minimises lam/2 |w|^2 + mean loss: C = 1 / (lam m) is the same problem (no intercept)
    X, y = _cancer()
    X, y = jnp.asarray(X), jnp.asarray(2.0 * y - 1)
    m, lam = X.shape[0], 0.01
    ours = linear.logistic_regression(1.0 / (lam * m), fit_intercept=False).fit(KEY, X, y)
    sgd = linear.sgd(losses.logistic, steps=20 * m, lam=lam).fit(KEY, X, y)

    def objective(w):
        return jnp.mean(jax.vmap(losses.logistic, (None, 0, 0))(w, X, y)) + lam / 2 * w @ w

    assert float(objective(ours.w)) <= float(objective(sgd.w)) + 1e-12
    assert (
        float(objective(ours.w)) <= float(objective(sgd.w)) - 1e-6
    )  # SGD is not yet at the optimum


def test_fit_compiles_once_per_shape():
    X, y = _cancer()
    X, y = np.asarray(X[:100], np.float32), np.asarray(2 * y[:100] - 1, np.float32)
    fit = jax.jit(lambda learner, X, y: learner.fit(None, X, y))
    jax.block_until_ready(fit(linear.logistic_regression(1.0), X, y))
    jax.block_until_ready(linear.logistic_regression(1.0).fit(None, X, y))
    with count_compilations() as compiled:
        for C in (0.1, 3.0):  # new values of the traced leaves, new data: the same programs
            jax.block_until_ready(fit(linear.logistic_regression(C, tol=1e-3), X[::-1], y[::-1]))
            jax.block_until_ready(
                linear.logistic_regression(C, tol=1e-3).fit(None, X[::-1], y[::-1])
            )
    assert compiled[0] == 0, compiled[0]


def test_sample_weights_are_repeated_rows(x64):
    X, y = _wine()
    counts = np.random.RandomState(3).randint(0, 3, len(y))
    learner = multiclass.multinomial_logistic_regression(1.0, 3, **TIGHT)
    weighted = learner.fit(KEY, X, y, counts.astype(float))
    repeated = learner.fit(KEY, np.repeat(X, counts, axis=0), np.repeat(y, counts))
    _close(weighted.w, repeated.w, 1e-6)
    _close(weighted.b, repeated.b, 1e-6)
