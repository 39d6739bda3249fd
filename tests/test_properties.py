"""Property tests (hypothesis): invariants that hold for every input, not only for the fixtures.

Seeds, cut points, block sizes, hyperparameters, dtypes and containers are drawn by hypothesis; arrays
are built from the drawn seed with ``jax.random`` / NumPy in a few fixed shapes, so JAX compiles little.

1. Chunking: ``core.run`` over a stream cut at any points, the state carried, equals one ``core.run``
   over the whole stream (perceptron, margin perceptron, OGD, Winnow, Hedge, Weighted Majority):
   rtol 1e-6, atol 1e-6 (flags and counters exactly).
2. Block rule: ``core.run(..., block_size=b)`` equals the round-by-round scan (``block_size=0``) for
   every ``b >= 1`` (perceptron, normalised perceptron, margin perceptron: rtol 1e-5, atol 1e-6;
   Hedge, whose block rule sums the losses in another order: rtol 1e-4, atol 1e-5).
3. vmap == loop: ``jax.vmap`` of ``core.run`` over the hyperparameter equals a Python loop of runs
   (rtol 1e-5, atol 1e-6); ``linear.soft_svm``'s ``fit`` vmapped over keys, and ``linear.ridge``'s
   over ``lam``, equal separate fits (rtol 1e-5, atol 1e-6).
4. Inputs: JAX arrays, NumPy arrays and Python lists, of bool / int / float dtypes holding the same
   values, give exactly (same values, same dtypes) the result of float32 JAX arrays: ``online.perceptron``,
   ``online.winnow``, ``linear.soft_svm``, ``linear.ridge``, ``kernels.gram``, ``neighbors.knn``,
   ``trees.decision_tree``, ``metrics.accuracy``; bool class labels are the int labels 0/1 (knn, tree).
5. float32 vs float64 (``jax.enable_x64``), the same values: perceptron mistakes equal and weights
   within rtol 1e-5, atol 1e-5 on separable data; ridge weights within rtol 1e-4, atol 1e-5; Hedge
   weights within atol 1e-5; Soft-SVM (same key) weights within rtol 1e-4, atol 1e-5.
6. Normalisation: over 10^6 rounds in float32, Hedge's allocation and (randomized) Weighted Majority's
   weights sum to 1 within 1e-5 and are finite, every round.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from jaxlearn import (
    core,
    datasets,
    experts,
    kernels,
    linear,
    losses,
    metrics,
    neighbors,
    online,
    trees,
)


def _settings(examples: int):
    """Few examples, no deadline (first calls compile), no example database written to the tree, no
    ``explain`` phase (it traces every line: minutes for a failing JAX test)."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
    )


SEEDS = st.integers(0, 2**31 - 1)


def _floats(lo, hi):
    """Hyperparameters in [lo, hi], float32 values (no float32 subnormals: XLA on CPU flushes them to 0
    in some programs and not in others)."""
    lo, hi = float(np.float32(lo)), float(np.float32(hi))
    return st.floats(lo, hi, width=32, allow_subnormal=False)


N = 32  # rounds of every online stream (one compiled whole-stream program per learner)


def _key(seed):
    return jax.random.PRNGKey(seed)


def _index(tree, i):
    return jax.tree_util.tree_map(lambda a: a[i], tree)


def _concat(*trees):
    return jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *trees)


# --- streams (jitted: one program per generator) ---------------------------------------------------------


@jax.jit
def _noisy(key):
    X, y, _ = datasets.noisy_halfspace(key, N, 6, 0.1)
    return X, y


@jax.jit
def _separable(key):
    X, y, _ = datasets.separable(key, N, 6, 0.1)
    return X, y


@jax.jit
def _boolean(key):
    X, y, _ = datasets.disjunction(key, N, 12, 2)
    return X, y


@jax.jit
def _losses(key):
    return None, jax.random.uniform(key, (N, 6))


@jax.jit
def _advice(key):
    return datasets.expert_advice(key, N, 8, jnp.linspace(0.1, 0.5, 8))


