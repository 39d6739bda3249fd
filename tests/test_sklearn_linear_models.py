"""SGDClassifier, Perceptron and NearestCentroid against scikit-learn's answers (issue 34, "right answers
by default"): cross-validated accuracy on raw and standardised data, NearestCentroid's predictions,
sample and class weights, partial_fit, and one compiled program for every class."""

import warnings

import jax
import numpy as np
import pytest
import sklearn.linear_model as sk_linear
import sklearn.neighbors as sk_neighbors
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

import jaxlearn.sklearn as jsk
from jaxlearn.linear._sgd_epochs import _fisher_yates
from jaxlearn.sklearn import _sgd
from tests.harness import count_compilations

LOADERS = {
    "iris": load_iris,
    "wine": load_wine,
    "breast_cancer": load_breast_cancer,
    "digits": load_digits,
}
CV = StratifiedKFold(5, shuffle=True, random_state=0)
SEEDS = range(5)


def _data(name, scaled=False, rows=None):
    X, y = LOADERS[name](return_X_y=True)
    X, y = X[:rows], y[:rows]
    return (StandardScaler().fit_transform(X) if scaled else X), y


def _accuracies(make, X, y):
    """The 5-fold CV accuracy (percent) of ``make(seed)`` for each seed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return np.array([100 * cross_val_score(make(seed), X, y, cv=CV).mean() for seed in SEEDS])


# digits: its first 360 rows (all ten classes), so that the 25 fits of each estimator take a few
# seconds; the whole of it is in the benchmark table, with SGDClassifier on raw digits (about 400 epochs
# a fit: half a second).
ROWS = {"digits": 360}
CV_CASES = [
    pytest.param(
        estimator,
        name,
        scaled,
        id=f"{estimator}-{name}-{'standardised' if scaled else 'raw'}",
        # SGDClassifier on raw digits: about 400 epochs a fit (make test-all runs it)
        marks=[pytest.mark.slow]
        if (estimator, name, scaled) == ("SGDClassifier", "digits", False)
        else [],
    )
    for estimator in ("SGDClassifier", "Perceptron")
    for name in LOADERS
    for scaled in (True, False)
]


@pytest.mark.parametrize("estimator,dataset,scaled", CV_CASES)
def test_cv_accuracy_agrees_with_sklearn(estimator, dataset, scaled, request):
    if dataset == "digits":  # 25 fits of many epochs each: their time is in running, not compiling
        request.getfixturevalue("optimised")
    X, y = _data(dataset, rows=ROWS.get(dataset))
    ours, theirs = getattr(jsk, estimator), getattr(sk_linear, estimator)

    def pipe(cls):
        return lambda seed: (
            make_pipeline(StandardScaler(), cls(random_state=seed))
            if scaled
            else cls(random_state=seed)
        )

    a, b = _accuracies(pipe(ours), X, y), _accuracies(pipe(theirs), X, y)
    # The same seeds visit the rows in the same orders, but ours computes in float32 and scikit-learn's in
    # float64: on raw data (scores near 1e7) the rounding can move a fit's stopping epoch, and one fold
    # then lands elsewhere. Within 1 point, or within 3 standard errors of the difference of the two
    # means where that is wider; standardised, within 1 point.
    spread = 3 * np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    assert abs(b.mean() - a.mean()) <= max(1.0, spread), (a.round(2), b.round(2))
    if scaled:
        assert abs(b.mean() - a.mean()) <= 1.0


@pytest.mark.parametrize("scaled", [True, False], ids=["standardised", "raw"])
@pytest.mark.parametrize("dataset", list(LOADERS))
def test_nearest_centroid_predicts_as_sklearn(dataset, scaled):
    X, y = _data(dataset, scaled)
    for train, test in CV.split(X, y):
        ours = jsk.NearestCentroid().fit(X[train], y[train])
        theirs = sk_neighbors.NearestCentroid().fit(X[train], y[train])
        np.testing.assert_allclose(ours.centroids_, theirs.centroids_, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(ours.predict(X[test]), theirs.predict(X[test]))
        np.testing.assert_array_equal(ours.predict(X[train]), theirs.predict(X[train]))


def test_nearest_centroid_sample_weight_is_repeating_rows():
    X, y = _data("wine", scaled=True)
    counts = np.random.RandomState(0).randint(0, 4, size=len(y))
    counts[np.searchsorted(np.sort(y), np.unique(y))] = 1  # every class keeps a row
    weighted = jsk.NearestCentroid().fit(X, y, sample_weight=counts)
    repeated = jsk.NearestCentroid().fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(weighted.centroids_, repeated.centroids_, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    assert not np.array_equal(weighted.centroids_, jsk.NearestCentroid().fit(X, y).centroids_)
    kernel = jsk.NearestCentroid(kernel="rbf", gamma=0.05)  # through the kernel: the same rule
    np.testing.assert_array_equal(
        kernel.fit(X, y, sample_weight=counts).predict(X),
        kernel.fit(np.repeat(X, counts, axis=0), np.repeat(y, counts)).predict(X),
    )
    with pytest.raises(ValueError, match="positive total in every class"):
        jsk.NearestCentroid().fit(X, y, sample_weight=(y != 0).astype(float))


def test_nearest_centroid_any_number_of_classes_and_the_first_class_on_ties():
    X = np.array([[0.0], [2.0], [4.0], [6.0]])
    est = jsk.NearestCentroid().fit(X, ["a", "b", "c", "d"])
    assert est.predict([[1.0], [3.0], [5.0], [7.0]]).tolist() == [
        "a",
        "b",
        "c",
        "d",
    ]  # ties: the first
    assert est.decision_function(X).shape == (4, 4)
    assert est.predict([[1.0]]) == sk_neighbors.NearestCentroid().fit(
        X, ["a", "b", "c", "d"]
    ).predict([[1.0]])


@pytest.mark.parametrize("cls", [jsk.SGDClassifier, jsk.Perceptron], ids=lambda c: c.__name__)
def test_sample_weight_is_repeating_rows_in_distribution(cls):
    # integer weights and repeated rows order the steps differently (and scikit-learn's alike): over the
    # seeds, the share of points given class 1 has the same mean, and differs from the unweighted fit's
    X, y = make_blobs(400, centers=[[0.0, 0.0], [1.5, 0.0]], random_state=0)  # overlapping classes
    counts = np.where(y == 0, 4, 1)

    def positive_rates(data=(X, y), **fit):
        return np.array(
            [np.mean(cls(random_state=s).fit(*data, **fit).predict(X) == 1) for s in range(24)]
        )

    weighted = positive_rates(sample_weight=counts)
    repeated = positive_rates(data=(np.repeat(X, counts, axis=0), np.repeat(y, counts)))
    plain = positive_rates()

    def standard_error(a, b):
        return np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))

    assert abs(weighted.mean() - repeated.mean()) <= 3 * standard_error(weighted, repeated)
    assert plain.mean() - weighted.mean() > 2 * standard_error(plain, weighted)


@pytest.mark.parametrize("cls", [jsk.SGDClassifier, jsk.Perceptron], ids=lambda c: c.__name__)
def test_class_weight_is_a_sample_weight(cls):
    X, y = _data("breast_cancer", scaled=True)
    balanced = cls(class_weight="balanced", random_state=0).fit(X, y)
    weighted = cls(random_state=0).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_array_equal(balanced.coef_, weighted.coef_)
    by_dict = cls(class_weight={0: 2.0}, random_state=0).fit(X, y)
    np.testing.assert_array_equal(
        by_dict.coef_, cls(random_state=0).fit(X, y, sample_weight=2.0 - y).coef_
    )
    with pytest.raises(ValueError, match="balanced"):
        cls(class_weight="balanced").partial_fit(X, y, classes=[0, 1])


@pytest.mark.parametrize("dataset", ["breast_cancer", "iris"])
@pytest.mark.parametrize("cls", [jsk.SGDClassifier, jsk.Perceptron], ids=lambda c: c.__name__)
def test_partial_fit_over_chunks_is_one_epoch_of_fit(cls, dataset):
    X, y = _data(dataset, scaled=True)
    whole = cls(max_iter=1, tol=None, shuffle=False).fit(X, y)
    chunked = cls(shuffle=False)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        chunked.partial_fit(X[:50], y[:50])
    for start in range(0, len(y), 50):
        chunked.partial_fit(X[start : start + 50], y[start : start + 50], classes=np.unique(y))
    np.testing.assert_allclose(chunked.coef_, whole.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(chunked.intercept_, whole.intercept_, rtol=1e-4, atol=1e-5)
    assert chunked.t_ == whole.t_ == 1 + len(y) and chunked.n_iter_ == 1
    with pytest.raises(ValueError, match="not the same as on last call"):
        chunked.partial_fit(X, y, classes=np.arange(7))
    theirs = getattr(sk_linear, cls.__name__)(shuffle=False)  # the same passes, in the same order
    for start in range(0, len(y), 50):
        theirs.partial_fit(X[start : start + 50], y[start : start + 50], classes=np.unique(y))
    for _ in range(5):
        chunked.partial_fit(X, y)
        theirs.partial_fit(X, y)
    assert chunked.score(X, y) >= theirs.score(X, y) - 0.05


@pytest.mark.parametrize("n,seed", [(1, 7), (10, 0), (569, 12345), (1797, 2**31 - 2)])
def test_shuffle_is_sklearns_sequential_dataset_shuffle(n, seed):
    # scikit-learn's SGD shuffles its dataset's index in place each epoch with the same seed: the same
    # permutation applied again; ours follows it over the real rows, the padding of a bucket last
    from sklearn.utils._seq_dataset import ArrayDataset64

    dataset = ArrayDataset64(np.zeros((n, 1)), np.zeros(n), np.ones(n), seed=1)
    order = np.asarray(_fisher_yates(np.uint32(seed), np.int32(n), n + 3))
    assert np.array_equal(order[n:], np.arange(n, n + 3))
    expected = np.arange(n)
    for _ in range(3):
        dataset._shuffle_py(seed)
        theirs = np.array([dataset._next_py()[-1] for _ in range(n)])
        expected = expected[order[:n]]
        assert np.array_equal(expected, theirs)


@pytest.mark.parametrize("scaled", [False, True], ids=["raw", "standardised"])
@pytest.mark.parametrize("dataset", ["breast_cancer", "iris", "wine"])
@pytest.mark.parametrize("cls", [jsk.SGDClassifier, jsk.Perceptron], ids=lambda c: c.__name__)
def test_same_random_state_same_fit_as_sklearn(cls, dataset, scaled, x64):
    # the same random_state visits the rows in scikit-learn's order: the same epochs and coefficients
    # (the Perceptron's steps are sums of rows: exact; the other losses to float64 rounding)
    X, y = _data(dataset, scaled)
    theirs_cls = getattr(sk_linear, cls.__name__)
    for random_state in (0, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ours = cls(random_state=random_state).fit(X, y)
            theirs = theirs_cls(random_state=random_state).fit(X, y)
        assert ours.n_iter_ == theirs.n_iter_ and ours.t_ == theirs.t_
        rtol = 0 if cls is jsk.Perceptron else 1e-10
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=rtol, atol=0)
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=rtol, atol=0)


@pytest.mark.parametrize("dataset", ["breast_cancer", "iris"])
def test_shuffled_partial_fit_and_random_state_objects_as_sklearn(dataset, x64):
    # partial_fit shuffles each chunk as scikit-learn's; a RandomState object (or the global one) is
    # drawn from in scikit-learn's order, so two such fits agree too
    X, y = _data(dataset, scaled=True)
    ours, theirs = jsk.SGDClassifier(random_state=4), sk_linear.SGDClassifier(random_state=4)
    for start in range(0, len(y), 50):
        chunk = slice(start, start + 50)
        ours.partial_fit(X[chunk], y[chunk], classes=np.unique(y))
        theirs.partial_fit(X[chunk], y[chunk], classes=np.unique(y))
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10)
    ours = jsk.Perceptron(random_state=np.random.RandomState(9))
    theirs = sk_linear.Perceptron(random_state=np.random.RandomState(9))
    for _ in range(2):  # the second fit draws on from the same RandomState
        np.testing.assert_array_equal(ours.fit(X, y).coef_, theirs.fit(X, y).coef_)


@pytest.mark.parametrize(
    "loss", ["squared_error", "huber", "epsilon_insensitive", "squared_epsilon_insensitive"]
)
def test_regression_losses_as_sklearn(loss, x64):
    # scikit-learn's SGDClassifier also fits its regression losses to the labels -1 and +1; with its
    # large "optimal" first steps these blow up to coefficients near 1e13, where rounding decides the
    # fit, so the steps here are scikit-learn's other schedules
    X, y = _data("iris", scaled=True)
    for schedule in ("invscaling", "constant"):
        options = dict(loss=loss, learning_rate=schedule, epsilon=0.3, random_state=1)
        ours = jsk.SGDClassifier(**options).fit(X, y)
        theirs = sk_linear.SGDClassifier(**options).fit(X, y)
        assert ours.n_iter_ == theirs.n_iter_
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dataset", ["breast_cancer", "iris"])
def test_coef_init_and_intercept_init_as_sklearn(dataset, x64):
    X, y = _data(dataset, scaled=True)
    K = 1 if dataset == "breast_cancer" else 3
    coef, intercept = np.full((K, X.shape[1]), 0.1), np.ones(K)
    ours = jsk.SGDClassifier(random_state=0).fit(X, y, coef_init=coef, intercept_init=intercept)
    theirs = sk_linear.SGDClassifier(random_state=0).fit(  # (it writes into the arrays it is given)
        X, y, coef_init=coef.copy(), intercept_init=intercept.copy()
    )
    assert ours.n_iter_ == theirs.n_iter_
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10)
    if K == 1:  # one problem: (d,) and a scalar as scikit-learn accepts them
        again = jsk.SGDClassifier(random_state=0).fit(X, y, coef[0], intercept[0])
        np.testing.assert_array_equal(again.coef_, ours.coef_)
    with pytest.raises(ValueError, match=r"`coef_init` of shape \(%d, %d\)" % (K, X.shape[1])):
        jsk.Perceptron().fit(X, y, coef_init=np.zeros((K + 1, X.shape[1])))
    with pytest.raises(ValueError, match="`intercept_init` of shape"):
        jsk.Perceptron().fit(X, y, intercept_init=np.zeros(K + 1))


def test_l1_ratio_none_unless_elasticnet():
    X, y = _data("iris", scaled=True)
    for cls in (jsk.SGDClassifier, jsk.Perceptron):
        default = cls(penalty="l1", random_state=0).fit(X, y)
        unset = cls(penalty="l1", l1_ratio=None, random_state=0).fit(X, y)
        np.testing.assert_array_equal(unset.coef_, default.coef_)
        with pytest.raises(ValueError, match="l1_ratio must be set"):
            cls(penalty="elasticnet", l1_ratio=None).fit(X, y)


def test_sgd_classifier_defaults_and_attributes_are_sklearns():
    ours, theirs = jsk.SGDClassifier().get_params(), sk_linear.SGDClassifier().get_params()
    assert {k: ours[k] for k in ours} == {k: theirs[k] for k in ours}
    ours, theirs = jsk.Perceptron().get_params(), sk_linear.Perceptron().get_params()
    assert {k: ours[k] for k in ours if k != "normalize"} == {
        k: theirs[k] for k in ours if k != "normalize"
    }
    X, y = _data("iris", scaled=True)
    est = jsk.SGDClassifier(random_state=0).fit(X, y)
    assert (
        est.coef_.shape == (3, 4)
        and est.intercept_.shape == (3,)
        and est.decision_function(X).shape == (150, 3)
    )
    assert est.t_ == 1 + est.n_iter_ * len(y) and est.classes_.tolist() == [0, 1, 2]
    binary = jsk.SGDClassifier(random_state=0).fit(X[y < 2], y[y < 2])
    assert binary.coef_.shape == (1, 4) and binary.decision_function(X).shape == (150,)


@pytest.mark.parametrize(
    "loss", ["hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron"]
)
@pytest.mark.parametrize("learning_rate", ["optimal", "constant", "invscaling", "adaptive"])
def test_every_loss_and_schedule_learns(loss, learning_rate):
    X, y = _data("iris", scaled=True)
    ours = jsk.SGDClassifier(loss=loss, learning_rate=learning_rate, eta0=0.01, random_state=0).fit(
        X, y
    )
    theirs = sk_linear.SGDClassifier(
        loss=loss, learning_rate=learning_rate, eta0=0.01, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs.fit(X, y)
    assert ours.score(X, y) > min(0.75, theirs.score(X, y) - 0.1)


@pytest.mark.parametrize("cls", ["SGDClassifier", "Perceptron"])
def test_float64_input_is_fitted_in_float64_as_scikit_learns(cls):
    """On float64 input the SGD estimators compute in float64, as scikit-learn's: on raw breast
    cancer (scores near 1e7) the fit is scikit-learn's to rounding, and so is every fold's accuracy,
    where float32 rounding sends ``SGDClassifier``'s second fold for seed 0 on another path (0.675
    against 0.947)."""
    X, y = _data("breast_cancer")
    ours, theirs = getattr(jsk, cls)(random_state=0), getattr(sk_linear, cls)(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours.fit(X, y)
        theirs.fit(X, y)
        folds = [
            cross_val_score(e, X, y, cv=KFold(5, shuffle=True, random_state=0))
            for e in (ours, theirs)
        ]
        assert ours.coef_.dtype == np.float64 and ours.n_iter_ == theirs.n_iter_
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=0)
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10)
        np.testing.assert_array_equal(*folds)
        assert (
            getattr(jsk, cls)(random_state=0).fit(X.astype(np.float32), y).coef_.dtype == np.float32
        )


@pytest.mark.parametrize(
    "dtype, eta0", [(np.float32, 1e30), (np.float64, 1e30), (np.float64, 1e300)]
)
def test_overflow_is_scikit_learns_error(dtype, eta0):
    """Huge steps overflow where scikit-learn's overflow, in the input's precision: float32 at
    eta0=1e30, float64 only at 1e300."""
    X, y = _data("breast_cancer")
    X = (X * 1e10).astype(dtype)
    options = dict(loss="squared_hinge", learning_rate="constant", eta0=eta0)
    try:
        sk_linear.SGDClassifier(**options).fit(X, y)
    except ValueError as error:
        with pytest.raises(ValueError, match="Floating-point under-/overflow"):
            jsk.SGDClassifier(**options).fit(X, y)
        assert "Floating-point under-/overflow" in str(error)
    else:
        assert np.isfinite(jsk.SGDClassifier(**options).fit(X, y).coef_).all()


def test_multiclass_fit_is_one_program():
    X, y = _data("digits", scaled=True)
    X, y = X[:300], y[:300]
    jsk.SGDClassifier(max_iter=3, random_state=0).fit(X, y)  # tol=None would be another program
    with count_compilations() as compiled:  # new numbers and seeds: nothing compiles
        est = jsk.SGDClassifier(
            alpha=1e-3, max_iter=4, tol=1e-2, n_iter_no_change=2, random_state=5
        ).fit(X, y)
        jsk.SGDClassifier(eta0=0.5, max_iter=2, random_state=1).partial_fit(
            X, y, classes=np.arange(10)
        )
    assert compiled[0] == 0 and est.coef_.shape == (10, 64)
    # every class in one program: a new number of classes compiles the same count as any other
    counts = []
    for num_classes in (3, 7):
        keep = y < num_classes
        size = _sgd.fit_classes._cache_size()
        with count_compilations() as compiled:
            jsk.SGDClassifier(max_iter=2, random_state=0).fit(X[keep][:100], y[keep][:100])
        assert _sgd.fit_classes._cache_size() == size + 1
        counts.append(compiled[0])
    assert counts[0] == counts[1]


def test_perceptron_normalize_is_the_perceptron_on_unit_rows():
    X, y = _data("wine")
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    ours = jsk.Perceptron(normalize=True).fit(X, y)
    np.testing.assert_allclose(
        ours.coef_, jsk.Perceptron().fit(unit, y).coef_, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_array_equal(ours.predict(X), jsk.Perceptron().fit(unit, y).predict(unit))
    with pytest.raises(ValueError, match="`normalize=True` inside a reduction"):
        jsk.OneVsRestClassifier(jsk.Perceptron(normalize=True)).fit(X, y)


@pytest.mark.parametrize("loss", ["log_loss", "modified_huber"])
@pytest.mark.parametrize("dataset", ["iris", "breast_cancer"])
def test_predict_proba_is_sklearns_formula(loss, dataset):
    X, y = _data(dataset, scaled=True)
    ours = jsk.SGDClassifier(loss=loss, random_state=0).fit(X, y)
    theirs = sk_linear.SGDClassifier(loss=loss).fit(X, y)  # its formula on our coefficients
    theirs.coef_, theirs.intercept_ = (
        ours.coef_.astype(np.float64),
        ours.intercept_.astype(np.float64),
    )
    # float32 scores against float64 ones: a few ulps of a probability near 0
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-5, atol=5e-6)
    np.testing.assert_allclose(ours.predict_proba(X).sum(axis=1), 1.0, rtol=1e-6)
    assert not hasattr(jsk.SGDClassifier(), "predict_proba")  # hinge: none, as scikit-learn's


@pytest.mark.parametrize("cls", [jsk.SGDClassifier, jsk.Perceptron], ids=lambda c: c.__name__)
def test_warm_start_goes_on_from_the_last_coefficients(cls):
    X, y = _data("iris", scaled=True)
    first = cls(max_iter=2, tol=None, shuffle=False, warm_start=True).fit(X, y)
    coef = first.coef_.copy()
    first.set_params(max_iter=1).fit(X, y)  # one more epoch from coef, t_ from 1 (scikit-learn's)
    cold = cls(max_iter=1, tol=None, shuffle=False).fit(X, y)
    assert not np.allclose(first.coef_, cold.coef_) and not np.allclose(first.coef_, coef)
    assert first.t_ == 1 + len(y)
    with pytest.raises(ValueError, match="warm_start"):
        first.fit(X[:, :3], y)


@pytest.mark.parametrize("cls", [jsk.SGDClassifier, jsk.Perceptron], ids=lambda c: c.__name__)
def test_early_stopping_agrees_with_sklearn(cls):
    # scikit-learn's validation score reads its weight vector before the pending L2 scale factor
    # (wscale); ours scores the held-out rows the same way, so in float64 the epochs and the fits are
    # scikit-learn's: every seed's accuracy, and on iris (whose middle class is not separable) each
    # one-vs-all problem's epochs and coefficients
    X, y = _data("breast_cancer", scaled=True)
    theirs = getattr(sk_linear, cls.__name__)
    a = _accuracies(lambda s: cls(early_stopping=True, random_state=s), X, y)
    b = _accuracies(lambda s: theirs(early_stopping=True, random_state=s), X, y)
    np.testing.assert_array_equal(a, b)
    X, y = load_iris(return_X_y=True)
    options = dict(early_stopping=True, n_iter_no_change=100, alpha=1e-3, random_state=0)
    ours, sk = cls(**options).fit(X, y), theirs(**options).fit(X, y)
    assert ours.n_iter_ == sk.n_iter_
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="early_stopping should be False with partial_fit"):
        cls(early_stopping=True).partial_fit(X, y, classes=[0, 1])


def test_early_stopping_holds_out_rows_and_watches_their_accuracy():
    # the held-out 20% are never stepped on: each class's step counter grows by 120 of the 150 rows an
    # epoch (t_, as scikit-learn's, counts every row); the fit stops on their accuracy
    X, y = _data("iris", scaled=True)
    est = jsk.SGDClassifier(
        early_stopping=True, validation_fraction=0.2, n_iter_no_change=3, random_state=0
    )
    est.fit(X, y)
    assert 4 <= est.n_iter_ < 1000 and est.t_ == 1 + est.n_iter_ * len(y)
    assert np.all(
        np.asarray(est.params_.t) == 1 + np.asarray(est.params_.num_epochs) * 120
    )  # 80% stepped on
    with pytest.raises(ValueError, match="`validation_fraction`"):
        jsk.SGDClassifier(early_stopping=True, validation_fraction=1.0).fit(X, y)


@pytest.mark.parametrize(
    "cls", [jsk.Ridge, jsk.RidgeClassifier, jsk.KernelRidge, jsk.HardMarginSVC]
)
def test_deterministic_fits_leave_numpys_global_generator_alone(cls):
    """A deterministic fit (a closed form, or an estimator without ``random_state``) draws no seed
    from NumPy's global generator: the user's own draws after a fit are those they would get
    without it."""
    X, y = load_iris(return_X_y=True)
    if cls is jsk.HardMarginSVC:  # two separable classes
        X, y = X[y < 2], y[y < 2]
    np.random.seed(0)
    before = np.random.get_state()[1].copy(), np.random.get_state()[2]
    cls().fit(X, y.astype(float) if cls in (jsk.Ridge, jsk.KernelRidge) else y)
    after = np.random.get_state()[1], np.random.get_state()[2]
    np.testing.assert_array_equal(after[0], before[0])
    assert after[1] == before[1]


@pytest.mark.parametrize(
    "make",
    [jsk.LinearSVC, jsk.SGDClassifier, jsk.Perceptron, jsk.LogisticRegression, jsk.RidgeClassifier],
)
@pytest.mark.parametrize("classes", [2, 3])
def test_coef_and_intercept_are_writable_and_the_scores_read_them(make, classes):
    X, y = load_iris(return_X_y=True)
    y = y if classes == 3 else y % 2
    model = make().fit(X, y)
    model.coef_[...] = 0  # scikit-learn's test_write_parameters
    model.intercept_[...] = 0
    np.testing.assert_array_equal(model.decision_function(X), 0)
    model.coef_[..., 0] = 1.0
    np.testing.assert_allclose(
        model.decision_function(X), np.squeeze(X @ model.coef_.T), rtol=1e-6, atol=1e-6
    )


@pytest.mark.parametrize(
    "name", ["SGDClassifier", "Perceptron", "LinearSVC", "SVC", "RidgeClassifier", "Ridge"]
)
def test_two_classes_fit_their_one_problem_unbatched_as_vmapped(monkeypatch, name):
    # a single binary problem (or one regression target) is fitted without vmap (a program that
    # traces and compiles in less time); the one-example steps and the closed form give the bits of
    # the vmapped fit of that one problem, Newton's method on LinearSVC's primal (matrix products of
    # other shapes) the same solution to rounding
    from jaxlearn.sklearn import _linear

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X[:150]).astype(np.float32)
    y = y[:150]
    seeded = {"random_state": 0} if name in ("SGDClassifier", "Perceptron") else {}
    scores = "predict" if name == "Ridge" else "decision_function"
    unbatched = getattr(getattr(jsk, name)(**seeded).fit(X, y), scores)(X)
    batched_calls = []

    def vmapped(fit, *problems):
        batched_calls.append(problems[0].shape[0])
        return jax.vmap(fit)(*problems)

    for module in (_linear, _sgd):
        monkeypatch.setattr(module, "map_problems", vmapped)
    programs = (
        _sgd.fit_classes,
        _linear._fit_primal_problems,
        _linear._fit_pairs,
        _linear._fit_ridge_columns,
    )
    for program in programs:  # retrace: the cached programs hold the unbatched fit
        program.clear_cache()
    try:
        batched = getattr(getattr(jsk, name)(**seeded).fit(X, y), scores)(X)
    finally:
        for program in programs:  # and leave none of the vmapped ones to later tests
            program.clear_cache()
    assert batched_calls == [1]
    if name == "LinearSVC":
        np.testing.assert_allclose(unbatched, batched, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_array_equal(unbatched, batched)
