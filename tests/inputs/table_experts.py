"""Bad and unusual input to ``jaxlearn.experts``: the class functions (Ldim, VC dimension, shattered
trees) and the cases of the learners the generic suite does not see (advice of the wrong width, point
indices outside the domain, exact 0/1 advice in the Weighted Average, hyperparameter ranges)."""

import jax
import numpy as np

from jaxlearn import core, experts
from tests.inputs.rows import Bad, Holds, Same

_A = np.array(
    [[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0], [1, 0, 1, 1], [0, 1, 1, 0]], np.int32
)  # 4 experts
_O = np.array([1, 0, 1, 1, 0], np.int32)  # outcomes
_WIDE = np.ones(5, np.int32)  # one expert more than the state has
_L = np.array(
    [[0.2, 0.9, 0.0], [1.0, 0.5, 0.1], [0.3, 0.3, 0.8]], np.float32
)  # Hedge's loss vectors
_H = (np.arange(5)[None, :] >= np.arange(6)[:, None]).astype(np.int32)  # thresholds on 5 points
_KEY = jax.random.PRNGKey(0)

_CONSISTENT, _HALVING = experts.consistent(), experts.halving()
_WM, _RWM = experts.weighted_majority(0.5), experts.randomized_weighted_majority(0.5)
_HEDGE = experts.hedge(0.5)
_WA = experts.weighted_average(1.0)
_SOA = experts.soa(_H)
_AGNOSTIC = experts.agnostic_experts(_H, 6)


def _init(learner, example, key=False):
    return learner.init(example, _KEY) if key else learner.init(example)


def _log_weights(learner, xs, ys, key=False):
    state = core.run(learner, _init(learner, _A[0] if xs is not None else ys[0], key), xs, ys)[0]
    return getattr(state, "log_w", getattr(state, "log_v", None))


def _alive(learner, xs):
    return core.run(learner, learner.init(_A[0]), xs, _O)[0].alive.astype(np.int32)


def _check_distribution(result):
    state, trace = result
    v = np.exp(np.asarray(state.log_v, float))
    assert np.isfinite(np.asarray(trace.prediction)).all(), "non-finite predictions"
    assert not np.isnan(np.asarray(state.log_v)).any(), "NaN log-weights"
    np.testing.assert_allclose(
        v.sum(), 1.0, rtol=1e-5, err_msg="the weights are not a distribution"
    )


_EXACT = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.5], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]], np.float32)
_EXACT_Y = np.array([0.0, 0.3, 1.0, 1.0], np.float32)  # every expert ends up with an infinite loss


# Round 1: advice 1 and just below 1 (5 experts), outcome 0: v.x rounds to 1 in float32, v.(1 - x)
# does not; the experts saying 1 get weight 0. Rounds 2-3: advice exactly 0 or 1, agreeing with the outcome.
_BELOW_ONE = np.nextafter(np.float32(1), np.float32(0))
_ENDS = np.array([[1, 1, 1, 1, _BELOW_ONE], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], np.float32)
_ENDS_Y = np.array([0.0, 0.0, 1.0], np.float32)


