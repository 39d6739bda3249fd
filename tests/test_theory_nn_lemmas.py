"""The lemmas behind the nearest-neighbour bounds (UML section 19.2; SPEC section 16 test recipes):
Lemma 19.2 and Lemma 19.6 by Monte Carlo on a uniform grid of boxes, Lemma 19.7 exactly by enumerating
the Bernoulli outcomes, and the auxiliary inequality of Theorem 19.5's proof on a grid."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

RNG = np.random.default_rng(0)


def _empty_box_mass(m, side, d, draws, below=1):
    """Monte Carlo of E_S[sum of P[C_i] over boxes C_i holding fewer than ``below`` points of S], for
    x uniform on [0, 1]^d and the r = side^d boxes of a uniform grid (each of mass 1/r)."""
    X = RNG.random((draws, m, d))
    cells = np.floor(X * side).astype(int) @ (side ** np.arange(d))  # the box of each point
    counts = np.stack([np.bincount(c, minlength=side**d) for c in cells])
    return np.mean(np.sum(counts < below, axis=1) / side**d), np.std(
        np.sum(counts < below, axis=1) / side**d
    )


@pytest.mark.parametrize("m, side, d", [(100, 10, 2), (50, 7, 2), (64, 4, 3)])
def test_lemma_19_2_mass_of_the_boxes_S_misses(m, side, d):
    """E_S[sum_{i: C_i n S empty} P[C_i]] <= r / (m e). With r boxes of mass 1/r the expectation is
    exactly (1 - 1/r)^m; at r = m the bound 1/e is nearly attained ((1 - 1/m)^m -> 1/e)."""
    r, draws = side**d, 4000
    mean, std = _empty_box_mass(m, side, d, draws)
    exact = (1 - 1 / r) ** m
    assert mean == pytest.approx(exact, abs=4 * std / math.sqrt(draws))
    assert exact <= r / (m * math.e)
    if r == m:
        assert exact >= 0.99 * r / (m * math.e)  # near tight


@pytest.mark.parametrize("m, side, k", [(100, 10, 2), (25, 5, 2), (25, 4, 3)])
def test_lemma_19_6_mass_of_the_boxes_with_fewer_than_k_points(m, side, k):
    """E_S[sum_{i: |C_i n S| < k} P[C_i]] <= 2 r k / m, for every k >= 2; here exactly
    P[Binomial(m, 1/r) < k] (d = 1: r = side boxes of [0, 1])."""
    draws = 4000
    mean, std = _empty_box_mass(m, side, 1, draws, below=k)
    exact = stats.binom.cdf(k - 1, m, 1 / side)
    assert mean == pytest.approx(exact, abs=4 * std / math.sqrt(draws) + 1e-12)
    assert exact <= 2 * side * k / m


def _lemma_19_7_sides(p_i):
    """Both sides of Lemma 19.7 for independent Z_i ~ Bernoulli(p_i), computed exactly over all 2^k
    outcomes: E_Z[P_{y~p}[y != 1[p' > 1/2]]] and (1 + sqrt(8/k)) P_{y~p}[y != 1[p > 1/2]]."""
    k = len(p_i)
    p = np.mean(p_i)
    outcomes = np.array(list(itertools.product((0, 1), repeat=k)))  # (2^k, k)
    weight = np.prod(np.where(outcomes == 1, p_i, 1 - p_i), axis=1)
    vote = outcomes.mean(axis=1) > 0.5
    error = np.where(vote, 1 - p, p)  # P_{y~p}[y != the vote]
    return float(weight @ error), (1 + math.sqrt(8 / k)) * (1 - p if p > 0.5 else p)


@pytest.mark.parametrize("k", range(10, 16))
def test_lemma_19_7_exactly_by_enumeration(k):
    for p_i in [RNG.random(k) for _ in range(5)] + [
        np.full(k, 0.45),
        np.full(k, 0.3),
        np.full(k, 0.55),
    ]:
        left, right = _lemma_19_7_sides(p_i)
        assert left <= right + 1e-12, (p_i, left, right)


def test_auxiliary_inequality_of_theorem_19_5_on_a_grid():
    """For p in (0, 1/2] and k >= 10: (1 - 2p) exp(-kp + (k/2)(log(2p) + 1)) <= sqrt(8/k) p; the largest
    ratio of the two sides on a grid is about 0.87 (SPEC section 16)."""
    p = np.linspace(1e-4, 0.5, 20_000)[:, None]
    k = np.arange(10, 201)[None, :]
    left = (1 - 2 * p) * np.exp(-k * p + k / 2 * (np.log(2 * p) + 1))
    ratio = left / (np.sqrt(8 / k) * p)
    assert ratio.max() <= 1.0
    assert ratio.max() == pytest.approx(0.87, abs=0.01)
