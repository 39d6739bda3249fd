"""Conjunctions (Balcan section 2.1): the golden first mistake, the n + 1 bound and the invariant on
random and adaptive streams, a stream that attains n + 1, and Balcan's lower-bound adversary."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, online, theory

from .adversary import adversarial_run


def random_conjunction(rng, n, k):
    """A target over ``k`` of ``n`` variables, each literal negated with probability 1/2, as a
    ``(2n,)`` int32 mask in the learner's layout (``x_i`` at ``i``, ``~x_i`` at ``n + i``)."""
    chosen = np.zeros(n, bool)
    chosen[rng.choice(n, k, replace=False)] = True
    negated = rng.random(n) < 0.5
    return np.concatenate([chosen & ~negated, chosen & negated]).astype(np.int32)


def evaluate(target, X):
    """The conjunction ``target`` (a literal mask) on every row of ``X`` in {0,1}^n."""
    X = np.asarray(X) > 0
    truth = np.concatenate([X, ~X], axis=-1)
    return np.all(truth | (np.asarray(target) == 0), axis=-1).astype(np.int32)


def conjunction_stream(seed, T, n, k):
    """``T`` uniform examples, half of them then set to satisfy the target (else positives are rare).
    NumPy's seeded generator: tiny data, and no compilation per shape."""
    rng = np.random.default_rng(seed)
    target = random_conjunction(rng, n, k)
    X = rng.random((T, n)) < 0.5
    planted = (X | (target[:n] == 1)) & (target[n:] == 0)
    X = np.where(rng.random((T, 1)) < 0.5, planted, X).astype(np.float32)
    return X, evaluate(target, X), target


def scan_states(learner, state, X, y):
    """Run the stream keeping every state, to check invariants round by round."""

    def step(s, xy):
        s, info = learner.update(s, *xy)
        return s, (s, info)

    return jax.jit(lambda s: jax.lax.scan(step, s, (X, y)))(state)[1]


