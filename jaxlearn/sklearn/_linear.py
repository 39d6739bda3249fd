"""scikit-learn estimators over the batch linear and kernel learners of :mod:`jaxlearn.linear`.

Each solves scikit-learn's problem: :class:`LinearSVC` by dual coordinate descent (LIBLINEAR's), its
bias a constant feature ``intercept_scaling`` penalised as LIBLINEAR's; :class:`SVC` by libsvm's SMO;
:class:`Ridge` and :class:`RidgeClassifier` in closed form on rows centred at their weighted means,
so that their intercept is not penalised; :class:`SGDClassifier` by epochs of shuffled passes that stop
by ``tol``. :class:`HardMarginSVC` and :class:`KernelRidge` are the book's problems (UML 15.1, 16.2).
"""

from __future__ import annotations

import functools
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from jaxlearn import core, linear, multiclass
from jaxlearn._buckets import example_slots, fit_bucket, on_bucket_rows, pad_rows
from jaxlearn._cpu_jit import FUSION_EMITTERS, UNOPTIMISED, cpu_jit
from jaxlearn._shared import on_device, sign_label
from jaxlearn.kernels import expansion, gram
from jaxlearn.sklearn._base import (
    FINITE,
    N_JOBS,
    BatchBinaryClassifier,
    BatchRegressor,
    InvalidParameterError,
    JaxlearnEstimator,
    OnlyDefault,
    class_weights,
    encode_classes,
    float_dtype,
    in_input_precision,
    make_kernel,
    map_problems,
    one_vs_rest,
    power_of_two_scale,
    row_weights,
    sample_weights,
)
from jaxlearn.sklearn._ovo import ovo_scores
from jaxlearn.sklearn._sgd import EpochSGDClassifier, l1_ratio, linear_scores

__all__ = [
    "HardMarginSVC",
    "KernelRidge",
    "LinearSVC",
    "NearestCentroid",
    "Ridge",
    "RidgeClassifier",
    "SGDClassifier",
    "SVC",
]


def _ones_column(X):
    if isinstance(X, np.ndarray):  # on the host: no small program compiled per shape
        return on_device(np.concatenate([X, np.ones((X.shape[0], 1), X.dtype)], axis=1))
    X = jnp.asarray(X)
    return jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)


def _fit_augmented(learner, key, X, y, sample_weight=None):
    if sample_weight is None:
        return learner.fit(key, _ones_column(X), y)
    return learner.fit(key, _ones_column(X), y, sample_weight)


def _predict_augmented(learner, params, X):
    return learner.predict(params, _ones_column(X))


def _decision_augmented(learner, params, X):
    return learner.decision_function(params, _ones_column(X))


def with_intercept(learner: core.BatchLearner, fit_intercept: bool) -> core.BatchLearner:
    """``learner`` on ``[X, 1]`` when ``fit_intercept`` (the constant feature's weight is the intercept).

    The fields are ``Partial``s of module functions over the learner, so the result is a pytree with
    the learner's leaves (it can be vmapped and passed to ``jax.jit`` without recompiling)."""
    if not fit_intercept:
        return learner
    decision = None if learner.decision_function is None else Partial(_decision_augmented, learner)
    return core.BatchLearner(
        Partial(_fit_augmented, learner), Partial(_predict_augmented, learner), decision
    )


#: From this many features ``LinearSVC`` solves its primal by L-BFGS, whose iterations cost
#: :math:`O(m d)`, rather than by Newton's method (:math:`O(m d^2 + d^3)`, in far fewer iterations).
NEWTON_FEATURES = 1024


class SGDClassifier(EpochSGDClassifier):
    r"""Linear classifiers by SGD, scikit-learn's defaults and meaning (:func:`jaxlearn.linear.epoch_sgd`).

    Minimises :math:`\frac1n\sum_i c_i\,\ell(y_i, \langle w, x_i\rangle + b) + \alpha\,\Omega(w)` one
    example at a time, in epochs of shuffled passes, with Bottou's ``"optimal"`` steps
    :math:`\eta_t = 1/(\alpha(t_0 + t - 1))` by default; stops when ``n_iter_no_change`` epochs in a row do
    not lower the epoch's mean objective by ``tol``. More than two classes: one-vs-all, every class in one
    vmapped program.

    Args:
      loss: ``"hinge"`` (linear SVM), ``"log_loss"``, ``"modified_huber"``, ``"squared_hinge"``,
        ``"perceptron"``, or a regression loss on the labels as -1 and +1: ``"squared_error"``,
        ``"huber"``, ``"epsilon_insensitive"`` or ``"squared_epsilon_insensitive"``.
      penalty, alpha, l1_ratio: :math:`\Omega` (``"l2"``: :math:`\frac12\|w\|^2`, ``"l1"``, ``"elasticnet"``,
        ``None``) and its weight; the intercept is not penalised (``l1_ratio=None``: only without
        ``"elasticnet"``).
      epsilon: the width of the ``"huber"`` and epsilon-insensitive losses.
      fit_intercept, max_iter, tol, shuffle: as scikit-learn's (``tol=None``: ``max_iter`` epochs).
      random_state: the orders of the rows, drawn as scikit-learn draws them: the same value visits
        the rows in the same order as scikit-learn's ``SGDClassifier`` (the same fit, up to rounding).
      learning_rate, eta0, power_t: ``"optimal"``, ``"constant"`` (:math:`\eta_0`), ``"invscaling"``
        (:math:`\eta_0/t^{p}`) or ``"adaptive"`` (:math:`\eta_0`, divided by 5 when the objective stalls).
      early_stopping, validation_fraction: stop on the accuracy of a held-out stratified fraction of the
        sample (not trained on) instead of the training objective, as scikit-learn's.
      n_iter_no_change: the epochs without progress that stop the fit.
      class_weight: ``None``, ``{label: weight}`` or ``"balanced"`` (:math:`n/(K n_k)`).
      average: ``False``, ``True`` or a step from which ``coef_`` is the mean of the iterates (ASGD).
      warm_start: ``fit`` starts from the last fit's ``coef_`` and ``intercept_``.
      n_jobs, verbose: accepted for scikit-learn's API, with no effect: jaxlearn vectorises instead
        and prints nothing.

    Attributes:
      coef_, intercept_: (1, d) and (1,) for two classes, else (K, d) and (K,); n_iter_; t_; classes_;
      params_: the :class:`~jaxlearn.linear.EpochSGDParams` of each problem.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import SGDClassifier
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0], [3.0, -3.0], [2.0, -3.0]])
      >>> SGDClassifier(random_state=0).fit(X, [1, 1, 0, 0, 2, 2]).predict(X).tolist()
      [1, 1, 0, 0, 2, 2]
    """

    _parameter_constraints = {
        "alpha": core.NON_NEGATIVE,
        "l1_ratio": (core.UNIT, None),
        "epsilon": core.NON_NEGATIVE,
        "max_iter": core.POSITIVE_INT,
        "tol": (core.NON_NEGATIVE, None),
        "eta0": core.POSITIVE,
        "power_t": core.NON_NEGATIVE,
        "validation_fraction": core.OPEN_UNIT,
        "n_iter_no_change": core.POSITIVE_INT,
    }
    _no_effect = {"n_jobs": N_JOBS, "verbose": None}

    def __init__(
        self,
        loss="hinge",
        *,
        penalty="l2",
        alpha=1e-4,
        l1_ratio=0.15,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        shuffle=True,
        random_state=None,
        learning_rate="optimal",
        eta0=0.01,
        power_t=0.5,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        class_weight=None,
        warm_start=False,
        average=False,
        epsilon=0.1,
        n_jobs=None,
        verbose=0,
    ):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.average = average
        self.epsilon = epsilon
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _options(self):
        return dict(
            loss=self.loss,
            penalty=self.penalty,
            alpha=self.alpha,
            l1_ratio=l1_ratio(self.penalty, self.l1_ratio),
            epsilon=self.epsilon,
            learning_rate=self.learning_rate,
            eta0=self.eta0,
            power_t=self.power_t,
            max_iter=self.max_iter,
            tol=self.tol,
            n_iter_no_change=self.n_iter_no_change,
            fit_intercept=bool(self.fit_intercept),
            shuffle=bool(self.shuffle),
            average=int(self.average) or None,
        )


