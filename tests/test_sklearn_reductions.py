"""jaxlearn's one-vs-rest and one-vs-one against scikit-learn's, over the estimators they take.

Over a jaxlearn binary batch estimator the problems are one vmapped program; over any other
estimator (scikit-learn's, or a jaxlearn one that is multiclass itself or a regressor) the reduction
is scikit-learn's own, in ``reduction_``. Either way a user gets scikit-learn's answers.
"""

import jax
import numpy as np
import pytest
import sklearn.linear_model
import sklearn.multiclass
import sklearn.neighbors
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import StandardScaler

import jaxlearn.sklearn as jsk
from tests.harness import count_compilations

REDUCTIONS = ["OneVsRestClassifier", "OneVsOneClassifier"]


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _pair(reduction, ours, theirs):
    return getattr(jsk, reduction)(ours), getattr(sklearn.multiclass, reduction)(theirs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_over_ridge_classifier_as_scikit_learns(iris, reduction):
    """One vmapped program; one-vs-one's other classes take no part (weight 0), as scikit-learn
    fits each pair on its own examples."""
    X, y = iris
    ours, theirs = _pair(reduction, jsk.RidgeClassifier(), sklearn.linear_model.RidgeClassifier())
    ours.fit(X, y), theirs.fit(X, y)
    assert not hasattr(ours, "reduction_")
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(
        ours.decision_function(X), theirs.decision_function(X), rtol=1e-4, atol=1e-4
    )


def test_one_vs_one_over_nearest_centroid_as_scikit_learns(iris):
    X, y = iris
    ours, theirs = _pair(
        "OneVsOneClassifier", jsk.NearestCentroid(), sklearn.neighbors.NearestCentroid()
    )
    assert ours.fit(X, y)._subsample() == "compact"
    np.testing.assert_array_equal(ours.predict(X), theirs.fit(X, y).predict(X))


def test_one_vs_one_over_hard_margin_svc_repeats_each_pairs_examples():
    """The hard-SVM takes labels -1 and +1 only: each pair's examples fill the sample ("cycle")."""
    rng = np.random.default_rng(0)
    centres = np.array([[4.0, 0.0], [0.0, 4.0], [-4.0, -4.0]])
    y = np.repeat(np.arange(3), 20)
    X = centres[y] + rng.uniform(-1, 1, (y.size, 2))
    ours = jsk.OneVsOneClassifier(jsk.HardMarginSVC()).fit(X, y)
    assert ours._subsample() == "cycle"
    np.testing.assert_array_equal(ours.predict(X), y)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "make",
    [
        lambda: jsk.KNeighborsClassifier(),
        lambda: jsk.DecisionTreeClassifier(random_state=0),
        lambda: jsk.LogisticRegression(),
        lambda: jsk.Ridge(),
        lambda: GaussianNB(),
    ],
    ids=[
        "KNeighborsClassifier",
        "DecisionTreeClassifier",
        "LogisticRegression",
        "Ridge",
        "GaussianNB",
    ],
)
def test_over_any_other_estimator_is_scikit_learns_reduction(iris, reduction, make):
    X, y = iris
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    ours, theirs = _pair(reduction, make(), make())
    ours.fit(X, labels), theirs.fit(X, labels)
    assert isinstance(ours.reduction_, type(theirs))
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_features_in_ == 4
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    if hasattr(theirs, "decision_function"):
        np.testing.assert_allclose(
            ours.decision_function(X), theirs.decision_function(X), rtol=1e-5, atol=1e-6
        )
    else:  # as scikit-learn's: over an estimator without scores, there are none
        with pytest.raises(AttributeError):
            ours.decision_function(X)
    # a refit over a jaxlearn binary estimator is one program again, with nothing left over
    ours.set_params(estimator=jsk.LinearSVC()).fit(X, labels)
    assert not hasattr(ours, "reduction_") and ours.predict(X[:3]).tolist() == ["setosa"] * 3


@pytest.mark.parametrize("dual", [False, True])
def test_one_vs_rest_over_linear_svc_is_its_own_one_vs_rest_fit(iris, dual):
    # scikit-learn's LinearSVC is one-vs-rest over the same K problems, each clone with the same seed
    X, y = iris
    svc = jsk.LinearSVC(dual=dual, random_state=3)
    ours = jsk.OneVsRestClassifier(svc).fit(X, y)
    alone = jsk.LinearSVC(dual=dual, random_state=3).fit(X, y)
    np.testing.assert_array_equal(ours.params_.w, alone.params_.w)
    np.testing.assert_array_equal(ours.params_.b, alone.params_.b)
    np.testing.assert_array_equal(ours.predict(X), alone.predict(X))
    theirs = sklearn.multiclass.OneVsRestClassifier(svc).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-5)


@pytest.mark.parametrize("name", ["SGDClassifier", "Perceptron"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_over_sgd_fits_each_problem_as_scikit_learns_clone(iris, reduction, name):
    # each of scikit-learn's clones shuffles with the seed of the same random_state (one-vs-one: on
    # its pair's own rows, in their order): so do ours, in one program over the rows padded to their
    # size bucket, which compiles nothing for a new size in the bucket
    X, y = iris
    with jax.enable_x64(True):
        ours, theirs = _pair(
            reduction,
            getattr(jsk, name)(random_state=0),
            getattr(sklearn.linear_model, name)(random_state=0),
        )
        ours.fit(X, y), theirs.fit(X, y)
        coef = np.stack([estimator.coef_[0] for estimator in theirs.estimators_])
        # a pair (i, j): ours scores i positive, scikit-learn's j
        sign = -1 if reduction == "OneVsOneClassifier" else 1
        np.testing.assert_allclose(ours.params_.w, sign * coef, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
        np.testing.assert_allclose(
            ours.decision_function(X), theirs.decision_function(X), rtol=1e-10, atol=1e-10
        )
        order = np.random.default_rng(0).permutation(len(y))  # three classes in every prefix
        X, y = X[order], y[order]
        make = getattr(jsk, reduction)
        make(getattr(jsk, name)(random_state=0)).fit(X[:100], y[:100])
        with count_compilations() as compiled:  # 100 and 107 rows (and their pairs): one bucket
            make(getattr(jsk, name)(random_state=0)).fit(X[:107], y[:107])
    assert compiled[0] == 0
