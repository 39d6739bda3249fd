"""The online learners' rows of the conformance matrix (run by ``tests/test_conformance.py``).

Each learner joins with one row: a factory of its numeric hyperparameter, values for a sweep, and a
stream it can take. Guarantees and reference agreement live in the per-learner test files.
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxlearn import datasets, kernels, losses, online
from tests.conformance import Case


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
