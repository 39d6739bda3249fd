"""Compression bounds (SS10 L3(c) Lemma 1, Theorems 1-2, Corollary 1; L4 Corollary 3, Theorem 4) and the
rectangle scheme (SS10 L3(c) section 1.1), measured against exact errors on uniform data."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import theory

LOW, HIGH = jnp.array([0.2, 0.3]), jnp.array([0.8, 0.7])  # the target rectangle in [0, 1]^2
TARGET_AREA = float(jnp.prod(HIGH - LOW))


def _rectangle_labels(X, low=LOW, high=HIGH):
    return jnp.where(jnp.all((X >= low) & (X <= high), axis=1), 1.0, -1.0)


def _rectangle_fit(X, y, keep):
    """The rectangle scheme on the examples with ``keep``: (kept mask, reconstructed rectangle)."""
    y_kept = jnp.where(keep, y, -1.0)  # a discarded example cannot be a kept positive
    kept = theory.rectangle_compress(X, y_kept)
    return kept, theory.rectangle_reconstruct(X, y, kept)


def _area(rectangle):
    return jnp.prod(jnp.maximum(rectangle.upper - rectangle.lower, 0.0))


def test_bounds_equal_the_formulas_of_ss10(x64):
    """SS10 L3(c) Lemma 1, Theorem 1, Corollary 1, Theorem 2, section 1.1; L4 Corollary 3, Theorem 4."""
    m, delta, k, L = 5000, 0.05, 6, 0.1
    log = np.log(m / delta)
    assert float(theory.compression_bound(k, m, delta)) == pytest.approx(8 * k * log / m, rel=1e-12)
    assert float(theory.compression_bound(k, m, delta, L)) == pytest.approx(
        L + np.sqrt(L * 4 * k * log / m) + 8 * k * log / m, rel=1e-12
    )
    assert float(theory.compression_train_bound(k, m, delta, L)) == pytest.approx(
        L + np.sqrt(L * 4 * k * log / m) + 10 * k * log / m, rel=1e-12
    )
    n = 300
    assert float(theory.holdout_bound(L, n, delta)) == pytest.approx(
        L + np.sqrt(2 * L * np.log(1 / delta) / n) + 4 * np.log(1 / delta) / n, rel=1e-12
    )
    # the special cases are Corollary 1 with their compression sizes
    d, gamma = 3, 0.25
    assert float(theory.rectangle_compression_bound(d, m, delta)) == pytest.approx(
        float(theory.compression_bound(2 * d, m, delta)), rel=1e-12
    )
    assert float(theory.perceptron_compression_bound(gamma, m, delta)) == pytest.approx(
        float(theory.compression_bound(1 / gamma**2, m, delta)), rel=1e-12
    )
    assert float(theory.inefficient_perceptron_bound(L, gamma, m, delta)) == pytest.approx(
        float(theory.compression_bound(1 / gamma**2, m, delta, L)), rel=1e-12
    )
    # m = 2k: the bound is above 1 (vacuous but true, SS10 L4 footnote 1)
    assert float(theory.compression_bound(50, 100, 0.05)) > 1


@pytest.mark.parametrize("d", [1, 2, 3])
def test_rectangle_reconstruction_classifies_the_sample_from_at_most_2d_points(d):
    """SS10 L3(c) section 1.1: the 2d extreme positives rebuild a rectangle consistent with the sample."""
    key_x, key_r = jax.random.split(jax.random.PRNGKey(d))
    X = jax.random.uniform(key_x, (300, d))
    low, high = jnp.sort(jax.random.uniform(key_r, (2, d), minval=0.1, maxval=0.9), axis=0)
    y = _rectangle_labels(X, low, high)
    kept = theory.rectangle_compress(X, y)
    assert 0 < int(kept.sum()) <= 2 * d and bool(jnp.all(y[kept] == 1))
    box = theory.rectangle_reconstruct(X, y, kept)
    np.testing.assert_array_equal(theory.rectangle_predict(box, X), y)
    everything = theory.rectangle_reconstruct(
        X, y, jnp.ones(300, bool)
    )  # the tightest box of all positives
    np.testing.assert_array_equal(box.lower, everything.lower)
    np.testing.assert_array_equal(box.upper, everything.upper)
    # no positive example: nothing kept (k = 0), the empty rectangle predicts -1 everywhere
    assert not bool(theory.rectangle_compress(X, -jnp.ones(300)).any())
    empty = theory.rectangle_reconstruct(X, -jnp.ones(300), jnp.zeros(300, bool))
    np.testing.assert_array_equal(theory.rectangle_predict(empty, X), -jnp.ones(300))


def test_rectangle_compression_error_stays_below_corollary_1():
    """SS10 L3(c) section 1.1, Corollary 1: L_D <= 16 d ln(m/delta)/m with probability >= 1 - delta.

    D is uniform on [0, 1]^2, so the error of the reconstructed rectangle (inside the target) is the
    exact area the target and it differ by."""
    m, delta, runs = 1000, 0.1, 400

    def error(key):
        X = jax.random.uniform(key, (m, 2))
        y = _rectangle_labels(X)
        _, box = _rectangle_fit(X, y, jnp.ones(m, bool))
        inside = jnp.all(box.lower >= LOW) & jnp.all(box.upper <= HIGH)
        return jnp.where(inside, TARGET_AREA - _area(box), jnp.inf)

    errors = np.asarray(jax.jit(jax.vmap(error))(jax.random.split(jax.random.PRNGKey(0), runs)))
    bound = float(theory.rectangle_compression_bound(2, m, delta))
    assert np.isfinite(errors).all()  # the reconstruction never leaves the target
    assert np.mean(errors <= bound) >= 1 - delta
    # not vacuous: the bound (0.29) is below 1 and within a factor 60 of the measured (1 - delta)-quantile
    # (0.0067: the bound pays 8 ln(m/delta) = 74 for the union over the m^k index sequences)
    quantile = np.quantile(errors, 1 - delta)
    assert bound < 1 and bound <= 60 * quantile, (bound, quantile)


def test_holdout_error_stays_below_lemma_1():
    """SS10 L3(c) Lemma 1: a hypothesis fixed before a fresh hold-out set V of n examples has
    L_D <= L_V + sqrt(2 L_V ln(1/delta)/n) + 4 ln(1/delta)/n with probability >= 1 - delta."""
    n, delta, runs = 200, 0.05, 2000
    true_errors = jnp.array([0.005, 0.02, 0.1, 0.3])  # L_D of four fixed hypotheses
    mistakes = jax.random.bernoulli(jax.random.PRNGKey(1), true_errors[:, None, None], (4, runs, n))
    holdout_errors = jnp.mean(mistakes, axis=-1)
    bounds = theory.holdout_bound(holdout_errors, n, delta)
    frequency = np.mean(np.asarray(true_errors[:, None] <= bounds), axis=1)
    assert np.all(frequency >= 1 - delta), frequency
    # the last term matters: without it a zero hold-out error (probability 0.995^200 = 0.37 for
    # L_D = 0.005) gives a bound of 0, and the bound fails far more often than delta
    without_last = holdout_errors + np.sqrt(2 * holdout_errors * np.log(1 / delta) / n)
    assert np.mean(np.asarray(true_errors[0] <= without_last[0])) < 1 - delta


def test_theorems_1_and_2_bound_the_unrealizable_rectangle_recipe():
    """SS10 L3(c) Theorem 1 with a nonzero hold-out error, and Theorem 2 with the training error (SPEC
    18.2, unrealizable case): labels of a rectangle flipped with probability p; drop the examples a
    rectangle of the class errs on (the target plays the ERM: the theorems hold for any rule choosing
    the k = 4 indices), compress the rest; L_D = p + (1 - 2p) |target minus reconstruction| exactly;
    L_V counts all m - k unkept examples, L_S all m."""
    m, delta, p, runs = 2000, 0.1, 0.05, 200

    def measure(key):
        key_x, key_flip = jax.random.split(key)
        X = jax.random.uniform(key_x, (m, 2))
        clean = _rectangle_labels(X)
        y = jnp.where(jax.random.bernoulli(key_flip, p, (m,)), -clean, clean)
        kept, box = _rectangle_fit(X, y, keep=y == clean)
        wrong = theory.rectangle_predict(box, X) != y
        holdout = jnp.sum(wrong & ~kept) / (m - jnp.sum(kept))
        true_error = p + (1 - 2 * p) * (TARGET_AREA - _area(box))
        return true_error, holdout, jnp.mean(wrong), jnp.sum(kept)

    true_error, holdout, train, k = jax.jit(jax.vmap(measure))(
        jax.random.split(jax.random.PRNGKey(2), runs)
    )
    assert int(jnp.max(k)) <= 4
    bounds = np.asarray(theory.compression_bound(4, m, delta, holdout))
    assert np.mean(np.asarray(true_error) <= bounds) >= 1 - delta
    assert (
        np.mean(np.asarray(holdout)) > 0.8 * p
    )  # a nonzero hold-out error: Theorem 1, not Corollary 1
    assert np.max(bounds) < 0.5  # and the bound says something
    train_bounds = np.asarray(
        theory.compression_train_bound(4, m, delta, train)
    )  # Theorem 2 (m/delta >= 42)
    assert (
        np.mean(np.asarray(true_error) <= train_bounds) >= 1 - delta and np.max(train_bounds) < 0.5
    )
