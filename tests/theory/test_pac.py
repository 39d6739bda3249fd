"""epsilon-nets and PAC learning of intervals (SPEC 19; SS10 L8 sections 20-21): the gap criterion against
Definition 3, Theorem 12 by simulation (and against the exact law of uniform spacings), Theorem 13 for the
ERM of intervals on hard targets, and Lemmas 9-10 on dense grids."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import theory

EPSILON, DELTA, REPS = 0.1, 0.1, 2000
THEOREM_REPS = 1000  # the frequencies at the theorems' sizes are 1.0: fewer repetitions suffice


def _net_probability(m, epsilon):
    """P[every one of the m + 1 spacings of m uniform points on [0, 1] is <= epsilon] (exact law of
    uniform spacings: sum_k (-1)^k C(m+1, k) (1 - k epsilon)_+^m)."""
    return sum(
        (-1) ** k * math.comb(m + 1, k) * max(0.0, 1 - k * epsilon) ** m for k in range(m + 2)
    )


def _net_frequency(m, epsilon, reps=REPS, seed=0):
    draw = jax.vmap(lambda k: theory.is_interval_epsilon_net(jax.random.uniform(k, (m,)), epsilon))
    return float(jnp.mean(draw(jax.random.split(jax.random.PRNGKey(seed), reps))))


def test_gap_criterion_agrees_with_the_epsilon_net_definition(x64):
    """SS10 Definition 3 (SPEC 19, derived criterion): S misses a closed interval [a, a + eps] of [0, 1]
    (hence one of mass >= eps) on a grid of a with step 1e-4 iff a gap of S, 0 and 1 exceeds eps."""
    rng = np.random.default_rng(0)
    starts = np.linspace(0.0, 1.0 - 0.25, 7501)
    checked = 0
    for _ in range(300):
        x = rng.uniform(size=int(rng.integers(1, 7)))
        gaps = np.diff(np.concatenate([[0.0], np.sort(x), [1.0]]))
        if abs(gaps.max() - 0.25) < 1e-3:
            continue  # within the grid's resolution of the boundary
        missed = ~((x[None, :] >= starts[:, None]) & (x[None, :] <= starts[:, None] + 0.25)).any(
            axis=1
        )
        assert bool(theory.is_interval_epsilon_net(x, 0.25)) == (not missed.any())
        checked += 1
    assert checked > 250


def test_epsilon_net_frequency_follows_the_law_of_uniform_spacings():
    """SS10 Theorem 12's event for intervals, measured at sizes where it is uncertain: the frequency of
    eps-nets over 2000 samples is within 4 standard deviations of the exact probability."""
    for m, epsilon in ((20, 0.2), (40, 0.1), (60, 0.1)):
        p = _net_probability(m, epsilon)
        assert 0.05 < p < 0.95
        assert abs(_net_frequency(m, epsilon) - p) <= 4 * math.sqrt(p * (1 - p) / REPS), (
            m,
            epsilon,
            p,
        )


def test_samples_of_theorem_12_size_are_epsilon_nets_with_probability_1_minus_delta():
    """SS10 Theorem 12 (d = 2, intervals on [0, 1], uniform D): at m = (8/eps)(2d log(16e/eps) + log(2/delta))
    at least 1 - delta of 1000 samples are eps-nets; at m = 30 far fewer are (the test can fail), and the
    exact law puts the smallest sufficient m (about 60) below the theorem's, for every (eps, delta) tried."""
    m = int(theory.epsilon_net_sample_size(2, EPSILON, DELTA))
    assert m == math.ceil(8 / EPSILON * (4 * math.log(16 * math.e / EPSILON) + math.log(2 / DELTA)))
    assert _net_frequency(m, EPSILON, THEOREM_REPS) >= 1 - DELTA
    assert _net_frequency(30, EPSILON, THEOREM_REPS) < 1 - DELTA
    for epsilon in (0.05, 0.1, 0.2, 0.5):
        for delta in (0.01, 0.1, 0.24):
            needed = next(k for k in range(1, 10_000) if _net_probability(k, epsilon) >= 1 - delta)
            assert needed <= theory.epsilon_net_sample_size(2, epsilon, delta) <= 200 * needed


