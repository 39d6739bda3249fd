"""The Perceptron: Novikoff's and Balcan's bounds, scikit-learn agreement, a golden trace, sweeps."""

import warnings

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, metrics, online, theory

from .adversary import adversarial_run, smallest_margin


def _mistakes(learner, X, y):
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    return int(trace.mistake.sum())


def test_golden_trace():
    # Hand-computed: a zero score is a mistake (COMP0078), the prediction is then -1 (Balcan).
    X = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -2.0]])
    y = jnp.array([1.0, -1.0, 1.0, -1.0, 1.0])
    learner = online.perceptron()
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    # w: (0,0) -> (1,0) -> (1,-1) -> (2,0) -> (2,0) [score -2, correct] -> (2,0) [score 1, correct]
    np.testing.assert_array_equal(trace.mistake, [True, True, True, False, False])
    np.testing.assert_array_equal(trace.prediction, [-1, -1, -1, -1, 1])
    np.testing.assert_array_equal(state.w, [2.0, 0.0])
    assert int(state.step) == 5


@pytest.mark.parametrize("margin", [0.05, 0.1, 0.25])
@pytest.mark.parametrize("d", [2, 10, 50])
def test_novikoff_bound_on_separable_streams(margin, d):
    for seed in range(3):
        X, y, w_star = datasets.separable(jax.random.PRNGKey(seed), 3000, d, margin)
        gamma = theory.halfspace_margin(w_star, X, y)
        assert gamma >= margin * (1 - 1e-5)
        bound = theory.perceptron_mistake_bound(theory.radius(X), gamma)
        assert 0 < _mistakes(online.perceptron(), X, y) <= bound


@pytest.mark.parametrize("normalize", [False, True])
def test_novikoff_bound_against_an_adaptive_adversary(normalize):
    # Each round: the pool example the current weights misclassify with the smallest margin.
    X, y, w_star = datasets.separable(jax.random.PRNGKey(7), 400, 8, 0.1)
    learner = online.perceptron(normalize=normalize)
    _, trace = adversarial_run(learner, learner.init(X[0]), X, y, 3000, smallest_margin)
    if normalize:
        bound = theory.perceptron_mistake_bound(
            1.0, theory.halfspace_margin(w_star, X, y, normalize=True)
        )
    else:
        bound = theory.perceptron_mistake_bound(
            theory.radius(X), theory.halfspace_margin(w_star, X, y)
        )
    mistakes = int(trace.mistake.sum())
    assert mistakes <= bound
    assert mistakes >= 10  # the adversary really forces mistakes: the test can fail
    # once no pool example is misclassified the adversary runs dry: the last rounds are correct
    assert not bool(trace.mistake[-1])


def test_balcan_nonseparable_bound_for_many_comparators():
    # M <= 1/gamma^2 + (2/gamma) TD_gamma for every unit w* and gamma > 0 (normalised Perceptron).
    X, y, w_true = datasets.noisy_halfspace(jax.random.PRNGKey(1), 2000, 5, 0.1)
    M = _mistakes(online.perceptron(normalize=True), X, y)
    directions = jax.random.normal(jax.random.PRNGKey(2), (64, 5))
    directions = jnp.concatenate([w_true[None], directions])
    for gamma in [0.01, 0.05, 0.1, 0.3, 1.0]:
        td = jax.vmap(theory.total_deviation, (0, None, None, None))(directions, X, y, gamma)
        bounds = theory.perceptron_nonseparable_bound(gamma, td)
        assert bool(jnp.all(M <= bounds)), (gamma, float(jnp.min(bounds)), M)
    # the bound is not vacuous for the true direction at its best gamma: it is within 100x
    best = min(
        float(theory.perceptron_nonseparable_bound(g, theory.total_deviation(w_true, X, y, g)))
        for g in [0.05, 0.1, 0.2, 0.3]
    )
    assert M <= best < 100 * M


def _sklearn_one_pass(X, y):
    sklearn = pytest.importorskip("sklearn.linear_model")
    clf = sklearn.Perceptron(fit_intercept=False, shuffle=False, max_iter=1, tol=None, eta0=1.0)
    with warnings.catch_warnings():  # ConvergenceWarning: one epoch is what we ask for
        warnings.simplefilter("ignore")
        clf.fit(np.asarray(X, np.float64), np.asarray(y))
    return clf.coef_[0]


def test_weights_equal_sklearn_on_breast_cancer(x64):
    X, y = datasets.load_breast_cancer(dtype=np.float64)
    X = datasets.standardize(X)
    learner = online.perceptron()
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    np.testing.assert_allclose(state.w, _sklearn_one_pass(X, y), rtol=1e-10, atol=1e-10)
    assert int(trace.mistake.sum()) > 10


def test_weights_equal_sklearn_on_generated_data(x64):
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(4), 1500, 20, 0.05)
    learner = online.perceptron()
    for block_size in (None, 128):
        state, _ = core.run(learner, learner.init(X[0]), X, y, block_size=block_size)
        np.testing.assert_allclose(state.w, _sklearn_one_pass(X, y), rtol=1e-10, atol=1e-10)


def test_sweep_of_64_learning_rates_equals_64_runs():
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(5), 500, 10, 0.1)
    lrs = jnp.logspace(-2, 1, 64)
    s0 = online.perceptron().init(X[0])
    sweep = jax.jit(jax.vmap(lambda lr: core.run(online.perceptron(lr), s0, X, y, block_size=64)))
    states, traces = sweep(lrs)
    one = jax.jit(lambda lr: core.run(online.perceptron(lr), s0, X, y))
    for i in range(64):
        state, trace = one(lrs[i])
        chex.assert_trees_all_close(states.w[i], state.w, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(traces.mistake[i], trace.mistake)
    # From w_1 = 0 a constant step size only rescales w: the mistakes do not depend on it.
    assert bool(jnp.all(traces.mistake == traces.mistake[0]))
    rescaled = states.w / lrs[:, None]
    chex.assert_trees_all_close(
        rescaled, jnp.broadcast_to(rescaled[0], rescaled.shape), rtol=1e-4, atol=1e-5
    )


def test_predict_uses_sign_with_zero_negative():
    learner = online.perceptron()
    state = learner.init(jnp.zeros(4))
    assert int(learner.predict(state, jnp.ones(4))) == -1
    X, y, _ = datasets.separable(jax.random.PRNGKey(0), 2000, 4, 0.2)
    state, _ = core.run(learner, state, X, y)
    assert metrics.accuracy(y, core.predict_batch(learner, state, X)) > 0.97


def test_novikoff_with_the_hard_svm_solution():
    # COMP0078 form: M <= R^2 ||u||^2 for every u with y <u, x> >= 1; the best u is hard-SVM's w_0,
    # which gives the tightest bound (R / gamma(S))^2 (COMP0078 Problem 2; SPEC 4.2).
    from jaxlearn import linear

    X, y, _ = datasets.separable(jax.random.PRNGKey(12), 400, 6, 0.1)
    w0 = linear.hard_svm().fit(jax.random.PRNGKey(0), X, y).w
    assert float(jnp.min(y * (X @ w0))) >= 1 - 1e-4
    R = theory.radius(X)
    assert _mistakes(online.perceptron(), X, y) <= float(R**2 * jnp.vdot(w0, w0)) * (1 + 1e-4)
    assert float(R**2 * jnp.vdot(w0, w0)) == pytest.approx(
        float(theory.perceptron_mistake_bound(R, theory.margin(X, y))), rel=1e-4
    )
