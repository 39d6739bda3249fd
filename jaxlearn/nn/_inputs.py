"""Input checks of the nn family: shapes always (they also run under ``jit``/``vmap``), values (NaN/inf,
labels, ranges) only on concrete inputs. Every error names the argument, the expected form and what was
found; bool/int inputs become the float dtype of the computation before any arithmetic."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn._checks import check_finite, check_labels
from jaxlearn._shared import float_dtype
from jaxlearn.core import POSITIVE_INT

Array = jax.Array


def as_numbers(name: str, value: Any) -> Array:
    """``value`` (an array, a list or a number of bool, int or float) as an array of a float dtype."""
    try:
        value = np.asarray(value) if isinstance(value, (list, tuple)) else value
        if (
            isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biu"
        ):  # on the host: no int32
            value = value.astype(jnp.result_type(float))  # wrap-around of int64 values
        array = jnp.asarray(value)
    except (TypeError, ValueError):
        array = None
    kinds = (jnp.integer, jnp.floating, jnp.bool_)
    if array is None or not any(jnp.issubdtype(array.dtype, kind) for kind in kinds):
        dtype = getattr(array if array is not None else value, "dtype", None)
        found = type(value).__name__ if dtype is None else f"dtype {dtype}"
        raise TypeError(f"expected `{name}` an array of numbers (bool, int or float), got {found}")
    return array.astype(float_dtype(array))


def check_callable(name: str, value: Any) -> None:
    if not callable(value):
        raise TypeError(f"expected `{name}` a function (e.g. nn.sigmoid), got {value!r}")


def static_int(name: str, value: Any, interval=POSITIVE_INT) -> int:
    """A structural integer (it fixes shapes or the program), checked against ``interval``: a Python int."""
    if isinstance(value, jax.core.Tracer) or np.ndim(value) != 0:
        raise TypeError(
            f"expected `{name}` {interval} (a Python int: it is structural), got {value!r}"
        )
    interval.check(name, value)
    return int(value)


def check_dtype(name: str, dtype: Any, *, signed_ints: bool = False):
    """A float dtype (or a signed int one where ``signed_ints``) as a NumPy dtype; ``None``: the default."""
    if dtype is None:
        return jnp.dtype(jnp.result_type(float))
    try:
        dtype = jnp.dtype(dtype)
    except TypeError:
        raise TypeError(f"expected `{name}` a float dtype, got {dtype!r}") from None
    if not (
        jnp.issubdtype(dtype, jnp.floating)
        or (signed_ints and jnp.issubdtype(dtype, jnp.signedinteger))
    ):
        raise TypeError(
            f"expected `{name}` a float{' or signed int' if signed_ints else ''} dtype, got {dtype}"
        )
    return dtype


def check_key(key: Any) -> Array:
    """A PRNG key: ``jax.random.PRNGKey`` (uint32, shape (2,)) or a typed ``jax.random.key``."""
    dtype = getattr(key, "dtype", None)
    typed = dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    if not (typed and jnp.ndim(key) == 0) and not (dtype == jnp.uint32 and jnp.shape(key) == (2,)):
        shown = f"{jnp.shape(key)} {dtype}" if dtype is not None else type(key).__name__
        raise TypeError(f"expected `key` a PRNG key (jax.random.PRNGKey(seed)), got {shown}")
    return key


def network(params: Any, name: str = "params") -> list:
    r"""``params = [(W_0, b_0), ...]`` checked (``W_t`` of shape :math:`k_{t+1}\times k_t`, ``b_t`` of
    shape :math:`(k_{t+1},)`, widths chained) and cast to one float dtype; NaN/inf refused if concrete."""
    if not isinstance(params, (list, tuple)) or not params:
        raise TypeError(
            f"expected `{name}` a non-empty list of (W, b) pairs (nn.mlp_init), got {type(params).__name__}"
        )
    layers = []
    for t, layer in enumerate(params):
        if not isinstance(layer, (list, tuple)) or len(layer) != 2:
            raise TypeError(
                f"expected `{name}[{t}]` a pair (W_{t}, b_{t}), got {type(layer).__name__}"
            )
        W, b = as_numbers(f"{name}[{t}][0]", layer[0]), as_numbers(f"{name}[{t}][1]", layer[1])
        if W.ndim != 2 or b.shape != W.shape[:1]:
            raise ValueError(
                f"expected `{name}[{t}]` a pair of shapes (k_out, k_in) and (k_out,), "
                f"got {W.shape} and {b.shape}"
            )
        if layers and W.shape[1] != layers[-1][0].shape[0]:
            raise ValueError(
                f"expected `{name}[{t}]` with {layers[-1][0].shape[0]} inputs (the width of "
                f"layer {t}), got W of shape {W.shape}"
            )
        layers.append((W, b))
    dtype = max(
        (leaf.dtype for layer in layers for leaf in layer), key=lambda d: d.itemsize
    )  # the widest
    check_finite(name, layers)
    return [(W.astype(dtype), b.astype(dtype)) for W, b in layers]


def check_width(name: str, x: Array, width: int, shapes: tuple, what: str) -> None:
    """``x`` of one of the ``ndim``s in ``shapes`` (strings, by ndim) whose last axis is ``width``."""
    if x.ndim not in shapes or x.shape[-1] != width:
        expected = " or ".join(shapes[n] for n in sorted(shapes))
        raise ValueError(
            f"expected `{name}` of shape {expected} with {width} features ({what}), got {x.shape}"
        )


def check_network_sample(params, X, y, x_name, y_name, *, labels, targets):
    """A sample for a network: ``X`` of shape (m, k_0); ``y`` (m,) int labels in 0..k_T-1 (``labels``), or
    (m, k_T) float targets (``targets``), or any (m, ...). Returns ``X`` and ``y`` (targets as floats)."""
    X = as_numbers(x_name, X)
    k0, kT = params[0][0].shape[1], params[-1][0].shape[0]
    check_width(x_name, X, k0, {2: "(m, k_0)"}, "the input width k_0 of `params`")
    y = jnp.asarray(np.asarray(y) if isinstance(y, (list, tuple)) else y)
    m = X.shape[0]
    if y.ndim < 1 or y.shape[0] != m:
        raise ValueError(
            f"expected `{x_name}` and `{y_name}` with the same number of examples, got {m} and "
            f"{y.shape[0] if y.ndim else 'a scalar'}"
        )
    if m == 0:
        raise ValueError(f"expected a non-empty sample, got `{x_name}` of shape {X.shape}")
    check_finite(x_name, X)
    check_finite(y_name, y)
    if labels:
        if y.ndim != 1:
            raise ValueError(f"expected `{y_name}` of shape (m,) of int labels, got {y.shape}")
        check_labels(
            y_name, y, tuple(range(kT)), f"the network has {kT} outputs (classes 0..{kT - 1})"
        )
        y = y.astype(jnp.int32)
    if targets:
        y = as_numbers(y_name, y).astype(params[0][0].dtype)
        if y.shape != (m, kT):
            raise ValueError(
                f"expected `{y_name}` of shape (m, k_T) = ({m}, {kT}) (the network's outputs), "
                f"got {y.shape}"
            )
    return X, y
