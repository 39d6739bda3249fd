"""The base classes of the scikit-learn estimators: validation, labels, keys, and the fit/predict glue.

An estimator stores its hyperparameters in ``__init__`` and nothing else; ``fit`` validates the data
with scikit-learn's ``validate_data`` (float32, or float64 under ``jax_enable_x64``), builds the
jaxlearn learner from the hyperparameters (``_batch_learner()`` or ``_learner()``) and keeps only
arrays and jaxlearn params/state NamedTuples in attributes ending in ``_``. The learner itself is never
stored: it is rebuilt from the hyperparameters whenever it is needed (so estimators save and load
through :mod:`jaxlearn.io`, and clone, pickle and compare as scikit-learn expects).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from jaxlearn import core, kernels
from jaxlearn._buckets import fit_bucket, on_bucket_rows, pad_rows
from jaxlearn._checks import check_positive_int

__all__ = [
    "FINITE",
    "BatchBinaryClassifier",
    "BatchRegressor",
    "BinaryClassifier",
    "BinaryLabels",
    "bucketed",
    "InvalidParameterError",
    "JaxlearnEstimator",
    "LogProbabilities",
    "N_JOBS",
    "OnlyDefault",
    "class_weights",
    "encode_classes",
    "float_dtype",
    "key_from",
    "make_kernel",
    "present_weights",
    "row_weights",
    "sample_weights",
    "stacked",
]

#: What a binary estimator tells a user who gives it more than two classes.
MULTICLASS_HINT = (
    "Only binary classification is supported. Wrap the estimator in "
    "jaxlearn.sklearn.OneVsRestClassifier or OneVsOneClassifier for more classes."
)


#: Any finite number (``coef0``, ``binarize``).
FINITE = core.Interval(-math.inf)

#: scikit-learn's ``n_jobs``: any int (or ``None``, declared with it); jaxlearn vectorises instead.
N_JOBS = (core.Interval(-math.inf, integer=True), None)


class OnlyDefault(NamedTuple):
    """A scikit-learn parameter of which jaxlearn supports only ``supported`` (scikit-learn's default
    first, then values that mean the same); ``why``: what jaxlearn does instead."""

    supported: tuple
    why: str


def _is_one_of(value, supported) -> bool:
    """``value`` is one of ``supported``, compared as scikit-learn's values are (no array is)."""
    for option in supported:
        if value is option:
            return True
        if isinstance(option, bool) or isinstance(value, (bool, np.bool_)):
            if isinstance(option, bool) and isinstance(value, (bool, np.bool_)):
                if bool(value) == option:
                    return True
        elif isinstance(option, str):
            if isinstance(value, str) and value == option:
                return True
        elif isinstance(option, numbers.Real) and isinstance(value, numbers.Real):
            if value == option:
                return True
    return False


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter out of its range or of the wrong type (a ``ValueError`` and a ``TypeError``, as
    scikit-learn's own ``InvalidParameterError``)."""


@functools.cache
def _init_defaults(cls) -> tuple:
    """``(name, default)`` of each parameter of ``cls.__init__`` (read once per class)."""
    return tuple((n, p.default) for n, p in inspect.signature(cls.__init__).parameters.items())


def check_params(estimator) -> None:
    """Check the estimator's hyperparameters, naming its own parameter (never the learner's argument).

    A parameter whose default in ``__init__`` is a bool must be a bool (``numpy.bool_`` too): ``"no"``
    is not read as True; one of ``_bool_or_int`` (``verbose``, SGD's ``average``) may also be an int
    >= 0. Each entry ``name: constraint`` of the ``_parameter_constraints`` and ``_no_effect`` of the
    classes of the estimator is a :class:`~jaxlearn.core.Interval`, a tuple of them with ``None``
    where ``None`` is allowed, a frozenset of the strings allowed, or ``None`` (no check beyond the
    bool rule). Each entry ``name: OnlyDefault(supported, why)`` of ``_only_default`` refuses any
    value but those supported, naming scikit-learn's parameter and what jaxlearn does instead.
    """
    name_of = type(estimator).__name__
    values = estimator.get_params(deep=False)
    bool_or_int = getattr(estimator, "_bool_or_int", ())
    for name, default in _init_defaults(type(estimator)):
        value = values.get(name)
        if name in bool_or_int:
            if isinstance(value, (bool, np.bool_)) or (
                isinstance(value, numbers.Integral) and value >= 0
            ):
                continue
            raise InvalidParameterError(
                f"{name_of}: expected `{name}` a bool or an int >= 0, got {value!r}"
            )
        if isinstance(default, bool) and not isinstance(value, (bool, np.bool_)):
            raise InvalidParameterError(
                f"{name_of}: expected `{name}` a bool (True or False), got {value!r}"
            )
    constraints, only_default = {}, {}
    for cls in reversed(type(estimator).__mro__):
        constraints.update(vars(cls).get("_parameter_constraints", {}))
        constraints.update(vars(cls).get("_no_effect", {}))
        only_default.update(vars(cls).get("_only_default", {}))
    for name, (supported, why) in only_default.items():
        if name in values and not _is_one_of(values[name], supported):
            alternatives = " or ".join(repr(option) for option in supported)
            raise InvalidParameterError(
                f"{name_of}: `{name}`={values[name]!r} is not supported ({why}); "
                f"use {name}={alternatives}"
            )
    for name, constraint in constraints.items():
        if name not in values or constraint is None:
            continue
        if isinstance(constraint, frozenset):
            if not (isinstance(values[name], str) and values[name] in constraint):
                raise InvalidParameterError(
                    f"{name_of}: expected `{name}` one of {sorted(constraint)}, got {values[name]!r}"
                )
            continue
        value, options = (
            values[name],
            (constraint,) if isinstance(constraint, core.Interval) else constraint,
        )
        intervals = [c for c in options if c is not None]
        if value is None:
            if None in options:
                continue
            raise InvalidParameterError(f"{name_of}: expected `{name}` {intervals[0]}, got None")
        try:
            intervals[0].check(name, value)
        except (TypeError, ValueError) as error:
            allowed = " or None" if None in options else ""
            raise InvalidParameterError(f"{name_of}: {error}{allowed}") from None


def in_input_precision(method):
    """``method(self, X, ...)`` run in float32 when ``X`` is float32 and in float64 otherwise, as
    scikit-learn's SGD and ridge compute."""

    @functools.wraps(method)
    def run(self, X, *args, **kwargs):
        with jax.enable_x64(getattr(X, "dtype", None) != np.float32):
            return method(self, X, *args, **kwargs)

    return run


def float_dtype():
    """The float dtype the estimators compute in: float64 when ``jax_enable_x64`` is on, else float32."""
    return np.float64 if jax.config.jax_enable_x64 else np.float32


def power_of_two_scale(X) -> float:
    """``2**-e`` for ``max|X| = f 2**e`` (``f`` in [0.5, 1)) when ``max|X| > 2**20``, else 1.0: multiplying by
    it is exact and keeps the squares and inner products of rows of ``|x| >= 1e19`` in the float range."""
    big = float(np.max(np.abs(X), initial=0.0))
    exponent = int(np.frexp(big)[1]) if math.isfinite(big) else 0
    return 2.0**-exponent if exponent > 20 else 1.0


def _numpy(value):
    return np.asarray(jax.device_get(value))


def encode_classes(estimator, y) -> np.ndarray:
    """Set ``estimator.classes_`` (``np.unique(y)``) and return ``y`` as int32 indices 0..K-1.

    Raises ``ValueError`` for continuous targets (scikit-learn's "Unknown label type") and for fewer
    than two classes.
    """
    check_classification_targets(y)
    classes, inverse = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least 2 classes in the data, but the data "
            f"contains only one class: {classes[0]!r}"
        )
    estimator.classes_ = classes
    return inverse.astype(np.int32)


