"""jaxlearn.sklearn.SVC: the exact kernel Soft-SVM, any number of classes by one-vs-one, against
scikit-learn's SVC (libsvm).

At scikit-learn's defaults (float32) on iris, wine and digits: accuracy within 1 point and the same
predictions almost everywhere; in float64 at tight tolerances: the fitted attributes in libsvm's
layout (support_, n_support_, dual_coef_, intercept_), decision_function in both shapes, class and
sample weights; the pairs fitted as one program (a new C compiles nothing); max_iter, break_ties,
bad parameters; the one-vs-one meta-estimator over SVC.
"""

import warnings

import jax
import numpy as np
import pytest
from sklearn import datasets
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from jaxlearn import core
from jaxlearn.sklearn import SVC, OneVsOneClassifier
from tests.harness import count_compilations


def _split(name, n=None, scale=False):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    if n is not None:
        X, y = X[:n], y[:n]
    if scale:
        X = StandardScaler().fit_transform(X)
    return train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)


def _assert_same_decisions(ours, theirs, X, atol):
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=atol)


@pytest.mark.parametrize(
    "name, n, params",
    [
        ("iris", None, {}),
        ("wine", None, {}),
        ("wine", None, {"kernel": "linear", "C": 0.1}),
        ("digits", 900, {}),
        ("digits", 900, {"kernel": "poly", "degree": 2}),
    ],
    ids=lambda v: str(v) if not isinstance(v, dict) else ",".join(f"{k}={v[k]}" for k in v),
)
def test_predictions_as_scikit_learns_at_the_defaults(name, n, params, request):
    if params.get("kernel") == "linear":  # raw wine: kernel entries near 1e6, millions of SMO steps
        request.getfixturevalue("optimised")
    Xtr, Xte, ytr, yte = _split(name, n)
    ours = SVC(**params).fit(Xtr, ytr)
    theirs = SkSVC(**params).fit(Xtr, ytr)
    mine, libsvm = ours.predict(Xte), theirs.predict(Xte)
    assert abs(np.mean(mine == yte) - np.mean(libsvm == yte)) <= 0.01
    assert np.mean(mine == libsvm) >= 0.97
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.decision_function(Xte).shape == theirs.decision_function(Xte).shape
    for name in ("n_iter_", "intercept_", "dual_coef_"):
        assert getattr(ours, name).shape[0] == getattr(theirs, name).shape[0], name


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_sigmoid_kernel_as_libsvms(name):
    """``kernel="sigmoid"``: :math:`\\tanh(\\gamma\\langle x, z\\rangle + c_0)`, not positive
    semi-definite; on standardised data the held-out accuracy and predictions of libsvm's."""
    Xtr, Xte, ytr, yte = _split(name, scale=True)
    for params in ({}, {"gamma": 0.01, "coef0": 0.5}):
        ours = SVC(kernel="sigmoid", **params).fit(Xtr, ytr)
        theirs = SkSVC(kernel="sigmoid", **params).fit(Xtr, ytr)
        mine, libsvm = ours.predict(Xte), theirs.predict(Xte)
        assert abs(np.mean(mine == yte) - np.mean(libsvm == yte)) <= 0.015
        assert np.mean(mine == libsvm) >= 0.95


@pytest.mark.parametrize(
    "name, params",
    [
        ("iris", {}),
        ("wine", {"kernel": "poly", "degree": 3, "gamma": 0.1, "coef0": 1.0, "C": 3.0}),
        ("wine", {"kernel": "linear", "C": 0.5}),
        ("digits", {"C": 10.0}),
    ],
    ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={v[k]}" for k in v),
)
def test_fitted_attributes_are_libsvms_in_float64(name, params, x64):
    Xtr, Xte, ytr, yte = _split(name, 500 if name == "digits" else None, scale=True)
    ours = SVC(tol=1e-8, **params).fit(Xtr, ytr)
    theirs = SkSVC(tol=1e-8, **params).fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_allclose(ours.support_vectors_, theirs.support_vectors_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-5 * params.get("C", 1.0))
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-5)
    _assert_same_decisions(ours, theirs, Xte, atol=1e-5)
    for est in (ours, theirs):
        est.set_params(decision_function_shape="ovo")
    _assert_same_decisions(ours, theirs, Xte, atol=1e-5)
    np.testing.assert_array_equal(ours.predict(Xte), theirs.predict(Xte))
    if params.get("kernel") == "linear":
        np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5)
    assert ours.fit_status_ == 0 and np.all(ours.n_iter_ > 0)


