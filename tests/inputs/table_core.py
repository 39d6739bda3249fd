"""Bad input to the core entry points: ``run``, ``predict_batch``, ``hyperparameters``, ``replace``."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import core, experts, online
from tests.inputs.rows import Bad, Holds, Same

_X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -2.0], [2.0, 1.0]], np.float32)
_Y = np.array([1.0, -1.0, -1.0, 1.0], np.float32)
_P = online.perceptron(0.5)
_S = _P.init(_X[0])


def _run(*args, **kwargs):
    return lambda: core.run(*args, **kwargs)


def _weights(result):
    return result[0].w


def _closed_over_sweep(nan=False):
    """A Hedge rate sweep as one jitted program, the stream a concrete array the function closes over:
    large enough (2^20 entries) that its checks summarise it by a compiled pass, run there and then."""
    losses = np.array(jax.random.uniform(jax.random.PRNGKey(0), (1025, 1024)))
    if nan:
        losses[3, 5] = np.nan
    losses = jnp.asarray(losses)
    state = experts.hedge(0.1).init(jnp.zeros(1024))
    run = lambda eta: core.run(experts.hedge(eta), state, None, losses, trace_fn=lambda i: i.loss)[
        1
    ]  # noqa: E731
    etas = jnp.array([0.05, 0.5])
    return jax.jit(jax.vmap(run))(etas), jnp.stack([run(eta) for eta in etas])


_M = online.margin_perceptron(0.5)
_MS = _M.init(_X[0])


def _log_weights_with_zero():
    """A Weighted Average state after an expert's advice contradicted the outcome: log-weight -inf."""
    wa = experts.weighted_average(1.0)
    advice = np.array([[0.0, 0.5], [0.2, 0.5]], np.float32)
    state = wa.update(wa.init(advice[0]), advice[0], 1.0)[0]
    assert np.isneginf(np.asarray(state.log_v)[0])
    return core.run(wa, state, advice, np.array([1.0, 0.0], np.float32))


