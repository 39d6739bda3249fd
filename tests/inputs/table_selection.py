"""Bad and unusual input to :mod:`jaxlearn.selection`: splits, cross-validation, grid search."""
# ruff: noqa: E501 - one row per line reads as a table

import jax
import numpy as np

from jaxlearn import linear, parallel
from jaxlearn import selection as S
from tests.inputs.rows import Bad, Same

_KEY = jax.random.key(0)
_X = np.array(
    [[1.0, 0.5], [-1.0, -0.5], [2.0, 1.0], [-2.0, 0.0], [0.5, 1.0], [-0.5, -1.0]], np.float32
)
_Y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0], np.float32)
_LAMS = np.array([0.1, 1.0], np.float32)


def _svm(lam):
    return linear.soft_svm(lam, 20)


def _search(**changes):
    arguments = dict(make=_svm, grid={"lam": _LAMS}, X=_X, y=_Y, key=_KEY, folds=2, refit=False)
    arguments.update(changes)
    return S.grid_search(**arguments).scores


ROWS = [
    # kfold
    Bad(S.kfold, "one fold", lambda: S.kfold(_KEY, 6, 1), "folds"),
    Bad(S.kfold, "more folds than examples", lambda: S.kfold(_KEY, 6, 7), "folds"),
    Bad(S.kfold, "float folds", lambda: S.kfold(_KEY, 6, 2.0), "folds", TypeError),
    Bad(S.kfold, "no examples", lambda: S.kfold(_KEY, 0, 2), "n"),
    Bad(S.kfold, "int key", lambda: S.kfold(0, 6, 2), "key", TypeError),
    # train_test_split
    Bad(
        S.train_test_split,
        "test_size 0",
        lambda: S.train_test_split(_KEY, _X, _Y, 0.0),
        "test_size",
    ),
    Bad(
        S.train_test_split,
        "test_size 1",
        lambda: S.train_test_split(_KEY, _X, _Y, 1.0),
        "test_size",
    ),
    Bad(
        S.train_test_split,
        "NaN test_size",
        lambda: S.train_test_split(_KEY, _X, _Y, np.nan),
        "test_size",
    ),
    Bad(
        S.train_test_split,
        "lengths differ",
        lambda: S.train_test_split(_KEY, _X, _Y[:5], 0.5),
        ("X", "y"),
    ),
    Bad(
        S.train_test_split,
        "one example",
        lambda: S.train_test_split(_KEY, _X[:1], _Y[:1], 0.5),
        "X",
    ),
    Same(
        S.train_test_split,
        "lists",
        lambda: S.train_test_split(_KEY, _X.tolist(), _Y.tolist(), 0.5),
        lambda: S.train_test_split(_KEY, _X, _Y, 0.5),
    ),
    # cross_validate
    Bad(
        S.cross_validate,
        "not a learner",
        lambda: S.cross_validate(_svm, _X, _Y, key=_KEY),
        "learner",
        TypeError,
    ),
    Bad(
        S.cross_validate,
        "NaN X",
        lambda: S.cross_validate(_svm(0.1), _X * np.nan, _Y, key=_KEY, folds=2),
        "X",
    ),
    Bad(
        S.cross_validate,
        "labels 0/1",
        lambda: S.cross_validate(_svm(0.1), _X, _Y > 0, key=_KEY, folds=2),
        "y",
    ),
    Bad(
        S.cross_validate,
        "scoring",
        lambda: S.cross_validate(_svm(0.1), _X, _Y, key=_KEY, scoring="f1"),
        "scoring",
    ),
    Same(
        S.cross_validate,
        "lists",
        lambda: S.cross_validate(_svm(0.1), _X.tolist(), _Y.tolist(), key=_KEY, folds=2),
        lambda: S.cross_validate(_svm(0.1), _X, _Y, key=_KEY, folds=2),
    ),
    # grid_search
    Bad(S.grid_search, "empty grid", lambda: _search(grid={}), "grid"),
    Bad(S.grid_search, "2-D grid values", lambda: _search(grid={"lam": _X}), "grid"),
    Bad(S.grid_search, "unknown name", lambda: _search(grid={"eta": _LAMS}), "grid"),
    Bad(
        S.grid_search,
        "a value out of range",
        lambda: _search(grid={"lam": np.array([0.1, -1.0])}),
        "lam",
    ),
    Bad(
        S.grid_search,
        "NaN grid value",
        lambda: _search(grid={"lam": np.array([0.1, np.nan])}),
        "lam",
    ),
    Bad(S.grid_search, "folds", lambda: _search(folds=7), "folds"),
    Bad(S.grid_search, "batch_size", lambda: _search(batch_size=0), "batch_size"),
    Bad(S.grid_search, "NaN X", lambda: _search(X=_X * np.nan), "X"),
    Bad(
        S.grid_search,
        "make returns no learner",
        lambda: _search(make=lambda lam: lam),
        "make",
        TypeError,
    ),
    Same(S.grid_search, "lists", lambda: _search(X=_X.tolist(), y=_Y.tolist()), lambda: _search()),
    Bad(S.grid_search, "mesh an axis name", lambda: _search(mesh="data"), "mesh", TypeError),
    Same(
        S.grid_search,
        "a one-device mesh",
        lambda: _search(mesh=parallel.mesh(devices=jax.devices()[:1])),
        lambda: _search(),
        rtol=0,
        atol=0,
    ),
]
