"""Ridge, RidgeClassifier and KernelRidge as scikit-learn's: the intercept not penalised, example and
class weights, several targets; RidgeClassifier is one ridge regression of each class's {-1, +1}
indicator (one vmapped program), the largest fitted value is the class."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import datasets
from sklearn.linear_model import RidgeClassifier as Theirs
from sklearn.preprocessing import StandardScaler

from jaxlearn.sklearn import RidgeClassifier


@pytest.mark.parametrize("load", [datasets.load_iris, datasets.load_wine, datasets.load_digits])
def test_multiclass_agrees_with_scikit_learn_on_standardised_data(load):
    X, y = load(return_X_y=True)
    X = StandardScaler().fit_transform(X).astype(np.float32)
    ours, theirs = RidgeClassifier().fit(X, y), Theirs().fit(X, y)
    scores = ours.decision_function(X)
    assert scores.shape == (len(X), len(np.unique(y)))
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.predict(X), ours.classes_[np.argmax(scores, axis=1)])
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(scores, theirs.decision_function(X), atol=1e-4)


@pytest.mark.parametrize("alpha", [1e-4, 1e-8])
def test_collinear_float32_features_and_a_small_alpha_predict_as_scikit_learn(alpha):
    """Four features are sums of others: the float32 normal equations are indefinite by rounding
    (the Cholesky factor not finite, every prediction the first class before); the fit then takes
    the SVD of the centred rows, as scikit-learn's does."""
    X, y = datasets.make_classification(
        2000, 20, n_informative=8, n_redundant=4, n_classes=3, random_state=0
    )
    X = X.astype(np.float32)
    ours, theirs = RidgeClassifier(alpha=alpha).fit(X, y), Theirs(alpha=alpha).fit(X, y)
    assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.995


def test_each_class_is_the_binary_ridge_of_its_indicator():
    X, y = datasets.load_iris(return_X_y=True)
    X = X.astype(np.float32)
    ours = RidgeClassifier(alpha=0.5).fit(X, y)
    for k in range(3):
        one = RidgeClassifier(alpha=0.5).fit(X, y == k)
        np.testing.assert_allclose(
            ours.decision_function(X)[:, k], one.decision_function(X), rtol=1e-4, atol=1e-4
        )


@pytest.mark.parametrize("load", [datasets.load_wine, datasets.load_breast_cancer])
def test_raw_features_and_weights_agree_with_scikit_learn_in_float64(load):
    """Unscaled features, per-row and per-class weights: the same unpenalised-intercept problem."""
    import jax

    X, y = load(return_X_y=True)
    weights = np.random.default_rng(0).uniform(0.2, 3.0, size=len(y))
    options = dict(alpha=0.7, class_weight="balanced")
    with jax.enable_x64(True):
        ours = RidgeClassifier(**options).fit(X, y, sample_weight=weights)
    theirs = Theirs(**options).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_ridge_regressor_with_weights_agrees_with_scikit_learn_in_float64():
    import jax
    from sklearn.linear_model import Ridge as TheirRidge

    from jaxlearn.sklearn import Ridge

    X, y = datasets.load_diabetes(return_X_y=True)
    weights = np.random.default_rng(1).uniform(0.0, 2.0, size=len(y))
    for fit_intercept in (True, False):
        with jax.enable_x64(True):
            ours = Ridge(alpha=0.3, fit_intercept=fit_intercept).fit(X, y, sample_weight=weights)
            predictions = ours.predict(X)
        theirs = TheirRidge(alpha=0.3, fit_intercept=fit_intercept).fit(X, y, sample_weight=weights)
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-7)
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(predictions, theirs.predict(X), rtol=1e-7, atol=1e-9)


