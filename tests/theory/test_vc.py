"""Growth functions and VC bounds (SPEC 2.4, 17.3, 19, 21): Sauer's lemma met with equality by thresholds
and intervals, the growth of product and composition classes (UML 20.9 Ex. 3-4), the sign-network bound
of UML Theorem 20.6 against labelings realised by random sign networks, and VCdim <= Ldim."""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import experts, nn, theory

N = 8  # points of the small classes


def _thresholds(n=N):
    """h_a(x_j) = 1[j < a], a = 0..n: n + 1 hypotheses."""
    return np.tril(np.ones((n + 1, n), np.int32), -1)


def _intervals(n=N):
    """1[i <= j < k] for all 0 <= i < k <= n, and the empty interval."""
    rows = [np.zeros(n, np.int32)]
    for i, k in itertools.combinations(range(n + 1), 2):
        rows.append(((np.arange(n) >= i) & (np.arange(n) < k)).astype(np.int32))
    return np.stack(rows)


def _random_classes(count=12, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(6, 5), (12, 7), (20, 8)]  # few shapes: one compilation each
    return [rng.integers(0, 2, shapes[i % 3], np.int32) for i in range(count)]


def _brute_growth(H):
    """tau_H(m) = max over m-subsets of the number of distinct restrictions, by itertools."""
    n = H.shape[1]
    return [
        max(len({tuple(row[list(c)]) for row in H}) for c in itertools.combinations(range(n), m))
        for m in range(n + 1)
    ]


def _sauer(d, m):
    return sum(math.comb(m, i) for i in range(min(d, m) + 1))


def test_sauer_bound_is_the_binomial_sum_and_below_its_closed_form(x64):
    """SS10 L8 section 20 (Sauer's lemma as used in Theorem 12): sum_{i<=d} C(m, i), exactly in float64,
    below (em/d)^d for m >= d >= 1, and tau(2m) <= (2em/d)^d, the form of the proof of Theorem 12."""
    d, m = np.meshgrid(np.arange(0, 13), np.arange(1, 41), indexing="ij")
    got = np.asarray(theory.sauer_bound(d, m))
    np.testing.assert_array_equal(got, [[_sauer(a, b) for b in range(1, 41)] for a in range(13)])
    d, m = d[1:], m[1:]
    ok = m >= d
    closed = np.asarray(theory.sauer_bound(np.where(ok, d, 1), m, closed_form=True))
    assert (got[1:][ok] <= closed[ok]).all()
    np.testing.assert_allclose(
        theory.sauer_bound(3, 8, closed_form=True), (8 * np.e / 3) ** 3, rtol=1e-12
    )
    doubled = np.asarray(theory.sauer_bound(d, 2 * m))
    assert (doubled <= (2 * np.e * m / d) ** d)[2 * m >= d].all()
    assert float(theory.sauer_bound(2, 10**6)) == pytest.approx(1 + 10**6 + 10**6 * (10**6 - 1) / 2)


def test_growth_function_matches_a_direct_count_over_subsets():
    """SPEC 21 (the brute force behind UML Ex. 20.3-20.4): every m-subset, distinct restrictions counted,
    against itertools, for binary classes and a class of functions into {0, 1, 2}."""
    rng = np.random.default_rng(1)
    classes = _random_classes(6, seed=1) + [rng.integers(0, 3, (10, 6), np.int32)]
    for H in classes:
        assert np.asarray(theory.growth_function(H)).tolist() == _brute_growth(H)


def test_thresholds_and_intervals_meet_sauers_lemma_with_equality():
    """SS10 L8 section 20, Sauer's lemma: thresholds (VC 1) have tau(m) = m + 1 = sum_{i<=1} C(m, i),
    intervals (VC 2) tau(m) = 1 + m + C(m, 2): the bound is attained, so a smaller one would fail."""
    for H, d in ((_thresholds(), 1), (_intervals(), 2)):
        assert experts.vc_dimension(H) == d
        tau = np.asarray(theory.growth_function(H))
        assert tau[0] == 1
        np.testing.assert_array_equal(tau[1:], theory.sauer_bound(d, np.arange(1, N + 1)))
    m = np.arange(1, N + 1)
    np.testing.assert_array_equal(
        theory.growth_function(_intervals())[1:], 1 + m + m * (m - 1) // 2
    )


