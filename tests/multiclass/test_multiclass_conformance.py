"""The batch conformance matrix (DESIGN.md section 6) over the multiclass learners.

Each learner joins with one row (``tests/batch_conformance.py``); labels are ``0..k-1``. The shared
``check_params_dtypes`` is written for binary scores of shape (n,): the multiclass version below checks
scores of shape (n, k) and ``predict == argmax(decision_function)`` instead.
"""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import linear
from jaxlearn.multiclass import (
    _perceptron,
    _svm,
    all_pairs,
    multiclass_perceptron,
    multiclass_svm,
    one_vs_all,
)
from tests.batch_conformance import (
    BatchCase,
    check_fit_jit_equals_no_jit,
    check_no_recompilation,
    check_rejects_bad_input,
    check_vmap_over_hyperparameter,
    check_vmap_over_keys,
)
from tests.multiclass.data import K, blobs

LAMS = tuple(np.geomspace(0.01, 1.0, 32).tolist())
LABELS = tuple(range(K))
DELTA = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
_separated = functools.partial(blobs, spread=0.3)


def _row(name, factory, hparams, compiled=None, data=blobs, **kwargs):
    """``factory(h, steps)``: the row uses 300 steps, its interpreted check 3."""
    return BatchCase(
        name,
        lambda h: factory(h, 300),
        hparams,
        data,
        compiled,
        small=lambda h: factory(h, 3),
        labels=LABELS,
        **kwargs,
    )


CASES = [
    # 8 values for the reductions: the loop of single fits the sweep is compared with dominates the cost
    _row(
        "one_vs_all_soft_svm",
        lambda lam, T: one_vs_all(linear.soft_svm(lam, T, fit_intercept=True), K),
        LAMS[::4],
    ),
    _row("all_pairs_soft_svm_mask", lambda lam, T: all_pairs(linear.soft_svm(lam, T), K), LAMS[::4]),
    _row("multiclass_svm", lambda lam, T: multiclass_svm(lam, T, K), LAMS, _svm._fit),
    _row(
        "multiclass_svm_cost_intercept",
        lambda lam, T: multiclass_svm(lam, T, K, delta=DELTA, fit_intercept=True),
        LAMS,
        _svm._fit,
    ),
    # no numeric hyperparameter: the sweep rebuilds the same learner (vmap must still work)
    _row(
        "multiclass_perceptron",
        lambda h, T: multiclass_perceptron(K, max_epochs=T),
        LAMS[:4],
        _perceptron._fit,
        data=_separated,
    ),
]
cases = pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])


def check_multiclass_params_dtypes(case: BatchCase, dtype):
    """Params are a NamedTuple in the data's dtype (ints int32), finite, with a structure that does not
    depend on the data; ``decision_function`` is (n, k) and ``predict`` its argmax, labels in 0..k-1."""
    X, y = case.sample(dtype=dtype)
    learner = case.learner()
    params = learner.fit(jax.random.PRNGKey(0), X, y)
    assert isinstance(params, tuple) and hasattr(params, "_fields"), type(params)
    for leaf in jax.tree_util.tree_leaves(params):
        assert leaf.dtype in (dtype, jnp.int32, jnp.bool_), (case.name, leaf.dtype)
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            assert np.isfinite(np.asarray(leaf)).all()
    other = learner.fit(jax.random.PRNGKey(1), *case.sample(dtype=dtype, seed=4))
    chex.assert_trees_all_equal_shapes_and_dtypes(params, other)
    labels = learner.predict(params, X)
    assert labels.shape == (X.shape[0],) and labels.dtype == jnp.int32
    scores = learner.decision_function(params, X)
    assert scores.shape == (X.shape[0], K) and scores.dtype == dtype
    np.testing.assert_array_equal(labels, np.argmax(np.asarray(scores), axis=1))
    assert set(np.unique(np.asarray(labels)).tolist()) <= set(LABELS)
    assert float(np.mean(np.asarray(labels) == np.asarray(y))) > 0.6  # it learned something


@cases
def test_fit_under_jit_equals_no_jit(case):
    check_fit_jit_equals_no_jit(case)


@cases
def test_vmap_over_32_hyperparameters_equals_loop(case):
    check_vmap_over_hyperparameter(case)


@cases
def test_vmap_over_keys_equals_loop(case):
    check_vmap_over_keys(case)


@cases
def test_no_recompilation_on_second_fit(case):
    check_no_recompilation(case)


@cases
def test_params_dtypes(case, dtype):
    check_multiclass_params_dtypes(case, dtype)


@cases
def test_rejects_bad_input(case):
    check_rejects_bad_input(case)
    X, y = case.sample()
    with pytest.raises(
        ValueError, match=rf"expected `y` with labels in 0..{K - 1} \(num_classes={K}\), found {K}"
    ):
        case.learner().fit(jax.random.PRNGKey(0), X, y.at[0].set(K))
