"""scikit-learn estimators for multiclass learning: one-vs-rest and one-vs-one over any jaxlearn binary
estimator, the multiclass SVM and the multiclass Perceptron.

:class:`MulticlassClassifier` is the base of every estimator of this part that takes two or more
labels (also the trees, the k-NN classifier and the MLP): ``classes_`` is ``np.unique(y)``, mapped to
the learner's ``0..K-1`` inside and back by ``predict``. ``fit`` and ``predict`` call the jaxlearn
learner through module-level jitted functions that take the learner as a pytree argument, so a second
fit with inputs of the same shapes (and any new numeric hyperparameters) compiles nothing.
"""

from __future__ import annotations

import jax
import numpy as np
import sklearn.multiclass
from sklearn.base import ClassifierMixin, RegressorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from jaxlearn import core, multiclass
from jaxlearn._buckets import fit_bucket, on_bucket_rows, pad_rows
from jaxlearn._checks import check_positive_int
from jaxlearn._cpu_jit import compile_small_data_with, cpu_jit
from jaxlearn.sklearn._base import N_JOBS, JaxlearnEstimator, encode_classes, present_weights
from jaxlearn.sklearn._linear import LinearSVC, weighted_fit
from jaxlearn.sklearn._ovo import ovo_scores

__all__ = [
    "MulticlassPerceptron",
    "MulticlassSVC",
    "OneVsOneClassifier",
    "OneVsRestClassifier",
]


@cpu_jit
def fit_learner(learner: core.BatchLearner, key, X, y):
    """``learner.fit(key, X, y)`` as one compiled program (the learner is a pytree argument)."""
    return learner.fit(key, X, y)


#: ``learner.fit(key, X, y, sample_weight=w)`` as one compiled program (XLA's default options).
fit_weighted = cpu_jit(weighted_fit)


@cpu_jit(static_argnames=("extra",))
def evaluate(learner: core.BatchLearner, params, X, extra=None):
    """``(learner.predict(params, X), extra(learner, params, X))`` as one compiled program, so that
    ``predict`` and ``decision_function``/``predict_proba`` on the same shapes compile once."""
    return learner.predict(params, X), (None if extra is None else extra(learner, params, X))


def scores(learner: core.BatchLearner, params, X):
    """The learner's ``decision_function`` (an ``extra`` of :func:`evaluate`)."""
    return learner.decision_function(params, X)


def lam_of_C(C, n_samples: int) -> float:
    r"""jaxlearn's :math:`\lambda` for scikit-learn's ``C``: :math:`\lambda = 1/(C\,m)` (dividing
    :math:`\frac12\|w\|^2 + C\sum_i \ell_i` by :math:`C m` gives jaxlearn's objective, same minimiser)."""
    core.POSITIVE.check("C", C)
    return 1.0 / (float(C) * n_samples)


class MulticlassClassifier(ClassifierMixin, JaxlearnEstimator):
    """A classifier over any two or more labels, over a jaxlearn learner taking labels ``0..K-1``.

    Subclasses define ``_batch_learner(X, n_classes)``: the learner from the hyperparameters (``X`` the
    validated training sample, ``None`` after ``fit``: then only what ``predict`` needs must be right).
    ``fit`` stores the learner's params in ``params_``.
    """

    def _batch_learner(self, X, n_classes: int) -> core.BatchLearner:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_key(self):
        return self._key()

    def _check_fit_sample(self, X) -> None:
        """Refuse a sample the learner cannot fit, with a scikit-learn style message (default: none)."""

    def fit(self, X, y):
        """Fit on ``X`` of shape (n, d) and labels ``y`` (n,) of two or more values (strings, ints, ...).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        y = encode_classes(self, y)
        self._check_fit_sample(X)
        learner = self._batch_learner(X, self.classes_.size)
        self.params_ = self._fit_params(learner, X, y)
        return self

    def _fit_params(self, learner: core.BatchLearner, X, y):
        """The learner's params on the validated sample (``y`` the class indices)."""
        return fit_learner(learner, self._fit_key(), X, y)

    #: what :func:`evaluate` computes beside the labels (``decision_function``, probabilities, ...).
    _extra = None

    def _fitted_learner(self) -> core.BatchLearner:
        return self._batch_learner(None, self.classes_.size)

    def _queries(self, X):
        """The rows of ``X`` validated, as the learner takes them (default: unchanged)."""
        return self._check_X(X)

    def _query_params(self):
        """The fitted params that predictions read (default: ``params_``)."""
        return self.params_

    def _evaluate(self, X):
        """``(class indices, extra)`` on the rows of ``X`` (validated here), numpy arrays."""
        queries = self._queries(X)  # first: the fitted check
        learner = self._fitted_learner()  # the queries padded to their size bucket: one program
        params = self._query_params()
        return on_bucket_rows(lambda rows: evaluate(learner, params, rows, self._extra), queries)

    def predict(self, X) -> np.ndarray:
        """The predicted labels (values of ``classes_``) of the rows of ``X`` (n, d)."""
        index = self._evaluate(X)[0]  # first: the fitted check
        return self.classes_[index]