def test_growth_of_random_classes_stays_below_sauer():
    """SS10 L8 section 20, Sauer's lemma on random classes: tau(m) <= sum_{i<=d} C(m, i) with d the VC
    dimension (experts.vc_dimension), which is also the largest m with tau(m) = 2^m."""
    for H in _random_classes():
        d = experts.vc_dimension(H)
        tau = np.asarray(theory.growth_function(H))
        m = np.arange(1, H.shape[1] + 1)
        assert (tau[1:] <= np.asarray(theory.sauer_bound(d, m))).all(), (H, tau, d)
        assert max(k for k in range(H.shape[1] + 1) if tau[k] == 2**k) == d


def test_product_class_growth_is_at_most_the_product_ex_20_3():
    """UML 20.9 Ex. 3 (SPEC 21): for H = F1 x F2, tau_H(m) <= tau_F1(m) tau_F2(m); the pair
    (f1(x), f2(x)) is coded f1(x) + 2 f2(x). With F1 = F2 the same subsets maximise both: equality."""
    classes = _random_classes(8, seed=2)
    for F1, F2 in zip(classes[::2], classes[1::2]):
        n = min(F1.shape[1], F2.shape[1])
        for G1, G2 in ((F1[:, :n], F2[:, :n]), (F1[:, :n], F1[:, :n])):
            product = (G1[:, None, :] + 2 * G2[None, :, :]).reshape(-1, n)
            tau = np.asarray(theory.growth_function(product))
            bound = np.asarray(theory.growth_function(G1)) * np.asarray(theory.growth_function(G2))
            assert (tau <= bound).all()
            if G2 is G1:
                np.testing.assert_array_equal(tau, bound)


def test_composition_class_growth_is_at_most_the_product_ex_20_4():
    """UML 20.9 Ex. 4 (SPEC 21): for F1: X -> Z and F2: Z -> {0, 1}, tau_{F2 o F1}(m) <= tau_F2(m) tau_F1(m)
    (tau_F2 over the |Z| points of Z, capped at |Z|). Equality when F2 is every function on Z and F1 one
    injective map: the bound is attained."""
    rng = np.random.default_rng(3)
    Z = 4
    all_F2 = np.asarray(list(itertools.product([0, 1], repeat=Z)), np.int32)

    def check(F1, F2):
        composed = (
            F2[:, F1].transpose(1, 0, 2).reshape(-1, F1.shape[1])
        )  # row (f1, f2): f2(f1(x_j))
        tau = np.asarray(theory.growth_function(composed))
        tau_F2 = np.asarray(theory.growth_function(F2))[np.minimum(np.arange(F1.shape[1] + 1), Z)]
        bound = tau_F2 * np.asarray(theory.growth_function(F1))
        assert (tau <= bound).all()
        return tau, bound

    for _ in range(5):
        F1 = rng.integers(0, Z, (4, 7), np.int32)
        F2 = rng.integers(0, 2, (5, Z), np.int32)
        check(F1, F2)
    tau, bound = check(np.arange(Z, dtype=np.int32)[None, :], all_F2)
    np.testing.assert_array_equal(tau, bound)


def _exact_sign_network_bound(E):
    m = 1
    while (m + 1) * math.log(2) <= E * (1 + math.log(m + 1)):
        m += 1
    return m


def test_sign_network_vc_bound_is_the_largest_m_with_2_to_the_m_at_most_em_to_the_E():
    """UML Theorem 20.6: the largest m with 2^m <= (em)^|E|, against an integer search, and the closed
    form 4a ln(2a) + 2a, a = |E|/ln 2 (SS10 Lemma 10), above it and O(|E| log |E|)."""
    E = np.arange(1, 301)
    exact = np.asarray([_exact_sign_network_bound(e) for e in E])
    np.testing.assert_array_equal(theory.sign_network_vc_bound(E), exact)
    closed = np.asarray(theory.sign_network_vc_bound(E, closed_form=True))
    assert (closed >= exact).all() and (closed <= 4 * exact).all()
    ratio = closed[9:] / (E[9:] * np.log(E[9:]))
    assert (np.diff(ratio) < 0).all() and ratio[-1] < 8  # O(|E| log |E|): the ratio falls


