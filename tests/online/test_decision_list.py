"""Decision lists (Balcan section 2.2): the worked example as a golden trace, the (4n + 2)(L + 1)
bound and the level facts of the analysis on random and adaptive streams."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, online, theory

from .adversary import adversarial_run
from .test_conjunction import scan_states


def rule_names(n):
    """The learner's rule order: x_i=>1, x_i=>0, ~x_i=>1, ~x_i=>0 for each i, then T=>1, T=>0."""
    names = [f"{neg}x{i}=>{b}" for i in range(1, n + 1) for neg in ("", "~") for b in (1, 0)]
    return names + ["T=>1", "T=>0"]


def levels(state, n):
    """The hypothesis as Balcan writes it: a list of sets of rule names, first level first."""
    level = np.asarray(state.level)
    names = rule_names(n)
    return [{names[r] for r in np.flatnonzero(level == k)} for k in range(level.max() + 1)]


def random_decision_list(key, n, L):
    """A target of length L: L - 1 rules on distinct variables (random sign and consequent), then
    T => b. Returns ``(var, negated, consequent)``; ``consequent`` has the default last."""
    k_var, k_neg, k_b = jax.random.split(key, 3)
    var = jax.random.permutation(k_var, n)[: L - 1]
    negated = jax.random.bernoulli(k_neg, 0.5, (L - 1,))
    consequent = jax.random.bernoulli(k_b, 0.5, (L,)).astype(jnp.int32)
    return var, negated, consequent


def rule_index(target, n):
    """Where each rule of the target sits in the learner's 4n + 2 rules."""
    var, negated, consequent = target
    literal = 4 * var + 2 * negated.astype(jnp.int32) + 1 - consequent[:-1]
    return jnp.concatenate([literal, jnp.array([4 * n + 1]) - consequent[-1:]])


def evaluate(target, X):
    """The decision list on every row of ``X``: the consequent of the first rule whose literal holds."""
    var, negated, consequent = target
    fires = (X[:, var] > 0) != negated
    fires = jnp.concatenate([fires, jnp.ones((X.shape[0], 1), bool)], axis=1)
    return consequent[jnp.argmax(fires, axis=1)]


def decision_list_stream(key, T, n, L):
    k_target, k_x = jax.random.split(key)
    target = random_decision_list(k_target, n, L)
    X = jax.random.bernoulli(k_x, 0.5, (T, n)).astype(jnp.float32)
    return X, evaluate(target, X), target


def test_golden_trace_of_balcans_example():
    # n = 2, target "x1 => False, else ~x2 => True, else False".
    X = jnp.array([[0, 1], [0, 0]], jnp.float32)
    y = jnp.array([0, 1])
    learner = online.decision_list(2)
    state0 = learner.init(X[0])
    assert levels(state0, 2) == [set(rule_names(2))]
    # 01 is negative: three firing rules say 1, three say 0; the tie predicts 1, a mistake.
    first, info = jax.jit(learner.update)(state0, X[0], y[0])
    assert int(info.prediction) == 1 and bool(info.mistake)
    assert levels(first, 2) == [
        {"x1=>1", "x1=>0", "~x1=>0", "x2=>0", "~x2=>1", "~x2=>0", "T=>0"},
        {"~x1=>1", "x2=>1", "T=>1"},
    ]
    # 00 is positive: at level 1, ~x2=>1 votes 1 against ~x1=>0, ~x2=>0, T=>0; predicts 0, a mistake.
    state, trace = core.run(learner, state0, X, y)
    np.testing.assert_array_equal(trace.prediction, [1, 0])
    np.testing.assert_array_equal(trace.mistake, [True, True])
    np.testing.assert_array_equal(trace.loss, [1.0, 1.0])
    assert levels(state, 2) == [
        {"x1=>1", "x1=>0", "x2=>0", "~x2=>1"},
        {"~x1=>1", "~x1=>0", "x2=>1", "~x2=>0", "T=>1", "T=>0"},
    ]
    # the same under vmap (two copies of the stream)
    both = jax.vmap(lambda X, y: core.run(learner, state0, X, y))(jnp.stack([X, X]), jnp.stack([y, y]))
    np.testing.assert_array_equal(both[0].level, jnp.stack([state.level, state.level]))
    np.testing.assert_array_equal(both[1].prediction, [[1, 0], [1, 0]])