def test_golden_first_mistake_on_1001():
    # Balcan: the first mistake on 1001 leaves h = x1 ~x2 ~x3 x4; then 1000 (positive) deletes x4,
    # and 1100 (negative) is predicted negative since ~x2 is False on it.
    X = jnp.array([[1, 0, 0, 1], [1, 0, 0, 0], [1, 1, 0, 0]], jnp.float32)
    y = jnp.array([1, 1, 0])
    learner = online.conjunction(4)
    state0 = learner.init(X[0])
    np.testing.assert_array_equal(state0.literals, np.ones(8))
    first, info = jax.jit(learner.update)(state0, X[0], y[0])
    assert int(info.prediction) == 0 and bool(info.mistake) and not bool(info.inconsistent)
    np.testing.assert_array_equal(first.literals.reshape(2, 4), [[1, 0, 0, 1], [0, 1, 1, 0]])
    state, trace = core.run(learner, state0, X, y)
    np.testing.assert_array_equal(trace.prediction, [0, 0, 0])
    np.testing.assert_array_equal(trace.mistake, [True, True, False])
    np.testing.assert_array_equal(trace.loss, [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(state.literals.reshape(2, 4), [[1, 0, 0, 0], [0, 1, 1, 0]])
    assert int(state.step) == 3


def test_false_positive_is_flagged_and_leaves_the_state():
    learner = online.conjunction(4)
    x = jnp.array([1.0, 0.0, 0.0, 1.0])
    state, _ = learner.update(learner.init(x), x, 1)  # h = x1 ~x2 ~x3 x4, h(1001) = 1
    new, info = jax.jit(learner.update)(state, x, 0)  # not a conjunction: no crash
    assert int(info.prediction) == 1 and bool(info.mistake) and bool(info.inconsistent)
    np.testing.assert_array_equal(new.literals, state.literals)
    assert int(new.step) == int(state.step) + 1


@pytest.mark.parametrize("n,k", [(5, 0), (10, 3), (30, 6)])
def test_mistake_bound_and_invariant_on_random_targets(n, k):
    # Several targets at once: the stream generator and the learner are vmapped over seeds.
    learner = online.conjunction(n)
    X, y, targets = (
        np.stack(a) for a in zip(*(conjunction_stream(s, 1500, n, k) for s in range(8)))
    )
    states, infos = jax.vmap(lambda X, y: scan_states(learner, learner.init(X[0]), X, y))(X, y)
    literals, mistake = np.asarray(states.literals), np.asarray(infos.mistake)
    mistakes = mistake.sum(axis=1)
    assert np.all((1 <= mistakes) & (mistakes <= float(theory.conjunction_bound(n))))
    assert not np.any(infos.inconsistent)
    # literals(c) is a subset of literals(h) after every round of every run
    assert np.all(literals >= targets[:, None, :])
    # h only changes on mistakes, and then only by deleting literals
    before = np.concatenate([np.ones_like(literals[:, :1]), literals[:, :-1]], axis=1)
    deleted = (before - literals).sum(axis=2)
    assert np.all(deleted >= 0) and np.all((deleted == 0) | mistake)


@pytest.mark.parametrize("n,k", [(8, 2), (20, 4)])
def test_mistake_bound_against_an_adaptive_adversary(n, k):
    # The pool is labelled by the target; each round the adversary shows a pool example the learner
    # gets wrong if there is one, preferring positives (the only mistakes h can make).
    X, y, target = conjunction_stream(k, 3000, n, k)
    X, y = jnp.asarray(X), jnp.asarray(y)
    learner = online.conjunction(n)

    def violation(state, X, y):
        wrong = jax.vmap(learner.predict, (None, 0))(state, X) != y
        return wrong.astype(jnp.float32) + 0.5 * y.astype(jnp.float32)

    state, trace = adversarial_run(learner, learner.init(X[0]), X, y, 200, violation)
    assert 2 <= int(trace.mistake.sum()) <= theory.conjunction_bound(n)
    assert not bool(trace.inconsistent.any())
    assert np.all(np.asarray(state.literals) >= target)
    np.testing.assert_array_equal(jax.vmap(learner.predict, (None, 0))(state, X), y)


def test_bound_is_attained():
    # Target: the empty conjunction (always 1). 11..1 leaves x1..xn; then zeroing one more bit
    # per round deletes one literal per round: n + 1 mistakes, Balcan's count exactly.
    n = 7
    X = jnp.tril(jnp.ones((n + 1, n)), k=-1)[::-1]  # rows 1111111, 1111110, ..., 0000000
    learner = online.conjunction(n)
    state, trace = core.run(learner, learner.init(X[0]), X, jnp.ones(n + 1, jnp.int32))
    assert int(trace.mistake.sum()) == n + 1 == int(theory.conjunction_bound(n))
    np.testing.assert_array_equal(state.literals, np.zeros(2 * n))


def balcan_lower_bound(learner, n):
    """Balcan's adversary: example i is all ones but bit i; its label is the opposite of the
    prediction. Returns the examples, labels, trace and the monotone target built after the fact
    (x_i in it iff the learner predicted 1 on example i)."""
    X = 1.0 - jnp.eye(n)

    def step(state, x):
        y = 1 - learner.predict(state, x)
        state, info = learner.update(state, x, y)
        return state, (y, info)

    _, (y, trace) = jax.lax.scan(step, learner.init(X[0]), X)
    target = jnp.concatenate([trace.prediction == 1, jnp.zeros((n,), bool)]).astype(jnp.int32)
    return X, y, trace, target


@pytest.mark.parametrize(
    "make",
    [online.conjunction, online.decision_list, lambda n: online.winnow()],
    ids=["conj", "dl", "winnow"],
)
def test_lower_bound_adversary_forces_n_mistakes(make):
    n = 9
    X, y, trace, target = balcan_lower_bound(make(n), n)
    np.testing.assert_array_equal(
        y, evaluate(target, X)
    )  # the stream is consistent with the target
    assert int(trace.mistake.sum()) == n


def test_chunks_and_jit_give_the_same_run():
    X, y, _ = conjunction_stream(3, 300, 12, 3)
    learner = online.conjunction(12)
    whole = core.run(learner, learner.init(X[0]), X, y)
    state, first = core.run(learner, learner.init(X[0]), X[:100], y[:100])
    state, second = core.run(learner, state, X[100:], y[100:])
    np.testing.assert_array_equal(whole[0].literals, state.literals)
    np.testing.assert_array_equal(
        whole[1].mistake, jnp.concatenate([first.mistake, second.mistake])
    )


def test_rejects_bad_inputs():
    X, y, _ = conjunction_stream(0, 50, 10, 2)
    learner = online.conjunction(10)
    state = learner.init(X[0])
    with pytest.raises(
        ValueError, match=r"`ys` in \{0, 1\}, found values \{-1, 1\}.*use `\(y \+ 1\) // 2`"
    ):
        core.run(learner, state, X, 2 * y - 1)
    with pytest.raises(ValueError, match=r"`xs` in \{0, 1\}, found values \{0, 0.5\}"):
        core.run(learner, state, X * 0.5, y)
    with pytest.raises(ValueError, match=r"`xs` with n=10 features .* got 9"):
        core.run(learner, state, X[:, :9], y)
    with pytest.raises(ValueError, match=r"`xs` of shape \(n_examples, 10\)"):
        core.run(learner, state, X[:, 0], y)
    with pytest.raises(ValueError, match=r"`example_x` with n=10 features .* got 11"):
        learner.init(jnp.zeros(11))
    with pytest.raises(ValueError, match=r"`x` with n=10 features"):
        learner.predict(state, jnp.zeros(3))
    for bad in (0, -2):
        with pytest.raises(ValueError, match=r"expected `n` an integer in \[1, inf\)"):
            online.conjunction(bad)
    for bad in (2.5, True):
        with pytest.raises(TypeError, match=r"expected `n` an integer in \[1, inf\)"):
            online.conjunction(bad)
