"""Bad input to :mod:`jaxlearn.losses`: losses of one example, cost matrices, the generalized hinge."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import losses as L
from tests.inputs.rows import Bad, Holds, Same

_W = np.array([0.5, -1.0, 0.25], np.float32)
_X = np.array([1.0, 0.0, 2.0], np.float32)
_XI = np.array([1, 0, 2], np.int32)
_XB = np.array([True, False, True])
_TF = np.array([True, False])
_NAN = np.array([np.nan, 0.0, 2.0], np.float32)
_COST = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]], np.float32)


def _psi3(x, label):  # multivector features for 3 classes: x in block `label`
    x = jnp.asarray(x, jnp.float32)
    return (
        (jnp.arange(3, dtype=jnp.int32) == label).astype(x.dtype)[:, None] * x[None, :]
    ).reshape(-1)


_WM = np.linspace(-1.0, 1.0, 9).astype(np.float32)


def _true(condition):
    def check(got):
        assert condition(got), got

    return check


def _example_rows(loss):
    """The rows every loss(w, x, y) shares."""
    return [
        Bad(loss, "w and x of different widths", lambda: loss(_W, _X[:2], 1.0), ("w", "x")),
        Bad(loss, "width mismatch under jit", lambda: jax.jit(loss)(_W, _X[:2], 1.0), ("w", "x")),
        Bad(loss, "a batch of labels", lambda: loss(_W, _X, np.ones(2, np.float32)), "y"),
        Bad(loss, "NaN x", lambda: loss(_W, _NAN, 1.0), "x"),
        Bad(loss, "NaN w", lambda: loss(_NAN, _X, 1.0), "w"),
        Bad(loss, "string x", lambda: loss(_W, "x", 1.0), "x", TypeError),
        Same(
            loss, "int x", lambda: loss(_W, _XI, 1.0), lambda: loss(_W, _XI.astype(np.float32), 1.0)
        ),
        Same(
            loss,
            "bool x, int label",
            lambda: loss(_W, _XB, np.int32(-1)),
            lambda: loss(_W, _XB.astype(np.float32), -1.0),
        ),
        Same(loss, "lists", lambda: loss(_W.tolist(), _X.tolist(), 1), lambda: loss(_W, _X, 1.0)),
        Same(
            loss,
            "int w",
            lambda: loss(np.array([1, -1, 0]), _X, 1.0),
            lambda: loss(np.array([1.0, -1.0, 0.0], np.float32), _X, 1.0),
        ),
        Same(
            loss,
            "gradient with int x",
            lambda: jax.grad(loss)(_W, _XI, 1.0),
            lambda: jax.grad(loss)(_W, _XI.astype(np.float32), 1.0),
        ),
        Same(
            loss,
            "vmapped over examples",
            lambda: jax.vmap(loss, (None, 0, 0))(
                _W, np.stack([_X, -_X]), np.array([1.0, -1.0], np.float32)
            ),
            lambda: jnp.stack([loss(_W, _X, 1.0), loss(_W, -_X, -1.0)]),
        ),
    ]


def _classification_rows(loss):
    return [
        Bad(loss, "label 0", lambda: loss(_W, _X, 0.0), "y"),
        Bad(loss, "label 2", lambda: loss(_W, _X, 2), "y"),
    ]


def _prediction_rows(loss):
    """The rows of the losses of a prediction in [0, 1] against an outcome in [0, 1]."""
    return [
        Bad(loss, "prediction above 1", lambda: loss(1.0, 1.5), "y_hat"),
        Bad(loss, "negative prediction", lambda: loss(1.0, np.array([0.5, -0.1])), "y_hat"),
        Bad(loss, "outcome above 1", lambda: loss(2.0, 0.5), "y"),
        Bad(loss, "NaN prediction", lambda: loss(0.0, float("nan")), "y_hat"),
        Bad(
            loss, "shapes do not broadcast", lambda: loss(np.zeros(2), np.zeros(3)), ("y", "y_hat")
        ),
        Bad(loss, "string prediction", lambda: loss(1.0, "0.5"), "y_hat", TypeError),
        Same(
            loss,
            "int outcome",
            lambda: loss(np.int32(1), np.array([0.25, 0.5], np.float32)),
            lambda: loss(1.0, np.array([0.25, 0.5], np.float32)),
        ),
        Same(
            loss,
            "bool outcome, bool advice",
            lambda: loss(_TF, _TF),
            lambda: loss(_TF.astype(np.float32), _TF.astype(np.float32)),
        ),
        Same(
            loss,
            "list advice",
            lambda: loss(0.0, [0.25, 0.5]),
            lambda: loss(0.0, np.array([0.25, 0.5])),
        ),
    ]


_EXAMPLE_LOSSES = (L.zero_one, L.hinge, L.ramp, L.logistic, L.squared, L.absolute)

ROWS = [
    *[row for loss in _EXAMPLE_LOSSES for row in _example_rows(loss)],
    *[
        row
        for loss in (L.zero_one, L.hinge, L.ramp, L.logistic)
        for row in _classification_rows(loss)
    ],
    Holds(
        L.ramp,
        "a huge wrong margin costs 1, as 0-1",
        lambda: L.ramp(np.array([1e30, 0, 0], np.float32), _X, -1.0),
        _true(lambda v: float(v) == 1.0),
    ),
    Holds(
        L.logistic,
        "huge margin: finite",
        lambda: L.logistic(np.array([1e30, 0, 0], np.float32), _X, -1.0),
        _true(lambda v: np.isfinite(v) and float(v) > 1e29),
    ),
    Holds(
        L.squared,
        "real-valued target",
        lambda: L.squared(_W, _X, 3.5),
        _true(lambda v: float(v) == 6.25),
    ),
    Holds(
        L.absolute,
        "negative target",
        lambda: L.absolute(_W, _X, -2),
        _true(lambda v: float(v) == 3.0),
    ),
    # predictions in [0, 1]
    *_prediction_rows(L.entropic),
    *_prediction_rows(L.square),
    Holds(
        L.entropic,
        "contradicted certainty is inf, not NaN",
        lambda: L.entropic(1.0, 0.0),
        _true(lambda v: float(v) == np.inf),
    ),
    Holds(
        L.entropic,
        "agreed certainty is 0",
        lambda: L.entropic(np.array([0.0, 1.0]), np.array([0.0, 1.0])),
        _true(lambda v: np.array_equal(v, [0.0, 0.0])),
    ),
    Holds(L.square, "ends of [0, 1]", lambda: L.square(0.0, 1.0), _true(lambda v: float(v) == 1.0)),
    # cost matrices
    Bad(L.zero_one_cost, "one class", lambda: L.zero_one_cost(1), "num_classes"),
    Bad(
        L.zero_one_cost, "float num_classes", lambda: L.zero_one_cost(3.0), "num_classes", TypeError
    ),
    Bad(L.zero_one_cost, "None", lambda: L.zero_one_cost(None), "num_classes", TypeError),
    Bad(L.zero_one_cost, "int dtype", lambda: L.zero_one_cost(3, jnp.int32), "dtype"),
    Bad(L.zero_one_cost, "not a dtype", lambda: L.zero_one_cost(3, "floaty"), "dtype", TypeError),
    Same(
        L.zero_one_cost, "numpy int", lambda: L.zero_one_cost(np.int64(2)), lambda: 1 - jnp.eye(2)
    ),
    Bad(
        L.check_cost_matrix, "wrong shape", lambda: L.check_cost_matrix(np.ones((3, 2)), 3), "delta"
    ),
    Bad(
        L.check_cost_matrix,
        "nonzero diagonal",
        lambda: L.check_cost_matrix(np.ones((3, 3)), 3),
        "delta",
    ),
    Bad(L.check_cost_matrix, "negative cost", lambda: L.check_cost_matrix(-_COST, 3), "delta"),
    Bad(
        L.check_cost_matrix,
        "NaN cost",
        lambda: L.check_cost_matrix(np.where(_COST == 2, np.nan, _COST), 3),
        "delta",
    ),
    Bad(L.check_cost_matrix, "num_classes 0", lambda: L.check_cost_matrix(_COST, 0), "num_classes"),
    Bad(
        L.check_cost_matrix,
        "string delta",
        lambda: L.check_cost_matrix("zero-one", 3),
        "delta",
        TypeError,
    ),
    Holds(
        L.check_cost_matrix,
        "int list",
        lambda: L.check_cost_matrix([[0, 1], [1, 0]], 2),
        _true(lambda v: v is None),
    ),
    Holds(
        L.check_cost_matrix,
        "traced delta: shape only",
        lambda: jax.jit(lambda d: L.check_cost_matrix(d, 3) or d.sum())(-_COST),
        _true(lambda v: float(v) == -8.0),
    ),
    # generalized hinge
    Bad(
        L.generalized_hinge,
        "no delta, no num_classes",
        lambda: L.generalized_hinge(_WM, _psi3, _X, 0),
        "num_classes",
    ),
    Bad(
        L.generalized_hinge,
        "num_classes 1",
        lambda: L.generalized_hinge(_WM, _psi3, _X, 0, num_classes=1),
        "num_classes",
    ),
    Bad(
        L.generalized_hinge,
        "delta and num_classes disagree",
        lambda: L.generalized_hinge(_WM, _psi3, _X, 0, _COST, num_classes=2),
        ("delta", "num_classes"),
    ),
    Bad(
        L.generalized_hinge,
        "bad delta",
        lambda: L.generalized_hinge(_WM, _psi3, _X, 0, -_COST),
        "delta",
    ),
    Bad(
        L.generalized_hinge,
        "label out of range",
        lambda: L.generalized_hinge(_WM, _psi3, _X, 3, _COST),
        "y",
    ),
    Bad(
        L.generalized_hinge,
        "a batch of labels",
        lambda: L.generalized_hinge(_WM, _psi3, _X, np.zeros(2, np.int32), _COST),
        "y",
    ),
    Bad(
        L.generalized_hinge,
        "psi not a function",
        lambda: L.generalized_hinge(_WM, "psi", _X, 0, _COST),
        "psi",
        TypeError,
    ),
    Bad(
        L.generalized_hinge,
        "w of another width than psi",
        lambda: L.generalized_hinge(_WM[:5], _psi3, _X, 0, _COST),
        ("w", "psi"),
    ),
    Bad(
        L.generalized_hinge,
        "NaN w",
        lambda: L.generalized_hinge(np.where(_WM > 0.7, np.nan, _WM), _psi3, _X, 0, _COST),
        "w",
    ),
    Same(
        L.generalized_hinge,
        "int w, float label, int cost list",
        lambda: L.generalized_hinge(
            np.arange(9) - 4, _psi3, _X, 1.0, [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
        ),
        lambda: L.generalized_hinge(np.arange(9, dtype=np.float32) - 4, _psi3, _X, 1, _COST),
    ),
    Same(
        L.generalized_hinge,
        "num_classes matching delta",
        lambda: L.generalized_hinge(_WM, _psi3, _X, 2, _COST, num_classes=3),
        lambda: L.generalized_hinge(_WM, _psi3, _X, 2, _COST),
    ),
    Same(
        L.generalized_hinge,
        "vmapped over labels",
        lambda: jax.vmap(lambda y: L.generalized_hinge(_WM, _psi3, _X, y, num_classes=3))(
            jnp.arange(3)
        ),
        lambda: jnp.stack(
            [L.generalized_hinge(_WM, _psi3, _X, y, num_classes=3) for y in range(3)]
        ),
    ),
]
