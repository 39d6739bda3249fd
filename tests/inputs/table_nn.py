"""Bad and unusual input to ``jaxlearn.nn``: activations, losses, ``mlp_init``/``mlp_apply``, ``backprop``,
``train``, the Boolean networks and ``mlp_classifier`` (the generic suite covers its conformance row)."""

import functools
import warnings

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxlearn import core, nn
from tests.inputs.rows import Bad, Holds, Same

_X = np.array(
    [
        [0.5, -1.0, 2.0],
        [1.0, 0.0, -0.5],
        [-1.5, 1.0, 0.5],
        [0.0, 2.0, 1.0],
        [1.0, 1.0, 1.0],
        [-1.0, -2.0, 0.0],
    ],
    np.float32,
)
_XI = np.round(2 * _X).astype(np.int32)  # integer features, and their float values below
_XF = _XI.astype(np.float32)
_LAB = np.array([0, 1, 1, 0, 1, 0], np.int32)
_T = _X @ np.array([[1.0], [-0.5], [0.25]], np.float32)  # squared-loss targets (6, 1)
_KEY = jax.random.PRNGKey(0)
_ADAM = optax.adam(0.05)  # one optimiser object: the rows share train's compiled program
_SGD100 = optax.sgd(100.0)
_A = np.array([-2.0, -1.0, 0.0, 1.0, 3.0], np.float32)
_AI = _A.astype(np.int32)


@functools.lru_cache(maxsize=None)
def _net(*sizes):
    return nn.mlp_init(_KEY, list(sizes))


def _nan(a, where=(1, 0)):
    a = np.array(a, np.float32)
    a[where] = np.nan
    return a


def _assert(condition, what="check failed"):
    if not condition:
        raise AssertionError(what)


# --- activations and losses -------------------------------------------------------------------------

ACTIVATIONS = (nn.sigmoid, nn.tanh, nn.relu, nn.identity, nn.softmax, nn.sign)
ROWS = []
for _f in ACTIVATIONS:
    ROWS += [
        Same(
            _f,
            "int array = float array",
            functools.partial(_f, _AI),
            functools.partial(_f, _AI.astype(np.float32)),
        ),
        Same(_f, "list = array", functools.partial(_f, _A.tolist()), functools.partial(_f, _A)),
        Same(
            _f,
            "bool array = 0/1 floats",
            functools.partial(_f, _A > 0),
            functools.partial(_f, (_A > 0).astype(np.float32)),
        ),
        Bad(_f, "strings", functools.partial(_f, np.array(["a", "b"])), "a", TypeError),
        Holds(
            _f,
            "float result for int input",
            functools.partial(_f, np.array([3, 1])),
            lambda r: _assert(jnp.issubdtype(r.dtype, jnp.floating), f"dtype {r.dtype}"),
        ),
    ]

ROWS += [
    Holds(
        nn.sigmoid,
        "extreme inputs stay in [0, 1]",
        lambda: nn.sigmoid(np.array([-1e4, 1e4], np.float32)),
        lambda r: np.testing.assert_array_equal(r, [0.0, 1.0]),
    ),
    Holds(
        nn.softmax,
        "extreme logits: finite, normalised",
        lambda: nn.softmax(np.array([1e4, -1e4, 0.0], np.float32)),
        lambda r: np.testing.assert_allclose(r, [1.0, 0.0, 0.0]),
    ),
    Bad(nn.softmax, "a scalar", lambda: nn.softmax(1.0), "a"),
    Holds(
        nn.sign,
        "sign(0) = -1 (the library's convention)",
        lambda: nn.sign(np.zeros(2)),
        lambda r: np.testing.assert_array_equal(r, [-1.0, -1.0]),
    ),
    Same(
        nn.squared_loss,
        "int arrays",
        lambda: nn.squared_loss(_AI, _AI[::-1]),
        lambda: nn.squared_loss(_AI.astype(np.float32), _AI[::-1].astype(np.float32)),
    ),
    Same(
        nn.squared_loss,
        "lists",
        lambda: nn.squared_loss(_A.tolist(), [0.0] * 5),
        lambda: nn.squared_loss(_A, np.zeros(5)),
    ),
    Bad(
        nn.squared_loss,
        "shapes differ (no broadcasting)",
        lambda: nn.squared_loss(np.ones(3), np.ones(2)),
        ("output", "y"),
    ),
    Bad(
        nn.squared_loss,
        "(1,) against a scalar",
        lambda: nn.squared_loss(np.ones(1), 1.0),
        ("output", "y"),
    ),
    Bad(
        nn.squared_loss,
        "NaN output",
        lambda: nn.squared_loss(_nan(np.ones(3), 1), np.ones(3)),
        "output",
    ),
    Bad(
        nn.squared_loss,
        "inf target",
        lambda: nn.squared_loss(np.ones(3), np.array([1.0, np.inf, 0.0])),
        "y",
    ),
    Bad(
        nn.squared_loss,
        "strings",
        lambda: nn.squared_loss(np.ones(1), np.array(["a"])),
        "y",
        TypeError,
    ),
    Same(
        nn.cross_entropy,
        "float label 1.0 = int 1",
        lambda: nn.cross_entropy(_A, 1.0),
        lambda: nn.cross_entropy(_A, 1),
    ),
    Same(
        nn.cross_entropy,
        "bool label = int",
        lambda: nn.cross_entropy(_A, True),
        lambda: nn.cross_entropy(_A, 1),
    ),
    Same(
        nn.cross_entropy,
        "int logits",
        lambda: nn.cross_entropy(_AI, 2),
        lambda: nn.cross_entropy(_AI.astype(np.float32), 2),
    ),
    Holds(
        nn.cross_entropy,
        "extreme logits stay finite",
        lambda: nn.cross_entropy(np.array([1e4, -1e4], np.float32), 0),
        lambda r: np.testing.assert_allclose(r, 0.0),
    ),
    Bad(nn.cross_entropy, "label k (outside 0..k-1)", lambda: nn.cross_entropy(_A, 5), "label"),
    Bad(nn.cross_entropy, "label -1", lambda: nn.cross_entropy(_A, -1), "label"),
    Bad(nn.cross_entropy, "label 0.5", lambda: nn.cross_entropy(_A, 0.5), "label"),
    Bad(
        nn.cross_entropy,
        "a vector of labels",
        lambda: nn.cross_entropy(_A, np.array([0, 1])),
        "label",
    ),
    Bad(nn.cross_entropy, "2-D logits", lambda: nn.cross_entropy(np.ones((2, 3)), 0), "logits"),
    Bad(nn.cross_entropy, "NaN logits", lambda: nn.cross_entropy(_nan(_A, 1), 0), "logits"),
    Holds(
        nn.cross_entropy,
        "traced label under jit (no value check)",
        lambda: jax.jit(nn.cross_entropy)(_A, jnp.int32(1)),
        lambda r: np.testing.assert_allclose(r, nn.cross_entropy(_A, 1)),
    ),
]

