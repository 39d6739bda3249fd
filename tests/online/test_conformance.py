"""The conformance matrix (DESIGN.md section 6) over every online learner.

Each learner joins with one row: a factory of its numeric hyperparameter, values for a sweep, and a
stream it can take. The checks are shared with the other families (``tests/conformance.py``);
guarantees (item 5) and reference agreement (item 6) live in the per-learner files.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from jaxlearn import core, datasets, kernels, losses, online
from tests.conformance import (
    Case,
    check_chunked_stream,
    check_no_recompilation,
    check_run_equals_python_loop,
    check_state_stable,
    check_vmap_over_hyperparameter,
)


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
cases = pytest.mark.parametrize("case", LEARNERS, ids=IDS)


@cases
def test_run_equals_python_loop(case):
    check_run_equals_python_loop(case)


@cases
def test_vmap_over_hyperparameter_equals_loop(case):
    check_vmap_over_hyperparameter(case)


@cases
def test_no_recompilation_on_second_call(case):
    check_no_recompilation(case)


@cases
def test_state_structure_and_dtype_stable(case, dtype):
    check_state_stable(case, dtype)


@cases
def test_chunked_stream_equals_one_call(case):
    check_chunked_stream(case)


@cases
def test_predict_batch_matches_predict(case):
    X, y = case.stream()
    learner = case.make(case.hparams[0])
    state, _ = core.run(learner, learner.init(X[0]), X, y)
    batch = core.predict_batch(learner, state, X)
    one = jnp.stack([learner.predict(state, x) for x in X[:5]])
    assert jnp.allclose(batch[:5], one, rtol=1e-5)
    assert batch.shape[0] == X.shape[0]
