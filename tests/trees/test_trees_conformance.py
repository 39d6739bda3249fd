"""The batch conformance checks (DESIGN.md section 6) for the trees and the nearest-neighbour rules.

These learners have no numeric hyperparameter (depth, k, the number of trees and classes are structural),
so the vmap-over-a-hyperparameter check does not apply; every row runs the other checks: ``fit`` under
``jit`` equals ``fit`` interpreted op by op, ``vmap`` over keys equals a loop, no recompilation on a second
fit (or from a second learner), params' dtypes and shapes in float32 and float64, and bad input.
"""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import pytest

from jaxlearn import neighbors
from jaxlearn.trees import _forest, _tree, decision_tree, random_forest
from tests.batch_conformance import (
    BatchCase,
    BatchConformance,
)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _classes(key, n, dtype):
    X = jax.random.normal(key, (n, 3), dtype)
    return X, (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(jnp.int32)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _targets(key, n, dtype):
    X = jax.random.normal(key, (n, 3), dtype)
    return X, jnp.sin(X[:, 0]) + X[:, 1]


def _row(name, factory, compiled, data=_classes, labels=(0, 1), small=None):
    # the factory takes no numeric hyperparameter: `h` is ignored
    interpreted = None if small is None else (lambda h: small())
    return BatchCase(name, lambda h: factory(), (0.0,), data, compiled, labels=labels, small=interpreted)


CASES = [
    _row("decision_tree", lambda: decision_tree(3, num_classes=2), _tree._fit),
    _row("random_forest", lambda: random_forest(3, 2, num_classes=2), _forest._fit),
    _row("knn", lambda: neighbors.knn(3, query_chunk=16, num_classes=2), neighbors._store),
    _row(
        "knn_regressor", lambda: neighbors.knn_regressor(3, query_chunk=16), neighbors._store, _targets, None
    ),
]


class TestTreesConformance(BatchConformance):
    CASES = CASES
    # no numeric hyperparameter: the rows pass a dummy, so there is no sweep to vmap over
    test_vmap_over_hyperparameter_equals_loop = None

    def test_fit_under_jit_equals_no_jit(self, case):
        if case.name == "random_forest":
            pytest.skip(
                "interpreted op by op in the decision_tree row; see test_forest_fit_under_jit_equals_fit"
            )
        super().test_fit_under_jit_equals_no_jit(case)


def test_forest_fit_under_jit_equals_fit():
    # The forest is `jax.vmap` of the tree's growth, interpreted op by op in the row above; running
    # the vmapped program op by op as well would cost a minute of compilations of single operations.
    case = next(c for c in CASES if c.name == "random_forest")
    X, y = case.sample()
    learner = case.learner()
    key = jax.random.PRNGKey(3)
    chex.assert_trees_all_equal(jax.jit(learner.fit)(key, X, y), learner.fit(key, X, y))
