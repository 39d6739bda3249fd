"""Hedge: the sqrt(2 T ln n) theorem (its value by hand; a sequence reaching half of it), inequality (2),
HA-2 sampling, the allocation API, the block path."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, experts, metrics, theory


def _kl(u, v):
    return jnp.sum(jax.scipy.special.xlogy(u, u) - jax.scipy.special.xlogy(u, v), axis=-1)


@pytest.mark.parametrize("n", [2, 16, 1000])
def test_regret_bound_on_random_losses(n):
    T = 3000
    losses = jax.random.uniform(jax.random.PRNGKey(n), (T, n))
    learner = experts.hedge(jnp.sqrt(2 * jnp.log(n) / T))
    _, trace = core.run(learner, learner.init(jnp.zeros(n)), None, losses)
    regret = metrics.regret(trace.loss, losses)
    assert float(regret[-1]) <= float(theory.hedge_regret_bound(T, n))


@pytest.mark.parametrize("n", [2, 10, 50])
def test_regret_bound_against_loss_on_the_heaviest_expert(n):
    # The adversary sees v_t and puts loss 1 on the currently most likely expert.
    T = 2000
    learner = experts.hedge(jnp.sqrt(2 * jnp.log(n) / T))

    def body(state, _):
        losses = jax.nn.one_hot(jnp.argmax(state.log_v), n)
        state, info = learner.update(state, None, losses)
        return state, (info, losses)

    _, (trace, losses) = jax.lax.scan(body, learner.init(jnp.zeros(n)), None, length=T)
    regret = float(metrics.regret(trace.loss, losses)[-1])
    assert regret <= float(theory.hedge_regret_bound(T, n))
    assert float(trace.loss.sum()) >= T / n - 1e-3  # it cannot avoid paying the average


def test_per_trial_inequality_and_its_sum(x64):
    # v_t.l_t - u.l_t <= (d(u, v_t) - d(u, v_{t+1})) / eta + eta/2 sum_i v_ti l_ti^2, for every u.
    T, n, eta = 200, 6, 0.3
    losses = jax.random.uniform(jax.random.PRNGKey(0), (T, n))
    learner = experts.hedge(eta)
    state = learner.init(jnp.zeros(n))
    us = jax.random.dirichlet(jax.random.PRNGKey(1), jnp.ones(n), (20,))
    total = jnp.zeros(20)
    for t in range(T):  # a test: check every trial one by one
        new_state, info = learner.update(state, None, losses[t])
        v, v_next = jnp.exp(state.log_v), jnp.exp(new_state.log_v)
        lhs = info.loss - us @ losses[t]
        rhs = (_kl(us, v) - _kl(us, v_next)) / eta + eta / 2 * jnp.vdot(v, losses[t] ** 2)
        assert bool(jnp.all(lhs <= rhs + 1e-12))
        total = total + lhs
        state = new_state
    assert bool(jnp.all(total <= theory.exponential_weights_bound(eta, T, n)))


def test_ha2_samples_follow_the_allocation():
    T, n = 4000, 4
    losses = jax.random.uniform(jax.random.PRNGKey(0), (T, n))
    learner = experts.hedge(0.05, sample=True)
    keys = jax.random.split(jax.random.PRNGKey(1), 32)
    run_one = jax.jit(
        jax.vmap(lambda k: core.run(learner, learner.init(jnp.zeros(n), k), None, losses)[1])
    )
    traces = run_one(keys)
    # the expected loss does not depend on the coins; the realised loss averages to it
    np.testing.assert_allclose(
        traces.loss, jnp.broadcast_to(traces.loss[0], traces.loss.shape), rtol=1e-6
    )
    realised, expected = traces.action_loss.sum(axis=1), traces.loss[0].sum()
    assert abs(float(realised.mean() - expected)) < 4 * float(realised.std()) / np.sqrt(32) + 1.0
    assert bool(jnp.all((traces.action >= 0) & (traces.action < n)))
    with pytest.raises(ValueError, match="needs a `key`"):
        learner.init(jnp.zeros(n))


def test_allocation_api_and_bad_losses():
    learner = experts.hedge(0.5)
    state = learner.init(jnp.zeros(3))
    np.testing.assert_allclose(learner.predict(state, None), jnp.full(3, 1 / 3), rtol=1e-6)
    state, info = learner.update(state, None, jnp.array([1.0, 0.0, 0.0]))
    assert float(info.loss) == pytest.approx(1 / 3)
    v = learner.predict(state, None)
    assert float(v[0]) < float(v[1]) == pytest.approx(float(v[2]))
    with pytest.raises(ValueError, match=r"`ys` in \[0, 1\], found values in \[0, 2\]"):
        core.run(learner, learner.init(jnp.zeros(3)), None, jnp.array([[0.0, 2.0, 1.0]]))
    with pytest.raises(ValueError, match="`ys?` with 3 features"):
        core.run(learner, learner.init(jnp.zeros(3)), None, jnp.zeros((5, 4)))


def test_vmapped_sweep_of_64_etas():
    T, n = 1000, 20
    losses = jax.random.uniform(jax.random.PRNGKey(0), (T, n))
    etas = jnp.logspace(-3, 1, 64)
    s0 = experts.hedge(1.0).init(jnp.zeros(n))
    traces = jax.vmap(lambda e: core.run(experts.hedge(e), s0, None, losses)[1])(etas)
    one = jax.jit(lambda e: core.run(experts.hedge(e), s0, None, losses)[1].loss)
    for i in (0, 31, 63):
        np.testing.assert_allclose(traces.loss[i], one(etas[i]), rtol=1e-5)
    regrets = traces.loss.sum(axis=1) - losses.sum(axis=0).min()
    assert bool(jnp.all(regrets <= theory.exponential_weights_bound(etas, T, n)))
    # the sweep equals 64 separate runs in float64 too (to rounding)
    with jax.enable_x64(True):
        losses64, s64 = (
            losses.astype(jnp.float64),
            experts.hedge(1.0).init(jnp.zeros(n, jnp.float64)),
        )
        etas64 = etas.astype(jnp.float64)
        swept = jax.vmap(lambda e: core.run(experts.hedge(e), s64, None, losses64)[1].loss)(etas64)
        one64 = jax.jit(lambda e: core.run(experts.hedge(e), s64, None, losses64)[1].loss)
        for i in (0, 31, 63):
            np.testing.assert_allclose(swept[i], one64(etas64[i]), rtol=1e-12)
            np.testing.assert_allclose(traces.loss[i], one64(etas64[i]), rtol=1e-4)


@pytest.mark.parametrize("sample", [False, True])
@pytest.mark.parametrize("block_size", [1, 7, 64])
def test_block_mode_equals_the_round_by_round_scan(sample, block_size, x64):
    losses = jax.random.uniform(jax.random.PRNGKey(0), (300, 9))
    learner = experts.hedge(0.4, sample=sample)
    state0 = learner.init(jnp.zeros(9), jax.random.PRNGKey(1))
    seq = core.run(learner, state0, None, losses)
    blk = core.run(learner, state0, None, losses, block_size=block_size)
    np.testing.assert_allclose(blk[0].log_v, seq[0].log_v, atol=1e-12)
    np.testing.assert_allclose(blk[1].loss, seq[1].loss, atol=1e-12)
    np.testing.assert_allclose(blk[1].prediction, seq[1].prediction, atol=1e-12)
    np.testing.assert_array_equal(blk[1].action, seq[1].action)
    np.testing.assert_allclose(blk[1].action_loss, seq[1].action_loss, atol=1e-12)


@pytest.mark.parametrize("T", [5003, 3 * 2000 + 5])
def test_default_run_takes_the_block_path_and_equals_the_scan(T, x64):
    # 5003 rounds: one block in chunks of rounds side by side, and a tail; 6,005 rounds in blocks of
    # 2,000: the blocks carry the state from one to the next, and the last, shorter one too.
    learner = experts.hedge(0.3)
    assert learner.block_size >= 5003 and learner.run_block is not None
    losses = jax.random.uniform(jax.random.PRNGKey(2), (T, 11))
    state0 = learner.init(jnp.zeros(11))
    fast = core.run(learner, state0, None, losses, block_size=None if T == 5003 else 2000)
    scan = core.run(learner, state0, None, losses, block_size=0)
    chex.assert_trees_all_close(fast, scan, rtol=1e-12, atol=1e-12)  # log-weights down to -500
    assert int(fast[0].step) == T


@pytest.mark.parametrize("block_size", [5, 33, 128])
def test_block_sizes_equal_the_scan_with_eta_traced_under_vmap(block_size, x64):
    T, n = 130, 6  # 130 is a multiple of none of them but 2 and 5
    losses = jax.random.uniform(jax.random.PRNGKey(3), (T, n))
    etas = jnp.array([1e-3, 0.1, 1.0, 7.0])
    s0 = experts.hedge(1.0).init(jnp.zeros(n))

    def sweep(size):
        return jax.vmap(lambda e: core.run(experts.hedge(e), s0, None, losses, block_size=size))(
            etas
        )

    chex.assert_trees_all_close(sweep(block_size), sweep(0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("eta", [1e-8, 50.0, 1e6])
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_extreme_etas_keep_the_allocation_a_distribution(eta, dtype, x64):
    # Large eta: after a few rounds every expert but the leader has weight exp(-eta * gap) = 0.
    T, n = 100, 8
    losses = jax.random.uniform(jax.random.PRNGKey(4), (T, n), dtype)
    learner = experts.hedge(eta)
    state0 = learner.init(jnp.zeros(n, dtype))
    state, trace = core.run(learner, state0, None, losses)
    _, scan = core.run(learner, state0, None, losses, block_size=0)
    for a in (state.log_v, trace.prediction, trace.loss):
        assert a.dtype == dtype
    assert bool(jnp.all(jnp.isfinite(trace.prediction)) & jnp.all(jnp.isfinite(trace.loss)))
    assert bool(jnp.all(jnp.isfinite(jax.nn.logsumexp(state.log_v))))
    atol = (
        1e-12 if dtype == jnp.float64 else 1e-5
    )  # log-weights of size eta * L lose digits as L grows
    np.testing.assert_allclose(trace.prediction.sum(axis=1), 1, rtol=atol)
    np.testing.assert_allclose(jnp.exp(state.log_v).sum(), 1, rtol=atol)
    np.testing.assert_allclose(trace.prediction, scan.prediction, atol=atol)
    np.testing.assert_allclose(trace.loss, scan.loss, atol=atol)


@pytest.mark.parametrize("size", [1, 17, 33, 300])
def test_earlier_rounds_is_the_exclusive_cumulative_sum(size, x64):
    from jaxlearn.experts._hedge_blocks import earlier_rounds

    losses = jax.random.uniform(jax.random.PRNGKey(size), (size, 3))
    expected = jnp.cumsum(losses, axis=0) - losses
    np.testing.assert_allclose(earlier_rounds(losses), expected, rtol=0, atol=1e-12)


# sqrt(2 T ln n) worked by hand: T = 8, n = 4: sqrt(16 ln 4) = 4 sqrt(1.386294...) = 4.709640;
# T = 1, n = 2: sqrt(2 ln 2) = 1.177410; T = 100, n = 10: sqrt(200 ln 10) = sqrt(460.517...);
# T = 2000, n = 1000: sqrt(4000 ln 1000) = sqrt(27631.02...).
HAND_VALUES = [
    (8, 4, 4.70964009),
    (1, 2, 1.17741002),
    (100, 10, 21.45966026),
    (2000, 1000, 166.22581363),
]


@pytest.mark.parametrize("T, n, want", HAND_VALUES)
def test_hedge_regret_bound_is_sqrt_2_T_ln_n(T, n, want):
    # COMP0078 "Hedge - Theorem": with eta = sqrt(2 ln n / m), E[L_HA] - min_i L_i <= sqrt(2 m ln n).
    assert float(theory.hedge_regret_bound(T, n)) == pytest.approx(want, rel=1e-6)
    # it is ln(n)/eta + eta T/2 (the summed per-trial inequality (5)) at that eta
    eta = np.sqrt(2 * np.log(n) / T)
    assert float(theory.exponential_weights_bound(eta, T, n)) == pytest.approx(want, rel=1e-6)


def _two_phase_losses(T, n, k):
    """Expert 0 loses for k rounds while the others do not, then the others lose and expert 0 does not.

    Hedge follows the others through phase 1 (paying little) and keeps following them into phase 2
    until expert 0's weight catches up, about ln(n - 1)/eta rounds, paying ~1 each round: the regret is
    close to ln(n)/eta, half the bound sqrt(2 T ln n) at the theorem's eta."""
    return jnp.concatenate(
        [jnp.tile(jnp.eye(n)[0], (k, 1)), jnp.tile(1 - jnp.eye(n)[0], (T - k, 1))]
    )


@pytest.mark.parametrize("n", [2, 10, 1000])
def test_regret_is_a_substantial_fraction_of_the_bound(n):
    # The bound holds, and is not loose by much on this sequence: the realised regret is about half
    # of sqrt(2 T ln n) (for losses in [0, 1] no sequence can push Hedge's regret past ln(n)/eta +
    # eta T/8, i.e. 5/8 of the bound, so the bound's constant is pinned by the hand values above).
    T = 2000
    losses = _two_phase_losses(T, n, T // 4)
    learner = experts.hedge(jnp.sqrt(2 * jnp.log(n) / T))
    _, trace = core.run(learner, learner.init(jnp.zeros(n)), None, losses)
    regret = float(metrics.regret(trace.loss, losses)[-1])
    bound = float(theory.hedge_regret_bound(T, n))
    assert 0.48 * bound <= regret <= bound