# --- mlp_init, mlp_apply, backprop ------------------------------------------------------------------


def _apply(params=None, x=_X[0], **kwargs):
    return lambda: nn.mlp_apply(_net(3, 4, 2) if params is None else params, x, **kwargs)


_P = lambda: _net(3, 4, 2)  # noqa: E731
_BAD_CHAIN = lambda: [_P()[0], (np.ones((2, 5), np.float32), np.zeros(2, np.float32))]  # noqa: E731


def _epoch(X=None, y=None, **kwargs):
    X = np.ones((6, 3), np.float32) if X is None else X
    y = np.array([0, 1] * 3) if y is None else y
    return lambda: nn.mlp_epoch(_KEY, _net(3, 4, 2), None, X, y, **kwargs)


ROWS += [
    Bad(nn.mlp_epoch, "eta 0", _epoch(eta=0.0), "eta"),
    Bad(nn.mlp_epoch, "weight_decay -1", _epoch(weight_decay=-1.0), "weight_decay"),
    Bad(nn.mlp_epoch, "batch_size 0", _epoch(batch_size=0), "batch_size"),
    Bad(nn.mlp_epoch, "an unknown optimizer", _epoch(optimizer="lbfgs"), "optimizer"),
    Bad(nn.mlp_epoch, "a label beyond the output layer", _epoch(y=np.array([0, 1, 2] * 2)), "y"),
    Bad(nn.mlp_epoch, "NaN in X", _epoch(X=np.full((6, 3), np.nan, np.float32)), "X"),
    Bad(nn.mlp_epoch, "X of another width", _epoch(X=np.ones((6, 5), np.float32)), "X"),
    Bad(nn.mlp_epoch, "y of another length", _epoch(y=np.array([0, 1])), ("X", "y")),
]


def _fit(X=None, y=None, **kwargs):
    X = np.ones((6, 3), np.float32) if X is None else X
    y = np.array([0, 1] * 3) if y is None else y
    return lambda: nn.mlp_fit(_KEY, _net(3, 4, 2), X, y, max_epochs=3, **kwargs)


ROWS += [
    Bad(nn.mlp_fit, "eta 0", _fit(eta=0.0), "eta"),
    Bad(nn.mlp_fit, "alpha -1", _fit(alpha=-1.0), "alpha"),
    Bad(nn.mlp_fit, "tol -1", _fit(tol=-1.0), "tol"),
    Bad(nn.mlp_fit, "beta_1 1", _fit(beta_1=1.0), "beta_1"),
    Bad(nn.mlp_fit, "batch_size 0", _fit(batch_size=0), "batch_size"),
    Bad(nn.mlp_fit, "an unknown optimizer", _fit(optimizer="newton"), "optimizer"),
    Bad(nn.mlp_fit, "NaN in X", _fit(X=np.full((6, 3), np.nan, np.float32)), "X"),
    Bad(nn.mlp_fit, "X of another width", _fit(X=np.ones((6, 5), np.float32)), "X"),
    Bad(nn.mlp_fit, "a label beyond the output layer", _fit(y=np.array([0, 1, 2] * 2)), "y"),
    Bad(nn.mlp_fit, "a negative weight", _fit(sample_weight=-np.ones(6)), "sample_weight"),
    Bad(nn.mlp_fit, "weights of another length", _fit(sample_weight=np.ones(3)), "sample_weight"),
    Holds(
        nn.mlp_fit,
        "every weight 0 but one: a finite fit",
        _fit(sample_weight=np.r_[1.0, np.zeros(5)]),
        lambda fit: _assert(bool(np.isfinite(np.asarray(fit.loss_curve[0])))),
    ),
    Bad(nn.glorot_init, "one size", lambda: nn.glorot_init(_KEY, [4]), "layer_sizes"),
    Bad(nn.glorot_init, "factor 0", lambda: nn.glorot_init(_KEY, [3, 2], factor=0.0), "factor"),
    Bad(nn.scaled_adam, "epsilon 0", lambda: nn.scaled_adam(0.1, 0.9, 0.999, 0.0), "epsilon"),
    Bad(nn.scaled_adam, "beta_2 1", lambda: nn.scaled_adam(0.1, 0.9, 1.0, 1e-8), "beta_2"),
]

