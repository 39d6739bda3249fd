"""scikit-learn's ``LogisticRegression`` (L2 penalty, ``lbfgs`` solver) over jaxlearn's exact learners:
:func:`jaxlearn.linear.logistic_regression` on two classes, :func:`jaxlearn.multiclass.
multinomial_logistic_regression` on three or more (as scikit-learn >= 1.5)."""

from __future__ import annotations

import functools
import math
import warnings

import jax
import numpy as np
from scipy.special import log_expit, log_softmax
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from jaxlearn import core, linear, multiclass
from jaxlearn._buckets import bucket, fit_bucket, pad_rows
from jaxlearn._checks import POSITIVE_OR_INF
from jaxlearn._cpu_jit import UNOPTIMISED, cpu_jit
from jaxlearn.sklearn._base import (
    N_JOBS,
    InvalidParameterError,
    JaxlearnEstimator,
    OnlyDefault,
    bucketed,
    encode_classes,
    float_dtype,
    stacked,
)

__all__ = ["LogisticRegression"]


@cpu_jit(small_data_options=UNOPTIMISED)
def _fit(learner: core.BatchLearner, X, y, sample_weight):
    """``learner.fit`` with sample weights, one compiled program per shape (the learner is an argument:
    a new ``C`` or ``tol`` compiles nothing)."""
    return learner.fit(None, X, y, sample_weight)


@cpu_jit
def _sweep_scores(learners, Xs, y, W):
    """The scores on every row of each fold's ``X`` of the fit of every learner (stacked leaves) on
    every fold's weights ``W`` (F, n): one program, (G, F, n) or (G, F, n, K)."""

    def candidate(learner):
        def fold(X, w):
            return learner.decision_function(learner.fit(None, X, y, w), X)

        return jax.vmap(fold)(Xs, W)

    return jax.vmap(candidate)(learners)


def in_float64(method):
    """``method`` run in float64 (``jax.enable_x64``), as scikit-learn's L-BFGS runs on float32 data
    too."""

    @functools.wraps(method)
    def run(*args, **kwargs):
        with jax.enable_x64(True):
            return method(*args, **kwargs)

    return run


@cpu_jit
def _scores(learner: core.BatchLearner, params, X):
    return learner.decision_function(params, X)


