"""The input checks and conversions shared by the tree learners (class labels ``0..k-1``)."""

from __future__ import annotations

import math
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn._checks import (
    at_least,
    check_class_labels,
    check_finite,
    check_ndim,
    check_sample,
    check_width,
    num_classes_of,
)
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn._shared import float_dtype, on_device
from jaxlearn.core import POSITIVE_INT, Interval
from jaxlearn.trees._params import DecisionTreeParams, num_features

#: The depth D of a tree: 2^(D+1) - 1 nodes, so at most 24 (a complete tree of 33 million nodes).
DEPTH = Interval(0, 24, True, True, integer=True)
#: The ranges of the numeric arguments shared by ``decision_tree`` and ``random_forest``.
TREE_RANGES = {
    "max_depth": DEPTH,
    "min_samples_leaf": POSITIVE_INT,
    "min_samples_split": at_least(2, integer=True),
    "max_bins": at_least(2, integer=True),
    "num_classes": at_least(2, integer=True),
}


def tree_sample_check(num_classes: Optional[int]):
    """The ``check(X, y, sample_weight=None)`` of a tree learner: ``X`` (m, d) and ``y`` (m,), finite;
    with ``num_classes`` given, labels in ``0..num_classes-1`` (else :func:`classes_of` checks them in
    ``fit``); ``sample_weight`` ``None`` or (m,), finite, >= 0 and not all 0."""

    def check(X, y, sample_weight=None):
        check_sample(X, y, labels=None)
        if num_classes is not None:
            check_class_labels("y", y, num_classes)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return check


def as_weights(sample_weight, X):
    """``sample_weight`` as real weights in ``X``'s float dtype (NumPy stays NumPy), or ``None``."""
    if sample_weight is None:
        return None
    if isinstance(X, np.ndarray) and not isinstance(sample_weight, jax.Array):
        return np.asarray(sample_weight).astype(X.dtype)
    return jnp.asarray(sample_weight).astype(X.dtype)


def smallest_weight(sample_weight) -> float:
    """The smallest positive entry of concrete ``sample_weight`` (1 for ``None``): a node of ``n``
    examples weighs at least ``n`` times it."""
    if sample_weight is None:
        return 1.0
    values = np.asarray(sample_weight, dtype=np.float64)
    return float(values[values > 0].min())


def classes_of(y, num_classes: Optional[int]) -> int:
    """``num_classes``, or the number read off concrete labels (which it checks), ``max(y) + 1`` (>= 2)."""
    return int(num_classes) if num_classes is not None else num_classes_of(y)


def as_tree_sample(X, y):
    """``X`` as floats, ``y`` as int32 labels (NumPy arrays stay NumPy: nothing compiled per shape)."""
    if isinstance(X, np.ndarray) and isinstance(y, np.ndarray):
        return X.astype(float_dtype(X)), y.astype(np.int32)
    X = jnp.asarray(X)
    return X.astype(float_dtype(X)), labels_as_int(y)


def labels_as_int(y):
    """Class labels as int32 (they may arrive as floats holding integers)."""
    return jnp.asarray(y).astype(jnp.int32)


def as_int(value) -> Optional[int]:
    """A structural argument already checked by its range, as a Python int (``None`` kept)."""
    return None if value is None else int(value)


def check_query(params, X, name: str = "X"):
    """``X`` of shape (n, d) for the training width ``d`` of ``params`` (shapes also under a trace),
    finite when concrete; returned as an array of the params' float dtype."""
    check_tree(params)
    X = np.asarray(X) if isinstance(X, list) else X
    check_ndim(name, X, 2, "(n, d)")
    check_width(name, X, num_features(params))
    check_finite(name, X)
    return on_device(X, params.threshold.dtype)


def check_tree(params, what: type = DecisionTreeParams) -> None:
    """A ``TypeError`` unless ``params`` are the params of a tree (or a forest: ``what``)."""
    if not isinstance(params, what):
        raise TypeError(
            f"expected `params` a {what.__name__} (from `fit`), got {type(params).__name__}"
        )


def feature_count(max_features, d: int) -> int:
    """The per-node feature subset size of a forest (``max_features`` checked here)."""
    if max_features is None:
        return d
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(math.isqrt(d)))
        if max_features == "log2":
            return max(1, int(math.log2(d))) if d > 1 else 1
    elif isinstance(max_features, (int, np.integer)) and not isinstance(
        max_features, (bool, np.bool_)
    ):
        if max_features >= 1:
            return min(int(max_features), d)
    elif isinstance(max_features, (float, np.floating)):
        if 0 < max_features <= 1:
            return max(1, int(max_features * d))
    else:
        raise TypeError(
            f"expected `max_features` one of 'sqrt', 'log2', None, an int or a float, got {max_features!r} "
            f"of type {type(max_features).__name__}"
        )
    raise ValueError(
        f"expected `max_features` in {{'sqrt', 'log2', None}}, an int in [1, inf) or a float in (0, 1], "
        f"got {max_features!r}"
    )