class ScoringClassifier(MulticlassClassifier):
    """A :class:`MulticlassClassifier` whose learner has a ``decision_function`` of shape (n, K)."""

    _extra = staticmethod(scores)

    def decision_function(self, X) -> np.ndarray:
        """The learner's class scores: shape (n, K), or (n,) for two classes (``s_1 - s_0``: positive
        means ``classes_[1]``, as scikit-learn's binary convention)."""
        values = self._evaluate(X)[1]
        return values[:, 1] - values[:, 0] if values.shape[1] == 2 else values


class _Reduction(ScoringClassifier):
    """The shared part of the two reductions: the binary estimator's learner, fitted as one program.

    Over any other estimator (scikit-learn's own, or a jaxlearn estimator that is multiclass itself
    or a regressor) the reduction is scikit-learn's, fitted in ``reduction_``: one fit per problem,
    as scikit-learn fits them.
    """

    def _estimator(self):
        """The binary estimator as given (``None``: ``LinearSVC()``), not cloned."""
        return LinearSVC() if self.estimator is None else self.estimator

    def _vectorised(self) -> bool:
        """Whether the problems are one jaxlearn program: the estimator is a jaxlearn binary batch
        estimator (a multiclass learner needs the class count; a regressor has no classes)."""
        estimator = self._estimator()
        return (
            isinstance(estimator, JaxlearnEstimator)
            and hasattr(estimator, "_batch_learner")
            and not isinstance(estimator, (MulticlassClassifier, RegressorMixin))
        )

    def _binary(self):
        return clone(self._estimator())

    def _scikit_learns(self):  # pragma: no cover - abstract
        """scikit-learn's reduction over the estimator, with this one's parameters."""
        raise NotImplementedError

    def _reduce(
        self, binary: core.BatchLearner, n_classes: int
    ) -> core.BatchLearner:  # pragma: no cover
        raise NotImplementedError

    def fit(self, X, y):
        """Fit every binary problem on ``X`` (n, d) and labels ``y``: at once (one vmapped program) over
        a jaxlearn binary batch estimator, else by scikit-learn's reduction (``reduction_``).

        Returns:
          self.
        """
        fitted = (
            "reduction_",
            "estimators_",
            "params_",
            "estimator_attributes_",
            "feature_names_in_",
        )
        for name in fitted:
            self.__dict__.pop(name, None)
        if not self._vectorised():
            self._check_params()
            self.reduction_ = self._scikit_learns().fit(X, y)
            for name in ("classes_", "estimators_", "n_features_in_", "feature_names_in_"):
                if hasattr(self.reduction_, name):
                    setattr(self, name, getattr(self.reduction_, name))
            return self
        X, y = self._validate(X, y, reset=True)
        y = encode_classes(self, y)
        inner = self._binary()
        if self.random_state is not None and "random_state" in inner.get_params():
            inner.set_params(random_state=self.random_state)  # the fits' randomness, as the key's
        inner._check_params()  # the binary estimator's own names
        prepare = getattr(inner, "_prepare", None)
        if prepare is not None:
            prepare(X)  # data-dependent values of the binary estimator (gamma="scale", ...)
        learner = self._reduce(inner._batch_learner(X), self.classes_.size)
        # what the binary estimator read off the sample, to rebuild its learner for predict
        self.estimator_attributes_ = {k: v for k, v in vars(inner).items() if k.endswith("_")}
        key = inner._key() if self.random_state is None else self._key()
        # a packed one-vs-one reads the pairs' sizes off `y` first: its own compiled program
        packed = self._packs_pairs()
        # the programs over the binary learner compile as the binary estimator's own fit
        with compile_small_data_with(getattr(inner, "_small_data_options", lambda: None)()):
            if packed:
                self.params_ = self._fit_packed(inner, learner, key, X, y)
            else:
                self.params_ = self._fit_params(inner, learner, key, X, y)
        return self

    def _fit_params(self, inner, learner: core.BatchLearner, key, X, y):
        """The reduction's params: ``learner.fit(key, X, y)`` as one program."""
        return fit_learner(learner, key, X, y)

    def _packs_pairs(self) -> bool:
        return False

    def _fit_packed(self, inner, learner: core.BatchLearner, key, X, y):
        """The params of a reduction that packs its problems' rows: ``learner.fit(key, X, y)``."""
        return learner.fit(key, X, y)

    def _fitted_reduction(self):
        """scikit-learn's fitted reduction where it ran (see the class), else ``None``."""
        check_is_fitted(self)
        return self.__dict__.get("reduction_")

    def decision_function(self, X) -> np.ndarray:
        """The class scores, as scikit-learn's reduction of the same name scores: shape (n, K), or
        (n,) for two classes (positive means ``classes_[1]``)."""
        reduction = self._fitted_reduction()
        return self._scores(X) if reduction is None else reduction.decision_function(X)

    def predict(self, X) -> np.ndarray:
        """The predicted labels (values of ``classes_``) of the rows of ``X`` (n, d)."""
        reduction = self._fitted_reduction()
        return self._labels(X) if reduction is None else reduction.predict(X)

    @available_if(
        lambda self: not self._vectorised() and hasattr(self._estimator(), "predict_proba")
    )
    def predict_proba(self, X) -> np.ndarray:
        """scikit-learn's reduction's class probabilities, over an estimator that has them (and is
        not a jaxlearn binary estimator): shape (n, K)."""
        return self._fitted_reduction().predict_proba(X)

    def _scores(self, X):
        return ScoringClassifier.decision_function(self, X)

    def _labels(self, X):
        return ScoringClassifier.predict(self, X)

    def _fitted_learner(self) -> core.BatchLearner:
        inner = self._binary()
        for name, value in self.estimator_attributes_.items():
            setattr(inner, name, value)
        return self._reduce(inner._batch_learner(), self.classes_.size)


