"""MLPClassifier trains as scikit-learn's: Glorot-uniform start, epochs, the stopping rule on the epoch
loss (or the held-out accuracy with early_stopping), the last iterate, sample_weight in fit.

Given the same start, full batches and float64, ours and scikit-learn's run the same iterates: the same
loss curve, epoch count, held-out scores and probabilities."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sklearn.neural_network
from sklearn import datasets
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state

from jaxlearn import nn
from jaxlearn.sklearn import MLPClassifier


def _blobs(m=60, classes=3, seed=0):
    rng = np.random.RandomState(seed)
    centers = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])[:classes]
    y = np.tile(np.arange(classes), m // classes)
    return centers[y] + 1.2 * rng.randn(m, 2), np.array(["a", "b", "c"])[y]


def _our_start(estimator, n_features, n_outputs):
    """The start our estimator draws in fit (from a fresh ``RandomState`` of its ``random_state``)."""
    rng = check_random_state(estimator.random_state)
    return estimator._start(rng, n_features, n_outputs, np.float64)


CASES = {
    "adam": dict(classes=3),
    "adam-binary": dict(classes=2),
    "sgd": dict(classes=3, solver="sgd", learning_rate_init=0.05),
    "early-stopping": dict(classes=3, early_stopping=True, validation_fraction=0.3),
    "early-stopping-binary": dict(classes=2, early_stopping=True, validation_fraction=0.3),
    "logistic": dict(classes=3, activation="logistic"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_random_state_same_iterates_as_sklearn(case, x64):
    """The same ``random_state`` draws scikit-learn's start (and its held-out rows); with the rows in
    order, every epoch is then scikit-learn's."""
    options = dict(CASES[case])
    X, y = _blobs(classes=options.pop("classes"))
    params = dict(
        hidden_layer_sizes=(6,),
        shuffle=False,  # and batch_size="auto": one batch an epoch
        learning_rate_init=0.02,
        tol=1e-3,
        max_iter=400,
        random_state=3,
    )
    params.update(options)
    ours = MLPClassifier(**params)
    theirs = sklearn.neural_network.MLPClassifier(**params)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert ours.n_iter_ == theirs.n_iter_ < 400  # the stopping rule fired at the same epoch
    np.testing.assert_allclose(ours.loss_curve_, theirs.loss_curve_, rtol=1e-9)
    np.testing.assert_allclose(
        ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-7, atol=1e-12
    )
    if ours.early_stopping:
        assert ours.best_loss_ is None
        np.testing.assert_allclose(ours.validation_scores_, theirs.validation_scores_)
        assert ours.best_validation_score_ == theirs.best_validation_score_
    else:
        assert ours.best_loss_ == pytest.approx(theirs.best_loss_, rel=1e-9)
        assert ours.validation_scores_ is None


def test_stopping_rule_is_sklearns():
    # the rule alone, on a made-up loss curve, against scikit-learn's _update_no_improvement_count
    losses = [1.0, 0.5, 0.49995, 0.4, 0.39999, 0.39998, 0.41, 0.39, 0.38995] + [0.38991] * 20
    theirs = sklearn.neural_network.MLPClassifier(n_iter_no_change=3)
    theirs.loss_curve_, theirs.best_loss_, theirs._no_improvement_count = [], np.inf, 0
    theirs_stop = ours_stop = None
    for epoch, loss in enumerate(losses, 1):
        theirs.loss_curve_.append(loss)
        theirs._update_no_improvement_count(False, None, None, None)
        if theirs._no_improvement_count > 3:
            theirs_stop = epoch
            break
    count, best = 0, np.inf
    for epoch, loss in enumerate(losses, 1):  # the rule as mlp_fit's loop body writes it
        count = count + 1 if loss > best - 1e-4 else 0
        best = min(best, loss)
        if count > 3:
            ours_stop = epoch
            break
    assert ours_stop == theirs_stop is not None


def test_glorot_bounds():
    for factor in (6.0, 2.0):
        layers = nn.glorot_init(jax.random.PRNGKey(0), [30, 50, 20], factor=factor)
        for (W, b), (k_in, k_out) in zip(layers, [(30, 50), (50, 20)]):
            bound = np.sqrt(factor / (k_in + k_out))
            assert W.shape == (k_out, k_in) and b.shape == (k_out,)
            for a in (np.asarray(W), np.asarray(b)):
                assert np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound
            assert abs(np.asarray(W).std() - bound / np.sqrt(3)) < 0.1 * bound  # uniform's std


def test_logistic_start_uses_factor_two(x64):
    for activation, factor in (("relu", 6.0), ("logistic", 2.0)):
        start = _our_start(MLPClassifier(activation=activation, random_state=0), 4, 3)
        assert np.abs(np.asarray(start[0][0])).max() <= np.sqrt(factor / 104)
        assert np.abs(np.asarray(start[0][0])).max() > 0.9 * np.sqrt(factor / 104)


