"""scikit-learn estimators for the k-nearest-neighbour rules: ``KNeighborsClassifier`` and
``KNeighborsRegressor`` (``jaxlearn.neighbors``: exact brute-force Euclidean distances; ``weights``
``"uniform"`` or ``"distance"`` as scikit-learn's, or UML's ``"as_printed"``).

Equal distances go to the lower training index and a tie of votes to the first class, as
scikit-learn's brute-force search with ``weights="uniform"`` does. ``n_neighbors`` larger than the
training sample is a ``ValueError`` (jaxlearn refuses it, as scikit-learn's ``kneighbors``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from jaxlearn import core, neighbors
from jaxlearn._buckets import fit_bucket, on_bucket_rows, pad_rows
from jaxlearn._knn_weights import compiled_neighbour_weights
from jaxlearn._shared import on_device
from jaxlearn.sklearn._base import (
    N_JOBS,
    JaxlearnEstimator,
    OnlyDefault,
    float_dtype,
    power_of_two_scale,
)
from jaxlearn.sklearn._multiclass import MulticlassClassifier, evaluate, fit_learner, scores

__all__ = ["KNeighborsClassifier", "KNeighborsRegressor"]

#: scikit-learn's names of the distances jaxlearn computes.
EUCLIDEAN, MANHATTAN = ("euclidean", "l2"), ("manhattan", "l1", "cityblock")
CHEBYSHEV, COSINE = ("chebyshev", "infinity"), ("cosine",)


class _Neighbors:
    """What both rules share: ``n_neighbors`` and ``kneighbors``."""

    _parameter_constraints = {"n_neighbors": core.POSITIVE_INT, "query_chunk": core.POSITIVE_INT}
    #: the neighbours are exact whatever the search (here: brute force, vectorised)
    _no_effect = {
        "algorithm": frozenset({"auto", "ball_tree", "kd_tree", "brute"}),
        "leaf_size": core.POSITIVE_INT,
        "n_jobs": N_JOBS,
    }
    _only_default = {
        "metric": OnlyDefault(
            ("minkowski", *EUCLIDEAN, *MANHATTAN, *CHEBYSHEV, *COSINE),
            "the distance is Euclidean, Manhattan, Chebyshev or cosine",
        ),
        "p": OnlyDefault(
            (2, 1, math.inf), "Minkowski's p=2 (Euclidean), p=1 (Manhattan) or p=inf (Chebyshev)"
        ),
        "metric_params": OnlyDefault((None,), "the metrics here take no parameters"),
    }

    def _metric(self) -> str:
        """``jaxlearn.neighbors``' metric for scikit-learn's ``metric`` and ``p``."""
        minkowski = self.metric == "minkowski"
        if self.metric in MANHATTAN or (minkowski and self.p == 1):
            return "manhattan"
        if self.metric in CHEBYSHEV or (minkowski and self.p == math.inf):
            return "chebyshev"
        if self.metric in COSINE:
            return "cosine"
        return "euclidean"

    def _check_fit_sample(self, X):
        if isinstance(self.n_neighbors, int) and self.n_neighbors > X.shape[0]:
            raise ValueError(
                f"expected n_neighbors <= n_samples, got n_neighbors = {self.n_neighbors}, "
                f"n_samples = {X.shape[0]}"
            )

    def _store(self, learner, X, y):
        """``learner.fit`` on the sample padded to its size bucket (one program per bucket): the added
        rows repeat the first one (the stored centre, the midpoint of the bounding box, is unchanged)
        and have squared norm :math:`+\\infty`, so they are never anyone's neighbour."""
        n = self.n_samples_fit_ = X.shape[0]
        size = fit_bucket(n)
        X = np.concatenate([X, np.repeat(X[:1], size - n, axis=0)])
        params = fit_learner(learner, None, X, pad_rows(y, size))
        sq_norms = np.asarray(params.sq_norms).copy()  # on the host: no program to compile
        sq_norms[n:] = np.inf
        return params._replace(sq_norms=on_device(sq_norms))

    def kneighbors(self, X=None, n_neighbors=None, return_distance: bool = True):
        """The nearest training points of each row of ``X`` (n, d), nearest first.

        Args:
          X: the queries; ``None``: the training points, each without itself (as scikit-learn's:
            where duplicates outrank a point, its first neighbour is left out instead).
          n_neighbors: how many (default ``self.n_neighbors``), at most the training sample size
            (less than it with ``X=None``).
          return_distance: also return the Euclidean distances.

        Returns:
          ``(distances, indices)``, each (n, n_neighbors), or only ``indices``.
        """
        check_is_fitted(self)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        n_fit, scale = self.n_samples_fit_, getattr(self, "x_scale_", 1.0)
        if X is None:
            if k >= n_fit:
                raise ValueError(
                    f"expected n_neighbors < n_samples_fit with X=None, got n_neighbors = {k}, "
                    f"n_samples_fit = {n_fit}"
                )
            queries = np.asarray(self.params_.X)[:n_fit]  # stored scaled
            index, sq = self._nearest(queries, k + 1)
            itself = index == np.arange(n_fit)[:, None]
            left_out = np.where(itself.any(axis=1), itself.argmax(axis=1), 0)
            keep = np.ones(index.shape, bool)
            keep[np.arange(n_fit), left_out] = False
            index, sq = index[keep].reshape(n_fit, k), sq[keep].reshape(n_fit, k)
        else:
            X = self._check_X(X)
            if k > n_fit:
                raise ValueError(
                    f"expected n_neighbors <= n_samples_fit, got n_neighbors = {k}, "
                    f"n_samples_fit = {n_fit}"
                )
            index, sq = self._nearest(self._scaled(X), k)
        metric = self._metric()
        distance = np.sqrt(np.maximum(sq, 0)) if metric == "euclidean" else sq
        if metric != "cosine":  # (the cosine distance does not change with the rows' scale)
            distance = distance / scale
        return (distance, index) if return_distance else index

    def _left_out_neighbours(self):
        """For ``X=None`` (leave-one-out, as scikit-learn's): each training point's neighbours among
        the others, ``(index, weights)`` (n, k), the weights by ``self.weights`` from the distances."""
        distances, index = self.kneighbors()
        if self.weights == "uniform":
            return index, np.ones(index.shape)
        return index, np.asarray(compiled_neighbour_weights(self.weights, distances))

    def _scaled(self, X):
        """``X`` as the stored points are scaled (``x_scale_``; unscaled without it)."""
        scale = getattr(self, "x_scale_", 1.0)
        return X * scale if scale != 1.0 else X

    def _nearest(self, queries, k: int):
        """The indices and squared distances of the ``k`` nearest stored points of the (scaled)
        ``queries``, one program per size bucket."""
        metric = self._metric()
        return on_bucket_rows(
            lambda rows: neighbors.neighbors(self.params_, rows, k, metric=metric), queries
        )

    def kneighbors_graph(self, X=None, n_neighbors=None, mode: str = "connectivity"):
        """The graph of each row of ``X`` to its nearest training points, as scikit-learn's.

        Args:
          X: the queries (n, d); ``None``: the training points, each without itself.
          n_neighbors: how many (default ``self.n_neighbors``).
          mode: ``"connectivity"`` (entries 1) or ``"distance"`` (the distances).

        Returns:
          A ``scipy.sparse.csr_matrix`` (n, n_samples_fit) with ``n_neighbors`` entries a row.
        """
        if mode not in ("connectivity", "distance"):
            raise ValueError(f"expected `mode` 'connectivity' or 'distance', got {mode!r}")
        distances, index = self.kneighbors(X, n_neighbors)
        n, k = index.shape
        data = np.ones(n * k) if mode == "connectivity" else np.asarray(distances).ravel()
        indptr = np.arange(0, n * k + 1, k)
        return csr_matrix((data, np.asarray(index).ravel(), indptr), shape=(n, self.n_samples_fit_))