@dataclasses.dataclass(frozen=True)
class Online:
    """An online learner: ``make(h)`` from one numeric hyperparameter drawn from ``hparam``."""

    name: str
    make: Callable[[Any], core.Learner]
    hparam: st.SearchStrategy
    stream: Callable

    def init(self, learner, xs, ys):
        return learner.init(ys[0] if xs is None else xs[0])


PERCEPTRON = Online("perceptron", online.perceptron, _floats(0.1, 5.0), _noisy)
PERCEPTRON_NORMALIZED = Online(
    "perceptron_normalized",
    lambda eta: online.perceptron(eta, normalize=True),
    _floats(0.1, 5.0),
    _noisy,
)
MARGIN = Online("margin_perceptron", online.margin_perceptron, _floats(0.01, 0.5), _separable)
OGD = Online(
    "ogd_hinge",
    lambda eta: online.online_gradient_descent(losses.hinge, eta, projection=online.l2_ball(2.0)),
    _floats(0.01, 1.0),
    _noisy,
)
WINNOW = Online("winnow", online.winnow, _floats(1.1, 4.0), _boolean)
HEDGE = Online("hedge", experts.hedge, _floats(0.01, 5.0), _losses)
WEIGHTED_MAJORITY = Online(
    "weighted_majority", experts.weighted_majority, _floats(0.0, 0.95), _advice
)

CHUNKED = [PERCEPTRON, MARGIN, OGD, WINNOW, HEDGE, WEIGHTED_MAJORITY]
BLOCKED = [PERCEPTRON, PERCEPTRON_NORMALIZED, MARGIN, HEDGE]


def _ids(cases):
    return [case.name for case in cases]


# --- 1. chunked streams ----------------------------------------------------------------------------------

# Cut points on a grid of 8 rounds plus the ends: chunks come in a few lengths (few compilations).
CUTS = st.lists(st.sampled_from([1, 8, 16, 24, 31]), min_size=1, max_size=2, unique=True).map(
    sorted
)


@pytest.mark.parametrize("case", CHUNKED, ids=_ids(CHUNKED))
@_settings(4)
@given(seed=SEEDS, cuts=CUTS, data=st.data())
def test_chunked_run_equals_whole_run(case, seed, cuts, data):
    learner = case.make(data.draw(case.hparam, label="hyperparameter"))
    xs, ys = case.stream(_key(seed))
    state = case.init(learner, xs, ys)
    whole = core.run(learner, state, xs, ys)
    traces = []
    for lo, hi in zip([0, *cuts], [*cuts, N]):
        state, trace = core.run(learner, state, None if xs is None else xs[lo:hi], ys[lo:hi])
        traces.append(trace)
    # Hedge plays blocks of 16 rounds by default, so a cut moves the blocks: its log-weights are sums in
    # another order (float32: 2e-6 on a log-weight of -4e-4), the tolerance of the block rule below.
    tol = dict(rtol=1e-4, atol=1e-5) if case is HEDGE else dict(rtol=1e-6, atol=1e-6)
    chex.assert_trees_all_close((state, _concat(*traces)), whole, **tol)


# --- 2. the block rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", BLOCKED, ids=_ids(BLOCKED))
@_settings(4)
@given(seed=SEEDS, block_size=st.integers(1, N + 8), data=st.data())
def test_block_rule_equals_scan(case, seed, block_size, data):
    learner = case.make(data.draw(case.hparam, label="hyperparameter"))
    xs, ys = case.stream(_key(seed))
    state = case.init(learner, xs, ys)
    blocked = core.run(learner, state, xs, ys, block_size=block_size)
    scanned = core.run(learner, state, xs, ys, block_size=0)
    # Hedge's block rule sums the losses in another order: its log-weights agree to 1e-5 absolutely
    tol = dict(rtol=1e-4, atol=1e-5) if case is HEDGE else dict(rtol=1e-5, atol=1e-6)
    chex.assert_trees_all_close(blocked, scanned, **tol)