class OneVsRestClassifier(_Reduction):
    """One-vs-rest (``jaxlearn.multiclass.one_vs_all``) over a jaxlearn binary estimator.

    The K binary problems "class i against the rest" are fitted as one ``jax.vmap`` of the binary
    learner's fit (one key per problem, split from the binary estimator's ``random_state``); the class
    of largest binary score wins (ties: the first class). With two classes both problems are fitted
    (they mirror each other) and ``decision_function`` is ``s_1 - s_0``. Over ``LinearSVC``,
    ``SGDClassifier`` and ``Perceptron`` the problems are the estimator's own one-vs-rest fit (each
    with the key or shuffle seed of its ``random_state``, as scikit-learn's clones draw), on the rows
    padded to their size bucket: a new training size in the bucket compiles nothing.

    Args:
      estimator: a jaxlearn binary estimator with a batch learner (``LinearSVC()``, ``SVC(...)``,
        ``SGDClassifier(...)``, ``Perceptron()``, ...); ``None``: ``jaxlearn.sklearn.LinearSVC()``. It is
        cloned, never fitted itself. Any other estimator (``LogisticRegression()``, a tree,
        scikit-learn's own) goes through scikit-learn's ``OneVsRestClassifier``, one fit per class,
        in ``reduction_`` (its ``estimators_`` and, where the estimator has it, ``predict_proba``).
      random_state: the key of the K fits (split one per problem); ``None``: the binary estimator's.
      n_jobs, verbose: accepted for scikit-learn's API; jaxlearn vectorises instead and prints nothing.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import LinearSVC, OneVsRestClassifier
      >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]] * 4)
      >>> y = np.array(["a", "b", "c"] * 4)
      >>> OneVsRestClassifier(LinearSVC(random_state=0)).fit(X, y).predict(X[:3]).tolist()
      ['a', 'b', 'c']
    """

    _no_effect = {"n_jobs": N_JOBS, "verbose": None}

    def __init__(self, estimator=None, *, n_jobs=None, verbose=0, random_state=None):
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.random_state = random_state

    def _reduce(self, binary, n_classes):
        return multiclass.one_vs_all(binary, n_classes)

    def _fit_params(self, inner, learner, key, X, y):
        """Over an estimator that fits weighted binary problems as one program (``LinearSVC``, the
        SGD estimators), its program on the rows padded to their size bucket (weight 0): every size
        in a bucket runs it, and the params are those of its own one-vs-rest fit (the SGD
        estimators: each problem shuffled as scikit-learn's clone of it would be)."""
        if not hasattr(inner, "_fit_problems"):
            return super()._fit_params(inner, learner, key, X, y)
        classes = np.arange(self.classes_.size)
        Y = np.where(y[None, :] == classes[:, None], 1, -1).astype(X.dtype)
        size = fit_bucket(X.shape[0])
        Y, W = (pad_rows(A, size, axis=1) for A in (Y, np.ones_like(Y)))
        params = inner._fit_problems(inner._batch_learner(), key, pad_rows(X, size), Y, W)
        return super()._fit_params(inner, learner, key, X, y) if params is None else params

    def _scikit_learns(self):
        return sklearn.multiclass.OneVsRestClassifier(
            self._binary(), n_jobs=self.n_jobs, verbose=self.verbose
        )