def _fit_problems(learner, key, X, Y, W):
    """``learner.fit`` of each row of ``Y`` (labels {-1, +1}) with sample weights ``W``: one program,
    vmapped over the rows (the one-vs-rest problems)."""
    return map_problems(lambda y, w: learner.fit(key, X, y, sample_weight=w), Y, W)


def _fit_problems_in_turn(learner, key, X, Y, W):
    """:func:`_fit_problems` one problem after the other (``lax.map``): each coordinate descent runs
    the steps of its own active set, where under ``vmap`` every problem would step while any does."""
    return jax.lax.map(lambda yw: learner.fit(key, X, yw[0], sample_weight=yw[1]), (Y, W))


# The primal solvers (Newton, L-BFGS) run a few long iterations: on small data their programs compile
# unoptimised, in a third of the time. The dual coordinate descents run thousands of one-coordinate
# steps, which LLVM's optimisations make about ten times faster, and XLA's fusion emitters three.
_fit_primal_problems = cpu_jit(_fit_problems, small_data_options=UNOPTIMISED)
_fit_dual_problems = cpu_jit(_fit_problems_in_turn, extra_options=FUSION_EMITTERS)


def weighted_fit(learner, key, X, y, w):
    """``learner.fit(key, X, y, sample_weight=w)`` (the learner a pytree), to compile as one program."""
    return learner.fit(key, X, y, sample_weight=w)


# Crammer-Singer's dual coordinate descent: many one-coordinate steps (see _fit_dual_problems)
_fit_weighted = cpu_jit(weighted_fit, extra_options=FUSION_EMITTERS)