def class_weights(class_weight, classes, y, sample_weight=None) -> np.ndarray:
    r"""The weight of each class (shape (K,)): ``None`` all ones, a dict ``{label: weight}`` (missing labels
    1), or ``"balanced"``: :math:`n / (K\,n_k)`, as scikit-learn's ``compute_class_weight`` (the
    classes counted by their ``sample_weight`` when given)."""
    if class_weight is None:
        return np.ones(len(classes), float_dtype())
    weights = compute_class_weight(class_weight, classes=classes, y=y, sample_weight=sample_weight)
    return weights.astype(float_dtype())


def sample_weights(sample_weight, X) -> np.ndarray:
    """``sample_weight`` checked as scikit-learn checks it (shape (n,), finite, >= 0; ``None``: ones), in
    jaxlearn's float dtype."""
    return _check_sample_weight(sample_weight, X, dtype=float_dtype())


def present_weights(sample_weight, X) -> np.ndarray:
    """:func:`sample_weights`, refusing negative weights and a sample with no positive weight."""
    weights = _check_sample_weight(sample_weight, X, dtype=float_dtype(), ensure_non_negative=True)
    if not np.any(weights > 0):
        raise ValueError("expected `sample_weight` with a positive weight, got all zeros")
    return weights


def row_weights(class_weight, classes, index, sample_weight=None) -> np.ndarray:
    """Each row's ``sample_weight`` times its class's weight (scikit-learn's ``compute_sample_weight``
    times ``sample_weight``); ``index``: the rows' classes as 0..K-1."""
    weights = class_weights(class_weight, classes, classes[index])[index]
    return weights if sample_weight is None else weights * sample_weight