def _check_book_losses(trace):
    """The entropic loss of COMP0078 (0 ln 0 = 0): round 1, ln 1/(1 - y_hat) with 1 - y_hat = (1 - x_5)/5
    (float64); rounds 2-3, 0 for the learner and every expert."""
    loss = np.asarray(trace.loss, np.float64)
    assert np.isfinite(loss).all(), f"non-finite losses {loss}"
    book = -np.log((1 - np.float64(_BELOW_ONE)) / 5)
    np.testing.assert_allclose(loss, [book, 0.0, 0.0], rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(np.asarray(trace.expert_losses)[1:], 0.0)


def _soa_table(H):
    learner = experts.soa(H)
    xs = np.array([0, 3, 2, 4], np.int32)
    return core.run(learner, learner.init(0), xs, np.asarray(_H)[2, xs])[0].version_space.astype(
        np.int32
    )


ROWS = [
    # --- advice of the wrong width ------------------------------------------------------------------
    Bad(
        experts.consistent,
        "update, one expert too many",
        lambda: _CONSISTENT.update(_CONSISTENT.init(_A[0]), _WIDE, 1),
        "x",
    ),
    Bad(
        experts.halving,
        "predict, one expert too many",
        lambda: _HALVING.predict(_HALVING.init(_A[0]), _WIDE),
        "x",
    ),
    Bad(
        experts.halving,
        "run, xs one expert too wide",
        lambda: core.run(_HALVING, _HALVING.init(_A[0]), np.ones((5, 5), np.int32), _O),
        {"xs", "x"},
    ),
    Bad(
        experts.weighted_majority,
        "update, one expert too many",
        lambda: _WM.update(_WM.init(_A[0]), _WIDE, 1),
        "x",
    ),
    Bad(
        experts.randomized_weighted_majority,
        "update, one expert too many",
        lambda: _RWM.update(_RWM.init(_A[0], _KEY), _WIDE, 1),
        "x",
    ),
    Bad(
        experts.halving,
        "eager update, advice 2",
        lambda: _HALVING.update(_HALVING.init(_A[0]), 2 * _A[0], 1),
        "x",
    ),
    Bad(
        experts.consistent,
        "eager update, outcome -1",
        lambda: _CONSISTENT.update(_CONSISTENT.init(_A[0]), _A[0], -1),
        "y",
    ),
    # --- bool/int/float advice give one answer ------------------------------------------------------
    Same(
        experts.consistent,
        "bool advice and outcomes",
        lambda: _alive(_CONSISTENT, _A.astype(bool)),
        lambda: _alive(_CONSISTENT, _A),
    ),
    Same(
        experts.halving,
        "float advice",
        lambda: _alive(_HALVING, _A.astype(np.float32)),
        lambda: _alive(_HALVING, _A),
    ),
    Same(
        experts.weighted_majority,
        "bool advice",
        lambda: _log_weights(_WM, _A.astype(bool), _O.astype(bool)),
        lambda: _log_weights(_WM, _A.astype(np.float32), _O),
    ),
    Same(
        experts.randomized_weighted_majority,
        "bool advice",
        lambda: _log_weights(_RWM, _A.astype(bool), _O, key=True),
        lambda: _log_weights(_RWM, _A.astype(np.float32), _O.astype(np.float32), key=True),
    ),
    Holds(
        experts.weighted_majority,
        "beta 0 with every expert wrong: the weights stay a distribution",
        lambda: core.run(
            experts.weighted_majority(0.0),
            _WM.init(_A[0]),
            np.zeros((2, 4), np.int32),
            _O[:2] * 0 + 1,
        )[0],
        lambda s: np.testing.assert_allclose(np.exp(np.asarray(s.log_w)).sum(), 1.0, rtol=1e-5),
    ),
    # --- ranges ---------------------------------------------------------------------------------------
    Bad(experts.weighted_majority, "beta 1", lambda: experts.weighted_majority(1.0), "beta"),
    Bad(experts.weighted_majority, "beta -0.1", lambda: experts.weighted_majority(-0.1), "beta"),
    Bad(
        experts.randomized_weighted_majority,
        "eta 0",
        lambda: experts.randomized_weighted_majority(0.0),
        "eta",
    ),
    Bad(experts.hedge, "eta -1", lambda: experts.hedge(-1), "eta"),
    Bad(experts.hedge, "eta inf", lambda: experts.hedge(float("inf")), "eta"),
    Bad(experts.weighted_average, "eta -1", lambda: experts.weighted_average(-1.0), "eta"),
    Bad(
        experts.weighted_average,
        "loss 'hinge'",
        lambda: experts.weighted_average(1.0, "hinge"),
        "loss",
    ),
    # --- Hedge ---------------------------------------------------------------------------------------
    Bad(
        experts.hedge,
        "update, loss vector one action short",
        lambda: _HEDGE.update(_HEDGE.init(_L[0]), None, _L[0, :2]),
        "y",
    ),
    Bad(
        experts.hedge,
        "update, a loss above 1",
        lambda: _HEDGE.update(_HEDGE.init(_L[0]), None, 2 * _L[1]),
        "y",
    ),
    Same(
        experts.hedge,
        "int losses",
        lambda: _log_weights(_HEDGE, None, np.round(_L).astype(np.int32)),
        lambda: _log_weights(_HEDGE, None, np.round(_L)),
    ),
    Same(
        experts.hedge,
        "list losses",
        lambda: _log_weights(_HEDGE, None, _L.tolist()),
        lambda: _log_weights(_HEDGE, None, _L),
    ),
    # --- Weighted Average: advice exactly 0 or 1 ------------------------------------------------------
    Holds(
        experts.weighted_average,
        "entropic, advice exactly 0/1: finite predictions, weights sum to 1",
        lambda: core.run(_WA, _WA.init(_EXACT[0]), _EXACT, _EXACT_Y),
        _check_distribution,
    ),
    Holds(
        experts.weighted_average,
        "entropic, eta 2, bool advice: weights sum to 1",
        lambda: core.run(
            experts.weighted_average(2.0), _WA.init(_EXACT[0, :2]), _EXACT[:, :2] > 0.5, _EXACT_Y
        ),
        _check_distribution,
    ),
    Holds(
        experts.weighted_average,
        "entropic, advice 0/1 and just below 1: finite losses, the book's (v.x rounded to 1 gave inf)",
        lambda: core.run(_WA, _WA.init(_ENDS[0]), _ENDS, _ENDS_Y)[1],
        _check_book_losses,
    ),
    Bad(
        experts.weighted_average,
        "eager update, NaN log-weight",
        lambda: _WA.update(
            _WA.init(_EXACT[0])._replace(log_v=np.full(3, np.nan, np.float32)), _EXACT[0], 1.0
        ),
        "state",
    ),
    Same(
        experts.weighted_average,
        "square loss, bool advice",
        lambda: _log_weights(experts.weighted_average(0.5, "square"), _A.astype(bool), _O),
        lambda: _log_weights(
            experts.weighted_average(0.5, "square"), _A.astype(np.float32), _O.astype(np.float32)
        ),
    ),
    Bad(
        experts.weighted_average,
        "update, one expert too many",
        lambda: _WA.update(_WA.init(_EXACT[0]), _WIDE, 1.0),
        "x",
    ),
    # --- SOA and the agnostic learner: point indices -----------------------------------------------------
    Bad(experts.soa, "update, negative point index", lambda: _SOA.update(_SOA.init(0), -1, 1), "x"),
    Bad(
        experts.soa,
        "predict, index past the last point",
        lambda: _SOA.predict(_SOA.init(0), 5),
        "x",
    ),
    Bad(experts.soa, "predict, a float index", lambda: _SOA.predict(_SOA.init(0), 1.0), "x"),
    Bad(
        experts.soa,
        "run, an index past the last point",
        lambda: core.run(_SOA, _SOA.init(0), np.array([0, 7]), np.array([0, 1])),
        "xs",
    ),
    Bad(experts.soa, "H with a label 2", lambda: experts.soa(2 * _H), "H"),
    Bad(experts.soa, "H with NaN", lambda: experts.soa(np.where(_H > 0, np.nan, 0.0)), "H"),
    Bad(
        experts.soa,
        "max_version_spaces 0",
        lambda: experts.soa(_H, max_version_spaces=0),
        "max_version_spaces",
    ),
    Same(experts.soa, "bool H", lambda: _soa_table(_H.astype(bool)), lambda: _soa_table(_H)),
    Same(experts.soa, "list H", lambda: _soa_table(_H.tolist()), lambda: _soa_table(_H)),
    Bad(
        experts.agnostic_experts,
        "predict, negative point index",
        lambda: _AGNOSTIC.predict(_AGNOSTIC.init(0, _KEY), -1),
        "x",
    ),
    Bad(
        experts.agnostic_experts,
        "update, index past the last point",
        lambda: _AGNOSTIC.update(_AGNOSTIC.init(0, _KEY), 5, 1),
        "x",
    ),
    Bad(experts.agnostic_experts, "horizon 0", lambda: experts.agnostic_experts(_H, 0), "horizon"),
    Bad(
        experts.agnostic_experts,
        "max_experts 0",
        lambda: experts.agnostic_experts(_H, 6, max_experts=0),
        "max_experts",
    ),
    Bad(experts.agnostic_experts, "eta -1", lambda: experts.agnostic_experts(_H, 6, -1.0), "eta"),
    # --- the class functions -------------------------------------------------------------------------
    Bad(
        experts.littlestone_dimension,
        "1-D H",
        lambda: experts.littlestone_dimension(np.array([0, 1, 1])),
        "H",
    ),
    Bad(
        experts.littlestone_dimension,
        "H with a label 2",
        lambda: experts.littlestone_dimension(2 * _H),
        "H",
    ),
    Bad(
        experts.littlestone_dimension,
        "mask of the wrong shape",
        lambda: experts.littlestone_dimension(_H, np.ones(3, bool)),
        "mask",
    ),
    Bad(
        experts.littlestone_dimension,
        "max_version_spaces 0",
        lambda: experts.littlestone_dimension(_H, max_version_spaces=0),
        "max_version_spaces",
    ),
    Bad(
        experts.littlestone_dimension,
        "too many version spaces",
        lambda: experts.littlestone_dimension(np.eye(8, dtype=np.int32), max_version_spaces=10),
        "H",
    ),
    Same(
        experts.littlestone_dimension,
        "bool H",
        lambda: experts.littlestone_dimension(_H.astype(bool)),
        lambda: experts.littlestone_dimension(_H),
    ),
    Same(
        experts.littlestone_dimension,
        "list H and list mask",
        lambda: experts.littlestone_dimension(_H.tolist(), [True] * 3 + [False] * 3),
        lambda: experts.littlestone_dimension(_H, np.arange(6) < 3),
    ),
    Bad(
        experts.vc_dimension,
        "H with NaN",
        lambda: experts.vc_dimension(np.where(_H > 0, np.nan, 0.0)),
        "H",
    ),
    Bad(
        experts.vc_dimension,
        "empty H",
        lambda: experts.vc_dimension(np.zeros((0, 3), np.int32)),
        "H",
    ),
    Same(
        experts.vc_dimension,
        "bool and float H",
        lambda: experts.vc_dimension(_H.astype(bool)),
        lambda: experts.vc_dimension(_H.astype(np.float32)),
    ),
    Bad(
        experts.shattered_tree,
        "H without points",
        lambda: experts.shattered_tree(np.zeros((3, 0), np.int32)),
        "H",
    ),
    Bad(experts.shattered_tree, "3-D H", lambda: experts.shattered_tree(_H[None]), "H"),
    Same(
        experts.shattered_tree,
        "list H",
        lambda: experts.shattered_tree(_H.tolist()),
        lambda: experts.shattered_tree(_H),
    ),
]

# --- labels: one scalar per round (a column (T, 1) used to run) -------------------------------------
_XS = np.array([0, 1, 2, 3, 4, 0], np.int32)  # point indices for SOA and the agnostic experts
_YS = _H[2][_XS]


def _column_run(learner, xs, ys, key=False):
    return lambda: core.run(learner, _init(learner, xs[0], key), xs, ys[:, None])


ROWS += [
    Bad(core.run, "consistent, ys a column (T, 1)", _column_run(_CONSISTENT, _A, _O), {"y", "ys"}),
    Bad(core.run, "halving, ys a column (T, 1)", _column_run(_HALVING, _A, _O), {"y", "ys"}),
    Bad(core.run, "weighted majority, ys a column (T, 1)", _column_run(_WM, _A, _O), {"y", "ys"}),
    Bad(
        core.run,
        "randomized WM, ys a column (T, 1)",
        _column_run(_RWM, _A, _O, key=True),
        {"y", "ys"},
    ),
    Bad(core.run, "soa, ys a column (T, 1)", _column_run(_SOA, _XS, _YS), {"y", "ys"}),
    Bad(
        core.run,
        "agnostic experts, ys a column (T, 1)",
        _column_run(_AGNOSTIC, _XS, _YS, key=True),
        {"y", "ys"},
    ),
]
