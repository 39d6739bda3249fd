"""Bad and unusual input to ``jaxlearn.online``: the projections, ``best_fixed_predictor`` and the cases
of the learners the generic suite does not see (dtypes of the weights, hyperparameter ranges, OGD's
divergence flag, one-example ``update`` checks)."""

import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, losses, online
from tests.inputs.rows import Bad, Holds, Same

_X = np.array(
    [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
    np.float32,
)
_Y = np.array([-1.0, 1.0, 1.0, -1.0, -1.0], np.float32)
_B = np.array([0, 1, 1, 0, 1], np.int32)  # {0, 1} labels of Winnow, conjunctions, decision lists
_R = np.array([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5], [-1.0, 2.0, 1.0], [2.0, 1.0, 0.5]], np.float32)
_RY = np.array([1.0, -1.0, 1.0, -1.0], np.float32)


def _final(learner, X, y, field="w", **init):
    """The state field ``field`` after a run of ``learner`` over ``(X, y)`` from ``init(X[0])``."""
    state = learner.init(np.asarray(X[0], np.float32))
    return getattr(core.run(learner, state, X, y)[0], field)


def _factory(factory, *args, **kwargs):
    return lambda: factory(*args, **kwargs)


def _is_float_weights(w):
    assert jnp.issubdtype(w.dtype, jnp.floating), f"integer weights {w.dtype}"
    assert np.isfinite(np.asarray(w)).all()


_P = online.perceptron(0.5)
_W = online.winnow(2.0)
_C = online.conjunction(3)
_SQ = online.online_gradient_descent(losses.squared, 1e6)
_KP = online.kernel_perceptron(lambda a, b: a @ b, 4)
_OGD = online.online_gradient_descent(losses.hinge, 0.1)
_DL = online.decision_list(3)
_OGD_X = np.tile(_R, (5, 1))
_OGD_Y = np.tile(_RY, 5)


def _diverging_run():
    with pytest.warns(RuntimeWarning, match="diverged"):
        return core.run(_SQ, _SQ.init(_R[0]), _OGD_X, _OGD_Y)[0]


def _check_diverged(state):
    assert np.isfinite(np.asarray(state.w)).all(), "non-finite weights kept"
    assert bool(state.diverged), "divergence not flagged"


def _check_not_diverged(state):
    assert np.isfinite(np.asarray(state.w)).all() and not bool(state.diverged)


def _check_ball(w):
    assert float(jnp.linalg.norm(w)) <= 2.0 + 1e-5