def one_vs_rest(index, num_classes: int, weights, per_class) -> tuple[np.ndarray, np.ndarray]:
    """The binary problems of one-vs-rest as liblinear and scikit-learn's SGD pose them: targets ``Y``
    in {-1, +1} and row weights ``W``, each of shape (problems, n). Two classes are one problem
    (``classes_[1]`` is +1, every row weighted by its class); more are one per class, where the class's
    own rows carry its weight and the other rows only their ``sample_weight``."""
    if num_classes == 2:
        return np.where(index == 1, 1.0, -1.0)[None], (weights * per_class[index])[None]
    own = index[None, :] == np.arange(num_classes)[:, None]
    return np.where(own, 1.0, -1.0), weights[None, :] * np.where(own, per_class[:, None], 1.0)


def bucketed(method):
    """``method(self, X)`` run on the rows of ``X`` padded with zeros to their size bucket
    (:func:`jaxlearn._buckets.bucket`), returning the first ``n`` rows of its result: predicting on 359
    rows, then on 360, runs one compiled program. ``X`` is validated first (``self._check_X``)."""

    @functools.wraps(method)
    def on_rows(self, X, *args, **kwargs):
        return on_bucket_rows(functools.partial(method, self), self._check_X(X), *args, **kwargs)

    return on_rows


def map_problems(fit, *problems):
    """``jax.vmap(fit)(*problems)`` over the leading axis of ``problems`` (one per binary problem),
    with a single problem fitted unbatched: under ``vmap`` a solver's loops carry batched conditions
    and selects, so two classes' one problem traces and compiles in less time on its own."""
    if jax.tree.leaves(problems)[0].shape[0] == 1:
        only = fit(*jax.tree.map(lambda a: a[0], problems))
        return jax.tree.map(lambda a: a[None], only)
    return jax.vmap(fit)(*problems)


def stacked(learner, name: str, values) -> core.BatchLearner:
    """One learner whose leaves are those of ``core.replace(learner, name=v)`` for each ``v``, stacked."""
    each = [core.replace(learner, **{name: float(v)}) for v in values]
    return jax.tree.map(lambda *leaves: jnp.stack([jnp.asarray(a) for a in leaves]), *each)


@functools.cache
def _param_names(cls) -> tuple:
    return tuple(BaseEstimator._get_param_names.__func__(cls))


def key_from(rng) -> jax.Array:
    """``jax.random.key(seed)`` for a seed drawn from the ``RandomState`` ``rng``, built on the host
    (no program to compile)."""
    return jax.random.wrap_key_data(np.array([0, rng.randint(2**31 - 1)], np.uint32))


class JaxlearnEstimator(BaseEstimator):
    """Base of every jaxlearn estimator: validation, random keys, and the tags jaxlearn shares.

    Subclasses keep their hyperparameters in ``__init__`` (stored verbatim) and implement ``fit``.
    """

    #: ``name: Interval`` (or a tuple of them, with ``None`` where allowed): see :func:`check_params`.
    _parameter_constraints: dict = {}
    #: scikit-learn's parameters that change nothing here, ``name: constraint`` (as
    #: ``_parameter_constraints``, or a frozenset of strings, or ``None``): accepted and checked.
    _no_effect: dict = {}
    #: scikit-learn's parameters of which only the default is supported, ``name: OnlyDefault``.
    _only_default: dict = {}
    #: parameters that are a bool or an int >= 0 (scikit-learn's ``verbose``).
    _bool_or_int: tuple = ("verbose",)

    def _check_params(self) -> None:
        """Refuse hyperparameters out of range, naming this estimator's parameter (:func:`check_params`)."""
        check_params(self)

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's parameter names of ``__init__``, sorted (read once per class)."""
        return list(_param_names(cls))

    def _validate(self, X, y, *, reset: bool, y_numeric: bool = False):
        """``validate_data(X, y)`` with jaxlearn's float dtype (after :func:`check_params` when ``reset``);
        returns ``(X, y)``."""
        if reset:
            self._check_params()
        return validate_data(self, X, y, reset=reset, dtype=float_dtype(), y_numeric=y_numeric)

    def _check_X(self, X):
        """Fitted check plus validation of ``X`` against the fitted width (for predict and friends)."""
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=float_dtype())

    def _prepare(self, X) -> None:
        """Set data-dependent fitted attributes (``gamma="scale"``, ...) before the learner is built from
        the validated training ``X`` (default: none)."""

    def _key(self) -> jax.Array:
        """A JAX key drawn from ``self.random_state`` (``None``, an int or a ``RandomState``); the key of
        seed 0 for an estimator without ``random_state`` (deterministic: NumPy's global generator is
        left alone)."""
        if not hasattr(self, "random_state"):
            return jax.random.wrap_key_data(np.zeros(2, np.uint32))
        return key_from(check_random_state(self.random_state))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


