"""Pieces shared by the multiclass learners: samples, feature maps, scores and argmax (checks: core)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.tree_util import Partial
from jax.typing import ArrayLike

from jaxlearn.core import float_dtype

Array = jax.Array


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
