"""``linear.epoch_sgd_fits``: a stack of ``epoch_sgd`` fits in one loop over shared epochs is their
``jax.vmap``, bit for bit, and each is the fit run alone (same epochs, weights to rounding)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import linear
from jaxlearn.linear import _sgd_epochs

ALPHAS = (1e-4, 1e-2, 1.0)


def _sample():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4)).astype(np.float32)
    y = np.sign(X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.5 * rng.normal(size=120))
    return X, y.astype(np.float32)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"penalty": "elasticnet", "l1_ratio": 0.3, "average": 5.0},
        {"loss": "log_loss", "learning_rate": "adaptive", "eta0": 0.1},
    ],
    ids=["hinge", "elasticnet-averaged", "log-adaptive"],
)
def test_stacked_fits_are_the_vmap_of_fit_and_each_fit_alone(options):
    X, y = _sample()
    each = [linear.epoch_sgd(**options, alpha=a) for a in ALPHAS]
    learners = jax.tree.map(lambda *leaves: jnp.stack(leaves), *each)
    key = jax.random.key(1)
    held_out = (jnp.arange(120) % 5 == 0, jnp.ones(120, jnp.float32))
    for validation in (None, held_out):

        def fits(learners, validation=validation):
            return linear.epoch_sgd_fits(learners, key, X, y, validation=validation, seed=7)

        def vmapped(learners, validation=validation):
            return jax.vmap(lambda one: one.fit(key, X, y, validation=validation, seed=7))(learners)

        shared, mapped = jax.jit(fits)(learners), jax.jit(vmapped)(learners)
        jax.tree.map(np.testing.assert_array_equal, shared, mapped)
        for g, learner in enumerate(each):
            alone = learner.fit(key, X, y, validation=validation, seed=7)
            assert int(shared.num_epochs[g]) == int(alone.num_epochs)
            np.testing.assert_allclose(shared.w[g], alone.w, rtol=1e-4, atol=1e-5)


def test_a_fit_that_stopped_waits_unchanged_for_the_others():
    X, y = _sample()
    each = [linear.epoch_sgd(alpha=1e-4, max_iter=m, tol=None) for m in (2, 9)]
    learners = jax.tree.map(lambda *leaves: jnp.stack(leaves), *each)
    shared = linear.epoch_sgd_fits(learners, jax.random.key(0), X, y)
    assert shared.num_epochs.tolist() == [2, 9]
    alone = each[0].fit(jax.random.key(0), X, y)
    np.testing.assert_allclose(shared.w[0], alone.w, rtol=1e-5, atol=1e-6)
    assert float(shared.t[0]) == float(alone.t) == 1 + 2 * 120


def test_samples_stacked_are_each_samples_fits_and_smaller_batches_change_no_bit(monkeypatch):
    X, y = _sample()
    rng = np.random.default_rng(1)
    Xs = np.stack([X, X[::-1], rng.normal(size=X.shape).astype(np.float32)])
    ys = np.stack([y, y[::-1], np.sign(Xs[2, :, 0] + 0.1)]).astype(np.float32)
    each = [linear.epoch_sgd(alpha=a, average=3.0) for a in (1e-5, 1e-4, 1e-2, 0.1, 1.0)]
    learners = jax.tree.map(lambda *leaves: jnp.stack(leaves), *each)
    key, seeds = jax.random.key(2), np.array([5, 6, 7], np.uint32)
    whole = linear.epoch_sgd_fits(learners, key, Xs, ys, seed=seeds)
    for s in range(3):
        alone = linear.epoch_sgd_fits(learners, key, Xs[s], ys[s], seed=seeds[s])
        jax.tree.map(lambda a, b, s=s: np.testing.assert_array_equal(a[s], b), whole, alone)
    # the fits still going run in batches of 2, then 1, as they stop: the same bits
    monkeypatch.setattr(_sgd_epochs, "BATCHED_FROM", 0)
    assert _sgd_epochs._batches(5, 120) == (1, 2, 5)
    batched = linear.epoch_sgd_fits(learners, key, Xs, ys, seed=seeds)
    assert len(set(np.asarray(batched.num_epochs).ravel().tolist())) > 2
    jax.tree.map(np.testing.assert_array_equal, batched, whole)