def _error(h, c):
    """L_D(h) = D(h symmetric-difference c) under uniform D on [0, 1]; h and c closed intervals [lo, hi]."""

    def length(lo, hi):
        return jnp.maximum(0.0, jnp.minimum(hi, 1.0) - jnp.maximum(lo, 0.0))

    both = length(jnp.maximum(h[0], c[0]), jnp.minimum(h[1], c[1]))
    return length(*h) + length(*c) - 2 * both


def _erm_errors(m, targets, reps, seed=0):
    """ERM errors over `reps` samples of size m per target, shape (targets, reps), and whether ERM fit S."""

    def one(c, key):
        x = jax.random.uniform(key, (m,))
        y = (x >= c[0]) & (x <= c[1])
        h = theory.interval_erm(x, y)
        return _error(h, c), jnp.all(((x >= h[0]) & (x <= h[1])) == y)

    keys = jax.random.split(jax.random.PRNGKey(seed), reps)
    return jax.vmap(lambda c: jax.vmap(lambda k: one(c, k))(keys))(targets)


def test_interval_erm_error_stays_below_epsilon_at_theorem_13_size():
    """SS10 Theorem 13 (realizable intervals, uniform D): at the sample size of Theorem 12 the ERM (the
    tightest interval around the positives) has exact error <= eps in >= 1 - delta of 1000 samples, on
    hard targets (length 1.1 eps to 2 eps: missing the target costs its whole length). At m = 10 it
    fails on all of them (about 0.27 instead of 0.9: the test can fail); the ERM never errs on its sample."""
    starts = jnp.array([0.0, 0.3, 0.55, 0.8], jnp.float32)
    lengths = jnp.array([1.1, 1.25, 1.5, 2.0], jnp.float32) * EPSILON
    targets = jnp.stack([starts, starts + lengths], axis=1)
    m = int(theory.epsilon_net_sample_size(2, EPSILON, DELTA))
    errors, consistent = _erm_errors(m, targets, THEOREM_REPS)
    assert bool(consistent.all())
    assert (jnp.mean(errors <= EPSILON, axis=1) >= 1 - DELTA).all()
    errors, consistent = _erm_errors(10, targets, THEOREM_REPS)
    assert bool(consistent.all())
    assert (jnp.mean(errors <= EPSILON, axis=1) < 1 - DELTA).all()


def test_lemma_9_on_a_dense_grid(x64):
    """SS10 L8 Lemma 9: a > 0 and x >= 2a log a imply x >= a log x (for a <= 1 trivially). On a grid of
    a in [1e-3, 1e6] and x from the threshold up; with the constant 1 instead of 2 it fails (a > e)."""
    a = np.logspace(-3, 6, 400)[:, None]
    stretch = np.concatenate([[0.0], np.logspace(-9, 3, 300)])[None, :]
    x = np.maximum(2 * a * np.log(a), 1e-12) * (1 + stretch)
    assert (x >= a * np.log(x)).all()
    weak = np.maximum(a * np.log(a), 1e-12) * (1 + stretch)
    assert not (weak >= a * np.log(weak)).all()


def test_lemma_10_on_a_dense_grid(x64):
    """SS10 L8 Lemma 10: a >= 1, b > 0 and x >= 4a log(2a) + 2b imply x >= a log x + b, on a grid of
    (a, b, x); the weaker threshold 2a log(2a) + b fails somewhere on the same grid."""
    a = np.logspace(0, 5, 120)[:, None, None]
    b = np.logspace(-3, 5, 120)[None, :, None]
    stretch = np.concatenate([[0.0], np.logspace(-9, 3, 60)])[None, None, :]
    x = (4 * a * np.log(2 * a) + 2 * b) * (1 + stretch)
    assert (x >= a * np.log(x) + b).all()
    weak = (2 * a * np.log(2 * a) + b) * (1 + stretch)
    assert not (weak >= a * np.log(weak) + b).all()