ROWS += [
    Bad(nn.mlp_init, "one size", lambda: nn.mlp_init(_KEY, [4]), "layer_sizes"),
    Bad(nn.mlp_init, "a zero width", lambda: nn.mlp_init(_KEY, [4, 0, 3]), "layer_sizes"),
    Bad(nn.mlp_init, "a float size", lambda: nn.mlp_init(_KEY, [4.5, 3]), "layer_sizes", TypeError),
    Bad(nn.mlp_init, "a bool size", lambda: nn.mlp_init(_KEY, [4, True]), "layer_sizes", TypeError),
    Bad(
        nn.mlp_init,
        "an int, not a sequence",
        lambda: nn.mlp_init(_KEY, 4),
        "layer_sizes",
        TypeError,
    ),
    Bad(nn.mlp_init, "scale 0", lambda: nn.mlp_init(_KEY, [3, 2], scale=0.0), "scale"),
    Bad(nn.mlp_init, "scale -1", lambda: nn.mlp_init(_KEY, [3, 2], scale=-1.0), "scale"),
    Bad(nn.mlp_init, "scale NaN", lambda: nn.mlp_init(_KEY, [3, 2], scale=float("nan")), "scale"),
    Bad(
        nn.mlp_init,
        "scale a string",
        lambda: nn.mlp_init(_KEY, [3, 2], scale="1"),
        "scale",
        TypeError,
    ),
    Bad(
        nn.mlp_init,
        "int dtype",
        lambda: nn.mlp_init(_KEY, [3, 2], dtype=jnp.int32),
        "dtype",
        TypeError,
    ),
    Bad(
        nn.mlp_init,
        "not a dtype",
        lambda: nn.mlp_init(_KEY, [3, 2], dtype="floaty"),
        "dtype",
        TypeError,
    ),
    Bad(nn.mlp_init, "an int key", lambda: nn.mlp_init(0, [3, 2]), "key", TypeError),
    Bad(
        nn.mlp_init,
        "a key of shape (3,)",
        lambda: nn.mlp_init(np.zeros(3, np.uint32), [3, 2]),
        "key",
        TypeError,
    ),
    Same(
        nn.mlp_init,
        "NumPy ints and a tuple",
        lambda: nn.mlp_init(_KEY, (np.int64(3), np.int32(4), 2)),
        lambda: nn.mlp_init(_KEY, [3, 4, 2]),
    ),
    Same(
        nn.mlp_init,
        "int scale = float scale",
        lambda: nn.mlp_init(_KEY, [3, 2], scale=2),
        lambda: nn.mlp_init(_KEY, [3, 2], scale=2.0),
    ),
    Holds(
        nn.mlp_init,
        "a typed key",
        lambda: nn.mlp_init(jax.random.key(0), [3, 2]),
        lambda p: _assert(p[0][0].shape == (2, 3) and np.isfinite(np.asarray(p[0][0])).all()),
    ),
    Same(nn.mlp_apply, "int x = float x", _apply(x=_XI[0]), _apply(x=_XF[0])),
    Same(
        nn.mlp_apply,
        "bool x = 0/1 floats",
        _apply(x=_X[0] > 0),
        _apply(x=(_X[0] > 0).astype(np.float32)),
    ),
    Same(nn.mlp_apply, "list x", _apply(x=_X.tolist()), _apply(x=_X)),
    Same(
        nn.mlp_apply, "one row = that row of the batch", _apply(x=_X[2]), lambda: _apply(x=_X)()[2]
    ),
    Same(
        nn.mlp_apply,
        "int params = float params",
        _apply([(np.ones((2, 3), np.int32), np.zeros(2, np.int32))]),
        _apply([(np.ones((2, 3), np.float32), np.zeros(2, np.float32))]),
    ),
    Same(
        nn.mlp_apply,
        "params of lists",
        _apply([[W.tolist(), b.tolist()] for W, b in _P()]),
        _apply(),
    ),
    Bad(nn.mlp_apply, "x one feature too wide", _apply(x=np.ones(4)), "x"),
    Bad(nn.mlp_apply, "x one feature too narrow", _apply(x=np.ones(2)), "x"),
    Bad(nn.mlp_apply, "a batch too wide", _apply(x=np.ones((5, 4))), "x"),
    Bad(nn.mlp_apply, "a 3-D x", _apply(x=np.ones((1, 5, 3))), "x"),
    Bad(nn.mlp_apply, "a scalar x", _apply(x=1.0), "x"),
    Bad(nn.mlp_apply, "NaN x", _apply(x=_nan(_X, (2, 1))), "x"),
    Bad(
        nn.mlp_apply,
        "NaN params",
        lambda: nn.mlp_apply([(_nan(np.ones((2, 3)), (0, 0)), np.zeros(2))], _X),
        "params",
    ),
    Bad(
        nn.mlp_apply,
        "params not a list",
        lambda: nn.mlp_apply(np.ones((2, 3)), _X),
        "params",
        TypeError,
    ),
    Bad(
        nn.mlp_apply,
        "a layer not a pair",
        lambda: nn.mlp_apply([np.ones((2, 3))], _X),
        "params[0]",
        TypeError,
    ),
    Bad(
        nn.mlp_apply,
        "widths that do not chain",
        lambda: nn.mlp_apply(_BAD_CHAIN(), _X),
        "params[1]",
    ),
    Bad(
        nn.mlp_apply,
        "a bias of the wrong width",
        lambda: nn.mlp_apply([(np.ones((2, 3)), np.ones(3))], _X),
        "params[0]",
    ),
    Bad(nn.mlp_apply, "activation a string", _apply(activation="relu"), "activation", TypeError),
    Bad(nn.mlp_apply, "output not callable", _apply(output=None), "output", TypeError),
    Holds(
        nn.mlp_apply,
        "under jit and vmap (shape checks only)",
        lambda: jax.jit(jax.vmap(lambda x: nn.mlp_apply(_P(), x)))(_X),
        lambda out: np.testing.assert_allclose(out, _apply(x=_X)(), rtol=1e-6),
    ),
]


