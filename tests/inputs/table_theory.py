"""Bad input to the bounds of ``jaxlearn.theory``: every constrained argument out of its range, and the
functions of samples on malformed arrays; valid calls are finite, lists and int arrays equal float
arrays, and the bounds still evaluate (unchecked) under ``jax.jit``."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import theory as T
from tests.inputs.rows import Bad, Holds, Same, assert_finite

_X = np.array([[3.0, 4.0], [0.0, -1.0], [1.0, 1.0]], np.float32)
_Y = np.array([1.0, -1.0, 1.0], np.float32)
_W = np.array([0.0, 2.0], np.float32)
_G = np.array([[1.0, 0.5, 0.0], [2.0, 0.0, 1.0]], np.float32)  # ||v_t||^2 of two runs

_POS = (0.0, -1.0, np.nan, np.inf)
_NONNEG = (-0.5, np.nan, np.inf)
_COUNT = (0, -2, 2.5, np.nan, np.inf)
_OPEN = (0.0, 1.0, 2.0, np.nan)

# (function, valid keyword arguments, {argument: values outside its range})
_CASES = [
    (T.perceptron_mistake_bound, dict(radius=2.0, margin=0.1), dict(radius=_POS, margin=_POS)),
    (
        T.perceptron_nonseparable_bound,
        dict(margin=0.5, total_deviation=3.0),
        dict(margin=_POS, total_deviation=_NONNEG),
    ),
    (T.margin_perceptron_bound, dict(margin=0.1), dict(margin=(0.0, -0.1, 1.5, np.nan))),
    (T.ogd_regret_bound, dict(U=2.0, R=3.0, T=100), dict(U=_POS, R=_POS, T=_COUNT)),
    (
        T.ogd_pathwise_bound,
        dict(U=2.0, eta=0.5, grad_sq_norms=_G[0]),
        dict(
            U=_NONNEG, eta=_POS, grad_sq_norms=(np.array([1.0, -1.0]), np.array([np.nan, 1.0]), 1.0)
        ),
    ),
    (
        T.winnow_mistake_bound,
        dict(k=3, n=100, eta=2.0, threshold=50.0),
        dict(k=_COUNT, n=_COUNT, eta=(1.0, 0.5, np.nan, np.inf), threshold=_POS),
    ),
    (T.consistent_bound, dict(n=64), dict(n=_COUNT)),
    (T.halving_bound, dict(n=64), dict(n=_COUNT)),
    (
        T.weighted_majority_bound,
        dict(beta=1 / np.e, best_mistakes=10, n=8),
        dict(
            beta=(1.0, -0.1, 2.0, np.nan),
            best_mistakes=(-1, 0.5, np.nan, np.inf),
            n=(0.5, 0, np.nan, np.inf),
        ),
    ),
    (T.exponential_weights_bound, dict(eta=0.1, T=100, n=5), dict(eta=_POS, T=_COUNT, n=_COUNT)),
    (T.rwm_regret_bound, dict(T=200, n=8), dict(T=_COUNT, n=_COUNT)),
    (T.hedge_regret_bound, dict(T=100, n=5), dict(T=_COUNT, n=_COUNT)),
    (T.weighted_average_regret_bound, dict(n=4, loss="square"), dict(n=_COUNT, loss=("hinge",))),
    (T.conjunction_bound, dict(n=10), dict(n=_COUNT)),
    (T.decision_list_bound, dict(n=10, L=3), dict(n=_COUNT, L=_COUNT)),
    (T.agnostic_regret_bound, dict(T=100, ldim=2), dict(T=_COUNT, ldim=(-1, 1.5, np.nan, np.inf))),
    (
        T.sgd_convex_bound,
        dict(U=2.0, rho=3.0, T=1000, eta=0.1),
        dict(U=_POS, rho=_POS, T=_COUNT, eta=_POS),
    ),
    (
        T.sgd_strongly_convex_bound,
        dict(rho=2.0, lam=0.1, T=1000),
        dict(rho=_POS, lam=_POS, T=_COUNT),
    ),
    (T.stability_bound, dict(rho=1.0, lam=0.1, m=100), dict(rho=_POS, lam=_POS, m=_COUNT)),
    (T.rlm_distance_bound, dict(rho=1.0, lam=0.1, m=100), dict(rho=_POS, lam=_POS, m=_COUNT)),
    (
        T.stable_erm_bound,
        dict(stability=0.1, erm_error=0.2),
        dict(stability=_NONNEG, erm_error=_NONNEG),
    ),
    (
        T.rlm_oracle_bound,
        dict(rho=1.0, lam=0.2, m=50, w_norm=1.0),
        dict(rho=_POS, lam=_POS, m=_COUNT, w_norm=_NONNEG),
    ),
    (T.rlm_tuned_lam, dict(rho=1.0, w_norm=1.0, m=50), dict(rho=_POS, w_norm=_POS, m=_COUNT)),
    (T.soft_svm_bound, dict(rho=1.0, B=2.0, m=100), dict(rho=_POS, B=_POS, m=_COUNT)),
    (
        T.hard_svm_bound,
        dict(rho=1.0, gamma=0.1, m=1000, delta=0.05),
        dict(rho=_POS, gamma=_POS, m=_COUNT, delta=_OPEN),
    ),
    (T.multiclass_perceptron_bound, dict(R=2.0, w_norm=3.0), dict(R=_POS, w_norm=_POS)),
    (T.multiclass_svm_bound, dict(rho=1.0, B=2.0, m=100), dict(rho=_POS, B=_POS, m=_COUNT)),
    (
        T.multiclass_sgd_steps,
        dict(rho=1.0, B=2.0, epsilon=0.1),
        dict(rho=_POS, B=_POS, epsilon=_POS),
    ),
    (
        T.tree_mdl_bound,
        dict(n_nodes=5, d=3, m=100, delta=0.1, train_error=0.1),
        dict(n_nodes=_COUNT, d=_COUNT, m=_COUNT, delta=_OPEN, train_error=(-0.1, 1.5, np.nan)),
    ),
    (
        T.one_nn_bound,
        dict(bayes_error=0.1, c=2.0, d=4, m=3125),
        dict(bayes_error=(-0.1, 0.6, np.nan), c=_NONNEG, d=_COUNT, m=_COUNT),
    ),
    (
        T.knn_bound,
        dict(bayes_error=0.1, c=2.0, d=4, m=3125, k=10),
        dict(
            bayes_error=(-0.1, 0.6, np.nan), c=_NONNEG, d=_COUNT, m=_COUNT, k=(5, 0, 10.5, np.nan)
        ),
    ),
]


def _call(f, *args, **kwargs):
    return lambda: f(*args, **kwargs)


def _finite(value):
    assert_finite(value)
    assert np.isfinite(np.asarray(value)).all(), value


def _close(want):
    return lambda got: np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


ROWS = [
    Bad(f, f"{name}={bad!r}", _call(f, **{**valid, name: bad}), name)
    for f, valid, bads in _CASES
    for name, values in bads.items()
    for bad in values
]
ROWS += [Holds(f, "valid call is finite", _call(f, **valid), _finite) for f, valid, _ in _CASES]
ROWS += [
    # the examples of the issue, and values that are not numbers
    Bad(
        T.perceptron_mistake_bound,
        "negative margin (issue 13)",
        _call(T.perceptron_mistake_bound, 1, -0.1),
        "margin",
    ),
    Bad(
        T.hard_svm_bound,
        "delta = 2 (issue 13)",
        _call(T.hard_svm_bound, 1.0, 0.1, 100, delta=2),
        "delta",
    ),
    Bad(T.halving_bound, "n None", _call(T.halving_bound, None), "n", TypeError),
    Bad(T.halving_bound, "n a string", _call(T.halving_bound, "64"), "n", TypeError),
    Bad(T.halving_bound, "n a bool", _call(T.halving_bound, True), "n", TypeError),
    Bad(
        T.ogd_regret_bound,
        "a schedule for U",
        _call(T.ogd_regret_bound, lambda t: 1.0, 1.0, 10),
        "U",
        TypeError,
    ),
    Bad(
        T.weighted_average_regret_bound,
        "loss not a str",
        _call(T.weighted_average_regret_bound, 4, 1),
        "loss",
        TypeError,
    ),
    Bad(
        T.ogd_regret_bound,
        "shapes do not broadcast",
        _call(T.ogd_regret_bound, [1.0, 2.0], [1.0, 2.0, 3.0], 10),
        ("U", "R", "T"),
    ),
    Bad(
        T.exponential_weights_bound,
        "a negative entry in an eta grid",
        _call(T.exponential_weights_bound, np.array([0.1, -0.1]), 10, 5),
        "eta",
    ),
    # conditions between arguments
    Bad(T.winnow_mistake_bound, "k > n", _call(T.winnow_mistake_bound, 5, 3), ("k", "n")),
    Bad(
        T.winnow_mistake_bound,
        "threshold < 1 / eta",
        _call(T.winnow_mistake_bound, 1, 4, 2.0, 0.25),
        ("threshold", "eta"),
    ),
    Bad(
        T.rwm_regret_bound,
        "T <= 2 ln n (Theorem 21.11)",
        _call(T.rwm_regret_bound, 4, 100),
        ("T", "n"),
    ),
    Bad(
        T.ogd_pathwise_bound,
        "grad_sq_norms without a time axis",
        _call(T.ogd_pathwise_bound, 1.0, 0.1, 2.0),
        "grad_sq_norms",
    ),
    # the values of the sources
    Holds(
        T.winnow_mistake_bound,
        "classic 2 + 3k(1 + log2 n)",
        _call(T.winnow_mistake_bound, 3, 16),
        _close(2 + 3 * 3 * 5),
    ),
    Holds(
        T.weighted_majority_bound,
        "2.63 (M_i + ln n) at beta = 1/e, n = e (a real n)",
        _call(T.weighted_majority_bound, 1 / np.e, 0, np.e),
        _close(1 / np.log(2 * np.e / (np.e + 1))),
    ),
    Holds(
        T.weighted_majority_bound,
        "beta = 0 is Halving: log2 n for a perfect expert",
        _call(T.weighted_majority_bound, 0.0, np.array([0, 3]), 16),
        _close([4.0, np.inf]),
    ),
    Holds(
        T.knn_bound,
        "k = 10, the smallest k of Theorem 19.5",
        _call(T.knn_bound, 0.0, 1.0, 1, 100, 10),
        _close(16 / 10),
    ),
    Same(
        T.tree_mdl_bound,
        "integral float counts",
        _call(T.tree_mdl_bound, 5.0, 3.0, np.array([100.0]), 0.1),
        lambda: T.tree_mdl_bound(5, 3, np.array([100]), 0.1),
    ),
    Same(
        T.hard_svm_bound,
        "int arguments equal floats",
        _call(T.hard_svm_bound, 2, 1, 100, 0.05),
        _call(T.hard_svm_bound, 2.0, 1.0, 100.0, 0.05),
    ),
    Same(
        T.ogd_pathwise_bound,
        "one eta per run of a (runs, T) array",
        _call(T.ogd_pathwise_bound, 1.0, np.array([0.5, 0.25], np.float32), _G),
        lambda: jnp.stack(
            [T.ogd_pathwise_bound(1.0, 0.5, _G[0]), T.ogd_pathwise_bound(1.0, 0.25, _G[1])]
        ),
    ),
    Same(
        T.ogd_pathwise_bound,
        "a list",
        _call(T.ogd_pathwise_bound, 2.0, 0.5, _G[0].tolist()),
        _call(T.ogd_pathwise_bound, 2.0, 0.5, _G[0]),
    ),
    Same(
        T.ogd_pathwise_bound,
        "int squared norms",
        _call(T.ogd_pathwise_bound, 2, 1, _G[1].astype(np.int32)),
        _call(T.ogd_pathwise_bound, 2.0, 1.0, _G[1]),
    ),
    # under jit the values are tracers: nothing is checked, the bound still evaluates
    Holds(
        T.hard_svm_bound,
        "under jit",
        lambda: jax.jit(T.hard_svm_bound)(1.0, 0.1, 1000, 0.05),
        _close(T.hard_svm_bound(1.0, 0.1, 1000, 0.05)),
    ),
    Holds(
        T.tree_mdl_bound,
        "under jit",
        lambda: jax.jit(T.tree_mdl_bound)(5, 3, 100, 0.1, 0.1),
        _close(T.tree_mdl_bound(5, 3, 100, 0.1, 0.1)),
    ),
    Holds(
        T.winnow_mistake_bound,
        "under vmap",
        lambda: jax.vmap(T.winnow_mistake_bound, (0, None))(jnp.array([1, 3]), 16),
        _close([2 + 3 * 5, 2 + 9 * 5]),
    ),
    Holds(
        T.ogd_pathwise_bound,
        "under vmap over runs",
        lambda: jax.vmap(T.ogd_pathwise_bound, (None, 0, 0))(1.0, jnp.array([0.5, 0.25]), _G),
        _close([1.0 + 0.375, 2.0 + 0.375]),
    ),
    # functions of a sample
    Bad(T.radius, "1-d X", _call(T.radius, _X[0]), "X"),
    Bad(T.radius, "empty X", _call(T.radius, _X[:0]), "X"),
    Bad(T.radius, "NaN in X", _call(T.radius, np.where(_X > 3, np.nan, _X)), "X"),
    Same(T.radius, "a list", _call(T.radius, _X.tolist()), _call(T.radius, _X)),
    Same(T.radius, "int X", _call(T.radius, _X.astype(np.int32)), _call(T.radius, _X)),
    Holds(T.radius, "valid X", _call(T.radius, _X), _close(5.0)),
    Holds(T.radius, "under jit", lambda: jax.jit(T.radius)(_X), _close(5.0)),
    Bad(
        T.halfspace_margin,
        "w of the wrong width",
        _call(T.halfspace_margin, np.ones(3), _X, _Y),
        "w",
    ),
    Bad(T.halfspace_margin, "w zero", _call(T.halfspace_margin, np.zeros(2), _X, _Y), "w"),
    Bad(
        T.halfspace_margin,
        "NaN in w",
        _call(T.halfspace_margin, np.array([np.nan, 1.0]), _X, _Y),
        "w",
    ),
    Bad(
        T.halfspace_margin, "labels in {0, 1}", _call(T.halfspace_margin, _W, _X, (_Y + 1) / 2), "y"
    ),
    Bad(
        T.halfspace_margin, "lengths differ", _call(T.halfspace_margin, _W, _X, _Y[:2]), ("X", "y")
    ),
    Bad(
        T.halfspace_margin,
        "NaN in X",
        _call(T.halfspace_margin, _W, np.where(_X > 3, np.nan, _X), _Y),
        "X",
    ),
    Bad(
        T.halfspace_margin,
        "zero row, normalize=True",
        _call(T.halfspace_margin, _W, _X * [[0.0], [1.0], [1.0]], _Y, normalize=True),
        "X",
    ),
    Bad(
        T.halfspace_margin,
        "normalize not a bool",
        _call(T.halfspace_margin, _W, _X, _Y, normalize="yes"),
        "normalize",
        TypeError,
    ),
    Same(
        T.halfspace_margin,
        "lists",
        _call(T.halfspace_margin, _W.tolist(), _X.tolist(), _Y.tolist()),
        _call(T.halfspace_margin, _W, _X, _Y),
    ),
    Same(
        T.halfspace_margin,
        "int w, X, y",
        _call(T.halfspace_margin, *(a.astype(np.int32) for a in (_W, _X, _Y)), normalize=True),
        _call(T.halfspace_margin, _W, _X, _Y, normalize=True),
    ),
    Holds(
        T.halfspace_margin,
        "valid sample",
        _call(T.halfspace_margin, _W, _X[:2], _Y[:2]),
        _close(1.0),
    ),
    Bad(T.total_deviation, "margin 0", _call(T.total_deviation, _W, _X, _Y, 0.0), "margin"),
    Bad(T.total_deviation, "negative margin", _call(T.total_deviation, _W, _X, _Y, -0.5), "margin"),
    Bad(T.total_deviation, "NaN margin", _call(T.total_deviation, _W, _X, _Y, np.nan), "margin"),
    Bad(
        T.total_deviation,
        "margin an array",
        _call(T.total_deviation, _W, _X, _Y, np.array([0.1, 0.2])),
        "margin",
    ),
    Bad(
        T.total_deviation,
        "zero row",
        _call(T.total_deviation, _W, _X * [[0], [1], [1]], _Y, 0.5),
        "X",
    ),
    Bad(T.total_deviation, "w zero", _call(T.total_deviation, np.zeros(2), _X, _Y, 0.5), "w"),
    Bad(
        T.total_deviation,
        "labels in {0, 1}",
        _call(T.total_deviation, _W, _X, (_Y + 1) / 2, 0.5),
        "y",
    ),
    Same(
        T.total_deviation,
        "lists",
        _call(T.total_deviation, _W.tolist(), _X.tolist(), _Y.tolist(), 0.9),
        _call(T.total_deviation, _W, _X, _Y, 0.9),
    ),
    Same(
        T.total_deviation,
        "int inputs",
        _call(T.total_deviation, _W.astype(np.int32), _X.astype(np.int32), _Y.astype(np.int32), 1),
        _call(T.total_deviation, _W, _X, _Y, 1.0),
    ),
    Holds(
        T.total_deviation,
        "TD at 0.9 of margins 0.8, 1.0",
        _call(T.total_deviation, _W, _X[:2], _Y[:2], 0.9),
        _close(0.1),
    ),
    Bad(T.margin, "1-d X", _call(T.margin, _X[0], _Y), "X"),
    Bad(T.margin, "labels in {0, 1}", _call(T.margin, _X, (_Y + 1) / 2), "y"),
    Bad(T.margin, "NaN in X", _call(T.margin, np.where(_X > 3, np.nan, _X), _Y), "X"),
    Same(
        T.margin,
        "lists",
        _call(T.margin, _X[:2].tolist(), _Y[:2].tolist()),
        _call(T.margin, _X[:2], _Y[:2]),
        rtol=1e-5,
    ),
    Holds(T.margin, "gamma(S) of two points", _call(T.margin, _X[:2], _Y[:2]), _finite),
]

# --- VC dimension, epsilon-nets and PAC learning of intervals (SPEC 17.3, 19, 21; helper "pac") ---
_H = np.array([[0, 0, 1], [0, 1, 1], [1, 1, 1]], np.int32)  # thresholds on 3 points
_P = np.array([0.1, 0.4, 0.5, 0.7], np.float32)
_L = np.array([0, 1, 1, 0], np.int32)
_VC_CASES = [
    (
        T.epsilon_net_sample_size,
        dict(d=2, epsilon=0.1, delta=0.1),
        dict(d=(-1, 1.5, np.nan, np.inf), epsilon=_OPEN, delta=(0.0, 0.25, 0.5, np.nan)),
    ),
    (T.sauer_bound, dict(d=2, m=10), dict(d=(-1, 1.5, np.nan, np.inf), m=_COUNT)),
    (T.sign_network_vc_bound, dict(num_edges=9), dict(num_edges=_COUNT)),
]
ROWS += [
    Bad(f, f"{name}={bad!r}", _call(f, **{**valid, name: bad}), name)
    for f, valid, bads in _VC_CASES
    for name, values in bads.items()
    for bad in values
]
ROWS += [Holds(f, "valid call is finite", _call(f, **valid), _finite) for f, valid, _ in _VC_CASES]
ROWS += [
    Bad(
        T.sauer_bound,
        "closed form with m < d",
        _call(T.sauer_bound, 5, 3, closed_form=True),
        ("m", "d"),
    ),
    Bad(T.sauer_bound, "closed form with d = 0", _call(T.sauer_bound, 0, 3, closed_form=True), "d"),
    Bad(
        T.sauer_bound,
        "closed_form not a bool",
        _call(T.sauer_bound, 2, 3, closed_form="yes"),
        "closed_form",
        TypeError,
    ),
    Bad(
        T.sign_network_vc_bound,
        "closed_form not a bool",
        _call(T.sign_network_vc_bound, 9, closed_form=1),
        "closed_form",
        TypeError,
    ),
    Holds(T.sauer_bound, "d = 0: one labeling", _call(T.sauer_bound, 0, 7), _close(1.0)),
    Holds(T.sauer_bound, "d >= m: 2^m", _call(T.sauer_bound, 9, [3, 5]), _close([8.0, 32.0])),
    Same(
        T.sauer_bound,
        "integral float counts",
        _call(T.sauer_bound, 2.0, 10.0),
        _call(T.sauer_bound, 2, 10),
    ),
    Holds(
        T.sauer_bound,
        "under vmap",
        lambda: jax.vmap(T.sauer_bound)(jnp.array([1, 2]), jnp.array([4, 4])),
        _close([5.0, 11.0]),
    ),
    Holds(
        T.sign_network_vc_bound,
        "under jit",
        lambda: jax.jit(T.sign_network_vc_bound)(10),
        _close(77.0),
    ),
    Holds(
        T.epsilon_net_sample_size,
        "d = 0",
        _call(T.epsilon_net_sample_size, 0, 0.5, 0.1),
        _close(np.ceil(16 * np.log(20))),
    ),
    Bad(T.growth_function, "1-d labelings", _call(T.growth_function, _H[0]), "labelings"),
    Bad(T.growth_function, "no hypotheses", _call(T.growth_function, _H[:0]), "labelings"),
    Bad(T.growth_function, "no points", _call(T.growth_function, _H[:, :0]), "labelings"),
    Bad(
        T.growth_function,
        "too many subsets",
        _call(T.growth_function, np.zeros((2, 24), np.int32)),
        "labelings",
    ),
    Bad(T.growth_function, "negative entries", _call(T.growth_function, -_H), "labelings"),
    Bad(T.growth_function, "fractions", _call(T.growth_function, _H / 2), "labelings"),
    Bad(
        T.growth_function,
        "NaN",
        _call(T.growth_function, np.where(_H > 0, np.nan, 0.0)),
        "labelings",
    ),
    Bad(
        T.growth_function,
        "codes over int32",
        _call(T.growth_function, np.full((2, 10), 10)),
        "labelings",
    ),
    Bad(
        T.growth_function,
        "strings",
        _call(T.growth_function, np.array([["a", "b"]])),
        "labelings",
        TypeError,
    ),
    Same(
        T.growth_function,
        "a list",
        _call(T.growth_function, _H.tolist()),
        _call(T.growth_function, _H),
    ),
    Same(
        T.growth_function,
        "bools and floats",
        _call(T.growth_function, _H.astype(bool)),
        _call(T.growth_function, _H.astype(np.float32)),
    ),
    Holds(
        T.growth_function, "thresholds: m + 1", _call(T.growth_function, _H), _close([1, 2, 3, 3])
    ),
    Holds(
        T.growth_function,
        "under jit",
        lambda: jax.jit(T.growth_function)(jnp.asarray(_H)),
        _close([1, 2, 3, 3]),
    ),
    Bad(T.interval_erm, "2-d x", _call(T.interval_erm, _P[None], _L[None]), "x"),
    Bad(T.interval_erm, "empty x", _call(T.interval_erm, _P[:0], _L[:0]), "x"),
    Bad(T.interval_erm, "NaN in x", _call(T.interval_erm, np.where(_L > 0, np.nan, _P), _L), "x"),
    Bad(T.interval_erm, "lengths differ", _call(T.interval_erm, _P, _L[:3]), ("x", "y")),
    Bad(T.interval_erm, "labels in {-1, +1}", _call(T.interval_erm, _P, 2 * _L - 1), "y"),
    Bad(
        T.interval_erm,
        "string labels",
        _call(T.interval_erm, _P, np.array(list("abcd"))),
        "y",
        TypeError,
    ),
    Same(
        T.interval_erm,
        "lists",
        _call(T.interval_erm, _P.tolist(), _L.tolist()),
        _call(T.interval_erm, _P, _L),
    ),
    Same(
        T.interval_erm,
        "bool labels and int points",
        _call(T.interval_erm, (10 * _P).astype(np.int32), _L > 0),
        _call(T.interval_erm, np.float32([1, 4, 5, 7]), _L),
    ),
    Holds(
        T.interval_erm,
        "the hull of the positives",
        _call(T.interval_erm, _P, _L),
        _close([0.4, 0.5]),
    ),
    Holds(
        T.interval_erm,
        "no positives: the empty interval",
        _call(T.interval_erm, _P, 0 * _L),
        _close([np.inf, -np.inf]),
    ),
    Holds(
        T.interval_erm,
        "under vmap",
        lambda: jax.vmap(T.interval_erm)(jnp.stack([_P, _P]), jnp.stack([_L, _L])),
        _close([[0.4, 0.5], [0.4, 0.5]]),
    ),
    Bad(
        T.is_interval_epsilon_net,
        "x outside [0, 1]",
        _call(T.is_interval_epsilon_net, _P + 1, 0.5),
        "x",
    ),
    Bad(T.is_interval_epsilon_net, "2-d x", _call(T.is_interval_epsilon_net, _P[None], 0.5), "x"),
    Bad(T.is_interval_epsilon_net, "empty x", _call(T.is_interval_epsilon_net, _P[:0], 0.5), "x"),
    Bad(
        T.is_interval_epsilon_net,
        "NaN in x",
        _call(T.is_interval_epsilon_net, _P * np.nan, 0.5),
        "x",
    ),
    Bad(
        T.is_interval_epsilon_net, "epsilon 0", _call(T.is_interval_epsilon_net, _P, 0.0), "epsilon"
    ),
    Bad(
        T.is_interval_epsilon_net,
        "NaN epsilon",
        _call(T.is_interval_epsilon_net, _P, np.nan),
        "epsilon",
    ),
    Same(
        T.is_interval_epsilon_net,
        "a list",
        _call(T.is_interval_epsilon_net, _P.tolist(), [0.2, 0.4]),
        _call(T.is_interval_epsilon_net, _P, np.float32([0.2, 0.4])),
    ),
    Holds(
        T.is_interval_epsilon_net,
        "largest gap 0.3 (0.7 to 1)",
        _call(T.is_interval_epsilon_net, _P, [0.29, 0.31]),
        lambda got: np.testing.assert_array_equal(got, [False, True]),
    ),
    Holds(
        T.is_interval_epsilon_net,
        "under jit",
        lambda: jax.jit(T.is_interval_epsilon_net)(_P, 0.31),
        lambda got: np.testing.assert_array_equal(got, True),
    ),
]

# nearest neighbour in high dimension (UML Theorem 19.4, section 19.2.2): sizes, the hard grid distribution
_NNK = jax.random.PRNGKey(0)
_NNG = T.nn_lower_bound_grid(_NNK, 2, 2)
ROWS += [
    *(
        Bad(
            T.nn_lower_bound_sample_size,
            f"c={bad!r}",
            _call(T.nn_lower_bound_sample_size, bad, 2),
            "c",
        )
        for bad in (0.5, 0.0, np.nan, np.inf)
    ),
    *(
        Bad(
            T.nn_lower_bound_sample_size,
            f"d={bad!r}",
            _call(T.nn_lower_bound_sample_size, 3.0, bad),
            "d",
        )
        for bad in _COUNT
    ),
    Holds(
        T.nn_lower_bound_sample_size,
        "(c + 1)^d / 2, c = 1 allowed (the corners)",
        _call(T.nn_lower_bound_sample_size, np.array([1.0, 3.0]), 2),
        _close([2.0, 8.0]),
    ),
    *(
        Bad(
            T.curse_of_dimensionality_sample_size,
            f"{name}={bad!r}",
            _call(
                T.curse_of_dimensionality_sample_size,
                **{**dict(c=1.0, d=2, epsilon=0.1), name: bad},
            ),
            name,
        )
        for name, values in dict(c=_NONNEG, d=_COUNT, epsilon=_POS).items()
        for bad in values
    ),
    Holds(
        T.curse_of_dimensionality_sample_size,
        "(4 c sqrt(d) / eps)^(d + 1)",
        _call(T.curse_of_dimensionality_sample_size, 2.0, 4, 1.0),
        _close(16.0**5),
    ),
    Same(
        T.curse_of_dimensionality_sample_size,
        "under jit",
        lambda: jax.jit(T.curse_of_dimensionality_sample_size)(1.0, 1, 0.1),
        _call(T.curse_of_dimensionality_sample_size, 1.0, 1, 0.1),
        rtol=1e-5,
    ),
    Bad(T.nn_lower_bound_grid, "c 0", _call(T.nn_lower_bound_grid, _NNK, 0, 2), "c"),
    Bad(T.nn_lower_bound_grid, "c 1.5", _call(T.nn_lower_bound_grid, _NNK, 1.5, 2), "c", TypeError),
    Bad(
        T.nn_lower_bound_grid, "c True", _call(T.nn_lower_bound_grid, _NNK, True, 2), "c", TypeError
    ),
    Bad(T.nn_lower_bound_grid, "d 0", _call(T.nn_lower_bound_grid, _NNK, 3, 0), "d"),
    Bad(
        T.nn_lower_bound_grid, "d None", _call(T.nn_lower_bound_grid, _NNK, 3, None), "d", TypeError
    ),
    Bad(
        T.nn_lower_bound_grid,
        "11^10 points",
        _call(T.nn_lower_bound_grid, _NNK, 10, 10),
        ("c", "d"),
    ),
    Bad(
        T.nn_lower_bound_grid,
        "int seed as key",
        _call(T.nn_lower_bound_grid, 0, 3, 2),
        "key",
        TypeError,
    ),
    Bad(
        T.nn_lower_bound_grid,
        "a batch of keys",
        _call(T.nn_lower_bound_grid, jax.random.split(_NNK), 3, 2),
        "key",
    ),
    Same(
        T.nn_lower_bound_grid,
        "typed key",
        _call(T.nn_lower_bound_grid, jax.random.key(0), 3, 2),
        _call(T.nn_lower_bound_grid, _NNK, 3, 2),
    ),
    Holds(
        T.nn_lower_bound_grid,
        "c = 1, d = 3: the 8 corners, labels in {0, 1}",
        _call(T.nn_lower_bound_grid, _NNK, 1, 3),
        lambda got: (
            np.testing.assert_array_equal(np.abs(np.asarray(got.points) - 0.5), 0.5),
            np.testing.assert_array_equal(np.isin(got.labels, [0, 1]), True),
        ),
    ),
    Bad(
        T.sample_labelled_grid,
        "grid a tuple",
        _call(T.sample_labelled_grid, _NNK, tuple(_NNG), 4),
        "grid",
        TypeError,
    ),
    Bad(T.sample_labelled_grid, "m 0", _call(T.sample_labelled_grid, _NNK, _NNG, 0), "m"),
    Bad(
        T.sample_labelled_grid,
        "m None",
        _call(T.sample_labelled_grid, _NNK, _NNG, None),
        "m",
        TypeError,
    ),
    Bad(
        T.sample_labelled_grid,
        "m 2.5",
        _call(T.sample_labelled_grid, _NNK, _NNG, 2.5),
        "m",
        TypeError,
    ),
    Bad(
        T.sample_labelled_grid,
        "float array as key",
        _call(T.sample_labelled_grid, np.zeros(2, np.float32), _NNG, 4),
        "key",
        TypeError,
    ),
    Holds(
        T.sample_labelled_grid,
        "grid points (spacing 1/2, index 3 i + j) with their labels",
        _call(T.sample_labelled_grid, _NNK, _NNG, 50),
        lambda got: np.testing.assert_array_equal(
            _NNG.labels[np.rint(np.asarray(got[0]) @ [6.0, 2.0]).astype(int)], got[1]
        ),
    ),
]

# --- compression bounds and schemes (SPEC 18, 4.5-4.6; helper "compression") ---
_ERR = (-0.1, 1.5, np.nan)
_SIZE = (-1, 2.5, np.nan, np.inf)
_UNIT_GAMMA = (0.0, -0.5, 1.5, np.nan)
_COMPRESSION_CASES = [
    (
        T.holdout_bound,
        dict(holdout_error=0.1, n=300, delta=0.05),
        dict(holdout_error=_ERR, n=_COUNT, delta=_OPEN),
    ),
    (
        T.compression_bound,
        dict(k=4, m=1000, delta=0.05, holdout_error=0.1),
        dict(k=_SIZE, m=_COUNT, delta=_OPEN, holdout_error=_ERR),
    ),
    (
        T.compression_train_bound,
        dict(k=4, m=1000, delta=0.05, train_error=0.1),
        dict(k=_SIZE, m=_COUNT, delta=_OPEN, train_error=_ERR),
    ),
    (
        T.perceptron_compression_bound,
        dict(gamma=0.5, m=1000, delta=0.05),
        dict(gamma=_UNIT_GAMMA, m=_COUNT, delta=_OPEN),
    ),
    (
        T.inefficient_perceptron_bound,
        dict(margin_error=0.1, gamma=0.5, m=1000, delta=0.05),
        dict(margin_error=_ERR, gamma=_UNIT_GAMMA, m=_COUNT, delta=_OPEN),
    ),
    (
        T.rectangle_compression_bound,
        dict(d=2, m=1000, delta=0.05),
        dict(d=_COUNT, m=_COUNT, delta=_OPEN),
    ),
]
_RX = np.array([[0.1, 0.5], [0.4, 0.2], [0.3, 0.3], [0.9, 0.9]], np.float32)
_RY = np.array([1.0, 1.0, 1.0, -1.0], np.float32)


def _separates(w):
    _finite(w)
    assert np.all(_Y * (_X @ np.asarray(w)) > 0), w


def _rectangle_of(X, y):
    return T.rectangle_reconstruct(X, y, T.rectangle_compress(X, y))


ROWS += [
    Bad(f, f"{name}={bad!r}", _call(f, **{**valid, name: bad}), name)
    for f, valid, bads in _COMPRESSION_CASES
    for name, values in bads.items()
    for bad in values
]
ROWS += [
    Holds(f, "valid call is finite", _call(f, **valid), _finite)
    for f, valid, _ in _COMPRESSION_CASES
]
ROWS += [
    # conditions between arguments
    Bad(
        T.compression_bound,
        "m < 2k (Theorem 1)",
        _call(T.compression_bound, 10, 15, 0.1),
        ("m", "k"),
    ),
    Bad(
        T.compression_train_bound,
        "m < 2k (Theorem 2)",
        _call(T.compression_train_bound, 10, 15, 0.01, 0.0),
        ("m", "k"),
    ),
    Bad(
        T.compression_train_bound,
        "m / delta < 42 (Theorem 2)",
        _call(T.compression_train_bound, 1, 4, 0.5, 0.0),
        ("m", "delta"),
    ),
    Bad(
        T.perceptron_compression_bound,
        "m < 2 / gamma^2 (Corollary 3)",
        _call(T.perceptron_compression_bound, 0.1, 100, 0.1),
        ("m", "gamma"),
    ),
    Bad(
        T.rectangle_compression_bound,
        "m < 4 d",
        _call(T.rectangle_compression_bound, 3, 10, 0.1),
        ("m", "d"),
    ),
    Holds(
        T.compression_bound,
        "k = 0: an empty compression set",
        _call(T.compression_bound, 0, 10, 0.1),
        _close(0.0),
    ),
    Holds(
        T.compression_bound,
        "under vmap over hold-out errors",
        lambda: jax.vmap(T.compression_bound, (None, None, None, 0))(
            1, 100, 0.1, jnp.array([0.0, 0.0])
        ),
        _close([8 * np.log(1000) / 100] * 2),
    ),
    Holds(
        T.rectangle_compression_bound,
        "under jit",
        lambda: jax.jit(T.rectangle_compression_bound)(1, 100, 0.1),
        _close(16 * np.log(1000) / 100),
    ),
    # the schemes
    Bad(
        T.rectangle_compress,
        "labels in {0, 1}",
        _call(T.rectangle_compress, _RX, (_RY + 1) / 2),
        "y",
    ),
    Bad(T.rectangle_compress, "1-d X", _call(T.rectangle_compress, _RX[:, 0], _RY), "X"),
    Bad(
        T.rectangle_compress,
        "NaN in X",
        _call(T.rectangle_compress, np.where(_RX > 0.8, np.nan, _RX), _RY),
        "X",
    ),
    Bad(
        T.rectangle_reconstruct,
        "mask of another length",
        _call(T.rectangle_reconstruct, _RX, _RY, np.ones(3, bool)),
        "mask",
    ),
    Bad(
        T.rectangle_reconstruct,
        "lengths differ",
        _call(T.rectangle_reconstruct, _RX, _RY[:3], np.ones(4, bool)),
        ("X", "y"),
    ),
    Bad(
        T.rectangle_predict,
        "a rectangle of another width",
        _call(T.rectangle_predict, T.Rectangle(np.zeros(3), np.ones(3)), _RX),
        "rectangle",
    ),
    Bad(
        T.rectangle_predict,
        "NaN in X",
        lambda: T.rectangle_predict(_rectangle_of(_RX, _RY), np.where(_RX > 0.8, np.nan, _RX)),
        "X",
    ),
    Same(
        T.rectangle_compress,
        "lists",
        _call(T.rectangle_compress, _RX.tolist(), _RY.tolist()),
        _call(T.rectangle_compress, _RX, _RY),
    ),
    Same(
        T.rectangle_reconstruct,
        "int labels and a list mask",
        _call(T.rectangle_reconstruct, _RX, _RY.astype(np.int32), [True, True, False, False]),
        _call(T.rectangle_reconstruct, _RX, _RY, np.array([True, True, False, False])),
    ),
    Holds(
        T.rectangle_predict,
        "the rectangle of the sample labels it",
        lambda: T.rectangle_predict(_rectangle_of(_RX, _RY), _RX),
        _close(_RY),
    ),
    Bad(
        T.halfspace_compress, "labels in {0, 1}", _call(T.halfspace_compress, _X, (_Y + 1) / 2), "y"
    ),
    Bad(
        T.halfspace_compress,
        "NaN in X",
        _call(T.halfspace_compress, np.where(_X > 3, np.nan, _X), _Y),
        "X",
    ),
    Bad(T.halfspace_compress, "steps 0", _call(T.halfspace_compress, _X, _Y, steps=0), "steps"),
    Bad(
        T.halfspace_compress,
        "mask of another length",
        _call(T.halfspace_compress, _X, _Y, mask=[True]),
        "mask",
    ),
    Bad(
        T.halfspace_reconstruct,
        "support of another length",
        _call(T.halfspace_reconstruct, _X, _Y, np.ones(2, bool)),
        "support",
    ),
    Same(
        T.halfspace_compress,
        "int X, y",
        lambda: T.halfspace_compress(_X.astype(np.int32), _Y.astype(np.int32)).w,
        lambda: T.halfspace_compress(_X, _Y).w,
        rtol=1e-5,
    ),
    Holds(
        T.halfspace_compress,
        "the min-norm point separates",
        lambda: T.halfspace_compress(_X, _Y).w,
        _separates,
    ),
    Holds(
        T.halfspace_reconstruct,
        "the support rebuilds a separator",
        lambda: T.halfspace_reconstruct(_X, _Y, T.halfspace_compress(_X, _Y).support),
        _separates,
    ),
    Bad(
        T.perceptron_compress,
        "labels in {0, 1}",
        _call(T.perceptron_compress, _X, (_Y + 1) / 2),
        "y",
    ),
    Bad(
        T.perceptron_compress,
        "max_epochs 0",
        _call(T.perceptron_compress, _X, _Y, max_epochs=0),
        "max_epochs",
    ),
    Bad(
        T.perceptron_reconstruct,
        "support of another length",
        _call(T.perceptron_reconstruct, _X, _Y, np.ones(2, bool)),
        "support",
    ),
    Holds(
        T.perceptron_reconstruct,
        "the updated examples rebuild a separator",
        lambda: T.perceptron_reconstruct(_X, _Y, T.perceptron_compress(_X, _Y)),
        _separates,
    ),
    Holds(
        T.perceptron_reconstruct,
        "nothing kept: w = 0",
        _call(T.perceptron_reconstruct, _X, _Y, np.zeros(3, bool)),
        _close([0.0, 0.0]),
    ),
]
