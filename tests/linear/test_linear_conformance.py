"""The batch conformance matrix (DESIGN.md section 6) over SGD, Soft-SVM and Hard-SVM.

Each learner joins with one row: a factory of its numeric hyperparameter, a sweep of 32 values, a
sample it can take and the jitted function its ``fit`` runs. The checks live in
``tests/batch_conformance.py``; guarantees and scikit-learn agreement in ``test_sgd.py`` / ``test_svm.py``.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import optax

from jaxlearn import datasets, losses
from jaxlearn.linear import _sgd, _svm
from jaxlearn.online import l2_ball
from tests.batch_conformance import (
    BatchCase,
    BatchConformance,
)
from tests.linear.test_centroid import CASES as CENTROID_CASES
from tests.linear.test_kernel_svm import CASES as KERNEL_SVM_CASES
from tests.linear.test_ridge import CASES as RIDGE_CASES

# Structural options are part of the compiled program's identity: build them once, reuse them.
BALL = l2_ball(3.0)
ADAM = optax.adam(0.05)
LAMS = tuple(np.geomspace(0.01, 1.0, 32).tolist())


# Generators are jitted: one compiled program per shape instead of a dispatch (and compile) per op.
@functools.partial(jax.jit, static_argnums=(1, 2))
def _noisy(key, n, dtype):
    X, y, _ = datasets.noisy_halfspace(key, n, 5, 0.1, dtype=dtype)
    return X, y


@functools.partial(jax.jit, static_argnums=(1, 2))
def _separable(key, n, dtype):
    X, y, _ = datasets.separable(key, n, 4, 0.2, dtype=dtype)
    return X, y


@functools.partial(jax.jit, static_argnums=(1, 2))
def _regression(key, n, dtype):
    X, y, w = datasets.noisy_halfspace(key, n, 5, 0.0, dtype=dtype)
    return X, (X @ w).astype(dtype)


def _row(name, factory, hparams, data, compiled, **kwargs):
    """``factory(h, steps)``: the row uses 300 steps, its interpreted check 3."""
    make = lambda h: factory(h, 300)
    small = lambda h: factory(h, 3)
    return BatchCase(name, make, hparams, data, compiled, small=small, **kwargs)


LEARNERS = [
    _row("sgd_hinge_alg6", lambda lam, T: _sgd.sgd(losses.hinge, steps=T, lam=lam), LAMS, _noisy, _sgd._fit),
    _row(
        "sgd_logistic_alg5_ball",
        lambda eta, T: _sgd.sgd(losses.logistic, steps=T, eta=eta, projection=BALL),
        tuple(np.geomspace(0.05, 5.0, 32).tolist()),
        _noisy,
        _sgd._fit,
    ),
    _row(
        "sgd_logistic_adam",
        lambda lam, T: _sgd.sgd(losses.logistic, steps=T, lam=lam, optimizer=ADAM),
        LAMS,
        _noisy,
        _sgd._fit,
    ),
    _row(  # eta_1 = 1/lam must be below ~2/(2 R^2 + lam) for the squared loss: lam >= 2
        "sgd_squared_regression",
        lambda lam, T: _sgd.sgd(losses.squared, steps=T, lam=lam, labels=None),
        tuple(np.geomspace(2.0, 20.0, 32).tolist()),
        _regression,
        _sgd._fit,
        labels=None,
    ),
    _row("soft_svm_uml", lambda lam, T: _svm.soft_svm(lam, T), LAMS, _noisy, _svm._soft_svm_fit),
    _row(
        "soft_svm_ss10",
        lambda lam, T: _svm.soft_svm(lam, T, variant="ss10"),
        LAMS,
        _noisy,
        _svm._soft_svm_fit,
    ),
    _row(
        "soft_svm_intercept",
        lambda lam, T: _svm.soft_svm(lam, T, fit_intercept=True),
        LAMS,
        _noisy,
        _svm._soft_svm_fit,
    ),
    _row(  # steps: the most sweeps (the 3-sweep version stops before converging: still equal)
        "hard_svm",
        lambda tol, T: _svm.hard_svm(max_steps=T, tol=tol),
        tuple(np.geomspace(1e-2, 1e-5, 32).tolist()),
        _separable,
        _svm._hard_svm_fit,
        rtol=1e-4,
    ),
]
# The kernel learners' rows live beside their other tests; every batch learner runs the same checks.
ALL = LEARNERS + KERNEL_SVM_CASES + RIDGE_CASES + CENTROID_CASES


class TestLinearConformance(BatchConformance):
    CASES = ALL