class LogProbabilities:
    """``predict_log_proba`` as the log of ``predict_proba`` (minus infinity for a class of
    probability 0), as scikit-learn's trees, forests and MLP give it."""

    def predict_log_proba(self, X) -> np.ndarray:
        """The log of :meth:`predict_proba`: (n, K), ``-inf`` where a probability is 0."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class BinaryLabels(ClassifierMixin, JaxlearnEstimator):
    """A classifier over two labels: ``classes_`` any two values, mapped to {-1, +1} inside
    (``classes_[1]`` is +1). More than two classes is a ``ValueError`` that points to the one-vs-rest
    and one-vs-one meta-estimators (tag ``classifier_tags.multi_class = False``)."""

    def _encode_binary(self, y) -> np.ndarray:
        """Set ``classes_`` from ``y`` and return ``y`` mapped to {-1, +1} (float dtype)."""
        index = encode_classes(self, y)
        if self.classes_.size > 2:
            raise ValueError(
                f"{type(self).__name__} got {self.classes_.size} classes in `y`. " + MULTICLASS_HINT
            )
        return (2 * index - 1).astype(float_dtype())

    def _decode(self, labels) -> np.ndarray:
        """{-1, +1} (or scores: > 0 is +1) back to ``classes_``."""
        return self.classes_[(_numpy(labels) > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class BinaryClassifier(BinaryLabels):
    """A binary classifier with a real score: ``decision_function > 0`` predicts ``classes_[1]``.

    Subclasses define ``_decision(X)`` on validated ``X`` (the learner's own score).
    """

    def _decision(self, X) -> np.ndarray:  # pragma: no cover - subclasses define the score
        raise NotImplementedError

    @bucketed
    def decision_function(self, X) -> np.ndarray:
        """The learner's real score on each row of ``X``; positive means ``classes_[1]``.

        Args:
          X: array of shape (n, d).

        Returns:
          A float array of shape (n,).
        """
        return _numpy(self._decision(self._check_X(X)))

    def predict(self, X) -> np.ndarray:
        """The predicted labels (values of ``classes_``) of the rows of ``X``."""
        return self._decode(self.decision_function(X))


class BatchBinaryClassifier(BinaryClassifier):
    """A binary classifier over a jaxlearn :class:`~jaxlearn.core.BatchLearner`.

    Subclasses define ``_batch_learner(self, X=None)``: the learner from the hyperparameters. ``X``
    is the validated training sample when fitting (for data-dependent values such as
    ``gamma="scale"``, which ``_prepare(X)`` stores in fitted attributes); after ``fit``,
    ``_batch_learner()`` without ``X`` rebuilds the fitted learner. Meta-estimators that fit the
    learner themselves call ``_prepare(X)`` then ``_batch_learner(X)``. ``fit`` stores the learner's
    params in ``params_``; ``decision_function`` is the learner's own.

    The learner's ``fit`` takes ``sample_weight``, an example of weight 0 taking no part: ``fit``
    pads the rows to their size bucket with such examples (one program for every size in it) and
    cuts the params' fields named in ``_per_example`` (one entry per row) back to the sample's rows.
    """

    #: The params' fields with one entry per training row.
    _per_example: tuple = ()

    def _batch_learner(self, X=None) -> core.BatchLearner:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y):
        """Fit the learner on ``X`` of shape (n, d) and labels ``y`` (any two values).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        y = self._encode_binary(y)
        self._prepare(X)
        n, size = X.shape[0], fit_bucket(X.shape[0])
        present = pad_rows(np.ones(n, X.dtype), size)
        padded = (pad_rows(X, size), pad_rows(y, size, 1))
        params = self._batch_learner(X).fit(self._key(), *padded, present)
        cut = {name: np.asarray(getattr(params, name))[:n] for name in self._per_example}
        self.params_ = params._replace(**cut)
        return self

    def _decision(self, X):
        return self._batch_learner().decision_function(self.params_, X)


class BatchRegressor(RegressorMixin, JaxlearnEstimator):
    """A regressor over a jaxlearn :class:`~jaxlearn.core.BatchLearner` whose ``predict`` is real
    (``_batch_learner`` and ``_prepare`` as for :class:`BatchBinaryClassifier`)."""

    def _batch_learner(self, X=None) -> core.BatchLearner:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y):
        """Fit on ``X`` of shape (n, d) and real targets ``y`` of shape (n,).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True, y_numeric=True)
        self._prepare(X)
        learner = self._batch_learner(X)
        self.params_ = learner.fit(self._key(), self._scaled(X), np.asarray(y, float_dtype()))
        return self

    def _scaled(self, X):
        """``X`` as the learner sees it (default: unchanged)."""
        return X

    @bucketed
    def predict(self, X) -> np.ndarray:
        """The learner's predictions on the rows of ``X`` (shape (n,))."""
        X = self._check_X(X)
        return _numpy(self._batch_learner().predict(self.params_, self._scaled(X)))


