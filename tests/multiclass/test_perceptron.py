"""The multiclass batch Perceptron (UML Exercise 17.2, Theorem 17.5; SPEC 4.11)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from scipy.linalg import hadamard

from jaxlearn import theory
from jaxlearn.multiclass import multiclass_perceptron, multivector
from tests.multiclass.data import clusters
from tests.multiclass.test_theory import min_norm_separator


def _bound(X, y, k, w_star):
    """(R ||w*||)^2 with R = max ||Psi(x_i, y_i) - Psi(x_i, y)|| = sqrt(2) max ||x_i|| (multivector)."""
    R = np.sqrt(2) * np.linalg.norm(X, axis=1).max()
    return float(theory.multiclass_perceptron_bound(R, np.linalg.norm(w_star)))


def _strict_margins(learner, params, X, y, k):
    """The smallest <w, Psi(x_i, y_i)> - <w, Psi(x_i, y)> over i and y != y_i at exit."""
    scores = np.asarray(learner.decision_function(params, X))
    others = np.where(np.arange(k) == y[:, None], -np.inf, scores)
    return (scores[np.arange(len(y)), y] - others.max(axis=1)).min()


@pytest.mark.parametrize("k", [2, 3, 4])
def test_theorem_17_5_updates_reach_k_over_2k_minus_2_of_the_bound_on_orthogonal_examples(k, x64):
    """UML Theorem 17.5 (section 17.8, Exercise 17.2; SPEC 4.11), tight: the m = 32 rows of a Hadamard
    matrix (entries +-1, exactly orthogonal, ||x|| = sqrt(m)), labels i mod k. The Perceptron meets each
    example once with every score 0 (a tie: a violation) and never again, so it makes exactly m updates;
    the least-norm multiclass separator (a float64 QP, checked against its closed form ||w*||^2 =
    (k - 1) / k) gives (R ||w*||)^2 = 2m (k - 1) / k. So updates <= bound and updates / bound =
    k / (2(k - 1)) (1, 3/4, 2/3: at least 1/2 of the bound), with zero training error at exit."""
    m = 32
    X, y = hadamard(m).astype(np.float64), (np.arange(m) % k).astype(np.int32)
    w_star = min_norm_separator(X, y, k)
    np.testing.assert_allclose(np.sum(w_star**2), (k - 1) / k, rtol=1e-8)
    bound = _bound(X, y, k, w_star)
    learner = multiclass_perceptron(k)
    params = learner.fit(None, X, y)
    updates = int(params.num_updates)
    assert bool(params.converged) and int(params.num_epochs) == 2
    assert updates == m
    assert bound / 2 <= updates <= bound, (updates, bound)
    np.testing.assert_allclose(updates / bound, k / (2 * (k - 1)), rtol=1e-8)
    np.testing.assert_array_equal(learner.predict(params, X), y)
    assert _strict_margins(learner, params, X, y, k) > 0


def test_theorem_17_5_holds_on_exercise_17_1_clusters_with_the_least_norm_separator(x64):
    """UML Theorem 17.5 with Exercise 17.1 data (SPEC 4.11, 11.6): k = 4 clusters of radius 1 with the
    constant 1 appended. Exercise 17.1's w* (margins >= 4 r^2, scaled to margin 1) and the least-norm
    separator (float64 QP) both bound the updates; the latter's bound is the smaller (measured: 92 updates
    against 3345 for the least-norm separator, 9321 for Exercise 17.1's: clusters are easy, the test above
    is the tight one)."""
    k = 4
    X, y, mu = clusters(k=k, per_class=20, r=1.0, spacing=5.0)
    X1 = np.c_[X, np.ones(len(X))]
    exercise = np.c_[mu, -0.5 * (mu**2).sum(axis=1)]
    scores = X1 @ exercise.T
    others = np.where(
        np.arange(k) == y[:, None], np.inf, scores[np.arange(len(y)), y][:, None] - scores
    )
    assert others.min() >= 4.0
    least = min_norm_separator(X1, y, k)
    bound = _bound(X1, y, k, least)
    assert bound <= _bound(X1, y, k, exercise / others.min())
    learner = multiclass_perceptron(k)
    params = learner.fit(None, X1, y)
    assert bool(params.converged)
    assert 1 < int(params.num_updates) <= bound, (int(params.num_updates), bound)
    np.testing.assert_array_equal(learner.predict(params, X1), y)
    assert _strict_margins(learner, params, X1, y, k) > 0


def test_one_update_rule_by_hand():
    # w = 0: every score ties, a violation; the first other label (minimal index) is pushed down
    X = jnp.array([[1.0, 0.0], [0.0, 1.0]])
    params = multiclass_perceptron(3, max_epochs=1).fit(None, X, jnp.array([1, 2], jnp.int32))
    # example 0 (y=1): w_1 += x, w_0 -= x; example 1 (y=2): scores (0, 0, 0) -> w_2 += x, w_0 -= x
    np.testing.assert_array_equal(params.w.reshape(3, 2), [[-1, -1], [1, 0], [0, 1]])
    assert (
        int(params.num_updates) == 2 and int(params.num_epochs) == 1 and not bool(params.converged)
    )


def _passes_in_python(X, y, k, max_epochs):
    """UML Exercise 17.2 as written: cyclic passes, one example at a time (multivector map)."""
    w = np.zeros((k, X.shape[1]))
    updates = epochs = 0
    while epochs < max_epochs:
        epochs, before = epochs + 1, updates
        for x, label in zip(X, y):
            scores = w @ x
            others = np.where(np.arange(k) == label, -np.inf, scores)
            y_hat = int(np.argmax(others))
            if others[y_hat] >= scores[label]:
                w[label] += x
                w[y_hat] -= x
                updates += 1
        if updates == before:
            break
    return w.ravel(), updates, epochs, updates == before


def _integer_clusters(rng, separable: bool, k: int = 4, m: int = 150):
    """``m`` examples of ``k`` classes on small integer features and a constant one (exact
    arithmetic: ties happen), separable or not."""
    centers = rng.integers(-6, 7, size=(k, 5))
    y = rng.integers(0, k, size=m).astype(np.int32)
    X = centers[y] + rng.integers(-1 if separable else -9, 2 if separable else 10, size=(m, 5))
    return np.c_[X, np.ones(m)].astype(np.float64), y


@pytest.mark.parametrize("separable", [True, False])
def test_passes_are_the_python_loop_update_for_update(separable, x64):
    """The passes score several examples at once and jump to the next violation; on small integer
    features (exact arithmetic, so ties happen and count as violations) the weights, updates, passes
    and flag are those of the loop that visits one example at a time, over 150 examples (3 blocks)."""
    k = 4
    X, y = _integer_clusters(np.random.default_rng(3), separable, k)
    w, updates, epochs, converged = _passes_in_python(X, y, k, max_epochs=40)
    params = multiclass_perceptron(k, max_epochs=40).fit(None, X, y)
    assert updates > 2 * k and (epochs < 40) == separable == converged
    np.testing.assert_array_equal(params.w, w)
    assert (int(params.num_updates), int(params.num_epochs)) == (updates, epochs)
    assert bool(params.converged) == converged


@pytest.mark.parametrize("separable", [True, False])
def test_rows_of_weight_zero_take_no_part_and_weights_scale_the_updates(separable, x64):
    rng = np.random.default_rng(4)
    X, y = _integer_clusters(rng, separable)
    learner = multiclass_perceptron(4, max_epochs=40)
    keep = rng.random(len(y)) < 0.7  # rows of weight 0 among the others, in every block
    alone = learner.fit(None, X[keep], y[keep])
    weighted = learner.fit(None, X, y, sample_weight=keep.astype(np.float64))
    doubled = learner.fit(None, X[keep], y[keep], sample_weight=np.full(keep.sum(), 2.0))
    # weight 2 everywhere: each update doubled, every score doubled, so the same violations
    for params, scale in ((weighted, 1.0), (doubled, 2.0)):
        np.testing.assert_array_equal(params.w, scale * np.asarray(alone.w))
        assert int(params.num_updates) == int(alone.num_updates) > 1
        assert int(params.num_epochs) == int(alone.num_epochs)
        assert bool(params.converged) == bool(alone.converged) == separable


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
    with pytest.raises(ValueError, match="`sample_weight` of shape"):
        multiclass_perceptron(3).fit(None, X, jnp.array([0, 1, 2, 0]), sample_weight=jnp.ones(3))