class LogisticRegression(ClassifierMixin, JaxlearnEstimator):
    r"""L2-regularised logistic regression solved by L-BFGS: scikit-learn's ``LogisticRegression``.

    .. math:: \min_{W, b}\ C\sum_i s_i\,\ell(W x_i + b, y_i) + \frac12\|W\|_F^2

    with :math:`\ell` the binary log loss on two classes (one weight vector, ``coef_`` of shape (1, d))
    and the multinomial log loss on :math:`K \ge 3` (``coef_`` (K, d)); the intercept is not
    penalised; :math:`s_i` is ``sample_weight`` times the weight of the example's class. L-BFGS stops
    when the largest gradient entry of the objective divided by :math:`C\sum_i s_i` is at most ``tol``,
    as scikit-learn's does (UML section 9.3; Nocedal & Wright, section 7.2). Like scikit-learn's, it
    runs L-BFGS in float64 (``jax.enable_x64`` around the fit) on float32 data too, where a float32
    L-BFGS stalls on raw features of large scale (the wine data's times 100); the fitted weights are
    in the input's precision.

    Args:
      penalty: ``"l2"``, or ``None``: no penalty (:math:`C = \infty`; ``C`` is ignored, as
        scikit-learn's). On separable classes the unpenalised weights grow without bound, and
        L-BFGS stops at ``max_iter`` with a ``ConvergenceWarning``.
      C: the inverse regularisation (> 0); ``np.inf``: no penalty (scikit-learn's way since 1.8).
      tol: the gradient tolerance (>= 0).
      fit_intercept: learn the unpenalised intercepts.
      class_weight: ``None``, ``"balanced"`` (:math:`m / (K m_y)`, by the weighted counts) or a dict.
      random_state: unused (the solver is deterministic); kept for scikit-learn's signature.
      solver: ``"lbfgs"`` (the only one).
      max_iter: the most L-BFGS iterations.
      intercept_scaling, n_jobs, verbose: accepted for scikit-learn's API, with no effect (only
        liblinear reads ``intercept_scaling``; jaxlearn vectorises instead and prints nothing).
      dual, l1_ratio, warm_start: scikit-learn's defaults only (``False``, ``0.0``, ``False``): the
        primal L2 problem, solved from zero.

    Attributes:
      params_: the jaxlearn params (:class:`jaxlearn.linear.LogisticRegressionParams` or
        :class:`jaxlearn.multiclass.MultinomialLogisticParams`, NumPy arrays); ``coef_``, ``intercept_``,
        ``n_iter_`` (shape (1,)), ``classes_``, ``n_features_in_``.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import LogisticRegression
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
      >>> clf = LogisticRegression().fit(X, ["a", "a", "b", "b"])
      >>> clf.predict(X).tolist(), clf.predict_proba(X[:1]).round(2).tolist()
      (['a', 'a', 'b', 'b'], [[0.89, 0.11]])
    """

    _parameter_constraints = {
        "C": POSITIVE_OR_INF,
        "tol": core.NON_NEGATIVE,
        "max_iter": core.POSITIVE_INT,
    }
    _no_effect = {"intercept_scaling": core.POSITIVE, "n_jobs": N_JOBS, "verbose": None}
    _only_default = {
        "dual": OnlyDefault((False,), "the primal is solved by L-BFGS"),
        "l1_ratio": OnlyDefault((0.0, None), "the penalty is L2 only"),
        "warm_start": OnlyDefault((False,), "every fit starts from zero"),
    }

    def __init__(
        self,
        penalty="l2",
        *,
        C=1.0,
        l1_ratio=0.0,
        dual=False,
        tol=1e-4,
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        random_state=None,
        solver="lbfgs",
        max_iter=100,
        verbose=0,
        warm_start=False,
        n_jobs=None,
    ):
        self.penalty = penalty
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        super()._check_params()
        name = type(self).__name__
        if not (self.penalty is None or (isinstance(self.penalty, str) and self.penalty == "l2")):
            raise InvalidParameterError(
                f"{name}: expected `penalty` 'l2' or None (no penalty), got {self.penalty!r}"
            )
        if not (isinstance(self.solver, str) and self.solver == "lbfgs"):
            raise InvalidParameterError(
                f"{name}: expected `solver` 'lbfgs' (the only one here), got {self.solver!r}"
            )
        weights = self.class_weight
        if not (
            weights is None
            or isinstance(weights, dict)
            or (isinstance(weights, str) and weights == "balanced")
        ):
            raise InvalidParameterError(
                f"{name}: expected `class_weight` None, 'balanced' or a dict, got {weights!r}"
            )

    def _C(self) -> float:
        """The learners' ``C``: ``inf`` (no penalty) for ``penalty=None``, as scikit-learn's."""
        return math.inf if self.penalty is None else self.C

    def _learner(self, n_classes: int) -> core.BatchLearner:
        options = dict(tol=self.tol, max_iter=self.max_iter, fit_intercept=bool(self.fit_intercept))
        if n_classes == 2:
            return linear.logistic_regression(self._C(), **options)
        return multiclass.multinomial_logistic_regression(self._C(), n_classes, **options)

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n, d) and labels ``y`` (two or more values), with optional ``sample_weight`` (n,).

        Returns:
          self.
        """
        self._fit_in_float64(X, y, sample_weight)
        if getattr(X, "dtype", None) == np.float32:  # the weights in the input's precision
            self.params_ = jax.tree.map(
                lambda a: a.astype(np.float32) if a.dtype == np.float64 else a, self.params_
            )
        # writable copies, which the scores read (as scikit-learn's, they may be set by hand)
        self.coef_ = np.array(self.params_.w).reshape(-1, self.n_features_in_)
        self.intercept_ = np.array(self.params_.b).reshape(-1)
        return self

    @in_float64
    def _fit_in_float64(self, X, y, sample_weight):
        X, y = self._validate(X, y, reset=True)
        if self.penalty is None and self.C != 1.0:  # once, at fit (predict builds the learner too)
            warnings.warn(
                "Setting penalty=None will ignore the C and l1_ratio parameters", stacklevel=4
            )
        index = encode_classes(self, y)
        s = _check_sample_weight(sample_weight, X, dtype=float_dtype(), ensure_non_negative=True)
        if self.class_weight is not None:
            weights = compute_class_weight(
                self.class_weight, classes=self.classes_, y=y, sample_weight=s
            )
            s = s * weights[index].astype(
                s.dtype
            )  # "balanced": by the weighted class counts, as scikit-learn
        if not s.sum() > 0:
            raise ValueError(
                "expected `sample_weight` (times the class weights) with a positive sum"
            )
        K = self.classes_.size
        target = (2 * index - 1).astype(float_dtype()) if K == 2 else index
        # rows of weight 0 up to the size bucket: one program per bucket
        size = fit_bucket(X.shape[0])
        params = _fit(
            self._learner(K), pad_rows(X, size), pad_rows(target, size), pad_rows(s, size)
        )
        # on the host: a float64 fit stays float64 where JAX runs in float32 (a pickle, a predict)
        self.params_ = jax.tree.map(np.asarray, params)
        self.n_iter_ = np.asarray([int(self.params_.n_iter)], dtype=np.int32)
        if not bool(self.params_.converged):
            warnings.warn(
                f"lbfgs failed to converge after {self.n_iter_[0]} iterations (max |gradient| "
                f"{float(self.params_.grad_norm):.3g} > tol={self.tol}); "
                "increase `max_iter` or scale the data",
                ConvergenceWarning,
                stacklevel=4,
            )

    def _sweepable(self):
        """What :class:`GridSearchCV` may sweep in one program: ``C`` (fixed class weights)."""
        balanced = isinstance(self.class_weight, str) and self.class_weight == "balanced"
        return frozenset() if balanced or self.penalty is None else frozenset({"C"})

    @in_float64
    def _sweep(self, Xs, y, folds, grid):
        """Every value of ``grid["C"]`` on every fold (``Xs`` (F, n, d), ``folds`` scikit-learn's
        (train, test) index pairs) as one program: the predicted class indices (G, F, n) and
        ``classes``."""
        self._check_params()
        dtype, n = float_dtype(), Xs.shape[1]
        train = np.zeros((len(folds), n), bool)
        for f, (rows, _) in enumerate(folds):
            train[f, rows] = True
        classes, index = np.unique(y, return_inverse=True)
        K, size = classes.size, bucket(n)
        weights = np.ones(n, dtype)
        if self.class_weight is not None:
            weights = compute_class_weight(self.class_weight, classes=classes, y=y)[index].astype(
                dtype
            )
        target = ((2 * index - 1) if K == 2 else index).astype(dtype if K == 2 else np.int32)
        W = pad_rows(np.where(train, weights[None], 0).astype(dtype), size, axis=1)  # (F, size)
        learners = stacked(self._learner(K), "C", grid["C"])
        Xs = pad_rows(Xs.astype(dtype), size, axis=1)
        scores = np.asarray(_sweep_scores(learners, Xs, pad_rows(target, size), W))[:, :, :n]
        binary = scores.ndim == 3
        return (scores > 0 if binary else np.argmax(scores, -1)).astype(np.intp), classes

    @bucketed
    def decision_function(self, X) -> np.ndarray:
        """The scores :math:`W x + b`: shape (n,) on two classes (positive means ``classes_[1]``), (n, K)."""
        check_is_fitted(self)
        w, b = self.params_.w, self.params_.b
        params = self.params_._replace(
            w=np.asarray(self.coef_, w.dtype).reshape(w.shape),
            b=np.asarray(self.intercept_, b.dtype).reshape(b.shape),
        )
        with jax.enable_x64(w.dtype == np.float64):
            X = self._check_X(X)
            return np.asarray(_scores(self._learner(self.classes_.size), params, X))

    def predict(self, X) -> np.ndarray:
        """The most probable class (a value of ``classes_``) of each row of ``X``."""
        scores = self.decision_function(X)
        index = (scores > 0).astype(np.intp) if scores.ndim == 1 else np.argmax(scores, axis=1)
        return self.classes_[index]

    def predict_log_proba(self, X) -> np.ndarray:
        """The log-probabilities of the classes, shape (n, K) (columns in the order of ``classes_``)."""
        scores = self.decision_function(X).astype(np.float64)
        if scores.ndim == 1:
            return np.stack([log_expit(-scores), log_expit(scores)], axis=1)
        return log_softmax(scores, axis=1)

    def predict_proba(self, X) -> np.ndarray:
        """The probabilities of the classes, shape (n, K): the sigmoid of the score on two classes, the
        softmax of the scores on more."""
        return np.exp(self.predict_log_proba(X))
