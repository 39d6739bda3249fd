"""Arrays in the archive: NumPy's own dtypes as they are, JAX's extended ones (bfloat16, float8) as
unsigned integers of their width, typed PRNG keys as their key data plus the implementation's name."""

from __future__ import annotations

import contextlib
import re

import jax
import jax.numpy as jnp
import numpy as np

NATIVE_DTYPE = re.compile(r"[<>|=][biufcUS][0-9]+\Z")
EXTENDED_DTYPE = re.compile(r"(bfloat16|float[0-9]+_[a-z0-9]+|u?int[24])\Z")


def encode(v, path: str) -> tuple[dict, np.ndarray]:
    """The leaf description ``{"dtype", "shape", "kind"}`` of the array ``v`` and the array to store."""
    if isinstance(v, jax.core.Tracer):
        raise ValueError(f"cannot save {path}: a traced value (save outside jax.jit / jax.vmap)")
    kind = "jax" if isinstance(v, jax.Array) else "scalar" if isinstance(v, np.generic) else "numpy"
    if kind == "jax" and jnp.issubdtype(v.dtype, jax.dtypes.prng_key):
        data = np.asarray(jax.random.key_data(v))
        spec = {"dtype": "key", "key_impl": str(jax.random.key_impl(v))}
    else:
        data = np.asarray(v)
        spec = {"dtype": _dtype_name(data.dtype, path)}
        if not is_native(data.dtype):
            data = data.view(np.dtype(f"u{data.dtype.itemsize}"))
    return {**spec, "shape": list(data.shape), "kind": kind}, data


def is_native(dtype) -> bool:
    try:
        return dtype.kind in "biufcUS" and np.dtype(dtype.str) == dtype
    except TypeError:
        return False


def _dtype_name(dtype, path: str) -> str:
    if is_native(dtype):
        return dtype.str
    if EXTENDED_DTYPE.match(dtype.name):
        return dtype.name
    raise ValueError(f"cannot save {path}: arrays of dtype {dtype} are not supported")


def _known_dtype(spec) -> "np.dtype | None":
    name = spec.get("dtype") if isinstance(spec, dict) else None
    if name == "key":
        return np.dtype(np.uint32)
    with contextlib.suppress(TypeError, ValueError):
        if isinstance(name, str) and NATIVE_DTYPE.match(name):
            dtype = np.dtype(name)
            return dtype if is_native(dtype) else None
        if isinstance(name, str) and EXTENDED_DTYPE.match(name):
            return jnp.dtype(name)
    return None


def _dtype(spec: dict, fail):
    dtype = _known_dtype(spec)
    if dtype is None:
        raise fail(f"corrupted metadata: unknown dtype {spec.get('dtype')!r}")
    return dtype


def storage_dtype(spec) -> "np.dtype | None":
    """The dtype a leaf described by ``spec`` is stored as (``None`` for an unknown dtype)."""
    dtype = _known_dtype(spec)
    if dtype is None:
        return None
    return dtype if is_native(dtype) else np.dtype(f"u{dtype.itemsize}")


def restore(spec, stored, fail):
    """Leaf ``spec``'s value from its stored array, checked against the spec; ``fail(problem)`` is the
    error to raise."""
    if not isinstance(spec, dict) or spec.get("kind") not in ("jax", "numpy", "scalar"):
        raise fail("corrupted metadata: a bad leaf description")
    dtype, shape = _dtype(spec, fail), spec.get("shape")
    storage = dtype if is_native(dtype) else np.dtype(f"u{dtype.itemsize}")
    if not isinstance(shape, list) or stored.dtype != storage or list(stored.shape) != shape:
        found = f"{stored.dtype}{list(stored.shape)}"
        raise fail(f"corrupted file: the array is {found}, the metadata says {storage}{shape}")
    value = stored if storage == dtype else stored.view(dtype)
    if spec["dtype"] == "key":
        try:
            return jax.random.wrap_key_data(jnp.asarray(value), impl=str(spec.get("key_impl")))
        except (TypeError, ValueError) as e:
            raise fail(f"bad PRNG key data: {e}") from None
    if spec["kind"] == "scalar":
        if value.shape != ():
            raise fail("corrupted metadata: a scalar leaf with a shape")
        return value[()]
    if spec["kind"] == "numpy":
        return value
    out = jnp.asarray(value)
    if out.dtype != value.dtype:
        raise fail(f"an array of {value.dtype} becomes {out.dtype} here; enable jax_enable_x64")
    return out