ROWS = [
    # --- perceptron: the state is float whatever x is ----------------------------------------------
    Same(
        online.perceptron,
        "bool X gives the weights of its 0/1 floats (label -1 not cast to True)",
        lambda: _final(_P, _X.astype(bool), _Y),
        lambda: _final(_P, _X, _Y),
    ),
    Same(
        online.perceptron,
        "int X with eta 0.5 (the rate is not truncated)",
        lambda: _final(_P, _R.astype(np.int32), _RY),
        lambda: _final(_P, _R.astype(np.int32).astype(np.float32), _RY),
    ),
    Same(
        online.perceptron,
        "int X, round by round (no block rule)",
        lambda: _P.update(_P.init(_X[0].astype(np.int32)), _X[1].astype(np.int32), 1)[0].w,
        lambda: _P.update(_P.init(_X[0]), _X[1], 1.0)[0].w,
    ),
    Holds(
        online.perceptron,
        "int X: float weights",
        lambda: _P.init(np.array([1, 2], np.int32)).w,
        _is_float_weights,
    ),
    Same(
        online.perceptron,
        "int eta equals the float eta",
        lambda: _final(online.perceptron(2), _R, _RY),
        lambda: _final(online.perceptron(2.0), _R, _RY),
    ),
    Same(
        online.perceptron,
        "normalize with int X",
        lambda: _final(online.perceptron(normalize=True), _R.astype(np.int32), _RY),
        lambda: _final(
            online.perceptron(normalize=True), _R.astype(np.int32).astype(np.float32), _RY
        ),
    ),
    Bad(online.perceptron, "eta -1", _factory(online.perceptron, -1), "eta"),
    Bad(online.perceptron, "eta 0", _factory(online.perceptron, 0.0), "eta"),
    Bad(online.perceptron, "eta a string", _factory(online.perceptron, "1"), "eta", TypeError),
    Bad(
        online.perceptron,
        "eager update, label 0",
        lambda: _P.update(_P.init(_X[0]), _X[0], 0.0),
        "y",
    ),
    Bad(
        online.perceptron,
        "eager update, NaN label",
        lambda: _P.update(_P.init(_X[0]), _X[0], np.nan),
        "y",
    ),
    Bad(
        online.perceptron,
        "eager update, x a matrix",
        lambda: _P.update(_P.init(_X[0]), _X[:2], 1.0),
        "x",
    ),
    Bad(online.perceptron, "init from a matrix", lambda: _P.init(_X), "example_x"),
    Same(
        online.margin_perceptron,
        "int X",
        lambda: _final(online.margin_perceptron(0.2), _R.astype(np.int32), _RY),
        lambda: _final(online.margin_perceptron(0.2), _R.astype(np.int32).astype(np.float32), _RY),
    ),
    Bad(online.margin_perceptron, "gamma 0", _factory(online.margin_perceptron, 0.0), "gamma"),
    Bad(
        online.margin_perceptron,
        "gamma above 1 (unit examples)",
        _factory(online.margin_perceptron, 1.5),
        "gamma",
    ),
    Bad(
        online.kernel_perceptron,
        "budget 0",
        lambda: online.kernel_perceptron(lambda a, b: a @ b, 0),
        "budget",
    ),
    Bad(
        online.kernel_perceptron,
        "budget 2.5",
        lambda: online.kernel_perceptron(lambda a, b: a @ b, 2.5),
        "budget",
        TypeError,
    ),
    # --- labels: one scalar per round (a column (T, 1) ran, or failed inside JAX) ------------------
    Bad(
        online.kernel_perceptron,
        "run, ys a column (T, 1)",
        lambda: core.run(_KP, _KP.init(_X[0]), _X, _Y[:, None]),
        "ys",
    ),
    Bad(
        online.kernel_perceptron,
        "eager update, y of shape (1,)",
        lambda: _KP.update(_KP.init(_X[0]), _X[0], _Y[:1]),
        "y",
    ),
    Bad(
        online.perceptron,
        "eager update, y of shape (1,)",
        lambda: _P.update(_P.init(_X[0]), _X[0], _Y[:1]),
        "y",
    ),
    Bad(
        online.online_gradient_descent,
        "run, ys a column (T, 1)",
        lambda: core.run(_OGD, _OGD.init(_R[0]), _R, _RY[:, None]),
        "ys",
    ),
    Bad(
        online.winnow,
        "run, ys a column (T, 1)",
        lambda: core.run(_W, _W.init(_X[0]), _X, _B[:, None]),
        "ys",
    ),
    Bad(
        online.conjunction,
        "run, ys a column (T, 1)",
        lambda: core.run(_C, _C.init(_X[0]), _X, _B[:, None]),
        "ys",
    ),
    Bad(
        online.decision_list,
        "run, ys a column (T, 1)",
        lambda: core.run(_DL, _DL.init(_X[0]), _X, _B[:, None]),
        "ys",
    ),
    # --- the state of an eager update: what init builds, finite, counters >= 0 ------------------------
    Bad(
        online.perceptron,
        "eager update, int32 w",
        lambda: _P.update(_P.init(_X[0])._replace(w=jnp.zeros(3, jnp.int32)), _X[0], 1.0),
        "state",
    ),
    Bad(
        online.perceptron,
        "eager update, NaN in w",
        lambda: _P.update(_P.init(_X[0])._replace(w=jnp.full(3, jnp.nan)), _X[0], 1.0),
        "state",
    ),
    Bad(
        online.kernel_perceptron,
        "eager update, count -1",
        lambda: _KP.update(_KP.init(_X[0])._replace(count=jnp.int32(-1)), _X[0], 1.0),
        "state",
    ),
    Bad(
        online.winnow,
        "eager update, step -5",
        lambda: _W.update(_W.init(_X[0])._replace(step=jnp.int32(-5)), _X[0], 1),
        "state",
    ),
    Bad(
        online.online_gradient_descent,
        "run, int32 w",
        lambda: core.run(_OGD, _OGD.init(_R[0])._replace(w=jnp.zeros(3, jnp.int32)), _R, _RY),
        "state",
    ),
    # --- Winnow, conjunctions, decision lists over {0,1}^n -----------------------------------------
    Bad(online.winnow, "eta 0.5 (a demotion as promotion)", _factory(online.winnow, 0.5), "eta"),
    Bad(online.winnow, "eta 1", _factory(online.winnow, 1.0), "eta"),
    Bad(online.winnow, "threshold -1", _factory(online.winnow, 2.0, -1.0), "threshold"),
    Same(
        online.winnow,
        "bool X",
        lambda: _final(_W, _X.astype(bool), _B, "log_w"),
        lambda: _final(_W, _X, _B, "log_w"),
    ),
    Same(
        online.winnow,
        "int threshold",
        lambda: _final(online.winnow(2.0, 2), _X, _B, "log_w"),
        lambda: _final(online.winnow(2.0, 2.0), _X, _B, "log_w"),
    ),
    Bad(online.winnow, "eager update, label -1", lambda: _W.update(_W.init(_X[0]), _X[0], -1), "y"),
    Bad(
        online.winnow,
        "eager update, x not in {0, 1}",
        lambda: _W.update(_W.init(_X[0]), _X[0] * 0.5, 1),
        "x",
    ),
    Bad(online.conjunction, "n 0", _factory(online.conjunction, 0), "n"),
    Bad(online.conjunction, "n 2.5", _factory(online.conjunction, 2.5), "n", TypeError),
    Same(
        online.conjunction,
        "bool X",
        lambda: _final(_C, _X.astype(bool), _B, "literals"),
        lambda: _final(_C, _X, _B, "literals"),
    ),
    Bad(
        online.conjunction,
        "eager update, label 2",
        lambda: _C.update(_C.init(_X[0]), _X[0], 2),
        "y",
    ),
    Bad(online.decision_list, "n True", _factory(online.decision_list, True), "n", TypeError),
    Same(
        online.decision_list,
        "bool X",
        lambda: _final(online.decision_list(3), _X.astype(bool), _B, "level"),
        lambda: _final(online.decision_list(3), _X, _B, "level"),
    ),
    # --- OGD: divergence is flagged, the last finite iterate kept -----------------------------------
    Holds(
        online.online_gradient_descent,
        "squared loss, eta 1e6: finite weights, diverged set",
        _diverging_run,
        _check_diverged,
    ),
    Holds(
        online.online_gradient_descent,
        "squared loss, eta 0.01: not diverged",
        lambda: core.run(
            online.online_gradient_descent(losses.squared, 0.01), _SQ.init(_R[0]), _OGD_X, _OGD_Y
        )[0],
        _check_not_diverged,
    ),
    Bad(
        online.online_gradient_descent,
        "eta -1",
        lambda: online.online_gradient_descent(losses.hinge, -1.0),
        "eta",
    ),
    Bad(
        online.online_gradient_descent,
        "learning_rate inf (alias)",
        lambda: online.online_gradient_descent(losses.hinge, learning_rate=np.inf),
        "eta",
    ),
    Same(
        online.online_gradient_descent,
        "int X",
        lambda: _final(online.online_gradient_descent(losses.hinge, 0.5), _R.astype(np.int32), _RY),
        lambda: _final(
            online.online_gradient_descent(losses.hinge, 0.5),
            _R.astype(np.int32).astype(np.float32),
            _RY,
        ),
    ),
    # --- best_fixed_predictor ---------------------------------------------------------------------
    Bad(
        online.best_fixed_predictor,
        "1-D X",
        lambda: online.best_fixed_predictor(losses.hinge, _R[0], _RY[:1]),
        "X",
    ),
    Bad(
        online.best_fixed_predictor,
        "NaN in X",
        lambda: online.best_fixed_predictor(losses.hinge, np.where(_R > 1.5, np.nan, _R), _RY),
        "X",
    ),
    Bad(
        online.best_fixed_predictor,
        "inf in y",
        lambda: online.best_fixed_predictor(losses.squared, _R, np.where(_RY > 0, np.inf, _RY)),
        "y",
    ),
    Bad(
        online.best_fixed_predictor,
        "lengths differ",
        lambda: online.best_fixed_predictor(losses.hinge, _R, _RY[:3]),
        ("X", "y"),
    ),
    Bad(
        online.best_fixed_predictor,
        "empty sample",
        lambda: online.best_fixed_predictor(losses.hinge, _R[:0], _RY[:0]),
        "X",
    ),
    Bad(
        online.best_fixed_predictor,
        "steps 0",
        lambda: online.best_fixed_predictor(losses.hinge, _R, _RY, steps=0),
        "steps",
    ),
    Bad(
        online.best_fixed_predictor,
        "steps 2.5",
        lambda: online.best_fixed_predictor(losses.hinge, _R, _RY, steps=2.5),
        "steps",
        TypeError,
    ),
    Bad(
        online.best_fixed_predictor,
        "eta -1",
        lambda: online.best_fixed_predictor(losses.hinge, _R, _RY, eta=-1.0),
        "eta",
    ),
    Bad(
        online.best_fixed_predictor,
        "learning_rate NaN",
        lambda: online.best_fixed_predictor(losses.hinge, _R, _RY, learning_rate=np.nan),
        "learning_rate",
    ),
    Same(
        online.best_fixed_predictor,
        "lists",
        lambda: online.best_fixed_predictor(losses.hinge, _R.tolist(), _RY.tolist(), steps=20),
        lambda: online.best_fixed_predictor(losses.hinge, _R, _RY, steps=20),
    ),
    Same(
        online.best_fixed_predictor,
        "int X and y",
        lambda: online.best_fixed_predictor(
            losses.squared, _R.astype(np.int32), _RY.astype(np.int32), steps=20
        ),
        lambda: online.best_fixed_predictor(
            losses.squared, _R.astype(np.int32).astype(np.float32), _RY, steps=20
        ),
    ),
    # --- projections --------------------------------------------------------------------------------
    Bad(online.l2_ball, "radius -1", lambda: online.l2_ball(-1.0), "radius"),
    Bad(online.l2_ball, "radius 0 (0/0 at w = 0)", lambda: online.l2_ball(0.0), "radius"),
    Bad(online.l2_ball, "radius NaN", lambda: online.l2_ball(np.nan), "radius"),
    Bad(online.l2_ball, "radius a string", lambda: online.l2_ball("2"), "radius", TypeError),
    Same(
        online.l2_ball,
        "int radius",
        lambda: online.l2_ball(2)(jnp.array([3.0, 4.0])),
        lambda: online.l2_ball(2.0)(jnp.array([3.0, 4.0])),
    ),
    Holds(
        online.l2_ball,
        "projects into the ball",
        lambda: online.l2_ball(2.0)(jnp.array([30.0, -40.0])),
        _check_ball,
    ),
    Bad(online.box, "lo above hi", lambda: online.box(1.0, -1.0), ("lo", "hi")),
    Bad(online.box, "NaN bound", lambda: online.box(np.nan, 1.0), "lo"),
    Bad(online.box, "hi a string", lambda: online.box(0.0, "1"), "hi", TypeError),
    Bad(
        online.box,
        "shapes do not broadcast",
        lambda: online.box(np.zeros(2), np.ones(3)),
        ("lo", "hi"),
    ),
    Same(
        online.box,
        "int and list bounds",
        lambda: online.box([-1, 0], 1)(jnp.array([-3.0, 3.0])),
        lambda: online.box(np.array([-1.0, 0.0]), 1.0)(jnp.array([-3.0, 3.0])),
    ),
    Same(
        online.box,
        "infinite bounds: the identity",
        lambda: online.box(-np.inf, np.inf)(jnp.array([-3.0, 3.0])),
        lambda: jnp.array([-3.0, 3.0]),
    ),
    Bad(online.simplex, "scale 0", lambda: online.simplex(0.0), "scale"),
    Bad(online.simplex, "scale -1", lambda: online.simplex(-1.0), "scale"),
    Bad(online.simplex, "scale NaN", lambda: online.simplex(np.nan), "scale"),
    Bad(online.simplex, "scale a string", lambda: online.simplex("1"), "scale", TypeError),
    Same(
        online.simplex,
        "int scale, int-valued point",
        lambda: online.simplex(2)(jnp.array([3.0, 1.0, -4.0])),
        lambda: online.simplex(2.0)(jnp.array([3.0, 1.0, -4.0])),
    ),
    Holds(
        online.simplex,
        "huge coordinates: onto the simplex",
        lambda: online.simplex(1.0)(jnp.array([3e30, -4e30, 1.0])),
        lambda w: np.testing.assert_allclose(np.asarray(w), [1.0, 0.0, 0.0]),
    ),
    # --- fit_intercept, online.standardize, core.pipeline -----------------------------------------
    Same(
        online.perceptron,
        "fit_intercept with int X",
        lambda: _final(online.perceptron(0.5, fit_intercept=True), _R.astype(np.int32), _RY, "b"),
        lambda: _final(
            online.perceptron(0.5, fit_intercept=True),
            _R.astype(np.int32).astype(np.float32),
            _RY,
            "b",
        ),
    ),
    Same(
        online.standardize,
        "bool X gives the statistics of its 0/1 floats",
        lambda: _standardized(_X.astype(bool)),
        lambda: _standardized(_X),
    ),
    Holds(
        online.standardize,
        "a constant feature maps to 0, not NaN",
        lambda: _standardized(np.ones((4, 3))),
        lambda z: np.testing.assert_array_equal(np.asarray(z), 0.0),
    ),
    Bad(
        online.standardize, "init from a matrix", lambda: online.standardize().init(_X), "example_x"
    ),
    Bad(
        online.standardize,
        "apply to the wrong width",
        lambda: _S.apply(_S.init(_X[0]), _X[0, :2]),
        "x",
    ),
    Bad(
        online.standardize,
        "pipeline ending in a transform",
        lambda: core.pipeline(online.perceptron(), online.standardize()),
        (),
        TypeError,
    ),
    Bad(
        online.standardize,
        "pipeline with a learner in front",
        lambda: core.pipeline(online.perceptron(), online.perceptron()),
        (),
        TypeError,
    ),
]


_S = online.standardize()


def _standardized(X):
    """``x_4`` standardised with the statistics of the rows before it."""
    state = _S.init(X[0])
    for x in X[:3]:  # three observations, a loop over rows of a test input
        state = _S.observe(state, x)
    return _S.apply(state, X[3])
