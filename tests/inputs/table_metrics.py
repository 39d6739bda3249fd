"""Bad input to :mod:`jaxlearn.metrics`: ``accuracy``, ``cumulative_mistakes``, ``regret``."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import metrics as M
from tests.inputs.rows import Bad, Holds, Same

_Y = np.array([1.0, -1.0, 1.0, 1.0], np.float32)
_P = np.array([1.0, 1.0, 1.0, -1.0], np.float32)
_F = np.array([0.0, 1.0, 1.0, 0.0], np.float32)  # mistake flags
_L = np.array([1.0, 0.5, 0.0, 1.0], np.float32)  # learner losses
_C = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], np.float32)  # two comparators


class _Info(NamedTuple):
    loss: np.ndarray


class _NoFlags(NamedTuple):
    prediction: np.ndarray


def _equals(value):
    def check(got):
        np.testing.assert_allclose(np.asarray(got), value)

    return check


ROWS = [
    # accuracy
    Bad(M.accuracy, "shapes differ", lambda: M.accuracy(_Y, _P[:3]), ("y_true", "y_pred")),
    Bad(M.accuracy, "empty", lambda: M.accuracy(_Y[:0], _P[:0]), "y_true"),
    Bad(
        M.accuracy, "NaN prediction", lambda: M.accuracy(_Y, np.where(_P > 0, np.nan, _P)), "y_pred"
    ),
    Bad(M.accuracy, "NaN label", lambda: M.accuracy(np.where(_Y > 0, np.nan, _Y), _P), "y_true"),
    Bad(M.accuracy, "scalar", lambda: M.accuracy(1.0, 1.0), "y_true"),
    Bad(
        M.accuracy, "string labels", lambda: M.accuracy(["a", "b"], ["a", "b"]), "y_true", TypeError
    ),
    Same(
        M.accuracy,
        "int labels against float predictions",
        lambda: M.accuracy(_Y.astype(np.int32), _P),
        lambda: M.accuracy(_Y, _P),
    ),
    Same(
        M.accuracy,
        "lists",
        lambda: M.accuracy(_Y.tolist(), _P.tolist()),
        lambda: M.accuracy(_Y, _P),
    ),
    Same(M.accuracy, "bool labels", lambda: M.accuracy(_Y > 0, _P > 0), lambda: M.accuracy(_Y, _P)),
    Same(M.accuracy, "one example", lambda: M.accuracy(_Y[:1], _P[:1]), lambda: jnp.float32(1.0)),
    Same(M.accuracy, "under jit", lambda: jax.jit(M.accuracy)(_Y, _P), lambda: M.accuracy(_Y, _P)),
    # cumulative_mistakes
    Bad(M.cumulative_mistakes, "empty", lambda: M.cumulative_mistakes(_F[:0]), "trace"),
    Bad(M.cumulative_mistakes, "scalar", lambda: M.cumulative_mistakes(1.0), "trace"),
    Bad(
        M.cumulative_mistakes,
        "NaN flag",
        lambda: M.cumulative_mistakes(np.array([0.0, np.nan])),
        "trace",
    ),
    Bad(
        M.cumulative_mistakes,
        "fractional losses (not 0/1 mistakes)",
        lambda: M.cumulative_mistakes(_Info(_L)),
        "trace",
    ),
    Bad(
        M.cumulative_mistakes,
        "an Info without mistake/loss",
        lambda: M.cumulative_mistakes(_NoFlags(_F)),
        "trace",
        TypeError,
    ),
    Bad(
        M.cumulative_mistakes, "a string", lambda: M.cumulative_mistakes("0101"), "trace", TypeError
    ),
    Same(
        M.cumulative_mistakes,
        "bool flags",
        lambda: M.cumulative_mistakes(_F > 0),
        lambda: M.cumulative_mistakes(_F),
    ),
    Same(
        M.cumulative_mistakes,
        "list of ints",
        lambda: M.cumulative_mistakes([0, 1, 1, 0]),
        lambda: M.cumulative_mistakes(_F),
    ),
    Same(
        M.cumulative_mistakes,
        "Info with a 0/1 loss",
        lambda: M.cumulative_mistakes(_Info(_F)),
        lambda: M.cumulative_mistakes(_F),
    ),
    Holds(M.cumulative_mistakes, "one round", lambda: M.cumulative_mistakes(_F[1:2]), _equals([1])),
    Holds(
        M.cumulative_mistakes,
        "under jit",
        lambda: jax.jit(M.cumulative_mistakes)(_F),
        _equals([0, 1, 2, 2]),
    ),
    # regret
    Bad(
        M.regret,
        "lengths differ",
        lambda: M.regret(_L, _C[:3]),
        ("learner_losses", "comparator_losses"),
    ),
    Bad(
        M.regret,
        "empty stream",
        lambda: M.regret(_L[:0], _C[:0]),
        ("learner_losses", "comparator_losses"),
    ),
    Bad(M.regret, "no comparator", lambda: M.regret(_L, _C[:, :0]), "comparator_losses"),
    Bad(M.regret, "3-D comparators", lambda: M.regret(_L, _C[:, :, None]), "comparator_losses"),
    Bad(M.regret, "2-D learner losses", lambda: M.regret(_C, _C), "learner_losses"),
    Bad(
        M.regret,
        "NaN learner loss",
        lambda: M.regret(np.where(_L > 0.7, np.nan, _L), _C),
        "learner_losses",
    ),
    Bad(
        M.regret,
        "inf comparator loss",
        lambda: M.regret(_L, np.where(_C > 0, np.inf, _C)),
        "comparator_losses",
    ),
    Bad(M.regret, "None comparators", lambda: M.regret(_L, None), "comparator_losses", TypeError),
    Same(
        M.regret,
        "int and bool losses",
        lambda: M.regret(_F.astype(np.int32), _C > 0),
        lambda: M.regret(_F, _C),
    ),
    Same(M.regret, "lists", lambda: M.regret(_L.tolist(), _C.tolist()), lambda: M.regret(_L, _C)),
    Same(
        M.regret,
        "one comparator of shape (T,)",
        lambda: M.regret(_L, _C[:, 0]),
        lambda: M.regret(_L, _C[:, :1]),
    ),
    Holds(M.regret, "one round", lambda: M.regret(_L[:1], _C[:1]), _equals([1.0])),
    Same(M.regret, "under jit", lambda: jax.jit(M.regret)(_L, _C), lambda: M.regret(_L, _C)),
]