def _sign_network_labelings(key, X, widths, draws):
    """The distinct labelings of the rows of X by `draws` random sign networks of layer sizes `widths`."""
    keys = jax.random.split(key, 2 * len(widths))
    params = [  # standard normal weights and biases: every line meets the unit disc with fair probability
        (
            jax.random.normal(keys[2 * t], (draws, k_out, k_in)),
            jax.random.normal(keys[2 * t + 1], (draws, k_out)),
        )
        for t, (k_in, k_out) in enumerate(zip(widths[:-1], widths[1:]))
    ]

    @jax.jit
    def label(params):
        out = jax.vmap(lambda p: nn.mlp_apply(p, X, activation=nn.sign, output=nn.sign))(params)
        return (out[..., 0] > 0).astype(jnp.int32)

    return np.unique(np.asarray(label(params)), axis=0)


CIRCLE = np.stack([np.cos(2 * np.pi * np.arange(N) / N), np.sin(2 * np.pi * np.arange(N) / N)], 1)


def test_one_sign_neuron_grows_as_sauer_allows_with_its_in_degree():
    """UML Theorem 20.6, the proof's unit: a sign neuron with 2 inputs and a bias (in-degree 3) realises on
    N points in convex position the m^2 - m + 2 labelings of Cover's count (found by 20000 random
    neurons), <= Sauer with d = 3, with equality up to m = 3 (it shatters 3 points, not 4)."""
    H = _sign_network_labelings(
        jax.random.PRNGKey(0), jnp.asarray(CIRCLE, jnp.float32), [2, 1], 20_000
    )
    tau = np.asarray(theory.growth_function(H))
    m = np.arange(1, N + 1)
    np.testing.assert_array_equal(tau[1:], m**2 - m + 2)
    sauer = np.asarray(theory.sauer_bound(3, m))
    assert (tau[1:] <= sauer).all() and (tau[1:4] == sauer[:3]).all()


def test_tiny_sign_network_labelings_stay_below_theorem_20_6():
    """UML Theorem 20.6 on a 2-2-1 sign network (|E| = 9 with the biases): the labelings realised by 50000
    random networks on N points give a growth function <= the product over the three neurons of Sauer's
    bound for in-degree 3 <= (em)^|E| (the proof's chain), and the VC dimension found (5: a union or
    intersection of two half-planes cuts a circle into at most 4 arcs) <= sign_network_vc_bound(9)."""
    H = _sign_network_labelings(
        jax.random.PRNGKey(1), jnp.asarray(CIRCLE, jnp.float32), [2, 2, 1], 50_000
    )
    tau = np.asarray(theory.growth_function(H))
    m = np.arange(1, N + 1)
    neurons = np.asarray(theory.sauer_bound(3, m)) ** 3
    assert (tau[1:] <= neurons).all() and (neurons <= (np.e * m) ** 9).all()
    found = max(k for k in range(N + 1) if tau[k] == 2**k)
    assert found == 5
    assert (
        found
        <= theory.sign_network_vc_bound(9)
        <= theory.sign_network_vc_bound(9, closed_form=True)
    )


def test_vc_dimension_is_at_most_littlestone_dimension():
    """UML Theorem 21.9 (SPEC 2.4): VCdim(H) <= Ldim(H) <= log2 |H| on thresholds (1 vs floor(log2(N+1)):
    the gap Example 21.4 makes infinite), intervals, Example 21.3 (1 = 1) and random classes."""
    assert (experts.vc_dimension(_thresholds()), experts.littlestone_dimension(_thresholds())) == (
        1,
        3,
    )
    assert experts.vc_dimension(np.eye(N, dtype=np.int32)) == experts.littlestone_dimension(
        np.eye(N, dtype=int)
    )
    for H in [_intervals(), *_random_classes()]:
        vc, ldim = experts.vc_dimension(H), experts.littlestone_dimension(H)
        assert vc <= ldim <= math.log2(len(np.unique(H, axis=0)))
