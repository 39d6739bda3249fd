"""Bipartite measures from the counts (a, b, c, d) and the sorted loss-augmented search (SPEC 14)."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn.ranking import (
    Counts,
    balanced_accuracy,
    bipartite_hinge,
    bipartite_loss_augmented,
    confusion_counts,
    f_beta,
    precision,
    precision_at_k,
    recall,
    recall_at_k,
    top_k_counts,
)
from jaxlearn.ranking._bipartite import MEASURES, feasible, measure_loss, predict_signs


def test_hand_computed_counts_and_measures():
    y_pred = jnp.array([0.5, -1.0, 2.0, -0.2, 0.0])
    y_true = jnp.array([1.0, 1.0, -1.0, -1.0, 1.0])
    counts = confusion_counts(y_pred, y_true)  # a zero score is a predicted positive
    np.testing.assert_array_equal(counts, [2.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(precision(counts), 2 / 3)
    np.testing.assert_allclose(recall(y_pred, y_true), 2 / 3)  # the (y_pred, y_true) form
    np.testing.assert_allclose(f_beta(2, 1, 1, 1), 2 * 2 / (2 * 2 + 1 + 1))  # four numbers
    np.testing.assert_allclose(balanced_accuracy(counts), (2 / 3 + 1 / 2) / 2)
    np.testing.assert_array_equal(confusion_counts(y_pred, y_true, theta=1.0), [0.0, 1.0, 3.0, 1.0])
    # the top 2 scores are items 2 (negative) and 0 (positive)
    np.testing.assert_array_equal(top_k_counts(y_pred, y_true, 2), [1.0, 1.0, 2.0, 1.0])
    np.testing.assert_allclose(precision_at_k(y_pred, y_true, 2), 0.5)
    np.testing.assert_allclose(recall_at_k(y_pred, y_true, 2), 1 / 3)


def test_f_measures_are_harmonic_means():
    a, b, c, d = (
        jnp.asarray(v, jnp.float32) for v in np.random.default_rng(0).integers(1, 20, (4, 50))
    )
    counts = Counts(a, b, c, d)
    p, r = precision(counts), recall(counts)
    np.testing.assert_allclose(f_beta(counts), 2 / (1 / p + 1 / r), rtol=1e-6)
    np.testing.assert_allclose(f_beta(counts, beta=1.0), f_beta(counts), rtol=1e-7)
    np.testing.assert_allclose(f_beta(counts, beta=2.0), 5 / (1 / p + 4 / r), rtol=1e-6)
    # the fraud example: all negative on a rare positive class
    fraud = Counts(*(jnp.float32(v) for v in (0, 0, 1, 999)))
    np.testing.assert_allclose([recall(fraud), f_beta(fraud)], [0.0, 0.0])
    # 0/0 conventions: nothing to get wrong is perfect
    empty = Counts(*(jnp.float32(v) for v in (0, 0, 0, 5)))
    np.testing.assert_allclose([precision(empty), recall(empty), f_beta(empty)], [1.0, 1.0, 1.0])


def _brute_values(mu, y, measure, k, vs):
    """max over v in V of Delta(v, y) + sum_i v_i mu_i, every v enumerated."""
    pos, pred = y > 0, vs > 0
    a, b = jnp.sum(pred & pos, 1), jnp.sum(pred & ~pos, 1)
    c, d = jnp.sum(~pred & pos, 1), jnp.sum(~pred & ~pos, 1)
    counts = Counts(*(x.astype(mu.dtype) for x in (a, b, c, d)))
    values = measure_loss(measure, counts, beta=2.0) + vs @ mu
    return jnp.max(jnp.where(feasible(measure, a, b, k), values, -jnp.inf))


@pytest.mark.parametrize("r", [10])
def test_sorted_search_equals_brute_force_for_every_measure(r, x64):
    vs = jnp.asarray(list(itertools.product([-1.0, 1.0], repeat=r)))  # all of {-1, 1}^r
    key_mu, key_y = jax.random.split(jax.random.PRNGKey(r))
    mus = 0.3 * jax.random.normal(
        key_mu, (6, r)
    )  # scores comparable to the losses: both terms matter
    ys = jnp.where(jax.random.bernoulli(key_y, 0.4, (6, r)), 1.0, -1.0).at[:, 0].set(1.0)
    k = 3
    for measure in MEASURES:
        search = jax.jit(
            jax.vmap(
                lambda mu, y, m=measure: bipartite_loss_augmented(
                    mu, y, m, k=k, beta=2.0, return_value=True
                )
            )
        )
        v, value = search(mus, ys)
        brute = jax.jit(jax.vmap(lambda mu, y, m=measure: _brute_values(mu, y, m, k, vs)))(mus, ys)
        np.testing.assert_allclose(value, brute, rtol=1e-12, err_msg=measure)
        # the returned v attains the value and lies in V
        np.testing.assert_allclose(
            jax.vmap(lambda mu, y, vv, m=measure: _brute_values(mu, y, m, k, vv[None]))(mus, ys, v),
            value,
            rtol=1e-12,
            err_msg=measure,
        )


def test_surrogate_bounds_the_measure_loss():
    key_mu, key_y = jax.random.split(jax.random.PRNGKey(1))
    mus = jax.random.normal(key_mu, (30, 8))
    # exactly 3 positives per query, so that y lies in V for both at-k measures (the bound assumes it)
    ys = jnp.where(jnp.argsort(jax.random.uniform(key_y, (30, 8)), axis=1) < 3, 1.0, -1.0)
    for measure in MEASURES:
        signs = predict_signs(mus, measure, k=3)
        loss = jax.jit(lambda s, m=measure: measure_loss(m, confusion_counts(s, ys), beta=2.0))(
            signs
        )
        bound = jax.jit(
            jax.vmap(lambda mu, y, m=measure: bipartite_hinge(mu, y, m, k=3, beta=2.0))
        )(mus, ys)
        assert bool(jnp.all(bound >= loss - 1e-6)), measure
        if measure.endswith("_at_k"):  # b(y') honours V
            n_pos = jnp.sum(signs > 0, axis=1)
            assert bool(jnp.all(n_pos >= 3 if measure == "precision_at_k" else n_pos <= 3))


def test_bad_input():
    with pytest.raises(ValueError, match=r"expected `y_true` in \{-1, 1\}"):
        confusion_counts(jnp.ones(3), jnp.array([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="`measure` in"):
        bipartite_loss_augmented(jnp.ones(3), jnp.ones(3), "auc")
    with pytest.raises(ValueError, match="`k` an integer >= 0"):
        bipartite_loss_augmented(jnp.ones(3), jnp.ones(3), "recall_at_k")
    with pytest.raises(ValueError, match=r"`k` an integer in \[0, 3\]"):
        top_k_counts(jnp.ones(3), jnp.ones(3), 4)
