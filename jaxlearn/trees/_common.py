"""The input checks and conversions shared by the tree learners (class labels ``0..k-1``)."""

from __future__ import annotations

from typing import Optional

import jax.numpy as jnp

from jaxlearn.core import check_class_labels, check_positive_int, check_sample, float_dtype, num_classes_of


def tree_sample_check(num_classes: Optional[int]):
    """The ``check(X, y)`` of a tree learner: ``X`` (m, d) and ``y`` (m,), finite; with ``num_classes``
    given, labels in ``0..num_classes-1`` (else :func:`classes_of` checks them in ``fit``)."""
    if num_classes is not None:
        num_classes = check_positive_int("num_classes", num_classes)

    def check(X, y):
        check_sample(X, y, labels=None)
        if num_classes is not None:
            check_class_labels("y", y, num_classes)

    return check


def classes_of(y, num_classes: Optional[int]) -> int:
    """``num_classes``, or the number read off concrete labels (which it checks), ``max(y) + 1`` (>= 2)."""
    return num_classes if num_classes is not None else num_classes_of(y)


def as_tree_sample(X, y):
    """``X`` as floats, ``y`` as int32 labels."""
    X = jnp.asarray(X)
    return X.astype(float_dtype(X)), labels_as_int(y)


def labels_as_int(y):
    """Class labels as int32 (they may arrive as floats holding integers)."""
    return jnp.asarray(y).astype(jnp.int32)