# --------------------------------------------------------------------------------------------
# Kernels named as scikit-learn names them
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _poly(degree: int):  # one function per degree: equal tree structures, so no recompilation
    def k(gamma, coef0, x, z):
        return (gamma * jnp.vdot(x, z) + coef0) ** degree

    return k


def _sigmoid(gamma, coef0, x, z):
    return jnp.tanh(gamma * jnp.vdot(x, z) + coef0)


def _gamma_value(gamma, X) -> float:
    if isinstance(gamma, str):
        if X is None:
            raise ValueError("gamma='scale'/'auto' needs the training sample")
        if gamma == "scale":
            var = float(np.var(X))
            if not math.isfinite(var):  # the squares overflowed the float dtype
                var = float(np.var(X, dtype=np.float64))
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(
            f"expected `gamma` 'scale', 'auto' or a finite positive number, got {gamma!r}"
        )
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not 0 < gamma < math.inf:
        raise ValueError(
            f"expected `gamma` 'scale', 'auto' or a finite positive number, got {gamma!r}"
        )
    return float(gamma)


def make_kernel(kernel: str, gamma, degree, coef0, X=None):
    """A jaxlearn kernel from scikit-learn's names, and the numeric ``gamma`` it uses.

    ``"linear"``: :math:`\\langle x, z\\rangle`; ``"rbf"``: :math:`\\exp(-\\gamma\\|x - z\\|^2)`, which is
    :func:`jaxlearn.kernels.gaussian` with :math:`\\sigma = 1/(2\\gamma)`; ``"poly"``:
    :math:`(\\gamma\\langle x, z\\rangle + c_0)^{d}` (with :math:`\\gamma = c_0 = 1` this is
    :func:`jaxlearn.kernels.polynomial`); ``"sigmoid"``: :math:`\\tanh(\\gamma\\langle x, z\\rangle
    + c_0)` (not positive semi-definite in general). ``gamma`` is a positive number, ``"scale"``
    (:math:`1/(d\\,\\mathrm{Var}(X))`) or ``"auto"`` (:math:`1/d`); strings need the training ``X``.

    Returns:
      ``(kernel, gamma)``: the kernel pytree and the numeric gamma (0.0 for ``"linear"``, which has none).
    """
    if kernel == "linear":
        return kernels.linear(), 0.0
    if kernel not in ("rbf", "poly", "sigmoid"):
        raise ValueError(
            f"expected `kernel` one of 'linear', 'rbf', 'poly', 'sigmoid', got {kernel!r}"
        )
    gamma = _gamma_value(gamma, X)
    if kernel == "rbf":
        return kernels.gaussian(1.0 / (2.0 * gamma)), gamma
    if isinstance(coef0, bool) or not isinstance(coef0, numbers.Real) or not math.isfinite(coef0):
        raise ValueError(f"expected `coef0` a finite number, got {coef0!r}")
    scalars = (jnp.asarray(gamma), jnp.asarray(float(coef0)))
    if kernel == "sigmoid":
        return Partial(_sigmoid, *scalars), gamma
    degree = check_positive_int("degree", degree)
    return Partial(_poly(degree), *scalars), gamma
