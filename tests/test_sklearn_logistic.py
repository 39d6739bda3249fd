"""``jaxlearn.sklearn.LogisticRegression`` against scikit-learn's ``LogisticRegression(solver="lbfgs")``
on the same objective (float64): weights, intercepts, probabilities, sample and class weights, the
parameters scikit-learn has, and the ones it refuses here."""

import functools
import warnings

import numpy as np
import pytest
import sklearn.linear_model
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from jaxlearn.sklearn import LogisticRegression
from jaxlearn.sklearn._logistic import _fit
from tests.harness import count_compilations

TIGHT = dict(tol=1e-10, max_iter=10**4)


@functools.lru_cache(maxsize=None)
def _data(name):
    load = {"cancer": load_breast_cancer, "iris": load_iris}[name]
    X, y = load(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, np.array(["setosa", "versicolor", "virginica", "x"])[y] if name == "iris" else y


def _close(ours, want, rtol=1e-4):
    np.testing.assert_allclose(ours, want, rtol=0, atol=rtol * max(np.abs(want).max(), 1.0))


CASES = [
    ("cancer", {}, False),
    ("cancer", {"class_weight": "balanced"}, True),
    ("cancer", {"class_weight": {0: 3.0, 1: 0.5}, "C": 0.1}, False),
    ("iris", {}, True),
    ("iris", {"class_weight": "balanced", "C": 10.0}, True),
    ("iris", {"fit_intercept": False}, False),
]


@pytest.mark.parametrize("name, params, weighted", CASES)
def test_equals_sklearn(name, params, weighted, x64):
    X, y = _data(name)
    s = np.random.RandomState(0).uniform(0.0, 2.0, len(y)) if weighted else None
    want = sklearn.linear_model.LogisticRegression(**params, **TIGHT).fit(X, y, sample_weight=s)
    ours = LogisticRegression(**params, **TIGHT).fit(X, y, sample_weight=s)
    np.testing.assert_array_equal(ours.classes_, want.classes_)
    assert ours.coef_.shape == want.coef_.shape and ours.intercept_.shape == want.intercept_.shape
    assert ours.n_iter_.shape == (1,) and ours.n_features_in_ == X.shape[1]
    _close(ours.coef_, want.coef_)
    _close(ours.intercept_, want.intercept_)
    np.testing.assert_allclose(ours.predict_proba(X), want.predict_proba(X), rtol=0, atol=1e-6)
    np.testing.assert_allclose(
        ours.predict_log_proba(X[:20]), want.predict_log_proba(X[:20]), rtol=1e-5
    )
    _close(ours.decision_function(X), want.decision_function(X))
    np.testing.assert_array_equal(ours.predict(X), want.predict(X))


def test_defaults_are_sklearns():
    ours = LogisticRegression().get_params()
    theirs = sklearn.linear_model.LogisticRegression().get_params()
    for name in ("C", "tol", "fit_intercept", "class_weight", "random_state", "solver", "max_iter"):
        assert ours[name] == theirs[name], name
    assert ours["penalty"] == "l2"


@pytest.mark.parametrize(
    "param, value",
    [
        ("penalty", "l1"),
        ("solver", "saga"),
        ("class_weight", "auto"),
        ("C", 0.0),
        ("tol", -1.0),
    ],
)
def test_unsupported_values_name_the_parameter(param, value):
    X, y = _data("cancer")
    with pytest.raises(ValueError, match=f"`{param}`"):
        LogisticRegression(**{param: value}).fit(X[:20], y[:20])


@pytest.mark.parametrize("classes", [2, 3])
def test_no_penalty_is_C_inf_as_scikit_learns(classes, x64):
    """``C=np.inf`` (scikit-learn's way since 1.8) and ``penalty=None`` fit without a penalty: on
    overlapping classes (a finite minimiser) the weights of scikit-learn's unpenalised fit."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        300, 5, n_informative=3, n_classes=classes, flip_y=0.2, class_sep=0.5, random_state=0
    )
    want = sklearn.linear_model.LogisticRegression(C=np.inf, **TIGHT).fit(X, y)
    assert want.n_iter_[0] < TIGHT["max_iter"]  # converged: the minimiser is finite
    ours = LogisticRegression(C=np.inf, **TIGHT).fit(X, y)
    _close(ours.coef_, want.coef_)
    _close(ours.intercept_, want.intercept_)
    np.testing.assert_allclose(ours.predict_proba(X), want.predict_proba(X), rtol=0, atol=1e-6)
    old_way = LogisticRegression(penalty=None, **TIGHT).fit(X, y)
    np.testing.assert_array_equal(old_way.coef_, ours.coef_)
    with pytest.warns(UserWarning, match="penalty=None will ignore the C"):
        LogisticRegression(penalty=None, C=0.5, **TIGHT).fit(X, y)


def test_not_converged_warns_like_sklearn():
    X, y = _data("cancer")
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        fitted = LogisticRegression(max_iter=2).fit(X, y)
    assert fitted.n_iter_.tolist() == [2] and not bool(fitted.params_.converged)


def test_lbfgs_runs_in_float64_as_scikit_learns():
    """The wine data times 100 (raw features up to 1.7e5): L-BFGS in float32 stalls near the start
    (0.63 training accuracy after scikit-learn's 100 iterations); in float64, as scikit-learn's runs
    on float64 and float32 data, it predicts as scikit-learn's, the weights in the input's dtype."""
    X, y = load_wine(return_X_y=True)
    X = 100 * X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # both stop at max_iter=100
        ours = LogisticRegression().fit(X, y)
        want = sklearn.linear_model.LogisticRegression().fit(X, y)
        single = LogisticRegression().fit(X.astype(np.float32), y)
    assert ours.coef_.dtype == np.float64 and single.coef_.dtype == np.float32
    assert np.mean(ours.predict(X) == want.predict(X)) >= 0.98
    assert np.mean(single.predict(X) == want.predict(X)) >= 0.98
    assert ours.predict_proba(X).dtype == np.float64


def test_a_new_C_compiles_nothing():
    X, y = _data("iris")
    X, y = X.astype(np.float32), y
    LogisticRegression(C=1.0).fit(X, y).predict_proba(X)
    size = _fit._cache_size()
    with count_compilations() as compiled:
        for C in (0.1, 7.0):
            LogisticRegression(C=C, class_weight="balanced").fit(X, y).predict_proba(X)
    assert compiled[0] == 0 and _fit._cache_size() == size


def test_class_weight_is_sample_weight():
    X, y = _data("cancer")
    weights = {0: 2.0, 1: 0.5}
    by_class = LogisticRegression(class_weight=weights).fit(X, y)
    by_sample = LogisticRegression().fit(X, y, sample_weight=np.where(y == 0, 2.0, 0.5))
    np.testing.assert_array_equal(by_class.coef_, by_sample.coef_)