class LinearSVC(ClassifierMixin, JaxlearnEstimator):
    r"""The linear SVM solved exactly in its dual, scikit-learn's defaults and meaning (liblinear's solvers).

    .. math:: \min_{w, b}\ \tfrac12(\|w\|^2 + b^2/s^2) + C\sum_i c_i\,\xi_i, \qquad
        \xi_i = \max(0, 1 - y_i(\langle w, x_i\rangle + b))\ \text{or its square}

    (:math:`s` = ``intercept_scaling``: the bias is the weight of a constant feature, regularised, as
    liblinear's; :math:`c_i` = ``sample_weight`` times the class weight). Binary and ``"ovr"``:
    :func:`jaxlearn.linear.svm_dual_cd` (dual coordinate descent, Hsieh et al. 2008), with more than two
    classes one problem per class (its rows weighted ``class_weight[k]``, the others 1, as liblinear's
    one-vs-rest) fitted as one ``jax.vmap``; ``"crammer_singer"``:
    :func:`jaxlearn.multiclass.multiclass_svm_dual_cd` (UML 17.2). UML's :math:`\lambda` is
    :math:`1/(C m)`.

    Args:
      penalty: ``"l2"`` only.
      loss: ``"squared_hinge"`` (liblinear ``-s 1``) or ``"hinge"`` (``-s 3``, UML's Soft-SVM).
      dual: ``True`` (:func:`jaxlearn.linear.svm_dual_cd`), ``False`` (the squared hinge's primal by
        Newton's method, :func:`jaxlearn.linear.svm_primal_newton`, or by L-BFGS from
        :data:`NEWTON_FEATURES` features, where liblinear uses a trust-region Newton method: the same
        minimiser) or ``"auto"`` (scikit-learn's rule: the primal when
        ``n_samples >= n_features`` and the loss is the squared hinge); ``False`` with
        ``loss="hinge"`` is refused, as scikit-learn refuses it. ``"crammer_singer"`` is always dual.
      tol: the stopping tolerance (projected-gradient spread; the largest violation for
        ``"crammer_singer"``; the primal's gradient norm relative to its value at 0).
      C: the cost of a unit of loss, ``> 0``.
      multi_class: ``"ovr"`` or ``"crammer_singer"``.
      fit_intercept, intercept_scaling: the constant feature and its value.
      class_weight: ``None``, ``"balanced"`` (:math:`n / (K n_k)`, counts weighted by ``sample_weight``)
        or ``{label: weight}``.
      random_state: the order of the coordinates in each epoch.
      max_iter: the most epochs; a fit that stops there gives a ``ConvergenceWarning``.
      verbose: accepted for scikit-learn's API; jaxlearn prints nothing.

    Attributes:
      coef_, intercept_: (1, d) and (1,) for two classes, else (K, d) and (K,) (zeros without
      ``fit_intercept``, where scikit-learn stores 0.0); classes_; n_iter_ (the most epochs of a
      problem, L-BFGS iterations for the primal); params_: the solver's params (``converged``, ``gap``
      or ``grad_norm``, ...; stacked over the problems for ``"ovr"``); dual_: whether the dual was solved.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import LinearSVC
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0], [3.0, -3.0], [2.0, -3.0]])
      >>> LinearSVC(random_state=0).fit(X, ["b", "b", "a", "a", "c", "c"]).predict(X).tolist()
      ['b', 'b', 'a', 'a', 'c', 'c']
    """

    #: An example of label 0 takes no part in the fit (``OneVsOneClassifier`` packs each pair's own).
    _pair_subsample = "compact"

    _parameter_constraints = {
        "C": core.POSITIVE,
        "tol": core.POSITIVE,
        "max_iter": core.POSITIVE_INT,
        "intercept_scaling": core.POSITIVE,
    }
    _no_effect = {"verbose": None}

    def __init__(
        self,
        penalty="l2",
        loss="squared_hinge",
        *,
        dual="auto",
        tol=1e-4,
        C=1.0,
        multi_class="ovr",
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        verbose=0,
        random_state=None,
        max_iter=1000,
    ):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter

    def _check_params(self) -> None:
        super()._check_params()
        name = type(self).__name__
        if self.penalty != "l2":
            raise InvalidParameterError(
                f"{name}: expected `penalty` 'l2' (the dual solvers' regulariser), got {self.penalty!r}"
            )
        if self.loss not in ("hinge", "squared_hinge"):
            raise InvalidParameterError(
                f"{name}: expected `loss` 'hinge' or 'squared_hinge', got {self.loss!r}"
            )
        if not (isinstance(self.dual, (bool, np.bool_)) or self.dual == "auto"):
            raise InvalidParameterError(
                f"{name}: expected `dual` True, False or 'auto', got {self.dual!r}"
            )
        if self.dual is False and self.loss == "hinge":
            raise InvalidParameterError(
                f"{name}: `dual`=False is not supported with loss='hinge' (as scikit-learn); use dual=True"
            )
        if self.multi_class not in ("ovr", "crammer_singer"):
            raise InvalidParameterError(
                f"{name}: expected `multi_class` 'ovr' or 'crammer_singer', got {self.multi_class!r}"
            )

    def _options(self) -> dict:
        return dict(
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=float(self.intercept_scaling),
        )

    def _solves_dual(self, X) -> bool:
        """scikit-learn's choice: ``dual="auto"`` is the primal when ``n_samples >= n_features`` and the
        loss is the squared hinge (the one loss liblinear's primal takes), the dual otherwise."""
        if self.dual == "auto":
            return self.loss == "hinge" or X.shape[0] < X.shape[1]
        return bool(self.dual)

    def _batch_learner(self, X=None) -> core.BatchLearner:
        """The binary learner (labels {-1, +1}), also for jaxlearn's reductions (``OneVsRestClassifier``):
        :func:`jaxlearn.linear.svm_dual_cd`, or where scikit-learn solves the primal the same minimiser
        by :func:`jaxlearn.linear.svm_primal_newton` (:func:`jaxlearn.linear.svm_primal_lbfgs` from
        :data:`NEWTON_FEATURES` features)."""
        self._check_params()
        if X is not None:
            self.dual_ = self._solves_dual(X)
        if getattr(self, "dual_", True):
            return linear.svm_dual_cd(float(self.C), loss=self.loss, **self._options())
        if X is not None and X.shape[1] >= NEWTON_FEATURES:
            return linear.svm_primal_lbfgs(float(self.C), **self._options())
        return linear.svm_primal_newton(float(self.C), **self._options())

    def _small_data_options(self):
        """The XLA options of its small-data fits (also over its learner in jaxlearn's reductions):
        the primal solvers' few long iterations compile unoptimised, in a third of the time."""
        return None if self.dual_ else UNOPTIMISED

    def _fit_problems(self, learner, key, X, Y, W):
        """The binary problems of labels ``Y`` (problems, n) in {-1, +1} and weights ``W`` (problems,
        n) fitted by ``learner`` (from :meth:`_batch_learner`) as one program, the same ``key`` for
        each: params stacked over the problems. Also ``OneVsRestClassifier``'s fit over this one."""
        if self.dual_:
            return _fit_dual_problems(learner, key, X, Y, W)
        return _fit_primal_problems(learner, None, X, Y, W)  # the primal solvers draw nothing

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n, d) and labels ``y`` (two or more values).

        Args:
          X, y: the sample.
          sample_weight: (n,) non-negative weights, or ``None``; multiplied by ``class_weight``.

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        index = encode_classes(self, y)
        weights = sample_weights(sample_weight, X)
        # "balanced" counts the classes by their weights, as liblinear's wrapper does
        per_class = class_weights(self.class_weight, self.classes_, y, sample_weight=weights)
        num_classes, dtype = self.classes_.size, float_dtype()
        # rows of weight 0 up to the size bucket: one program per bucket
        size = fit_bucket(X.shape[0])
        if self.multi_class == "crammer_singer":
            learner = multiclass.multiclass_svm_dual_cd(
                float(self.C), num_classes, **self._options()
            )
            self.dual_ = True
            rows = pad_rows((weights * per_class[index]).astype(dtype), size)
            key = self._key()
            params = _fit_weighted(learner, key, pad_rows(X, size), pad_rows(index, size), rows)
            coef, intercept, n_iter, converged = jax.device_get(
                (params.w, params.b, params.n_iter, params.converged)
            )
            if num_classes == 2:  # scikit-learn's binary layout: classes_[1] against classes_[0]
                coef, intercept = coef[1:] - coef[:1], intercept[1:] - intercept[:1]
        else:
            Y, W = (
                pad_rows(A.astype(dtype), size, axis=1)
                for A in one_vs_rest(index, num_classes, weights, per_class)
            )
            learner = self._batch_learner(X)
            key = self._key() if self.dual_ else None  # no draw from a global generator for nothing
            params = self._fit_problems(learner, key, pad_rows(X, size), Y, W)
            coef, intercept, n_iter, converged = jax.device_get(  # one transfer
                (params.w, params.b, params.n_iter, params.converged)
            )
        self.params_ = params
        # writable copies, as scikit-learn's
        self.coef_, self.intercept_ = np.array(coef), np.array(intercept)
        self.n_iter_ = int(np.max(n_iter))
        if not np.all(converged):
            warnings.warn(
                "Liblinear failed to converge, increase the number of iterations.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def decision_function(self, X) -> np.ndarray:
        r"""The scores :math:`\langle w_k, x\rangle + b_k`: (n,) for two classes (positive means
        ``classes_[1]``), else (n, K)."""
        check_is_fitted(self)
        scores = linear_scores(self.coef_, self.intercept_, self._check_X(X))
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X) -> np.ndarray:
        """The labels (values of ``classes_``): the sign of the score for two classes, else the class of
        the largest score (the first of equal ones)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


class HardMarginSVC(BatchBinaryClassifier):
    """The Hard-SVM by dual coordinate ascent (:func:`jaxlearn.linear.hard_svm`).

    On a sample no halfspace separates, the returned ``w`` is where the solver stopped
    (``params_.separable`` is ``False``); use :class:`LinearSVC` there.

    Args:
      fit_intercept: a constant feature (the intercept is then part of the margin's norm, so a
        non-separable sample still gets a usable ``w``); ``jaxlearn.linear.hard_svm(fit_intercept=True)``
        is UML (15.2)'s unregularised bias.
      max_steps, tol: the solver's sweeps and KKT tolerance.

    Attributes:
      params_: :class:`~jaxlearn.linear.HardSVMParams` (``w``, ``alpha``, ``margin``, ...); classes_.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import HardMarginSVC
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
      >>> HardMarginSVC().fit(X, [1, 1, -1, -1]).predict(X).tolist()
      [1, 1, -1, -1]
    """

    #: The learner takes labels -1 and +1 only: ``OneVsOneClassifier`` repeats each pair's examples.
    _pair_subsample = "cycle"

    _parameter_constraints = {"max_steps": core.POSITIVE_INT, "tol": core.POSITIVE}
    _per_example = ("alpha", "support")

    def __init__(self, *, fit_intercept=True, max_steps=1000, tol=1e-4):
        self.fit_intercept = fit_intercept
        self.max_steps = max_steps
        self.tol = tol

    def _batch_learner(self, X=None):
        learner = linear.hard_svm(max_steps=self.max_steps, tol=self.tol)
        return with_intercept(learner, bool(self.fit_intercept))


class _KernelMixin:
    """``kernel``/``gamma``/``degree``/``coef0`` as scikit-learn names them; ``gamma_`` is the number used."""

    _parameter_constraints = {"degree": core.POSITIVE_INT, "coef0": FINITE}
    #: the estimator needs a positive semi-definite kernel (a closed form, a distance): no "sigmoid"
    _psd_only = False

    def _prepare(self, X):
        super()._prepare(X)
        if self._psd_only and self.kernel == "sigmoid":
            raise ValueError(
                f"expected `kernel` one of 'linear', 'rbf', 'poly' for {type(self).__name__}, got "
                "'sigmoid' (not positive semi-definite: no squared distance or ridge solution)"
            )
        gamma = self.gamma
        if gamma is None:  # KernelRidge's default: 1 / n_features
            gamma = "auto"
        self.gamma_ = make_kernel(self.kernel, gamma, self.degree, self.coef0, X)[1]

    def _kernel(self):
        gamma = self.gamma_ if self.kernel != "linear" else None
        return make_kernel(self.kernel, gamma, self.degree, self.coef0)[0]


def _pair_scores(params, X):
    """A pair's decision values, computed beforehand, are its params (for ``ovo_scores``)."""
    return params


