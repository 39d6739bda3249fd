"""The histogram growth (one bin per value in use, all trees together) grows the trees of the paths it
replaced: a fit under ``jit`` bins inside its program (all ``max_bins`` bins) or sweeps the sorted
values (exact thresholds), and must give the same trees, bit for bit."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn.trees import decision_tree, random_forest
from jaxlearn.trees._bins import MAX_EXACT_BINS, _quantile_levels, fit_bins, quantile_bins
from jaxlearn.trees._features import bin_features, quantize
from jaxlearn.trees._histogram import UNROLL_WORK, grow_together, level_groups
from tests.trees.checks import assert_same_tree

KEY = jax.random.PRNGKey(0)


def _few_values(seed=0, m=160, d=5, k=3):
    """Features of 2 to 9 distinct values (equal gains, empty bins), k classes."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m, d)) * np.arange(1, d + 1)).astype(np.float32)
    y = (np.digitize(X[:, 0] + X[:, 1], [-1, 1]) + (rng.random(m) < 0.2)) % k
    return X, y


@pytest.mark.parametrize(
    "options",
    [
        dict(),
        dict(max_bins=None),
        dict(max_bins=None, max_features=None, bootstrap=False, criterion="entropy"),
        dict(max_bins=6, min_samples_leaf=3, criterion="train_error"),
    ],
    ids=["256-sqrt", "exact-sqrt", "exact-all-entropy", "6-msl3"],
)
def test_forest_grows_the_trees_of_the_traced_fit(options):
    X, y = _few_values()
    forest = random_forest(6, 4, num_classes=3, **options)
    assert_same_tree(forest.fit(KEY, X, y).trees, jax.jit(forest.fit)(KEY, X, y).trees)


@pytest.mark.parametrize(
    "options", [dict(), dict(max_bins=5, min_samples_leaf=2)], ids=["exact", "5-msl2"]
)
def test_tree_grows_the_tree_of_the_sorted_sweep(options):
    X, y = _few_values(seed=1)
    tree = decision_tree(5, num_classes=3, **options)
    assert_same_tree(tree.fit(KEY, X, y), jax.jit(tree.fit)(KEY, X, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_host_quantile_bins_equal_the_traced_ones(dtype):
    """A concrete sample is binned in NumPy (``quantile_bins``), a traced one by ``bin_features`` in the
    program: the same bins and edges, ties, repeated quantiles and more bins than examples included."""
    rng = np.random.default_rng(3)
    with jax.enable_x64(dtype == np.float64):
        for m, max_bins in [(1, 4), (7, 256), (100, 5), (1257, 256), (2000, 1000)]:
            normal = rng.normal(size=(m, 3))
            samples = (normal, rng.integers(0, 5, (m, 3)), np.round(normal, 1))
            for X in samples:
                bins, edges = quantile_bins(X.astype(dtype), max_bins)
                want_bins, want_edges = bin_features(jnp.asarray(X, dtype), max_bins)
                np.testing.assert_array_equal(bins, want_bins)
                np.testing.assert_array_equal(edges, want_edges)
                assert edges.dtype == want_edges.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quantile_levels_are_jax_linspaces(dtype):
    with jax.enable_x64(dtype == np.float64):
        for max_bins in (*range(1, 300), 511, 1000, 1024):
            want = np.asarray(jnp.linspace(0, 1, max_bins + 1, dtype=dtype)[1:])
            levels = _quantile_levels(max_bins, np.dtype(dtype).name)
            assert levels.dtype == want.dtype
            np.testing.assert_array_equal(levels, want, err_msg=f"max_bins={max_bins}")


def test_bins_in_use_only():
    X, _ = _few_values()
    bins, edges = fit_bins(
        jnp.asarray(X), 256
    )  # 256 quantile bins, renumbered: those in use remain
    quantised = np.asarray(quantize(jnp.asarray(X), 256))
    assert (
        edges.shape[0] == max(len(np.unique(c)) for c in quantised.T) < 32 and bins.shape == X.shape
    )
    np.testing.assert_array_equal(
        np.take_along_axis(np.asarray(edges), np.asarray(bins), 0), quantised
    )
    bins, edges = fit_bins(X, None)  # exact: one bin per distinct value
    np.testing.assert_array_equal(np.take_along_axis(np.asarray(edges), np.asarray(bins), 0), X)
    assert (
        fit_bins(np.arange(2 * MAX_EXACT_BINS, dtype=np.float32)[:, None], None) is None
    )  # the sweep
    jax.jit(lambda X: fit_bins(X, None) is None or 1 / 0)(
        X
    )  # traced data: binned inside the program


@pytest.mark.parametrize("depth", [0, 1, 2, 5, 8, 24])
def test_level_groups_cover_every_level_once(depth):
    levels = [level for start, stop, w in level_groups(depth) for level in range(start, stop)]
    assert levels == list(range(depth))
    assert all(2 ** (stop - 1) == w for start, stop, w in level_groups(depth))
    assert level_groups(depth, UNROLL_WORK) == [
        (level, level + 1, 2**level) for level in range(depth)
    ]


def test_levels_compiled_at_their_own_widths_grow_the_same_trees():
    X, y = _few_values(seed=2)
    bins, edges = fit_bins(X, None)
    weights = jnp.asarray(np.random.default_rng(0).integers(0, 3, (2, len(y))), jnp.int32)
    uniforms = jax.random.uniform(KEY, (2, 2**4 - 1, X.shape[1]))
    options = dict(max_depth=4, num_classes=3, criterion="gini", min_samples_leaf=1, max_features=2)
    grow = jax.jit(grow_together, static_argnames=(*options, "level_work"))
    labels = jnp.asarray(y, jnp.int32)
    grouped = grow(uniforms, bins, edges, labels, weights, **options, level_work=0)
    unrolled = grow(uniforms, bins, edges, labels, weights, **options, level_work=UNROLL_WORK)
    assert_same_tree(unrolled, grouped)
