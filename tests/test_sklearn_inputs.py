"""The estimators' last silent and cryptic inputs (issue 33): non-bool booleans, errors that name the
learner's arguments instead of the estimator's, overflow at large finite scales, and an epoch order
that grew with ``max_iter`` (the online estimators; scikit-learn's Perceptron stops by its tol rule)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import jaxlearn.sklearn as jsk

X4 = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]] * 3)
Y4 = np.array([1, 1, 0, 0] * 3)
REGRESSORS = ("KNeighborsRegressor", "KernelRidge", "Ridge")


def _fit(name, **params):
    estimator = getattr(jsk, name)(**params)
    y = Y4.astype(float) if name in REGRESSORS else Y4
    return estimator.fit(X4, y)


def _bool_params(name):
    signature = inspect.signature(getattr(jsk, name).__init__)
    bool_or_int = getattr(
        getattr(jsk, name), "_bool_or_int", ()
    )  # SGD's average: False, True or a step
    params = signature.parameters.items()
    return [p for p, v in params if isinstance(v.default, bool) and p not in bool_or_int]


#: The estimators (GridSearchCV is scikit-learn's search, its parameters checked by scikit-learn).
ESTIMATORS = sorted(set(jsk.__all__) - {"GridSearchCV", "cross_validate", "cross_val_score"})
BOOLS = [(name, p) for name in ESTIMATORS for p in _bool_params(name)]


def test_every_boolean_is_found():
    assert {p for _, p in BOOLS} >= {"fit_intercept", "shuffle", "normalize", "bootstrap"}
    assert len({name for name, p in BOOLS if p == "fit_intercept"}) >= 9


@pytest.mark.parametrize("name,param", BOOLS)
@pytest.mark.parametrize("value", ["no", 0, 1, None, "False"])
def test_non_bool_boolean_is_refused(name, param, value):
    with pytest.raises(ValueError, match=f"`{param}`"):
        _fit(name, **{param: value})


@pytest.mark.parametrize("name,param", BOOLS)
def test_numpy_bool_is_a_bool(name, param):
    _fit(name, **{param: np.False_})


#: Out-of-range values of every numeric parameter (by name: the estimators share the names).
BAD = {
    "alpha": [-1.0, math.nan, math.inf, "x"],
    "C": [0.0, -1.0, math.nan, math.inf],
    "lam": [0.0, -1.0, math.nan],
    "eta0": [0.0, -1.0, math.nan, math.inf, "x"],
    "eta": [1.0, 0.5, math.nan, math.inf],
    "max_iter": [0, -1, 1.5, math.nan],
    "batch_size": [0, 1.5],
    "gamma": [0.0, -1.0, math.nan, math.inf],
    "degree": [0, 1.5],
    "coef0": [math.nan, math.inf],
    "budget": [0, 2.5],
    "tol": [-1.0, 0.0, math.nan],
    "max_steps": [0, 1.5],
    "n_neighbors": [0, -1, 1.5],
    "query_chunk": [0, 1.5],
    "n_estimators": [0, 1.5],
    "max_depth": [-1, 25, 1.5],
    "min_samples_leaf": [0, 1.5],
    "min_samples_split": [1, 0.0, 1.5, math.nan],
    "max_bins": [1, 2.5],
    "max_features": [0, 1.5],
    "learning_rate_init": [0.0, -1.0, math.nan],
    "validation_fraction": [1.0, -0.1, math.nan],
    "radius": [0.0, -1.0, math.nan],
    "threshold": [0.0, -1.0, math.nan],
    "binarize": [math.nan, math.inf, "x"],
    "l1_ratio": [-0.1, 1.5, math.nan],
    "power_t": [-1.0, math.nan],
    "n_iter_no_change": [0, 1.5],
    "intercept_scaling": [0.0, -1.0, math.nan],
    "beta_1": [-0.1, 1.0, math.nan],
    "beta_2": [-0.1, 1.0, math.nan],
    "epsilon": [0.0, -1.0, math.nan],
    "momentum": [-0.1, 1.5, math.nan],
    # scikit-learn's parameters that change nothing here, checked as scikit-learn checks them
    "n_jobs": [1.5, "x"],
    "verbose": [-1, 1.5],
    "cache_size": [0.0, -1.0, math.nan],
    "leaf_size": [0, 1.5],
    "max_fun": [0, 1.5],
    # scikit-learn's parameters of which only the default is supported: these are out of
    # scikit-learn's range too
    "ccp_alpha": [-1.0, math.nan],
    "min_impurity_decrease": [-1.0, math.nan],
    "min_weight_fraction_leaf": [-0.1, 0.6, math.nan],
    "max_leaf_nodes": [1, 1.5],
    "max_samples": [0, -1.0, math.nan],
    "shrink_threshold": [0.0, -1.0, math.nan],
    "p": [0, -1.0, math.nan],
}
#: Parameters that are not numeric hyperparameters (dicts and arrays default to None).
NOT_NUMERIC = {"random_state", "hidden_layer_sizes", "estimator", "class_weight", "penalty"}
NOT_NUMERIC |= {"kernel_params", "metric_params", "monotonic_cst"}
KERNEL = {
    "KernelPerceptron": "poly",
    "KernelRidge": "poly",
    "NearestCentroid": "poly",
    "SVC": "poly",
}
#: Values of BAD that scikit-learn's estimator of the same name accepts: tol=0 (SGD's tol is any number or
#: None) and the Perceptron's alpha=0 (no penalty by default); SGD's eta0=0 is tried with a constant step.
VALID = {("SGDClassifier", "tol", 0.0), ("Perceptron", "tol", 0.0), ("Perceptron", "alpha", 0.0)}
VALID |= {
    ("LogisticRegression", "tol", 0.0)
}  # tol >= 0 as scikit-learn: 0 runs max_iter iterations
VALID |= {("MLPClassifier", "tol", 0.0)}  # as scikit-learn's: tol >= 0
VALID |= {("LogisticRegression", "C", math.inf)}  # as scikit-learn's (since 1.8): no penalty
VALID |= {("SVC", "max_iter", -1)}  # as scikit-learn's: no limit (libsvm's own cap)
VALID |= {("SGDClassifier", "epsilon", 0.0)}  # as scikit-learn's: epsilon >= 0 (no effect here)
VALID |= {("Ridge", "tol", 0.0), ("RidgeClassifier", "tol", 0.0)}  # as scikit-learn's: tol >= 0
WITH = {("SGDClassifier", "eta0"): {"learning_rate": "constant"}}


def _numeric_params(name):
    params = getattr(jsk, name)().get_params(deep=False)
    return [
        p
        for p, v in params.items()
        if p not in NOT_NUMERIC
        and (v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)))
    ]


NUMERIC = [
    (name, p, bad)
    for name in ESTIMATORS
    for p in _numeric_params(name)
    for bad in BAD[p]
    if (name, p, bad) not in VALID
]


def test_every_numeric_parameter_is_tried():
    names = {name for name, _, _ in NUMERIC}
    assert names >= set(ESTIMATORS) - {"OneVsOneClassifier", "OneVsRestClassifier"}


@pytest.mark.parametrize("name,param,bad", NUMERIC)
def test_bad_hyperparameter_names_the_estimators_parameter(name, param, bad):
    params = {param: bad, **WITH.get((name, param), {})}
    if name in KERNEL:
        params["kernel"] = KERNEL[name]
    with pytest.raises((ValueError, TypeError), match=f"`{param}`"):
        _fit(name, **params)


INNER_BAD = [
    ("LinearSVC", "C", 0.0),
    ("Perceptron", "eta0", 0.0),
    ("SGDClassifier", "alpha", 0.0),
    ("Perceptron", "shuffle", "no"),
]


@pytest.mark.parametrize("reduction", ["OneVsRestClassifier", "OneVsOneClassifier"])
@pytest.mark.parametrize("inner,param,bad", INNER_BAD)
def test_reductions_name_the_binary_estimators_parameter(reduction, inner, param, bad):
    estimator = getattr(jsk, reduction)(getattr(jsk, inner)(**{param: bad}))
    with pytest.raises(ValueError, match=f"`{param}`"):
        estimator.fit(X4, np.arange(12) % 3)


# --- finite inputs of |x| >= 1e20: squares and Gram matrices out of the float32 range ---------------

RNG = np.random.default_rng(0)
XW, YW = (
    RNG.normal(size=(6, 8)),
    RNG.normal(size=6),
)  # wide: the kernel ridge's Gram matrix is regular
XT, YT = RNG.normal(size=(30, 3)), RNG.normal(size=30)


@pytest.mark.parametrize("scale", [1.0, 1e20, 1e30])
def test_ridge_agrees_with_sklearn_at_large_scale(scale):
    import sklearn.linear_model as sk

    X = XT * scale
    ours = jsk.Ridge(fit_intercept=False).fit(X, YT).predict(X)
    np.testing.assert_allclose(ours, sk.Ridge(fit_intercept=False).fit(X, YT).predict(X), atol=1e-4)
    theirs = sk.Ridge().fit(X, YT)  # the intercept is not penalised, as scikit-learn's
    np.testing.assert_allclose(jsk.Ridge().fit(X, YT).predict(X), theirs.predict(X), atol=1e-4)


@pytest.mark.parametrize("scale", [1.0, 1e20, 1e30])
def test_linear_kernel_ridge_agrees_with_sklearn_at_large_scale(scale):
    import sklearn.kernel_ridge as sk

    X = XW * scale
    ours = jsk.KernelRidge(alpha=0.5).fit(X, YW).predict(X)
    np.testing.assert_allclose(ours, sk.KernelRidge(alpha=0.5).fit(X, YW).predict(X), atol=1e-4)


@pytest.mark.parametrize("scale", [1.0, 1e3, 1e10, 1e20, 1e30])
def test_rbf_kernel_ridge_agrees_with_sklearn_at_large_scale(scale):
    """Far from the origin the Gaussian's squared distances are the differences' (the expansion
    |x|^2 + |z|^2 - 2<x, z> overflows, or cancels the diagonal's 0 to noise times |x|^2)."""
    import sklearn.kernel_ridge as sk

    X, queries = XT * scale, np.vstack([XT[:5], RNG.normal(size=(10, 3))]) * scale
    ours = jsk.KernelRidge(kernel="rbf").fit(X, YT).predict(queries)
    if (
        scale >= 1e10
    ):  # every point far from every other: K = I, so y / (1 + alpha) on the sample, else 0
        np.testing.assert_allclose(ours, np.r_[YT[:5] / 2, np.zeros(10)], atol=1e-6)
    else:  # farther out, scikit-learn's own float64 expansion cancels the diagonal's 0 to noise too
        theirs = sk.KernelRidge(kernel="rbf").fit(X, YT).predict(queries)
        np.testing.assert_allclose(ours, theirs, atol=1e-5)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("scale", [1.0, 1e20, 1e30])
def test_k_neighbors_regressor_agrees_with_sklearn_at_large_scale(scale, weights):
    import sklearn.neighbors as sk

    X, Q = XT * scale, XT[:7] * 1.01 * scale
    ours = jsk.KNeighborsRegressor(3, weights=weights).fit(X, YT)
    theirs = sk.KNeighborsRegressor(n_neighbors=3, weights=weights).fit(X, YT)
    np.testing.assert_allclose(ours.predict(Q), theirs.predict(Q), atol=1e-5)
    np.testing.assert_allclose(ours.kneighbors(Q)[0], theirs.kneighbors(Q)[0], rtol=1e-5)


# --- max_iter=10**9: the online estimators order the epochs chunk by chunk -----------------------


def test_huge_max_iter_stops_at_the_fixed_point():
    from jaxlearn.sklearn import _online

    perceptron = jsk.MarginPerceptron(gamma=0.01, max_iter=10**9, random_state=0).fit(X4, Y4)
    assert perceptron.n_iter_ < 10**9 and (perceptron.predict(X4) == Y4).all()
    rounds = np.int64(10**9) * len(X4)
    assert int(perceptron.state_.step) == int(
        np.array(rounds).astype(np.int32)
    )  # as if it played them all
    assert _online.CHUNK_ROWS < 10**9
    # scikit-learn's Perceptron (SGD in a while loop over the epochs) stops by its tol rule
    sgd = jsk.Perceptron(max_iter=10**9).fit(X4, Y4)
    assert sgd.n_iter_ < 100 and (sgd.predict(X4) == Y4).all()


@pytest.mark.parametrize("shuffle", [True, False])
def test_chunked_epochs_equal_the_orders_drawn_at_once(monkeypatch, shuffle):
    from jaxlearn.sklearn import _online

    X = RNG.normal(size=(40, 3))
    y = np.where(RNG.normal(size=40) > 0, 1, 0)  # not separable: no fixed point, every epoch played
    monkeypatch.setattr(_online, "CHUNK_ROWS", 90)  # two epochs a chunk, the last one alone
    chunked = jsk.MarginPerceptron(max_iter=5, shuffle=shuffle, random_state=3).fit(X, y)
    learner = chunked._learner()
    order = _online.epoch_order(3, 40, 5, shuffle)
    state = _online.play(
        learner, learner.init(X[0].astype(np.float32)), X.astype(np.float32), 2.0 * y - 1, order
    )
    np.testing.assert_array_equal(chunked.state_.w, state.w)
    assert chunked.n_iter_ == 5 and int(chunked.state_.step) == int(state.step)
