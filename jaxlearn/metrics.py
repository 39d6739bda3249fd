"""Metrics over predictions and over online traces."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import as_numeric, check_finite, check_labels, is_concrete

__all__ = ["accuracy", "cumulative_mistakes", "regret"]

Array = jax.Array


def _as_floats(*arrays: Array) -> list:
    """The arrays in one float dtype (the widest float among them, else the default): bool/int
    values are promoted before any arithmetic."""
    floats = [a.dtype for a in arrays if jnp.issubdtype(a.dtype, jnp.floating)]
    dtype = max(floats, key=lambda t: t.itemsize) if floats else jnp.result_type(float)
    return [a.astype(dtype) for a in arrays]


def _non_empty(name: str, value: Array) -> None:
    if value.ndim == 0:
        raise ValueError(
            f"expected `{name}` with a leading axis of examples or rounds, got a scalar"
        )
    if value.shape[0] == 0:
        raise ValueError(f"expected a non-empty `{name}`, got shape {value.shape}")


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> Array:
    r"""Fraction of equal labels :math:`\frac1m \sum_i 1[y_i = \hat y_i]`.

    ``y_true`` and ``y_pred`` have one shape (m, ...), m >= 1; labels of any numeric dtype are compared
    as floats (``1 == 1.0``).
    """
    y_true, y_pred = as_numeric("y_true", y_true), as_numeric("y_pred", y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"expected `y_pred` of shape {y_true.shape} like `y_true`, got {y_pred.shape}"
        )
    _non_empty("y_true", y_true)
    check_finite("y_true", y_true)
    check_finite("y_pred", y_pred)
    return _accuracy(y_true, y_pred)


@jax.jit  # one program, not one per operation
def _accuracy(y_true, y_pred):
    y_true, y_pred = _as_floats(y_true, y_pred)
    return jnp.mean((y_true == y_pred).astype(y_true.dtype))


def cumulative_mistakes(trace: Any) -> Array:
    """Running count of mistakes, ``cumsum(trace.mistake)`` (``trace.loss`` if there is no flag).

    ``trace`` is the ``Info`` stacked over time returned by :func:`jaxlearn.core.run`, or an array
    of 0/1 mistakes (bool, int or float), leading axis time. The last entry is the total number of
    mistakes (int32).
    """
    flags = getattr(trace, "mistake", None)
    if flags is None:
        flags = getattr(trace, "loss", trace)
    if isinstance(flags, tuple) and not hasattr(flags, "shape"):
        raise TypeError(
            "expected `trace` an Info with a `mistake` or `loss` field, or an array of 0/1 mistakes, "
            f"got {type(trace).__name__}"
        )
    flags = as_numeric("trace", flags)
    _non_empty("trace", flags)
    if is_concrete(flags):
        check_finite("trace", flags)
        check_labels(
            "trace", flags, (0, 1), "`trace` holds 0/1 mistakes (or a `mistake`/`loss` field)"
        )
    return jnp.cumsum(flags.astype(jnp.int32), axis=0)


def regret(learner_losses: ArrayLike, comparator_losses: ArrayLike) -> Array:
    r"""Running regret :math:`\sum_{s \le t} \ell_s - \min_k \sum_{s \le t} c_{s,k}` (UML (21.5)).

    Args:
      learner_losses: shape ``(T,)``, T >= 1, the learner's loss on each round.
      comparator_losses: shape ``(T,)`` for one comparator, or ``(T, K)`` for K >= 1 comparators
        (experts, a grid of fixed predictors); regret is against the best of them in hindsight at
        every t.

    Returns:
      Shape ``(T,)``, in the float dtype of the losses (bool/int losses are promoted); the last entry
      is the regret after the whole stream.
    """
    learner_losses = as_numeric("learner_losses", learner_losses)
    comparator_losses = as_numeric("comparator_losses", comparator_losses)
    if (
        learner_losses.ndim != 1
        or comparator_losses.ndim not in (1, 2)
        or comparator_losses.shape[:1] != learner_losses.shape
        or 0 in comparator_losses.shape
    ):
        raise ValueError(
            "expected `learner_losses` of shape (T,) and `comparator_losses` of shape (T,) or (T, K), "
            f"T, K >= 1, got {learner_losses.shape} and {comparator_losses.shape}"
        )
    check_finite("learner_losses", learner_losses)
    check_finite("comparator_losses", comparator_losses)
    return _regret(learner_losses, comparator_losses)


@jax.jit  # one program, not one per operation
def _regret(learner_losses, comparator_losses):
    learner_losses, comparator_losses = _as_floats(learner_losses, comparator_losses)
    best = jnp.cumsum(comparator_losses, axis=0)
    if best.ndim == 2:
        best = jnp.min(best, axis=1)
    return jnp.cumsum(learner_losses) - best
