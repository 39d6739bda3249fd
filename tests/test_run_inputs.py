"""``core.run``'s compiled programs and checks are reused where that is safe: a fresh ``trace_fn`` lambda
per call compiles once (counted with the jitted loop's cache size, never timed), while a different
closed-over value, default or global compiles anew and gives its own answer; the check of the state
against ``learner.init`` traces ``init`` once per learner and example shape."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, online

X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -2.0], [2.0, 1.0]], np.float32)
Y = np.array([1.0, -1.0, -1.0, 1.0], np.float32)
LEARNER = online.perceptron(0.5)
STATE = LEARNER.init(X[0])
SCALE = 2.0


def _compiles(jitted, calls):
    before = jitted._cache_size()
    results = [call() for call in calls]
    return jitted._cache_size() - before, results


@pytest.mark.parametrize("block_size, jitted", [(0, core._run_scan), (2, core._run_blocked)])
def test_a_fresh_lambda_per_call_compiles_once(block_size, jitted):
    def call():
        return core.run(
            LEARNER, STATE, X, Y, block_size=block_size, trace_fn=lambda info: info.loss * 3.0
        )[1]

    count, traces = _compiles(jitted, [call] * 4)
    assert count <= 1  # 0 when an earlier test compiled the same program
    for trace in traces:
        np.testing.assert_array_equal(trace, traces[0])


def test_a_different_closed_over_value_is_another_program():
    def call(c):
        return lambda: core.run(
            LEARNER, STATE, X, Y, block_size=0, trace_fn=lambda info: info.loss * c
        )[1]

    count, (two, three, two_again) = _compiles(core._run_scan, [call(2.0), call(3.0), call(2.0)])
    assert count == 2
    np.testing.assert_array_equal(three, 1.5 * two)
    np.testing.assert_array_equal(two_again, two)


def _loss_times(trace_fn):
    return core.run(LEARNER, STATE, X, Y, block_size=0, trace_fn=trace_fn)[1]


def test_defaults_globals_and_mutable_values_are_part_of_the_program():
    """Each distinct default or global value compiles once and gives its own answer; a function reading
    a NumPy array (mutable) is compiled per function object, so it sees the array's new values."""
    global SCALE
    loss = _loss_times(lambda i: i.loss)
    before = core._run_scan._cache_size()
    for c in (5, 7, 5, 7):
        np.testing.assert_array_equal(_loss_times(lambda i, c=c: i.loss * c), c * loss)
    for SCALE in (2.0, 4.0, 2.0):  # noqa: B007 - the lambda reads the global
        np.testing.assert_array_equal(_loss_times(lambda i: i.loss * SCALE), SCALE * loss)  # noqa: B023
    assert core._run_scan._cache_size() - before <= 4  # 5, 7, 2.0, 4.0 (each at most once)
    weights = np.ones(4, np.float32)
    first = _loss_times(lambda i: i.loss + weights.sum())
    weights[:] = 2.0
    np.testing.assert_array_equal(_loss_times(lambda i: i.loss + weights.sum()), first + 4.0)


def test_the_state_check_traces_init_once_per_shape():
    traced = []

    def init(example_x, key=None):
        traced.append(1)  # runs when init is traced, not when a compiled program runs
        return online.perceptron(0.5).init(example_x)

    learner = LEARNER._replace(init=init)
    state = online.perceptron(0.5).init(X[0])
    for _ in range(3):
        core.run(learner, state, X, Y)
    assert len(traced) == 1
    core.run(learner, online.perceptron(0.5).init(jnp.ones(3)), np.ones((2, 3), np.float32), Y[:2])
    assert len(traced) == 2
