"""Weighted Majority with its exact constants; randomized WM's regret (sqrt(2 ln(d) T) by hand, half of it
reached); equality with Hedge."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, experts, theory


def _expert_mistakes(X, y):
    return jnp.sum(X != y[:, None], axis=0).astype(jnp.float32)


def test_two_point_six_three():
    # beta = 1/e: both constants are 1 / ln(2e / (e + 1)) = 2.63237...
    c = 1 / np.log(2 * np.e / (np.e + 1))
    assert c == pytest.approx(2.63237, abs=1e-5)
    assert float(theory.weighted_majority_bound(1 / np.e, 10, np.e)) == pytest.approx(
        11 * c, rel=1e-6
    )


@pytest.mark.parametrize("beta", [0.1, 1 / np.e, 0.5, 0.9])
@pytest.mark.parametrize("seed", range(3))
def test_bound_for_every_expert_on_random_streams(beta, seed):
    X, y = datasets.expert_advice(jax.random.PRNGKey(seed), 2000, 16, jnp.linspace(0.05, 0.6, 16))
    learner = experts.weighted_majority(beta)
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    bounds = theory.weighted_majority_bound(beta, _expert_mistakes(X, y), 16)
    assert bool(jnp.all(trace.loss.sum() <= bounds))


def test_beta_zero_is_halving():
    # beta = 0: a wrong expert gets weight 0 and the vote is Halving's (a tie predicts 1); on a
    # realizable stream at most log2(n) mistakes. With no perfect expert the bound is vacuous, and a
    # round where every expert of positive weight errs keeps the weights (as Halving keeps V_t).
    X, y = datasets.expert_advice(jax.random.PRNGKey(0), 500, 16)  # expert 0 is never wrong
    _, trace = core.run(
        experts.weighted_majority(0.0), experts.weighted_majority(0.0).init(X[0]), X, y
    )
    _, halving = core.run(experts.halving(), experts.halving().init(X[0]), X, y)
    np.testing.assert_array_equal(trace.prediction, halving.prediction)
    assert float(trace.loss.sum()) <= float(theory.halving_bound(16))
    X, y = datasets.expert_advice(jax.random.PRNGKey(1), 500, 16, jnp.linspace(0.05, 0.6, 16))
    state, _ = core.run(
        experts.weighted_majority(0.0), experts.weighted_majority(0.0).init(X[0]), X, y
    )
    assert float(jnp.exp(state.log_w).sum()) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("beta", [0.2, 1 / np.e, 0.8])
def test_bound_against_the_adversary_who_always_contradicts(beta):
    # y_t = 1 - prediction: the master errs every round, and the bound still holds for every expert.
    X = jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (1000, 8)).astype(jnp.int32)
    learner = experts.weighted_majority(beta)

    def body(state, x):
        y = 1 - learner.predict(state, x)
        state, info = learner.update(state, x, y)
        return state, (info, y)

    _, (trace, y) = jax.lax.scan(body, learner.init(X[0]), X)
    assert int(trace.mistake.sum()) == 1000
    bounds = theory.weighted_majority_bound(beta, _expert_mistakes(X, y), 8)
    assert bool(jnp.all(1000 <= bounds))
    assert 1000 > 0.5 * float(bounds.min())  # the adversary gets within a factor 2 of the bound


def test_per_round_weight_inequalities(x64):
    # W_{t+1} <= W_t, and W_{t+1} <= (1 + beta)/2 W_t on a master mistake (unnormalised weights
    # beta^{M_{t,i}}, recomputed from the experts' mistake counts).
    beta = 0.4
    X, y = datasets.expert_advice(jax.random.PRNGKey(2), 300, 10, jnp.linspace(0.1, 0.5, 10))
    learner = experts.weighted_majority(beta)
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    counts = jnp.concatenate(
        [jnp.zeros((1, 10)), jnp.cumsum(X != y[:, None], axis=0).astype(jnp.float64)]
    )
    W = jnp.sum(beta**counts, axis=1)
    assert bool(jnp.all(W[1:] <= W[:-1] + 1e-12))
    ratio = W[1:] / W[:-1]
    assert bool(jnp.all(jnp.where(trace.mistake, ratio <= (1 + beta) / 2 + 1e-12, True)))


def test_million_rounds_in_float32_do_not_underflow():
    # One expert always wrong, one always right, one a coin: 10^6 rounds of log-space weights.
    T = 1_000_000
    y = jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (T,)).astype(jnp.int32)
    coin = jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (T,)).astype(jnp.int32)
    X = jnp.stack([1 - y, y, coin], axis=1)
    for learner, key in [
        (experts.weighted_majority(), None),
        (experts.randomized_weighted_majority(0.01), jax.random.PRNGKey(2)),
        (experts.weighted_average(0.5, "square"), None),
    ]:
        state = learner.init(X[0]) if key is None else learner.init(X[0], key)
        state, trace = core.run(learner, state, X.astype(jnp.float32), y, trace_fn=lambda i: i.loss)
        assert state[0].dtype == jnp.float32
        assert not bool(jnp.any(jnp.isnan(state[0]))) and not bool(jnp.any(jnp.isnan(trace)))
        assert float(jnp.exp(state[0][1])) == pytest.approx(
            1.0, abs=1e-5
        )  # the good expert holds it all


def test_beta_outside_range():
    for beta in (-0.1, 1.0, 2.0):
        with pytest.raises(ValueError, match=r"expected `beta` a number in \[0, 1\)"):
            experts.weighted_majority(beta)


def test_rwm_needs_a_key():
    with pytest.raises(ValueError, match="needs a `key`"):
        experts.randomized_weighted_majority(0.1).init(jnp.zeros(3))


@pytest.mark.parametrize("n", [2, 10, 100])
def test_rwm_expected_regret_on_random_and_adaptive_costs(n):
    T = 2000
    eta = jnp.sqrt(2 * jnp.log(n) / T)
    X, y = datasets.expert_advice(jax.random.PRNGKey(n), T, n, jnp.linspace(0.2, 0.5, n))
    learner = experts.randomized_weighted_majority(eta)
    _, trace = core.run(learner, learner.init(X[0], jax.random.PRNGKey(0)), X, y)
    best = float(jnp.min(_expert_mistakes(X, y)))
    assert float(trace.expected_loss.sum()) - best <= theory.rwm_regret_bound(T, n)
    # |p_t - y_t| equals the expected loss for binary advice (Corollary 21.12)
    np.testing.assert_allclose(
        jnp.abs(trace.probability - y.astype(jnp.float32)), trace.expected_loss, atol=1e-5
    )

    # Adaptive: the heaviest expert is wrong, every other expert right.
    def body(state, _):
        heaviest = jnp.argmax(state.log_w)
        x = jnp.zeros(n).at[heaviest].set(1.0)
        return learner.update(state, x, jnp.float32(0.0))

    state0 = learner.init(jnp.zeros(n), jax.random.PRNGKey(1))

    def record(state, _):
        h = jnp.argmax(state.log_w)
        new_state, info = body(state, None)
        return new_state, (info, h)

    _, (adv, chosen) = jax.lax.scan(record, state0, None, length=T)
    expert_costs = jnp.sum(
        jax.nn.one_hot(chosen, n), axis=0
    )  # the heaviest expert pays 1 each round
    regret = float(adv.expected_loss.sum()) - float(expert_costs.min())
    assert regret <= theory.rwm_regret_bound(T, n)
    assert float(adv.expected_loss.sum()) >= T / n  # the adversary makes the learner pay


def test_rwm_and_hedge_have_identical_weights(x64):
    T, n = 500, 7
    eta = jnp.sqrt(2 * jnp.log(n) / T)
    X = jax.random.uniform(jax.random.PRNGKey(0), (T, n))
    y = jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (T,)).astype(X.dtype)
    rwm = experts.randomized_weighted_majority(eta)
    rwm_state, rwm_trace = core.run(rwm, rwm.init(X[0], jax.random.PRNGKey(2)), X, y)
    hedge = experts.hedge(eta)
    hedge_state, hedge_trace = core.run(hedge, hedge.init(X[0]), None, jnp.abs(X - y[:, None]))
    chex.assert_trees_all_close(rwm_state.log_w, hedge_state.log_v, rtol=1e-12, atol=1e-12)
    chex.assert_trees_all_close(rwm_trace.expected_loss, hedge_trace.loss, rtol=1e-12, atol=1e-12)


# sqrt(2 ln(d) T) worked by hand: T = 8, d = 4: sqrt(16 ln 4) = 4.709640; T = 2, d = 2:
# sqrt(4 ln 2) = 1.665109; T = 100, d = 10: sqrt(200 ln 10) = sqrt(460.517...);
# T = 2000, d = 1000: sqrt(4000 ln 1000) = sqrt(27631.02...).
@pytest.mark.parametrize(
    "T, n, want",
    [(8, 4, 4.70964009), (2, 2, 1.66510922), (100, 10, 21.45966026), (2000, 1000, 166.22581363)],
)
def test_rwm_regret_bound_is_sqrt_2_ln_d_T(T, n, want):
    # UML Theorem 21.11: with eta = sqrt(2 log(d) / T) (T > 2 log d), regret <= sqrt(2 log(d) T).
    assert float(theory.rwm_regret_bound(T, n)) == pytest.approx(want, rel=1e-6)
    # the proof's intermediate bound log(d)/eta + eta T/2 at that eta
    eta = np.sqrt(2 * np.log(n) / T)
    assert float(theory.exponential_weights_bound(eta, T, n)) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("n", [2, 10, 1000])
def test_rwm_regret_is_a_substantial_fraction_of_the_bound(n):
    # Expert 0 wrong for T/4 rounds while the others are right, then right while the others are
    # wrong: randomized WM keeps following the others for about ln(n - 1)/eta rounds of phase 2, a
    # regret of about half the bound (no [0, 1] cost sequence can exceed 5/8 of it).
    T = 2000
    first = jnp.tile(jnp.eye(n)[0], (T // 4, 1))
    X = jnp.concatenate([first, jnp.tile(1 - jnp.eye(n)[0], (T - T // 4, 1))])
    y = jnp.zeros(T)
    learner = experts.randomized_weighted_majority(jnp.sqrt(2 * jnp.log(n) / T))
    _, trace = core.run(learner, learner.init(X[0], jax.random.PRNGKey(0)), X, y)
    regret = float(trace.expected_loss.sum()) - float(jnp.min(X.sum(axis=0)))
    bound = float(theory.rwm_regret_bound(T, n))
    assert 0.48 * bound <= regret <= bound
