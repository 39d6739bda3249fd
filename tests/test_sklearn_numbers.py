"""A real hyperparameter written as an integer (``C=1``, ``alpha=10``: what a grid search's list
often holds) or as a NumPy scalar (``np.logspace``'s values) runs the program compiled for the same
Python float, and a refit that stops at another epoch predicts with the program it compiled
before."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler

import jaxlearn.sklearn as jsk
from jaxlearn import linear
from tests.harness import count_compilations

META = {"GridSearchCV", "OneVsRestClassifier", "OneVsOneClassifier"}
ESTIMATORS = sorted(
    name for name in jsk.__all__ if isinstance(getattr(jsk, name), type) and name not in META
)


def _iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _real_parameters(estimator):
    return [
        name
        for name, value in estimator.get_params().items()
        if isinstance(value, float) and not isinstance(value, bool)
    ]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_real_hyperparameter_given_as_an_int_compiles_nothing_new(name):
    make = getattr(jsk, name)
    X, y = _iris()
    try:
        make().fit(X[:8], [0, 1, 2, 0, 1, 2, 0, 1])
    except ValueError:  # two classes only
        y = (y > 0).astype(int)
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence, at values far from the defaults
        for parameter in _real_parameters(make()):
            try:  # 1 (or 2, or 0) where the parameter takes it: the float first
                value = next(v for v in (1, 2, 0) if _fits(make, parameter, float(v), X, y))
            except StopIteration:
                continue
            for given in (value, np.float64(value)):  # an int, a value of np.logspace
                with count_compilations() as compiled:
                    make(**{parameter: given}).fit(X, y).predict(X)
                assert compiled[0] == 0, f"{name}({parameter}={given!r}) compiled {compiled[0]}"
            checked += 1
    if not checked:
        pytest.skip(f"{name} takes none of 0, 1, 2 for its real hyperparameters")


def _fits(make, parameter, value, X, y):
    try:
        make(**{parameter: value}).fit(X, y).predict(X)
    except (ValueError, TypeError):
        return False
    return True


def test_learner_factories_trace_an_int_as_the_float():
    as_int, as_float = linear.soft_svm(1, 100), linear.soft_svm(1.0, 100)
    assert jax.tree.structure(as_int) == jax.tree.structure(as_float)
    assert [type(leaf) for leaf in jax.tree.leaves(as_int)] == [float]


def test_mlp_refits_that_stop_at_other_epochs_predict_with_one_program():
    """The loss curve's length is the epochs run: predictions read the network alone."""
    X, y = _iris()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter reached
        jsk.MLPClassifier(max_iter=5, random_state=0).fit(X, y).predict(X)
        model = jsk.MLPClassifier(max_iter=8, random_state=0).fit(X, y)
    assert len(model.loss_curve_) == 8
    with count_compilations() as compiled:
        model.predict(X)
        model.predict_proba(X)
    assert compiled[0] == 0