def _bp(x=_X[0], y=(0.5, -1.0), params=None, **kwargs):
    return lambda: nn.backprop(_P() if params is None else params, x, np.asarray(y), **kwargs)


ROWS += [
    Same(nn.backprop, "int x and y = floats", _bp(_XI[0], (1, 0)), _bp(_XF[0], (1.0, 0.0))),
    Same(nn.backprop, "list x", _bp(_X[0].tolist()), _bp()),
    Same(nn.backprop, "int weight_decay = float", _bp(weight_decay=1), _bp(weight_decay=1.0)),
    Same(
        nn.backprop,
        "= jax.grad of the squared loss",
        _bp(),
        lambda: jax.grad(lambda p: nn.squared_loss(nn.mlp_apply(p, _X[0]), np.array([0.5, -1.0])))(
            _P()
        ),
    ),
    Bad(nn.backprop, "x too wide", _bp(np.ones(4)), "x"),
    Bad(nn.backprop, "a batch x", _bp(_X), "x"),
    Bad(nn.backprop, "y too wide", _bp(y=(1.0, 0.0, 0.0)), "y"),
    Bad(nn.backprop, "a scalar y", _bp(y=1.0), "y"),
    Bad(nn.backprop, "NaN x", _bp(_nan(_X[0], 1)), "x"),
    Bad(nn.backprop, "inf y", _bp(y=(np.inf, 0.0)), "y"),
    Bad(nn.backprop, "weight_decay -1", _bp(weight_decay=-1.0), "weight_decay"),
    Bad(nn.backprop, "weight_decay NaN", _bp(weight_decay=float("nan")), "weight_decay"),
    Bad(nn.backprop, "weight_decay a string", _bp(weight_decay="0"), "weight_decay", TypeError),
    Bad(nn.backprop, "softmax output", _bp(output=nn.softmax), "output"),
    Bad(nn.backprop, "activation not callable", _bp(activation=1), "activation", TypeError),
    Bad(nn.backprop, "params that do not chain", _bp(params=_BAD_CHAIN()), "params[1]"),
]

# --- train ---------------------------------------------------------------------------------------------


def _train(X=_X, y=_LAB, params=None, *, key=_KEY, **kwargs):
    kwargs = dict(
        dict(loss="cross_entropy", optimizer=_ADAM, steps=4, batch_size=2, eval_every=2), **kwargs
    )
    return lambda: nn.train(key, _P() if params is None else params, X, y, **kwargs)


def _best(call):
    return lambda: call()[0]


def _warns_and_diverges(call):
    def run():
        with pytest.warns(RuntimeWarning, match="diverged"):
            return call()

    return run


def _diverged_at_start(result):
    best, history = result
    _assert(bool(history.diverged) and bool(np.all(history.nonfinite)), f"history {history}")
    _assert(int(history.best_step) == 0, "the start is returned")
    chex.assert_trees_all_close(best, _net(3, 4, 1))