class KNeighborsClassifier(_Neighbors, MulticlassClassifier):
    r"""The k-NN rule (``jaxlearn.neighbors.knn``, UML 19.1): the majority label of the k nearest points.

    ``predict_proba`` is each class's share of the k neighbours' (weighted) votes (its argmax is
    ``predict``).

    Args:
      n_neighbors: :math:`k \ge 1`, at most the training sample size.
      weights: ``"uniform"``, ``"distance"`` (inverse distance; a query on training points takes
        their labels) or ``"as_printed"`` (UML 19.1's formula as printed); see ``jaxlearn.neighbors.knn``.
      query_chunk: queries processed at once (memory ``query_chunk * n_samples`` distances).
      algorithm, leaf_size, n_jobs: accepted for scikit-learn's API, with no effect (the neighbours
        are exact whatever the search; jaxlearn's is brute force, vectorised).
      metric, p: the distance: Euclidean (``"minkowski"`` with ``p=2``, ``"euclidean"``, ``"l2"``),
        Manhattan (``"minkowski"`` with ``p=1``, ``"manhattan"``, ``"l1"``, ``"cityblock"``),
        Chebyshev (``"minkowski"`` with ``p=inf``, ``"chebyshev"``, ``"infinity"``) or
        ``"cosine"``.
      metric_params: scikit-learn's default only (``None``).

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import KNeighborsClassifier
      >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
      >>> knn = KNeighborsClassifier(n_neighbors=3).fit(X, ["a", "a", "b", "b", "b"])
      >>> knn.predict([[0.4], [9.0]]).tolist(), (3 * knn.predict_proba([[0.4]])).tolist()
      (['a', 'b'], [[2.0, 1.0]])
    """

    def __init__(
        self,
        n_neighbors: int = 5,
        *,
        weights: str = "uniform",
        algorithm: str = "auto",
        leaf_size: int = 30,
        p=2,
        metric="minkowski",
        metric_params=None,
        n_jobs=None,
        query_chunk: int = 256,
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs
        self.query_chunk = query_chunk

    def _fit_key(self):
        return None  # the rule stores the sample

    def _batch_learner(self, X, n_classes):
        return neighbors.knn(
            self.n_neighbors,
            weights=self.weights,
            metric=self._metric(),
            query_chunk=self.query_chunk,
            num_classes=n_classes,
        )

    def _fit_params(self, learner, X, y):
        # stored as X s, as the regressor stores it (the squares of |x| >= 1e19 stay finite)
        self.x_scale_ = power_of_two_scale(X)
        return self._store(learner, self._scaled(X), y)

    def _queries(self, X):
        return self._scaled(self._check_X(X))

    _extra = staticmethod(scores)

    def predict(self, X) -> np.ndarray:
        """The labels (values of ``classes_``) of the rows of ``X`` (n, d); ``None``: of the training
        points, each by its neighbours among the others (leave-one-out, as scikit-learn's)."""
        if X is None:
            return self.classes_[np.argmax(self.predict_proba(None), axis=1)]
        return super().predict(X)

    def predict_proba(self, X) -> np.ndarray:
        """Each class's share of the (weighted) votes of the ``n_neighbors`` nearest points: (n, K);
        ``X=None``: of the training points, each by its neighbours among the others."""
        if X is not None:
            return self._evaluate(X)[1]
        index, weights = self._left_out_neighbours()
        labels = np.asarray(self.params_.y)[index]
        votes = np.zeros((index.shape[0], self.classes_.size))
        np.add.at(votes, (np.arange(index.shape[0])[:, None], labels), weights)
        return votes / votes.sum(axis=1, keepdims=True)


class KNeighborsRegressor(_Neighbors, RegressorMixin, JaxlearnEstimator):
    r"""k-NN regression (``jaxlearn.neighbors.knn_regressor``): the mean target of the k nearest points.

    Args:
      n_neighbors: :math:`k \ge 1`, at most the training sample size.
      weights: ``"uniform"`` (the mean), ``"distance"`` or ``"as_printed"`` (weighted means; see
        ``jaxlearn.neighbors.knn_regressor``).
      query_chunk: queries processed at once.
      algorithm, leaf_size, n_jobs: accepted for scikit-learn's API, with no effect (the neighbours
        are exact whatever the search; jaxlearn's is brute force, vectorised).
      metric, p: the distance: Euclidean (``"minkowski"`` with ``p=2``, ``"euclidean"``, ``"l2"``),
        Manhattan (``"minkowski"`` with ``p=1``, ``"manhattan"``, ``"l1"``, ``"cityblock"``),
        Chebyshev (``"minkowski"`` with ``p=inf``, ``"chebyshev"``, ``"infinity"``) or
        ``"cosine"``.
      metric_params: scikit-learn's default only (``None``).

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import KNeighborsRegressor
      >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
      >>> KNeighborsRegressor(n_neighbors=2).fit(X, [0.0, 1.0, 2.0, 3.0]).predict([[0.4]]).tolist()
      [0.5]
    """

    def __init__(
        self,
        n_neighbors: int = 5,
        *,
        weights: str = "uniform",
        algorithm: str = "auto",
        leaf_size: int = 30,
        p=2,
        metric="minkowski",
        metric_params=None,
        n_jobs=None,
        query_chunk: int = 256,
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs
        self.query_chunk = query_chunk

    def _batch_learner(self):
        return neighbors.knn_regressor(
            self.n_neighbors,
            weights=self.weights,
            metric=self._metric(),
            query_chunk=self.query_chunk,
        )

    def fit(self, X, y):
        """Store the sample ``X`` (n, d) with its real targets ``y`` (n,).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True, y_numeric=True)
        self._check_fit_sample(X)
        y = np.asarray(y, float_dtype())
        # Stored as X s (s a power of two, 1 below |x| = 2**20): the squared distances of |x| >= 1e19 stay
        # finite, and the nearest points and their weights do not change with a common scale.
        self.x_scale_ = power_of_two_scale(X)
        X = self._scaled(X)
        self.params_ = self._store(self._batch_learner(), X, y)
        return self

    def predict(self, X) -> np.ndarray:
        """The (weighted) mean target of the ``n_neighbors`` nearest training points of each row: (n,);
        ``X=None``: of the training points, each by its neighbours among the others (leave-one-out)."""
        if X is None:
            index, weights = self._left_out_neighbours()
            targets = np.asarray(self.params_.y)[index]
            return np.sum(weights * targets, axis=1) / np.sum(weights, axis=1)
        X = self._scaled(self._check_X(X))
        learner = self._batch_learner()
        return on_bucket_rows(lambda rows: evaluate(learner, self.params_, rows)[0], X)