class OneVsOneClassifier(_Reduction):
    """One-vs-one (``jaxlearn.multiclass.all_pairs``) over a jaxlearn binary estimator.

    The K(K-1)/2 problems "class i against class j" are fitted as one ``jax.vmap``; each pair votes and
    ties of votes go to the binary scores squashed into (-1/3, 1/3), as scikit-learn's
    ``OneVsOneClassifier``, then to the first class.

    Args:
      estimator: a jaxlearn binary batch estimator; ``None``: ``jaxlearn.sklearn.LinearSVC()``. Any
        other estimator goes through scikit-learn's ``OneVsOneClassifier``, one fit per pair, in
        ``reduction_`` (``subsample`` and ``random_state`` then take no part).
      subsample: how a pair's problem leaves out the other classes: ``"auto"`` (the default:
        ``"compact"`` over ``LinearSVC``, ``SVC``, ``RidgeClassifier``, ``NearestCentroid``,
        ``SGDClassifier`` and ``Perceptron``, ``"cycle"`` over ``HardMarginSVC``, else ``"mask"``),
        ``"compact"`` (each pair fitted on its own examples, as scikit-learn fits it, packed into
        the slots of the largest pair: for the exact solvers, on which an example of label 0 takes
        no part, and the SGD estimators, each pair shuffled by the seed of their ``random_state``
        as scikit-learn's clones are), ``"mask"``
        (their examples get label 0, a zero sub-gradient, so every pair has scikit-learn's one ``C``),
        ``"pair"`` (each pair's SGD draws from its own examples: several times fewer steps on 10
        classes, but the book's per-pair ``C = 1/(lam n_ij)``, not scikit-learn's ``C``) or
        ``"cycle"`` (the pair's examples repeated to fill the sample: for ``HardMarginSVC`` and batch
        Perceptrons).
      random_state: the key of the fits (split one per pair); ``None``: the binary estimator's.
      n_jobs: accepted for scikit-learn's API; jaxlearn vectorises instead.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import LinearSVC, OneVsOneClassifier
      >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]] * 4)
      >>> OneVsOneClassifier(LinearSVC(random_state=0)).fit(X, [0, 1, 2] * 4).predict(X[:3]).tolist()
      [0, 1, 2]
    """

    _no_effect = {"n_jobs": N_JOBS}

    def __init__(self, estimator=None, *, n_jobs=None, subsample: str = "auto", random_state=None):
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.subsample = subsample
        self.random_state = random_state

    def _reduce(self, binary, n_classes):
        return multiclass.all_pairs(binary, n_classes, subsample=self._subsample())

    def _subsample(self) -> str:
        if self.subsample != "auto":
            return self.subsample
        return getattr(self._estimator(), "_pair_subsample", "mask")

    def _packs_pairs(self) -> bool:
        return self._subsample() == "compact"

    def _fit_packed(self, inner, learner, key, X, y):
        """Over an estimator that fits binary problems of their own rows as one program (the SGD
        estimators: ``_fit_samples``), each pair's rows in their order, padded to the size bucket of
        the largest pair (label 0, weight 0): each pair fitted as scikit-learn fits its clone of the
        estimator on them (shuffled by the seed of its ``random_state``); else the library's packing."""
        fit = getattr(inner, "_fit_samples", None)
        if fit is not None:
            first, second = (a[:, None] for a in multiclass.pairs(self.classes_.size))
            Y = np.where(y[None, :] == first, 1, np.where(y[None, :] == second, -1, 0))
            size = fit_bucket(int(np.max(np.sum(Y != 0, axis=1))))
            rows = np.argsort(Y == 0, axis=1, kind="stable")[:, :size]  # each pair's rows first
            Y = pad_rows(np.take_along_axis(Y, rows, axis=1).astype(X.dtype), size, axis=1)
            rows = pad_rows(rows, size, axis=1)  # the padding: row 0, label 0, weight 0
            params = fit(inner._batch_learner(), X[rows], Y, (Y != 0).astype(X.dtype))
            if params is not None:
                return params
        return learner.fit(key, X, y)

    _extra = staticmethod(ovo_scores)

    def _scores(self, X):
        """scikit-learn's ``OneVsOneClassifier.decision_function``: shape (n, K), or (n,) for two classes
        (the column of ``classes_[1]``)."""
        values = self._evaluate(X)[1]
        return values[:, 1] if values.shape[1] == 2 else values

    def _labels(self, X):
        """The class of largest score (ties: the first class), as scikit-learn's."""
        values = self._evaluate(X)[1]
        return self.classes_[np.argmax(values, axis=1)]

    def _scikit_learns(self):
        return sklearn.multiclass.OneVsOneClassifier(self._binary(), n_jobs=self.n_jobs)


