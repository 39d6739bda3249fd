"""The shared conformance matrix (DESIGN.md section 6) over every online learner.

Each learner joins with one row: a factory of its numeric hyperparameter, values for a sweep, and a
stream it can take. Guarantees (item 5) and reference agreement (item 6) live in the per-learner files.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, kernels, losses, online


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: Callable  # numeric hyperparameter -> Learner
    hparams: tuple
    data: Callable  # (key, n, dtype) -> (X, y)


def _noisy(key, n, dtype):
    X, y, _ = datasets.noisy_halfspace(key, n, 6, 0.1, dtype=dtype)
    return X, y


def _separable(key, n, dtype):
    X, y, _ = datasets.separable(key, n, 6, 0.1, dtype=dtype)
    return X, y


def _boolean(key, n, dtype):
    X, y, _ = datasets.disjunction(key, n, 12, 2)
    return X.astype(dtype), y


def _negated_conjunction(key, n, dtype):
    X, y, _ = datasets.disjunction(key, n, 12, 2)  # not (x_a or x_b) = ~x_a ~x_b: a conjunction
    return X.astype(dtype), 1 - y


LEARNERS = [
    Case("perceptron", lambda lr: online.perceptron(lr), (0.5, 1.0, 3.0), _noisy),
    Case(
        "perceptron_normalized",
        lambda lr: online.perceptron(lr, normalize=True),
        (0.5, 1.0, 3.0),
        _noisy,
    ),
    Case(
        "perceptron_schedule",
        lambda lr: online.perceptron(lambda t: lr / jnp.sqrt(t + 1)),
        (0.5, 2.0),
        _noisy,
    ),
    Case("margin_perceptron", lambda g: online.margin_perceptron(g), (0.05, 0.1, 0.3), _separable),
    Case(
        "kernel_perceptron",
        lambda s: online.kernel_perceptron(kernels.gaussian(s), budget=48),
        (0.2, 1.0, 5.0),
        _noisy,
    ),
    Case("winnow", lambda eta: online.winnow(eta), (1.5, 2.0, 4.0), _boolean),
    Case("conjunction", lambda _: online.conjunction(12), (0.0, 1.0), _negated_conjunction),
    Case("decision_list", lambda _: online.decision_list(12), (0.0, 1.0), _boolean),  # a disjunction
    Case(
        "ogd_hinge_ball",
        lambda eta: online.online_gradient_descent(losses.hinge, eta, projection=online.l2_ball(2.0)),
        (0.01, 0.1, 1.0),
        _noisy,
    ),
    Case(
        "ogd_logistic_schedule",
        lambda eta: online.online_gradient_descent(losses.logistic, lambda t: eta / jnp.sqrt(t + 1)),
        (0.1, 1.0),
        _noisy,
    ),
    Case(
        "ogd_squared_box",
        lambda eta: online.online_gradient_descent(losses.squared, eta, projection=online.box(-0.5, 0.5)),
        (0.01, 0.1),
        _noisy,
    ),
]
IDS = [case.name for case in LEARNERS]
N = 60


def _stream(case, dtype=jnp.float32, seed=0, n=N):
    return case.data(jax.random.PRNGKey(seed), n, dtype)


def _python_loop(learner, state, X, y):
    update = jax.jit(learner.update)  # one round at a time, driven from Python
    infos = []
    for t in range(X.shape[0]):
        state, info = update(state, X[t], y[t])
        infos.append(info)
    return state, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *infos)


@pytest.mark.parametrize("case", LEARNERS, ids=IDS)
def test_run_equals_python_loop(case):
    X, y = _stream(case)
    learner = case.make(case.hparams[0])
    state0 = learner.init(X[0])
    got = core.run(learner, state0, X, y)
    want = _python_loop(learner, state0, X, y)
    chex.assert_trees_all_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", LEARNERS, ids=IDS)
def test_vmap_over_hyperparameter_equals_loop(case):
    X, y = _stream(case)
    state0 = case.make(case.hparams[0]).init(X[0])
    hs = jnp.asarray(case.hparams, jnp.float32)
    swept = jax.vmap(lambda h: core.run(case.make(h), state0, X, y))(hs)
    for i, h in enumerate(case.hparams):
        one = core.run(case.make(jnp.float32(h)), state0, X, y)
        chex.assert_trees_all_close(
            jax.tree_util.tree_map(lambda a, i=i: a[i], swept), one, rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("case", LEARNERS, ids=IDS)
def test_no_recompilation_on_second_call(case):
    learner = case.make(case.hparams[0])
    X1, y1 = _stream(case, seed=1)
    X2, y2 = _stream(case, seed=2)
    core.run(learner, learner.init(X1[0]), X1, y1)
    size = core._run_scan._cache_size()
    core.run(learner, learner.init(X2[0]), X2, y2)
    assert core._run_scan._cache_size() == size


@pytest.mark.parametrize("case", LEARNERS, ids=IDS)
def test_state_structure_and_dtype_stable(case, dtype):
    X, y = _stream(case, dtype=dtype)
    learner = case.make(case.hparams[0])
    state = learner.init(X[0])
    for leaf in jax.tree_util.tree_leaves(state):
        assert leaf.dtype in (dtype, jnp.int32), leaf.dtype
    new_state, info = jax.jit(learner.update)(state, X[0], y[0])
    chex.assert_trees_all_equal_shapes_and_dtypes(state, new_state)
    final, trace = core.run(learner, state, X, y)
    chex.assert_trees_all_equal_shapes_and_dtypes(state, final)
    assert trace.loss.shape == (X.shape[0],)
    assert trace.prediction.shape == (X.shape[0],)
    assert all(np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree_util.tree_leaves(final))


@pytest.mark.parametrize("case", LEARNERS, ids=IDS)
def test_chunked_stream_equals_one_call(case):
    X, y = _stream(case, n=90)
    learner = case.make(case.hparams[0])
    state = learner.init(X[0])
    whole = core.run(learner, state, X, y)
    traces = []
    for lo, hi in [(0, 25), (25, 26), (26, 90)]:
        state, trace = core.run(learner, state, X[lo:hi], y[lo:hi])
        traces.append(trace)
    chunked = (state, jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces))
    chex.assert_trees_all_close(whole, chunked, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", LEARNERS, ids=IDS)
def test_predict_batch_matches_predict(case):
    X, y = _stream(case)
    learner = case.make(case.hparams[0])
    state, _ = core.run(learner, learner.init(X[0]), X, y)
    batch = core.predict_batch(learner, state, X)
    one = jnp.stack([learner.predict(state, x) for x in X[:5]])
    chex.assert_trees_all_close(batch[:5], one, rtol=1e-5)
    assert batch.shape[0] == X.shape[0]
