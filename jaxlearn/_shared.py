"""Small helpers the learners share: the float dtype they compute in, sign labels, counters,
schedules and the scalar-label checks (moved out of :mod:`jaxlearn.core`, which keeps the API)."""

from __future__ import annotations

import math
from typing import Any, Callable, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

Array = jax.Array
#: A numeric hyperparameter: a number, an array, or a schedule ``t -> value`` (as in optax).
ScalarOrSchedule = Union[float, ArrayLike, Callable[[Array], Array]]


def check_scalar_label(y: Any) -> None:
    """Raise ``ValueError`` unless one round's label ``y`` is a scalar (a shape check: also under a
    trace, so inside ``run``'s loop too, where ``y`` is one entry of ``ys``)."""
    shape = np.shape(y)
    if shape:
        raise ValueError(
            f"expected `y` a scalar label, got shape {shape}: `ys` of a stream has shape (T,), one label "
            "per round (flatten a column of labels with `ys.ravel()`)"
        )


def check_scalar_labels(ys: Any) -> None:
    """Raise ``ValueError`` unless a block of labels ``ys`` has shape ``(T,)`` (also under a trace)."""
    shape = np.shape(ys)
    if len(shape) != 1:
        raise ValueError(
            f"expected `ys` of shape (T,), one scalar label per round, got labels of shape {shape[1:]} "
            "(flatten a column of labels with `ys.ravel()`)"
        )


def drawn_flat(
    sampler: Callable[..., Array], key: Array, shape: tuple[int, ...], **kwargs
) -> Array:
    """``sampler(key, shape=shape, **kwargs)`` for a ``jax.random`` sampler, drawn as one flat vector
    and reshaped (an array argument such as ``p`` given flat): the same numbers (JAX's threefry counts
    along the flattened shape), from a program that XLA's CPU backend compiles in about a third of
    the time for some shapes (``(500, 10)``)."""
    return sampler(key, shape=(math.prod(shape),), **kwargs).reshape(shape)


def schedule_value(value: ScalarOrSchedule, count: Array) -> Array:
    """Evaluate a :data:`ScalarOrSchedule` at step ``count`` (0-based, as optax schedules are)."""
    return value(count) if callable(value) else jnp.asarray(value)


def zero_counter() -> Array:
    """An int32 scalar counter (every counter in a state is one), made with no program compiled."""
    return zeros((), jnp.int32)


def zeros(shape, dtype, like=None) -> Array:
    """``jnp.zeros(shape, dtype)`` for a learner's starting state. Where the example ``like`` it is made
    for is concrete, the zeros are made by NumPy and put on the device, so that an eager ``init``
    compiles no program (``jnp.zeros`` compiles one per shape and dtype); under a trace,
    ``jnp.zeros`` (no constant baked into the program)."""
    if isinstance(like, jax.core.Tracer):
        return jnp.zeros(shape, dtype)
    return jax.device_put(np.zeros(shape, dtype))


def float_dtype(x: ArrayLike):
    """The floating dtype a learner computes in for input ``x`` (x's own if floating, else default)."""
    dtype = jnp.result_type(x)
    return dtype if jnp.issubdtype(dtype, jnp.floating) else jnp.result_type(float)


def on_device(x: ArrayLike, dtype=None) -> Array:
    """``jnp.asarray(x, dtype)`` that compiles nothing for a NumPy array (``jnp.asarray`` stages one
    through a small program compiled for each shape): converted on the host, then ``jax.device_put``
    (in the canonical dtype, as ``jnp.asarray``)."""
    if isinstance(x, np.ndarray):
        return jax.device_put(x if dtype is None else x.astype(dtype, copy=False))
    x = jnp.asarray(x)
    return x if dtype is None else x.astype(dtype)


def as_float(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    """``X`` and ``y`` as arrays of the floating dtype the learner computes in (``X``'s own if floating)."""
    X = on_device(X)
    dtype = float_dtype(X)
    return X.astype(dtype), on_device(y, dtype)


def sign_label(score: Array) -> Array:
    """+1 where the score is positive, -1 elsewhere, in the score's dtype (a zero score predicts -1,
    as the Perceptron's mistake rule needs)."""
    return jnp.where(score > 0, 1, -1).astype(score.dtype)


def first_index(mask: Array) -> Array:
    """Index of the first True entry of a 1-D ``mask``, or ``len(mask)`` when there is none."""
    return jnp.where(jnp.any(mask), jnp.argmax(mask), mask.shape[0]).astype(jnp.int32)