def test_zero_weights_are_left_out_and_an_all_zero_weighting_is_refused():
    X, y = datasets.load_iris(return_X_y=True)
    weights = np.where(np.arange(len(y)) % 3 == 0, 0.0, 1.0)
    kept = weights > 0
    ours = RidgeClassifier().fit(X, y, sample_weight=weights)
    alone = RidgeClassifier().fit(X[kept], y[kept])
    np.testing.assert_allclose(ours.coef_, alone.coef_, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="non-zero"):  # scikit-learn's own check of sample_weight
        RidgeClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="class_weight"):
        RidgeClassifier(class_weight={0: 0.0, 1: 0.0, 2: 0.0}).fit(X, y)


def test_ridge_fits_several_targets_at_once_and_names_the_solvers_it_offers():
    import jax
    from sklearn.linear_model import Ridge as TheirRidge

    from jaxlearn.sklearn import Ridge

    X = np.random.default_rng(2).normal(size=(40, 5))
    Y = X @ np.random.default_rng(3).normal(size=(5, 3)) + 1.0
    with jax.enable_x64(True):
        ours = Ridge(alpha=0.5, solver="svd").fit(X, Y)
        predictions = ours.predict(X)
    theirs = TheirRidge(alpha=0.5, solver="svd").fit(X, Y)
    assert ours.coef_.shape == (3, 5) and ours.intercept_.shape == (3,)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9)
    np.testing.assert_allclose(predictions, theirs.predict(X), rtol=1e-9)
    with pytest.raises(ValueError, match="solver.*'sag'"):
        Ridge(solver="sag").fit(X, Y[:, 0])


def test_ridge_takes_one_alpha_per_target_as_scikit_learn():
    """``alpha`` of shape (n_targets,): each column its own penalty, in the one vmapped program."""
    import jax
    from sklearn.linear_model import Ridge as TheirRidge

    from jaxlearn.sklearn import Ridge

    X = np.random.default_rng(4).normal(size=(30, 4))
    Y = X @ np.random.default_rng(5).normal(size=(4, 3)) + np.random.default_rng(6).normal(
        size=(30, 3)
    )
    alpha = np.array([0.1, 10.0, 1000.0])
    with jax.enable_x64(True):
        ours = Ridge(alpha=alpha).fit(X, Y)
        one_by_one = [Ridge(alpha=a).fit(X, Y[:, j]).coef_ for j, a in enumerate(alpha)]
    theirs = TheirRidge(alpha=alpha).fit(X, Y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.coef_, np.stack(one_by_one), rtol=1e-12)
    with pytest.raises(ValueError, match=r"`alpha` a number or an array of one per target \(3\)"):
        Ridge(alpha=alpha[:2]).fit(X, Y)


