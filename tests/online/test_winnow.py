"""Winnow: Littlestone's mistake bound on disjunctions, against random and adaptive streams; the promotion and
demotion factor eta by hand (eta = 3) and against a float64 reference (eta in {1.5, 3, 5})."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, online, theory

from .adversary import adversarial_run


def test_golden_trace():
    # n = 3, theta = 3, eta = 2.
    X = jnp.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    y = jnp.array([1, 0, 0, 1])
    learner = online.winnow()
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    # w=(1,1,1): 1 < 3 -> 0, false negative: promote x1 -> (2,1,1)
    # 4 >= 3 -> 1, false positive: demote all -> (1, .5, .5)
    # 1 < 3 -> 0, correct; then 1 < 3 -> 0, false negative: promote x1 -> (2, .5, .5)
    np.testing.assert_array_equal(trace.prediction, [0, 1, 0, 0])
    np.testing.assert_array_equal(trace.mistake, [True, True, False, True])
    np.testing.assert_allclose(jnp.exp(state.log_w), [2.0, 0.5, 0.5], rtol=1e-6)


def test_classic_bound_value():
    for k, n in [(1, 16), (3, 100), (5, 1000)]:
        assert float(theory.winnow_mistake_bound(k, n)) == pytest.approx(
            2 + 3 * k * (1 + np.log2(n))
        )


@pytest.mark.parametrize("k,n", [(1, 20), (3, 100), (5, 400)])
@pytest.mark.parametrize("eta,threshold", [(2.0, None), (3.0, None), (2.0, "half")])
def test_mistake_bound_on_random_disjunctions(k, n, eta, threshold):
    threshold = n / 2 if threshold == "half" else None
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(k * n), 4000, n, k)
    learner = online.winnow(eta, threshold)
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    assert 0 < int(trace.mistake.sum()) <= theory.winnow_mistake_bound(k, n, eta, threshold)


def test_mistake_bound_against_an_adaptive_adversary():
    # The pool is labelled by the disjunction; each round the adversary shows an example the
    # current weights get wrong, if there is one.
    k, n = 3, 64
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(0), 2000, n, k, p=0.08)
    learner = online.winnow()

    def violation(state, X, y):
        wrong = jax.vmap(learner.predict, (None, 0))(state, X) != y
        return wrong.astype(jnp.float32) + 0.5 * y.astype(
            jnp.float32
        )  # prefer false negatives: they force promotions

    _, trace = adversarial_run(learner, learner.init(X[0]), X, y, 1000, violation)
    mistakes = int(trace.mistake.sum())
    assert 5 <= mistakes <= theory.winnow_mistake_bound(k, n)


def test_long_noisy_stream_stays_finite():
    # 10^5 rounds of random labels in float32: log-space weights neither underflow to -inf
    # nor produce NaN.
    X = jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (100_000, 8)).astype(jnp.float32)
    y = jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (100_000,)).astype(jnp.int32)
    learner = online.winnow(4.0)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    assert bool(jnp.all(jnp.isfinite(state.log_w)))
    assert int(trace.mistake.sum()) > 10_000


def test_rejects_plus_minus_labels_and_real_features():
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(0), 50, 10, 2)
    learner = online.winnow()
    with pytest.raises(ValueError, match=r"`ys` in \{0, 1\}, found values \{-1, 1\}"):
        core.run(learner, learner.init(X[0]), X, 2 * y - 1)
    with pytest.raises(ValueError, match=r"`xs` in \{0, 1\}"):
        core.run(learner, learner.init(X[0]), X * 0.5, y)


def test_hand_trace_with_eta_3_and_threshold_4():
    # Littlestone's Winnow2: predict 1 iff sum_{i: x_i = 1} w_i >= theta; on a false negative multiply
    # the active weights by eta (promotion), on a false positive divide them by eta (demotion).
    # n = 4, eta = 3, theta = 4, w_1 = (1, 1, 1, 1); by hand:
    X = jnp.array(
        [
            [1, 0, 0, 0],  # 1 < 4: 0, y = 1: promote x1             -> (3, 1, 1, 1)
            [1, 0, 0, 0],  # 3 < 4: 0, y = 1: promote x1             -> (9, 1, 1, 1)
            [1, 1, 0, 0],  # 10 >= 4: 1, y = 0: demote x1, x2        -> (3, 1/3, 1, 1)
            [0, 1, 1, 1],  # 7/3 < 4: 0, y = 1: promote x2, x3, x4   -> (3, 1, 3, 3)
            [1, 0, 0, 0],  # 3 < 4: 0, y = 1: promote x1             -> (9, 1, 3, 3)
            [0, 0, 1, 1],  # 6 >= 4: 1, y = 0: demote x3, x4         -> (9, 1, 1, 1)
            [0, 1, 1, 0],  # 2 < 4: 0, y = 0: correct
            [1, 0, 0, 1],  # 10 >= 4: 1, y = 1: correct
            [0, 1, 0, 0],  # 1 < 4: 0, y = 1: promote x2             -> (9, 3, 1, 1)
            [1, 1, 1, 1],  # 14 >= 4: 1, y = 0: demote all           -> (3, 1, 1/3, 1/3)
        ],
        jnp.float32,
    )
    y = jnp.array([1, 1, 0, 1, 1, 0, 0, 1, 1, 0])
    learner = online.winnow(3.0, 4.0)
    state = learner.init(X[0])
    weights = []
    for t in range(len(X)):  # a test: every round's weights
        state, _ = learner.update(state, X[t], y[t])
        weights.append(jnp.exp(state.log_w))
    third = 1 / 3
    want = [
        [3, 1, 1, 1],
        [9, 1, 1, 1],
        [3, third, 1, 1],
        [3, 1, 3, 3],
        [9, 1, 3, 3],
        [9, 1, 1, 1],
        [9, 1, 1, 1],
        [9, 1, 1, 1],
        [9, 3, 1, 1],
        [3, 1, third, third],
    ]
    np.testing.assert_allclose(jnp.stack(weights), want, rtol=1e-5)
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    np.testing.assert_array_equal(trace.prediction, [0, 0, 1, 0, 0, 1, 0, 1, 0, 1])
    np.testing.assert_array_equal(trace.mistake, [1, 1, 1, 1, 1, 1, 0, 0, 1, 1])


def _winnow_reference(X, y, eta, theta):
    """Winnow2 in float64 numpy: the predictions, w_i = eta^(promotions_i - demotions_i), and the
    scores' smallest relative distance to theta (no float32 rounding may decide a prediction)."""
    exponent = np.zeros(X.shape[1])
    predictions, gaps = [], []
    for x, label in zip(X, y):
        score = np.sum(eta**exponent * x)
        y_hat = int(score >= theta)
        exponent += (
            label - y_hat
        ) * x  # +1 on a false negative, -1 on a false positive, for x_i = 1
        predictions.append(y_hat)
        gaps.append(abs(score - theta) / theta)
    return np.array(predictions), eta**exponent, min(gaps)


@pytest.mark.parametrize("eta, threshold", [(1.5, 10.1), (3.0, 5.5), (5.0, 12.5)])
def test_weights_are_eta_to_promotions_minus_demotions(eta, threshold):
    # A random 3-of-12 disjunction stream with 10% label noise, so that both promotions and demotions
    # happen many times; the weights are eta^(P_i - D_i) for whatever eta (not only the default 2).
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(5), 300, 12, 3)
    flip = jax.random.bernoulli(jax.random.PRNGKey(6), 0.1, y.shape)
    y = jnp.where(flip, 1 - y, y)
    learner = online.winnow(eta, threshold)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    predictions, weights, gap = _winnow_reference(np.asarray(X), np.asarray(y), eta, threshold)
    assert gap > 1e-4
    np.testing.assert_array_equal(trace.prediction, predictions)
    promotions = int(jnp.sum(trace.mistake & (y == 1)))
    demotions = int(jnp.sum(trace.mistake & (y == 0)))
    assert promotions >= 10 and demotions >= 10
    np.testing.assert_allclose(jnp.exp(state.log_w), weights, rtol=1e-4)
