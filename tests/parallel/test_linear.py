"""Data-parallel ``linear.soft_svm`` and ``linear.sgd`` (mini-batch rule, rows split over 1, 2, 4 devices).

The fit on split rows is the one-device fit of the same stratified mini-batch rule, up to the order of
the floating-point sum of the devices' partial gradients: within 1e-6 in float32 (we measured at most
2.4e-7 on these data) and 1e-12 in float64.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxlearn import linear, losses, multiclass, online, parallel
from jaxlearn._sharding import block_weights, row_split, stratified_indices
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(1)


def _sample(dtype=np.float32, m=64, d=5):
    X = np.asarray(jax.random.normal(jax.random.PRNGKey(0), (m, d)), dtype)
    return X, np.sign(X[:, 0] + 0.3 * X[:, 1] + 0.1).astype(dtype)


def _tolerance(dtype):
    return 1e-12 if dtype == np.float64 else 1e-6


def _close(got, want, dtype):
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=_tolerance(dtype))


LEARNERS = {
    "soft_svm": lambda: linear.soft_svm(0.1, 300, batch_size=8),
    "soft_svm bias ss10": lambda: linear.soft_svm(
        0.05, 200, batch_size=16, fit_intercept=True, variant="ss10"
    ),
    "sgd lam": lambda: linear.sgd(losses.logistic, steps=200, batch_size=8, lam=0.1),
    "sgd eta, ball": lambda: linear.sgd(
        losses.hinge,
        steps=200,
        batch_size=4,
        eta=0.5,
        projection=online.l2_ball(1.0),
        average=False,
    ),
    "sgd adam": lambda: linear.sgd(
        losses.logistic, steps=100, batch_size=8, optimizer=optax.adam(0.05)
    ),
}


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_split_rows_fit_equals_one_device_fit(name, dtype, mesh):
    with jax.enable_x64(dtype == np.float64):
        X, y = _sample(dtype)
        learner = LEARNERS[name]()
        want = learner.fit(KEY, X, y)
        Xs, ys = parallel.shard_rows((X, y), mesh)
        got = learner.fit(KEY, Xs, ys)
        _close(got, want, dtype)
        # the params come back whole on every device
        assert all(leaf.sharding.is_fully_replicated for leaf in jax.tree_util.tree_leaves(got))
        assert learner.predict(got, Xs).tolist() == learner.predict(want, X).tolist()


def test_vmap_over_lam_with_split_rows(mesh):
    X, y = _sample()
    Xs, ys = parallel.shard_rows((X, y), mesh)
    lams = jnp.array([0.01, 0.1, 1.0])

    def sweep(X, y):
        return jax.vmap(lambda lam: linear.soft_svm(lam, 200, batch_size=8).fit(KEY, X, y).w)(lams)

    _close(sweep(Xs, ys), sweep(X, y), np.float32)


def test_second_fit_compiles_nothing():
    X, y = _sample()
    Xs, ys = parallel.shard_rows((X, y), parallel.mesh())
    learner = linear.soft_svm(0.1, 100, batch_size=8)
    learner.fit(KEY, Xs, ys)
    with count_compilations() as count:
        linear.soft_svm(0.5, 100, batch_size=8).fit(
            jax.random.PRNGKey(7), Xs, ys
        )  # a new lam and key
    assert count[0] == 0


def _hlo(learner_body, split, X, y, lam, batch_size, **static):
    from jaxlearn.linear._common import _program  # the cached data-parallel program

    idx = stratified_indices(KEY, (50,), X.shape[0], batch_size)
    weights = block_weights(X.shape[0], batch_size, X.dtype)
    program = _program(learner_body, split, tuple(sorted(static.items())), 1)
    return program.lower(idx, X, y, lam, weights).compile().as_text()


def _gathers(hlo):
    return [line for line in hlo.splitlines() if "all-gather" in line]


def test_no_all_gather_of_the_data():
    """The compiled data-parallel program exchanges the gradient (an all-reduce of (d,)), never X."""
    from jaxlearn.linear._svm import _soft_svm_body

    X, y = _sample(m=64, d=5)
    Xs, ys = parallel.shard_rows((X, y), parallel.mesh())
    split = row_split(Xs)
    static = dict(fit_intercept=False, variant="uml", progress=False)
    hlo = _hlo(_soft_svm_body, split, Xs, ys, jnp.float32(0.1), 8, **static)
    assert _gathers(hlo) == []
    assert any("all-reduce" in line and "f32[5]" in line for line in hlo.splitlines())
    # the control: the one-device program, handed the split X under jit, moves rows between devices
    one_device = jax.jit(functools.partial(_soft_svm_body, fit_intercept=False, variant="uml"))
    idx = stratified_indices(KEY, (50,), 64, 8)
    weights = block_weights(64, 8, np.float32)
    text = one_device.lower(idx, Xs, ys, jnp.float32(0.1), weights).compile().as_text()
    assert any(
        word in text for word in ("all-gather", "all-reduce", "collective-permute", "all-to-all")
    )


def test_batch_size_must_divide_over_devices():
    X, y = _sample()
    Xs, ys = parallel.shard_rows((X, y), parallel.mesh())
    with pytest.raises(ValueError, match="`batch_size` divisible by the 4 devices"):
        linear.soft_svm(0.1, 10, batch_size=6).fit(KEY, Xs, ys)
    with pytest.raises(ValueError, match="`batch_size` divisible by the 4 devices"):
        linear.sgd(losses.hinge, steps=10, lam=0.1).fit(KEY, Xs, ys)  # batch_size=1 on 4 devices


def test_split_columns_refused():
    X, y = _sample()
    mesh = parallel.mesh(("rows", "cols"), shape=(2, 2))
    Xc = jax.device_put(X[:, :4], NamedSharding(mesh, P("rows", "cols")))
    with pytest.raises(ValueError, match="expected `X` split by rows only"):
        linear.soft_svm(0.1, 10, batch_size=4).fit(KEY, Xc, y)


def test_two_axis_mesh_rows_over_both_axes():
    """Rows split over both axes of a (2, 2) mesh: four row blocks, the same fit."""
    X, y = _sample()
    mesh = parallel.mesh(("a", "b"), shape=(2, 2))
    Xs = jax.device_put(X, NamedSharding(mesh, P(("a", "b"))))
    ys = jax.device_put(y, NamedSharding(mesh, P(("a", "b"))))
    assert row_split(Xs).count == 4
    learner = linear.soft_svm(0.1, 200, batch_size=8)
    _close(learner.fit(KEY, Xs, ys), learner.fit(KEY, X, y), np.float32)


def test_progress_bar_refused_on_split_rows():
    X, y = _sample()
    Xs, ys = parallel.shard_rows((X, y), parallel.mesh())
    with pytest.raises(ValueError, match="`progress=False`"):
        linear.soft_svm(0.1, 10, batch_size=8, progress=True).fit(KEY, Xs, ys)


def test_y_from_anywhere_follows_the_rows_of_X():
    """``y`` from the host, one device or replicated is moved onto X's row split (never an error)."""
    X, y = _sample()
    Xs = parallel.shard_rows(X, parallel.mesh())
    want = linear.soft_svm(0.1, 100, batch_size=8).fit(KEY, X, y)
    for placed in (y, jnp.asarray(y), jax.device_put(y, jax.devices()[3]), parallel.replicate(y)):
        _close(linear.soft_svm(0.1, 100, batch_size=8).fit(KEY, Xs, placed), want, np.float32)


@pytest.mark.parametrize("reduction", ["one_vs_all", "all_pairs"])
def test_multiclass_reductions_over_a_data_parallel_binary_learner(reduction):
    """The K binary fits of a reduction, vmapped over classes, each run data-parallel on the split rows."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(64, 5)).astype(np.float32), rng.integers(0, 3, 64).astype(np.int32)
    learner = getattr(multiclass, reduction)(linear.soft_svm(0.1, 100, batch_size=8), num_classes=3)
    want = learner.fit(KEY, X, y)
    got = learner.fit(KEY, *parallel.shard_rows((X, y), parallel.mesh()))
    _close(got, want, np.float32)
    assert learner.predict(got, X).tolist() == learner.predict(want, X).tolist()