# One step of sgd(100) leaves finite weights whose validation loss overflows: never improved, so diverged.
_SGD_BLOWUP = _train(
    1e4 * _X,
    1e4 * _T,
    _net(3, 4, 1),
    loss="squared",
    optimizer=_SGD100,
    steps=1,
    eval_every=1,
    activation=nn.relu,
)
ROWS += [
    Same(nn.train, "int X = float X", _best(_train(_XI)), _best(_train(_XF))),
    Same(nn.train, "lists", _best(_train(_X.tolist(), _LAB.tolist())), _best(_train())),
    Same(nn.train, "bool labels = int labels", _best(_train(y=_LAB.astype(bool))), _best(_train())),
    Same(
        nn.train,
        "float labels 0.0/1.0 = int labels",
        _best(_train(y=_LAB.astype(np.float32))),
        _best(_train()),
    ),
    Same(
        nn.train,
        "int targets = float targets (squared)",
        _best(_train(y=np.round(_T).astype(np.int32), params=_net(3, 4, 1), loss="squared")),
        _best(_train(y=np.round(_T), params=_net(3, 4, 1), loss="squared")),
    ),
    Same(
        nn.train,
        "int weight_decay = float",
        _best(_train(weight_decay=1)),
        _best(_train(weight_decay=1.0)),
    ),
    Holds(
        nn.train,
        "one example",
        _train(_X[:1], _LAB[:1]),
        lambda r: _assert(np.isfinite(np.asarray(r[0][0][0])).all() and not bool(r[1].diverged)),
    ),
    Holds(
        nn.train,
        "sgd(100), every evaluation non-finite: diverged, the start returned",
        lambda: _warns_and_diverges(_SGD_BLOWUP)(),
        _diverged_at_start,
    ),
    Holds(
        nn.train,
        "under jit (shape checks only)",
        lambda: jax.jit(lambda X, y: _train(X, y)()[0])(_X, _LAB),
        lambda best: chex.assert_trees_all_close(best, _train()()[0], rtol=1e-5, atol=1e-6),
    ),
    Bad(nn.train, "X one feature too wide", _train(np.ones((6, 4))), "X"),
    Bad(nn.train, "1-D X", _train(_X[0], _LAB[:3]), "X"),
    Bad(nn.train, "X and y lengths differ", _train(y=_LAB[:5]), ("X", "y")),
    Bad(nn.train, "empty sample", _train(_X[:0], _LAB[:0]), "X"),
    Bad(nn.train, "NaN in X", _train(_nan(_X)), "X"),
    Bad(
        nn.train,
        "NaN target",
        _train(y=_nan(_T, (0, 0)), params=_net(3, 4, 1), loss="squared"),
        "y",
    ),
    Bad(nn.train, "label 2 for a 2-output network", _train(y=np.where(_LAB == 1, 2, 0)), "y"),
    Bad(nn.train, "label -1", _train(y=_LAB - 1), "y"),
    Bad(nn.train, "2-D labels", _train(y=_LAB[:, None]), "y"),
    Bad(
        nn.train,
        "squared targets of shape (m,)",
        _train(y=_T[:, 0], params=_net(3, 4, 1), loss="squared"),
        "y",
    ),
    Bad(
        nn.train,
        "squared targets too wide",
        _train(y=np.ones((6, 2)), params=_net(3, 4, 1), loss="squared"),
        "y",
    ),
    Bad(
        nn.train,
        "zero_one error with squared targets",
        _train(y=_T, params=_net(3, 4, 1), loss="squared", error="zero_one"),
        "error",
    ),
    Bad(nn.train, "steps 0", _train(steps=0), "steps"),
    Bad(nn.train, "steps 2.5", _train(steps=2.5), "steps", TypeError),
    Bad(nn.train, "steps True", _train(steps=True), "steps", TypeError),
    Bad(
        nn.train,
        "steps traced",
        lambda: jax.jit(lambda s: _train(steps=s)())(4),
        "steps",
        TypeError,
    ),
    Bad(nn.train, "batch_size 0", _train(batch_size=0), "batch_size"),
    Bad(nn.train, "batch_size -3", _train(batch_size=-3), "batch_size"),
    Bad(nn.train, "eval_every 0", _train(eval_every=0), "eval_every"),
    Bad(nn.train, "eval_every a string", _train(eval_every="2"), "eval_every", TypeError),
    Bad(nn.train, "sampling unknown", _train(sampling="random"), "sampling"),
    Bad(nn.train, "sampling not a string", _train(sampling=1), "sampling", TypeError),
    Bad(
        nn.train,
        "stratified, batch_size 7 > m",
        _train(sampling="stratified", batch_size=7),
        "batch_size",
    ),
    Same(
        nn.train,
        "sampling 'uniform' = the default",
        _best(_train(sampling="uniform")),
        _best(_train()),
    ),
    Holds(
        nn.train,
        "stratified, batch_size 4 not dividing m = 6 (weighted blocks)",
        _train(sampling="stratified", batch_size=4),
        lambda r: _assert(
            np.isfinite(np.asarray(r[1].train_loss)).all() and not bool(r[1].diverged)
        ),
    ),
    Bad(nn.train, "weight_decay -1", _train(weight_decay=-1.0), "weight_decay"),
    Bad(nn.train, "weight_decay inf", _train(weight_decay=float("inf")), "weight_decay"),
    Bad(nn.train, "weight_decay NaN", _train(weight_decay=float("nan")), "weight_decay"),
    Bad(nn.train, "optimizer a string", _train(optimizer="adam"), "optimizer", TypeError),
    Bad(nn.train, "loss unknown", _train(loss="hinge"), "loss"),
    Bad(nn.train, "loss a number", _train(loss=3), "loss", TypeError),
    Bad(nn.train, "error unknown", _train(error="abs"), "error"),
    Bad(nn.train, "activation not callable", _train(activation="relu"), "activation", TypeError),
    Bad(nn.train, "validation not a pair", _train(validation=_X), "validation"),
    Bad(
        nn.train,
        "validation too wide",
        _train(validation=(np.ones((2, 4)), _LAB[:2])),
        "validation[0]",
    ),
    Bad(nn.train, "validation NaN", _train(validation=(_nan(_X[:2]), _LAB[:2])), "validation[0]"),
    Bad(
        nn.train,
        "validation label 3",
        _train(validation=(_X[:2], np.array([0, 3]))),
        "validation[1]",
    ),
    Bad(
        nn.train,
        "NaN params",
        _train(params=[(_nan(np.ones((2, 3)), (0, 0)), np.zeros(2))]),
        "params",
    ),
    Bad(nn.train, "params not a list", _train(params=np.ones((2, 3))), "params", TypeError),
    Bad(nn.train, "a bad key", _train(key=1), "key", TypeError),
]

