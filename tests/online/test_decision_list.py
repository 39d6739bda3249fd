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


def random_decision_list(rng, n, L):
    """A target of length L: L - 1 rules on distinct variables (random sign and consequent), then
    T => b, b differing from the consequent before it (so that rule matters). Returns
    ``(var, negated, consequent)``; ``consequent`` has the default last."""
    var = rng.permutation(n)[: L - 1]
    negated = rng.random(L - 1) < 0.5
    consequent = rng.integers(0, 2, L).astype(np.int32)
    if L > 1:
        consequent[-1] = 1 - consequent[-2]
    return var, negated, consequent


def rule_index(target, n):
    """Where each rule of the target sits in the learner's 4n + 2 rules."""
    var, negated, consequent = target
    literal = 4 * var + 2 * negated + 1 - consequent[:-1]
    return np.concatenate([literal, 4 * n + 1 - consequent[-1:]])


def evaluate(target, X):
    """The decision list on every row of ``X``: the consequent of the first rule whose literal holds."""
    var, negated, consequent = target
    fires = (np.asarray(X)[:, var] > 0) != negated
    fires = np.concatenate([fires, np.ones((fires.shape[0], 1), bool)], axis=1)
    return consequent[np.argmax(fires, axis=1)]


def decision_list_stream(seed, T, n, L):
    """Uniform examples labelled by a random target (NumPy's seeded generator: no compilation)."""
    rng = np.random.default_rng(seed)
    target = random_decision_list(rng, n, L)
    X = (rng.random((T, n)) < 0.5).astype(np.float32)
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
    both = jax.vmap(lambda X, y: core.run(learner, state0, X, y))(
        jnp.stack([X, X]), jnp.stack([y, y])
    )
    np.testing.assert_array_equal(both[0].level, jnp.stack([state.level, state.level]))
    np.testing.assert_array_equal(both[1].prediction, [[1, 0], [1, 0]])


def check_level_facts(level, mistake, index, L):
    """Balcan's three facts, round by round (``level`` of shape (runs, rounds, 4n + 2)): a mistake
    moves at least one rule one level down and a correct round none; the j-th target rule stays
    within level j; no rule goes below level L + 1."""
    before = np.concatenate([np.zeros_like(level[:, :1]), level[:, :-1]], axis=1)
    step = level - before
    assert np.all((step == 0) | (step == 1))
    moved = step.sum(axis=2)
    assert np.all(np.where(mistake, moved >= 1, moved == 0))
    target_levels = np.take_along_axis(level, index[:, None, :], axis=2)
    assert np.all(target_levels <= np.arange(L))  # 0-based: level j - 1 is Balcan's level j
    assert level.max() <= L


@pytest.mark.parametrize("n,L", [(3, 1), (6, 3), (12, 5)])
def test_mistake_bound_and_level_facts_on_random_targets(n, L):
    learner = online.decision_list(n)
    X, y, targets = zip(*(decision_list_stream(s, 1500, n, L) for s in range(8)))
    states, infos = jax.vmap(lambda X, y: scan_states(learner, learner.init(X[0]), X, y))(
        np.stack(X), np.stack(y)
    )
    mistake = np.asarray(infos.mistake)
    mistakes = mistake.sum(axis=1)
    assert np.all(mistakes <= float(theory.decision_list_bound(n, L)))
    assert mistakes.max() >= 1  # (a target T => 1 can cost no mistake: ties predict 1)
    index = np.stack([rule_index(t, n) for t in targets])
    check_level_facts(np.asarray(states.level), mistake, index, L)


@pytest.mark.parametrize("n,L", [(4, 2), (8, 4)])
def test_mistake_bound_against_an_adaptive_adversary(n, L):
    # Each round the adversary shows a pool example the current hypothesis gets wrong, if any.
    X, y, target = decision_list_stream(L, 2000, n, L)
    X, y = jnp.asarray(X), jnp.asarray(y)
    learner = online.decision_list(n)

    def violation(state, X, y):
        return (jax.vmap(learner.predict, (None, 0))(state, X) != y).astype(jnp.float32)

    rounds = int(theory.decision_list_bound(n, L)) + 10
    state, trace = adversarial_run(learner, learner.init(X[0]), X, y, rounds, violation)
    assert 2 <= int(trace.mistake.sum()) <= theory.decision_list_bound(n, L)
    # more rounds than the bound: the adversary ran out of wrong examples
    np.testing.assert_array_equal(jax.vmap(learner.predict, (None, 0))(state, X), y)
    level = np.asarray(state.level)
    assert level.max() <= L and np.all(level[rule_index(target, n)] <= np.arange(L))


def test_disjunction_is_learned():
    # x3 or x5 is the decision list x3 => 1, x5 => 1, T => 0 (L = 3).
    X = (np.random.default_rng(0).random((2000, 10)) < 0.3).astype(np.float32)
    y = (X[:, 2] + X[:, 4] > 0).astype(np.int32)
    learner = online.decision_list(10)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    assert int(trace.mistake.sum()) <= theory.decision_list_bound(10, 3)
    assert not bool(trace.mistake[1000:].any())
    np.testing.assert_array_equal(core.predict_batch(learner, state, X), y)


def test_rejects_bad_inputs():
    X, y, _ = decision_list_stream(0, 50, 6, 3)
    learner = online.decision_list(6)
    state = learner.init(X[0])
    with pytest.raises(
        ValueError, match=r"`ys` in \{0, 1\}, found values \{-1, 1\}.*use `\(y \+ 1\) // 2`"
    ):
        core.run(learner, state, X, 2 * y - 1)
    with pytest.raises(ValueError, match=r"`xs` in \{0, 1\}, found values \{-1, 0, 1\}"):
        core.run(learner, state, X - np.roll(X, 1, axis=0), y)
    with pytest.raises(ValueError, match=r"`xs` with n=6 features .* got 7"):
        core.run(learner, state, np.concatenate([X, X[:, :1]], axis=1), y)
    with pytest.raises(ValueError, match=r"`example_x` of shape \(n,\) = \(6,\)"):
        learner.init(X)
    with pytest.raises(ValueError, match=r"expected `n` an integer in \[1, inf\)"):
        online.decision_list(0)