def _pair_votes(params, X):
    return sign_label(params)


@functools.lru_cache(maxsize=None)
def _one_vs_one(num_classes: int) -> core.BatchLearner:
    """All-Pairs over a binary "learner" whose params are its decision values: what the vote and tie
    rule of :class:`~jaxlearn.sklearn.OneVsOneClassifier` reads."""
    given = core.BatchLearner(Partial(_pair_scores), Partial(_pair_votes), Partial(_pair_scores))
    return multiclass.all_pairs(given, num_classes, subsample="mask")


@cpu_jit
def _fit_pairs(kernel, X, rows, labels, weights, C, tol, max_iter):
    """:func:`jaxlearn.linear.kernel_svm_dual_cd` on each pair's rows ``rows[p]`` (zero-weight
    padding to a common length), as one vmapped program over the pairs. The kernel is evaluated once
    per pair of rows: the pairs take their blocks of one Gram matrix of ``X`` (a precomputed
    kernel)."""
    G = gram(kernel, X)
    learner = linear.kernel_svm_dual_cd(None, C, tol=tol, max_iter=max_iter)
    fit = lambda r, y, w: learner.fit(None, G[r[:, None], r[None, :]], y, w)
    return map_problems(fit, rows, labels, weights)


@cpu_jit(static_argnames=("num_classes", "ovr"))
def _svc_decisions(kernel, support, coef, intercept, X, *, num_classes, ovr):
    """The pairs' decision values (n, pairs) (positive: the pair's first class), and scikit-learn's
    one-vs-rest shape of them (n, K): votes plus confidences squashed into (-1/3, 1/3)."""
    values = expansion(kernel, support, coef, X) + intercept
    if not ovr:
        return values, values
    return values, ovo_scores(_one_vs_one(num_classes), values.T, X)


