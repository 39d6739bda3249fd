"""The base of the SGD classifiers (:class:`SGDClassifier`, :class:`Perceptron`): scikit-learn's SGD over
:func:`jaxlearn.linear.epoch_sgd`, one-vs-all over the classes as one vmapped program.

Two classes fit one problem (``classes_[1]`` is +1, class weights ``cw[1]``/``cw[0]``); more fit one
problem per class (class ``k`` against the rest, its rows weighted ``cw[k]``, the others 1, each with its
own order of the rows), as scikit-learn's one-vs-all, all of them in one ``jax.vmap`` of the fit.

Like scikit-learn's SGD, they compute in float32 on float32 input and in float64 on any other
(``jax.enable_x64`` around the fit): at the default step sizes on unscaled features, float32 rounding
alone sends some fits on another path (breast cancer: 85.8% against 91.2% for one seed).
"""

from __future__ import annotations

import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.base import ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from jaxlearn import core, linear
from jaxlearn._buckets import fit_bucket, pad_rows
from jaxlearn._cpu_jit import FUSION_EMITTERS, cpu_jit
from jaxlearn.linear import EpochSGDParams
from jaxlearn.sklearn._base import (
    InvalidParameterError,
    JaxlearnEstimator,
    class_weights,
    encode_classes,
    float_dtype,
    in_input_precision,
    map_problems,
    one_vs_rest,
    sample_weights,
)

__all__ = ["EpochSGDClassifier", "l1_ratio", "linear_scores"]

MAX_INT = np.iinfo(np.int32).max  # scikit-learn's bound on its seeds
#: The fewest fits (candidates times folds) a ``GridSearchCV`` runs as one program; with fewer,
#: scikit-learn's loop (its fits share one compiled program) is done before the grid's program compiles
#: (measured in benchmarks/grid-50k-cpu-2core.md).
GRID_FITS = 32


@cpu_jit
def fit_classes(learner, seeds, X, Y, W, start, validation=None):
    """``learner.fit`` of each row of ``Y`` (labels {-1, +1}) with weights ``W`` from ``start``, each
    shuffled by its own scikit-learn seed of ``seeds``: one program, vmapped over the rows (the
    classes). ``validation``: ``None``, or the held-out mask and weights (the same rows for every
    class)."""

    def one(seed, y, w, init):
        key = jax.random.key(0)  # unused: the orders come from the seed
        return learner.fit(key, X, y, sample_weight=w, init=init, validation=validation, seed=seed)

    return map_problems(one, seeds, Y, W, start)


@cpu_jit(extra_options=FUSION_EMITTERS)
def fit_grid(learners, seeds, Xs, Ys, Ws, validation=None):
    """:func:`fit_classes` of each fold's ``X``, ``Y``, ``W`` (stacked on a leading axis, with its own
    ``seeds`` and ``validation``) for every learner of the stack ``learners``: params (F, P, G, ...)
    for F folds, P problems, G learners, from one :func:`jaxlearn.linear.epoch_sgd_fits` of the
    F x P samples."""
    F, P, n = Ys.shape

    def samples(a):  # (F, ...) -> (F * P, ...): each fold's array for each of its problems
        return jnp.broadcast_to(a[:, None], (F, P, *a.shape[1:])).reshape(F * P, *a.shape[1:])

    key = jax.random.key(0)  # unused: the orders come from the seeds
    params = linear.epoch_sgd_fits(
        learners,
        key,
        samples(Xs),
        Ys.reshape(F * P, n),
        Ws.reshape(F * P, n),
        validation=None if validation is None else tuple(samples(a) for a in validation),
        seed=seeds.reshape(F * P),
    )
    return jax.tree.map(lambda a: a.reshape(F, P, *a.shape[1:]), params)


