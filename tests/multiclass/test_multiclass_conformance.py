"""The batch conformance matrix (DESIGN.md section 6) over the multiclass learners.

Each learner joins with one row (``tests/batch_conformance.py``); labels are ``0..k-1``, scores have
shape (n, k) and ``predict == argmax(decision_function)``.
"""

from __future__ import annotations

import functools

import jax
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
from tests.batch_conformance import BatchCase, BatchConformance, check_params_dtypes
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


class TestMulticlassConformance(BatchConformance):
    CASES = CASES

    def test_params_dtypes(self, case, dtype):
        _, labels = check_params_dtypes(case, dtype)
        y = case.sample(dtype=dtype)[1]
        assert float(np.mean(np.asarray(labels) == np.asarray(y))) > 0.6  # it learned something

    def test_rejects_bad_input(self, case):
        super().test_rejects_bad_input(case)
        X, y = case.sample()
        with pytest.raises(
            ValueError, match=rf"expected `y` with labels in 0..{K - 1} \(num_classes={K}\), found {K}"
        ):
            case.learner().fit(jax.random.PRNGKey(0), X, y.at[0].set(K))