# --- Boolean networks ------------------------------------------------------------------------------------

_XOR = np.array([-1.0, 1.0, 1.0, -1.0], np.float32)


def _table_out(table):
    params, apply = nn.boolean_network(table)
    return jax.vmap(lambda x: apply(params, x))(nn.boolean_inputs(2))[:, 0]


ROWS += [
    Bad(nn.boolean_inputs, "n 0", lambda: nn.boolean_inputs(0), "n"),
    Bad(nn.boolean_inputs, "n 25 (2**25 rows)", lambda: nn.boolean_inputs(25), "n"),
    Bad(nn.boolean_inputs, "n -1", lambda: nn.boolean_inputs(-1), "n"),
    Bad(nn.boolean_inputs, "n 2.0", lambda: nn.boolean_inputs(2.0), "n", TypeError),
    Bad(nn.boolean_inputs, "n True", lambda: nn.boolean_inputs(True), "n", TypeError),
    Bad(
        nn.boolean_inputs,
        "bool dtype",
        lambda: nn.boolean_inputs(2, dtype=bool),
        "dtype",
        TypeError,
    ),
    Bad(
        nn.boolean_inputs,
        "unsigned dtype",
        lambda: nn.boolean_inputs(2, dtype=np.uint8),
        "dtype",
        TypeError,
    ),
    Same(
        nn.boolean_inputs,
        "NumPy int n",
        lambda: nn.boolean_inputs(np.int64(3)),
        lambda: nn.boolean_inputs(3),
    ),
    Same(
        nn.boolean_inputs,
        "int dtype: the same +-1 values",
        lambda: nn.boolean_inputs(2, dtype=jnp.int32),
        lambda: nn.boolean_inputs(2).astype(jnp.int32),
    ),
    Holds(
        nn.boolean_inputs,
        "n 1",
        lambda: nn.boolean_inputs(1),
        lambda r: np.testing.assert_array_equal(r, [[-1], [1]]),
    ),
]
for _neuron in (nn.conjunction_neuron, nn.disjunction_neuron):
    ROWS += [
        Bad(_neuron, "k 0", functools.partial(_neuron, 0), "k"),
        Bad(_neuron, "k 2.0", functools.partial(_neuron, 2.0), "k", TypeError),
        Bad(
            _neuron,
            "negated of the wrong shape",
            functools.partial(_neuron, 3, negated=[True, False]),
            "negated",
        ),
        Bad(
            _neuron,
            "negated value 2",
            functools.partial(_neuron, 2, negated=np.array([0, 2])),
            "negated",
        ),
        Bad(
            _neuron,
            "negated NaN",
            functools.partial(_neuron, 2, negated=np.array([0.0, np.nan])),
            "negated",
        ),
        Bad(_neuron, "bool dtype", functools.partial(_neuron, 2, dtype=bool), "dtype", TypeError),
        Same(
            _neuron,
            "negated 0/1 ints = bools",
            functools.partial(_neuron, 3, negated=np.array([1, 0, 1])),
            functools.partial(_neuron, 3, negated=np.array([True, False, True])),
        ),
        Same(
            _neuron,
            "negated list",
            functools.partial(_neuron, 2, negated=[True, False]),
            functools.partial(_neuron, 2, negated=np.array([True, False])),
        ),
        Holds(
            _neuron,
            "k 1: the literal itself",
            functools.partial(_neuron, 1),
            lambda wb: np.testing.assert_array_equal(
                nn.sign(np.array([[-1.0], [1.0]]) @ wb[0] + wb[1]), [-1, 1]
            ),
        ),
    ]
