"""Data-parallel ``nn.train``: ``X``, ``y`` split by rows over 1, 2 and 4 devices train to the one-device
fit of the same (stratified) minibatch rule, up to the order of the float sums, without gathering ``X``.

Tolerances: float64 ``rtol=1e-10``, ``atol=1e-12`` (params and history; integer fields exact); float32
``rtol=1e-5``, ``atol=1e-6``. One device (the ``1dev`` mesh) is the one-device program itself: exact.
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxlearn import nn, parallel
from jaxlearn._sharding import row_split
from tests.harness import count_compilations

KEY = jax.random.PRNGKey(3)
# Optimisers are part of train's compiled program: one object each, shared by the tests.
SGD = optax.sgd(0.5)
ADAM = optax.adam(0.05)

# m = 44, b = 8 (b does not divide m): the blocks' weights |B_j|/m are 5/44 and 6/44, and still every
# device of 2 or 4 holds whole blocks (D | b and D | m).
CASES = {
    "squared": dict(m=48, loss="squared", optimizer=SGD, weight_decay=0.01),
    "cross_entropy+validation": dict(
        m=48, loss="cross_entropy", error="zero_one", optimizer=ADAM, validation=12
    ),
    "weighted blocks (b does not divide m)": dict(m=44, loss="cross_entropy", optimizer=ADAM),
}


def _problem(case, dtype):
    """``(X, y, params, train's keyword arguments)`` for one of ``CASES``, in ``dtype``."""
    case = dict(case)
    m, n_valid = case.pop("m"), case.pop("validation", 0)
    X = jax.random.normal(jax.random.PRNGKey(0), (m + n_valid, 3), dtype)
    W = jnp.asarray([[1.0, -1.0, 0.5], [0.5, 1.0, -1.0], [-0.5, 0.25, 1.0]], dtype)
    if case["loss"] == "squared":
        y, outputs = jnp.tanh(X @ W[:, :2]), 2
    else:
        y, outputs = jnp.argmax(X @ W, axis=1).astype(jnp.int32), 3
    params = nn.mlp_init(jax.random.PRNGKey(1), [3, 6, outputs], dtype=dtype)
    if n_valid:
        case["validation"] = (X[m:], y[m:])
    return X[:m], y[:m], params, dict(case, steps=12, batch_size=8, eval_every=4)


def _assert_same_fit(got, want, rtol, atol):
    (best, history), (best_want, history_want) = got, want
    chex.assert_trees_all_close(best, best_want, rtol=rtol, atol=atol)
    for field in ("step", "nonfinite", "best_step"):
        np.testing.assert_array_equal(
            getattr(history, field), getattr(history_want, field), err_msg=field
        )
    for field in ("train_loss", "valid_loss", "valid_error", "start_loss"):
        got_field, want_field = getattr(history, field), getattr(history_want, field)
        chex.assert_trees_all_close(got_field, want_field, rtol=rtol, atol=atol)


def _is_replicated(array):
    return all(entry is None for entry in array.sharding.spec)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_data_parallel_fit_equals_the_one_device_stratified_fit(mesh, case, x64):
    X, y, params, kwargs = _problem(CASES[case], jnp.float64)
    want = nn.train(KEY, params, X, y, sampling="stratified", **kwargs)
    Xs, ys = parallel.shard_rows((X, y), mesh)
    got = nn.train(KEY, params, Xs, ys, sampling="stratified", **kwargs)
    assert all(_is_replicated(leaf) for leaf in jax.tree_util.tree_leaves(got))
    _assert_same_fit(got, want, rtol=1e-10, atol=1e-12)


def test_float32_within_tolerance_default_sampling_and_no_recompilation():
    mesh = parallel.mesh(devices=jax.devices()[:4])
    X, y, params, kwargs = _problem(CASES["squared"], jnp.float32)
    want = nn.train(KEY, params, X, y, sampling="stratified", **kwargs)
    Xs, ys = parallel.shard_rows((X, y), mesh)
    got = nn.train(KEY, params, Xs, ys, **kwargs)  # sampling=None: stratified, since X is split
    _assert_same_fit(got, want, rtol=1e-5, atol=1e-6)
    # y given whole (not split): moved to X's devices, the same fit
    chex.assert_trees_all_equal(nn.train(KEY, params, Xs, y, **kwargs), got)
    X2, y2 = parallel.shard_rows((X[::-1], y[::-1]), mesh)
    with count_compilations() as compiled:
        nn.train(jax.random.PRNGKey(7), params, X2, y2, **kwargs)
    assert compiled[0] == 0


def test_the_compiled_program_adds_gradients_and_never_gathers_X(monkeypatch):
    mesh = parallel.mesh(devices=jax.devices()[:4])
    X, y, params, kwargs = _problem(CASES["weighted blocks (b does not divide m)"], jnp.float32)
    Xs, ys = parallel.shard_rows((X, y), mesh)  # validation: the split training set itself
    texts = []
    real = nn._train._data_parallel

    def spy(*args, **kw):
        program = real(*args, **kw)

        def run(*inputs):
            texts.append(program.lower(*inputs).compile().as_text())
            return program(*inputs)

        return run

    monkeypatch.setattr(nn._train, "_data_parallel", spy)
    nn.train(KEY, params, Xs, ys, **kwargs)
    (text,) = texts
    m, d = X.shape
    shapes = {f"[{m},{d}]", f"[{m // 4},{d}]", f"[{m}]", f"[{m // 4}]"}  # X, y and their blocks
    gathers = [line for line in text.splitlines() if "all-gather" in line]
    assert not [line for line in gathers if any(shape in line for shape in shapes)], gathers
    assert "all-reduce(" in text  # the psum of the devices' gradients


def test_data_parallel_errors():
    mesh = parallel.mesh(devices=jax.devices()[:4])
    X, y, params, kwargs = _problem(CASES["squared"], jnp.float32)
    Xs, ys = parallel.shard_rows((X, y), mesh)
    with pytest.raises(
        ValueError, match=r"`sampling`='stratified' .* over 4 devices, got 'uniform'"
    ):
        nn.train(KEY, params, Xs, ys, **dict(kwargs, sampling="uniform"))
    with pytest.raises(ValueError, match="`batch_size` divisible by the 4 devices"):
        nn.train(KEY, params, Xs, ys, **dict(kwargs, batch_size=6))
    with pytest.raises(ValueError, match="`progress=False`"):
        nn.train(KEY, params, Xs, ys, **dict(kwargs, progress=True))
    by_columns = NamedSharding(parallel.mesh(devices=jax.devices()[:2]), P(None, "data"))
    with pytest.raises(ValueError, match="`X` split by rows only"):
        narrow = [(params[0][0][:, :2], params[0][1]), params[1]]
        nn.train(KEY, narrow, jax.device_put(X[:, :2], by_columns), y, **kwargs)
    # one device: uniform stays the default, and allowed
    one = parallel.shard_rows((X, y), parallel.mesh(devices=jax.devices()[:1]))
    assert row_split(one[0]) is None
    chex.assert_trees_all_equal(
        nn.train(KEY, params, *one, **dict(kwargs, sampling="uniform")),
        nn.train(KEY, params, X, y, **kwargs),
    )
