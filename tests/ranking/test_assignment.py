"""The in-program assignment solver of the NDCG step against SciPy (UML (17.9)-(17.10); issue 16)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_assignment

from jaxlearn import datasets
from jaxlearn._regularized import sample_indices
from jaxlearn.ranking import _svm, ranking_svm
from jaxlearn.ranking._assignment import linear_sum_assignment
from jaxlearn.ranking._losses import ndcg_cost_matrix, ndcg_loss_augmented

KEY = jax.random.PRNGKey(0)


def _matrices(seed, per_kind=3):
    """Seeded square matrices, ``r`` in 1, 3, 6, 12, stacked by size: Gaussian, small integers and
    one-decimal values (both with many ties), constant."""
    rng = np.random.default_rng(seed)
    out = []
    for r in (1, 3, 6, 12):
        batch = []
        for _ in range(per_kind):
            batch += [
                rng.normal(size=(r, r)),
                rng.integers(0, 3, (r, r)).astype(float),
                np.round(rng.normal(size=(r, r)), 1),
                np.full((r, r), 2.5),
            ]
        out.append(np.stack(batch))
    return out


def _values(costs, cols):
    costs = np.asarray(costs, np.float64)
    return np.take_along_axis(costs, np.asarray(cols)[..., None], axis=-1)[..., 0].sum(axis=-1)


def _scipy(costs):
    return np.stack([scipy_assignment(c)[1] for c in costs])


def test_assignment_is_scipys_in_float64(x64):
    solve = jax.jit(jax.vmap(linear_sum_assignment))
    for costs in _matrices(0):
        got, want = np.asarray(solve(jnp.asarray(costs))), _scipy(costs)
        np.testing.assert_array_equal(
            got, want
        )  # the same choice among ties, not only the same value
        np.testing.assert_allclose(_values(costs, got), _values(costs, want), rtol=0, atol=1e-9)


def test_assignment_attains_the_optimum_in_float32():
    solve = jax.jit(jax.vmap(linear_sum_assignment))
    for costs in _matrices(1):
        costs = costs.astype(np.float32)
        got, want = np.asarray(solve(jnp.asarray(costs))), _scipy(costs)
        permutation = np.broadcast_to(np.arange(got.shape[1]), got.shape)
        np.testing.assert_array_equal(np.sort(got, axis=1), permutation)
        best = _values(costs, want)
        np.testing.assert_allclose(
            _values(costs, got), best, rtol=0, atol=1e-5 * (1 + np.abs(best).max())
        )


def test_assignment_under_vmap_and_bad_input(x64):
    batch = jax.random.normal(KEY, (6, 7, 7), jnp.float64)
    got = jax.jit(jax.vmap(linear_sum_assignment))(batch)
    for c, cols in zip(np.asarray(batch), np.asarray(got)):
        np.testing.assert_array_equal(cols, scipy_assignment(c)[1])
    with pytest.raises(ValueError, match="`cost` a square"):
        linear_sum_assignment(jnp.ones((2, 3)))
    with pytest.raises(TypeError, match="floating dtype"):
        linear_sum_assignment(jnp.ones((2, 2), jnp.int32))


def test_ndcg_step_equals_the_scipy_step(x64):
    # distinct scores: the sorted warm start (most rows start assigned); zero scores (the first SGD
    # step): every item of equal relevance ties, and the solver starts empty, as SciPy does
    step = jax.jit(ndcg_loss_augmented, static_argnames="k")
    for m, r in ((30, 8), (6, 30)):
        scores = jax.random.normal(KEY, (m, r), jnp.float64)
        relevance = jax.random.randint(jax.random.PRNGKey(1), (m, r), 0, 4).astype(jnp.float64)
        for s in (scores, 5 * scores, 0 * scores):
            for k in (None, 3):
                want = _scipy(np.asarray(ndcg_cost_matrix(s, relevance, k=k))) + 1
                np.testing.assert_array_equal(step(s, relevance, k=k), want)


def test_ndcg_fit_has_no_host_callback():
    X, Y, _ = datasets.ranking_queries(KEY, 6, 4, 3)
    learner = ranking_svm(0.1, 5, loss="ndcg")
    text = str(jax.make_jaxpr(learner.fit)(KEY, X, Y))
    assert "callback" not in text
    idx = sample_indices(KEY, 5, 6)
    reference = str(
        jax.make_jaxpr(lambda X: _svm._fit(idx, X, Y, 0.1, 1.0, kind="ndcg_scipy", k=None))(X)
    )
    assert (
        "pure_callback" in reference
    )  # the kept SciPy path is what the benchmark compares against


@pytest.mark.parametrize("k", [None, 2])
def test_ndcg_fit_equals_the_scipy_path_fit(k, x64):
    X, Y, _ = datasets.ranking_queries(KEY, 12, 5, 3, dtype=jnp.float64)
    idx = sample_indices(jax.random.PRNGKey(1), 60, 12)
    one = jnp.ones([], X.dtype)
    fits = [_svm._fit(idx, X, Y, 0.05, one, kind=kind, k=k).w for kind in ("ndcg", "ndcg_scipy")]
    np.testing.assert_array_equal(
        *fits
    )  # every step's assignment agrees: the same weights, bit for bit


def test_ndcg_fit_vmaps_over_lam_and_equals_single_fits(x64):
    X, Y, _ = datasets.ranking_queries(KEY, 10, 5, 3, dtype=jnp.float64)
    lams = jnp.array([0.01, 0.1, 1.0])
    fit = lambda lam: ranking_svm(lam, 40, loss="ndcg").fit(KEY, X, Y).w  # noqa: E731
    swept = jax.jit(jax.vmap(fit))(lams)
    for lam, w in zip(lams, swept):
        np.testing.assert_allclose(w, fit(lam), rtol=1e-12, atol=1e-12)
