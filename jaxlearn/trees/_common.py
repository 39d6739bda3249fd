"""Checks shared by the trees and the nearest-neighbour rules: class labels 0..k-1 and sizes."""

from __future__ import annotations

from typing import Optional

import jax.numpy as jnp
import numpy as np

from jaxlearn.core import is_concrete

#: Raised when the number of classes cannot be read off a traced ``y``.
NUM_CLASSES_HINT = (
    "pass `num_classes=` to the factory when fitting under `jax.jit`/`jax.vmap` (the number of "
    "classes is structural: it fixes the shapes of the params)"
)


def check_class_labels(y, num_classes: Optional[int]) -> int:
    """Return the number of classes ``k`` and check that concrete ``y`` holds labels in ``0..k-1``.

    With ``num_classes=None`` the number is read off concrete labels, ``k = max(y) + 1`` (at least
    2, so that {0, 1} trees of the book always have two classes); a traced ``y`` then raises.
    """
    if num_classes is not None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
            raise ValueError(f"expected `num_classes` a positive int, got {num_classes!r}")
    if not is_concrete(y):
        if num_classes is None:
            raise ValueError("cannot infer the number of classes from a traced `y`; " + NUM_CLASSES_HINT)
        return int(num_classes)
    values = np.asarray(y)
    found = np.unique(values)
    k = int(num_classes) if num_classes is not None else max(2, int(np.max(found)) + 1 if found.size else 2)
    integral = np.all(np.floor(found) == found) if np.issubdtype(found.dtype, np.inexact) else True
    if not integral or found.min() < 0 or found.max() > k - 1:
        shown = ", ".join(f"{v:g}" for v in found[:10].tolist()) + (", ..." if found.size > 10 else "")
        raise ValueError(f"expected `y` with labels in 0..{k - 1}, found values {{{shown}}}")
    return k


def labels_as_int(y):
    """Class labels as int32 (they may arrive as floats holding integers)."""
    return jnp.asarray(y).astype(jnp.int32)
