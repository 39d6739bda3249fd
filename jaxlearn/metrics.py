"""Metrics over predictions and over online traces."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> Array:
    """Fraction of equal labels."""
    y_true, y_pred = jnp.asarray(y_true), jnp.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"expected `y_pred` of shape {y_true.shape} like `y_true`, got {y_pred.shape}")
    return jnp.mean((y_true == y_pred).astype(jnp.result_type(float)))


def cumulative_mistakes(trace: Any) -> Array:
    """Running count of mistakes, ``cumsum(trace.mistake)`` (``trace.loss`` if there is no flag).

    ``trace`` is the ``Info`` stacked over time returned by :func:`jaxlearn.core.run`, or an array
    of 0/1 mistakes. The last entry is the total number of mistakes.
    """
    flags = getattr(trace, "mistake", None)
    if flags is None:
        flags = getattr(trace, "loss", trace)
    return jnp.cumsum(jnp.asarray(flags).astype(jnp.int32), axis=0)


def regret(learner_losses: ArrayLike, comparator_losses: ArrayLike) -> Array:
    r"""Running regret :math:`\sum_{s \le t} \ell_s - \min_k \sum_{s \le t} c_{s,k}` (UML (21.5)).

    Args:
      learner_losses: shape ``(T,)``, the learner's loss on each round.
      comparator_losses: shape ``(T,)`` for one comparator, or ``(T, K)`` for K comparators (experts,
        a grid of fixed predictors); regret is against the best of them in hindsight at every t.

    Returns:
      Shape ``(T,)``; the last entry is the regret after the whole stream.
    """
    learner_losses = jnp.asarray(learner_losses)
    comparator_losses = jnp.asarray(comparator_losses)
    if learner_losses.ndim != 1 or comparator_losses.shape[:1] != learner_losses.shape:
        raise ValueError(
            "expected `learner_losses` of shape (T,) and `comparator_losses` of shape (T,) or (T, K), "
            f"got {learner_losses.shape} and {comparator_losses.shape}"
        )
    best = jnp.cumsum(comparator_losses, axis=0)
    if best.ndim == 2:
        best = jnp.min(best, axis=1)
    return jnp.cumsum(learner_losses) - best