# --- 3. vmap == loop -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CHUNKED, ids=_ids(CHUNKED))
@_settings(3)
@given(seed=SEEDS, data=st.data())
def test_vmap_over_hyperparameter_equals_loop(case, seed, data):
    hs = data.draw(st.lists(case.hparam, min_size=3, max_size=3), label="hyperparameters")
    xs, ys = case.stream(_key(seed))
    state = case.init(case.make(hs[0]), xs, ys)
    swept = jax.vmap(lambda h: core.run(case.make(h), state, xs, ys))(jnp.asarray(hs, jnp.float32))
    for i, h in enumerate(hs):
        one = core.run(case.make(jnp.float32(h)), state, xs, ys)
        chex.assert_trees_all_close(_index(swept, i), one, rtol=1e-5, atol=1e-6)


@_settings(4)
@given(seed=SEEDS, lam=_floats(0.01, 2.0))
def test_soft_svm_fit_vmapped_over_keys_equals_separate_fits(seed, lam):
    X, y = _noisy(_key(seed))
    learner = linear.soft_svm(lam, 64)
    keys = jax.random.split(_key(seed + 1), 3)
    swept = jax.vmap(learner.fit, in_axes=(0, None, None))(keys, X, y)
    for i in range(keys.shape[0]):
        chex.assert_trees_all_close(
            _index(swept, i), learner.fit(keys[i], X, y), rtol=1e-5, atol=1e-6
        )


@_settings(4)
@given(seed=SEEDS, lams=st.lists(_floats(0.01, 10.0), min_size=3, max_size=3))
def test_ridge_fit_vmapped_over_lam_equals_separate_fits(seed, lams):
    X, y = _noisy(_key(seed))
    swept = jax.vmap(lambda lam: linear.ridge(lam).fit(None, X, y))(jnp.asarray(lams, jnp.float32))
    for i, lam in enumerate(lams):
        one = linear.ridge(jnp.float32(lam)).fit(None, X, y)
        chex.assert_trees_all_close(_index(swept, i), one, rtol=1e-5, atol=1e-6)


# --- 4. containers and dtypes ----------------------------------------------------------------------------

CONTAINERS = st.sampled_from(["jax", "numpy", "list"])
#: Dtypes of an input holding small integers; bool holds {0, 1}, uint8 {0..3}, the others {-2..2}.
INT_KINDS = st.sampled_from(["bool", "uint8", "int32", "int64", "float64"])
#: Dtypes of {0, 1} values (Winnow's instances, 0/1 labels).
BINARY_KINDS = st.sampled_from(["bool", "uint8", "int32", "int64", "float32", "float64"])
#: Dtypes of class labels 0..k-1 (bool class labels: ``test_bool_class_labels``).
CLASS_KINDS = st.sampled_from(["uint8", "int32", "int64", "float32", "float64"])
#: Dtypes of {-1, +1} labels.
SIGN_KINDS = st.sampled_from(["int8", "int32", "int64", "float32", "float64"])


def _draw_values(rng, kind, shape):
    lo, hi = {"bool": (0, 1), "uint8": (0, 3)}.get(kind, (-2, 2))
    return rng.integers(lo, hi + 1, shape)


def _box(values, kind, container):
    """``values`` as an array of dtype ``kind`` in ``container`` (a JAX array, a NumPy array, a list)."""
    a = np.asarray(values).astype(kind)
    if container == "jax":
        return jnp.asarray(a)
    return a if container == "numpy" else a.tolist()


def _float(values):
    return jnp.asarray(np.asarray(values), jnp.float32)


def _assert_same(got, want):
    """Exactly equal, dtypes included."""
    chex.assert_trees_all_equal_dtypes(got, want)
    chex.assert_trees_all_equal(got, want)


def _run_online(learner, X, y):
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    return state, trace, core.predict_batch(learner, state, X)


