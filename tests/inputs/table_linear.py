# ruff: noqa: E501 - one row per line reads as a table
"""Bad and unusual input to ``jaxlearn.linear``: hyperparameter ranges, widths of ``X`` at predict time,
integer ``X`` through a kernel, SGD's divergence flag, and ``sample_margin`` / ``check_separable``."""

import warnings

import jax
import numpy as np

from jaxlearn import datasets, kernels, linear, losses
from tests.inputs.rows import Bad, Holds, Same

KEY = jax.random.PRNGKey(0)
# separable through the origin (margin 1/sqrt(1.25) = 0.8944 for the first four rows)
_X = np.array(
    [[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [3.0, 3.0], [1.0, 2.0], [-2.0, -1.0]], np.float32
)
_Y = np.array([1.0, 1.0, -1.0, 1.0, 1.0, -1.0], np.float32)
_T = np.array([1.0, 0.5, -2.0, 6.0, 3.0, -3.0], np.float32)  # real targets
_XI = np.array(
    [[2, 0], [0, 1], [-1, -1], [3, 3], [1, 2], [-2, -1]], np.int32
)  # _X's values as ints
_GAUSS = kernels.gaussian(2.0)


def _fit(learner, X=_X, y=_Y):
    return learner.fit(KEY, X, y)


def _scores(learner, X=_X, y=_Y):
    """Params and scores on ``X`` (``decision_function`` where there is one, else ``predict``)."""
    params = learner.fit(KEY, X, y)
    score = learner.decision_function if learner.decision_function is not None else learner.predict
    return params, score(params, X)


# one learner per factory, with targets; the `X` checks of predict / decision_function
_LEARNERS = [
    ("sgd", linear.sgd(losses.hinge, steps=50, lam=0.1), _Y),
    ("soft_svm", linear.soft_svm(0.1, 50, fit_intercept=True), _Y),
    ("hard_svm", linear.hard_svm(), _Y),
    ("kernel_svm", linear.kernel_svm(_GAUSS, 0.1, 50), _Y),
    ("ridge", linear.ridge(1.0), _T),
    ("kernel_ridge", linear.kernel_ridge(_GAUSS, 0.1), _T),
    ("kernel_centroid", linear.kernel_centroid(_GAUSS), _Y),
    ("kernel_batch_perceptron", linear.kernel_batch_perceptron(_GAUSS, 20), _Y),
    ("batch_perceptron", linear.batch_perceptron(20), _Y),
    ("augmented_perceptron", linear.augmented_perceptron(0.5, 20), _Y),
    ("inefficient_perceptron", linear.inefficient_perceptron(0.5, 20), _Y),
]


def _instance_rows():
    rows = []
    for name, learner, y in _LEARNERS:
        entry = getattr(linear, name)
        functions = {"predict": learner.predict, "decision_function": learner.decision_function}
        for fname, function in functions.items():
            if function is None:
                continue

            def bad(X, function=function, learner=learner, y=y):
                return lambda: function(_fit(learner, _X, y), X)

            rows += [
                Bad(entry, f"{fname}: NaN row", bad(np.where(_X == 3.0, np.nan, _X)), "X"),
                Bad(entry, f"{fname}: one feature too many", bad(np.ones((3, 3), np.float32)), "X"),
                Bad(entry, f"{fname}: one feature too few", bad(_X[:, :1]), "X"),
                Bad(entry, f"{fname}: a 1-D X", bad(_X[0]), "X"),
                Bad(
                    entry,
                    f"{fname}: too wide under jit",
                    lambda f=function, lr=learner, y=y: jax.jit(f)(
                        _fit(lr, _X, y), np.ones((3, 3))
                    ),
                    "X",
                ),
            ]
        y_int = y.astype(np.int32)
        rows.append(
            Same(
                entry,
                "int X: the float fit and scores",
                lambda lr=learner, y=y: _scores(lr, _XI, y),
                lambda lr=learner, y=y: _scores(lr, _X, y),
            )
        )
        rows.append(
            Same(
                entry,
                "int y",
                lambda lr=learner, y=y_int: _fit(lr, _X, y),
                lambda lr=learner, y=y_int: _fit(lr, _X, y.astype(np.float32)),
            )
        )
    return rows


def _fit_warnings(learner, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        params = learner.fit(KEY, X, y)
    return params, [w.category for w in caught]


def _diverged(expected):
    def check(result):
        params, categories = result
        assert bool(params.diverged) is expected, params.diverged
        assert np.isfinite(params.w).all() and np.isfinite(params.last).all(), params
        assert (RuntimeWarning in categories) is expected, categories

    return check


def _traced_diverged(params):
    assert (
        bool(params.diverged) and np.isfinite(params.w).all() and np.isfinite(params.last).all()
    ), params


def _equal(value):
    def check(got):
        np.testing.assert_allclose(np.asarray(got), value, rtol=1e-4)

    return check


_RANGES = [  # (factory, what, call, argument, error)
    (
        linear.sgd,
        "eta inf",
        lambda: linear.sgd(losses.hinge, steps=10, eta=float("inf")),
        "eta",
        ValueError,
    ),
    (linear.sgd, "eta -1", lambda: linear.sgd(losses.hinge, steps=10, eta=-1.0), "eta", ValueError),
    (linear.sgd, "lam 0", lambda: linear.sgd(losses.hinge, steps=10, lam=0.0), "lam", ValueError),
    (
        linear.sgd,
        "lam NaN",
        lambda: linear.sgd(losses.hinge, steps=10, lam=float("nan")),
        "lam",
        ValueError,
    ),
    (
        linear.sgd,
        "steps 0",
        lambda: linear.sgd(losses.hinge, steps=0, lam=0.1),
        "steps",
        ValueError,
    ),
    (
        linear.sgd,
        "steps 2.5",
        lambda: linear.sgd(losses.hinge, steps=2.5, lam=0.1),
        "steps",
        TypeError,
    ),
    (
        linear.sgd,
        "eta a string",
        lambda: linear.sgd(losses.hinge, steps=10, eta="1"),
        "eta",
        TypeError,
    ),
    (linear.soft_svm, "lam inf", lambda: linear.soft_svm(float("inf"), 10), "lam", ValueError),
    (linear.soft_svm, "lam 0", lambda: linear.soft_svm(0.0, 10), "lam", ValueError),
    (linear.soft_svm, "lam True", lambda: linear.soft_svm(True, 10), "lam", TypeError),
    (linear.soft_svm, "steps -1", lambda: linear.soft_svm(0.1, -1), "steps", ValueError),
    (
        linear.soft_svm,
        "batch_size 0",
        lambda: linear.soft_svm(0.1, 10, batch_size=0),
        "batch_size",
        ValueError,
    ),
    (
        linear.soft_svm,
        "batch_size 2.5",
        lambda: linear.soft_svm(0.1, 10, batch_size=2.5),
        "batch_size",
        TypeError,
    ),
    (
        linear.soft_svm,
        "batch_size > m",
        lambda: _fit(linear.soft_svm(0.1, 10, batch_size=7)),
        "batch_size",
        ValueError,
    ),
    (
        linear.sgd,
        "batch_size -1",
        lambda: linear.sgd(losses.hinge, steps=10, lam=0.1, batch_size=-1),
        "batch_size",
        ValueError,
    ),
    (
        linear.sgd,
        "batch_size > m",
        lambda: _fit(linear.sgd(losses.hinge, steps=10, lam=0.1, batch_size=9)),
        "batch_size",
        ValueError,
    ),
    (linear.hard_svm, "tol inf", lambda: linear.hard_svm(tol=float("inf")), "tol", ValueError),
    (linear.hard_svm, "tol 0", lambda: linear.hard_svm(tol=0.0), "tol", ValueError),
    (linear.hard_svm, "max_steps 0", lambda: linear.hard_svm(max_steps=0), "max_steps", ValueError),
    (
        linear.kernel_svm,
        "lam inf",
        lambda: linear.kernel_svm(_GAUSS, float("inf"), 10),
        "lam",
        ValueError,
    ),
    (linear.kernel_svm, "steps 0", lambda: linear.kernel_svm(_GAUSS, 0.1, 0), "steps", ValueError),
    (
        linear.kernel_svm,
        "batch_size 0",
        lambda: linear.kernel_svm(_GAUSS, 0.1, 10, batch_size=0),
        "batch_size",
        ValueError,
    ),
    (linear.ridge, "lam inf", lambda: linear.ridge(float("inf")), "lam", ValueError),
    (linear.ridge, "lam -1", lambda: linear.ridge(-1.0), "lam", ValueError),
    (
        linear.kernel_ridge,
        "lam NaN",
        lambda: linear.kernel_ridge(_GAUSS, float("nan")),
        "lam",
        ValueError,
    ),
    (
        linear.kernel_ridge,
        "batch_size 1.5",
        lambda: linear.kernel_ridge(_GAUSS, 0.1, batch_size=1.5),
        "batch_size",
        TypeError,
    ),
    (
        linear.kernel_centroid,
        "batch_size 0",
        lambda: linear.kernel_centroid(_GAUSS, batch_size=0),
        "batch_size",
        ValueError,
    ),
    (
        linear.batch_perceptron,
        "max_epochs 0",
        lambda: linear.batch_perceptron(0),
        "max_epochs",
        ValueError,
    ),
    (
        linear.batch_perceptron,
        "block_size 0",
        lambda: linear.batch_perceptron(block_size=0),
        "block_size",
        ValueError,
    ),
    (linear.augmented_perceptron, "a 1", lambda: linear.augmented_perceptron(1.0), "a", ValueError),
    (
        linear.augmented_perceptron,
        "a inf",
        lambda: linear.augmented_perceptron(float("inf")),
        "a",
        ValueError,
    ),
    (
        linear.augmented_perceptron,
        "max_epochs 0",
        lambda: linear.augmented_perceptron(0.5, 0),
        "max_epochs",
        ValueError,
    ),
    (
        linear.inefficient_perceptron,
        "gamma 0",
        lambda: linear.inefficient_perceptron(0.0),
        "gamma",
        ValueError,
    ),
    (
        linear.inefficient_perceptron,
        "gamma -1",
        lambda: linear.inefficient_perceptron(-1.0),
        "gamma",
        ValueError,
    ),
    (
        linear.inefficient_perceptron,
        "gamma NaN",
        lambda: linear.inefficient_perceptron(float("nan")),
        "gamma",
        ValueError,
    ),
    (
        linear.inefficient_perceptron,
        "max_epochs 0",
        lambda: linear.inefficient_perceptron(0.5, 0),
        "max_epochs",
        ValueError,
    ),
    (  # C(200, 3) + C(200, 2) + 200 > 10^6 candidate directions: refused before any work
        linear.inefficient_perceptron,
        "m = 200 in R^3",
        lambda: _fit(
            linear.inefficient_perceptron(0.1),
            np.ones((200, 3), np.float32),
            np.ones(200, np.float32),
        ),
        "X",
        ValueError,
    ),
]

_SQUARED = dict(labels=None, steps=200)


def _not_separable(params):
    assert not bool(params.separable) and not bool(params.converged), params
    assert np.isfinite(np.asarray(params.w)).all() and np.isfinite(np.asarray(params.b)), params


def _not_converged(params):
    assert not bool(params.converged) and int(params.num_epochs) == 5, params
    assert np.isfinite(np.asarray(params.alpha)).all(), params


_NON_SEPARABLE = (np.array([[1.0, 0.0], [1.0, 0.0]], np.float32), np.array([1.0, -1.0], np.float32))

_STACKED = jax.tree.map(
    lambda *leaves: np.stack(leaves), *[linear.epoch_sgd(alpha=a) for a in (1e-3, 1e-1)]
)


def _fits(X=_X, y=_Y, learners=_STACKED):
    return linear.epoch_sgd_fits(learners, KEY, X, y, seed=3)


ROWS = [
    Same(
        linear.epoch_sgd_fits,
        "lists",
        lambda: _fits(_X.tolist(), _Y.tolist()),
        lambda: _fits(),
    ),
    Same(
        linear.epoch_sgd_fits,
        "int X",
        lambda: _fits(_XI),
        lambda: _fits(_XI.astype(np.float32)),
    ),
    Bad(
        linear.epoch_sgd_fits,
        "one learner, not a stack",
        lambda: _fits(learners=linear.epoch_sgd()),
        "learners",
    ),
    Bad(
        linear.epoch_sgd_fits,
        "ridge learners",
        lambda: _fits(learners=linear.ridge(1.0)),
        "learners",
        TypeError,
    ),
    Same(
        linear.epoch_sgd_fits,
        "two samples stacked",
        lambda: linear.epoch_sgd_fits(
            _STACKED, KEY, np.stack([_X, _X[::-1]]), np.stack([_Y, _Y[::-1]]), seed=[3, 3]
        ).w[1],
        lambda: _fits(_X[::-1], _Y[::-1]).w,
    ),
    Bad(linear.epoch_sgd_fits, "1-D X", lambda: _fits(_X[:, 0]), "X"),
    Bad(linear.epoch_sgd_fits, "labels {0, 1}", lambda: _fits(y=(_Y + 1) / 2), "y"),
    Bad(linear.epoch_sgd_fits, "NaN in X", lambda: _fits(np.where(_X > 2, np.nan, _X)), "X"),
    *(Bad(factory, what, call, name, error) for factory, what, call, name, error in _RANGES),
    *_instance_rows(),
    # an int hyperparameter is a number, never a truncation
    Same(
        linear.sgd,
        "int eta",
        lambda: _fit(linear.sgd(losses.logistic, steps=50, eta=1)).w,
        lambda: _fit(linear.sgd(losses.logistic, steps=50, eta=1.0)).w,
    ),
    Same(
        linear.soft_svm,
        "int lam",
        lambda: _fit(linear.soft_svm(1, 50)).w,
        lambda: _fit(linear.soft_svm(1.0, 50)).w,
    ),
    # divergence: eta = 1e6 on the squared loss overflows; the last finite iterate is kept
    Holds(
        linear.sgd,
        "eta=1e6 diverges: finite params, flag set, warns",
        lambda: _fit_warnings(linear.sgd(losses.squared, eta=1e6, **_SQUARED), _X, _T),
        _diverged(True),
    ),
    Holds(
        linear.sgd,
        "small eta: no divergence",
        lambda: _fit_warnings(linear.sgd(losses.squared, eta=1e-3, **_SQUARED), _X, _T),
        _diverged(False),
    ),
    Holds(
        linear.sgd,
        "eta=1e6 under jit: flag set, finite",
        lambda: jax.jit(linear.sgd(losses.squared, eta=1e6, **_SQUARED).fit)(KEY, _X, _T),
        _traced_diverged,
    ),
    # sample_margin
    Holds(
        linear.sample_margin,
        "the book's example",
        lambda: linear.sample_margin(_X[:4], _Y[:4]),
        _equal(1 / np.sqrt(1.25)),
    ),
    Same(
        linear.sample_margin,
        "int X, int y",
        lambda: linear.sample_margin(_XI, _Y.astype(np.int32)),
        lambda: linear.sample_margin(_X, _Y),
    ),
    Same(
        linear.sample_margin,
        "lists",
        lambda: linear.sample_margin(_X.tolist(), _Y.tolist()),
        lambda: linear.sample_margin(_X, _Y),
    ),
    Holds(
        linear.sample_margin,
        "one row: its norm",
        lambda: linear.sample_margin(_X[:1], _Y[:1]),
        _equal(2.0),
    ),
    Bad(
        linear.sample_margin,
        "NaN in X",
        lambda: linear.sample_margin(np.where(_X > 2, np.nan, _X), _Y),
        "X",
    ),
    Bad(linear.sample_margin, "1-D X", lambda: linear.sample_margin(_X[:, 0], _Y), "X"),
    Bad(linear.sample_margin, "labels {0, 1}", lambda: linear.sample_margin(_X, (_Y + 1) / 2), "y"),
    Bad(
        linear.sample_margin, "lengths differ", lambda: linear.sample_margin(_X, _Y[:3]), ("X", "y")
    ),
    Bad(
        linear.sample_margin,
        "empty sample",
        lambda: linear.sample_margin(_X[:0], _Y[:0]),
        {"X", "y"},
    ),
    Bad(
        linear.sample_margin,
        "not separable",
        lambda: linear.sample_margin(*_NON_SEPARABLE),
        ("X", "y"),
    ),
    Bad(
        linear.sample_margin,
        "not converged in 2 sweeps",
        lambda: linear.sample_margin(*datasets.separable(KEY, 12, 3, margin=0.1)[:2], max_steps=2),
        "max_steps",
    ),
    Bad(
        linear.sample_margin,
        "max_steps 0",
        lambda: linear.sample_margin(_X, _Y, max_steps=0),
        "max_steps",
    ),
    Bad(linear.sample_margin, "tol -1", lambda: linear.sample_margin(_X, _Y, tol=-1.0), "tol"),
    Bad(
        linear.sample_margin,
        "tol a string",
        lambda: linear.sample_margin(_X, _Y, tol="1"),
        "tol",
        TypeError,
    ),
    # check_separable
    Holds(
        linear.check_separable,
        "a separable fit passes",
        lambda: linear.check_separable(_fit(linear.hard_svm())),
        lambda result: None,
    ),
    Bad(
        linear.check_separable,
        "a non-separable fit",
        lambda: linear.check_separable(linear.hard_svm().fit(KEY, *_NON_SEPARABLE)),
        "params",
    ),
    Bad(
        linear.check_separable,
        "not HardSVMParams",
        lambda: linear.check_separable(_fit(linear.soft_svm(0.1, 10))),
        "params",
        TypeError,
    ),
    # hard_svm(fit_intercept=True): UML (15.2), the bias outside the norm
    Bad(
        linear.hard_svm,
        "fit_intercept a string",
        lambda: linear.hard_svm(fit_intercept="yes"),
        "fit_intercept",
        TypeError,
    ),
    Bad(
        linear.hard_svm,
        "fit_intercept, one class",
        lambda: _fit(linear.hard_svm(fit_intercept=True), _X, np.ones(6, np.float32)),
        "y",
    ),
    Bad(
        linear.hard_svm,
        "fit_intercept, labels {0, 1}",
        lambda: _fit(linear.hard_svm(fit_intercept=True), _X, (_Y + 1) / 2),
        "y",
    ),
    Bad(
        linear.hard_svm,
        "fit_intercept, NaN in X",
        lambda: _fit(linear.hard_svm(fit_intercept=True), np.where(_X > 2, np.nan, _X)),
        "X",
    ),
    Same(
        linear.hard_svm,
        "fit_intercept, int X and y",
        lambda: _scores(linear.hard_svm(fit_intercept=True), _XI, _Y.astype(np.int32)),
        lambda: _scores(linear.hard_svm(fit_intercept=True), _X, _Y),
    ),
    Holds(
        linear.hard_svm,
        "fit_intercept, equal points of both labels: flagged, finite",
        lambda: _fit(linear.hard_svm(fit_intercept=True), *_NON_SEPARABLE),
        _not_separable,
    ),
    Bad(
        linear.check_separable,
        "fit_intercept, a non-separable fit",
        lambda: linear.check_separable(_fit(linear.hard_svm(fit_intercept=True), *_NON_SEPARABLE)),
        "params",
    ),
    # kernel_batch_perceptron (the other rows: _LEARNERS above)
    Bad(
        linear.kernel_batch_perceptron,
        "max_epochs 0",
        lambda: linear.kernel_batch_perceptron(_GAUSS, 0),
        "max_epochs",
    ),
    Bad(
        linear.kernel_batch_perceptron,
        "max_epochs 2.5",
        lambda: linear.kernel_batch_perceptron(_GAUSS, 2.5),
        "max_epochs",
        TypeError,
    ),
    Bad(
        linear.kernel_batch_perceptron,
        "kernel not callable",
        lambda: linear.kernel_batch_perceptron(2.0),
        "kernel",
    ),
    Bad(
        linear.kernel_batch_perceptron,
        "kernel of a vector",
        lambda: _fit(linear.kernel_batch_perceptron(lambda x, z: x * z)),
        "kernel",
    ),
    Bad(
        linear.kernel_batch_perceptron,
        "labels {0, 1}",
        lambda: _fit(linear.kernel_batch_perceptron(_GAUSS), _X, (_Y + 1) / 2),
        "y",
    ),
    Holds(
        linear.kernel_batch_perceptron,
        "not separable: converged False, finite",
        lambda: _fit(linear.kernel_batch_perceptron(kernels.linear(), 5), *_NON_SEPARABLE),
        _not_converged,
    ),
    Holds(
        linear.kernel_batch_perceptron,
        "one row",
        lambda: _fit(linear.kernel_batch_perceptron(_GAUSS), _X[:1], _Y[:1]),
        lambda p: np.testing.assert_array_equal(p.alpha, [1.0]),
    ),
    # logistic regression: its probabilities, and sample weights of the wrong shape or sign
    Holds(
        linear.logistic_predict_proba,
        "rows are distributions",
        lambda: linear.logistic_predict_proba(_fit(linear.logistic_regression()), _X),
        lambda p: np.testing.assert_allclose(np.asarray(p).sum(axis=1), 1.0, rtol=1e-6),
    ),
    Bad(
        linear.logistic_predict_proba,
        "one feature too wide",
        lambda: linear.logistic_predict_proba(
            _fit(linear.logistic_regression()), np.c_[_X, _X[:, :1]]
        ),
        "X",
    ),
    Bad(
        linear.logistic_predict_proba,
        "params of another learner",
        lambda: linear.logistic_predict_proba(_fit(linear.ridge(1.0), _X, _T), _X),
        "params",
        TypeError,
    ),
    Bad(
        linear.logistic_regression,
        "sample_weight too short",
        lambda: linear.logistic_regression().fit(KEY, _X, _Y, np.ones(3, np.float32)),
        "sample_weight",
    ),
    Bad(
        linear.logistic_regression,
        "negative sample_weight",
        lambda: linear.logistic_regression().fit(KEY, _X, _Y, -np.ones(6, np.float32)),
        "sample_weight",
    ),
]