class MulticlassSVC(ScoringClassifier):
    r"""The multiclass (Crammer-Singer) SVM by SGD (``jaxlearn.multiclass.multiclass_svm``).

    .. math:: \min_W \frac\lambda2\|W\|^2 + \frac1m\sum_i \max_{y}\big(1[y \ne y_i] +
        \langle w_y - w_{y_i}, x_i\rangle\big), \qquad \lambda = \frac{1}{C\,m}

    (scikit-learn's ``LinearSVC(multi_class="crammer_singer")`` objective divided by :math:`C m`).

    Args:
      C: the inverse regularisation (> 0); ignored when ``lam`` is given.
      lam: jaxlearn's :math:`\lambda` directly (> 0), or ``None``: :math:`1/(C m)`.
      fit_intercept: per-class intercepts (a constant feature, regularised).
      max_iter: epochs: ``steps = max_iter * n_samples`` SGD steps (uniformly drawn examples).
      random_state: seeds the example order (``None``, an int or a ``RandomState``).

    ``fit`` runs the rows padded to their size bucket with weight 0 (never drawn): every training
    size in a bucket runs one compiled program, and draws the examples an unpadded fit draws.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import MulticlassSVC
      >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]] * 4)
      >>> MulticlassSVC(random_state=0).fit(X, [0, 1, 2] * 4).predict(X[:3]).tolist()
      [0, 1, 2]
    """

    _parameter_constraints = {
        "C": core.POSITIVE,
        "lam": (core.POSITIVE, None),
        "max_iter": core.POSITIVE_INT,
    }

    def __init__(self, C=1.0, *, lam=None, fit_intercept=True, max_iter=20, random_state=None):
        self.C = C
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.random_state = random_state

    def _batch_learner(self, X, n_classes, present=None):
        """The learner for the sample ``X`` (``None``: for predict, which needs neither ``lam``
        nor the step count), of which ``present`` rows (default: all) have a positive weight."""
        if X is None:
            lam, steps = 1.0, 1
        else:
            present = X.shape[0] if present is None else present
            lam = lam_of_C(self.C, present) if self.lam is None else self.lam
            steps = check_positive_int("max_iter", self.max_iter) * X.shape[0]
        return multiclass.multiclass_svm(
            lam, steps, n_classes, fit_intercept=bool(self.fit_intercept)
        )

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n, d) and labels ``y`` (two or more values), each example's hinge loss
        scaled by its ``sample_weight`` (>= 0; ``None``: 1; an example of weight 0 takes no part and
        ``C`` is per example of positive weight); ``n_iter_`` is ``max_iter``.

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        y = encode_classes(self, y)
        weight = present_weights(sample_weight, X)
        present = int(np.count_nonzero(weight))
        # the draws of a padded fit are the unpadded fit's where JAX draws element t from t alone
        size = fit_bucket(X.shape[0]) if jax.config.jax_threefry_partitionable else X.shape[0]
        X, y, weight = (pad_rows(a, size) for a in (X, y, weight))
        learner = self._batch_learner(X, self.classes_.size, present)
        self.params_ = fit_weighted(learner, self._key(), X, y, weight)
        self.n_iter_ = int(self.max_iter)
        return self

    @property
    def coef_(self) -> np.ndarray:
        """The class weight vectors, shape (K, d) (scikit-learn's layout)."""
        check_is_fitted(self)
        return np.asarray(self.params_.w).reshape(self.classes_.size, -1)

    @property
    def intercept_(self) -> np.ndarray:
        """The class intercepts, shape (K,)."""
        check_is_fitted(self)
        return np.asarray(self.params_.b)


