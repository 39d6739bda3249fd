"""Sharded k-NN: the training rows split over 1, 2 and 4 devices, each device's own top-k, one merge.

Every comparison with the one-device answer is exact (``assert_array_equal``: indices, squared
distances, labels and mean targets bit for bit), in float32 and float64, on data with duplicate points
and tied distances (ties go to the lower training index) and on continuous data.
"""

import functools
import re

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxlearn import neighbors as nb
from jaxlearn import parallel
from jaxlearn._sharding import row_split
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(0)
M, N, CHUNK = 64, 37, 16  # 37 queries: not a multiple of the query chunk
#: An HLO collective op (``-start``: its asynchronous form).
COLLECTIVE = re.compile(
    r"\b(all-gather|all-reduce|all-to-all|collective-permute|reduce-scatter)(-start)?\("
)


@functools.lru_cache(maxsize=None)
def _grid(dtype):
    """Points of {0..3}^2 (every one about 4 times), queries on the half grid: many duplicate points
    and tied distances, all exact in floating point."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(M, 2)).astype(dtype)
    Q = (rng.integers(0, 8, size=(N, 2)) / 2).astype(dtype)
    return X, rng.integers(0, 3, M).astype(np.int32), Q, rng.normal(size=M).astype(dtype)


@functools.lru_cache(maxsize=None)
def _continuous(dtype, m=M):
    rng = np.random.default_rng(1)
    X = (5 + rng.normal(size=(m, 2))).astype(dtype)
    Q = (5 + rng.normal(size=(N, 2))).astype(dtype)
    return X, rng.integers(0, 3, m).astype(np.int32), Q, X[:, 0] ** 2


def _answers(X, y, Q, target, k, metric="euclidean"):
    """neighbors, knn.predict and knn_regressor.predict on the sample ``(X, y)`` / ``(X, target)``."""
    options = dict(metric=metric, query_chunk=CHUNK)
    rule, regressor = nb.knn(k, **options), nb.knn_regressor(k, **options)
    params = rule.fit(KEY, X, y)
    idx, dist = nb.neighbors(params, Q, k, **options)
    return idx, dist, rule.predict(params, Q), regressor.predict(regressor.fit(KEY, X, target), Q)


def _assert_equal(got, want):
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("data", [_grid, _continuous], ids=["ties", "continuous"])
@pytest.mark.parametrize("k", [1, 5])
def test_split_rows_answer_equals_one_device_answer(data, k, dtype, mesh):
    X, y, Q, target = data(np.dtype(dtype))
    want = _answers(X, y, Q, target, k)
    got = _answers(*parallel.shard_rows((X, y), mesh), Q, parallel.shard_rows(target, mesh), k)
    _assert_equal(got, want)
    if (
        data is _grid
    ):  # the rule itself: stable sort of the exact distances (ties: lower index first)
        d2 = ((Q[:, None, :].astype(np.float64) - X[None].astype(np.float64)) ** 2).sum(-1)
        np.testing.assert_array_equal(got[0], np.argsort(d2, axis=1, kind="stable")[:, :k])
        np.testing.assert_array_equal(got[1], np.sort(d2, axis=1)[:, :k])


@pytest.mark.parametrize("k", [1, 5])
def test_manhattan_split_rows_answer_equals_one_device_answer(k, mesh):
    """The l1 neighbours of the grid (ties everywhere) split over the devices: the one-device
    answer bit for bit, the stable order of the exact l1 distances."""
    X, y, Q, target = _grid(np.dtype(np.float32))
    want = _answers(X, y, Q, target, k, "manhattan")
    split = parallel.shard_rows((X, y), mesh)
    _assert_equal(_answers(*split, Q, parallel.shard_rows(target, mesh), k, "manhattan"), want)
    l1 = np.abs(Q[:, None, :].astype(np.float64) - X[None].astype(np.float64)).sum(-1)
    np.testing.assert_array_equal(want[0], np.argsort(l1, axis=1, kind="stable")[:, :k])
    np.testing.assert_array_equal(want[1], np.sort(l1, axis=1)[:, :k])


def test_fit_keeps_the_rows_split(mesh):
    X, y, _, _ = _grid(np.dtype(np.float32))
    params = nb.knn(3).fit(KEY, *parallel.shard_rows((X, y), mesh))
    rows, whole = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())
    for name, sharding in zip(params._fields, (rows, rows, whole, rows)):
        assert getattr(params, name).sharding.is_equivalent_to(sharding, 2 if name == "X" else 1), (
            name
        )
    # y given whole (NumPy) with a split X is split alike
    assert nb.knn(3).fit(KEY, parallel.shard_rows(X, mesh), y).y.sharding.is_equivalent_to(rows, 1)


def test_long_rows_two_stage_top_k(mesh):
    # 2400 rows: 600 or more per device, past the 8 * 64 rows where the two-stage top-k starts
    X, y, Q, target = _continuous(np.dtype(np.float32), m=2400)
    want = _answers(X, y, Q, target, 7)
    _assert_equal(
        _answers(*parallel.shard_rows((X, y), mesh), Q, parallel.shard_rows(target, mesh), 7), want
    )


@pytest.mark.parametrize("spec", [("a", "b"), ("b",)], ids=["both axes", "second axis"])
def test_rows_split_over_a_two_axis_mesh(spec):
    X, y, Q, target = _grid(np.dtype(np.float32))
    mesh = parallel.mesh(("a", "b"), shape=(2, 2))
    rows = NamedSharding(mesh, P(spec))
    got = _answers(
        jax.device_put(X, rows), jax.device_put(y, rows), Q, jax.device_put(target, rows), 5
    )
    _assert_equal(got, _answers(X, y, Q, target, 5))


def test_no_all_gather_of_the_training_rows():
    X, y, Q, _ = _continuous(np.dtype(np.float32))
    mesh = parallel.mesh()
    params = nb.knn(5).fit(KEY, *parallel.shard_rows((X, y), mesh))
    split = row_split(params.X)
    program = nb._program("vote", 5, CHUNK, 3, split)
    hlo = program.lower(params, parallel.replicate(Q, mesh)).compile().as_text()
    ops, shapes = set(), set()
    for line in hlo.splitlines():
        op = COLLECTIVE.search(line)
        if op:  # the shapes the op returns: on the left of its name
            ops.add(op.group(1))
            shapes.update(re.findall(r"\w+\[[\d,]*\]", line[: op.start()]))
    # the one merge: distances, global indices and labels of the (N, k) candidates of the 4 devices
    assert ops == {"all-gather"}
    assert shapes == {f"f32[{N},20]", f"s32[{N},20]"}


@pytest.mark.parametrize("count", [2, 4])
def test_k_above_the_rows_per_device(count):
    X, y, Q, _ = _grid(np.dtype(np.float32))
    Xs, ys = parallel.shard_rows((X, y), parallel.mesh(devices=jax.devices()[:count]))
    per_device = M // count
    k = per_device + 1
    message = (
        rf"expected `k` <= the {per_device} training examples each of the {count} devices holds"
    )
    with pytest.raises(ValueError, match=message):
        nb.knn(k).fit(KEY, Xs, ys)
    params = nb.knn(1).fit(KEY, Xs, ys)
    with pytest.raises(ValueError, match=message):
        nb.neighbors(params, Q, k)
    with pytest.raises(ValueError, match=message):
        nb.knn(k, num_classes=3).predict(params, Q)


def test_second_predict_compiles_nothing():
    X, y, Q, _ = _grid(np.dtype(np.float32))
    mesh = parallel.mesh()
    rule = nb.knn(3, query_chunk=CHUNK)
    rule.predict(rule.fit(KEY, *parallel.shard_rows((X, y), mesh)), Q)
    with count_compilations() as count:
        params = rule.fit(KEY, *parallel.shard_rows((X[::-1].copy(), y[::-1].copy()), mesh))
        jax.block_until_ready(nb.knn(3, query_chunk=CHUNK).predict(params, Q + 1))
    assert count[0] == 0


@pytest.mark.parametrize("metric", ["chebyshev", "cosine"])
def test_other_metrics_split_rows_answer_equals_one_device_answer(metric, mesh):
    """The Chebyshev and cosine neighbours of the grid (ties everywhere) split over the devices:
    the one-device answer bit for bit."""
    X, y, Q, target = _grid(np.dtype(np.float32))
    want = _answers(X, y, Q, target, 5, metric)
    split = parallel.shard_rows((X, y), mesh)
    _assert_equal(_answers(*split, Q, parallel.shard_rows(target, mesh), 5, metric), want)