ROWS = [
    Same(
        core.run,
        "lists",
        lambda: _weights(core.run(_P, _S, _X.tolist(), _Y.tolist())),
        lambda: _weights(core.run(_P, _S, _X, _Y)),
    ),
    Same(
        core.run,
        "int labels",
        lambda: _weights(core.run(_P, _S, _X, _Y.astype(np.int32))),
        lambda: _weights(core.run(_P, _S, _X, _Y)),
    ),
    Same(
        core.run,
        "int instances",
        lambda: _weights(core.run(_P, _S, _X.astype(np.int32), _Y)),
        lambda: _weights(core.run(_P, _S, _X.astype(np.int32).astype(np.float32), _Y)),
    ),
    Same(
        core.run,
        "one round",
        lambda: _weights(core.run(_P, _S, _X[:1], _Y[:1])),
        lambda: _P.update(_S, _X[0], _Y[0])[0].w,
    ),
    Bad(core.run, "scalar xs", _run(_P, _S, 1.0, _Y), "xs"),
    Bad(core.run, "lengths differ", _run(_P, _S, _X, _Y[:3]), ("xs", "ys")),
    Bad(core.run, "empty stream", _run(_P, _S, _X[:0], _Y[:0]), ("xs", "ys")),
    Bad(core.run, "NaN label", _run(_P, _S, _X, np.where(np.arange(4) == 0, np.nan, _Y)), "ys"),
    Bad(core.run, "label 0", _run(_P, _S, _X, np.where(_Y > 0, 1.0, 0.0)), "ys"),
    Bad(core.run, "negative block_size", _run(_P, _S, _X, _Y, block_size=-1), "block_size"),
    Bad(
        core.run, "float block_size", _run(_P, _S, _X, _Y, block_size=2.5), "block_size", TypeError
    ),
    Bad(core.run, "unroll 0", _run(_P, _S, _X, _Y, unroll=0), "unroll"),
    Bad(core.run, "not a learner", _run((1, 2), _S, _X, _Y), "learner", TypeError),
    Holds(
        core.run,
        "under jit (shape checks only)",
        lambda: jax.jit(lambda x, y: core.run(_P, _S, x, y)[0].w)(_X, _Y),
        lambda w: np.testing.assert_array_equal(w, core.run(_P, _S, _X, _Y)[0].w),
    ),
    Holds(
        core.run,
        "jit(vmap) over rates, a large concrete stream closed over: checked, = separate runs",
        lambda: _closed_over_sweep(),
        lambda r: np.testing.assert_allclose(r[0], r[1], rtol=1e-5),
    ),
    Bad(
        core.run,
        "jit(vmap) over rates, a large concrete stream closed over, NaN: named",
        lambda: _closed_over_sweep(nan=True),
        "ys",
    ),
    # --- labels: one scalar per round (a column (T, 1) used to run, with another answer) ----------------
    Bad(core.run, "ys None", _run(_P, _S, _X, None), "ys"),
    Bad(core.run, "perceptron, ys a column (T, 1), blocks", _run(_P, _S, _X, _Y[:, None]), "ys"),
    Bad(
        core.run,
        "perceptron, ys a column (T, 1), round by round",
        _run(_P, _S, _X, _Y[:, None], block_size=0),
        "ys",
    ),
    Bad(core.run, "margin perceptron, ys a column (T, 1)", _run(_M, _MS, _X, _Y[:, None]), "ys"),
    Bad(
        core.run,
        "ys a column (T, 1), under jit",
        lambda: jax.jit(lambda x, y: core.run(_P, _S, x, y)[0].w)(_X, _Y[:, None]),
        "ys",
    ),
    # --- the state: what the learner's init builds, finite, counters >= 0 ----------------------------
    Bad(
        core.run, "state: int32 w", _run(_P, _S._replace(w=_S.w.astype(jnp.int32)), _X, _Y), "state"
    ),
    Bad(core.run, "state: step -5", _run(_P, _S._replace(step=jnp.int32(-5)), _X, _Y), "state"),
    Bad(
        core.run,
        "state: NaN in w",
        _run(_P, _S._replace(w=_S.w.at[0].set(jnp.nan)), _X, _Y),
        "state",
    ),
    Bad(core.run, "state: inf bias", _run(_P, _S._replace(b=jnp.float32(np.inf)), _X, _Y), "state"),
    Bad(core.run, "state: a plain tuple", _run(_P, tuple(_S), _X, _Y), "state"),
    Bad(
        core.run,
        "state of another learner",
        _run(_P, online.winnow(2.0).init(_X[0]), _X, _Y),
        "state",
    ),
    Bad(
        core.run,
        "state: bias of shape (2,)",
        _run(_P, _S._replace(b=jnp.zeros(2)), _X, _Y),
        "state",
    ),
    Bad(
        core.run,
        "state: int32 w, under jit",
        lambda: jax.jit(lambda s: core.run(_P, s, _X, _Y)[0].w)(
            _S._replace(w=_S.w.astype(jnp.int32))
        ),
        "state",
    ),
    Bad(
        core.run,
        "state: int32 w, round by round",
        _run(_P, _S._replace(w=_S.w.astype(jnp.int32)), _X, _Y, block_size=0),
        "state",
    ),
    Holds(
        core.run,
        "state: log-weights -inf (a weight of 0) are a state",
        _log_weights_with_zero,
        lambda r: np.testing.assert_array_equal(np.asarray(r[0].step), 3),
    ),
    Same(
        core.run,
        "state: a float64 example's float32 state (any float precision)",
        lambda: _weights(core.run(_P, _S, _X.astype(np.float64), _Y)),
        lambda: _weights(core.run(_P, _S, _X, _Y)),
    ),
    Holds(
        core.run,
        "state: vmapped over stacked states",
        lambda: jax.vmap(lambda s: core.run(_P, s, _X, _Y)[0].w)(
            jax.tree_util.tree_map(lambda a: jnp.stack([a, a]), _S)
        ),
        lambda w: np.testing.assert_array_equal(w, np.stack([core.run(_P, _S, _X, _Y)[0].w] * 2)),
    ),
    Bad(
        core.predict_batch,
        "NaN row",
        lambda: core.predict_batch(_P, _S, np.where(_X > 1.5, np.nan, _X)),
        "X",
    ),
    Bad(
        core.predict_batch,
        "one feature too wide",
        lambda: core.predict_batch(_P, _S, np.ones((3, 3))),
        "x",
    ),
    Same(
        core.predict_batch,
        "list",
        lambda: core.predict_batch(_P, _S, _X.tolist()),
        lambda: core.predict_batch(_P, _S, _X),
    ),
    Bad(
        core.hyperparameters,
        "not a learner",
        lambda: core.hyperparameters(lambda: 0),
        "learner",
        TypeError,
    ),
    Holds(
        core.hyperparameters,
        "perceptron",
        lambda: core.hyperparameters(_P),
        lambda h: (
            (h == {"eta": 0.5, "normalize": False, "fit_intercept": False})
            or (_ for _ in ()).throw(AssertionError(h))
        ),
    ),
    Bad(core.replace, "unknown argument", lambda: core.replace(_P, lam=1.0), "lam", TypeError),
    Bad(core.replace, "out of range", lambda: core.replace(_P, eta=-1.0), "eta"),
    Same(
        core.replace,
        "new eta",
        lambda: core.replace(_P, eta=2.0).update(_S, _X[0], -1.0)[0].w,
        lambda: online.perceptron(2.0).update(_S, _X[0], -1.0)[0].w,
    ),
    Holds(
        core.predict_batch,
        "jnp input",
        lambda: core.predict_batch(_P, _S, jnp.asarray(_X)),
        lambda labels: np.testing.assert_array_equal(labels.shape, (4,)),
    ),
]