ROWS += [
    Same(
        nn.boolean_network,
        "int table = float table",
        lambda: nn.boolean_network(_XOR.astype(np.int32))[0],
        lambda: nn.boolean_network(_XOR)[0],
    ),
    Same(
        nn.boolean_network,
        "list table",
        lambda: nn.boolean_network(_XOR.tolist())[0],
        lambda: nn.boolean_network(_XOR)[0],
    ),
    Holds(
        nn.boolean_network,
        "XOR on all inputs",
        lambda: _table_out(_XOR),
        lambda out: np.testing.assert_array_equal(out, _XOR),
    ),
    Holds(
        nn.boolean_network,
        "constant -1 (no positive point)",
        lambda: _table_out(-np.ones(4, np.float32)),
        lambda out: np.testing.assert_array_equal(out, -np.ones(4)),
    ),
    Holds(
        nn.boolean_network,
        "under jit",
        lambda: jax.jit(lambda t: nn.boolean_network(t)[0])(_XOR),
        lambda p: chex.assert_trees_all_close(p, nn.boolean_network(_XOR)[0]),
    ),
    Bad(nn.boolean_network, "length 3", lambda: nn.boolean_network(np.ones(3)), "table"),
    Bad(nn.boolean_network, "length 1", lambda: nn.boolean_network(np.ones(1)), "table"),
    Bad(nn.boolean_network, "2-D table", lambda: nn.boolean_network(np.ones((2, 2))), "table"),
    Bad(
        nn.boolean_network,
        "{0, 1} values",
        lambda: nn.boolean_network(np.array([0, 1, 1, 0])),
        "table",
    ),
    Bad(nn.boolean_network, "NaN value", lambda: nn.boolean_network(_nan(_XOR, 0)), "table"),
    Bad(
        nn.boolean_network,
        "strings",
        lambda: nn.boolean_network(np.array(["a", "b"])),
        "table",
        TypeError,
    ),
    Bad(
        nn.boolean_network,
        "apply on x too wide",
        lambda: (lambda pa: pa[1](pa[0], np.ones(3)))(nn.boolean_network(_XOR)),
        "x",
    ),
]

# --- mlp_classifier -----------------------------------------------------------------------------------------

_CLF = nn.mlp_classifier(4, steps=4, num_classes=2, batch_size=2, eval_every=2)


def _clf(**kwargs):
    return lambda: nn.mlp_classifier(**dict(dict(hidden=4, steps=4), **kwargs))


def _fit(X=_X, y=_LAB, learner=_CLF, key=_KEY):
    return lambda: learner.fit(key, X, y)


@functools.lru_cache(maxsize=None)
def _fitted():
    return _CLF.fit(_KEY, _X, _LAB)


def _jit_vmap_fits():
    keys = jax.random.split(jax.random.PRNGKey(1), 2)
    X, y = _X, _LAB  # concrete, closed over
    together = jax.jit(jax.vmap(lambda k: nn.mlp_classifier((8,), steps=200).fit(k, X, y)))(keys)
    apart = [nn.mlp_classifier((8,), steps=200).fit(k, X, y) for k in keys]
    return together, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *apart)


def _fit_diverged():
    learner = core.replace(_CLF, eta=1e30)  # the structure of _CLF: its compiled program
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        params = learner.fit(_KEY, 1e4 * _X, _LAB)
    return params, [w for w in caught if issubclass(w.category, RuntimeWarning)]


def _check_diverged(result):
    params, warned = result
    _assert(bool(params.diverged), "diverged not set")
    _assert(
        all(
            np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree_util.tree_leaves(params.layers)
        )
    )
    _assert(warned and "diverged" in str(warned[0].message), "an eager diverged fit warns")


