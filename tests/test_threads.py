"""One compiled program on slices of its batch axis, in threads (``jaxlearn._threads``), and
``parallel.sweep`` on one CPU device, which runs that way: each slice is ``jax.vmap(fn)`` of its
values, so every result is the one-program result of the same value up to rounding (a narrower vmap
may round a reduction differently; tests/parallel/test_sweep.py measured the same sweeps equal to
within 6e-8 when split over devices)."""

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as P

from jaxlearn import linear, nn, parallel
from jaxlearn._threads import cpu_cores, cpu_parts, join_slices, run_in_threads

KEY = jax.random.PRNGKey(0)
X = jax.random.normal(KEY, (32, 3))
Y = jnp.sign(X[:, 0] - 0.5 * X[:, 1] + 0.1)


def _close(got, want, tol=1e-6):
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _svm(lam):
    return linear.soft_svm(lam, 50).fit(jax.random.PRNGKey(1), X, Y).w


def _mlp(key):
    learner = nn.mlp_classifier(4, steps=20, batch_size=8, num_classes=2, validation_fraction=0.0)
    return learner.fit(key, X, (Y > 0).astype(jnp.int32))


@pytest.fixture
def sliced(monkeypatch):
    """``parallel.sweep`` split into ``parts`` slices whatever the machine's cores; records the calls."""
    calls = []

    def use(parts):
        def run(program, slices):
            calls.append(len(slices))
            return run_in_threads(program, slices)

        monkeypatch.setattr(parallel, "cpu_parts", lambda size: min(parts, size))
        monkeypatch.setattr(parallel, "run_in_threads", run)
        return calls

    return use


@pytest.mark.parametrize("parts, size", [(2, 8), (2, 5), (3, 7), (4, 4)])
def test_sweep_in_slices_equals_one_vmap(sliced, parts, size):
    calls = sliced(parts)
    lams = jnp.logspace(-3, 0, size)
    got = parallel.sweep(_svm, lams)
    _close(got, jax.vmap(_svm)(lams))
    assert calls == [parts]  # the threads ran, one slice each
    assert got.sharding.mesh == parallel.mesh() and got.sharding.spec == P()  # as the one program's


def test_seed_sweep_of_networks_in_slices_equals_one_vmap(sliced):
    calls = sliced(2)
    keys = jax.random.split(KEY, 5)
    _close(parallel.sweep(_mlp, keys), jax.vmap(_mlp)(keys), tol=1e-5)
    assert calls == [2]


def test_pytree_values_and_results_in_slices(sliced):
    sliced(2)
    values = {"a": jnp.arange(5.0), "b": jnp.arange(10.0).reshape(5, 2)}
    fn = lambda v: (v["a"] * v["b"].sum(), {"c": v["b"] - v["a"]})  # noqa: E731
    _close(parallel.sweep(fn, values), jax.vmap(fn)(values))
    pair = (jnp.arange(3.0), jnp.ones(3))  # a tuple of values is one value, not two arguments
    _close(parallel.sweep(lambda p: p[0] * p[1], pair), jnp.arange(3.0))


def test_inside_jit_or_vmap_the_sweep_is_the_one_program(sliced):
    calls = sliced(2)
    lams = jnp.logspace(-3, 0, 4)

    @jax.jit
    def scaled(scale):
        return parallel.sweep(lambda lam: scale * _svm(lam), lams)  # closes over a tracer

    _close(scaled(2.0), 2 * jax.vmap(_svm)(lams))
    _close(
        jax.vmap(lambda s: parallel.sweep(lambda lam: s * lam, lams))(jnp.arange(3.0)),
        jnp.arange(3.0)[:, None] * lams,
    )
    assert calls == []


def test_the_program_is_compiled_under_the_callers_settings(sliced):
    calls = sliced(2)
    with jax.enable_x64(True):
        out = parallel.sweep(lambda lam: lam * jnp.ones(2), jnp.arange(4.0, dtype=jnp.float64))
    assert out.dtype == jnp.float64 and calls == [2]  # the worker threads do not hold enable_x64


def test_one_slice_per_core_without_padding_slices():
    cores = cpu_cores()
    for count in [*range(1, 40), 100]:  # trees of a forest, values of a sweep
        parts = cpu_parts(count)
        size = -(-count // parts)
        assert (
            1 <= parts <= max(1, min(cores, count)) and (parts - 1) * size < count <= parts * size
        )


def test_run_in_threads_runs_each_slice_in_its_own_thread():
    seen = []

    def program(x):
        seen.append(threading.get_ident())
        return x + 1

    assert [int(v) for v in run_in_threads(program, [(jnp.int32(1),), (jnp.int32(2),)])] == [2, 3]
    assert len(seen) == 2 and threading.get_ident() not in seen


def test_join_slices_joins_on_the_host_and_compiles_nothing():
    from tests.harness import count_compilations

    outs = [{"w": jnp.arange(3.0) + 3 * i, "n": jnp.arange(3, dtype=jnp.int32)} for i in range(2)]
    jax.block_until_ready(outs)
    with count_compilations() as compiled:
        joined = join_slices(outs, 5)
    assert compiled[0] == 0
    np.testing.assert_array_equal(joined["w"], np.arange(5.0))
    np.testing.assert_array_equal(joined["n"], [0, 1, 2, 0, 1])
    assert joined["w"].dtype == jnp.float32 and joined["n"].dtype == jnp.int32
    assert isinstance(joined["w"], jax.Array)
    keys = jax.random.split(jax.random.key(0), 6)  # typed keys: joined by JAX
    joined = join_slices([keys[:3], keys[3:]], 5)
    np.testing.assert_array_equal(jax.random.key_data(joined), jax.random.key_data(keys[:5]))