def test_two_classes_use_scikit_learns_signs(x64):
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:300]
    labels = np.array(["benign", "malignant"])[1 - y[:300]]
    ours = SVC(kernel="linear", C=0.3, tol=1e-8).fit(X, labels)
    theirs = SkSVC(kernel="linear", C=0.3, tol=1e-8).fit(X, labels)
    for name in ("dual_coef_", "intercept_", "coef_"):
        got, want = getattr(ours, name), getattr(theirs, name)
        np.testing.assert_allclose(got, want, atol=1e-5, err_msg=name)
    _assert_same_decisions(ours, theirs, X, atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.decision_function(X).shape == (300,) and ours.n_iter_.shape == (1,)
    with pytest.raises(AttributeError, match="linear kernel"):
        SVC().fit(X, labels).coef_  # noqa: B018


def test_class_and_sample_weights_as_libsvms(x64):
    Xtr, Xte, ytr, _ = _split("wine", scale=True)
    weight = np.random.default_rng(0).uniform(0.1, 2.0, size=len(ytr))
    for class_weight in ({0: 2.0, 2: 0.5}, "balanced"):
        params = dict(C=2.0, tol=1e-8, class_weight=class_weight)
        ours = SVC(**params).fit(Xtr, ytr, sample_weight=weight)
        theirs = SkSVC(**params).fit(Xtr, ytr, sample_weight=weight)
        np.testing.assert_array_equal(ours.support_, theirs.support_)
        np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-5)
        _assert_same_decisions(ours, theirs, Xte, atol=1e-5)


def test_zero_weight_rows_are_left_out(x64):
    Xtr, Xte, ytr, _ = _split("iris", scale=True)
    weight = np.ones(len(ytr))
    weight[::3] = 0.0
    svc = SVC(gamma=0.3, tol=1e-8)  # gamma="scale" would read the variance of every row
    weighted = clone(svc).fit(Xtr, ytr, sample_weight=weight)
    removed = clone(svc).fit(Xtr[weight > 0], ytr[weight > 0])
    np.testing.assert_array_equal(np.flatnonzero(weight > 0)[removed.support_], weighted.support_)
    # the same problem; the Gram matrices differ in the last bits (the Gaussian's products are
    # centred on the rows' mean), so the two fits agree to the solver's tolerance
    np.testing.assert_allclose(weighted.dual_coef_, removed.dual_coef_, atol=1e-6)
    _assert_same_decisions(weighted, removed, Xte, atol=1e-6)
    with pytest.raises(ValueError, match="[Ww]eight"):
        SVC().fit(Xtr, ytr, sample_weight=np.zeros(len(ytr)))


def test_the_pairs_are_one_program_and_a_new_C_compiles_nothing():
    Xtr, _, ytr, _ = _split("iris", scale=True)
    SVC(C=1.0).fit(Xtr, ytr).predict(Xtr)
    with count_compilations() as compiled:
        fitted = SVC(C=5.0, tol=1e-4, class_weight="balanced").fit(Xtr, ytr)
        fitted.predict(Xtr)
    assert compiled[0] == 0
    assert fitted.n_iter_.shape == (3,)


def test_max_iter_bounds_each_pair_and_warns():
    Xtr, _, ytr, _ = _split("wine", scale=True)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        fitted = SVC(max_iter=3).fit(Xtr, ytr)
    assert np.all(fitted.n_iter_ <= 3) and fitted.fit_status_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        unbounded = SVC(max_iter=-1).fit(Xtr, ytr)  # libsvm's own cap: max(1e7, 100 n) steps
    assert unbounded.fit_status_ == 0
    assert core.hyperparameters(unbounded._batch_learner(Xtr))["max_iter"] == 10**7


@pytest.mark.parametrize(
    "params, name",
    [
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": -2}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"C": 0.0}, "C"),
        ({"tol": -1.0}, "tol"),
        ({"decision_function_shape": "ova"}, "decision_function_shape"),
        ({"kernel": "precomputed"}, "kernel"),
        ({"gamma": "big"}, "gamma"),
    ],
)
def test_bad_parameters_name_themselves(params, name):
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=f"`{name}`"):
        SVC(**params).fit(X, y)


def test_break_ties_predicts_the_argmax_of_the_decision_function():
    Xtr, Xte, ytr, _ = _split("digits", 600)
    fitted = SVC(C=0.05, break_ties=True).fit(Xtr, ytr)  # small C: many tied votes
    scores = fitted.decision_function(Xte)
    np.testing.assert_array_equal(fitted.predict(Xte), fitted.classes_[np.argmax(scores, axis=1)])
    votes = fitted.set_params(break_ties=False).predict(Xte)
    np.testing.assert_array_equal(votes, fitted.classes_[np.argmax(np.rint(scores), axis=1)])
    theirs = SkSVC(C=0.05, break_ties=True).fit(Xtr, ytr).predict(Xte)
    assert np.mean(fitted.set_params(break_ties=True).predict(Xte) == theirs) >= 0.97


def test_one_vs_one_meta_estimator_over_the_binary_learner():
    Xtr, Xte, ytr, yte = _split("iris", scale=True)
    meta = OneVsOneClassifier(SVC(C=1.0)).fit(Xtr, ytr)
    assert np.mean(meta.predict(Xte) == SVC(C=1.0).fit(Xtr, ytr).predict(Xte)) >= 0.95
    assert jax.tree_util.tree_leaves(meta.params_)


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_probabilities_by_calibration_as_scikit_learn_recommends(method):
    """scikit-learn 1.9 deprecates ``SVC(probability=True)`` for ``CalibratedClassifierCV(SVC(),
    ensemble=False)``: over ours, its probabilities are those over scikit-learn's SVC (to the
    float32 decision values)."""
    from sklearn.calibration import CalibratedClassifierCV

    X, y = datasets.load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ours = CalibratedClassifierCV(SVC(), ensemble=False, method=method).fit(X, y)
    theirs = CalibratedClassifierCV(SkSVC(), ensemble=False, method=method).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=0.02)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
