"""Bad and unusual input to ``jaxlearn.neighbors``: ``neighbors`` (the one non-factory function) and the
k-NN learners' own cases (``k`` larger than the sample, one row, one class, labels, widths)."""

import functools

import jax
import numpy as np

from jaxlearn import neighbors as nb
from tests.inputs.rows import Bad, Holds, Same

KEY = jax.random.PRNGKey(0)
_X = np.array([[0.0, 1.0], [1.0, 3.0], [2.0, 0.0], [3.0, 2.0], [4.0, 1.0]], np.float32)
_Y = np.array([0, 0, 1, 1, 1])
_Q = np.array([[0.2, 1.1], [3.9, 0.8]], np.float32)
_KNN = nb.knn(3, num_classes=2)
_REG = nb.knn_regressor(2)
_NEAR = nb.knn(3, weights="distance", num_classes=2)


@functools.lru_cache(maxsize=None)
def _params():
    return _KNN.fit(KEY, _X, _Y)


def _nearest(Q, k=2, **kwargs):
    return lambda: nb.neighbors(_params(), Q, k, **kwargs)


def _sorted(result):
    idx, d2 = (np.asarray(a) for a in result)
    assert idx.shape == d2.shape == (2, 5) and (np.diff(d2, axis=1) >= 0).all() and (d2 >= 0).all()
    assert sorted(idx[0].tolist()) == list(range(5))


def _labels(want):
    return lambda got: np.testing.assert_array_equal(np.asarray(got), want)