def _fit(X, y, w=None, **options):
    mlp = MLPClassifier((5,), batch_size=1000, learning_rate_init=0.02, random_state=1, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return mlp.fit(X, y, sample_weight=w)


def test_sample_weight_is_repeated_rows(x64):
    X, y = _blobs(m=30)
    w = np.arange(30) % 3 + 1
    weighted = _fit(X, y, w, max_iter=60)
    repeated = _fit(np.repeat(X, w, axis=0), np.repeat(y, w), max_iter=60)
    np.testing.assert_allclose(weighted.loss_curve_, repeated.loss_curve_, rtol=1e-9)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-8)


def test_zero_weight_is_row_removed(x64):
    X, y = _blobs(m=30)
    w = (np.arange(30) % 4 != 0).astype(float)
    weighted = _fit(X, y, w, max_iter=60)
    removed = _fit(X[w > 0], y[w > 0], max_iter=60)
    np.testing.assert_allclose(weighted.loss_curve_, removed.loss_curve_, rtol=1e-9)
    np.testing.assert_allclose(weighted.predict_proba(X), removed.predict_proba(X), rtol=1e-8)


def test_early_stopping_keeps_the_best_held_out_iterate():
    X, y = _blobs(m=90, seed=1)
    X, y = jnp.asarray(X, jnp.float32), jnp.asarray(np.unique(y, return_inverse=True)[1])
    start = nn.glorot_init(jax.random.PRNGKey(0), [2, 8, 3])
    options = dict(eta=0.02, batch_size=16, validation=(X[60:], y[60:]), n_iter_no_change=5)
    fit = nn.mlp_fit(jax.random.PRNGKey(1), start, X[:60], y[:60], max_epochs=200, **options)
    n = int(fit.n_epochs)
    scores = np.asarray(fit.validation_scores)
    assert bool(fit.converged) and np.isnan(scores[n:]).all() and np.isnan(fit.loss_curve[n:]).all()
    best = int(np.argmax(scores[:n]))  # the first of the best scores
    assert n - best - 1 == 6  # more than n_iter_no_change epochs without improving by tol
    # the epochs up to the best, run alone: the same iterate
    alone = nn.mlp_fit(jax.random.PRNGKey(1), start, X[:60], y[:60], max_epochs=best + 1, **options)
    for (W, b), (W2, b2) in zip(fit.layers, alone.layers):
        np.testing.assert_array_equal(W, W2)
        np.testing.assert_array_equal(b, b2)
    assert float(np.asarray(alone.validation_scores)[best]) == scores[best]


def test_convergence_warning_when_max_iter_ends_it():
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning, match="Maximum iterations \\(3\\)"):
        MLPClassifier((4,), max_iter=3, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        mlp = MLPClassifier((8,), learning_rate_init=0.05, tol=1e-3, random_state=0).fit(X, y)
    assert mlp.n_iter_ < 200 and len(mlp.loss_curve_) == mlp.n_iter_
    assert mlp.best_loss_ == min(mlp.loss_curve_)


def test_unsupported_options_refused():
    X, y = _blobs()
    with pytest.raises(ValueError, match="`solver`.*'newton'"):
        MLPClassifier(solver="newton").fit(X, y)
    with pytest.raises(ValueError, match="early_stopping"):
        MLPClassifier(early_stopping=True).partial_fit(X, y, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="beta_1"):
        MLPClassifier(beta_1=1.0).fit(X, y)


def test_iris_scaled_accuracy_is_sklearns():
    X, y = datasets.load_iris(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=0)

    def mean_score(cls):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return np.mean(
                [
                    cross_val_score(
                        make_pipeline(StandardScaler(), cls(random_state=r)), X, y, cv=cv
                    )
                    for r in range(5)
                ]
            )

    ours, theirs = mean_score(MLPClassifier), mean_score(sklearn.neural_network.MLPClassifier)
    assert ours >= theirs - 0.01, (ours, theirs)


@pytest.mark.parametrize("load", [datasets.load_iris, datasets.load_breast_cancer])
def test_lbfgs_runs_scikit_learns_iterations(load, x64):
    """``solver="lbfgs"``: from the same Glorot start, L-BFGS on the whole sample's loss stops near
    scikit-learn's iteration (the line searches differ: SciPy's is Moré-Thuente's) with its loss and
    predictions (float64); no ``loss_curve_``, and no ``partial_fit``, as scikit-learn's."""
    X, y = load(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    for seed in range(2):  # alpha=1: a minimum the data do not push to zero loss
        options = dict(hidden_layer_sizes=(10,), solver="lbfgs", alpha=1.0, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # breast cancer: both at max_iter
            ours = MLPClassifier(**options).fit(X, y)
            theirs = sklearn.neural_network.MLPClassifier(**options).fit(X, y)
        assert abs(ours.n_iter_ - theirs.n_iter_) <= max(5, theirs.n_iter_ // 10)
        np.testing.assert_allclose(ours.loss_, theirs.loss_, rtol=2e-3)
        assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.99
    assert not hasattr(ours, "loss_curve_") and not hasattr(ours, "partial_fit")
    with pytest.warns(ConvergenceWarning, match="lbfgs failed to converge after 3 iterations"):
        MLPClassifier((10,), solver="lbfgs", max_iter=3, random_state=0).fit(X, y)
