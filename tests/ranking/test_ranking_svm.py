"""ranking_svm and bipartite_svm: sub-gradients, learning, bad input (SPEC 13.3, 14.2); conformance in
``tests/test_conformance.py``."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets
from jaxlearn.ranking import (
    _svm,
    bipartite_loss_augmented,
    bipartite_svm,
    f_beta,
    kendall_tau_hinge,
    kendall_tau_loss,
    ndcg_loss,
    ndcg_loss_augmented,
    ndcg_surrogate_value,
    ranking_svm,
)

KEY = jax.random.PRNGKey(0)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _graded(key, n, dtype):
    X, Y, _ = datasets.ranking_queries(key, n, 5, 4, dtype=dtype)
    return X, Y


@functools.partial(jax.jit, static_argnums=(1, 2))
def _binary(key, n, dtype):
    X, Y, _ = datasets.ranking_queries(key, n, 5, 4, levels=2, dtype=dtype)
    return X, 2 * Y - 1


def test_subgradients_are_gradients_of_the_surrogates(x64):
    """Where the surrogate is differentiable, the step's v_t is its gradient in w."""
    X, Y = _graded(KEY, 3, jnp.float64)
    Yb = jnp.where(Y >= 2, 1.0, -1.0)
    w = jax.random.normal(jax.random.PRNGKey(1), (4,))
    x, y, yb = X[1], Y[1], Yb[1]
    grad = jax.jit(jax.grad(lambda w: kendall_tau_hinge(x @ w, y)))(w)
    np.testing.assert_allclose(_svm._subgradient("kendall", None, w, x, y, 1.0), grad, rtol=1e-10)
    assert float(jnp.linalg.norm(grad)) > 0  # some pair is active: the check is not 0 == 0
    v = ndcg_loss_augmented(x @ w, y)  # fixed at the maximiser (Danskin)
    grad = jax.jit(jax.grad(lambda w: ndcg_surrogate_value(v, x @ w, y)))(w)
    np.testing.assert_allclose(_svm._subgradient("ndcg", None, w, x, y, 1.0), grad, rtol=1e-10)
    vb = bipartite_loss_augmented(x @ w, yb, "f1")
    grad = jax.jit(jax.grad(lambda w: jnp.sum((vb - yb) * (x @ w))))(w)
    np.testing.assert_allclose(_svm._subgradient("f1", None, w, x, yb, 1.0), grad, rtol=1e-10)


def test_ranking_svm_learns_the_hidden_order():
    X, Y, w_star = datasets.ranking_queries(KEY, 60, 5, 4, noise=0.05)
    Xt, Yt, _ = datasets.ranking_queries(KEY, 60, 5, 4, noise=0.05)
    for loss in ("kendall", "ndcg"):
        learner = ranking_svm(0.01, 300, loss=loss)
        params = learner.fit(KEY, X, Y)
        cosine = float(params.w @ w_star / jnp.linalg.norm(params.w))
        assert cosine > 0.95, (loss, cosine)
        scores = learner.predict(params, Xt)
        assert scores.shape == (60, 5)
        random = jax.random.normal(KEY, (60, 5))
        assert float(ndcg_loss(scores, Yt).mean()) < 0.5 * float(ndcg_loss(random, Yt).mean())
        assert float(kendall_tau_loss(scores, Yt).mean()) < 0.6 * float(
            kendall_tau_loss(random, Yt).mean()
        )


def test_bipartite_svm_learns_f1():
    X, Y = _binary(KEY, 60, jnp.float32)
    for measure, k in (("f1", None), ("precision_at_k", 2)):
        learner = bipartite_svm(measure, 0.01, 300, k=k)
        params = learner.fit(KEY, X, Y)
        signs = learner.predict(params, X)
        assert set(np.unique(np.asarray(signs)).tolist()) <= {-1.0, 1.0}
        assert float(f_beta(signs, Y).mean()) > 0.8, measure
        if k:
            assert bool(jnp.all(jnp.sum(signs > 0, axis=1) >= k))


def test_bad_input():
    X, Y = _graded(KEY, 8, jnp.float32)
    with pytest.raises(ValueError, match=r"expected `X` of shape \(m, r, d\)"):
        ranking_svm(0.1, 10).fit(KEY, X[0], Y)
    with pytest.raises(ValueError, match=r"expected `Y` of shape \(8, 5\)"):
        ranking_svm(0.1, 10).fit(KEY, X, Y[:-1])
    with pytest.raises(ValueError, match="`X` to be finite"):
        ranking_svm(0.1, 10).fit(KEY, X.at[0, 0, 0].set(jnp.nan), Y)
    with pytest.raises(ValueError, match="relevance >= 0"):
        ranking_svm(0.1, 10, loss="ndcg").fit(KEY, X, Y - 1)
    with pytest.raises(ValueError, match=r"`Y` in \{-1, 1\}"):
        bipartite_svm("f1", 0.1, 10).fit(KEY, X, Y)
    with pytest.raises(ValueError, match="`loss` in"):
        ranking_svm(0.1, 10, loss="map")
    with pytest.raises(ValueError, match="`measure` in"):
        bipartite_svm("auc", 0.1, 10)
    with pytest.raises(ValueError, match="`k` an integer >= 0"):
        bipartite_svm("recall_at_k", 0.1, 10)
    with pytest.raises(ValueError, match=r"`lam` a number in \(0, inf\)"):
        ranking_svm(-1.0, 10)


@pytest.mark.parametrize(
    "make,data",
    [
        (lambda: ranking_svm(0.1, 50, loss="ndcg", k=3), _graded),
        (lambda: bipartite_svm("f_beta", 0.1, 50, beta=2.0), _binary),
    ],
)
def test_params_dtypes(make, data, dtype):
    X, Y = data(KEY, 8, dtype)
    learner = make()
    params = learner.fit(KEY, X, Y)
    assert (
        isinstance(params, _svm.RankingSVMParams)
        and params.w.dtype == dtype
        and params.w.shape == (4,)
    )
    assert np.isfinite(np.asarray(params.w)).all()
    assert learner.decision_function(params, X).dtype == dtype
    assert learner.predict(params, X).shape == (8, 5)
