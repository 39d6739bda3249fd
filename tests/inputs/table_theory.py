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
    (T.perceptron_nonseparable_bound, dict(margin=0.5, total_deviation=3.0),
     dict(margin=_POS, total_deviation=_NONNEG)),
    (T.margin_perceptron_bound, dict(margin=0.1), dict(margin=(0.0, -0.1, 1.5, np.nan))),
    (T.ogd_regret_bound, dict(U=2.0, R=3.0, T=100), dict(U=_POS, R=_POS, T=_COUNT)),
    (T.ogd_pathwise_bound, dict(U=2.0, eta=0.5, grad_sq_norms=_G[0]),
     dict(U=_NONNEG, eta=_POS, grad_sq_norms=(np.array([1.0, -1.0]), np.array([np.nan, 1.0]), 1.0))),
    (T.winnow_mistake_bound, dict(k=3, n=100, eta=2.0, threshold=50.0),
     dict(k=_COUNT, n=_COUNT, eta=(1.0, 0.5, np.nan, np.inf), threshold=_POS)),
    (T.consistent_bound, dict(n=64), dict(n=_COUNT)),
    (T.halving_bound, dict(n=64), dict(n=_COUNT)),
    (T.weighted_majority_bound, dict(beta=1 / np.e, best_mistakes=10, n=8),
     dict(beta=(1.0, -0.1, 2.0, np.nan), best_mistakes=(-1, 0.5, np.nan, np.inf),
          n=(0.5, 0, np.nan, np.inf))),
    (T.exponential_weights_bound, dict(eta=0.1, T=100, n=5), dict(eta=_POS, T=_COUNT, n=_COUNT)),
    (T.rwm_regret_bound, dict(T=200, n=8), dict(T=_COUNT, n=_COUNT)),
    (T.hedge_regret_bound, dict(T=100, n=5), dict(T=_COUNT, n=_COUNT)),
    (T.weighted_average_regret_bound, dict(n=4, loss="square"), dict(n=_COUNT, loss=("hinge",))),
    (T.conjunction_bound, dict(n=10), dict(n=_COUNT)),
    (T.decision_list_bound, dict(n=10, L=3), dict(n=_COUNT, L=_COUNT)),
    (T.agnostic_regret_bound, dict(T=100, ldim=2), dict(T=_COUNT, ldim=(-1, 1.5, np.nan, np.inf))),
    (T.sgd_convex_bound, dict(U=2.0, rho=3.0, T=1000, eta=0.1),
     dict(U=_POS, rho=_POS, T=_COUNT, eta=_POS)),
    (T.sgd_strongly_convex_bound, dict(rho=2.0, lam=0.1, T=1000), dict(rho=_POS, lam=_POS, T=_COUNT)),
    (T.stability_bound, dict(rho=1.0, lam=0.1, m=100), dict(rho=_POS, lam=_POS, m=_COUNT)),
    (T.soft_svm_bound, dict(rho=1.0, B=2.0, m=100), dict(rho=_POS, B=_POS, m=_COUNT)),
    (T.hard_svm_bound, dict(rho=1.0, gamma=0.1, m=1000, delta=0.05),
     dict(rho=_POS, gamma=_POS, m=_COUNT, delta=_OPEN)),
    (T.multiclass_perceptron_bound, dict(R=2.0, w_norm=3.0), dict(R=_POS, w_norm=_POS)),
    (T.multiclass_svm_bound, dict(rho=1.0, B=2.0, m=100), dict(rho=_POS, B=_POS, m=_COUNT)),
    (T.multiclass_sgd_steps, dict(rho=1.0, B=2.0, epsilon=0.1), dict(rho=_POS, B=_POS, epsilon=_POS)),
    (T.tree_mdl_bound, dict(n_nodes=5, d=3, m=100, delta=0.1, train_error=0.1),
     dict(n_nodes=_COUNT, d=_COUNT, m=_COUNT, delta=_OPEN, train_error=(-0.1, 1.5, np.nan))),
    (T.one_nn_bound, dict(bayes_error=0.1, c=2.0, d=4, m=3125),
     dict(bayes_error=(-0.1, 0.6, np.nan), c=_NONNEG, d=_COUNT, m=_COUNT)),
    (T.knn_bound, dict(bayes_error=0.1, c=2.0, d=4, m=3125, k=10),
     dict(bayes_error=(-0.1, 0.6, np.nan), c=_NONNEG, d=_COUNT, m=_COUNT, k=(5, 0, 10.5, np.nan))),
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
    Bad(T.perceptron_mistake_bound, "negative margin (issue 13)", _call(T.perceptron_mistake_bound, 1, -0.1),
        "margin"),
    Bad(T.hard_svm_bound, "delta = 2 (issue 13)", _call(T.hard_svm_bound, 1.0, 0.1, 100, delta=2), "delta"),
    Bad(T.halving_bound, "n None", _call(T.halving_bound, None), "n", TypeError),
    Bad(T.halving_bound, "n a string", _call(T.halving_bound, "64"), "n", TypeError),
    Bad(T.halving_bound, "n a bool", _call(T.halving_bound, True), "n", TypeError),
    Bad(T.ogd_regret_bound, "a schedule for U", _call(T.ogd_regret_bound, lambda t: 1.0, 1.0, 10), "U",
        TypeError),
    Bad(T.weighted_average_regret_bound, "loss not a str", _call(T.weighted_average_regret_bound, 4, 1),
        "loss", TypeError),
    Bad(T.ogd_regret_bound, "shapes do not broadcast",
        _call(T.ogd_regret_bound, [1.0, 2.0], [1.0, 2.0, 3.0], 10), ("U", "R", "T")),
    Bad(T.exponential_weights_bound, "a negative entry in an eta grid",
        _call(T.exponential_weights_bound, np.array([0.1, -0.1]), 10, 5), "eta"),
    # conditions between arguments
    Bad(T.winnow_mistake_bound, "k > n", _call(T.winnow_mistake_bound, 5, 3), ("k", "n")),
    Bad(T.winnow_mistake_bound, "threshold < 1 / eta", _call(T.winnow_mistake_bound, 1, 4, 2.0, 0.25),
        ("threshold", "eta")),
    Bad(T.rwm_regret_bound, "T <= 2 ln n (Theorem 21.11)", _call(T.rwm_regret_bound, 4, 100), ("T", "n")),
    Bad(T.ogd_pathwise_bound, "grad_sq_norms without a time axis", _call(T.ogd_pathwise_bound, 1.0, 0.1, 2.0),
        "grad_sq_norms"),
    # the values of the sources
    Holds(T.winnow_mistake_bound, "classic 2 + 3k(1 + log2 n)", _call(T.winnow_mistake_bound, 3, 16),
          _close(2 + 3 * 3 * 5)),
    Holds(T.weighted_majority_bound, "2.63 (M_i + ln n) at beta = 1/e, n = e (a real n)",
          _call(T.weighted_majority_bound, 1 / np.e, 0, np.e), _close(1 / np.log(2 * np.e / (np.e + 1)))),
    Holds(T.weighted_majority_bound, "beta = 0 is Halving: log2 n for a perfect expert",
          _call(T.weighted_majority_bound, 0.0, np.array([0, 3]), 16), _close([4.0, np.inf])),
    Holds(T.knn_bound, "k = 10, the smallest k of Theorem 19.5", _call(T.knn_bound, 0.0, 1.0, 1, 100, 10),
          _close(16 / 10)),
    Same(T.tree_mdl_bound, "integral float counts", _call(T.tree_mdl_bound, 5.0, 3.0, np.array([100.0]), 0.1),
         lambda: T.tree_mdl_bound(5, 3, np.array([100]), 0.1)),
    Same(T.hard_svm_bound, "int arguments equal floats", _call(T.hard_svm_bound, 2, 1, 100, 0.05),
         _call(T.hard_svm_bound, 2.0, 1.0, 100.0, 0.05)),
    Same(T.ogd_pathwise_bound, "one eta per run of a (runs, T) array",
         _call(T.ogd_pathwise_bound, 1.0, np.array([0.5, 0.25], np.float32), _G),
         lambda: jnp.stack([T.ogd_pathwise_bound(1.0, 0.5, _G[0]), T.ogd_pathwise_bound(1.0, 0.25, _G[1])])),
    Same(T.ogd_pathwise_bound, "a list", _call(T.ogd_pathwise_bound, 2.0, 0.5, _G[0].tolist()),
         _call(T.ogd_pathwise_bound, 2.0, 0.5, _G[0])),
    Same(T.ogd_pathwise_bound, "int squared norms", _call(T.ogd_pathwise_bound, 2, 1, _G[1].astype(np.int32)),
         _call(T.ogd_pathwise_bound, 2.0, 1.0, _G[1])),
    # under jit the values are tracers: nothing is checked, the bound still evaluates
    Holds(T.hard_svm_bound, "under jit", lambda: jax.jit(T.hard_svm_bound)(1.0, 0.1, 1000, 0.05),
          _close(T.hard_svm_bound(1.0, 0.1, 1000, 0.05))),
    Holds(T.tree_mdl_bound, "under jit", lambda: jax.jit(T.tree_mdl_bound)(5, 3, 100, 0.1, 0.1),
          _close(T.tree_mdl_bound(5, 3, 100, 0.1, 0.1))),
    Holds(T.winnow_mistake_bound, "under vmap", lambda: jax.vmap(T.winnow_mistake_bound, (0, None))(
        jnp.array([1, 3]), 16), _close([2 + 3 * 5, 2 + 9 * 5])),
    Holds(T.ogd_pathwise_bound, "under vmap over runs", lambda: jax.vmap(T.ogd_pathwise_bound, (None, 0, 0))(
        1.0, jnp.array([0.5, 0.25]), _G), _close([1.0 + 0.375, 2.0 + 0.375])),
    # functions of a sample
    Bad(T.radius, "1-d X", _call(T.radius, _X[0]), "X"),
    Bad(T.radius, "empty X", _call(T.radius, _X[:0]), "X"),
    Bad(T.radius, "NaN in X", _call(T.radius, np.where(_X > 3, np.nan, _X)), "X"),
    Same(T.radius, "a list", _call(T.radius, _X.tolist()), _call(T.radius, _X)),
    Same(T.radius, "int X", _call(T.radius, _X.astype(np.int32)), _call(T.radius, _X)),
    Holds(T.radius, "valid X", _call(T.radius, _X), _close(5.0)),
    Holds(T.radius, "under jit", lambda: jax.jit(T.radius)(_X), _close(5.0)),
    Bad(T.halfspace_margin, "w of the wrong width", _call(T.halfspace_margin, np.ones(3), _X, _Y), "w"),
    Bad(T.halfspace_margin, "w zero", _call(T.halfspace_margin, np.zeros(2), _X, _Y), "w"),
    Bad(T.halfspace_margin, "NaN in w", _call(T.halfspace_margin, np.array([np.nan, 1.0]), _X, _Y), "w"),
    Bad(T.halfspace_margin, "labels in {0, 1}", _call(T.halfspace_margin, _W, _X, (_Y + 1) / 2), "y"),
    Bad(T.halfspace_margin, "lengths differ", _call(T.halfspace_margin, _W, _X, _Y[:2]), ("X", "y")),
    Bad(T.halfspace_margin, "NaN in X", _call(T.halfspace_margin, _W, np.where(_X > 3, np.nan, _X), _Y), "X"),
    Bad(T.halfspace_margin, "zero row, normalize=True",
        _call(T.halfspace_margin, _W, _X * [[0.0], [1.0], [1.0]], _Y, normalize=True), "X"),
    Bad(T.halfspace_margin, "normalize not a bool", _call(T.halfspace_margin, _W, _X, _Y, normalize="yes"),
        "normalize", TypeError),
    Same(T.halfspace_margin, "lists", _call(T.halfspace_margin, _W.tolist(), _X.tolist(), _Y.tolist()),
         _call(T.halfspace_margin, _W, _X, _Y)),
    Same(T.halfspace_margin, "int w, X, y",
         _call(T.halfspace_margin, *(a.astype(np.int32) for a in (_W, _X, _Y)), normalize=True),
         _call(T.halfspace_margin, _W, _X, _Y, normalize=True)),
    Holds(T.halfspace_margin, "valid sample", _call(T.halfspace_margin, _W, _X[:2], _Y[:2]), _close(1.0)),
    Bad(T.total_deviation, "margin 0", _call(T.total_deviation, _W, _X, _Y, 0.0), "margin"),
    Bad(T.total_deviation, "negative margin", _call(T.total_deviation, _W, _X, _Y, -0.5), "margin"),
    Bad(T.total_deviation, "NaN margin", _call(T.total_deviation, _W, _X, _Y, np.nan), "margin"),
    Bad(T.total_deviation, "margin an array", _call(T.total_deviation, _W, _X, _Y, np.array([0.1, 0.2])),
        "margin"),
    Bad(T.total_deviation, "zero row", _call(T.total_deviation, _W, _X * [[0], [1], [1]], _Y, 0.5), "X"),
    Bad(T.total_deviation, "w zero", _call(T.total_deviation, np.zeros(2), _X, _Y, 0.5), "w"),
    Bad(T.total_deviation, "labels in {0, 1}", _call(T.total_deviation, _W, _X, (_Y + 1) / 2, 0.5), "y"),
    Same(T.total_deviation, "lists", _call(T.total_deviation, _W.tolist(), _X.tolist(), _Y.tolist(), 0.9),
         _call(T.total_deviation, _W, _X, _Y, 0.9)),
    Same(T.total_deviation, "int inputs",
         _call(T.total_deviation, _W.astype(np.int32), _X.astype(np.int32), _Y.astype(np.int32), 1),
         _call(T.total_deviation, _W, _X, _Y, 1.0)),
    Holds(T.total_deviation, "TD at 0.9 of margins 0.8, 1.0",
          _call(T.total_deviation, _W, _X[:2], _Y[:2], 0.9), _close(0.1)),
    Bad(T.margin, "1-d X", _call(T.margin, _X[0], _Y), "X"),
    Bad(T.margin, "labels in {0, 1}", _call(T.margin, _X, (_Y + 1) / 2), "y"),
    Bad(T.margin, "NaN in X", _call(T.margin, np.where(_X > 3, np.nan, _X), _Y), "X"),
    Same(T.margin, "lists", _call(T.margin, _X[:2].tolist(), _Y[:2].tolist()),
         _call(T.margin, _X[:2], _Y[:2]), rtol=1e-5),
    Holds(T.margin, "gamma(S) of two points", _call(T.margin, _X[:2], _Y[:2]), _finite),
]
