"""``parallel.mesh``, ``shard_rows`` and ``replicate`` on four devices: the shardings they document."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxlearn import parallel
from jaxlearn._sharding import row_split


def test_mesh_defaults_to_every_device_on_data():
    mesh = parallel.mesh()
    assert mesh.axis_names == ("data",) and mesh.devices.shape == (4,)
    assert list(mesh.devices.flat) == jax.devices()
    two_axes = parallel.mesh(("data", "model"))
    assert two_axes.devices.shape == (4, 1)
    assert parallel.mesh(("data", "model"), shape=(2, 2)).devices.shape == (2, 2)
    assert parallel.mesh(devices=jax.devices()[2:]).devices.tolist() == jax.devices()[2:]


def test_shard_rows_splits_each_array_by_rows():
    X, y = np.arange(24.0, dtype=np.float32).reshape(8, 3), np.arange(8)
    Xs, ys = parallel.shard_rows((X, y))
    for original, placed in ((X, Xs), (y, ys)):
        assert placed.sharding == NamedSharding(parallel.mesh(), P("data"))
        np.testing.assert_array_equal(np.asarray(placed), original)
        shards = sorted(placed.addressable_shards, key=lambda s: s.index[0].start)
        assert [s.data.shape[0] for s in shards] == [2, 2, 2, 2]
        np.testing.assert_array_equal(
            np.asarray(shards[1].data), original[2:4]
        )  # device 1: rows 2, 3
    assert row_split(Xs).count == 4 and row_split(Xs).axes == ("data",)
    assert parallel.shard_rows(Xs) is Xs  # already split as asked: kept, not copied
    with pytest.raises(ValueError, match="divisible by the 4 devices"):
        parallel.shard_rows(X[:6])


def test_shard_rows_over_one_axis_of_two():
    mesh = parallel.mesh(("data", "model"), shape=(2, 2))
    Xs = parallel.shard_rows(jnp.ones((6, 2)), mesh)  # 6 rows over the 2 devices of "data"
    assert Xs.sharding.spec == P("data")
    assert row_split(Xs).count == 2
    assert parallel.shard_rows(jnp.ones((6, 2)), mesh, axis="model").sharding.spec == P("model")


def test_replicate_copies_whole_arrays_to_every_device():
    tree = {"w": np.arange(3.0, dtype=np.float32), "b": np.float32(1.0)}
    placed = parallel.replicate(tree)
    for leaf, original in ((placed["w"], tree["w"]), (placed["b"], tree["b"])):
        assert leaf.sharding.is_fully_replicated and len(leaf.sharding.device_set) == 4
        np.testing.assert_array_equal(np.asarray(leaf), original)
    assert row_split(placed["w"]) is None  # a replicated array is not split data


def test_row_split_ignores_host_arrays_and_tracers():
    assert row_split(np.ones((4, 2))) is None
    assert row_split(jnp.ones((4, 2))) is None  # one device
    jax.jit(lambda X: row_split(X) is None or pytest.fail("a tracer is not data"))(jnp.ones((4, 2)))