class SVC(_KernelMixin, ClassifierMixin, JaxlearnEstimator):
    r"""The kernel Soft-SVM solved exactly, as scikit-learn's ``SVC`` (libsvm): SMO over the Gram
    matrix (:func:`jaxlearn.linear.kernel_svm_dual_cd`), any number of classes by one-vs-one.

    .. math::
        \min_{w, b}\ \tfrac12\|w\|^2 + C\sum_i c_{y_i} s_i
        \max(0, 1 - y_i(\langle w, \psi(x_i)\rangle + b))

    for each pair of classes (:math:`c` the class weights, :math:`s` the sample weights; the
    intercept is not penalised). The :math:`K(K-1)/2` pair problems are fitted as one vmapped
    program, each on its own rows (padded with zero-weight rows to a common length); a point's class
    is the one with the most pair votes (ties: the first class), as libsvm's. Kernels as
    scikit-learn's (``"rbf"``: :math:`\exp(-\gamma\|x-z\|^2)`, ``"poly"``:
    :math:`(\gamma\langle x, z\rangle + c_0)^d`, ``"sigmoid"``:
    :math:`\tanh(\gamma\langle x, z\rangle + c_0)`, ``"linear"``).

    Args:
      C: :math:`C > 0`.
      kernel, gamma, degree, coef0: the kernel; ``gamma`` a number, ``"scale"`` or ``"auto"``.
      tol: the stopping tolerance on the maximal KKT violation (libsvm's ``eps``).
      class_weight: ``None``, ``"balanced"`` or ``{label: weight}``: multiplies ``C`` per class.
      max_iter: the most SMO steps per pair; ``-1`` (no limit) is libsvm's own cap,
        :math:`\max(10^7, 100\,n)` steps (a finite bound: the solver is a bounded loop).
      decision_function_shape: ``"ovr"`` (n, K) or ``"ovo"`` (n, K(K-1)/2), as scikit-learn's.
      break_ties: with ``"ovr"`` and more than two classes, ``predict`` is the argmax of
        ``decision_function`` (votes, then confidences) instead of the votes alone.
      random_state: unused (the solver is deterministic); kept for scikit-learn's signature.
      shrinking, cache_size, verbose: accepted for scikit-learn's API, with no effect (libsvm's
        shrinking heuristic and kernel cache do not change the solution; jaxlearn prints nothing).
      probability: ``"deprecated"`` or ``False`` only (no Platt scaling: no ``predict_proba``). For
        probabilities, ``CalibratedClassifierCV(SVC(), ensemble=False)``, as scikit-learn 1.9
        recommends in place of ``probability=True``: it calibrates this ``decision_function``.

    Attributes:
      support_, support_vectors_, n_support_: the support vectors' rows (by class, then by row), the
      vectors, their count per class; dual_coef_ (K-1, n_SV) and intercept_ (K(K-1)/2,) in libsvm's
      layout (two classes: positive means ``classes_[1]``); pair_dual_coef_ (n_SV, K(K-1)/2) each
      pair's coefficients (positive: its first class); n_iter_ the SMO steps per pair; classes_;
      gamma_ the number used.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import SVC
      >>> X = np.array([[0.0, 0.0], [0.1, -0.1], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.1], [0.1, 2.0]])
      >>> SVC(C=10.0).fit(X, [1, 1, 0, 0, 0, 0]).predict(X).tolist()
      [1, 1, 0, 0, 0, 0]
      >>> X = np.array([[0.0, 0.0], [0.1, -0.1], [2.0, 0.0], [2.1, 0.1], [0.0, 2.0], [0.1, 2.1]])
      >>> svc = SVC(kernel="linear").fit(X, ["a", "a", "b", "b", "c", "c"])  # three pairs
      >>> svc.predict([[3.0, 0.0], [0.0, 3.0], [-1.0, -1.0]]).tolist(), svc.intercept_.shape
      (['b', 'c', 'a'], (3,))
    """

    #: An example of label 0 takes no part in the fit (``OneVsOneClassifier`` packs each pair's own).
    _pair_subsample = "compact"

    _parameter_constraints = {"C": core.POSITIVE, "tol": core.POSITIVE}
    _no_effect = {"shrinking": None, "cache_size": core.POSITIVE, "verbose": None}
    _only_default = {
        "probability": OnlyDefault(
            ("deprecated", False),
            "no Platt scaling: use CalibratedClassifierCV(SVC(), ensemble=False), as "
            "scikit-learn 1.9 recommends",
        )
    }

    def __init__(
        self,
        C=1.0,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability="deprecated",
        tol=1e-3,
        cache_size=200,
        class_weight=None,
        verbose=False,
        max_iter=-1,
        decision_function_shape="ovr",
        break_ties=False,
        random_state=None,
    ):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _check_params(self):
        super()._check_params()
        max_iter = self.max_iter
        if (
            isinstance(max_iter, bool)
            or not isinstance(max_iter, numbers.Integral)
            or not (max_iter == -1 or max_iter >= 1)
        ):
            expected = "SVC: expected `max_iter` -1 or an integer >= 1"
            raise InvalidParameterError(f"{expected}, got {max_iter!r}")
        if self.decision_function_shape not in ("ovr", "ovo"):
            shape = self.decision_function_shape
            raise InvalidParameterError(
                f"SVC: expected `decision_function_shape` 'ovr' or 'ovo', got {shape!r}"
            )

    def _steps(self, n_samples: int) -> int:
        """``max_iter``, or libsvm's cap :math:`\\max(10^7, 100 n)` for ``-1``."""
        return max(10**7, 100 * n_samples) if self.max_iter == -1 else int(self.max_iter)

    def _batch_learner(self, X=None):
        """The binary learner (labels {-1, +1}), for the one-vs-rest and one-vs-one reductions."""
        steps = self._steps(0 if X is None else X.shape[0])
        return linear.kernel_svm_dual_cd(self._kernel(), self.C, tol=self.tol, max_iter=steps)

    def fit(self, X, y, sample_weight=None):
        """Fit the one-vs-one pair problems on ``X`` (n, d) and labels ``y`` (two or more values).

        Args:
          sample_weight: (n,) non-negative weights multiplying ``C`` per row (a weight 0 leaves the
            row out, as libsvm does).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        index = encode_classes(self, y)
        weights = sample_weights(sample_weight, X)
        weights = row_weights(self.class_weight, self.classes_, index, weights)
        if not (weights > 0).any():
            raise ValueError("expected `sample_weight` with a positive entry, got all zeros")
        self._prepare(X)
        first, second = multiclass.pairs(self.classes_.size)
        member = (index == first[:, None]) | (index == second[:, None])  # (pairs, n)
        counts = member.sum(axis=1)
        length = fit_bucket(counts.max(), X.shape[0])  # size buckets: one program per bucket
        slots = np.arange(length) < counts[:, None]  # a pair's rows, then padding
        rows = np.argsort(~member, axis=1, kind="stable").astype(np.int32)
        rows = pad_rows(rows, length, axis=1)[:, :length]
        rows = np.where(slots, rows, 0)
        labels = np.where(index[rows] == first[:, None], 1.0, -1.0).astype(X.dtype)
        costs = np.where(slots, weights[rows], 0.0).astype(X.dtype)
        steps = self._steps(X.shape[0])
        sample = pad_rows(X, fit_bucket(X.shape[0]))
        numbers = float(self.C), float(self.tol)  # C=1 and C=1.0: one program
        solution = _fit_pairs(self._kernel(), sample, rows, labels, costs, *numbers, steps)
        coef = np.zeros((X.shape[0], first.size), X.dtype)  # (n, pairs)
        pair_of_slot = np.broadcast_to(np.arange(first.size)[:, None], rows.shape)
        coef[rows[slots], pair_of_slot[slots]] = np.asarray(solution.dual_coef)[slots]
        used = (coef != 0).any(axis=1)
        by_class = np.argsort(index, kind="stable")  # libsvm's order: by class, then by row
        self.support_ = by_class[used[by_class]].astype(np.int32)
        owner = index[self.support_]
        self.n_support_ = np.bincount(owner, minlength=self.classes_.size).astype(np.int32)
        self.support_vectors_ = X[self.support_]
        self.pair_dual_coef_ = coef[self.support_]
        # libsvm's layout: pair (i, j)'s coefficients of class i's vectors in row j - 1, j's in i
        own = owner[:, None]
        target = np.where(own == first, second - 1, np.where(own == second, first, -1))
        vector = np.broadcast_to(np.arange(owner.size)[:, None], target.shape)
        kept = target >= 0
        dual_coef = np.zeros((self.classes_.size - 1, self.support_.size), X.dtype)
        dual_coef[target[kept], vector[kept]] = self.pair_dual_coef_[kept]
        intercept = np.asarray(solution.b)
        binary = self.classes_.size == 2  # scikit-learn's sign: positive means classes_[1]
        self.dual_coef_ = -dual_coef if binary else dual_coef
        self.intercept_ = -intercept if binary else intercept
        self.n_iter_ = np.asarray(solution.n_iter, np.int32)
        self.fit_status_ = int(not np.asarray(solution.converged).all())
        if self.fit_status_:
            warnings.warn(
                f"Solver terminated early (max_iter={self.max_iter}): the KKT violation of "
                f"{int(np.sum(~np.asarray(solution.converged)))} pair problem(s) is above tol. "
                "Consider pre-processing your data with StandardScaler or MinMaxScaler.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _decisions(self, X, ovr):
        X = self._check_X(X)
        binary = self.classes_.size == 2
        intercept = -self.intercept_ if binary else self.intercept_
        # the support padded with zero coefficients (to a power of two; in a search, to the sample's
        # bucket): a refit with another number of support vectors (another C, another fold) reuses
        # the compiled program
        count = self.support_vectors_.shape[0]
        extra = ((0, example_slots(count) - count), (0, 0))
        support = np.pad(self.support_vectors_.astype(X.dtype), extra)
        coef = np.pad(self.pair_dual_coef_.astype(X.dtype), extra)
        decisions = functools.partial(
            _svc_decisions,
            self._kernel(),
            support,
            coef,
            intercept.astype(X.dtype),
            num_classes=self.classes_.size,
            ovr=ovr and not binary,
        )
        return on_bucket_rows(decisions, X)  # the queries padded to their size bucket

    def decision_function(self, X):
        """scikit-learn's: (n,) for two classes (positive means ``classes_[1]``); else (n, K) votes
        plus confidences (``"ovr"``) or (n, K(K-1)/2) the pairs' values, positive for the first
        class of each pair (``"ovo"``)."""
        pairs, scores = self._decisions(X, self.decision_function_shape == "ovr")
        if self.classes_.size == 2:
            return -np.asarray(pairs)[:, 0]
        return np.asarray(scores)

    def predict(self, X):
        """The class with the most pair votes (a pair's value > 0 votes for its first class, else
        the second; ties: the first class), as libsvm's; with ``break_ties`` the argmax of the
        one-vs-rest ``decision_function``."""
        pairs, scores = self._decisions(X, True)
        pairs, scores = np.asarray(pairs), np.asarray(scores)
        if self.classes_.size == 2:
            return self.classes_[(pairs[:, 0] <= 0).astype(np.intp)]
        if self.break_ties and self.decision_function_shape == "ovr":
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[np.argmax(np.rint(scores), axis=1)]  # the votes: |confidence| < 1/3

    @property
    def coef_(self):
        """The weights of the linear kernel (``kernel="linear"`` only), in scikit-learn's layout:
        (1, d) for two classes, else (K(K-1)/2, d), one row per pair."""
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        coef = self.pair_dual_coef_.T @ self.support_vectors_
        return -coef if self.classes_.size == 2 else coef


@cpu_jit
def _class_means(X, index, weights, num_classes_like):
    r"""The weighted mean of each class's rows, ``A.T @ X`` with :math:`A_{ik} = c_i [y_i = k] / \sum_{j:
    y_j = k} c_j` (one matrix product for every class), and ``A``."""
    own = index[:, None] == jnp.arange(num_classes_like.shape[0])[None, :]
    A = jnp.where(own, weights[:, None], 0.0)
    A = A / jnp.sum(A, axis=0)
    return A.T @ X, A


@cpu_jit
def _squared_distances(centroids, X):
    r""":math:`\|x - c_k\|^2` for each class (vmapped over the centroids): shape (n, K)."""
    return jax.vmap(lambda c: jnp.sum((X - c) ** 2, axis=1), out_axes=1)(centroids)


@cpu_jit
def _kernel_distances(kernel, support, A, norms, X):
    r""":math:`\|\psi(x) - c_k\|^2 - k(x, x) = \|c_k\|^2 - 2\langle c_k, \psi(x)\rangle`: shape (n, K)."""
    return norms - 2 * expansion(kernel, support, A, X)


class NearestCentroid(_KernelMixin, ClassifierMixin, JaxlearnEstimator):
    r"""The nearest-centroid rule, any number of classes, as scikit-learn's (ties: the first class).

    .. math:: \hat y(x) = \arg\min_k \|\psi(x) - c_k\|^2, \qquad c_k = \frac{\sum_{i: y_i = k} s_i \psi(x_i)}
        {\sum_{i: y_i = k} s_i}

    (:math:`s_i` the sample weights; scikit-learn's has none: integer weights equal repeated rows). With the
    linear kernel the centroids are explicit (``centroids_``); with another kernel the distances go
    through it (UML Exercise 16.6; two classes: :func:`jaxlearn.linear.kernel_centroid`).
    ``decision_function`` is :math:`-\|x - c_k\|^2` (two classes: the difference, positive for
    ``classes_[1]``), not scikit-learn's shrunken discriminant.

    Args:
      kernel, gamma, degree, coef0: the kernel (``"linear"`` by default: the Euclidean centroids).
      metric, priors, shrink_threshold: scikit-learn's defaults only (``"euclidean"``, ``"uniform"``,
        ``None``): the nearest unshrunk centroid, with no class priors.

    Attributes:
      centroids_: (K, d) with the linear kernel; support_, dual_coef_ (n, K), centroid_norms_ (K,) with
      another; gamma_; classes_.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import NearestCentroid
      >>> X = [[1.0], [3.0], [-1.0], [9.0]]
      >>> NearestCentroid().fit(X, ["+", "+", "-", "o"]).predict([[0.4], [0.6], [6.0]]).tolist()
      ['-', '+', 'o']
    """

    _psd_only = True

    #: An example of label 0 takes no part in the fit (``OneVsOneClassifier`` packs each pair's own).
    _pair_subsample = "compact"

    _only_default = {
        "metric": OnlyDefault(
            ("euclidean",), "the distance is Euclidean in the kernel's feature space; see `kernel`"
        ),
        "priors": OnlyDefault(("uniform",), "the rule is the nearest centroid, with no priors"),
        "shrink_threshold": OnlyDefault((None,), "the centroids are not shrunk"),
    }

    def __init__(
        self,
        kernel="linear",
        *,
        gamma="scale",
        degree=3,
        coef0=0.0,
        metric="euclidean",
        shrink_threshold=None,
        priors="uniform",
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.metric = metric
        self.shrink_threshold = shrink_threshold
        self.priors = priors

    def fit(self, X, y, sample_weight=None):
        r"""The class centroids of ``X`` (n, d) with labels ``y`` (two or more values).

        Args:
          sample_weight: (n,) non-negative weights (``None``: ones); every class needs a positive total.

        Returns:
          self.
        """
        for name in ("centroids_", "support_", "dual_coef_", "centroid_norms_"):
            self.__dict__.pop(name, None)
        X, y = self._validate(X, y, reset=True)
        index = encode_classes(self, y)
        weights = sample_weights(sample_weight, X)
        totals = np.bincount(index, weights=weights, minlength=self.classes_.size)
        if not (totals > 0).all():
            raise ValueError(
                f"expected `sample_weight` with a positive total in every class, got zero for classes "
                f"{self.classes_[totals <= 0]!r}"
            )
        self._prepare(X)
        n, size = X.shape[0], fit_bucket(X.shape[0])  # rows of weight 0 up to the size bucket
        rows = [pad_rows(a, size) for a in (X, index, weights)]
        centroids, A = _class_means(*rows, np.empty(self.classes_.size))
        A = np.asarray(A)[:n]
        if self.kernel == "linear":
            self.centroids_ = np.asarray(centroids)
        else:
            kernel = self._kernel()
            self.support_, self.dual_coef_ = X, np.asarray(A)
            self.centroid_norms_ = np.sum(
                self.dual_coef_ * np.asarray(expansion(kernel, X, A, X)), axis=0
            )
        return self

    def _distances(self, X):
        X = self._check_X(X)
        if self.kernel == "linear":
            return on_bucket_rows(lambda rows: _squared_distances(self.centroids_, rows), X)
        return np.asarray(
            _kernel_distances(
                self._kernel(), self.support_, self.dual_coef_, self.centroid_norms_, X
            )
        )

    def decision_function(self, X):
        r""":math:`-\|\psi(x) - c_k\|^2` up to a term of ``x``: (n, K); two classes: (n,), the first's
        distance minus the second's (positive means ``classes_[1]``)."""
        distances = self._distances(X)
        return distances[:, 0] - distances[:, 1] if distances.shape[1] == 2 else -distances

    def predict(self, X):
        r"""The labels (values of ``classes_``) of the nearest centroids; a tie is the first class."""
        nearest = np.argmin(self._distances(X), axis=1)  # first: the fitted check
        return self.classes_[nearest]

    def _batch_learner(self, X=None):
        r"""The two-class learner (labels {-1, +1}) for jaxlearn's reductions."""
        return linear.kernel_centroid(self._kernel())


def _fit_ridge(ridge, fit_intercept, key, X, y, weights=None):
    """``ridge`` fitted as scikit-learn's ``Ridge``: each row's squared error weighted by ``weights``
    (rows scaled by their square roots) and, with an intercept, the rows centred at their weighted
    means first, so that the intercept is not penalised; the intercept is appended to ``w``."""
    X = jnp.asarray(X)
    y = jnp.asarray(y, X.dtype)
    weights = jnp.ones(X.shape[0], X.dtype) if weights is None else jnp.asarray(weights, X.dtype)
    if fit_intercept:
        x_mean, y_mean = weights @ X / jnp.sum(weights), weights @ y / jnp.sum(weights)
        X, y = X - x_mean, y - y_mean
    root = jnp.sqrt(weights)
    params = ridge.fit(key, root[:, None] * X, root * y)
    if not fit_intercept:
        return params
    return params._replace(w=jnp.append(params.w, y_mean - x_mean @ params.w))


@functools.partial(cpu_jit, static_argnums=1)
def _fit_ridge_columns(ridge, fit_intercept, key, X, Y, weights):
    """:func:`_fit_ridge` of each column of ``Y`` (n, t): one program, vmapped over the columns, with
    one penalty (``ridge``'s ``lam`` a scalar) or one each (of shape (t,))."""
    if jnp.ndim(core.hyperparameters(ridge)["lam"]) > 0:
        fit = jax.vmap(_fit_ridge, in_axes=(0, None, None, None, 1, None))
        return fit(ridge, fit_intercept, key, X, Y, weights)
    return map_problems(lambda y: _fit_ridge(ridge, fit_intercept, key, X, y, weights), Y.T)


def _fit_signed_ridge(ridge, key, X, y, *, fit_intercept):
    """:func:`_fit_ridge` on labels in {-1, 0, +1}, an example of label 0 of weight 0: the fit of
    jaxlearn's reductions (one-vs-one's other classes take no part)."""
    return _fit_ridge(ridge, fit_intercept, key, X, y, jnp.asarray(y) != 0)


_FIT_SIGNED_RIDGE = {
    intercept: functools.partial(_fit_signed_ridge, fit_intercept=intercept)
    for intercept in (False, True)
}


def _ridge_scores(params, X):
    X = jnp.asarray(X)
    if params.w.shape[-1] == X.shape[-1]:  # no intercept
        return X @ params.w
    return X @ params.w[:-1] + params.w[-1]


def _ridge_sign(params, X):
    return sign_label(_ridge_scores(params, X))


class _RidgeMixin:
    """The ridge fit the regressor and the classifier share: ``alpha``, ``fit_intercept`` (not
    penalised), ``sample_weight``, and ``coef_`` / ``intercept_`` as scikit-learn's, computed in the
    input's precision as scikit-learn's (float32 for float32 ``X``, else float64)."""

    _parameter_constraints = {"alpha": core.POSITIVE}
    #: read only by scikit-learn's iterative solvers (or its copy of X); the closed form ignores them
    _no_effect = {
        "copy_X": None,
        "max_iter": (core.POSITIVE_INT, None),
        "tol": core.NON_NEGATIVE,
        "random_state": None,
    }
    _only_default = {"positive": OnlyDefault((False,), "the closed form is unconstrained")}
    #: scikit-learn's direct solvers: each gives the closed form (solved here by Cholesky).
    _SOLVERS = ("auto", "cholesky", "svd")

    def _check_X(self, X):
        """Fitted check, and ``X`` in its own precision (float32 stays float32, else float64): the
        scores are NumPy's ``X @ coef_.T + intercept_``, in the precision scikit-learn's take."""
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=[np.float64, np.float32])

    def _check_params(self):
        if self.solver not in self._SOLVERS:
            raise InvalidParameterError(
                f"{type(self).__name__}: expected `solver` one of {self._SOLVERS} (the closed form), "
                f"got {self.solver!r}: scikit-learn's iterative solvers are not offered"
            )
        super()._check_params()

    def _fit_weighted(self, X, Y, weights):
        """One ridge regression per column of ``Y`` (n, t) with row weights ``weights``, on the rows
        padded to their size bucket (weight 0: they take no part); sets ``params_`` (``w`` of shape
        (t, d [+ 1])), ``coef_`` and ``intercept_``."""
        if not np.sum(weights) > 0:
            raise ValueError(
                "expected `sample_weight` and `class_weight` to give some row a positive weight, "
                "got all weights 0"
            )
        targets = Y.shape[1]
        alpha = np.asarray(self.alpha, X.dtype)
        if alpha.ndim > 1 or alpha.size not in (1, targets):
            raise ValueError(
                f"expected `alpha` a number or an array of one per target ({targets}), "
                f"got shape {alpha.shape}"
            )
        # one penalty for all columns (one factorisation), or one each: scikit-learn's (n_targets,)
        ridge = linear.ridge(alpha.ravel()[0] if alpha.size == 1 else alpha)
        intercept = bool(self.fit_intercept)
        # rows of weight 0 up to the size bucket: one program per bucket
        size = fit_bucket(X.shape[0])
        X, Y, weights = (pad_rows(a, size) for a in (X, np.asarray(Y, X.dtype), weights))
        # the closed form draws nothing: no key (one drawn from `random_state` would take the
        # global NumPy generator's next number at every fit)
        params = _fit_ridge_columns(ridge, intercept, None, X, Y, weights)
        self.params_ = jax.device_get(params)  # on the host (one transfer), in X's precision
        # coef_ and intercept_ writable (a copy), as scikit-learn's: predict reads them
        w = np.array(self.params_.w)
        self.coef_ = w[:, :-1] if intercept else w
        self.intercept_ = w[:, -1] if intercept else np.zeros(w.shape[0], w.dtype)

    def _batch_learner(self, X=None):
        """The two-class learner of jaxlearn's reductions (labels {-1, +1}; label 0 takes no part)."""
        # `fit_intercept` shapes the program: it is in the function, not a (traced) leaf of the Partial
        return core.BatchLearner(
            Partial(_FIT_SIGNED_RIDGE[bool(self.fit_intercept)], linear.ridge(self.alpha)),
            Partial(_ridge_sign),
            Partial(_ridge_scores),
        )


class RidgeClassifier(_RidgeMixin, BatchBinaryClassifier):
    """Ridge regression on the labels mapped to {-1, +1} (:func:`jaxlearn.linear.ridge`); the sign of
    the fitted value is the class. With more than two classes, as scikit-learn's: one ridge
    regression per class of its indicator in {-1, +1} (one vmapped program), the largest fitted value
    is the class.

    Args:
      alpha: :math:`\\lambda > 0` of
        :math:`\\sum_i c_i(\\langle w, x_i\\rangle + b - y_i)^2 + \\lambda\\|w\\|^2`
        (scikit-learn's ``alpha``; :math:`c_i` the row's ``sample_weight`` times its class's weight).
      fit_intercept: fit the intercept :math:`b` (not penalised: the rows are centred at their
        weighted means).
      class_weight: ``None``, ``"balanced"`` or ``{label: weight}``, as scikit-learn's.
      solver: ``"auto"``, ``"cholesky"`` or ``"svd"`` (all the closed form), as :class:`Ridge`.
      copy_X, max_iter, tol, random_state: accepted for scikit-learn's API, with no effect (only
        scikit-learn's iterative solvers read them; this is the closed form); ``positive``: ``False``
        only.

    Attributes:
      params_: :class:`~jaxlearn.linear.RidgeParams` (the intercept last in ``w``); coef_ (d,) for two
      classes, else (K, d); intercept_ (1,) or (K,); classes_.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import RidgeClassifier
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
      >>> RidgeClassifier().fit(X, [1, 1, 0, 0]).predict(X).tolist()
      [1, 1, 0, 0]
    """

    #: An example of label 0 takes no part in the fit (``OneVsOneClassifier`` packs each pair's own).
    _pair_subsample = "compact"

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        copy_X=True,
        max_iter=None,
        tol=1e-4,
        class_weight=None,
        solver="auto",
        positive=False,
        random_state=None,
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.class_weight = class_weight
        self.solver = solver
        self.positive = positive
        self.random_state = random_state

    @in_input_precision
    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` of shape (n, d) and labels ``y`` (any values; one regression per class past two).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        index = encode_classes(self, y)
        weights = row_weights(
            self.class_weight, self.classes_, index, sample_weights(sample_weight, X)
        )
        if self.classes_.size == 2:
            indicators = 2.0 * index[:, None] - 1.0
        else:
            indicators = 2.0 * (index[:, None] == np.arange(self.classes_.size)) - 1.0
        self._fit_weighted(X, indicators, weights)
        if self.classes_.size == 2:  # scikit-learn's shapes: coef_ (d,), intercept_ (1,)
            self.coef_ = self.coef_[0]
        return self

    def _decision(self, X):
        return X @ self.coef_.T + self.intercept_

    def predict(self, X) -> np.ndarray:
        """The predicted labels (values of ``classes_``) of the rows of ``X``."""
        scores = self.decision_function(X)
        return (
            self._decode(scores) if scores.ndim == 1 else self.classes_[np.argmax(scores, axis=1)]
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


class Ridge(_RidgeMixin, BatchRegressor):
    """Ridge regression in closed form (:func:`jaxlearn.linear.ridge`), as scikit-learn's ``Ridge``.

    Args:
      alpha: :math:`\\lambda > 0` of
        :math:`\\sum_i c_i(\\langle w, x_i\\rangle + b - y_i)^2 + \\lambda\\|w\\|^2`
        (scikit-learn's ``alpha``; :math:`c_i` the row's ``sample_weight``), or an array of one
        per target (shape ``(n_targets,)``).
      fit_intercept: fit the intercept :math:`b` (not penalised: the rows are centred at their
        weighted means).
      solver: ``"auto"``, ``"cholesky"`` or ``"svd"``: scikit-learn's direct solvers, which all give
        the closed form (solved here by Cholesky); its iterative ones are not offered.
      copy_X, max_iter, tol, random_state: accepted for scikit-learn's API, with no effect (only
        scikit-learn's iterative solvers read them; this is the closed form); ``positive``: ``False``
        only.

    Attributes:
      params_: :class:`~jaxlearn.linear.RidgeParams` (``w`` of shape (t, d [+ 1]), one row per target,
      the intercept last when ``fit_intercept``); coef_ (d,) or (t, d) for ``y`` of shape (n, t);
      intercept_ (a float or (t,)).

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import Ridge
      >>> Ridge(alpha=2.0, fit_intercept=False).fit([[1.0], [1.0]], [1.0, 3.0]).predict([[6.0]]).tolist()
      [6.0]
    """

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        copy_X=True,
        max_iter=None,
        tol=1e-4,
        solver="auto",
        positive=False,
        random_state=None,
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive = positive
        self.random_state = random_state

    @in_input_precision
    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` of shape (n, d) and real targets ``y`` of shape (n,) or (n, t).

        Returns:
          self.
        """
        self._check_params()
        X, y = validate_data(
            self, X, y, dtype=float_dtype(), y_numeric=True, multi_output=True, reset=True
        )
        y = np.asarray(y, X.dtype)
        self._fit_weighted(X, y.reshape(len(y), -1), sample_weights(sample_weight, X))
        if y.ndim == 1:
            self.coef_, self.intercept_ = self.coef_[0], float(self.intercept_[0])
        return self

    def predict(self, X) -> np.ndarray:
        """The fitted values :math:`\\langle w, x\\rangle + b` of the rows of ``X``: (n,) or (n, t)."""
        return self._check_X(X) @ self.coef_.T + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class KernelRidge(_KernelMixin, BatchRegressor):
    """Kernel ridge regression in closed form (:func:`jaxlearn.linear.kernel_ridge`).

    scikit-learn's ``alpha`` (:math:`\\alpha^* = (K + \\alpha I)^{-1} y`) is UML's
    :math:`\\lambda = \\alpha/(2m)` (:math:`\\alpha / (2 \\sum_i s_i)` with ``sample_weight``
    :math:`s`); kernels and their defaults as scikit-learn's ``KernelRidge`` (``gamma=None``:
    :math:`1/d`). The rows are padded to their size bucket with weight 0 (they take no part).
    It solves in the input's precision: float64 for float64 ``X`` (as scikit-learn's), float32 for
    float32 ``X``.
    ``kernel_params`` is ``None`` only (the kernel is named by ``kernel``, ``gamma``, ``degree`` and
    ``coef0``).

    Attributes:
      params_: :class:`~jaxlearn.linear.KernelRidgeParams` (the padding rows have coefficient 0);
      gamma_; n_samples_fit_.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import KernelRidge
      >>> KernelRidge(alpha=2.0).fit([[1.0], [1.0]], [1.0, 3.0]).predict([[6.0]]).round(4).tolist()
      [6.0]
    """

    _psd_only = True

    _parameter_constraints = {"alpha": core.POSITIVE}
    _only_default = {
        "kernel_params": OnlyDefault(
            (None,), "the kernel is named by `kernel`, `gamma`, `degree` and `coef0`"
        )
    }

    def __init__(
        self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1.0, kernel_params=None
    ):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params

    def _prepare(self, X):
        self.n_samples_fit_ = int(X.shape[0])
        # The linear kernel is homogeneous: k(sx, sz) = s^2 k(x, z), so the learner fits s X with
        # alpha s^2 (s a power of two, 1 below |x| = 2**20): the Gram matrix of |x| >= 1e19 stays finite.
        self.x_scale_ = power_of_two_scale(X) if self.kernel == "linear" else 1.0
        super()._prepare(X)

    def _scaled(self, X):
        return X if self.x_scale_ == 1.0 else X * self.x_scale_

    def _batch_learner(self, X=None):
        core.POSITIVE.check("alpha", self.alpha)
        total = getattr(self, "weight_total_", self.n_samples_fit_)
        lam = float(self.alpha) * self.x_scale_**2 / (2 * total)
        return linear.kernel_ridge(self._kernel(), lam)

    @in_input_precision
    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` of shape (n, d) and real targets ``y`` of shape (n,).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True, y_numeric=True)
        weights = sample_weights(sample_weight, X)
        self.weight_total_ = float(np.sum(weights))
        self._prepare(X)
        size = fit_bucket(X.shape[0])
        params = self._batch_learner(X).fit(
            None,  # the closed form draws nothing
            pad_rows(self._scaled(X), size),
            pad_rows(np.asarray(y, X.dtype), size),
            pad_rows(weights, size),
        )
        self.params_ = jax.device_get(params)  # on the host (one transfer), in X's precision
        return self

    @in_input_precision
    def predict(self, X) -> np.ndarray:
        """The fitted function at the rows of ``X`` (n, d), in their precision (float32 for float32
        ``X``, else float64)."""
        return super().predict(X)
