"""Ranking losses, their surrogates and NDCG's assignment step (SPEC 13; UML section 17.4)."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn.ranking import (
    discount,
    kendall_tau_hinge,
    kendall_tau_loss,
    ndcg_hinge,
    ndcg_loss,
    ndcg_loss_augmented,
    ndcg_surrogate_value,
    permutation,
    zero_one_ranking,
)


def _random(seed, r=6, m=20):
    k1, k2 = jax.random.split(jax.random.PRNGKey(seed))
    scores = jax.random.normal(k1, (m, r))
    relevance = jax.random.randint(k2, (m, r), 0, 4).astype(scores.dtype)
    return scores, relevance


def test_permutation_of_the_book_and_ties():
    np.testing.assert_array_equal(
        permutation(jnp.array([2.0, 1.0, 6.0, -1.0, 0.5])), [4, 3, 5, 1, 2]
    )
    np.testing.assert_array_equal(permutation(jnp.array([1.0, 1.0, 0.0])), [2, 3, 1])  # stable


def test_kendall_tau_hand_values():
    y = jnp.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(kendall_tau_loss(y[::-1], y), 1.0)  # reversal
    np.testing.assert_allclose(kendall_tau_loss(jnp.exp(y), y), 0.0)  # same order
    one_swap = kendall_tau_loss(jnp.array([1.0, 3.0, 2.0]), jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(one_swap, 1 / 3)
    # a pair tied in one vector only is discordant
    np.testing.assert_allclose(kendall_tau_loss(jnp.array([1.0, 1.0]), jnp.array([1.0, 2.0])), 1.0)


def test_ndcg_hand_values():
    y = jnp.array([0.0, 1.0, 2.0])
    d2 = 1 / np.log2(3.0)  # D(1) = 1/log2 4, D(2) = 1/log2 3, D(3) = 1
    np.testing.assert_allclose(discount(3), [0.5, d2, 1.0], rtol=1e-6)
    best, reversed_gain = d2 + 2.0, d2 + 2 * 0.5
    np.testing.assert_allclose(
        ndcg_loss(jnp.array([3.0, 2.0, 1.0]), y), 1 - reversed_gain / best, rtol=1e-6
    )
    np.testing.assert_allclose(
        ndcg_loss(jnp.array([3.0, 2.0, 1.0]), y, k=1), 1.0
    )  # top item irrelevant
    np.testing.assert_allclose(ndcg_loss(jnp.array([0.0, 1.0, 5.0]), y, k=1), 0.0)
    np.testing.assert_allclose(
        ndcg_loss(jnp.array([3.0, 2.0, 1.0]), jnp.zeros(3)), 0.0
    )  # G(y,y) = 0
    np.testing.assert_allclose(zero_one_ranking(jnp.array([3.0, 2.0, 1.0]), y), 1.0)
    np.testing.assert_allclose(zero_one_ranking(2 * y, y), 0.0)


def test_losses_in_unit_interval_zero_on_same_order_and_below_their_surrogates():
    scores, relevance = _random(0)
    distinct = relevance + 0.01 * jnp.arange(6.0)  # no ties: a strict order
    for loss in (kendall_tau_loss, ndcg_loss, zero_one_ranking):
        values = loss(scores, distinct)
        assert values.shape == (20,)
        assert float(values.min()) >= 0 and float(values.max()) <= 1
        np.testing.assert_allclose(loss(3 * distinct + 1, distinct), 0.0, atol=1e-6)
    assert float(jnp.max(kendall_tau_loss(scores, distinct))) > 0.3  # not trivially 0
    assert bool(
        jnp.all(kendall_tau_hinge(scores, relevance) >= kendall_tau_loss(scores, relevance))
    )
    for k in (None, 3):
        assert bool(
            jnp.all(ndcg_hinge(scores, relevance, k=k) >= ndcg_loss(scores, relevance, k=k) - 1e-6)
        )


@pytest.mark.parametrize("r,k", [(5, 2), (6, None)])
def test_ndcg_assignment_step_equals_brute_force_over_permutations(r, k, x64):
    scores, relevance = _random(r, r=r, m=8)
    perms = jnp.asarray(list(itertools.permutations(range(1, r + 1))))  # r! candidate vectors v
    v_hat = ndcg_loss_augmented(scores, relevance, k=k)
    np.testing.assert_array_equal(
        jnp.sort(v_hat, axis=-1), jnp.broadcast_to(jnp.arange(1, r + 1), (8, r))
    )
    got = ndcg_surrogate_value(v_hat, scores, relevance, k=k)
    over_perms = jax.vmap(lambda v, s, y: ndcg_surrogate_value(v, s, y, k=k), (0, None, None))
    values = jax.jit(jax.vmap(over_perms, (None, 0, 0)))(perms, scores, relevance)  # (8, r!)
    np.testing.assert_allclose(got, values.max(axis=1), rtol=1e-12)
    # (17.7): pi(y') is the maximiser of sum_i v_i y'_i (rearrangement)
    best = perms[jnp.argmax(scores @ perms.T.astype(scores.dtype), axis=1)]
    np.testing.assert_array_equal(best, permutation(scores))


def test_ndcg_assignment_under_jit_and_vmap():
    scores, relevance = _random(3, r=5, m=4)
    eager = ndcg_loss_augmented(scores, relevance)
    np.testing.assert_array_equal(jax.jit(jax.vmap(ndcg_loss_augmented))(scores, relevance), eager)


def test_bad_input():
    with pytest.raises(ValueError, match="same shape"):
        kendall_tau_loss(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match="relevance >= 0"):
        ndcg_loss(jnp.ones(3), jnp.array([1.0, -1.0, 0.0]))
    with pytest.raises(ValueError, match="`y_pred` to be finite"):
        ndcg_loss(jnp.array([1.0, jnp.nan, 0.0]), jnp.ones(3))
    with pytest.raises(ValueError, match=r"`k` an integer in \[1, 3\]"):
        ndcg_loss(jnp.ones(3), jnp.ones(3), k=4)
