"""SOA, Littlestone and VC dimensions, shattered trees (UML section 21.1.1; SPEC 2.4-2.5)."""

import itertools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, theory
from jaxlearn.experts._soa import (
    littlestone_dimension,
    shattered_tree,
    soa,
    vc_dimension,
    version_space_table,
)
from tests.harness import count_compilations


def _random_class(seed, num_points, size):
    """``size`` distinct random rows of the 2^num_points functions on ``num_points`` points."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(2**num_points, size=size, replace=False)
    return ((rows[:, None] >> np.arange(num_points)) & 1).astype(np.int32)


def _thresholds(num_points):
    """UML Example 21.4 on a grid: h_a(i) = 1[i < a] for a = 0..N (N + 1 hypotheses)."""
    return (np.arange(num_points)[None, :] < np.arange(num_points + 1)[:, None]).astype(np.int32)


# UML Figure 21.1, with every '*' set to 0: rows h1..h4, columns v1, v2, v3.
FIGURE_21_1 = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1]])


def _path(labels):
    """Node indices i_1..i_d (1-based) of Definition 21.4 for the labelling y_1..y_d."""
    nodes = [1]
    for y in labels[:-1]:
        nodes.append(2 * nodes[-1] + y)
    return np.asarray(nodes)


def _shatters(H, trees, depth):
    """For each tree (rows of node points), whether every labelling of depth ``depth`` is realised."""
    ok = np.ones(len(trees), bool)
    for labels in itertools.product([0, 1], repeat=depth):
        points = trees[:, _path(labels) - 1]  # (M, depth)
        ok &= np.any(np.all(H[:, points] == np.asarray(labels), axis=-1), axis=0)
    return ok


def _brute_force_ldim(H):
    """Definition 21.5 literally: the deepest tree, among all trees over the points, that H shatters."""
    k, num_points = np.unique(H, axis=0).shape
    best = 0
    for depth in range(1, int(np.log2(k)) + 1):  # a depth-d tree needs 2^d distinct hypotheses
        trees = np.asarray(list(itertools.product(range(num_points), repeat=2**depth - 1)))
        if _shatters(H, trees, depth).any():
            best = depth
    return best


def _brute_force_vc(H):
    best = 0
    for size in range(1, H.shape[1] + 1):
        for points in itertools.combinations(range(H.shape[1]), size):
            if len({tuple(row) for row in H[:, points]}) == 2**size:
                best = size
    return best


# --------------------------------------------------------------------------------------------
# Littlestone and VC dimensions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_ldim_and_vc_equal_brute_force_on_tiny_classes(seed):
    H = _random_class(seed, num_points=4, size=2 + seed % 9)
    assert littlestone_dimension(H) == _brute_force_ldim(H)
    assert vc_dimension(H) == _brute_force_vc(H)


@pytest.mark.parametrize("seed", range(8))
def test_vc_le_ldim_le_log2_size(seed):
    H = _random_class(100 + seed, num_points=7, size=3 + 5 * seed)
    ldim, vc = littlestone_dimension(H), vc_dimension(H)
    assert vc <= ldim <= float(theory.halving_bound(H.shape[0]))  # Theorem 21.9, Example 21.2
    # duplicated hypotheses count once
    assert littlestone_dimension(np.concatenate([H, H[:2]])) == ldim


def test_all_functions_and_a_single_hypothesis():
    for n in range(1, 6):
        H = _random_class(0, n, 2**n)  # every function on n points
        assert littlestone_dimension(H) == vc_dimension(H) == n
    assert littlestone_dimension(np.array([[0, 1, 1]])) == vc_dimension(np.array([[0, 1, 1]])) == 0


@pytest.mark.parametrize("d", [2, 3, 5, 8, 12])
def test_example_21_3_singletons(d):
    # X = [d], h_j = 1[x = j]: Ldim 1 although |H| = d; VC dimension 1 as well.
    H = np.eye(d, dtype=np.int32)
    assert littlestone_dimension(H) == 1
    assert vc_dimension(H) == 1


@pytest.mark.parametrize("num_points", range(1, 21))
def test_thresholds_on_a_grid(num_points):
    # The version spaces of thresholds are runs of m consecutive thresholds, and the best split of
    # a run of m is the balanced one, so Ldim(m) = 1 + Ldim(floor(m / 2)) = floor(log2 m); here
    # m = N + 1. VCdim stays 1 (UML Example 21.4: Ldim = infinity on [0, 1], VC = 1).
    H = _thresholds(num_points)
    assert littlestone_dimension(H) == int(np.floor(np.log2(num_points + 1)))
    assert vc_dimension(H) == 1


def test_ldim_of_a_sub_version_space():
    H = _thresholds(7)
    assert littlestone_dimension(H, np.arange(8) < 4) == 2  # four consecutive thresholds
    assert littlestone_dimension(H, np.arange(8) == 5) == 0
    assert littlestone_dimension(H, np.zeros(8, bool)) == -1  # Ldim(empty set) = -1
    with pytest.raises(ValueError, match=r"expected `mask` of shape \(8,\)"):
        littlestone_dimension(H, np.ones(7, bool))


# --------------------------------------------------------------------------------------------
# Shattered trees
# --------------------------------------------------------------------------------------------


def test_figure_21_1_tree():
    assert littlestone_dimension(FIGURE_21_1) == 2
    np.testing.assert_array_equal(shattered_tree(FIGURE_21_1), [0, 1, 2])  # (v1; v2, v3)


@pytest.mark.parametrize(
    "H",
    [
        _thresholds(15),
        _thresholds(6),
        np.eye(6, dtype=np.int32),
        *[_random_class(s, 6, 20) for s in range(4)],
    ],
)
def test_shattered_tree_has_depth_ldim_and_is_shattered(H):
    depth = littlestone_dimension(H)
    tree = np.asarray(shattered_tree(H))
    assert tree.shape == (2**depth - 1,)
    assert _shatters(H, tree[None, :], depth)[0]


def test_shattered_tree_of_ldim_zero_class_is_empty():
    assert shattered_tree(np.array([[1, 0]])).shape == (0,)


# --------------------------------------------------------------------------------------------
# SOA
# --------------------------------------------------------------------------------------------


def test_soa_golden_trace_figure_21_1():
    # Round 1: Ldim(V^0) = Ldim({h1, h2}) = 1 = Ldim(V^1): the tie predicts 1; h1 says 0.
    # Round 2: V = {h1, h2}, x = v2: both sides are singletons, tie -> 1; h1 says 0 again.
    learner = soa(FIGURE_21_1)
    state, trace = core.run(learner, learner.init(0), jnp.array([0, 1, 2]), jnp.array([0, 0, 0]))
    np.testing.assert_array_equal(trace.prediction, [1, 1, 0])
    np.testing.assert_array_equal(trace.mistake, [True, True, False])
    np.testing.assert_array_equal(state.version_space, [True, False, False, False])


def _play(learner, H, xs, ys):
    """Round by round from Python: the states V_1..V_{T+1} and the infos."""
    update = jax.jit(learner.update)
    state = learner.init(xs[0])
    states, infos = [state], []
    for x, y in zip(xs, ys):
        state, info = update(state, x, y)
        states.append(state)
        infos.append(info)
    return states, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *infos)


def _realizable(H, seed, T):
    rng = np.random.default_rng(seed)
    xs = rng.integers(0, H.shape[1], T).astype(np.int32)
    return jnp.asarray(xs), jnp.asarray(H[rng.integers(H.shape[0]), xs])


@pytest.mark.parametrize("seed", range(4))
def test_soa_each_mistake_lowers_ldim_and_predicts_argmax_ldim(seed):
    H = _random_class(seed, num_points=6, size=24)
    table = version_space_table(H)
    learner = soa(H)
    xs, ys = _realizable(H, seed, 25)
    states, trace = _play(learner, H, xs, ys)
    ldims = [littlestone_dimension(H, np.asarray(s.version_space)) for s in states]
    for t, x in enumerate(np.asarray(xs)):
        alive = np.asarray(states[t].version_space)
        sides = [littlestone_dimension(H, alive & (H[:, x] == r)) for r in (0, 1)]
        assert int(trace.prediction[t]) == int(sides[1] >= sides[0])  # argmax, tie -> 1
        assert ldims[t + 1] <= ldims[t] - int(trace.mistake[t])  # Lemma 21.7
        assert table.ldim[int(states[t + 1].node)] == ldims[t + 1]  # table id agrees with the mask
    assert int(trace.mistake.sum()) <= littlestone_dimension(H)


@pytest.mark.parametrize(
    "H",
    [_thresholds(31), np.eye(9, dtype=np.int32), _random_class(7, 8, 60), _random_class(8, 5, 32)],
)
def test_soa_mistake_bound_on_random_realizable_streams(H):
    learner = soa(H)
    streams = [_realizable(H, seed, 40) for seed in range(64)]
    xs, ys = (jnp.stack(a) for a in zip(*streams))
    _, trace = jax.vmap(lambda x, y: core.run(learner, learner.init(x[0]), x, y))(xs, ys)
    mistakes = np.asarray(trace.mistake.sum(axis=1))
    assert not bool(trace.inconsistent.any())
    assert mistakes.max() <= littlestone_dimension(H)  # Lemma 21.7
    assert mistakes.max() >= 1


def _tree_adversary(learner, tree, depth):
    """Lemma 21.6: x_t = v_{i_t}, y_t = 1 - p_t, i_{t+1} = 2 i_t + y_t."""

    def body(carry, _):
        state, i = carry
        x = tree[i - 1]
        y = 1 - learner.predict(state, x)
        state, info = learner.update(state, x, y)
        return (state, 2 * i + y), info

    start = (learner.init(tree[0]), jnp.ones([], jnp.int32))
    (state, _), trace = jax.jit(lambda c: jax.lax.scan(body, c, None, length=depth))(start)
    return state, trace


@pytest.mark.parametrize(
    "H",
    [
        FIGURE_21_1,
        _thresholds(15),
        _thresholds(40),
        np.eye(7, dtype=np.int32),
        _random_class(3, 7, 64),
    ],
)
def test_shattered_tree_adversary_forces_exactly_ldim_mistakes(H):
    # Corollary 21.8: M_SOA(H) = Ldim(H); the tree walk stays realizable, so SOA errs every round.
    depth = littlestone_dimension(H)
    state, trace = _tree_adversary(soa(H), shattered_tree(H), depth)
    assert depth >= 1
    assert int(trace.mistake.sum()) == depth
    assert not bool(trace.inconsistent.any())
    assert bool(state.version_space.any())


def test_run_equals_python_loop_and_chunks():
    H = _random_class(5, 6, 30)
    learner = soa(H)
    xs, ys = _realizable(H, 0, 30)
    states, want = _play(learner, H, xs, ys)
    got_state, got = core.run(learner, learner.init(xs[0]), xs, ys)
    chex.assert_trees_all_equal((got_state, got), (states[-1], want))
    state, traces = learner.init(xs[0]), []
    for lo, hi in [(0, 7), (7, 8), (8, 30)]:
        state, trace = core.run(learner, state, xs[lo:hi], ys[lo:hi])
        traces.append(trace)
    chex.assert_trees_all_equal(state, got_state)
    chex.assert_trees_all_equal(jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces), got)


def test_no_recompilation_and_stable_state():
    H = _thresholds(10)
    learner = soa(H)
    s0 = learner.init(jnp.int32(0))
    core.run(learner, s0, *_realizable(H, 1, 20))
    with count_compilations() as compiled:
        final, _ = core.run(learner, s0, *_realizable(H, 2, 20))
    assert compiled[0] == 0
    chex.assert_trees_all_equal_shapes_and_dtypes(s0, final)
    batch = core.predict_batch(learner, final, jnp.arange(10))
    np.testing.assert_array_equal(batch, [learner.predict(final, x) for x in range(10)])


def test_unrealizable_stream_is_flagged_and_keeps_the_version_space():
    learner = soa(np.eye(3, dtype=np.int32))
    xs, ys = jnp.array([0, 1, 2, 0]), jnp.array([1, 1, 0, 0])
    state, trace = core.run(learner, learner.init(0), xs, ys)
    np.testing.assert_array_equal(trace.inconsistent, [False, True, False, True])
    np.testing.assert_array_equal(state.version_space, [True, False, False])
    np.testing.assert_array_equal(trace.prediction, [0, 0, 0, 1])  # from round 2 on, h_1's labels


def test_bad_inputs():
    with pytest.raises(ValueError, match="expected `H` with at least one hypothesis"):
        soa(np.zeros((0, 3), np.int32))
    with pytest.raises(ValueError, match=r"expected `H` in \{0, 1\}, found values \{0, 1, 2\}"):
        littlestone_dimension(np.array([[0, 2], [1, 0]]))
    with pytest.raises(ValueError, match=r"expected `H` in \{0, 1\}"):
        vc_dimension(np.array([[0.5, 1.0]]))
    with pytest.raises(ValueError, match=r"expected `H` of shape \(num_hypotheses, num_points\)"):
        littlestone_dimension(np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="more than 100 reachable version spaces"):
        littlestone_dimension(np.eye(10, dtype=np.int32), max_version_spaces=100)
    learner = soa(np.eye(4, dtype=np.int32))
    state = learner.init(0)
    with pytest.raises(ValueError, match=r"expected `xs` in \[0, 4\).*found values in \[0, 4\]"):
        core.run(learner, state, jnp.array([0, 4]), jnp.array([0, 1]))
    with pytest.raises(ValueError, match="expected `xs` to hold integer point indices"):
        core.run(learner, state, jnp.array([0.0, 1.0]), jnp.array([0, 1]))
    with pytest.raises(ValueError, match=r"expected `ys` in \{0, 1\}, found values \{-1, 1\}"):
        core.run(learner, state, jnp.array([0, 1]), jnp.array([-1, 1]))
    with pytest.raises(ValueError, match="expected `example_x` of shape"):
        learner.init(jnp.array([0, 1]))