ROWS = [
    # neighbors(params, X, k): 1 <= k <= m (as scikit-learn's kneighbors: refused, not clipped)
    Bad(nb.neighbors, "k larger than the sample", _nearest(_Q, 6), "k"),
    Bad(nb.neighbors, "k 0", _nearest(_Q, 0), "k"),
    Bad(nb.neighbors, "k 1.5", _nearest(_Q, 1.5), "k", TypeError),
    Bad(nb.neighbors, "k True", _nearest(_Q, True), "k", TypeError),
    Bad(nb.neighbors, "query_chunk 0", _nearest(_Q, 2, query_chunk=0), "query_chunk"),
    Bad(nb.neighbors, "one feature too wide", _nearest(np.ones((2, 3), np.float32)), "X"),
    Bad(nb.neighbors, "one feature too narrow", _nearest(_Q[:, :1]), "X"),
    Bad(nb.neighbors, "a 1-D query", _nearest(_Q[0]), "X"),
    Bad(nb.neighbors, "NaN query", _nearest(np.where(_Q > 3, np.nan, _Q)), "X"),
    Bad(
        nb.neighbors,
        "too wide under jit (a shape check)",
        lambda: jax.jit(lambda p, q: nb.neighbors(p, q, 2))(_params(), np.ones((2, 3), np.float32)),
        "X",
    ),
    Bad(
        nb.neighbors,
        "params not KNNParams",
        lambda: nb.neighbors((_X, _Y), _Q, 2),
        "params",
        TypeError,
    ),
    Same(nb.neighbors, "list queries", _nearest(_Q.tolist()), _nearest(_Q)),
    Same(
        nb.neighbors,
        "int queries",
        _nearest(np.array([[0, 1], [4, 1]])),
        _nearest(np.array([[0.0, 1.0], [4.0, 1.0]], np.float32)),
    ),
    Holds(nb.neighbors, "k = m: every point, nearest first", _nearest(_Q, 5), _sorted),
    # the learners' own cases (the generic suite checks ranges, NaN, widths, lists and int X)
    Bad(nb.knn, "k larger than the sample", lambda: nb.knn(6).fit(KEY, _X, _Y), ("k", "X")),
    Bad(
        nb.knn,
        "predict with k larger than the stored sample",
        lambda: nb.knn(6, num_classes=2).predict(_params(), _Q),
        "k",
    ),
    Bad(nb.knn, "fit on a 1-D X", lambda: _KNN.fit(KEY, _X[:, 0], _Y), "X"),
    Bad(nb.knn, "label 2 with num_classes=2", lambda: _KNN.fit(KEY, _X, _Y * 2), "y"),
    Bad(nb.knn, "label -1 (classes read off y)", lambda: nb.knn(1).fit(KEY, _X, _Y - 1), "y"),
    Bad(nb.knn, "num_classes 1", lambda: nb.knn(1, num_classes=1), "num_classes"),
    Bad(
        nb.knn,
        "predict too wide under jit",
        lambda: jax.jit(_KNN.predict)(_params(), np.ones((2, 3), np.float32)),
        "X",
    ),
    Holds(
        nb.knn,
        "one row, k = 1: its label everywhere",
        lambda: nb.knn(1, num_classes=2).predict(nb.knn(1).fit(KEY, _X[2:3], _Y[2:3]), _Q),
        _labels([1, 1]),
    ),
    Holds(
        nb.knn,
        "one class",
        lambda: _KNN.predict(_KNN.fit(KEY, _X, np.zeros(5, np.int32)), _Q),
        _labels([0, 0]),
    ),
    Same(
        nb.knn,
        "bool X",
        lambda: _KNN.predict(_KNN.fit(KEY, _X > 1, _Y), _Q > 1),
        lambda: _KNN.predict(
            _KNN.fit(KEY, (_X > 1).astype(np.float32), _Y), (_Q > 1).astype(np.float32)
        ),
    ),
    Same(
        nb.knn,
        "float labels holding integers",
        lambda: _KNN.fit(KEY, _X, _Y.astype(np.float32)),
        _params,
    ),
    Bad(
        nb.knn_regressor,
        "k larger than the sample",
        lambda: _REG.fit(KEY, _X[:1], _Y[:1]),
        ("k", "X"),
    ),
    Bad(
        nb.knn_regressor,
        "NaN target",
        lambda: _REG.fit(KEY, _X, np.where(_Y > 0, np.nan, 0.0)),
        "y",
    ),
    Holds(
        nb.knn_regressor,
        "one row, k = 1: its target everywhere",
        lambda: nb.knn_regressor(1).predict(nb.knn_regressor(1).fit(KEY, _X[:1], [2.5]), _Q),
        _labels([2.5, 2.5]),
    ),
    Same(
        nb.knn_regressor,
        "int targets",
        lambda: _REG.predict(_REG.fit(KEY, _X, _Y), _Q),
        lambda: _REG.predict(_REG.fit(KEY, _X, _Y.astype(np.float32)), _Q),
    ),
    # weights= (SPEC 16.1): "uniform", "distance" (scikit-learn's) or "as_printed" (UML's formula)
    Bad(nb.knn, "weights 'inverse'", lambda: nb.knn(3, weights="inverse"), "weights"),
    Bad(
        nb.knn,
        "weights a callable (not offered)",
        lambda: nb.knn(3, weights=lambda d: 1 / d),
        "weights",
    ),
    Bad(nb.knn, "weights 'Distance'", lambda: nb.knn(3, weights="Distance"), "weights"),
    Bad(nb.knn, "metric 'braycurtis'", lambda: nb.knn(3, metric="braycurtis"), "metric"),
    Bad(nb.knn_regressor, "metric None", lambda: nb.knn_regressor(2, metric=None), "metric"),
    Bad(nb.knn_regressor, "weights None", lambda: nb.knn_regressor(2, weights=None), "weights"),
    Bad(
        nb.knn_regressor,
        "weights an array",
        lambda: nb.knn_regressor(2, weights=np.ones(2)),
        "weights",
    ),
    Holds(
        nb.knn,
        "distance weights, a query on a training point: its label",
        lambda: nb.knn(5, weights="distance", num_classes=2).predict(_params(), _X[2:4]),
        _labels([1, 1]),
    ),
    Holds(
        nb.knn_regressor,
        "distance weights, a query on a training point: its target",
        lambda: nb.knn_regressor(3, weights="distance").predict(
            _REG.fit(KEY, _X, [1.0, 2, 3, 4, 5]), _X[:2]
        ),
        _labels([1.0, 2.0]),
    ),
    Holds(
        nb.knn_regressor,
        "as_printed, every neighbour on the query: the plain mean",
        lambda: nb.knn_regressor(2, weights="as_printed").predict(
            _REG.fit(KEY, _X[[0, 0, 4]], [1.0, 2.0, 9.0]), _X[:1]
        ),
        _labels([1.5]),
    ),
    Same(
        nb.knn,
        "distance weights, int queries",
        lambda: _NEAR.predict(_params(), np.array([[0, 1], [4, 2]])),
        lambda: _NEAR.predict(_params(), np.float32([[0, 1], [4, 2]])),
    ),
]
