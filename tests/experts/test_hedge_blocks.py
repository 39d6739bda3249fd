"""Hedge's block layouts (direct, short blocks, chunks side by side) against the round-by-round updates,
under vmap, and differentiated."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, experts
from jaxlearn.experts import _hedge_blocks as blocks


def _scan(log_v, losses, eta):
    """The reference: Hedge's update one round at a time."""
    learner = experts.hedge(eta)
    state = experts.HedgeState(log_v, jax.random.PRNGKey(0), jnp.int32(0))
    state, trace = core.run(learner, state, None, losses, block_size=0)
    return state.log_v, trace.loss, trace.prediction, jnp.log(trace.prediction)


def _start(n, key=9):
    return jax.nn.log_softmax(jax.random.normal(jax.random.PRNGKey(key), (n,), jnp.float64))


@pytest.mark.parametrize(
    "layout",
    [
        blocks.direct,
        blocks.in_short_blocks,
        *(lambda *a, c=c: blocks.chunked(*a, c) for c in (2, 5, 18)),
    ],
    ids=["direct", "short_blocks", "2_chunks", "5_chunks", "18_chunks"],
)
@pytest.mark.parametrize("size", [37, 300, 2051])
def test_every_layout_equals_the_round_by_round_updates(layout, size, x64):
    # sizes that no chunk count divides: the tails go through play()
    n, eta = 7, 0.8
    losses = jax.random.uniform(jax.random.PRNGKey(size), (size, n), jnp.float64)
    log_v = _start(n)
    got = jax.jit(layout)(log_v, losses, jnp.float64(eta))
    want = _scan(log_v, losses, eta)
    final = got[0] - jax.nn.logsumexp(got[0])  # allocations() normalises the state once more
    np.testing.assert_allclose(final, want[0], rtol=1e-12, atol=1e-12)
    for a, b in zip(got[1:], want[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_chunk_count_keeps_the_slab_near_its_size_and_the_chunks_long():
    assert blocks.chunk_count(100_000, 1000) == blocks.SLAB_ENTRIES // 1000
    assert blocks.chunk_count(100, 1000) == 100 // blocks.MIN_CHUNK_ROUNDS
    assert blocks.chunk_count(10**6, 10**6) == 1  # play() then takes short blocks


def test_one_stream_takes_the_chunks_and_a_batch_the_short_blocks(monkeypatch, x64):
    calls = []
    for name in ("chunked", "in_short_blocks"):
        original = getattr(blocks, name)
        monkeypatch.setattr(
            blocks, name, lambda *a, _f=original, _n=name: calls.append(_n) or _f(*a)
        )
    n = 1000  # a slab of chunks x n >= MIN_SLAB_ENTRIES
    losses = jax.random.uniform(
        jax.random.PRNGKey(0), (blocks.DIRECT_ROUNDS + 1100, n), jnp.float64
    )
    log_v = _start(n)
    assert blocks.chunk_count(*losses.shape) * n >= blocks.MIN_SLAB_ENTRIES
    one = blocks.allocations(log_v, losses, jnp.float64(0.5))
    assert calls == ["chunked"]
    calls.clear()
    blocks.allocations(log_v, losses[: blocks.DIRECT_ROUNDS], jnp.float64(0.5))
    assert calls == []  # direct
    blocks.allocations(log_v[:6] - jax.nn.logsumexp(log_v[:6]), losses[:, :6], jnp.float64(0.5))
    assert calls == ["in_short_blocks"]  # 6 actions: a slab too small for chunks
    calls.clear()
    etas = jnp.array([0.5, 2.0], jnp.float64)
    swept = jax.vmap(blocks.allocations, (None, None, 0))(log_v, losses, etas)
    assert calls[-1] == "in_short_blocks"  # (custom_vmap traces the one-stream function first)
    chex.assert_trees_all_close(
        jax.tree_util.tree_map(lambda a: a[0], swept), one, rtol=1e-12, atol=1e-12
    )


def test_seeds_by_rates_by_streams_under_nested_vmap(x64):
    # HA-2 with 2 seeds x 3 rates x 2 loss streams: every combination equals its own run
    T, n = blocks.DIRECT_ROUNDS + 100, 5
    streams = jax.random.uniform(jax.random.PRNGKey(1), (2, T, n), jnp.float64)
    etas = jnp.array([0.05, 0.5, 5.0], jnp.float64)
    keys = jax.random.split(jax.random.PRNGKey(2), 2)

    def run(key, eta, losses):
        learner = experts.hedge(eta, sample=True)
        return core.run(learner, learner.init(jnp.zeros(n, jnp.float64), key), None, losses)

    nested = jax.vmap(jax.vmap(jax.vmap(run, (None, None, 0)), (None, 0, None)), (0, None, None))
    out = nested(keys, etas, streams)
    for i, j, k in [(0, 0, 0), (1, 2, 1), (0, 1, 1)]:
        want = run(keys[i], etas[j], streams[k])
        got = jax.tree_util.tree_map(lambda a, ijk=(i, j, k): a[ijk], out)
        chex.assert_trees_all_close(got, want, rtol=1e-12, atol=1e-12)


def test_gradient_with_respect_to_eta_equals_the_scans(x64):
    T, n = blocks.DIRECT_ROUNDS + 1300, 1000  # one stream in chunks
    losses = jax.random.uniform(jax.random.PRNGKey(3), (T, n), jnp.float64)
    assert blocks.chunk_count(T, n) * n >= blocks.MIN_SLAB_ENTRIES
    state0 = experts.hedge(1.0).init(jnp.zeros(n, jnp.float64))

    def total_loss(eta, block_size):
        return core.run(experts.hedge(eta), state0, None, losses, block_size=block_size)[
            1
        ].loss.sum()

    eta = jnp.float64(0.3)
    fast = jax.grad(total_loss)(eta, None)
    scan = jax.grad(total_loss)(eta, 0)
    np.testing.assert_allclose(fast, scan, rtol=1e-10)
    assert float(fast) != 0.0
    swept = jax.vmap(jax.grad(total_loss), (0, None))(jnp.array([0.1, 0.3], jnp.float64), None)
    np.testing.assert_allclose(swept[1], scan, rtol=1e-10)
    _, tangent = jax.jvp(lambda e: total_loss(e, None), (eta,), (jnp.float64(1.0),))
    np.testing.assert_allclose(tangent, scan, rtol=1e-10)


@pytest.mark.parametrize("top_rate", [9.0, 300.0], ids=["shift_from_start", "row_maxima"])
@pytest.mark.parametrize("size", [blocks.DIRECT_ROUNDS, 37, 300])
@pytest.mark.parametrize("batched", ["rates", "starts", "both"])
def test_rates_and_starts_on_one_stream_equal_their_own_runs(
    size, batched, top_rate, monkeypatch, x64
):
    # vmap over rates or starting weights with the stream shared: the rate axis inside each round
    ranks = []
    original = blocks.direct
    monkeypatch.setattr(
        blocks, "direct", lambda log_v, *a: ranks.append(log_v.ndim) or original(log_v, *a)
    )
    n, k = 6, 3
    losses = jax.random.uniform(jax.random.PRNGKey(size), (size, n), jnp.float64)
    etas = jnp.array([0.05, 0.8, top_rate], jnp.float64)
    starts = jnp.stack([_start(n, key) for key in range(k)])
    eta_axis, start_axis = {"rates": (0, None), "starts": (None, 0), "both": (0, 0)}[batched]
    eta_in = etas if eta_axis == 0 else etas[1]
    start_in = starts if start_axis == 0 else starts[0]
    swept = jax.vmap(blocks.allocations, (start_axis, None, eta_axis))(start_in, losses, eta_in)
    assert ranks[-1] == 2  # (k, n) log-weights: the k rates in one direct() per block
    for j in range(k):
        start = starts[j] if start_axis == 0 else start_in
        eta = etas[j] if eta_axis == 0 else eta_in
        mine = jax.tree_util.tree_map(lambda a, j=j: a[j], swept)
        chex.assert_trees_all_close(
            mine, blocks.allocations(start, losses, eta), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(mine[1], _scan(start, losses, eta)[1], rtol=1e-11, atol=1e-12)


def test_a_sweeps_shift_bounds_each_row_from_the_block_start_where_safe(x64):
    n = 6
    earlier = blocks.earlier_rounds(jax.random.uniform(jax.random.PRNGKey(4), (17, n), jnp.float64))
    log_v = jnp.stack([_start(n, key) for key in range(3)])
    spread = jnp.max(jnp.max(earlier, axis=-1) - jnp.min(earlier, axis=-1))

    def row_maxima(etas):
        return jnp.max(log_v - etas[:, None] * earlier[:, None], axis=-1, keepdims=True)

    small = jnp.array([0.05, 0.8, 2.0], jnp.float64)
    shift, exact = blocks.shift_for_rates(log_v, earlier, small), row_maxima(small)
    assert shift.shape == (17, 3, 1)
    assert bool(jnp.all(shift >= exact - 1e-12))  # no exponential above 1
    assert bool(
        jnp.all(shift <= exact + small[:, None] * spread + 1e-12)
    )  # the largest weight kept
    assert not np.allclose(shift, exact)  # taken from the block's start, not the rows' maxima
    large = jnp.array(
        [0.05, 0.8, 300.0], jnp.float64
    )  # 300 x spread: past SAFE_RANGE of float64's range
    negative = jnp.array([-0.1, 0.8, 2.0], jnp.float64)  # a negative rate: no bound from the start
    for etas in (large, negative):
        np.testing.assert_allclose(
            blocks.shift_for_rates(log_v, earlier, etas), row_maxima(etas), rtol=1e-14
        )
