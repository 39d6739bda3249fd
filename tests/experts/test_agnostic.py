"""The agnostic learner of UML Theorem 21.10: Lemma 21.13, Corollary 21.14 and the regret bound."""

import math

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, theory
from jaxlearn.experts._agnostic import agnostic_experts, expert_index_sets
from jaxlearn.experts._soa import littlestone_dimension, soa

from .test_soa import FIGURE_21_1, _random_class, _thresholds

CLASSES = {
    "figure_21_1": FIGURE_21_1,
    "thresholds_5": _thresholds(5),
    "singletons_5": np.eye(5, dtype=np.int32),
    "random_5x6": _random_class(1, 5, 6),
}


def _stream(H, seed, T, noise):
    rng = np.random.default_rng(seed)
    xs = rng.integers(0, H.shape[1], T).astype(np.int32)
    ys = H[rng.integers(H.shape[0]), xs] ^ (rng.random(T) < noise)
    return jnp.asarray(xs), jnp.asarray(ys.astype(np.int32))


def _expert_by_python(H, xs, flips, tie):
    """Expert(flips) of UML section 21.2.1 from its definition, with the given tie rule."""
    alive, out = np.ones(H.shape[0], bool), []
    for t, x in enumerate(xs):
        sides = [littlestone_dimension(H, alive & (H[:, x] == r)) for r in (0, 1)]
        y_tilde = int(sides[1] > sides[0]) if sides[0] != sides[1] else tie
        y_hat = 1 - y_tilde if t in flips else y_tilde
        out.append(y_hat)
        alive &= H[:, x] == y_hat
    return np.asarray(out)


def test_expert_index_sets():
    sets = expert_index_sets(4, 2)
    assert sets.shape == (1 + 4 + 6, 2)
    np.testing.assert_array_equal(sets[:6], [[-1, -1], [0, -1], [1, -1], [2, -1], [3, -1], [0, 1]])
    assert expert_index_sets(5, 0).shape == (1, 0)
    assert len(expert_index_sets(20, 2)) == sum(math.comb(20, L) for L in range(3))


@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("seed", range(2))
def test_lemma_21_13_some_expert_is_every_hypothesis(name, seed):
    # Run SOA on (x_t, h(x_t)), read off its mistake rounds: Expert(those rounds) predicts h(x_t).
    H, T = CLASSES[name], 14
    ldim = littlestone_dimension(H)
    xs, ys = _stream(H, seed, T, 0.5)
    learner = agnostic_experts(H, T)
    _, trace = core.run(learner, learner.init(xs[0], jax.random.PRNGKey(seed)), xs, ys)
    sets, advice = expert_index_sets(T, ldim), np.asarray(trace.advice)
    truth = H[:, np.asarray(xs)]  # (|H|, T): h(x_t) for every h
    learner_soa = soa(H)
    _, soa_trace = jax.vmap(lambda y: core.run(learner_soa, learner_soa.init(xs[0]), xs, y))(truth)
    soa_mistakes = np.asarray(soa_trace.mistake)
    for h in range(H.shape[0]):
        rounds = np.flatnonzero(soa_mistakes[h])
        assert len(rounds) <= ldim
        row = np.concatenate([rounds, -np.ones(ldim - len(rounds), np.int32)])
        (expert,) = np.flatnonzero((sets == row).all(axis=1))
        np.testing.assert_array_equal(advice[:, expert], truth[h])
        np.testing.assert_array_equal(
            _expert_by_python(H, np.asarray(xs), set(rounds), tie=1), truth[h]
        )


def test_the_books_tie_rule_in_expert_breaks_lemma_21_13():
    # UML's Expert breaks ties with 0 while its SOA uses 1 (SPEC 3.6): on Figure 21.1, x = (v1, v2),
    # SOA's first prediction is a tie, so the book's Expert(mistakes of SOA) misses h.
    H, xs = FIGURE_21_1, np.array([0, 1, 2])
    broken = 0
    for h in H:
        learner = soa(H)
        _, trace = core.run(learner, learner.init(0), jnp.asarray(xs), jnp.asarray(h[xs]))
        rounds = set(np.flatnonzero(np.asarray(trace.mistake)).tolist())
        np.testing.assert_array_equal(_expert_by_python(H, xs, rounds, tie=1), h[xs])
        broken += not np.array_equal(_expert_by_python(H, xs, rounds, tie=0), h[xs])
    assert broken > 0


