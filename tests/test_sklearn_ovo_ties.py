"""OneVsOneClassifier scores and breaks ties as scikit-learn's, on fixed binary scores.

Both reductions wrap a stub whose pair (i, j) reads its score off column ``1 + p`` of ``X`` (``p``
the pair's index in ``np.triu_indices(K, 1)`` order): scikit-learn's score is positive for ``j``,
jaxlearn's for ``i``, so the stub's jaxlearn score is the negated column. Column 0 of the training
rows holds their class, from which each stub learns its pair.
"""

import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.multiclass import OneVsOneClassifier as SkOneVsOne

from jaxlearn import core
from jaxlearn.sklearn import OneVsOneClassifier
from jaxlearn.sklearn._base import JaxlearnEstimator


def _pair_index(i, j, k):
    return i * k - i * (i + 1) // 2 + (j - i - 1)


class SkStub(ClassifierMixin, BaseEstimator):
    def __init__(self, k=3):
        self.k = k

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.pair_ = (int(X[y == 0, 0][0]), int(X[y == 1, 0][0]))
        return self

    def decision_function(self, X):
        return X[:, 1 + _pair_index(*self.pair_, self.k)]

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


class JaxStub(JaxlearnEstimator):
    def __init__(self, k=3, random_state=None):
        self.k = k
        self.random_state = random_state

    def _batch_learner(self, X=None):
        k = self.k

        def fit(key, X, y):
            i = jnp.max(jnp.where(y > 0, X[:, 0], -1.0)).astype(jnp.int32)
            j = jnp.max(jnp.where(y < 0, X[:, 0], -1.0)).astype(jnp.int32)
            return jnp.stack([i, j])

        def decision_function(params, X):
            return -X[:, 1 + _pair_index(params[0], params[1], k)]

        def predict(params, X):
            return jnp.where(decision_function(params, X) >= 0, 1, -1)

        return core.BatchLearner(fit, predict, decision_function)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_ovo_matches_sklearn_on_fixed_scores_with_ties(k):
    rng = np.random.RandomState(k)
    num_pairs = k * (k - 1) // 2
    y = np.tile(np.arange(k), 3)
    X_train = np.hstack([y[:, None], np.zeros((y.size, num_pairs))]).astype(np.float32)
    # scores in {-1, -0.5, 0, 0.5, 1}: exact zeros, tied votes, tied and cancelling confidences
    scores = rng.choice([-1.0, -0.5, 0.0, 0.0, 0.5, 1.0], size=(200, num_pairs))
    scores[:5] = 0.0
    X_test = np.hstack([np.zeros((200, 1)), scores]).astype(np.float32)
    ours = OneVsOneClassifier(JaxStub(k)).fit(X_train, y)
    theirs = SkOneVsOne(SkStub(k)).fit(X_train, y)
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), rtol=1e-6
    )
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
