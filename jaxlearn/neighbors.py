r"""The k-nearest-neighbour rules by brute force (UML sections 19.1 and 19.3).

Distances are exact Euclidean distances (or, with ``metric=``, :math:`\ell_1`, :math:`\ell_\infty` or
cosine distances, each computed directly) in query chunks of static size: squared Euclidean distances
by one matrix product, :math:`\|q - x\|^2 = \|q\|^2 - 2\langle q, x\rangle + \|x\|^2`, ``lax.top_k``
to shortlist candidates, then the shortlist re-ranked by directly computed :math:`\|q - x\|^2`, so
that the cancellation of the expanded form (in float32) cannot reorder close neighbours.

Past one device: ``fit`` on a sample split by rows (``jaxlearn.parallel.shard_rows((X, y), mesh)``)
keeps it split, and every prediction then runs inside ``jax.shard_map``: each device finds the ``k``
nearest of its own rows for every query, and one ``all_gather`` of these ``(n, k)`` candidates,
sorted by (distance, index), gives exactly the one-device answer (indices, distances, labels, bit
for bit). The training rows never leave their device.

Examples:
  >>> import jax.numpy as jnp
  >>> from jaxlearn import parallel
  >>> X, y = jnp.arange(16.0)[:, None], (jnp.arange(16) >= 8).astype(jnp.int32)
  >>> params = knn(2).fit(None, *parallel.shard_rows((X, y)))  # rows split over every device
  >>> knn(2).predict(params, jnp.array([[2.2], [9.9]])).tolist()
  [0, 1]
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
from jax.typing import ArrayLike

from jaxlearn._checks import (
    at_least,
    check_finite,
    check_ndim,
    check_sample,
    check_width,
    is_concrete,
    num_classes_of,
)
from jaxlearn._knn_weights import neighbour_weights
from jaxlearn._sharding import device_index, row_split, rows_like
from jaxlearn._shared import as_float, float_dtype
from jaxlearn.core import POSITIVE_INT, BatchLearner, learner_factory, loadable

__all__ = ["KNNParams", "knn", "knn_regressor", "neighbors"]

Array = jax.Array
#: The ranges of the numeric arguments of the k-NN factories.
RANGES = {"k": POSITIVE_INT, "query_chunk": POSITIVE_INT}

#: The neighbours' weights (UML section 19.1): equal, inverse distance (scikit-learn's ``"distance"``),
#: or proportional to distance (the formula as UML prints it).
WEIGHTS = ("uniform", "distance", "as_printed")
#: The distances: Euclidean (UML's :math:`\rho`), Manhattan (:math:`\ell_1`, scikit-learn's ``p=1``),
#: Chebyshev (:math:`\ell_\infty`) or cosine (one minus the cosine similarity).
METRICS = ("euclidean", "manhattan", "chebyshev", "cosine")
#: The most entries of the (queries, rows, features) differences a Manhattan or Chebyshev chunk holds.
DIFFERENCE_ENTRIES = 2**22
#: Extra candidates shortlisted by the expanded distance before the exact re-ranking.
EXTRA_CANDIDATES = 8
#: Rows of fewer scores take one ``top_k``: below about this length the two stages cost no less.
TWO_STAGE_MIN_SCORES = 2048


@loadable
class KNNParams(NamedTuple):
    r"""The stored sample: ``X`` (m, d), ``y`` (m,) (int32 labels, or float targets for
    :func:`knn_regressor`), ``center`` :math:`c` (d,), the midpoint of the sample's bounding box
    :math:`(\min_i x_i + \max_i x_i) / 2`, and ``sq_norms`` :math:`\|x_i - c\|^2` (m,); a row whose
    ``sq_norms`` is :math:`+\infty` is left out: it is never a neighbour). The shortlist's
    expanded form works on centred points (far less cancellation when the data sit far from 0); ``min``
    and ``max`` give the same ``center`` bits however the rows are split, where a mean would not.

    Fitted on ``X`` split by rows over a mesh, ``X``, ``y`` and ``sq_norms`` are split the same way
    (``NamedSharding(mesh, P(axes))``) and ``center`` is replicated (``P()``)."""

    X: Array
    y: Array
    center: Array
    sq_norms: Array


@learner_factory(ranges={**RANGES, "num_classes": at_least(2, integer=True)})
def knn(
    k: int,
    *,
    weights: str = "uniform",
    metric: str = "euclidean",
    query_chunk: int = 256,
    num_classes: Optional[int] = None,
) -> BatchLearner:
    r"""The k-NN rule (UML section 19.1): the majority label of the :math:`k` nearest training points.

    With :math:`\pi_1(x), \dots, \pi_m(x)` the training indices sorted by :math:`\|x - x_i\|`
    (ties: lower index first), and a tie of votes going to the smallest label (as scikit-learn's
    ``KNeighborsClassifier``); :math:`k = 1` is the 1-NN rule :math:`y_{\pi_1(x)}`. Each neighbour
    votes with a weight :math:`w_i(x)` (all 1 unless ``weights`` says otherwise, see :data:`WEIGHTS`):

    .. math:: h_S(x) = \arg\max_c \sum_{i \le k:\ y_{\pi_i(x)} = c} w_i(x).

    Args:
      k: the number of neighbours (structural; at most the sample size).
      weights: ``"uniform"`` (:math:`w_i = 1`), ``"distance"`` (:math:`w_i = 1/\rho_i` with
        :math:`\rho_i = \|x - x_{\pi_i(x)}\|`; a query on training points: those points get weight 1 and
        the others 0, as scikit-learn's ``weights="distance"``) or ``"as_printed"`` (UML's formula as
        printed, :math:`w_i = \rho_i / \sum_{j \le k} \rho_j`: *farther* neighbours weigh more; all
        :math:`k` at distance 0: equal weights). Static.
      metric: :math:`\rho`: ``"euclidean"``, ``"manhattan"`` (:math:`\|x - x_i\|_1`),
        ``"chebyshev"`` (:math:`\|x - x_i\|_\infty`) (these two: memory ``query_chunk * m * d``, the
        chunk cut to at most 2^22 differences) or ``"cosine"`` (:math:`1 - \langle x, x_i\rangle /
        (\|x\| \|x_i\|)`, a zero vector at distance 1 from all, as scikit-learn's). Static.
      query_chunk: queries processed at once (static; memory is ``query_chunk * m`` distances).
      num_classes: the number of classes (labels ``0..num_classes-1``), or ``None`` to read it off
        concrete labels as ``max(y) + 1`` (at least 2).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> KNNParams`` (stores the sample;
      ``key`` unused), ``predict(params, X)`` the int32 labels, ``decision_function`` each class's
      share of the (weighted) votes, (n, K).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X, y = jnp.array([[0.0], [1.0], [2.0], [10.0], [11.0]]), jnp.array([0, 0, 1, 1, 1])
      >>> rule = knn(3)
      >>> rule.predict(rule.fit(jax.random.PRNGKey(0), X, y), jnp.array([[0.4], [9.0]])).tolist()
      [0, 1]
      >>> near = knn(3, weights="distance")  # 1.9 is much nearer to 2 (label 1) than to 0 and 1
      >>> near.predict(near.fit(jax.random.PRNGKey(0), X, y), jnp.array([[1.9]])).tolist()
      [1]

    References:
      UML sections 19.1 (the rules), 19.3 (brute-force implementation).
    """
    k, query_chunk, weights = int(k), int(query_chunk), _check_weights(weights)
    metric = _check_metric(metric)
    num_classes = None if num_classes is None else int(num_classes)

    def check(X, y):
        _check_sample(X, y, k)
        num_classes_of(
            y, num_classes
        )  # labels in 0..num_classes-1 (raises on a traced `y` without it)

    def fit(key, X, y):
        X = jnp.asarray(X)
        return _fit(X.astype(float_dtype(X)), jnp.asarray(y).astype(jnp.int32))

    def predict(params, X):
        Xq = _check_query(params, X, k)
        classes = num_classes if num_classes is not None else _classes_of(params.y)
        return _run("vote", params, Xq, k, query_chunk, classes, weights, metric)

    def decision_function(params, X):
        Xq = _check_query(params, X, k)
        classes = num_classes if num_classes is not None else _classes_of(params.y)
        return _run("shares", params, Xq, k, query_chunk, classes, weights, metric)

    return BatchLearner(fit, predict, decision_function, check=check)


@learner_factory(ranges=RANGES)
def knn_regressor(
    k: int, *, weights: str = "uniform", metric: str = "euclidean", query_chunk: int = 256
) -> BatchLearner:
    r"""k-NN regression (UML section 19.1): the mean target of the :math:`k` nearest training points,
    or their weighted mean with the weights :math:`w_i(x)` of :func:`knn`:

    .. math:: h_S(x) = \frac1k\sum_{i=1}^k y_{\pi_i(x)}, \qquad
        h_S(x) = \frac{\sum_{i=1}^k w_i(x)\, y_{\pi_i(x)}}{\sum_{i=1}^k w_i(x)}.

    ``weights="as_printed"`` is UML's distance-weighted rule exactly as printed,
    :math:`\sum_i \big(\rho(x, x_{\pi_i(x)}) / \sum_j \rho(x, x_{\pi_j(x)})\big)\, y_{\pi_i(x)}`.

    Args:
      k: the number of neighbours (structural; at most the sample size).
      weights: ``"uniform"``, ``"distance"`` (scikit-learn's ``KNeighborsRegressor(weights="distance")``)
        or ``"as_printed"``, as in :func:`knn` (static).
      metric: one of :data:`METRICS`, as in :func:`knn` (static).
      query_chunk: queries processed at once (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> KNNParams`` with real targets,
      ``predict(params, X)`` the neighbours' mean target.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X = jnp.array([[0.0], [1.0], [2.0], [10.0]])
      >>> rule = knn_regressor(2)
      >>> params = rule.fit(jax.random.PRNGKey(0), X, jnp.array([0.0, 1.0, 2.0, 3.0]))
      >>> rule.predict(params, jnp.array([[0.4]])).tolist()
      [0.5]

    References:
      UML section 19.1.
    """
    k, query_chunk, weights = int(k), int(query_chunk), _check_weights(weights)
    metric = _check_metric(metric)

    def fit(key, X, y):
        return _fit(*as_float(X, y))

    def predict(params, X):
        Xq = _check_query(params, X, k)
        return _run("mean", params, Xq, k, query_chunk, weights=weights, metric=metric)

    return BatchLearner(fit, predict, check=lambda X, y: _check_sample(X, y, k))


def neighbors(
    params: KNNParams, X: ArrayLike, k: int, *, metric: str = "euclidean", query_chunk: int = 256
) -> tuple[Array, Array]:
    r"""The :math:`k` nearest training points of each query: ``(indices, distances)``, each (n, k),
    nearest first (equal distances: lower index first); the distances are squared for
    ``metric="euclidean"``, the metric's own for the others.

    ``params`` from a k-NN ``fit``, ``X`` (n, d) finite queries of the training width,
    :math:`1 \le k \le m` (as scikit-learn's ``kneighbors``, a larger ``k`` is refused, not clipped).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> params = knn(1).fit(jax.random.PRNGKey(0), jnp.array([[0.0], [1.0], [3.0]]), jnp.array([0, 1, 1]))
      >>> neighbors(params, jnp.array([[0.75]]), 2)[0].tolist()
      [[1, 0]]
    """
    for name, value in (("k", k), ("query_chunk", query_chunk)):
        POSITIVE_INT.check(name, value)
    k, query_chunk, metric = int(k), int(query_chunk), _check_metric(metric)
    Xq = _check_query(params, X, k)
    return _run("neighbors", params, Xq, k, query_chunk, metric=metric)


def _store_rows(X, y):
    center = jnp.min(X, axis=0) / 2 + jnp.max(X, axis=0) / 2
    centred = X - center
    return KNNParams(X, y, center, jnp.sum(centred * centred, axis=1))


_store = jax.jit(_store_rows)


@functools.lru_cache(maxsize=None)
def _store_split(mesh, axes):
    """:func:`_store_rows` for a sample split by rows over ``axes`` of ``mesh``, the shardings of
    :class:`KNNParams` pinned (GSPMD finds the same ones: nothing is gathered)."""
    rows, whole = NamedSharding(mesh, P(axes)), NamedSharding(mesh, P())
    return jax.jit(_store_rows, out_shardings=KNNParams(rows, rows, whole, rows))


def _fit(X, y):
    split = row_split(X)
    if split is None:
        return _store(X, y)
    return _store_split(split.mesh, split.axes)(X, rows_like(split, y))


def _check_weights(weights):
    if not isinstance(weights, str) or weights not in WEIGHTS:
        raise ValueError(f"expected `weights` one of {WEIGHTS}, got {weights!r}")
    return weights


def _check_metric(metric):
    if not isinstance(metric, str) or metric not in METRICS:
        raise ValueError(f"expected `metric` one of {METRICS}, got {metric!r}")
    return metric


def _check_sample(X, y, k):
    check_sample(X, y, labels=None)
    _check_k(k, X)


def _check_k(k, X, name="X"):
    """As scikit-learn, ``k`` neighbours need ``m >= k`` training examples (shapes: also under jit);
    split by rows over ``D`` devices (``D`` divides ``m``: JAX refuses an uneven split), every device
    finds ``k`` neighbours among its own ``m / D`` rows, so ``k <= m / D``."""
    m = jnp.shape(X)[0]
    if k > m:
        raise ValueError(
            f"expected `k` <= the number of training examples m = {m}, got k = {k} "
            f"(`X` has too few rows for `k` neighbours)"
        )
    split = row_split(X, name)
    if split is None:
        return
    if k > m // split.count:
        raise ValueError(
            f"expected `k` <= the {m // split.count} training examples each of the {split.count} devices "
            f"holds (m = {m} split by rows), got k = {k}: use fewer devices or a smaller `k`"
        )


def _check_query(params, X, k):
    if not isinstance(params, KNNParams):
        raise TypeError(f"expected `params` a KNNParams (from `fit`), got {type(params).__name__}")
    X = np.asarray(X) if isinstance(X, list) else X
    check_ndim("X", X, 2, "(n, d)")
    check_width("X", X, params.X.shape[-1])
    check_finite("X", X)
    _check_k(k, params.X, "params.X")
    return jnp.asarray(X).astype(params.X.dtype)


def _classes_of(y):
    if not is_concrete(y):
        raise ValueError(
            "cannot infer the number of classes from traced params (or labels split over several "
            "processes); pass `num_classes=` to `knn`"
        )
    return max(2, int(np.max(np.asarray(y))) + 1)


def _nearest_direct(params, Q, k, metric):
    r""":func:`_nearest` for the :math:`\ell_1` (``"manhattan"``) and :math:`\ell_\infty`
    (``"chebyshev"``) distances: every distance computed directly."""
    m = params.X.shape[0]
    differences = jnp.abs(Q[:, None, :] - params.X[None, :, :])  # (c, m, d)
    dist = jnp.sum(differences, -1) if metric == "manhattan" else jnp.max(differences, -1)
    dist = jnp.where(jnp.isinf(params.sq_norms)[None], jnp.inf, dist)  # rows left out
    candidates = _top_k_indices(-dist, min(m, k))
    return _ranked(params, candidates, jnp.take_along_axis(dist, candidates, axis=1), k)


def _nearest_cosine(params, unit_X, Q, k):
    r""":func:`_nearest` for the cosine distance :math:`1 - \langle u, v\rangle` of the rows scaled
    to unit length (``unit_X``; a zero row stays zero, at distance 1 from all, as scikit-learn's
    ``cosine_distances``, which clips to [0, 2]): a shortlist by one matrix product, re-ranked by
    the distances computed row by row (the same bits however the rows are split)."""
    m = params.X.shape[0]
    q = jnp.linalg.norm(Q, axis=1, keepdims=True)
    unit_Q = Q / jnp.where(q > 0, q, 1)
    score = jnp.where(jnp.isinf(params.sq_norms)[None], -jnp.inf, unit_Q @ unit_X.T)
    candidates = _top_k_indices(score, min(m, k + EXTRA_CANDIDATES))
    exact = jnp.clip(1 - jnp.sum(unit_X[candidates] * unit_Q[:, None, :], axis=-1), 0, 2)
    return _ranked(params, candidates, exact, k)


def _nearest(params, centred, Q, k):
    """A chunk of queries ``Q`` (c, d): the indices and exact squared distances of their ``k``
    nearest training points, (c, k) each, nearest first (equal distances: lower index first).
    ``centred`` is ``params.X - params.center``: the shortlist's expanded form works on centred points,
    the exact distances on the raw ones (the same bits whatever ``center`` is)."""
    m = params.X.shape[0]
    score = 2 * ((Q - params.center) @ centred.T) - params.sq_norms  # ||q - c||^2 - ||q - x||^2
    candidates = _top_k_indices(score, min(m, k + EXTRA_CANDIDATES))
    exact = jnp.sum((params.X[candidates] - Q[:, None, :]) ** 2, axis=-1)
    return _ranked(params, candidates, exact, k)


def _ranked(params, candidates, exact, k):
    """The ``k`` nearest of the shortlisted ``candidates`` (c, s) at their exact distances ``exact``
    (c, s): the rows left out at :math:`+\\infty`, sorted by distance, then index."""
    exact = jnp.where(jnp.isinf(params.sq_norms[candidates]), jnp.inf, exact)
    exact, candidates = jax.lax.sort((exact, candidates), num_keys=2)
    return candidates[:, :k], exact[:, :k]


def _top_k_indices(score, k):
    """Indices of the ``k`` largest entries of each row of ``score``: exact, in two stages for long rows.

    A row of ``m`` scores is cut into blocks of ``b``; its ``k`` largest entries lie in the ``k`` blocks
    of largest maximum (a block holding one of them has a maximum at least as large, and at most
    ``k - 1`` blocks can beat it), so ``top_k`` runs over the ``m / b`` block maxima and then over the
    ``k b`` entries of those blocks, instead of over all ``m`` scores. :func:`_block_length` picks
    ``b``; rows shorter than :data:`TWO_STAGE_MIN_SCORES` take one ``top_k``.
    """
    c, m = score.shape
    block = _block_length(m, k)
    if m < TWO_STAGE_MIN_SCORES or k * block >= m:
        return jax.lax.top_k(score, k)[1]
    num_blocks = -(-m // block)
    if num_blocks * block != m:
        score = jnp.concatenate(
            [score, jnp.full((c, num_blocks * block - m), -jnp.inf, score.dtype)], axis=1
        )
    blocks = score.reshape(c, num_blocks, block)
    _, best_blocks = jax.lax.top_k(jnp.max(blocks, axis=2), k)
    best_blocks = jnp.sort(best_blocks, axis=1)  # keep index order among equal scores
    chosen = jnp.take_along_axis(blocks, best_blocks[:, :, None], axis=1).reshape(c, k * block)
    _, within = jax.lax.top_k(chosen, k)
    return jnp.take_along_axis(best_blocks, within // block, axis=1) * block + within % block


def _block_length(m, k):
    """:math:`\\sqrt{m / k}` rounded to a power of two (at least 8): the block length ``b`` that
    minimises the two stages' lengths, ``m / b + k b``."""
    return 2 ** max(3, round(math.log2(math.sqrt(m / k))))


def _map_queries(fn, Xq, chunk):
    """``fn`` over chunks of ``chunk`` queries (the last one padded), as one ``lax.map``."""
    n, d = Xq.shape
    chunk = min(chunk, max(n, 1))
    num_chunks = -(-n // chunk)
    padded = (
        jnp.zeros((num_chunks * chunk, d), Xq.dtype).at[:n].set(Xq).reshape(num_chunks, chunk, d)
    )
    out = jax.lax.map(fn, padded)
    return jax.tree_util.tree_map(lambda a: a.reshape(num_chunks * chunk, *a.shape[2:])[:n], out)


def _answer(params, Xq, k, chunk, split, with_y=True, metric="euclidean"):
    """The ``k`` nearest training points of the queries ``Xq``: ``(indices, squared distances, their
    y)`` (n, k) each (the last ``None`` unless ``with_y``). With ``split`` (inside ``shard_map``):
    each device's own ``k`` nearest, their indices made global, then one ``all_gather`` of the
    ``(n, k)`` candidates and a sort by (distance, index): the devices' candidates hold the ``k``
    nearest of all, so this is the one-device answer."""
    if metric in ("manhattan", "chebyshev"):
        # (chunk, m, d) differences: DIFFERENCE_ENTRIES at most
        chunk = max(1, min(chunk, DIFFERENCE_ENTRIES // max(1, params.X.shape[0] * Xq.shape[1])))
        idx, dist = _map_queries(lambda Q: _nearest_direct(params, Q, k, metric), Xq, chunk)
    elif metric == "cosine":
        norms = jnp.linalg.norm(params.X, axis=1, keepdims=True)
        unit_X = params.X / jnp.where(norms > 0, norms, 1)
        idx, dist = _map_queries(lambda Q: _nearest_cosine(params, unit_X, Q, k), Xq, chunk)
    else:
        centred = params.X - params.center
        idx, dist = _map_queries(lambda Q: _nearest(params, centred, Q, k), Xq, chunk)
    found = (dist, idx, params.y[idx]) if with_y else (dist, idx)
    if split is not None:
        found = (
            dist,
            idx + device_index(split) * params.X.shape[0],
            *found[2:],
        )  # rows: contiguous blocks
        gathered = jax.lax.all_gather(
            found, split.axes, axis=1, tiled=True
        )  # (n, devices * k) each
        found = tuple(a[:, :k] for a in jax.lax.sort(gathered, num_keys=2))
    dist, idx, *targets = found
    return idx, dist, targets[0] if with_y else None


def _counts(targets, num_classes, w):
    """The (weighted) votes of the ``k`` neighbours for each class: (n, K)."""
    return jnp.einsum("nk,nkc->nc", w, jax.nn.one_hot(targets, num_classes, dtype=w.dtype))


def _mean(targets, w=None):
    if w is None:
        return jnp.mean(targets, axis=1)
    return jnp.sum(w * targets, axis=1) / jnp.sum(w, axis=1)


@functools.lru_cache(maxsize=None)
def _program(kind, k, chunk, num_classes, split, weights="uniform", metric="euclidean"):
    """The compiled prediction ``(params, Xq) -> answer``, one per (kind, static options, mesh): under
    ``jax.jit``, or ``jax.jit(jax.shard_map(...))`` over the mesh of a row-split ``split``."""

    def answer(params, Xq):
        with_y = kind != "neighbors"
        idx, dist, targets = _answer(params, Xq, k, chunk, split, with_y, metric)
        if kind == "neighbors":
            return idx, dist
        rho = jnp.sqrt(dist) if metric == "euclidean" else dist
        w = None if weights == "uniform" else neighbour_weights(weights, rho)
        if kind == "mean":
            return _mean(targets, w)
        counts = _counts(targets, num_classes, jnp.ones_like(dist) if w is None else w)
        if kind == "shares":
            return counts / jnp.sum(counts, axis=1, keepdims=True)
        return jnp.argmax(counts, axis=1).astype(jnp.int32)  # smallest label on a tie

    if split is None:
        return jax.jit(answer)
    rows = split.spec
    in_specs = (KNNParams(rows, rows, P(), rows), P())
    return jax.jit(
        jax.shard_map(answer, mesh=split.mesh, in_specs=in_specs, out_specs=P(), check_vma=False)
    )


def _run(kind, params, Xq, k, chunk, num_classes=None, weights="uniform", metric="euclidean"):
    split = row_split(params.X, "params.X")
    if split is not None:
        Xq = jax.device_put(Xq, NamedSharding(split.mesh, P()))  # the queries go to every device
    return _program(kind, k, chunk, num_classes, split, weights, metric)(params, Xq)
