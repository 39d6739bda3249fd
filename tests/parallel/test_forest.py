"""Model axes over devices: ``trees.random_forest(..., mesh=m)`` grows its trees split over ``m``, and
``selection.grid_search(..., mesh=m)`` splits its grid points; both equal the one-device results.

Forests: the trees' integer structure (features, leaves), thresholds and class counts are equal to
the bit; impurities and ``feature_importances`` within ``rtol=1e-6`` (float32): each device vmaps
over fewer trees, which can round a node's impurity differently (one ulp: on these data none; on
8,192 x 64 with 32 trees, bench_parallel found 486 of 4,064 nodes). Grid search:
the accuracy scores are equal exactly (and so the best index).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as P

from jaxlearn import linear, parallel, selection, trees
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(1)
X = jax.random.normal(jax.random.PRNGKey(0), (24, 3))
Y = (X[:, 0] + X[:, 1] > 0).astype(jnp.int32)
EXACT = ("feature", "threshold", "is_leaf", "counts")


@functools.lru_cache(maxsize=None)
def _forest(num_trees, max_bins=256):
    forest = trees.random_forest(num_trees, 2, max_bins=max_bins)
    return forest, forest.fit(KEY, X, Y)


def _assert_same_trees(got, want):
    for name in EXACT:
        np.testing.assert_array_equal(
            np.asarray(getattr(got, name)), np.asarray(getattr(want, name)), name
        )
    np.testing.assert_allclose(got.impurity, want.impurity, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(
        got.feature_importances, want.feature_importances, rtol=1e-6, atol=1e-7
    )


def test_forest_on_a_mesh_equals_the_forest_without(mesh):
    forest, want = _forest(6)  # 6 trees: split on 1 and 2 devices; padded to 8 and replicated on 4
    sharded = trees.random_forest(6, 2, mesh=mesh)
    got = sharded.fit(KEY, X, Y)
    _assert_same_trees(got.trees, want.trees)
    split = mesh.size > 1 and 6 % mesh.size == 0
    for leaf in jax.tree_util.tree_leaves(got):
        assert leaf.shape[0] == 6
        assert leaf.sharding.spec == (P("data") if split else P())
        assert {s.data.shape[0] for s in leaf.addressable_shards} == {
            6 // mesh.size if split else 6
        }
    labels = sharded.predict(got, X)  # the votes of split trees, summed across devices
    np.testing.assert_array_equal(labels, forest.predict(want, X))
    np.testing.assert_allclose(got.feature_importances, want.feature_importances, rtol=1e-6)


def test_exact_growth_split_evenly_and_compiled_once():
    mesh = parallel.mesh()  # 4 devices, 8 trees: 2 each
    forest, want = _forest(8, max_bins=None)
    sharded = trees.random_forest(8, 2, max_bins=None, mesh=mesh)
    got = sharded.fit(KEY, X, Y)
    _assert_same_trees(got.trees, want.trees)
    assert got.trees.feature.sharding.spec == P("data")
    assert {s.data.shape[0] for s in got.trees.threshold.addressable_shards} == {2}
    np.testing.assert_array_equal(sharded.predict(got, X[:5]), forest.predict(want, X[:5]))
    key, X1 = jax.random.PRNGKey(7), X + 1
    with (
        count_compilations() as compiled
    ):  # a new key and new data of the same shapes: the same program
        sharded.fit(key, X1, Y)
    assert compiled[0] == 0


def test_forest_mesh_refusals():
    with pytest.raises(TypeError, match="`mesh`"):
        trees.random_forest(4, 2, mesh=jax.devices())
    with pytest.raises(
        ValueError, match="`progress=False`"
    ):  # jax-tqdm's ordered callbacks: one device
        trees.random_forest(4, 2, progress=True, mesh=parallel.mesh())


def _svm(lam):
    return linear.soft_svm(lam, 40)


LAMS = np.logspace(-3, 0, 5).astype(np.float32)  # 5 points: padded on 2 and 4 devices
YS = 2 * Y.astype(jnp.float32) - 1


def _search(lams=LAMS, **options):
    return selection.grid_search(
        _svm, {"lam": lams}, X, YS, key=KEY, folds=3, refit=False, **options
    )


@functools.lru_cache(maxsize=None)
def _search_without_mesh(batch_size):
    return _search(batch_size=batch_size)


@pytest.mark.parametrize("batch_size", [None, 2])
def test_grid_search_on_a_mesh_equals_the_search_without(mesh, batch_size):
    want = _search_without_mesh(batch_size)
    got = _search(batch_size=batch_size, mesh=mesh)
    np.testing.assert_array_equal(got.scores, want.scores)
    assert got.best_index == want.best_index and got.best_params == want.best_params
    lams = LAMS * 2
    with (
        count_compilations() as compiled
    ):  # a new grid of the same shape: still one program, compiled once
        _search(lams, batch_size=batch_size, mesh=mesh)
    assert compiled[0] == 0
