"""jaxlearn.sklearn.LinearSVC: scikit-learn's LinearSVC (liblinear's dual solvers) with its defaults and
meaning: the same coefficients in float64 (one-vs-rest, Crammer-Singer, class and sample weights), the
binary layout, one compiled program for the classes, and the refused parameter values."""

import warnings

import jax
import numpy as np
import pytest
import sklearn.svm
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

import jaxlearn.sklearn as jsk
from tests.harness import count_compilations


def _iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _close(ours, theirs, rtol=1e-4):
    for name in ("coef_", "intercept_"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a.shape == b.shape, name
        assert np.max(np.abs(a - b)) <= rtol * np.max(np.abs(theirs.coef_)), (name, a, b)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"loss": "hinge", "C": 0.3},
        {"multi_class": "crammer_singer"},
        {"class_weight": "balanced"},
        {"class_weight": {0: 2.0, 2: 0.5}, "multi_class": "crammer_singer"},
    ],
    ids=str,
)
def test_matches_scikit_learn_in_float64(options):
    X, y = _iris()
    weight = np.random.RandomState(0).uniform(0.5, 2, len(y))
    with jax.enable_x64(True):
        ours = jsk.LinearSVC(tol=1e-8, max_iter=10**5, random_state=0, **options).fit(
            X, y, sample_weight=weight
        )
        predicted = ours.predict(X)
    theirs = sklearn.svm.LinearSVC(dual=True, tol=1e-8, max_iter=10**5, **options).fit(
        X, y, sample_weight=weight
    )
    _close(ours, theirs)
    np.testing.assert_array_equal(predicted, theirs.predict(X))
    assert ours.coef_.shape == (3, 4) and isinstance(ours.n_iter_, int)


@pytest.mark.parametrize("multi_class", ["ovr", "crammer_singer"])
def test_binary_layout(multi_class):
    X, y = _iris()
    X, y = X[y > 0], np.array(["b", "c"])[y[y > 0] - 1]
    with jax.enable_x64(True):
        ours = jsk.LinearSVC(multi_class=multi_class, tol=1e-8, max_iter=10**5).fit(X, y)
        scores = ours.decision_function(X)
        predicted = ours.predict(X)
    theirs = sklearn.svm.LinearSVC(
        multi_class=multi_class, dual=True, tol=1e-8, max_iter=10**5
    ).fit(X, y)
    assert (
        ours.coef_.shape == (1, 4) and ours.intercept_.shape == (1,) and scores.shape == (len(y),)
    )
    _close(ours, theirs)
    np.testing.assert_array_equal(predicted, theirs.predict(X))


def test_classes_are_one_program():
    # one-vs-rest is one vmapped fit: a new C (a traced leaf) or new data of the same shape compiles nothing
    X, y = _iris()
    jsk.LinearSVC(random_state=0).fit(X, y)
    with count_compilations() as compiled:
        jsk.LinearSVC(C=0.5, random_state=1).fit(X[::-1], y[::-1])
    assert compiled[0] == 0


def test_float32_collinear_features_and_a_large_C_predict_as_scikit_learn():
    """In float32 (JAX's default) the primal solver meets a Hessian past float32's resolution; the fit
    still converges, with scikit-learn's predictions (liblinear computes in float64)."""
    X, y = make_classification(2000, 20, n_informative=8, n_redundant=4, random_state=0)
    X = X.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = jsk.LinearSVC(C=1000.0).fit(X, y)
    theirs = sklearn.svm.LinearSVC(C=1000.0, max_iter=100_000).fit(X, y)
    assert not ours.dual_
    assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.995


def test_refused_parameters_name_themselves():
    X, y = _iris()
    for params, name in [
        ({"penalty": "l1"}, "penalty"),
        ({"loss": "log"}, "loss"),
        ({"dual": False, "loss": "hinge"}, "dual"),
        ({"multi_class": "ovo"}, "multi_class"),
        ({"C": 0.0}, "C"),
    ]:
        with pytest.raises(ValueError, match=f"`{name}`"):
            jsk.LinearSVC(**params).fit(X, y)
    jsk.LinearSVC(dual=False).fit(X, y)  # the same minimiser: the dual is solved
