r"""Model selection: hold-out and k-fold splits, cross-validation, and grid search as one program.

:func:`grid_search` fits and scores every (grid point, fold) pair in ONE compiled program: the grid's
values are the leaves of a stacked learner (``jax.vmap`` over ``make``), the folds are equal-size
index arrays, and the program runs fit-then-score ``vmap``\ ped over the grid, and over the folds on
an accelerator (where an online learner's fits then share one loop over its steps; on a CPU the folds
run in turn).
A second grid with new values of the same shape compiles nothing new. Numeric hyperparameters (``lam``,
``eta``, a kernel's ``sigma``) belong in the grid; structural ones (a tree's depth, k of k-NN, the
number of SGD ``steps``) change the program, so they are a Python loop over programs (``static=``).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from jax.typing import ArrayLike

from jaxlearn import core, metrics, parallel
from jaxlearn._checks import as_array, as_labels, check_sample_shapes
from jaxlearn._sharding import check_mesh
from jaxlearn.core import OPEN_UNIT, POSITIVE_INT, BatchLearner, loadable

__all__ = [
    "Folds",
    "GridSearchResult",
    "cross_validate",
    "grid_search",
    "kfold",
    "train_test_split",
]

Array = jax.Array
#: ``score(y_true, y_pred) -> scalar``, higher is better (traced: write it with ``jax.numpy``).
Scorer = Callable[[Array, Array], Array]


@loadable
class Folds(NamedTuple):
    """k equal-size folds as index arrays (:func:`kfold`).

    Attributes:
      train: (folds, n - n // folds) int32, the training indices of each fold.
      test: (folds, n // folds) int32, the held-out indices of each fold.
    """

    train: Array
    test: Array


@loadable
class GridSearchResult(NamedTuple):
    """What :func:`grid_search` found.

    Attributes:
      scores: (grid points, folds), the score of each grid point on each held-out fold.
      mean_score: (grid points,), the mean over folds.
      best_index: the row of the best mean score (the first of ties; NaN scores never win).
      best_params: ``{name: value}`` at ``best_index`` (Python floats; ``static`` values as given).
      best_learner: ``make(**best_params)``.
      params: with ``refit``, ``best_learner`` fitted on all of ``X, y``; else ``None``.
      points: ``{name: (grid points,) array}``, each row's point (row-major: the last name varies fastest).
    """

    scores: Array
    mean_score: Array
    best_index: int
    best_params: dict
    best_learner: BatchLearner
    params: Any
    points: dict


# --- splits ------------------------------------------------------------------------------------


def _check_key(key: Any, optional: bool = False) -> None:
    dtype = getattr(key, "dtype", None)
    typed = dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    if not (key is None and optional) and not (
        (typed or dtype == np.uint32) and np.ndim(key) == 1 - typed
    ):
        raise TypeError(f"expected `key` one jax.random key (jax.random.key(0)), got {key!r:.80}")


def kfold(key: Optional[Array], n: int, folds: int) -> Folds:
    r"""Split ``range(n)`` into ``folds`` shuffled folds of equal size :math:`\lfloor n / k\rfloor`.

    Equal sizes give every fold's fit one shape (one program). The :math:`n \bmod k` examples left
    over are held out by no fold and are in every training set (of :math:`n - \lfloor n/k\rfloor`).

    Args:
      key: a ``jax.random`` key for the permutation; ``None`` keeps the order (contiguous folds, as
        scikit-learn's ``KFold(shuffle=False)`` except for the remainder).
      n: the number of examples.
      folds: the number of folds :math:`k`, :math:`2 \le k \le n`.

    Returns:
      :class:`Folds` ``(train, test)``, each an int32 array with one row per fold.

    Examples:
      >>> folds = kfold(None, 7, 3)
      >>> folds.test.tolist(), folds.train[0].tolist()
      ([[0, 1], [2, 3], [4, 5]], [2, 3, 4, 5, 6])
    """
    _check_key(key, optional=True)
    n, folds = _check_folds(n, folds)
    return _fold_indices(key, n=n, folds=folds)


def _check_folds(n, folds) -> tuple:
    POSITIVE_INT.check("n", n)
    POSITIVE_INT.check("folds", folds)
    if not 2 <= folds <= n:
        raise ValueError(f"expected `folds` in [2, n] with n={n} examples, got {folds}")
    return int(n), int(folds)


@functools.partial(jax.jit, static_argnames=("n", "folds"))
def _fold_indices(key, *, n, folds):
    size = n // folds
    order = (jnp.arange(n) if key is None else jax.random.permutation(key, n)).astype(jnp.int32)
    test = order[: folds * size].reshape(folds, size)
    # fold f trains on `order` rotated to start after its own block, less that block
    train = order[(jnp.arange(n - size)[None] + size * jnp.arange(1, folds + 1)[:, None]) % n]
    return Folds(train, test)


def train_test_split(
    key: Optional[Array], X: ArrayLike, y: ArrayLike, test_size: float = 0.25
) -> tuple:
    r"""A shuffled hold-out split: :math:`\lceil \text{test\_size}\cdot n\rceil` examples for testing.

    Args:
      key: a ``jax.random`` key for the permutation (``None``: the last examples are the test set).
      X: (n, ...) instances.
      y: (n, ...) labels or targets.
      test_size: the fraction held out, in (0, 1); at least one example is held out and one kept.

    Returns:
      ``(X_train, X_test, y_train, y_test)`` (scikit-learn's order).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X, y = jnp.arange(20.0).reshape(10, 2), jnp.arange(10.0)
      >>> X_train, X_test, y_train, y_test = train_test_split(jax.random.key(0), X, y, 0.3)
      >>> X_train.shape, X_test.shape, y_test.shape
      ((7, 2), (3, 2), (3,))
    """
    _check_key(key, optional=True)
    X, y = jnp.asarray(as_array(X)), jnp.asarray(as_labels(y))
    if X.ndim == 0 or y.ndim == 0 or X.shape[0] != y.shape[0] or X.shape[0] < 2:
        raise ValueError(
            f"expected `X` and `y` with one axis of n >= 2 examples, got {X.shape}, {y.shape}"
        )
    OPEN_UNIT.check("test_size", test_size)
    return _hold_out(
        key, X, y, min(max(math.ceil(float(test_size) * X.shape[0]), 1), X.shape[0] - 1)
    )


@functools.partial(jax.jit, static_argnums=3)
def _hold_out(key, X, y, n_test):
    order = jnp.arange(X.shape[0]) if key is None else jax.random.permutation(key, X.shape[0])
    train, test = order[: X.shape[0] - n_test], order[X.shape[0] - n_test :]
    return X[train], X[test], y[train], y[test]


# --- scoring -----------------------------------------------------------------------------------


def _neg_mse(y_true, y_pred):
    return -jnp.mean(jnp.square(y_pred - y_true.astype(jnp.asarray(y_pred).dtype)))


def _r2(y_true, y_pred):
    y_true = y_true.astype(jnp.asarray(y_pred).dtype)
    return 1 - jnp.sum(jnp.square(y_true - y_pred)) / jnp.sum(jnp.square(y_true - jnp.mean(y_true)))


SCORERS = {"accuracy": metrics.accuracy, "neg_mean_squared_error": _neg_mse, "r2": _r2}


def _scorer(scoring: Union[str, Scorer]) -> Scorer:
    if not callable(scoring) and scoring not in SCORERS:
        raise ValueError(
            f"expected `scoring` one of {sorted(SCORERS)} or a callable, got {scoring!r}"
        )
    return scoring if callable(scoring) else SCORERS[scoring]


# --- the program -------------------------------------------------------------------------------


def _folds_together() -> bool:
    """Whether :func:`grid_search` fits the folds side by side (``vmap``) rather than in turn
    (``lax.map``): on an accelerator, where the fits' lanes run in parallel and an online learner's
    folds then share one loop over its steps. On a CPU the folds' copies of their training rows cost
    more in cache than the shared loop saves (32 x 5 fits of ``linear.soft_svm`` on 50,000 x 50 on
    2 cores: 0.50 s side by side against 0.25 s in turn), so they run in turn."""
    return jax.default_backend() != "cpu"


@functools.partial(jax.jit, static_argnames=("score", "batch_size", "mesh"))
def _grid_program(learners, X, y, train, test, keys, *, score, batch_size, mesh=None):
    """scores[p, f] = score(y[test[f]], predict(fit(keys[f], X[train[f]], y[train[f]]), X[test[f]]))."""

    def points(learners):  # the folds vmapped or in turn; each fold's points on its data
        def one_fold(tr, te, key):
            X_train, y_train, X_test, y_test = X[tr], y[tr], X[te], y[te]

            def one_point(learner):
                return score(y_test, learner.predict(learner.fit(key, X_train, y_train), X_test))

            if not jax.tree_util.tree_leaves(
                learners
            ):  # no numeric hyperparameters: one grid point
                return one_point(learners)[None]
            if batch_size is None:
                return jax.vmap(one_point)(learners)
            return jax.lax.map(one_point, learners, batch_size=batch_size)

        if _folds_together():
            return jax.vmap(one_fold)(train, test, keys).T
        return jax.lax.map(lambda fold: one_fold(*fold), (train, test, keys)).T

    if mesh is None or not jax.tree_util.tree_leaves(learners):
        return points(learners)
    size, count = jax.tree_util.tree_leaves(learners)[0].shape[0], mesh.shape[mesh.axis_names[0]]
    blocks = jnp.minimum(jnp.arange(-(-size // count) * count), size - 1).reshape(
        count, -1
    )  # per device
    scores = parallel.sweep(
        points, jax.tree_util.tree_map(lambda leaf: leaf[blocks], learners), mesh
    )
    scores = scores.reshape(blocks.size, -1)[
        :size
    ]  # less the blocks' padding (copies of the last point)
    return jax.lax.with_sharding_constraint(
        scores, NamedSharding(mesh, PartitionSpec())
    )  # all read all


def _sample(X, y):
    check_sample_shapes(X := as_array(X), y := as_labels(y))
    return jnp.asarray(X), jnp.asarray(y)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _split_keys(key, n, folds):
    """The folds and the fit keys (one per fold, shared by every grid point) a key gives."""
    fold_key, fit_key = jax.random.split(key)
    return _fold_indices(fold_key, n=n, folds=folds), jax.random.split(fit_key, folds), fit_key


def cross_validate(
    learner: BatchLearner,
    X: ArrayLike,
    y: ArrayLike,
    *,
    key: Array,
    folds: int = 5,
    scoring: Union[str, Scorer] = "accuracy",
) -> Array:
    r"""The held-out score of ``learner`` on each of ``folds`` folds, all folds in one program.

    With ``fold_key, fit_key = jax.random.split(key)``: the folds are ``kfold(fold_key, n, folds)`` and
    fold ``f`` is fitted with ``jax.random.split(fit_key, folds)[f]`` (as in :func:`grid_search`).

    Args:
      learner: a :class:`~jaxlearn.core.BatchLearner`.
      X: (n, d) instances.
      y: (n,) labels or targets.
      key: a ``jax.random`` key (folds and fits).
      folds: the number of folds, in [2, n] (see :func:`kfold` for the remainder).
      scoring: ``"accuracy"`` (classifiers), ``"neg_mean_squared_error"`` or ``"r2"`` (regressors), or
        ``score(y_true, y_pred) -> scalar`` in ``jax.numpy``, higher better (define it once: a cache key).

    Returns:
      (folds,) the score on each held-out fold.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import linear
      >>> X = jax.random.normal(jax.random.key(0), (100, 3))
      >>> y = X @ jnp.array([1.0, -2.0, 0.5])
      >>> scores = cross_validate(linear.ridge(0.1), X, y, key=jax.random.key(1), folds=4, scoring="r2")
      >>> scores.shape, bool(scores.min() > 0.99)
      ((4,), True)
    """
    if not isinstance(learner, BatchLearner):
        raise TypeError(f"expected `learner` a jaxlearn BatchLearner, got {type(learner).__name__}")
    X, y = _sample(X, y)
    if learner.check is not None:
        learner.check(X, y)
    _check_key(key)
    splits, keys, _ = _split_keys(key, *_check_folds(X.shape[0], folds))
    stacked = jax.tree_util.tree_map(lambda leaf: jnp.asarray(leaf)[None], learner)
    scores = _grid_program(stacked, X, y, *splits, keys, score=_scorer(scoring), batch_size=None)
    return scores[0]


# --- grid search -------------------------------------------------------------------------------


def _product(grid: Any) -> dict:
    """The Cartesian product of the grid, as ``{name: (points,) array}``."""
    if not isinstance(grid, dict):
        raise TypeError(f"expected `grid` a dict of names to 1-D arrays, got {type(grid).__name__}")
    axes = {}
    for name, values in grid.items():
        values = np.asarray(as_array(values))
        if values.ndim != 1 or values.size == 0:
            raise ValueError(
                f"expected `grid` of non-empty 1-D arrays, got shape {values.shape} at {name!r}"
            )
        if values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.number):
            raise ValueError(
                f"expected `grid` of numeric arrays, got dtype {values.dtype} at {name!r}"
            )
        axes[name] = values.astype(
            jax.dtypes.canonicalize_dtype(values.dtype)
        )  # float32 unless x64
    return {
        name: m.reshape(-1) for name, m in zip(axes, np.meshgrid(*axes.values(), indexing="ij"))
    }


def _make(make: Callable, arguments: dict) -> BatchLearner:
    try:
        learner = make(**arguments)
    except TypeError as error:
        if "argument" not in str(error):
            raise
        names = sorted(arguments)
        raise ValueError(
            f"expected `grid` names that `make` takes, got {names} ({error})"
        ) from None
    if not isinstance(learner, BatchLearner):
        raise TypeError(f"expected `make` to return a BatchLearner, got {type(learner).__name__}")
    return learner


def _stack(make: Callable, static: dict, points: dict) -> BatchLearner:
    """One learner whose leaves hold every grid point's (``jax.vmap`` over ``make``)."""
    if not points:
        return jax.tree_util.tree_map(lambda leaf: jnp.asarray(leaf)[None], _make(make, static))
    try:
        stacked = jax.vmap(lambda point: _make(make, {**static, **point}))(points)
    except (
        jax.errors.ConcretizationTypeError,
        jax.errors.TracerIntegerConversionError,
        ValueError,
    ) as error:
        if isinstance(error, ValueError) and "Tracer" not in str(error):
            raise
        raise ValueError(
            f"`make` uses a value of the grid {sorted(points)} as a structural option (Python needs its "
            "value): give it in `static=` (one program each) instead of `grid`"
        ) from error
    with contextlib.suppress(
        TypeError
    ):  # a jaxlearn factory checks its ranges on every point at once
        core.replace(stacked)
    return stacked


def _python(value: Any) -> Any:
    """A Python scalar: a float by its shortest repr in its own dtype (float32 0.01 is 0.01)."""
    return float(str(value)) if (value := np.asarray(value)[()]).dtype.kind == "f" else value.item()


def grid_search(
    make: Callable[..., BatchLearner],
    grid: dict,
    X: ArrayLike,
    y: ArrayLike,
    *,
    key: Array,
    folds: int = 5,
    scoring: Union[str, Scorer] = "accuracy",
    refit: bool = True,
    static: Optional[dict] = None,
    batch_size: Optional[int] = None,
    mesh: Optional[Mesh] = None,
) -> GridSearchResult:
    r"""k-fold cross-validation of every point of a hyperparameter grid, as ONE compiled program.

    .. math:: \text{scores}_{p,f} = \text{score}\big(y_{T_f},\ h_{p,f}(X_{T_f})\big), \quad
        h_{p,f} = \text{make}(\theta_p).\text{fit}(k_f, X_{\bar T_f}, y_{\bar T_f})

    The grid's values are vmapped into the leaves of one stacked learner; the program ``vmap``\ s
    fit-then-score over the grid points on each fold's shared data, and over the folds (their index
    sets are data, each fold holding its copy of its training rows) on a GPU or TPU, where the fits
    of every (point, fold) pair then run side by side, one loop over an online learner's steps; on a
    CPU the folds run in turn (``lax.map``, :func:`_folds_together`). So a new grid of the
    same shape (or a new ``X`` of the same shape) compiles nothing. The folds and keys are those of
    :func:`cross_validate`: row ``p`` equals ``cross_validate(make(**point_p), X, y, key=key)``.

    Structural options (a tree's ``depth``, ``k`` of k-NN, ``steps``) change the program; ``static``
    loops over them in Python, one program each, as this loop does::

        [grid_search(lambda lam: linear.soft_svm(lam, T), grid, X, y, key=key) for T in (100, 1000)]

    Args:
      make: ``make(**hyperparameters) -> BatchLearner``; the grid's values reach it traced: numeric
        hyperparameters that a jaxlearn factory takes as leaves (``lam``, ``eta``, a kernel's width).
      grid: ``{name: 1-D array}``; the grid is the Cartesian product of the arrays.
      X: (n, d) instances.
      y: (n,) labels (as ``make``'s learners take them) or targets.
      key: a ``jax.random`` key (folds, fits and the refit).
      folds: the number of folds, in [2, n] (see :func:`kfold` for the remainder).
      scoring: as :func:`cross_validate`'s (``"accuracy"`` compares ``predict`` with ``y``).
      refit: fit the best learner on all of ``X, y`` (with ``jax.random.split(key)[1]``).
      static: ``{name: list of values}`` of structural options: one program per combination, in
        row-major order, each over the whole ``grid`` (``grid`` may then be ``{}``).
      batch_size: grid points per chunk (``lax.map`` over chunks) when all points at once would
        hold too much memory; ``None`` (default): all at once.
      mesh: a ``jax.sharding.Mesh``: the grid points split over its first axis (each device fits its
        share, the data copied to each; :func:`jaxlearn.parallel.sweep`), the same scores, one program.

    Returns:
      A :class:`GridSearchResult`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import datasets, linear
      >>> X, y, _ = datasets.noisy_halfspace(jax.random.key(0), 300, 4, 0.05)
      >>> result = grid_search(lambda lam: linear.soft_svm(lam, 300), {"lam": jnp.logspace(-3, 0, 4)},
      ...                      X, y, key=jax.random.key(1), folds=3)
      >>> result.scores.shape, sorted(result.best_params), bool(result.mean_score.max() > 0.8)
      ((4, 3), ['lam'], True)
    """
    if not callable(make):
        raise TypeError(
            f"expected `make` a callable returning a BatchLearner, got {type(make).__name__}"
        )
    points = _product(grid)
    static = {} if static is None else static
    if not isinstance(static, dict) or not all(
        isinstance(v, (list, tuple)) and v for v in static.values()
    ):
        raise ValueError(
            f"expected `static` a dict of names to non-empty lists of values, got {static!r}"
        )
    if not points and not static or set(points) & set(static):
        raise ValueError(
            f"expected `grid` (or `static`) non-empty, names not in `static`, got {list(grid)}"
        )
    if batch_size is not None:
        POSITIVE_INT.check("batch_size", batch_size)
    check_mesh(mesh)
    program = functools.partial(
        _grid_program, score=_scorer(scoring), batch_size=batch_size, mesh=mesh
    )
    X, y = _sample(X, y)
    _check_key(key)
    splits, keys, fit_key = _split_keys(key, *_check_folds(X.shape[0], folds))
    size = next(iter(points.values())).shape[0] if points else 1
    combos = [dict(zip(static, values)) for values in itertools.product(*static.values())]
    scores = []
    for fixed in combos:  # structural options: one program each
        first = _make(make, {**fixed, **{n: _python(v[0]) for n, v in points.items()}})
        if first.check is not None:
            first.check(X, y)
        learners = _stack(make, fixed, points)
        scores.append(program(learners, X, y, *splits, keys))
    scores = scores[0] if len(scores) == 1 else jnp.concatenate(scores)
    mean = np.mean(np.asarray(scores), axis=1)
    best = int(np.argmax(np.where(np.isnan(mean), -np.inf, mean)))
    table = {n: np.tile(np.asarray(v), len(combos)) for n, v in points.items()}
    table.update({n: np.asarray([c[n] for c in combos]).repeat(size) for n in static})
    best_params = {n: _python(v[best]) for n, v in table.items()}
    best_learner = _make(make, best_params)
    params = best_learner.fit(fit_key, X, y) if refit else None
    return GridSearchResult(
        scores, jnp.asarray(mean), best, best_params, best_learner, params, table
    )
