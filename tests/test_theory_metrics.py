"""Bounds as functions, and the metrics over traces."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, metrics, online, theory


def test_bound_values():
    assert float(theory.perceptron_mistake_bound(2.0, 0.1)) == pytest.approx(400.0)
    assert float(theory.margin_perceptron_bound(0.1)) == pytest.approx(1200.0)
    assert float(theory.perceptron_nonseparable_bound(0.5, 3.0)) == pytest.approx(4.0 + 12.0)
    assert float(theory.ogd_regret_bound(2.0, 3.0, 100)) == pytest.approx(60.0)
    assert float(theory.ogd_pathwise_bound(2.0, 0.5, jnp.ones(10))) == pytest.approx(4.0 + 2.5)


def test_radius_margin_and_total_deviation():
    X = jnp.array([[3.0, 4.0], [0.0, -1.0]])
    y = jnp.array([1.0, -1.0])
    assert float(theory.radius(X)) == pytest.approx(5.0)
    w = jnp.array([0.0, 2.0])
    assert float(theory.halfspace_margin(w, X, y)) == pytest.approx(1.0)
    assert float(theory.halfspace_margin(w, X, y, normalize=True)) == pytest.approx(0.8)
    # normalised margins 0.8 and 1.0: TD at gamma = 0.9 is 0.1
    assert float(theory.total_deviation(w, X, y, 0.9)) == pytest.approx(0.1)


def test_bounds_vmap():
    out = jax.vmap(theory.perceptron_mistake_bound, (None, 0))(1.0, jnp.array([0.5, 0.25]))
    np.testing.assert_allclose(out, [4.0, 16.0])


def test_cumulative_mistakes_and_accuracy():
    X, y, _ = datasets.separable(jax.random.PRNGKey(0), 300, 3, 0.1)
    learner = online.perceptron()
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    cm = metrics.cumulative_mistakes(trace)
    assert cm.shape == (300,) and int(cm[-1]) == int(trace.mistake.sum())
    assert bool(jnp.all(jnp.diff(cm) >= 0))
    np.testing.assert_array_equal(metrics.cumulative_mistakes(trace.mistake), cm)
    assert float(metrics.accuracy(jnp.array([1, -1, 1]), jnp.array([1, 1, 1]))) == pytest.approx(
        2 / 3
    )
    with pytest.raises(ValueError, match=r"`y_pred` of shape \(3,\)"):
        metrics.accuracy(jnp.ones(3), jnp.ones(4))


def test_regret_against_one_and_many_comparators():
    learner_losses = jnp.array([1.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(metrics.regret(learner_losses, jnp.zeros(4)), [1, 2, 2, 3])
    experts = jnp.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    # best expert in hindsight: expert 1 until t=2 (0 loss), then both (1, then 2)
    np.testing.assert_allclose(metrics.regret(learner_losses, experts), [1, 2, 1, 1])
    with pytest.raises(ValueError, match="`comparator_losses` of shape"):
        metrics.regret(learner_losses, jnp.zeros(3))
