"""``parallel.sweep``: ``jax.vmap(fn)(values)`` with the swept axis split over 1, 2 and 4 devices.

Each device runs ``jax.vmap(fn)`` on its share of the values, so every result is the one-device
result of the same value, up to rounding: a narrower vmap may round a reduction differently. We
compare with ``jax.vmap`` within ``rtol=atol=1e-6`` in float32; we measured the soft-SVM, Perceptron
and pytree sweeps equal to the bit and the MLP seeds within 6e-8.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as P

from jaxlearn import core, linear, nn, online, parallel

KEY = jax.random.PRNGKey(0)
X = jax.random.normal(KEY, (32, 3))
Y = jnp.sign(X[:, 0] - 0.5 * X[:, 1] + 0.1)


def _close(got, want):
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)


def _svm(lam):
    return linear.soft_svm(lam, 50).fit(jax.random.PRNGKey(1), X, Y).w


def _mlp(key):
    learner = nn.mlp_classifier(4, steps=20, batch_size=8, num_classes=2, validation_fraction=0.0)
    return learner.fit(key, X, (Y > 0).astype(jnp.int32))


def _perceptron(eta):
    learner = online.perceptron(eta)
    state, trace = core.run(learner, learner.init(X[0]), X, Y)
    return state.w, jnp.cumsum(trace.loss)


SWEEPS = {  # fn, values (8 of them: a multiple of 1, 2 and 4 devices)
    "soft_svm lam": (_svm, jnp.logspace(-3, 0, 8)),
    "mlp_classifier seeds": (_mlp, jax.random.split(jax.random.PRNGKey(2), 8)),
    "perceptron eta via run": (_perceptron, jnp.linspace(0.1, 2.0, 8)),
    "a pytree of values": (
        lambda p: linear.soft_svm(p["lam"], 50).fit(p["key"], X, Y).w,
        {"lam": jnp.logspace(-3, 0, 8), "key": jax.random.split(jax.random.PRNGKey(3), 8)},
    ),
}


@functools.lru_cache(maxsize=None)
def _vmapped(name):
    fn, values = SWEEPS[name]
    return jax.vmap(fn)(values)


@pytest.mark.parametrize("name", SWEEPS)
def test_sweep_equals_vmap_and_is_split(name, mesh):
    fn, values = SWEEPS[name]
    got = parallel.sweep(fn, values, mesh)
    _close(got, _vmapped(name))
    for leaf in jax.tree_util.tree_leaves(
        got
    ):  # 8 values divide the devices: the results stay split
        assert leaf.sharding.mesh == mesh and leaf.sharding.spec == (
            P("data") if mesh.size > 1 else P()
        )
        assert {s.data.shape[0] for s in leaf.addressable_shards} == {8 // mesh.size}


@pytest.mark.parametrize("size", [1, 3, 5])
def test_sweep_pads_values_that_do_not_divide_the_devices(size):
    mesh = parallel.mesh()  # 4 devices
    lams = jnp.logspace(-3, 0, size)
    got = parallel.sweep(_svm, lams, mesh)
    assert got.shape == (size, 3)
    _close(got, jax.vmap(_svm)(lams))


def test_sweep_over_a_named_axis_of_a_two_axis_mesh():
    mesh = parallel.mesh(("model", "data"), shape=(2, 2))
    lams = jnp.logspace(-3, 0, 4)
    got = parallel.sweep(_svm, lams, mesh, axis="data")
    _close(got, jax.vmap(_svm)(lams))
    assert got.sharding.spec == P("data")


@pytest.mark.parametrize(
    "values, mesh, error, name",
    [
        (jnp.float32(0.1), None, ValueError, "values"),  # a scalar: no sweep axis
        (
            {"lam": jnp.ones(3), "key": jax.random.split(KEY, 4)},
            None,
            ValueError,
            "values",
        ),  # lengths
        (jnp.ones(3), jax.devices(), TypeError, "mesh"),  # not a Mesh
        (jnp.ones(3), "data", TypeError, "mesh"),
    ],
    ids=["scalar values", "mismatched lengths", "a list of devices", "an axis name"],
)
def test_sweep_refuses_bad_input(values, mesh, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        parallel.sweep(lambda v: v, values, mesh)