@_settings(10)
@given(seed=SEEDS, x_kind=INT_KINDS, x_box=CONTAINERS, y_kind=SIGN_KINDS, y_box=CONTAINERS)
def test_perceptron_inputs(seed, x_kind, x_box, y_kind, y_box):
    rng = np.random.default_rng(seed)
    V = _draw_values(rng, x_kind, (N, 5))
    labels = np.where(V @ rng.normal(size=5) > 0, 1, -1)
    learner = online.perceptron(1.0)
    got = _run_online(learner, _box(V, x_kind, x_box), _box(labels, y_kind, y_box))
    _assert_same(got, _run_online(learner, _float(V), _float(labels)))


@_settings(10)
@given(seed=SEEDS, x_kind=BINARY_KINDS, x_box=CONTAINERS, y_kind=BINARY_KINDS, y_box=CONTAINERS)
def test_winnow_inputs(seed, x_kind, x_box, y_kind, y_box):
    rng = np.random.default_rng(seed)
    V = rng.integers(0, 2, (N, 12))
    labels = (V[:, :2].sum(axis=1) > 0).astype(np.int64)
    learner = online.winnow(2.0)
    got = _run_online(learner, _box(V, x_kind, x_box), _box(labels, y_kind, y_box))
    _assert_same(got, _run_online(learner, _float(V), _float(labels)))


def _fit_predict(learner, X, y, Xq):
    params = learner.fit(_key(0), X, y)
    return params, learner.predict(params, Xq)


@_settings(10)
@given(seed=SEEDS, x_kind=INT_KINDS, x_box=CONTAINERS, y_kind=SIGN_KINDS, y_box=CONTAINERS)
def test_soft_svm_inputs(seed, x_kind, x_box, y_kind, y_box):
    rng = np.random.default_rng(seed)
    V = _draw_values(rng, x_kind, (N, 4))
    labels = np.where(V @ rng.normal(size=4) > 0, 1, -1)
    learner = linear.soft_svm(0.1, 64)
    X = _box(V, x_kind, x_box)
    got = _fit_predict(learner, X, _box(labels, y_kind, y_box), X)
    scores = learner.decision_function(got[0], X)
    want = _fit_predict(learner, _float(V), _float(labels), _float(V))
    _assert_same((*got, scores), (*want, learner.decision_function(want[0], _float(V))))


@_settings(10)
@given(seed=SEEDS, x_kind=INT_KINDS, x_box=CONTAINERS, y_kind=SIGN_KINDS, y_box=CONTAINERS)
def test_ridge_inputs(seed, x_kind, x_box, y_kind, y_box):
    rng = np.random.default_rng(seed)
    V = _draw_values(rng, x_kind, (N, 4))
    targets = rng.integers(-1, 2, N)  # {-1, 0, 1}: every sign kind holds them
    learner = linear.ridge(1.0)
    X = _box(V, x_kind, x_box)
    got = _fit_predict(learner, X, _box(targets, y_kind, y_box), X)
    _assert_same(got, _fit_predict(learner, _float(V), _float(targets), _float(V)))


KERNELS = {
    "linear": kernels.linear(),
    "polynomial": kernels.polynomial(2),
    "gaussian": kernels.gaussian(1.0),
}


@_settings(12)
@given(
    seed=SEEDS,
    kernel=st.sampled_from(sorted(KERNELS)),
    x_kind=INT_KINDS,
    x_box=CONTAINERS,
    z_kind=INT_KINDS,
    z_box=CONTAINERS,
)
def test_gram_inputs(seed, kernel, x_kind, x_box, z_kind, z_box):
    rng = np.random.default_rng(seed)
    V, W = _draw_values(rng, x_kind, (6, 3)), _draw_values(rng, z_kind, (5, 3))
    X, Z = _box(V, x_kind, x_box), _box(W, z_kind, z_box)
    k = KERNELS[kernel]
    got = (kernels.gram(k, X), kernels.gram(k, X, Z))
    _assert_same(got, (kernels.gram(k, _float(V)), kernels.gram(k, _float(V), _float(W))))


