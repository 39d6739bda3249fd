"""The multiclass batch Perceptron (UML Exercise 17.2, Theorem 17.5; SPEC 4.11)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import theory
from jaxlearn.multiclass import multiclass_perceptron, multivector
from tests.multiclass.data import clusters


def test_theorem_17_5_mistake_bound_on_separable_clusters(x64):
    k = 4
    X, y, mu = clusters(k=k, per_class=20, r=1.0, spacing=5.0)
    X1 = np.c_[X, np.ones(len(X))]  # the constant 1 of Exercise 17.1
    learner = multiclass_perceptron(k)
    params = learner.fit(None, X1, y)
    assert bool(params.converged)
    np.testing.assert_array_equal(learner.predict(params, X1), y)
    # w* of Exercise 17.1 separates with margins >= 1: scale it to margin exactly 1 (the smallest ||w*||)
    W = np.c_[mu, -0.5 * (mu**2).sum(axis=1)]
    scores = X1 @ W.T
    others = np.where(
        np.arange(k)[None, :] == y[:, None], np.inf, scores[np.arange(len(y)), y][:, None] - scores
    )
    gamma = others.min()
    assert gamma >= 1.0
    w_star = W / gamma
    R = np.sqrt(2) * np.linalg.norm(X1, axis=1).max()  # ||Psi(x, y) - Psi(x, y')|| = sqrt(2) ||x||
    bound = float(theory.multiclass_perceptron_bound(R, np.linalg.norm(w_star)))
    assert 1 < int(params.num_updates) <= bound, (int(params.num_updates), bound)
    # the strict argmax at stopping: every example beats every other label
    final = X1 @ np.asarray(params.w).reshape(k, -1).T
    margins = final[np.arange(len(y)), y][:, None] - np.where(np.arange(k) == y[:, None], -np.inf, final)
    assert margins.min() > 0


def test_one_update_rule_by_hand():
    # w = 0: every score ties, a violation; the first other label (minimal index) is pushed down
    X = jnp.array([[1.0, 0.0], [0.0, 1.0]])
    params = multiclass_perceptron(3, max_epochs=1).fit(None, X, jnp.array([1, 2], jnp.int32))
    # example 0 (y=1): w_1 += x, w_0 -= x; example 1 (y=2): scores (0, 0, 0) -> w_2 += x, w_0 -= x
    np.testing.assert_array_equal(params.w.reshape(3, 2), [[-1, -1], [1, 0], [0, 1]])
    assert int(params.num_updates) == 2 and int(params.num_epochs) == 1 and not bool(params.converged)


def test_not_separable_stops_at_max_epochs():
    X = jnp.array([[1.0], [1.0]])
    params = multiclass_perceptron(2, max_epochs=7).fit(None, X, jnp.array([0, 1], jnp.int32))
    assert not bool(params.converged) and int(params.num_epochs) == 7


def test_any_feature_map(x64):
    X, y, _ = clusters(k=3, per_class=8)
    generic = multiclass_perceptron(3, feature_map=lambda x, y, k: multivector(x, y, k))
    a = multiclass_perceptron(3).fit(None, X, y)
    b = generic.fit(None, X, y)
    np.testing.assert_array_equal(a.w, b.w)


def test_bad_input():
    X = jnp.ones((4, 2))
    with pytest.raises(ValueError, match=r"expected `y` with labels in 0..2.*found \{3\}"):
        multiclass_perceptron(3).fit(None, X, jnp.array([0, 1, 2, 3]))
    with pytest.raises(ValueError, match=r"`max_epochs` an integer in \[1, inf\)"):
        multiclass_perceptron(3, max_epochs=0)
    with pytest.raises(ValueError, match="same number of examples"):
        multiclass_perceptron(3).fit(None, X, jnp.array([0, 1, 2]))
