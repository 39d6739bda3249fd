"""scikit-learn's constructor parameters on every estimator both libraries have (the project's issue:
"where a scikit-learn parameter is not supported, the error says so by its scikit-learn name").

Each estimator takes every parameter of scikit-learn's namesake, with scikit-learn's default. Those that
change nothing in jaxlearn (``_no_effect``: ``n_jobs``, ``verbose``, ...) are accepted; of the others
(``_only_default``) a value but the default is an ``InvalidParameterError`` naming the parameter."""

from __future__ import annotations

import importlib
import inspect
import re

import numpy as np
import pytest
import sklearn.svm

import jaxlearn.sklearn as jsk
from jaxlearn.sklearn._base import check_params
from tests._sklearn_upstream import SWAPS

#: scikit-learn's modules that hold the namesakes of jaxlearn's estimators.
MODULES = tuple(importlib.import_module(module) for module in SWAPS)
#: ``(name, ours, theirs)`` for every estimator of ``jaxlearn.sklearn`` scikit-learn also has (matched by
#: name in those modules, so that a new estimator is covered as it is exported).
PAIRS = [
    (name, getattr(jsk, name), theirs)
    for name in jsk.__all__
    for theirs in [next((getattr(m, name) for m in MODULES if hasattr(m, name)), None)]
    if theirs is not None and inspect.isclass(theirs)
]

#: Shared parameters whose default intentionally differs from scikit-learn's.
DIFFERENT_DEFAULTS = {
    # scikit-learn 1.9 deprecates `penalty` (default "deprecated", meaning L2 through l1_ratio=0);
    # jaxlearn's is the one penalty it solves, "l2": the same problem.
    ("LogisticRegression", "penalty"),
    # scikit-learn's reductions require an estimator; ours default to jaxlearn's LinearSVC().
    ("OneVsRestClassifier", "estimator"),
    ("OneVsOneClassifier", "estimator"),
}

X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]] * 3)
Y = np.array([1, 1, 0, 0] * 3)
#: A value of each only-default parameter that scikit-learn accepts and jaxlearn does not.
OTHER = {
    "probability": True,
    "dual": True,
    "l1_ratio": 0.5,
    "warm_start": True,
    "positive": True,
    "kernel_params": {"gamma": 1.0},
    "metric": "braycurtis",
    "priors": "empirical",
    "shrink_threshold": 0.1,
    "p": 3,
    "metric_params": {"w": None},
    "splitter": "random",
    "min_weight_fraction_leaf": 0.1,
    "max_leaf_nodes": 3,
    "min_impurity_decrease": 0.1,
    "ccp_alpha": 0.01,
    "monotonic_cst": [1, 0],
    "learning_rate": "adaptive",
}


def _signature(cls) -> dict:
    return {
        name: param.default
        for name, param in inspect.signature(cls.__init__).parameters.items()
        if name != "self"
    }


def _only_default(cls) -> dict:
    merged = {}
    for klass in reversed(cls.__mro__):
        merged.update(vars(klass).get("_only_default", {}))
    return merged


def test_pairs_are_found():
    assert len(PAIRS) >= 16


@pytest.mark.parametrize("name,ours,theirs", PAIRS, ids=[p[0] for p in PAIRS])
def test_every_sklearn_parameter_is_taken(name, ours, theirs):
    missing = set(_signature(theirs)) - set(_signature(ours))
    assert not missing, f"{name} lacks scikit-learn's {sorted(missing)}"


@pytest.mark.parametrize("name,ours,theirs", PAIRS, ids=[p[0] for p in PAIRS])
def test_shared_parameters_default_to_sklearns(name, ours, theirs):
    mine = ours().get_params(deep=False)
    required = {n for n, p in inspect.signature(theirs).parameters.items() if p.default is p.empty}
    kwargs = {"estimator": sklearn.svm.LinearSVC()} if "estimator" in required else {}
    sk = theirs(**kwargs).get_params(deep=False)
    differ = {
        p: (mine[p], sk[p])
        for p in set(mine) & set(sk)
        if (name, p) not in DIFFERENT_DEFAULTS
        and not (mine[p] is sk[p] or (type(mine[p]) is not object and mine[p] == sk[p]))
    }
    assert not differ, f"{name}: ours vs scikit-learn's {differ}"


ONLY = [(name, param) for name, ours, _ in PAIRS for param in sorted(_only_default(ours))]


def test_only_default_parameters_are_declared_for_the_issue():
    """The parameters the issue lists as unsupported, each with a non-default value tried below."""
    assert {p for _, p in ONLY} == set(OTHER)


@pytest.mark.parametrize("name,param", ONLY)
def test_non_default_value_names_the_parameter(name, param):
    estimator = getattr(jsk, name)(**{param: OTHER[param]})
    y = Y.astype(float) if name in ("Ridge", "KernelRidge", "KNeighborsRegressor") else Y
    with pytest.raises(ValueError, match=re.escape(f"`{param}`={OTHER[param]!r} is not supported")):
        estimator.fit(X, y)


@pytest.mark.parametrize("name,param", ONLY)
def test_default_value_is_accepted(name, param):
    """The default (and what means the same) passes the check; ``fit`` itself is the suites' test."""
    estimator = getattr(jsk, name)()
    for value in _only_default(type(estimator))[param].supported:
        check_params(estimator.set_params(**{param: value}))


def test_no_effect_parameters_are_accepted_and_checked():
    knn = jsk.KNeighborsClassifier(n_neighbors=1, algorithm="kd_tree", leaf_size=5, n_jobs=-1)
    assert knn.fit(X, Y).predict(X).tolist() == Y.tolist()
    with pytest.raises(ValueError, match="`algorithm`"):
        jsk.KNeighborsClassifier(algorithm="octree").fit(X, Y)
    with pytest.raises(ValueError, match="`verbose`"):
        jsk.SVC(verbose=-1).fit(X, Y)
    check_params(jsk.SVC(verbose=2, shrinking=False, cache_size=10.0))
    check_params(jsk.Ridge(copy_X=False, max_iter=5, tol=0.0, random_state=0))
    check_params(
        jsk.LogisticRegression(n_jobs=2, verbose=True, intercept_scaling=3.0, l1_ratio=None)
    )
