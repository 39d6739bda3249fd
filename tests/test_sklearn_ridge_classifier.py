"""RidgeClassifier with more than two classes, as scikit-learn's: one ridge regression of each class's
{-1, +1} indicator (one vmapped program), the largest fitted value is the class."""

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
    assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.99  # the intercept is penalised here
    # centred features: the penalised intercept only shrinks each class's mean indicator by n/(n+alpha)
    np.testing.assert_allclose(scores, theirs.decision_function(X), atol=0.02)


def test_each_class_is_the_binary_ridge_of_its_indicator():
    X, y = datasets.load_iris(return_X_y=True)
    X = X.astype(np.float32)
    ours = RidgeClassifier(alpha=0.5).fit(X, y)
    for k in range(3):
        one = RidgeClassifier(alpha=0.5).fit(X, y == k)
        np.testing.assert_allclose(
            ours.decision_function(X)[:, k], one.decision_function(X), rtol=1e-4, atol=1e-4
        )