def shuffle_seeds(random_state, num_problems: int, held_out=lambda: None):
    """scikit-learn's shuffle seeds of its ``num_problems`` binary fits, drawn from ``random_state``
    in its order, with ``held_out()`` (the early-stopping split) called where scikit-learn draws it.

    One problem draws its dataset's seed (for sampling, unused), the split, then the shuffle seed.
    More draw the split, then one seed per problem, each seeding a ``RandomState`` that draws a
    dataset seed and the shuffle seed. Returns ``(seeds, held_out())``: the same ``random_state``
    visits the rows in scikit-learn's order.
    """
    if num_problems == 1:
        rng = check_random_state(random_state)
        rng.randint(1, MAX_INT)
        split = held_out()
        return np.array([rng.randint(MAX_INT)], np.uint32), split
    split = held_out()
    problem_seeds = check_random_state(random_state).randint(MAX_INT, size=num_problems)
    seeds = [_shuffle_seed(np.random.RandomState(seed)) for seed in problem_seeds]
    return np.array(seeds, np.uint32), split


def _zero_start(problems: int, d: int, dtype) -> EpochSGDParams:
    """The start of ``problems`` fits from zero weights, in NumPy (no small programs compiled)."""
    zero_w, zero = np.zeros((problems, d), dtype), np.zeros(problems, dtype)
    epochs = np.zeros(problems, np.int32)
    return EpochSGDParams(zero_w, zero, zero_w, zero, zero_w, zero, zero, epochs, zero > 0)


def _shuffle_seed(rng) -> int:
    """A binary fit's draws from its own ``rng``: its dataset's seed (unused), then its shuffle seed."""
    rng.randint(1, MAX_INT)
    return rng.randint(MAX_INT)


def l1_ratio(penalty, value):
    """scikit-learn's ``l1_ratio``: ``None`` is allowed (and unused) unless ``penalty="elasticnet"``."""
    if value is not None:
        return value
    if penalty == "elasticnet":
        raise InvalidParameterError("l1_ratio must be set when penalty is 'elasticnet'")
    return 0.0


def linear_scores(coef, intercept, X) -> np.ndarray:
    """The scores ``X @ coef.T + intercept``: shape (n, K), in NumPy, as scikit-learn's linear models
    score (the fitted ``coef_`` is on the host: no program to dispatch)."""
    return np.asarray(X) @ np.asarray(coef).T + np.asarray(intercept)


