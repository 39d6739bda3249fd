"""Pieces shared by the multiclass learners: samples, feature maps, scores and argmax (checks: core)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jax.typing import ArrayLike

from jaxlearn._checks import at_least, check_ndim
from jaxlearn._shared import float_dtype
from jaxlearn.core import BatchLearner

Array = jax.Array

#: The range of ``num_classes``: an int k >= 2 (labels 0..k-1).
NUM_CLASSES = at_least(2, integer=True)


def as_array(value):
    """A Python list or tuple as a NumPy array (every entry point takes lists); anything else as is."""
    return np.asarray(value) if isinstance(value, (list, tuple)) else value


def as_sample(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    """``X`` in the floating dtype the learner computes in, ``y`` as int32 class indices."""
    X = jnp.asarray(X)
    return X.astype(float_dtype(X)), jnp.asarray(y).astype(jnp.int32)


def as_feature_map(feature_map) -> Partial:
    """A feature map ``psi(x, y, num_classes)`` as a ``jax.tree_util.Partial`` (a pytree a jitted fit
    takes as an argument: its arrays are leaves, so a new map of the same shapes reuses the program)."""
    if not callable(feature_map):
        raise TypeError(
            "expected `feature_map` a function psi(x, y, num_classes) -> (d,), "
            f"got {type(feature_map).__name__}"
        )
    return feature_map if isinstance(feature_map, Partial) else Partial(feature_map)


def check_binary(binary) -> None:
    """``TypeError`` unless ``binary`` is a batch learner (the reductions' binary learner)."""
    if not isinstance(binary, BatchLearner):
        raise TypeError(
            f"expected `binary` a BatchLearner (e.g. linear.soft_svm(...)), got {type(binary).__name__}"
        )


def batch_X(X: ArrayLike) -> Array:
    """A batch ``X`` of shape (n, d) (shape checked on tracers too) in its floating dtype."""
    X = jnp.asarray(X)
    check_ndim("X", X, 2, "(n, d)")
    return X.astype(float_dtype(X))


def width_error(X: Array, width, error: Exception = None) -> ValueError:
    """The ``ValueError`` of a batch ``X`` whose width is not the training sample's."""
    found = f"{width} features" if isinstance(width, int) else "the features"
    cause = f" ({str(error).splitlines()[0]})" if error is not None else ""
    return ValueError(
        f"expected `X` of shape (n, d) with the {found} of the sample the params were fit on, "
        f"got {tuple(X.shape)}{cause}"
    )


def check_outputs(fn, params, X: Array) -> None:
    """Raise a ``ValueError`` naming ``X`` when ``fn(params, X)`` cannot take ``X``'s shape (abstract
    evaluation: shapes only, nothing runs)."""
    try:
        jax.eval_shape(fn, params, X)
    except (TypeError, ValueError) as error:
        raise width_error(X, None, error) from None


def all_features(psi, x: Array, num_classes: int) -> Array:
    r"""The rows :math:`\Psi(x, y')` for :math:`y' = 0..k-1`, shape ``(k, d)``."""
    return jax.vmap(lambda label: psi(x, label, num_classes))(
        jnp.arange(num_classes, dtype=jnp.int32)
    )


def argmax_label(scores: Array) -> Array:
    """``argmax`` over the last (class) axis, ties to the minimal index (UML section 17.1), as int32."""
    return jnp.argmax(scores, axis=-1).astype(jnp.int32)
