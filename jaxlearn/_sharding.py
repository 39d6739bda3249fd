r"""Data-parallel building blocks of the learners (private to the families).

A learner runs data-parallel when its sample arrives split by rows over a mesh (``X.sharding`` a
``NamedSharding`` whose first dimension is split over one or more mesh axes): :func:`row_split`
reads that off a concrete array, and the fit then runs its loop inside ``jax.shard_map`` on each
device's rows, summing the devices' partial gradients with ``lax.psum``. Nothing gathers ``X``.

The mini-batch rule that makes this exact is *stratified*: a batch of size :math:`b` takes its
:math:`j`-th example uniformly from the :math:`j`-th of :math:`b` contiguous blocks of rows
(:func:`stratified_indices`), weighted by the block's share of the sample, an unbiased estimate of
the full gradient. On :math:`D` devices with :math:`D \mid b` and :math:`D \mid m`, device
:math:`k` holds blocks :math:`kb/D .. (k+1)b/D - 1` whole, so every draw is local and the fitted
params are the same, up to the order of a floating-point sum, on any number of devices.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

Array = jax.Array


class RowSplit(NamedTuple):
    """How a sample's rows are split: the ``mesh``, the mesh ``axes`` the rows are split over (a
    tuple of names) and ``count``, the number of row blocks (the product of those axes' sizes)."""

    mesh: Any
    axes: tuple
    count: int

    @property
    def spec(self) -> P:
        """The ``PartitionSpec`` of a row-split array: ``P(axes)``."""
        return P(self.axes)


def row_split(X: Any, name: str = "X") -> Optional[RowSplit]:
    """The :class:`RowSplit` of a concrete ``jax.Array`` split by rows over more than one device, else
    ``None`` (a NumPy array, a tracer, one device, or a replicated array).

    A split of the columns (or of any dimension but the first) is a ``ValueError``: jaxlearn's
    data-parallel fits split examples, never features.
    """
    sharding = getattr(X, "sharding", None)
    if isinstance(X, jax.core.Tracer) or not isinstance(sharding, NamedSharding):
        return None
    spec = tuple(sharding.spec)
    if any(entry is not None for entry in spec[1:]):
        raise ValueError(
            f"expected `{name}` split by rows only (PartitionSpec(axis) or replicated), got "
            f"{sharding.spec}: use jaxlearn.parallel.shard_rows"
        )
    first = spec[0] if spec else None
    if first is None:
        return None
    axes = (first,) if isinstance(first, str) else tuple(first)
    count = math.prod(sharding.mesh.shape[a] for a in axes)
    return None if count == 1 else RowSplit(sharding.mesh, axes, count)


def check_divisible(split: RowSplit, m: int, batch_size: int) -> None:
    """A data-parallel fit needs whole blocks per device: ``count`` divides ``m`` and ``batch_size``."""
    if m % split.count:
        raise ValueError(
            f"expected the number of examples m = {m} divisible by the {split.count} devices the rows "
            "are split over (pad or trim the sample)"
        )
    if batch_size % split.count:
        raise ValueError(
            f"expected `batch_size` divisible by the {split.count} devices the rows are split over, got "
            f"batch_size = {batch_size}"
        )


def check_mesh(mesh: Any) -> None:
    """A ``TypeError`` naming ``mesh`` unless it is a ``jax.sharding.Mesh`` or ``None``."""
    if mesh is not None and not isinstance(mesh, Mesh):
        found = type(mesh).__name__
        raise TypeError(
            f"expected `mesh` a jax.sharding.Mesh (parallel.mesh()) or None, got {found}"
        )


def check_progress(progress: bool, devices: int) -> None:
    """A ``ValueError`` for a progress bar on several devices: JAX runs the bar's ordered host
    callbacks on one device only."""
    if progress and devices > 1:
        raise ValueError(
            f"expected `progress=False` on {devices} devices: the progress bar's ordered host callbacks "
            "run on one device only"
        )


def rows_like(split: RowSplit, value: Any, name: str = "y") -> Any:
    """``value`` (``y``, weights) with its rows split as ``split`` says, from the host, one device or
    replicated; a value already split so, or a tracer (left to ``shard_map``'s ``in_specs``), as is."""
    if isinstance(value, jax.core.Tracer) or row_split(value, name) == split:
        return value
    return jax.device_put(value, NamedSharding(split.mesh, split.spec))


def block_starts(m: int, batch_size: int) -> np.ndarray:
    r"""The first rows of the :math:`b` blocks, :math:`\lfloor jm/b \rfloor` for :math:`j = 0..b`
    (``b + 1`` entries: the last is ``m``); block :math:`j` is rows ``starts[j]:starts[j + 1]``."""
    if batch_size > m:
        raise ValueError(
            f"expected `batch_size` <= the number of examples m = {m}, got {batch_size}"
        )
    return (np.arange(batch_size + 1, dtype=np.int64) * m // batch_size).astype(np.int32)


def stratified_indices(key: Array, shape: tuple, m: int, batch_size: int) -> Array:
    """Indices of shape ``(*shape, batch_size)``: entry ``j`` uniform over block ``j`` of the rows
    (:func:`block_starts`), int32; with ``batch_size=1``, uniform over all ``m`` rows."""
    starts = block_starts(m, batch_size)
    sizes = jnp.asarray(np.diff(starts))
    offsets = jax.random.randint(key, (*shape, batch_size), 0, sizes, dtype=jnp.int32)
    return offsets + jnp.asarray(starts[:-1])


def block_weights(m: int, batch_size: int, dtype) -> Array:
    r"""Each block's share of the sample, :math:`|B_j| / m` (all :math:`1/b` when :math:`b \mid m`):
    the weights that make the stratified mini-batch gradient unbiased."""
    return jnp.asarray(np.diff(block_starts(m, batch_size)) / m, dtype)


def local_rows(idx: Array, split: RowSplit, m: int) -> Array:
    """Inside ``shard_map``: this device's global row indices ``idx`` made local to its block of rows."""
    return idx - device_index(split) * (m // split.count)


def device_index(split: RowSplit) -> Array:
    """Inside ``shard_map``: the position of this device's rows among the ``count`` row blocks."""
    index = jnp.zeros([], jnp.int32)
    for axis in split.axes:  # row-major over the split axes, as PartitionSpec lays rows out
        index = index * split.mesh.shape[axis] + jax.lax.axis_index(axis)
    return index