class MulticlassPerceptron(ScoringClassifier):
    r"""The multiclass batch Perceptron (``jaxlearn.multiclass.multiclass_perceptron``, UML Ex. 17.2).

    Cyclic passes over the sample, :math:`w \leftarrow w + \Psi(x_i, y_i) - \Psi(x_i, \hat y)` on each
    violation, until a pass makes none (the data are separated: ``params_.converged``) or ``max_iter``
    passes. Deterministic (no ``random_state``): the passes visit the examples in order.

    Args:
      max_iter: the most passes over the sample.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import MulticlassPerceptron
      >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
      >>> MulticlassPerceptron().fit(X, ["x", "y", "z"]).predict(X).tolist()
      ['x', 'y', 'z']
    """

    _parameter_constraints = {"max_iter": core.POSITIVE_INT}

    def __init__(self, *, max_iter: int = 1000):
        self.max_iter = max_iter

    def _fit_key(self):
        return None

    def _batch_learner(self, X, n_classes):
        return multiclass.multiclass_perceptron(n_classes, max_epochs=self.max_iter)

    def _fit_params(self, learner, X, y):
        # the rows padded to their size bucket with weight 0 (no pass visits them as a violation):
        # every training size in a bucket runs one program
        size = fit_bucket(X.shape[0])
        weights = pad_rows(np.ones(X.shape[0], X.dtype), size)
        return fit_weighted(learner, None, pad_rows(X, size), pad_rows(y, size), weights)

    def fit(self, X, y):
        """Fit on ``X`` (n, d) and labels ``y``; ``n_iter_`` is the passes made (``params_.num_epochs``).

        Returns:
          self.
        """
        super().fit(X, y)
        self.n_iter_ = int(self.params_.num_epochs)
        return self

    @property
    def coef_(self) -> np.ndarray:
        """The class weight vectors, shape (K, d)."""
        check_is_fitted(self)
        return np.asarray(self.params_.w).reshape(self.classes_.size, -1)