_TRACED_Y = lambda: jax.jit(lambda X, y: nn.mlp_classifier(4, steps=4).fit(_KEY, X, y))(_X, _LAB)  # noqa: E731
ROWS += [
    Holds(
        nn.mlp_classifier,
        "jit(vmap(fit)) with concrete X, y closed over = separate fits",
        _jit_vmap_fits,
        lambda r: chex.assert_trees_all_close(r[0], r[1], rtol=1e-5, atol=1e-6),
    ),
    Holds(
        nn.mlp_classifier, "a diverging fit: flagged, finite, warns", _fit_diverged, _check_diverged
    ),
    Same(nn.mlp_classifier, "int X = float X", _fit(_XI), _fit(_XF)),
    Same(nn.mlp_classifier, "bool X = 0/1 floats", _fit(_X > 0), _fit((_X > 0).astype(np.float32))),
    Same(nn.mlp_classifier, "bool y = int y", _fit(y=_LAB.astype(bool)), _fit()),
    Same(nn.mlp_classifier, "float y 0.0/1.0 = int y", _fit(y=_LAB.astype(np.float32)), _fit()),
    Same(
        nn.mlp_classifier,
        "predict int X = float X",
        lambda: _CLF.predict(_fitted(), _XI),
        lambda: _CLF.predict(_fitted(), _XF),
    ),
    Same(
        nn.mlp_classifier,
        "decision_function bool X",
        lambda: _CLF.decision_function(_fitted(), _X > 0),
        lambda: _CLF.decision_function(_fitted(), (_X > 0).astype(np.float32)),
    ),
    Same(
        nn.mlp_classifier,
        "predict list X",
        lambda: _CLF.predict(_fitted(), _X.tolist()),
        lambda: _CLF.predict(_fitted(), _X),
    ),
    Bad(nn.mlp_classifier, "predict NaN X", lambda: _CLF.predict(_fitted(), _nan(_X)), "X"),
    Bad(
        nn.mlp_classifier,
        "predict X one feature too wide",
        lambda: _CLF.predict(_fitted(), np.ones((2, 4))),
        "X",
    ),
    Bad(
        nn.mlp_classifier,
        "decision_function X too narrow",
        lambda: _CLF.decision_function(_fitted(), _X[:, :2]),
        "X",
    ),
    Bad(nn.mlp_classifier, "predict a 1-D row", lambda: _CLF.predict(_fitted(), _X[0]), "X"),
    Bad(
        nn.mlp_classifier,
        "predict with params not MLPParams",
        lambda: _CLF.predict(_P(), _X),
        "params",
        TypeError,
    ),
    Bad(
        nn.mlp_classifier, "fit label 2 with num_classes=2", _fit(y=np.where(_LAB == 1, 2, 0)), "y"
    ),
    Bad(
        nn.mlp_classifier,
        "fit label -1",
        _fit(y=_LAB - 1, learner=nn.mlp_classifier(4, steps=4)),
        "y",
    ),
    Bad(nn.mlp_classifier, "fit label 0.5", _fit(y=_LAB * 0.5), "y"),
    Bad(nn.mlp_classifier, "fit NaN X", _fit(_nan(_X)), "X"),
    Bad(nn.mlp_classifier, "fit 1-D X", _fit(_X[0], _LAB[:3]), "X"),
    Bad(nn.mlp_classifier, "fit with a bad key", _fit(key=3), "key", TypeError),
    Bad(nn.mlp_classifier, "fit traced y without num_classes", _TRACED_Y, "y"),
    Bad(nn.mlp_classifier, "hidden 0", _clf(hidden=0), "hidden"),
    Bad(nn.mlp_classifier, "hidden (4, 0)", _clf(hidden=(4, 0)), "hidden"),
    Bad(nn.mlp_classifier, "hidden 4.0", _clf(hidden=4.0), "hidden", TypeError),
    Bad(nn.mlp_classifier, "hidden (4, True)", _clf(hidden=(4, True)), "hidden", TypeError),
    Bad(nn.mlp_classifier, "hidden ()", _clf(hidden=()), "hidden", TypeError),
    Bad(nn.mlp_classifier, "steps 0", _clf(steps=0), "steps"),
    Bad(nn.mlp_classifier, "steps 2.5", _clf(steps=2.5), "steps", TypeError),
    Bad(nn.mlp_classifier, "batch_size 0", _clf(batch_size=0), "batch_size"),
    Bad(nn.mlp_classifier, "eval_every 0", _clf(eval_every=0), "eval_every"),
    Bad(nn.mlp_classifier, "num_classes 1", _clf(num_classes=1), "num_classes"),
    Bad(nn.mlp_classifier, "num_classes 2.0", _clf(num_classes=2.0), "num_classes", TypeError),
    Bad(nn.mlp_classifier, "eta 0", _clf(eta=0.0), "eta"),
    Bad(
        nn.mlp_classifier,
        "learning_rate NaN (alias of eta)",
        _clf(learning_rate=float("nan")),
        "eta",
    ),
    Bad(nn.mlp_classifier, "weight_decay -1e-4", _clf(weight_decay=-1e-4), "weight_decay"),
    Bad(
        nn.mlp_classifier,
        "validation_fraction 1",
        _clf(validation_fraction=1.0),
        "validation_fraction",
    ),
    Bad(
        nn.mlp_classifier,
        "validation_fraction -0.1",
        _clf(validation_fraction=-0.1),
        "validation_fraction",
    ),
    Bad(nn.mlp_classifier, "optimizer unknown", _clf(optimizer="rmsprop"), "optimizer"),
    Bad(
        nn.mlp_classifier,
        "optimizer an optax object",
        _clf(optimizer=_ADAM),
        "optimizer",
        TypeError,
    ),
    Bad(nn.mlp_classifier, "activation a string", _clf(activation="relu"), "activation", TypeError),
    Same(
        nn.mlp_classifier,
        "int eta = float eta",
        lambda: _fit(
            learner=nn.mlp_classifier(4, steps=4, num_classes=2, batch_size=2, eval_every=2, eta=1)
        )(),
        lambda: _fit(
            learner=nn.mlp_classifier(
                4, steps=4, num_classes=2, batch_size=2, eval_every=2, eta=1.0
            )
        )(),
    ),
    Holds(
        nn.mlp_classifier,
        "one example",
        _fit(_X[:1], _LAB[:1]),
        lambda p: _assert(np.isfinite(np.asarray(p.layers[0][0])).all()),
    ),
]
