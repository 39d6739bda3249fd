"""Pieces shared by the multiclass learners: the label check, the sample check, scores and argmax."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jax.typing import ArrayLike

from jaxlearn.core import check_finite, check_positive_int, float_dtype, is_concrete
from jaxlearn.linear._common import check_sample_shapes

Array = jax.Array


def check_num_classes(num_classes) -> int:
    """``num_classes`` as an int >= 2, or a ``ValueError``."""
    k = check_positive_int("num_classes", num_classes)
    if k < 2:
        raise ValueError(f"expected `num_classes` >= 2, got {k}")
    return k


def check_class_labels(name: str, y, num_classes: int) -> None:
    """Raise ``ValueError`` unless every value of concrete ``y`` is an integer in ``0..num_classes-1``."""
    if not is_concrete(y):
        return
    values = np.asarray(y)
    if values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.number):
        raise ValueError(
            f"expected `{name}` with integer labels in 0..{num_classes - 1}, got dtype {values.dtype}"
        )
    with np.errstate(invalid="ignore"):
        bad = (values != np.round(values)) | (values < 0) | (values >= num_classes) | ~np.isfinite(values)
    if bad.any():
        found = np.unique(values[bad])
        shown = ", ".join(f"{v:g}" for v in found[:10].tolist()) + (", ..." if found.size > 10 else "")
        raise ValueError(
            f"expected `{name}` with labels in 0..{num_classes - 1} (num_classes={num_classes}), "
            f"found {shown}"
        )


def check_multiclass_sample(X, y, num_classes: int) -> None:
    """The input checks of a multiclass ``fit``: shapes always, values when ``X``/``y`` are concrete."""
    check_sample_shapes(X, y)
    check_finite("X", X)
    check_class_labels("y", y, num_classes)


def as_sample(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    """``X`` in the floating dtype the learner computes in, ``y`` as int32 class indices."""
    X = jnp.asarray(X)
    return X.astype(float_dtype(X)), jnp.asarray(y).astype(jnp.int32)


def as_feature_map(feature_map) -> Partial:
    """A feature map ``psi(x, y, num_classes)`` as a ``jax.tree_util.Partial`` (a pytree a jitted fit
    takes as an argument: its arrays are leaves, so a new map of the same shapes reuses the program)."""
    if not callable(feature_map):
        raise ValueError(
            "expected `feature_map` a function psi(x, y, num_classes) -> (d,), "
            f"got {type(feature_map).__name__}"
        )
    return feature_map if isinstance(feature_map, Partial) else Partial(feature_map)


def all_features(psi, x: Array, num_classes: int) -> Array:
    r"""The rows :math:`\Psi(x, y')` for :math:`y' = 0..k-1`, shape ``(k, d)``."""
    return jax.vmap(lambda label: psi(x, label, num_classes))(jnp.arange(num_classes, dtype=jnp.int32))


def argmax_label(scores: Array) -> Array:
    """``argmax`` over the last (class) axis, ties to the minimal index (UML section 17.1), as int32."""
    return jnp.argmax(scores, axis=-1).astype(jnp.int32)