def check_level_facts(states, infos, index, L):
    """Balcan's three facts, round by round: a mistake moves at least one rule one level down and a
    correct round none; the j-th target rule stays within level j; no rule goes below level L + 1."""
    level = jnp.concatenate([jnp.zeros_like(states.level[..., :1, :]), states.level], axis=-2)
    moved = (level[..., 1:, :] - level[..., :-1, :]).sum(axis=-1)
    assert bool(jnp.all(jnp.where(infos.mistake, moved >= 1, moved == 0)))
    target_levels = jnp.take_along_axis(states.level, index[..., None, :], axis=-1)
    assert bool(jnp.all(target_levels <= jnp.arange(L)))  # 0-based: level j - 1 is Balcan's level j
    assert int(states.level.max()) <= L


@pytest.mark.parametrize("n,L", [(3, 1), (6, 3), (12, 5)])
def test_mistake_bound_and_level_facts_on_random_targets(n, L):
    learner = online.decision_list(n)
    keys = jax.random.split(jax.random.PRNGKey(10 * n + L), 8)
    X, y, targets = jax.vmap(lambda key: decision_list_stream(key, 1500, n, L))(keys)
    states, infos = jax.vmap(lambda X, y: scan_states(learner, learner.init(X[0]), X, y))(X, y)
    mistakes = infos.mistake.sum(axis=1)
    assert bool(jnp.all(mistakes <= theory.decision_list_bound(n, L)))
    assert bool(jnp.all(mistakes >= 1))
    index = jax.vmap(lambda t: rule_index(t, n))(targets)
    check_level_facts(states, infos, index, L)


@pytest.mark.parametrize("n,L", [(4, 2), (8, 4)])
def test_mistake_bound_against_an_adaptive_adversary(n, L):
    # Each round the adversary shows a pool example the current hypothesis gets wrong, if any.
    X, y, target = decision_list_stream(jax.random.PRNGKey(L), 2000, n, L)
    learner = online.decision_list(n)

    def violation(state, X, y):
        return (jax.vmap(learner.predict, (None, 0))(state, X) != y).astype(jnp.float32)

    rounds = int(theory.decision_list_bound(n, L)) + 10
    state, trace = adversarial_run(learner, learner.init(X[0]), X, y, rounds, violation)
    assert 2 <= int(trace.mistake.sum()) <= theory.decision_list_bound(n, L)
    # more rounds than the bound: the adversary ran out of wrong examples
    np.testing.assert_array_equal(jax.vmap(learner.predict, (None, 0))(state, X), y)
    assert int(state.level.max()) <= L
    assert bool(jnp.all(state.level[rule_index(target, n)] <= jnp.arange(L)))


def test_disjunction_is_learned():
    # x3 or x5 is the decision list x3 => 1, x5 => 1, T => 0 (L = 3).
    X = jax.random.bernoulli(jax.random.PRNGKey(0), 0.3, (2000, 10)).astype(jnp.float32)
    y = (X[:, 2] + X[:, 4] > 0).astype(jnp.int32)
    learner = online.decision_list(10)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    assert int(trace.mistake.sum()) <= theory.decision_list_bound(10, 3)
    assert not bool(trace.mistake[1000:].any())
    np.testing.assert_array_equal(core.predict_batch(learner, state, X), y)


def test_rejects_bad_inputs():
    X, y, _ = decision_list_stream(jax.random.PRNGKey(0), 50, 6, 3)
    learner = online.decision_list(6)
    state = learner.init(X[0])
    with pytest.raises(ValueError, match=r"`ys` in \{0, 1\}, found values \{-1, 1\}; use `\(y \+ 1\) // 2`"):
        core.run(learner, state, X, 2 * y - 1)
    with pytest.raises(ValueError, match=r"`xs` in \{0, 1\}, found values \{-1, 0, 1\}"):
        core.run(learner, state, X - jnp.roll(X, 1, axis=0), y)
    with pytest.raises(ValueError, match=r"`xs` with n=6 features .* got 7"):
        core.run(learner, state, jnp.concatenate([X, X[:, :1]], axis=1), y)
    with pytest.raises(ValueError, match=r"`example_x` of shape \(n,\) = \(6,\)"):
        learner.init(X)
    with pytest.raises(ValueError, match=r"`n` \(the number of boolean variables\)"):
        online.decision_list(0)