class EpochSGDClassifier(ClassifierMixin, JaxlearnEstimator):
    """``fit``/``partial_fit``/``predict`` of scikit-learn's SGD classifiers. Subclasses define
    ``_options()``: the arguments of :func:`jaxlearn.linear.epoch_sgd` (``loss``, ``learning_rate``,
    ``eta0``, ...) from their hyperparameters.

    Fitted: ``coef_`` (1 or K, d), ``intercept_`` (1 or K,), ``n_iter_`` (the most epochs of a class),
    ``t_`` (1 + the steps of a class, as scikit-learn's), ``classes_``, ``params_`` (the
    :class:`~jaxlearn.linear.EpochSGDParams` of each problem, stacked: ``partial_fit`` goes on from them).
    """

    _bool_or_int = ("average", "verbose")
    #: ``OneVsOneClassifier`` fits each pair on its own rows, as scikit-learn's clones are fitted
    _pair_subsample = "compact"

    def _options(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def _inputs(self, X):
        """``X`` as the learner sees it (default: unchanged)."""
        return X

    def _learner(self, max_iter=None) -> core.BatchLearner:
        options = self._options()
        if options["learning_rate"] == "optimal" and options["alpha"] == 0:
            raise InvalidParameterError(
                f"{type(self).__name__}: expected `alpha` > 0 with learning_rate='optimal' (it sets the step)"
            )
        if options["learning_rate"] != "optimal" and not options["eta0"] > 0:
            raise InvalidParameterError(
                f"{type(self).__name__}: expected `eta0` > 0 with learning_rate={options['learning_rate']!r}"
            )
        if max_iter is not None:
            options["max_iter"] = max_iter
        try:
            return linear.epoch_sgd(**options)
        except (TypeError, ValueError) as error:
            raise InvalidParameterError(f"{type(self).__name__}: {error}") from None

    def _batch_learner(self, X=None) -> core.BatchLearner:
        """The binary learner (labels {-1, +1}) for jaxlearn's reductions (``OneVsRestClassifier``)."""
        self._check_params()
        return self._learner()

    @in_input_precision
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit on ``X`` (n, d) and labels ``y`` (two or more values), from zero weights, or from
        ``coef_init`` and ``intercept_init`` (``warm_start``: the last fit's ``coef_`` and
        ``intercept_`` where these are not given).

        Args:
          X, y: the sample.
          coef_init: (d,) or (1, d) for two classes, else (K, d); ``None``: zeros.
          intercept_init: () or (1,) for two classes, else (K,); ``None``: zeros.
          sample_weight: (n,) non-negative weights, or ``None``; multiplied by ``class_weight``.

        Returns:
          self.
        """
        if self.warm_start and hasattr(self, "coef_"):
            coef_init = self.coef_ if coef_init is None else coef_init
            intercept_init = self.intercept_ if intercept_init is None else intercept_init
        for name in ("classes_", "params_", "t_"):
            self.__dict__.pop(name, None)
        X, y = self._validate(X, y, reset=True)
        learner = self._learner()
        index = encode_classes(self, y)
        seeds, held_out = shuffle_seeds(
            self.random_state, self._num_problems(), lambda: self._held_out(y)
        )
        self._run(
            learner,
            X,
            index,
            sample_weight,
            seeds,
            max_iter=None,
            init=(coef_init, intercept_init),
            held_out=held_out,
        )
        if self.tol is not None and self.n_iter_ == self.max_iter:
            warnings.warn(
                "Maximum number of iteration reached before convergence. Consider increasing max_iter to "
                "improve the fit.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    @in_input_precision
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over ``(X, y)`` from the weights so far (``classes`` required on the first call).

        Args:
          X, y: a chunk of the sample.
          classes: every label of the whole sample (first call; later ones must equal it if given).
          sample_weight: (n,) non-negative weights, or ``None``.

        Returns:
          self.
        """
        first = not hasattr(self, "classes_")
        if self.early_stopping:
            raise ValueError("early_stopping should be False with partial_fit")
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            if isinstance(self.class_weight, str) and self.class_weight == "balanced":
                raise ValueError(
                    "class_weight 'balanced' is not supported for partial_fit: pass the weights of "
                    "compute_class_weight('balanced', classes=classes, y=y) as a dict"
                )
        X, y = self._validate(X, y, reset=first)
        learner = self._learner(max_iter=1)
        if classes is not None:
            given = np.unique(np.asarray(classes))
            if not first and not np.array_equal(given, self.classes_):
                raise ValueError(
                    f"`classes={given!r}` is not the same as on last call to partial_fit, "
                    f"was: {self.classes_!r}"
                )
            if first:
                encode_classes(self, given)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if unseen.size:
            raise ValueError(
                f"expected `y` with values in classes_ {self.classes_!r}, got {unseen!r}"
            )
        seeds, _ = shuffle_seeds(self.random_state, self._num_problems())
        index = np.searchsorted(self.classes_, y).astype(np.int32)
        self._run(learner, X, index, sample_weight, seeds, max_iter=1)
        return self

    def _sweepable(self):
        """What :class:`~jaxlearn.sklearn.GridSearchCV` may sweep in one program: the numeric
        hyperparameters of the steps and the penalty, where every fit draws its orders from the same
        seed (``random_state`` an int or ``None``)."""
        if not (self.random_state is None or isinstance(self.random_state, numbers.Integral)):
            return frozenset()
        return frozenset(
            {"alpha", "l1_ratio", "eta0", "power_t", "epsilon"} & set(self.get_params())
        )

    def _sweeps(self, fits: int) -> bool:
        """Whether a search of ``fits`` fits (candidates times folds) runs as one program: from
        :data:`GRID_FITS` on."""
        return fits >= GRID_FITS

    def _sweep(self, Xs, y, folds, grid):
        """Every candidate of ``grid`` (name -> (G,) values) fitted on every fold's training rows
        (``Xs`` (F, n, d), ``folds`` scikit-learn's (train, test) index pairs) as one program: the
        predicted class indices (G, F, n) and ``classes``, or ``None`` where scikit-learn's own loop
        must run (a candidate it would refuse, a fold lacking a class, a fit that diverges)."""
        candidates = [dict(zip(grid, values)) for values in zip(*grid.values())]
        classes = np.unique(y)
        with jax.enable_x64(Xs.dtype != np.float32):
            try:
                learners = [clone(self).set_params(**c)._batch_learner() for c in candidates]
            except (InvalidParameterError, TypeError, ValueError):
                return None
            if not all(np.array_equal(np.unique(y[rows]), classes) for rows, _ in folds):
                return None
            problems, seeds = [], []
            fold_fit = clone(self)
            fold_fit.classes_ = classes  # the problems' layout, as a fit on each fold sets it
            for (rows, _), X in zip(folds, Xs):
                index = np.searchsorted(classes, y[rows]).astype(np.int32)
                fold_seeds, held_out = shuffle_seeds(
                    self.random_state,
                    fold_fit._num_problems(),
                    lambda rows=rows: fold_fit._held_out(y[rows]),
                )
                X = np.asarray(X[rows], float_dtype())
                problems.append(fold_fit._problems(X, index, None, held_out=held_out))
                seeds.append(fold_seeds)
            # one padded size for every fold (the padding rows take no part)
            size = max(X.shape[0] for X, *_ in problems)
            X, Y, W = (
                np.stack([pad_rows(p[i], size, axis=p[i].ndim - 1 if i else 0) for p in problems])
                for i in range(3)
            )
            validation = None
            if problems[0][4] is not None:
                validation = tuple(
                    np.stack([pad_rows(p[4][i], size, p[4][i].dtype.type(0)) for p in problems])
                    for i in range(2)
                )
            stack = jax.tree.map(lambda *leaves: np.stack(leaves), *learners)
            params = fit_grid(stack, np.stack(seeds), X, Y, W, validation)
            if np.asarray(params.diverged).any():
                return None
            coef, intercept = np.asarray(params.w), np.asarray(params.b)  # (F, P, G, d), (F, P, G)
            inputs = np.stack([self._inputs(np.asarray(X, float_dtype())) for X in Xs])
            scores = np.einsum("fnd,fpgd->gfnp", inputs, coef)
            scores = scores + intercept.transpose(2, 0, 1)[:, :, None, :]
        if scores.shape[-1] == 1:
            return (scores[..., 0] > 0).astype(np.intp), classes
        return np.argmax(scores, axis=-1).astype(np.intp), classes

    def _fit_problems(self, learner, key, X, Y, W):
        """``OneVsRestClassifier``'s binary problems, labels ``Y`` (problems, n) in {-1, +1} (0: a
        padding row) with weights ``W``, as scikit-learn's fits its clones of this estimator: each
        problem shuffled by the seed of this estimator's ``random_state`` (the same for all), as one
        program (``key`` unused); ``None`` where a clone would hold out or weigh its own rows
        (``early_stopping``, ``class_weight``)."""
        seeds = self._clones_seeds(Y.shape[0])
        if seeds is None:
            return None
        problems, dtype = Y.shape[0], float_dtype()
        start = _zero_start(problems, X.shape[1], dtype)._replace(t=np.ones(problems, dtype))
        return self._checked_finite(fit_classes(learner, seeds, self._inputs(X), Y, W, start))

    def _fit_samples(self, learner, Xs, Ys, Ws):
        """``OneVsOneClassifier``'s binary problems, each on its own rows ``Xs`` (problems, n, d),
        labels ``Ys`` (problems, n) in {-1, +1} (0: a padding row) and weights ``Ws``, as
        scikit-learn's fits its clones of this estimator (see :meth:`_fit_problems`), as one
        program; ``None`` where a clone would hold out or weigh its own rows."""
        seeds = self._clones_seeds(Ys.shape[0])
        if seeds is None:
            return None
        stack = jax.tree.map(lambda leaf: np.asarray(leaf)[None], learner)  # one learner
        params = fit_grid(stack, seeds[:, None], self._inputs(Xs), Ys[:, None], Ws[:, None])
        params = jax.tree.map(lambda a: a[:, 0, 0], params)  # (problems, ...)
        return self._checked_finite(params)

    def _clones_seeds(self, problems: int):
        """The shuffle seed of each of ``problems`` clones of this estimator, as scikit-learn's
        reductions fit them (every clone has this ``random_state``: one seed, repeated); ``None``
        where a clone would hold out or weigh its own rows (``early_stopping``, ``class_weight``)."""
        if self.early_stopping or self.class_weight is not None:
            return None
        return np.repeat(shuffle_seeds(self.random_state, 1)[0], problems)

    def _checked_finite(self, params):
        """``params``, or scikit-learn's ``ValueError`` where a fit diverged."""
        if np.asarray(params.diverged).any():
            raise ValueError(
                f"Floating-point under-/overflow occurred at epoch #{int(np.max(params.num_epochs))}. "
                "Scaling input data with StandardScaler or MinMaxScaler might help."
            )
        return params

    def _held_out(self, y):
        """scikit-learn's validation rows for ``early_stopping``: a stratified ``validation_fraction`` of
        the sample, drawn from ``random_state`` (``None`` without early stopping)."""
        if not self.early_stopping:
            return None
        split = StratifiedShuffleSplit(
            test_size=self.validation_fraction, random_state=self.random_state
        )
        train, held_out = next(split.split(np.zeros((len(y), 1)), y))
        if not len(train) or not len(held_out):
            raise ValueError(
                f"Splitting {len(y)} samples into a train set and a validation set with validation_fraction="
                f"{self.validation_fraction!r} led to an empty set; change validation_fraction, add samples "
                "or disable early_stopping."
            )
        mask = np.zeros(len(y), bool)
        mask[held_out] = True
        return mask

    def _num_problems(self) -> int:
        """One binary problem for two classes, else one per class (one-vs-all)."""
        return 1 if self.classes_.size == 2 else self.classes_.size

    def _start_array(self, name: str, value, shape: tuple) -> np.ndarray:
        """``value`` of ``coef_init``/``intercept_init`` as the start of the ``shape[0]`` problems
        (one problem: (d,) or (1, d), () or (1,) as scikit-learn accepts)."""
        array = np.asarray(value, dtype=float_dtype())
        if shape[0] == 1 and array.size == int(np.prod(shape)) and array.ndim <= len(shape):
            array = array.reshape(shape)
        if array.shape != shape:
            source = " (with warm_start: the last fit's)" if self.warm_start else ""
            raise ValueError(f"expected `{name}`{source} of shape {shape}, got {np.shape(value)}")
        return array

    def _run(
        self, learner, X, index, sample_weight, seeds, max_iter, init=(None, None), held_out=None
    ):
        n = X.shape[0]
        X, Y, W, start, validation = self._problems(X, index, sample_weight, init, held_out)
        params = self._checked_finite(fit_classes(learner, seeds, X, Y, W, start, validation))
        epochs = np.asarray(params.num_epochs)
        self.params_ = params
        self.n_iter_ = int(epochs.max())
        self.t_ = float(getattr(self, "t_", 1.0) + self.n_iter_ * n)
        self.coef_ = np.array(params.w)  # writable copies, as scikit-learn's
        self.intercept_ = np.array(params.b)

    def _problems(self, X, index, sample_weight, init=(None, None), held_out=None):
        """The binary problems of a fit on ``X`` with class indices ``index``, as ``fit_classes``
        takes them: ``(X, Y, W, start, validation)``, the rows padded to their size bucket."""
        n, num_classes = X.shape[0], self.classes_.size
        weights = sample_weights(sample_weight, X)
        per_class = class_weights(self.class_weight, self.classes_, self.classes_[index])
        Y, W = one_vs_rest(index, num_classes, weights, per_class)
        rows, dtype = Y.shape[0], float_dtype()
        t = getattr(self, "t_", 1.0)
        start = getattr(self, "params_", None)
        if start is not None and start.w.dtype != dtype:  # the last call's, in another precision
            start = jax.tree.map(
                lambda a: np.asarray(a, dtype) if a.dtype.kind == "f" else a, start
            )
        elif start is None:  # zeros (NumPy: no small programs compiled per number of classes)
            start = _zero_start(rows, X.shape[1], dtype)
        coef, intercept = init
        if coef is not None:  # scikit-learn's warm start: the weights, not the mean of the iterates
            start = start._replace(last_w=self._start_array("coef_init", coef, (rows, X.shape[1])))
        if intercept is not None:
            start = start._replace(last_b=self._start_array("intercept_init", intercept, (rows,)))
        start = start._replace(t=np.full(rows, t, dtype))
        # rows left out (label 0, weight 0) up to the size bucket: one program for its every size
        size = fit_bucket(n)
        validation = None
        if held_out is not None:
            if not (weights[held_out] > 0).any():
                raise ValueError(
                    "The sample weights for validation set are all zero, consider using a different "
                    "random state."
                )
            validation = (pad_rows(held_out, size, False), pad_rows(weights, size))
        Y, W = (pad_rows(A.astype(dtype), size, axis=1) for A in (Y, W))
        return pad_rows(self._inputs(X), size), Y, W, start, validation

    @in_input_precision
    def decision_function(self, X) -> np.ndarray:
        """The scores :math:`\\langle w_k, x\\rangle + b_k`: (n,) for two classes (positive means
        ``classes_[1]``), else (n, K)."""
        check_is_fitted(self)
        X = self._inputs(self._check_X(X))
        scores = linear_scores(self.coef_, self.intercept_, X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _has_proba(self):
        if getattr(self, "loss", None) not in ("log_loss", "modified_huber"):
            raise AttributeError(
                f"probability estimates are not available for loss={getattr(self, 'loss', None)!r}"
            )
        return True

    @available_if(_has_proba)
    def predict_proba(self, X) -> np.ndarray:
        r"""Class probabilities (n, K), as scikit-learn's: ``log_loss`` the sigmoid of each score,
        ``modified_huber`` :math:`(\mathrm{clip}(s, -1, 1) + 1)/2`; more than two classes normalised to sum
        to 1 (one-vs-all; all zero: uniform)."""
        scores = self.decision_function(X)
        if self.loss == "log_loss":
            prob = 1 / (1 + np.exp(-scores.astype(np.float64)))
        else:
            prob = (np.clip(scores.astype(np.float64), -1, 1) + 1) / 2
        if prob.ndim == 1:
            return np.stack([1 - prob, prob], axis=1)
        total = prob.sum(axis=1, keepdims=True)
        return np.where(total == 0, 1 / prob.shape[1], prob / np.where(total == 0, 1, total))

    @available_if(_has_proba)
    def predict_log_proba(self, X) -> np.ndarray:
        """The log of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X) -> np.ndarray:
        """The labels (values of ``classes_``): the sign of the score for two classes, else the class of
        the largest score (the first of equal ones)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