@_settings(10)
@given(seed=SEEDS, x_kind=INT_KINDS, x_box=CONTAINERS, y_kind=CLASS_KINDS, y_box=CONTAINERS)
def test_knn_inputs(seed, x_kind, x_box, y_kind, y_box):
    rng = np.random.default_rng(seed)
    V, Q = _draw_values(rng, x_kind, (N, 3)), _draw_values(rng, x_kind, (8, 3))
    labels = rng.integers(0, 3, N)
    learner = neighbors.knn(3, num_classes=3)
    got = _fit_predict(
        learner, _box(V, x_kind, x_box), _box(labels, y_kind, y_box), _box(Q, x_kind, x_box)
    )
    _assert_same(got, _fit_predict(learner, _float(V), jnp.asarray(labels, jnp.int32), _float(Q)))


@_settings(10)
@given(seed=SEEDS, x_kind=INT_KINDS, x_box=CONTAINERS, y_kind=CLASS_KINDS, y_box=CONTAINERS)
def test_decision_tree_inputs(seed, x_kind, x_box, y_kind, y_box):
    rng = np.random.default_rng(seed)
    V = _draw_values(rng, x_kind, (N, 3))
    labels = (V[:, 0] + V[:, 1] * V[:, 2] > 0).astype(np.int64)
    learner = trees.decision_tree(2)
    X = _box(V, x_kind, x_box)
    got = _fit_predict(learner, X, _box(labels, y_kind, y_box), X)
    _assert_same(got, _fit_predict(learner, _float(V), jnp.asarray(labels, jnp.int32), _float(V)))


@pytest.mark.parametrize(
    "learner", [neighbors.knn(3), trees.decision_tree(2)], ids=["knn", "decision_tree"]
)
@_settings(3)
@given(seed=SEEDS, y_box=CONTAINERS)
def test_bool_class_labels(learner, seed, y_box):
    """Two classes given as bool labels are the int labels 0/1 (the policy accepts bool dtypes)."""
    rng = np.random.default_rng(seed)
    X = _float(rng.normal(size=(N, 3)))
    labels = rng.integers(0, 2, N)
    got = _fit_predict(learner, X, _box(labels, "bool", y_box), X)
    _assert_same(got, _fit_predict(learner, X, jnp.asarray(labels, jnp.int32), X))


@_settings(10)
@given(seed=SEEDS, t_kind=BINARY_KINDS, t_box=CONTAINERS, p_kind=BINARY_KINDS, p_box=CONTAINERS)
def test_accuracy_inputs(seed, t_kind, t_box, p_kind, p_box):
    rng = np.random.default_rng(seed)
    truth, pred = rng.integers(0, 2, 20), rng.integers(0, 2, 20)
    got = metrics.accuracy(_box(truth, t_kind, t_box), _box(pred, p_kind, p_box))
    _assert_same(got, metrics.accuracy(_float(truth), _float(pred)))


# --- 5. float32 vs float64 -------------------------------------------------------------------------------


def _in_x64(function, *arrays):
    """``function`` on the float64 copies of float32 ``arrays`` (the same values), with x64 enabled;
    the result comes back as NumPy arrays."""
    with jax.enable_x64(True):
        args = [None if a is None else jnp.asarray(np.asarray(a), jnp.float64) for a in arrays]
        return jax.tree_util.tree_map(np.asarray, function(*args))


@_settings(4)
@given(seed=SEEDS, margin=_floats(0.05, 0.3), eta=_floats(0.1, 5.0))
def test_perceptron_float32_float64(seed, margin, eta):
    X, y, _ = datasets.separable(_key(seed), 64, 5, margin)

    def run(X, y):
        learner = online.perceptron(eta)
        state, trace = core.run(learner, learner.init(X[0]), X, y)
        return state.w, trace.mistake

    w32, mistakes32 = run(X, y)
    w64, mistakes64 = _in_x64(run, X, y)
    assert w64.dtype == np.float64
    np.testing.assert_array_equal(mistakes32, mistakes64)
    np.testing.assert_allclose(w32, w64, rtol=1e-5, atol=1e-5)


