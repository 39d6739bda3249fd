"""`run`'s input validation, progress bar and exact block mode."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, kernels, losses, online
from jaxlearn._checks import check_finite, check_range
from tests.harness import count_compilations


@pytest.fixture
def stream():
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(0), 40, 3, 0.1)
    return X, y


LINEAR = [
    online.perceptron(),
    online.margin_perceptron(0.1),
    online.online_gradient_descent(losses.hinge, 0.1),
]


@pytest.mark.parametrize("learner", LINEAR, ids=["perceptron", "margin", "ogd"])
def test_bad_labels_named(stream, learner):
    X, y = stream
    with pytest.raises(ValueError, match=r"`ys` in \{-1, 1\}, found values \{0, 1\}.*2 \* y - 1"):
        core.run(learner, learner.init(X[0]), X, (y + 1) / 2)


@pytest.mark.parametrize("bad", [jnp.nan, jnp.inf, -jnp.inf])
def test_non_finite_xs(stream, bad):
    X, y = stream
    learner = online.perceptron()
    with pytest.raises(ValueError, match="`xs` to be finite"):
        core.run(learner, learner.init(X[0]), X.at[3, 1].set(bad), y)


def test_length_mismatch(stream):
    X, y = stream
    learner = online.perceptron()
    with pytest.raises(ValueError, match="`xs` and `ys` of the same length, got 40 and 39"):
        core.run(learner, learner.init(X[0]), X, y[:-1])


def test_one_dimensional_xs(stream):
    X, y = stream
    learner = online.perceptron()
    with pytest.raises(ValueError, match=r"`xs` of shape \(n, d\), got \(40,\)"):
        core.run(learner, learner.init(X[0]), X[:, 0], y)


def test_empty_stream(stream):
    X, y = stream
    learner = online.perceptron()
    with pytest.raises(ValueError, match="non-empty stream"):
        core.run(learner, learner.init(X[0]), X[:0], y[:0])


def test_init_needs_one_example(stream):
    X, _ = stream
    with pytest.raises(ValueError, match=r"`example_x` of shape \(d,\)"):
        online.perceptron().init(X)


def test_checks_skipped_under_tracing(stream):
    # Inside jit the values are unknown: run must trace fine (shape checks only).
    X, y = stream
    learner = online.perceptron()
    f = jax.jit(lambda X, y: core.run(learner, learner.init(X[0]), X, y)[0].w)
    chex.assert_trees_all_close(f(X, y), core.run(learner, learner.init(X[0]), X, y)[0].w)


def test_progress_bar_gives_same_result(stream, capsys):
    X, y = stream
    learner = online.perceptron()
    plain = core.run(learner, learner.init(X[0]), X, y, block_size=0)
    with_bar = core.run(learner, learner.init(X[0]), X, y, progress=True, block_size=0)
    chex.assert_trees_all_equal(plain, with_bar)
    blocked = core.run(learner, learner.init(X[0]), X, y, progress=True, block_size=8)
    chex.assert_trees_all_equal(plain[1].mistake, blocked[1].mistake)
    assert "40" in capsys.readouterr().err  # tqdm writes to stderr


def test_trace_fn_keeps_what_it_returns(stream):
    X, y = stream
    learner = online.perceptron()
    _, kept = core.run(learner, learner.init(X[0]), X, y, trace_fn=lambda info: info.mistake)
    _, full = core.run(learner, learner.init(X[0]), X, y)
    np.testing.assert_array_equal(kept, full.mistake)
    _, kept_blocked = core.run(
        learner, learner.init(X[0]), X, y, trace_fn=lambda info: info.mistake, block_size=16
    )
    np.testing.assert_array_equal(kept_blocked, full.mistake)


@pytest.mark.parametrize(
    "make",
    [
        lambda: online.perceptron(0.7),
        lambda: online.perceptron(normalize=True),
        lambda: online.perceptron(lambda t: 1.0 / jnp.sqrt(t + 1)),
        lambda: online.margin_perceptron(0.2),
    ],
    ids=["perceptron", "normalized", "schedule", "margin"],
)
@pytest.mark.parametrize("block_size", [1, 7, 64, 1000])
def test_block_mode_is_exact(make, block_size, x64):
    # Noisy data, so that blocks hold many mistakes; float64, so the weights match to rounding.
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(3), 300, 5, 0.15)
    learner = make()
    state0 = learner.init(X[0])
    seq = core.run(learner, state0, X, y, block_size=0)
    blk = core.run(learner, state0, X, y, block_size=block_size)
    chex.assert_trees_all_equal(seq[1].mistake, blk[1].mistake)
    chex.assert_trees_all_equal(seq[1].prediction, blk[1].prediction)
    chex.assert_trees_all_close(seq, blk, rtol=1e-12, atol=1e-12)


def test_block_mode_vmaps_over_learning_rates(stream):
    X, y = stream
    lrs = jnp.linspace(0.1, 2.0, 8)
    s0 = online.perceptron().init(X[0])
    blocked = jax.vmap(lambda lr: core.run(online.perceptron(lr), s0, X, y, block_size=16))(lrs)
    seq = jax.vmap(lambda lr: core.run(online.perceptron(lr), s0, X, y, block_size=0))(lrs)
    chex.assert_trees_all_close(blocked, seq, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("learner", LINEAR, ids=["perceptron", "margin", "ogd"])
def test_inactive_rounds_leave_the_state_as_it_was(stream, learner):
    X, y = stream
    active = np.random.default_rng(0).random(len(y)) < 0.6  # inactive rounds among the others
    state0 = learner.init(X[0])
    alone, _ = core.run(learner, state0, X[active], y[active])
    masked, trace = core.run(learner, state0, X, y, active=active)
    if learner is LINEAR[2]:  # OGD's steps scale: XLA compiles them beside the select to 1 ulp
        chex.assert_trees_all_close(masked, alone, rtol=1e-6, atol=1e-7)
    else:  # the perceptrons add examples: the state of the active rounds, bit for bit
        chex.assert_trees_all_equal(masked, alone)
    assert np.asarray(trace.prediction).shape == (len(y),)  # every round traced
    with pytest.raises(ValueError, match=r"expected `active` of shape \(40,\) and dtype bool"):
        core.run(learner, state0, X, y, active=active[:-1])


def test_bad_block_size(stream):
    X, y = stream
    learner = online.perceptron()
    with pytest.raises(ValueError, match=r"`block_size` an integer in \[0, inf\)"):
        core.run(learner, learner.init(X[0]), X, y, block_size=-1)


@pytest.mark.parametrize(
    "learner",
    [
        online.perceptron(),
        online.margin_perceptron(0.1),
        online.online_gradient_descent(losses.hinge, 0.1),
        online.kernel_perceptron(kernels.linear(), 8),
    ],
    ids=["perceptron", "margin", "ogd", "kernel"],
)
@pytest.mark.parametrize("block_size", [None, 8])
def test_stream_of_the_wrong_width(stream, learner, block_size):
    X, y = stream
    with pytest.raises(ValueError, match=r"`xs?` with 3 features .* got 4\b"):
        core.run(learner, learner.init(X[0]), jnp.ones((40, 4)), y, block_size=block_size)
    with pytest.raises(ValueError, match="`x` with 3 features"):
        learner.predict(learner.init(X[0]), jnp.ones(4))


def test_vmap_over_seeds_of_the_data():
    # 8 independent streams in one program: the data are tracers, so run skips its value checks.
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    learner = online.perceptron()

    def one(key):
        X, y, _ = datasets.separable(key, 200, 4, 0.1)
        return core.run(learner, learner.init(X[0]), X, y, block_size=32)[1].mistake.sum()

    batched = jax.jit(jax.vmap(one))(keys)
    np.testing.assert_array_equal(batched, [one(k) for k in keys])


@pytest.mark.parametrize("on_device", [True, False])
def test_finite_and_range_checks_summarise_large_arrays_on_their_device(monkeypatch, on_device):
    from jaxlearn import _checks

    monkeypatch.setattr(_checks, "ON_DEVICE_FROM", 4 if on_device else 1 << 20)
    monkeypatch.setattr(_checks, "on_accelerator", lambda array: True)  # as on a GPU
    good = jnp.linspace(0.0, 1.0, 12).reshape(3, 4)
    check_finite("X", good)
    check_range("ys", good, 0.0, 1.0)
    for bad in (jnp.nan, jnp.inf, -jnp.inf):
        with pytest.raises(ValueError, match="expected `X` to be finite, found NaN or inf values"):
            check_finite("X", good.at[1, 2].set(bad))
        with pytest.raises(ValueError, match=r"expected `ys` in \[0, 1\]"):
            check_range("ys", good.at[2, 3].set(bad), 0.0, 1.0)
    with pytest.raises(ValueError, match=r"expected `ys` in \[0, 1\], found values in \[-0.5, 1\]"):
        check_range("ys", good.at[0, 0].set(-0.5), 0.0, 1.0)
    check_finite("X", jnp.arange(12).reshape(3, 4))  # integers are always finite
    check_finite("X", jnp.zeros((0, 4)))  # empty: nothing to check


def test_one_nan_in_a_large_array_is_found():
    # XLA's CPU min and max of 2^20 entries skip a NaN: the check asks whether all are finite apart.
    big = jnp.zeros((1025, 1024)).at[3, 5].set(jnp.nan)
    with pytest.raises(ValueError, match="expected `X` to be finite, found NaN or inf values"):
        check_finite("X", big)
    with pytest.raises(ValueError, match=r"expected `ys` in \[0, 1\]"):
        check_range("ys", big, 0.0, 1.0)


def test_a_large_array_on_the_cpu_is_checked_without_compiling():
    # NumPy reads it where it is: no program compiled for the checks of a new shape
    big = jnp.zeros((1025, 1024))
    jax.block_until_ready(big)
    with count_compilations() as compiled:
        check_finite("X", big)
        check_range("ys", big, 0.0, 1.0)
    assert compiled[0] == 0
    with pytest.raises(ValueError, match="expected `X` to be finite, found NaN or inf values"):
        check_finite("X", big.at[1024, 1023].set(jnp.inf))


def test_a_large_arrays_summary_is_read_once_for_both_checks(monkeypatch):
    from jaxlearn import _checks

    monkeypatch.setattr(_checks, "ON_DEVICE_FROM", 4)
    monkeypatch.setattr(_checks, "on_accelerator", lambda array: True)  # as on a GPU
    calls = []
    summarise = _checks._device_min_max
    monkeypatch.setattr(_checks, "_device_min_max", lambda x: calls.append(1) or summarise(x))
    losses = jnp.linspace(0.0, 1.0, 12).reshape(3, 4)
    check_finite("ys", losses)
    check_range("ys", losses, 0.0, 1.0)
    assert len(calls) == 1  # the same array: one pass
    with pytest.raises(ValueError, match=r"found values in \[0, 2\]"):
        check_range("ys", losses * 2, 0.0, 1.0)  # a new array: read afresh
    assert len(calls) == 2