def _regret_check(H, T, xs, ys, trace):
    ldim = littlestone_dimension(H)
    d = len(expert_index_sets(T, ldim))
    assert T > 2 * math.log(d)  # the assumption of Theorem 21.11
    ys = np.asarray(ys)
    best_h = np.abs(H[:, np.asarray(xs)] - ys[None, :]).sum(axis=1).min()
    best_expert = np.abs(np.asarray(trace.advice) - ys[:, None]).sum(axis=0).min()
    assert best_expert <= best_h  # Corollary 21.14
    expected = np.asarray(trace.expected_loss, np.float64)
    np.testing.assert_allclose(expected, np.abs(np.asarray(trace.probability) - ys), atol=1e-5)
    regret = expected.sum() - best_h
    bound = math.sqrt(2 * math.log(d) * T)
    assert regret <= bound + 1e-4
    assert bound <= float(theory.agnostic_regret_bound(T, ldim))
    return regret


@pytest.mark.parametrize("name", CLASSES)
def test_regret_on_noisy_streams(name):
    H, T = CLASSES[name], 20
    learner = agnostic_experts(H, T)
    streams = [_stream(H, 10 + seed, T, 0.25) for seed in range(16)]
    xs, ys = (jnp.stack(a) for a in zip(*streams))
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    _, trace = jax.vmap(lambda x, y, k: core.run(learner, learner.init(x[0], k), x, y))(
        xs, ys, keys
    )
    xs, ys, trace = jax.device_get((xs, ys, trace))
    for i in range(16):
        _regret_check(H, T, xs[i], ys[i], jax.tree_util.tree_map(lambda a, i=i: a[i], trace))


@pytest.mark.parametrize("name", CLASSES)
def test_regret_against_an_adaptive_adversary(name):
    # The adversary sees p_t (not the coin) and labels against it: y_t = 1[p_t < 1/2].
    H, T = CLASSES[name], 20
    learner = agnostic_experts(H, T)
    xs, _ = _stream(H, 3, T, 0.0)

    def body(state, x):
        y = (learner.predict(state, x) < 0.5).astype(jnp.int32)
        state, info = learner.update(state, x, y)
        return state, (y, info)

    state0 = learner.init(xs[0], jax.random.PRNGKey(1))
    _, (ys, trace) = jax.device_get(jax.jit(lambda s: jax.lax.scan(body, s, xs))(state0))
    regret = _regret_check(H, T, xs, ys, trace)
    assert trace.expected_loss.sum() >= T / 2 - 1e-4  # the adversary does hurt the learner
    assert regret > 0


def test_run_equals_python_loop_and_chunks():
    H, T = _thresholds(5), 10
    learner = agnostic_experts(H, T)
    xs, ys = _stream(H, 0, T, 0.2)
    state = learner.init(xs[0], jax.random.PRNGKey(2))
    got = core.run(learner, state, xs, ys)
    update, infos, s = jax.jit(learner.update), [], state
    for x, y in zip(xs, ys):
        s, info = update(s, x, y)
        infos.append(info)
    chex.assert_trees_all_close(got, (s, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *infos)))
    s, traces = state, []
    for lo, hi in [(0, 4), (4, 10)]:
        s, trace = core.run(learner, s, xs[lo:hi], ys[lo:hi])
        traces.append(trace)
    chex.assert_trees_all_close(
        (s, jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces)), got
    )


def test_vmap_over_eta_equals_loop():
    H, T = FIGURE_21_1, 12
    xs, ys = _stream(H, 4, T, 0.3)
    key = jax.random.PRNGKey(0)
    etas = jnp.array([0.1, 1.0], jnp.float32)

    def play(eta):
        learner = agnostic_experts(H, T, eta)
        return core.run(learner, learner.init(xs[0], key), xs, ys)[1].expected_loss

    swept = jax.vmap(play)(etas)
    for i, eta in enumerate(etas):
        np.testing.assert_allclose(swept[i], play(eta), rtol=1e-5, atol=1e-6)


def test_bad_inputs_and_limits():
    H = _thresholds(5)
    learner = agnostic_experts(H, 10)
    with pytest.raises(ValueError, match="needs a `key`"):
        learner.init(0)
    state = learner.init(0, jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match=r"expected `xs` in \[0, 5\)"):
        core.run(learner, state, jnp.array([0, 7]), jnp.array([0, 1]))
    with pytest.raises(ValueError, match=r"expected `ys` in \{0, 1\}"):
        core.run(learner, state, jnp.array([0, 1]), jnp.array([0, 2]))
    with pytest.raises(ValueError, match="expected at most 100 experts, got 211"):
        agnostic_experts(H, 20, max_experts=100)
    with pytest.raises(ValueError, match=r"expected `horizon` an integer in \[1, inf\)"):
        agnostic_experts(H, 0)
    with pytest.raises(ValueError, match="expected `H` with at least one hypothesis"):
        agnostic_experts(np.zeros((0, 4), np.int32), 10)