@pytest.mark.parametrize("kernel", [{"kernel": "rbf", "gamma": 0.3}, {"kernel": "linear"}])
def test_kernel_ridge_with_weights_agrees_with_scikit_learn_in_float64(kernel):
    import jax
    from sklearn.kernel_ridge import KernelRidge as TheirKernelRidge

    from jaxlearn.sklearn import KernelRidge

    X, y = datasets.load_diabetes(return_X_y=True)
    X, y = X[:150], y[:150]
    weights = np.random.default_rng(4).uniform(0.0, 2.0, size=len(y))
    with jax.enable_x64(True):
        ours = KernelRidge(alpha=0.7, **kernel).fit(X, y, sample_weight=weights)
        predictions = ours.predict(X)
    theirs = TheirKernelRidge(alpha=0.7, **kernel).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(predictions, theirs.predict(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.params_.alpha[: len(y)], theirs.dual_coef_, rtol=1e-8)
    assert not np.any(ours.params_.alpha[len(y) :])  # the padding rows: coefficient 0


def test_kernel_ridge_pads_to_its_bucket_and_leaves_out_weight_zero():
    from jaxlearn.sklearn import KernelRidge
    from tests.harness import count_compilations

    X, y = datasets.load_diabetes(return_X_y=True)
    X, y = X.astype(np.float32), y.astype(np.float32)
    KernelRidge(kernel="rbf").fit(X[:100], y[:100]).predict(X[:100])  # bucket 112
    with count_compilations() as compiled:
        ours = KernelRidge(kernel="rbf").fit(X[:107], y[:107])
        ours.predict(X[:107])
    assert compiled[0] == 0
    kept = KernelRidge(kernel="rbf").fit(
        X[:107], y[:107], sample_weight=np.r_[np.ones(100), np.zeros(7)]
    )
    alone = KernelRidge(kernel="rbf").fit(X[:100], y[:100])
    np.testing.assert_allclose(kept.predict(X[100:120]), alone.predict(X[100:120]), rtol=1e-4)


@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")  # scikit-learn's float32 solve
@pytest.mark.parametrize("estimator", ["Ridge", "RidgeClassifier"])
def test_ridge_solves_in_the_inputs_precision_as_scikit_learn(estimator):
    """float64 data (x64 off) gives float64 coefficients, scikit-learn's to rounding; float32 data
    stays float32, as scikit-learn's keeps it."""
    import sklearn.linear_model

    import jaxlearn.sklearn as jsk

    X, y = datasets.load_breast_cancer(return_X_y=True)  # raw: features of scales 1e-3 to 1e3
    ours = getattr(jsk, estimator)(alpha=1e-3).fit(X, y)
    theirs = getattr(sklearn.linear_model, estimator)(alpha=1e-3).fit(X, y)
    assert ours.coef_.dtype == np.float64 and ours.predict(X).dtype == theirs.predict(X).dtype
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-9)
    X32 = X.astype(np.float32)
    single = getattr(jsk, estimator)(alpha=1e-3).fit(X32, y)
    theirs = getattr(sklearn.linear_model, estimator)(alpha=1e-3).fit(X32, y)
    assert single.coef_.dtype == theirs.coef_.dtype == np.float32
    assert single.predict(X32).dtype == theirs.predict(X32).dtype


def test_kernel_ridge_solves_float64_data_in_float64():
    """A tiny ``alpha`` is beyond float32's resolution of the Gram matrix; in float64 (x64 off)
    the predictions are scikit-learn's."""
    from sklearn.kernel_ridge import KernelRidge as TheirKernelRidge

    from jaxlearn.sklearn import KernelRidge

    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=200)
    X_new = rng.normal(size=(50, 3))
    ours = KernelRidge(alpha=1e-8, kernel="rbf", gamma=0.5).fit(X, y)
    theirs = TheirKernelRidge(alpha=1e-8, kernel="rbf", gamma=0.5).fit(X, y)
    assert ours.params_.alpha.dtype == np.float64
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=1e-6, atol=1e-6)
    single = KernelRidge(alpha=1.0, kernel="rbf", gamma=0.5).fit(X.astype(np.float32), y)
    assert single.predict(X_new.astype(np.float32)).dtype == np.float32


@pytest.mark.parametrize("estimator", ["Ridge", "RidgeClassifier"])
def test_coef_and_intercept_are_writable_and_predict_reads_them(estimator):
    import jaxlearn.sklearn as jsk

    X, y = datasets.load_iris(return_X_y=True)
    fitted = getattr(jsk, estimator)().fit(X, y)
    fitted.coef_[...] = 0.0
    if estimator == "Ridge":  # one target: a float, as scikit-learn's
        fitted.intercept_ = 1.5
    else:
        fitted.intercept_[...] = 1.5
    scores = fitted.predict(X) if estimator == "Ridge" else fitted.decision_function(X)
    np.testing.assert_array_equal(scores, np.full_like(scores, 1.5))


@pytest.mark.parametrize("estimator", ["KernelRidge", "NearestCentroid"])
def test_an_indefinite_kernel_is_refused_where_a_closed_form_needs_a_psd_one(estimator):
    import jaxlearn.sklearn as jsk

    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="`kernel` one of 'linear', 'rbf', 'poly'.*'sigmoid'"):
        getattr(jsk, estimator)(kernel="sigmoid").fit(X, y)
