"""MLPClassifier's partial_fit (one epoch a call) and loss_curve_ (one mean cross-entropy an epoch)."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from jaxlearn.sklearn import MLPClassifier


def _blobs(seed=0, m=120):
    rng = np.random.RandomState(seed)
    centers = np.array([[3.0, 0.0], [0.0, 3.0], [-3.0, -3.0]])
    y = np.tile(np.arange(3), m // 3)
    return (centers[y] + 0.5 * rng.randn(m, 2)).astype(np.float32), np.array(["a", "b", "c"])[y]


def test_loss_curve_one_entry_an_epoch_and_decreasing():
    X, y = _blobs()
    # n_iter_no_change=max_iter: the stopping rule cannot end the run (scikit-learn's way to play
    # every epoch); max_iter then does, with scikit-learn's ConvergenceWarning
    mlp = MLPClassifier(
        (8,),
        max_iter=30,
        batch_size=40,
        learning_rate_init=0.05,
        random_state=0,
        n_iter_no_change=30,
    )
    with pytest.warns(ConvergenceWarning, match="Maximum iterations"):
        mlp.fit(X, y)
    assert len(mlp.loss_curve_) == mlp.n_iter_ == 30
    assert all(isinstance(v, float) for v in mlp.loss_curve_)
    assert mlp.loss_curve_[-1] < 0.5 * mlp.loss_curve_[0]
    assert mlp.best_loss_ == min(mlp.loss_curve_)


def test_partial_fit_over_chunks():
    X, y = _blobs()
    mlp = MLPClassifier((8,), batch_size=10, learning_rate_init=0.05, random_state=0)
    for epoch in range(15):
        for chunk in range(3):
            rows = slice(40 * chunk, 40 * (chunk + 1))
            mlp.partial_fit(
                X[rows], y[rows], classes=["a", "b", "c"] if epoch == chunk == 0 else None
            )
    assert mlp.n_iter_ == len(mlp.loss_curve_) == 45
    assert mlp.loss_curve_[-1] < 0.5 * mlp.loss_curve_[0]
    assert list(mlp.classes_) == ["a", "b", "c"]
    assert mlp.score(X, y) == 1.0
    assert mlp.predict_proba(X).shape == (120, 3)


def test_partial_fit_classes_required_and_checked():
    X, y = _blobs()
    with pytest.raises(ValueError, match="classes"):
        MLPClassifier((4,)).partial_fit(X, y)
    mlp = MLPClassifier((4,), random_state=0).partial_fit(
        X[:30], y[:30], classes=["a", "b", "c", "d"]
    )
    assert mlp.predict_proba(X).shape == (120, 4)  # a class not seen yet still has its column
    with pytest.raises(ValueError, match="in `classes`"):
        mlp.partial_fit(X[:3], ["a", "b", "z"])


def test_partial_fit_after_fit_continues():
    X, y = _blobs()
    mlp = MLPClassifier((8,), max_iter=5, learning_rate_init=0.05, random_state=0).fit(X, y)
    mlp.partial_fit(X, y)
    assert mlp.n_iter_ == len(mlp.loss_curve_) == 6