@_settings(5)
@given(seed=SEEDS, lam=_floats(0.01, 10.0))
def test_ridge_float32_float64(seed, lam):
    X, y = _noisy(_key(seed))

    def fit(X, y):
        return linear.ridge(lam).fit(None, X, y).w

    w64 = _in_x64(fit, X, y)
    assert w64.dtype == np.float64
    np.testing.assert_allclose(fit(X, y), w64, rtol=1e-4, atol=1e-5)


@_settings(5)
@given(seed=SEEDS, eta=_floats(0.01, 5.0))
def test_hedge_float32_float64(seed, eta):
    _, L = _losses(_key(seed))

    def run(L):
        learner = experts.hedge(eta)
        state, trace = core.run(learner, learner.init(L[0]), None, L)
        return trace.prediction, jnp.exp(state.log_v)

    got64 = _in_x64(run, L)
    assert got64[0].dtype == np.float64
    chex.assert_trees_all_close(run(L), got64, rtol=0, atol=1e-5)


@_settings(5)
@given(seed=SEEDS, lam=_floats(0.05, 1.0))
def test_soft_svm_float32_float64(seed, lam):
    X, y = _noisy(_key(seed))

    def fit(X, y):
        return linear.soft_svm(lam, 64).fit(_key(seed), X, y)

    got64 = _in_x64(fit, X, y)
    assert got64.w.dtype == np.float64
    chex.assert_trees_all_close(fit(X, y), got64, rtol=1e-4, atol=1e-5)


# --- 6. normalised weights over 10^6 rounds --------------------------------------------------------------

T = 10**6


def _assert_normalised(totals, what):
    totals = np.asarray(totals)
    assert totals.shape == (T,) and totals.dtype == np.float32, (totals.shape, totals.dtype)
    assert np.isfinite(totals).all(), f"{what}: a non-finite weight"
    worst = float(np.max(np.abs(totals - 1)))
    assert worst <= 1e-5, f"{what}: the weights sum to 1 +- {worst:.2e} on some round"


@_settings(2)
@given(
    seed=SEEDS,
    eta=_floats(0.01, 10.0),
    n=st.sampled_from([2, 4]),
    block_size=st.sampled_from([0, 256]),
)
def test_hedge_allocation_stays_normalised(seed, eta, n, block_size):
    L = jax.random.uniform(_key(seed), (T, n))
    learner = experts.hedge(eta)
    state, totals = core.run(
        learner,
        learner.init(L[0]),
        None,
        L,
        trace_fn=lambda i: jnp.sum(i.prediction),
        block_size=block_size,
    )
    _assert_normalised(totals, "hedge")
    assert abs(float(jnp.sum(jnp.exp(state.log_v))) - 1) <= 1e-5


def _weight_totals(learner, state, xs, ys):
    """``sum(exp(log_w))`` after every round (the weights live in the state, not in ``Info``)."""

    @jax.jit
    def scan(state, xs, ys):
        def step(s, xy):
            s, _ = learner.update(s, *xy)
            return s, jnp.sum(jnp.exp(s.log_w))

        return jax.lax.scan(step, state, (xs, ys))[1]

    return scan(state, xs, ys)


@_settings(2)
@given(seed=SEEDS, beta=_floats(0.0, 0.95), eta=_floats(0.01, 10.0))
def test_weighted_majority_weights_stay_normalised(seed, beta, eta):
    X, y = datasets.expert_advice(_key(seed), T, 4)
    wm = experts.weighted_majority(beta)
    _assert_normalised(_weight_totals(wm, wm.init(X[0]), X, y), "weighted_majority")
    rwm = experts.randomized_weighted_majority(eta)
    _assert_normalised(
        _weight_totals(rwm, rwm.init(X[0], _key(seed + 1)), X, y), "randomized_weighted_majority"
    )
