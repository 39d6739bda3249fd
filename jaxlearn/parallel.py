r"""Past one device: thin helpers over ``jax.sharding`` (no distribution layer of our own).

jaxlearn follows the data. Split a sample by rows over a mesh with :func:`shard_rows` and the
learners that can train data-parallel do so:

- ``linear.sgd`` and ``linear.soft_svm`` with ``batch_size=b`` (mini-batch Pegasos) and ``nn.train``
  (``sampling="stratified"``) draw each step's mini-batch on every device from its own rows and add the
  devices' partial gradients with ``lax.psum`` inside ``jax.shard_map``; the params come back
  replicated. The stratified rule makes the fit the same, up to float rounding, on 1, 2 or 4 devices.
- ``neighbors`` (``knn``, ``knn_regressor``, :func:`~jaxlearn.neighbors.neighbors`) on params fitted
  from row-split ``X``: every device finds its own ``k`` nearest, one merge of the candidates gives
  exactly the one-device answer.

Sweeps and forests split their *model* axis instead: :func:`sweep` is ``jax.vmap`` with the swept
axis split over the devices, and ``trees.random_forest(..., mesh=m)`` grows its trees split over
``m``'s first axis.

Several processes (hosts, or local CPU processes) work the same way after
``jax.distributed.initialize``: :func:`mesh` then spans every process's devices, and
:func:`shard_rows` builds the global array from the sample each process holds (every process passes
the same ``X``; each keeps its own rows). See ``docs/parallel.md`` for the recipe.

On one machine without accelerators, ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` (set
before JAX starts) gives four CPU devices to try all of this.

Examples:
  >>> import jax, jax.numpy as jnp
  >>> from jaxlearn import parallel
  >>> mesh = parallel.mesh()                       # every device on one axis, "data"
  >>> X = parallel.shard_rows(jnp.ones((8, 3)), mesh)
  >>> X.sharding.spec == jax.sharding.PartitionSpec("data")
  True
  >>> parallel.sweep(lambda eta: 2 * eta, jnp.arange(3.0), mesh).tolist()
  [0.0, 2.0, 4.0]
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxlearn._checks import as_array, check_finite, is_concrete
from jaxlearn._sharding import check_mesh
from jaxlearn._threads import cpu_parts, join_slices, run_in_threads, top_level

__all__ = ["mesh", "replicate", "shard_rows", "sweep"]

PyTree = Any


def mesh(
    axis_names: Sequence[str] = ("data",),
    devices: Optional[Sequence[Any]] = None,
    shape: Optional[Sequence[int]] = None,
) -> Mesh:
    """A device mesh over ``devices`` (default ``jax.devices()``: every device of every process).

    Plain JAX: ``jax.sharding.Mesh(np.array(devices).reshape(shape), axis_names)``.

    Args:
      axis_names: the names of the mesh axes; ``("data",)`` is the one jaxlearn's helpers default to.
      devices: the devices, in order (default: all).
      shape: the size of each axis (default: every device on the first axis, 1 on the others).

    Returns:
      A ``jax.sharding.Mesh`` (axes of type ``Auto``: computations follow the data, GSPMD-style).
    """
    axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    distinct = len(set(axis_names)) == len(axis_names)
    if not axis_names or not all(isinstance(a, str) for a in axis_names) or not distinct:
        raise ValueError(
            f"expected `axis_names` a non-empty sequence of distinct names, got {axis_names!r}"
        )
    devices = list(jax.devices() if devices is None else devices)
    if not devices:
        raise ValueError("expected `devices` a non-empty sequence of devices, got an empty one")
    shape = (
        (len(devices),) + (1,) * (len(axis_names) - 1)
        if shape is None
        else tuple(int(s) for s in shape)
    )
    if len(shape) != len(axis_names) or math.prod(shape) != len(devices):
        raise ValueError(
            f"expected `shape` with one size per axis of {axis_names} multiplying to the {len(devices)} "
            f"devices, got {shape}"
        )
    grid = np.empty(len(devices), dtype=object)
    grid[:] = devices
    return Mesh(grid.reshape(shape), axis_names, axis_types=(AxisType.Auto,) * len(axis_names))


def _default(mesh_: Optional[Mesh]) -> Mesh:
    check_mesh(mesh_)
    return mesh() if mesh_ is None else mesh_


def _axis(mesh_: Mesh, axis: Optional[str]) -> str:
    axis = mesh_.axis_names[0] if axis is None else axis
    if axis not in mesh_.axis_names:
        raise ValueError(f"expected `axis` one of the mesh's axes {mesh_.axis_names}, got {axis!r}")
    return axis


def shard_rows(tree: PyTree, mesh: Optional[Mesh] = None, *, axis: Optional[str] = None) -> PyTree:
    """Every array of ``tree`` split by rows (its first dimension) over ``axis`` of ``mesh``.

    Plain JAX: ``jax.device_put(X, NamedSharding(mesh, PartitionSpec(axis)))``; this builds the
    array with ``jax.make_array_from_callback``, so that in a multi-process run each process places
    only its own rows (every process passes the same host array).

    Args:
      tree: an array (``X``, ``y``, weights; a list is one array) or a tuple/dict pytree of arrays with
        equal numbers of rows. Floating values are checked finite here, on the host, since a multi-process
        learner cannot check the other processes' rows.
      mesh: the mesh (default: :func:`mesh`, all devices on ``"data"``).
      axis: the mesh axis to split over (default: the mesh's first).

    Returns:
      The same tree of ``jax.Array`` split by rows; the number of rows must be divisible by the axis size.
    """
    mesh_ = _default(mesh)
    axis = _axis(mesh_, axis)
    count = mesh_.shape[axis]
    leaves, treedef = jax.tree_util.tree_flatten(
        as_array(tree)
    )  # a list is one array, not a container
    if not leaves or any(len(getattr(leaf, "shape", ())) == 0 for leaf in leaves):
        raise ValueError(
            "expected `tree` an array or a pytree of arrays with a first (row) dimension, got a "
            "scalar or nothing"
        )
    if len({leaf.shape[0] for leaf in leaves}) > 1:
        rows = sorted({leaf.shape[0] for leaf in leaves})
        raise ValueError(f"expected the arrays of `tree` with one number of rows, got {rows}")

    def place(leaf):
        if leaf.shape[0] % count:
            raise ValueError(
                f"expected a number of rows divisible by the {count} devices of mesh axis {axis!r}, got "
                f"{leaf.shape[0]} rows (pad or trim the sample)"
            )
        check_finite("tree", leaf)
        sharding = NamedSharding(mesh_, P(axis))
        if isinstance(leaf, jax.Array) and leaf.sharding == sharding:
            return leaf
        host = np.asarray(leaf)
        return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])

    return jax.tree_util.tree_unflatten(treedef, [place(leaf) for leaf in leaves])


def replicate(tree: PyTree, mesh: Optional[Mesh] = None) -> PyTree:
    """Every array of ``tree`` copied whole onto every device of ``mesh`` (default: :func:`mesh`).

    Plain JAX: ``jax.device_put(tree, NamedSharding(mesh, PartitionSpec()))``.
    """
    sharding = NamedSharding(_default(mesh), P())

    def place(leaf):
        host = np.asarray(leaf)
        return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])

    return jax.tree_util.tree_map(place, as_array(tree))  # a list is one array, not a container


def sweep(
    fn: Callable[[PyTree], PyTree],
    values: PyTree,
    mesh: Optional[Mesh] = None,
    *,
    axis: Optional[str] = None,
) -> PyTree:
    """``jax.vmap(fn)(values)`` with the swept axis split over ``axis`` of ``mesh``: a hyperparameter
    or seed sweep of any learner, one program, each device running its share of the values.

    Plain JAX: ``jax.shard_map(jax.vmap(fn), mesh=mesh, in_specs=P(axis), out_specs=P(axis))`` on
    ``values`` padded to a multiple of the axis size. On a mesh of one CPU device (a laptop's
    default), where XLA would run the vmapped program's loops on one core, an eager call splits the
    values into one slice per core instead and runs ``jax.jit(jax.vmap(fn))``, compiled once, on each
    slice in its own thread; inside a trace it is the one program.

    Args:
      fn: a function of one value (a pytree slice of ``values``) returning a pytree of arrays;
        what it closes over (the data) is copied to every device.
      values: a pytree of arrays with one leading sweep axis of the same length ``V`` (keys from
        ``jax.random.split``, a grid of ``eta`` values, a stacked learner); any ``V >= 1``.
      mesh, axis: the mesh (default: :func:`mesh`) and the axis the sweep is split over (default:
        its first).

    Returns:
      ``fn``'s results stacked on a leading axis of length ``V``, equal to ``jax.vmap(fn)(values)``,
      split over ``axis`` (when ``V`` is a multiple of its size).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import linear, parallel
      >>> X = jax.random.normal(jax.random.PRNGKey(0), (64, 3)); y = jnp.sign(X[:, 0])
      >>> fit = lambda lam: linear.soft_svm(lam, 200).fit(jax.random.PRNGKey(1), X, y).w
      >>> parallel.sweep(fit, jnp.logspace(-3, 0, 8)).shape
      (8, 3)
    """
    mesh_ = _default(mesh)
    axis = _axis(mesh_, axis)
    count = mesh_.shape[axis]
    leaves = jax.tree_util.tree_leaves(values)
    if not leaves or any(jnp.ndim(leaf) == 0 for leaf in leaves):
        raise ValueError(
            "expected `values` a pytree of arrays with a leading sweep axis, got a scalar or "
            "nothing"
        )
    size = jnp.shape(leaves[0])[0]
    if size == 0 or any(jnp.shape(leaf)[0] != size for leaf in leaves):
        lengths = sorted({int(jnp.shape(leaf)[0]) for leaf in leaves})
        raise ValueError(
            f"expected `values` with one non-empty leading sweep axis, got lengths {lengths}"
        )
    parts = _core_parts(mesh_, size, values)
    if (
        parts > 1
    ):  # one CPU device: the same program on one slice of the values per core, in threads
        padded = -(-size // parts) * parts
        slices = jax.tree_util.tree_map(
            lambda a: a.reshape(parts, -1, *a.shape[1:]), _pad(values, padded)
        )
        slices = [jax.tree_util.tree_map(lambda a, i=i: a[i], slices) for i in range(parts)]
        program = (
            _vmapped(fn).trace(slices[0]).lower().compile()
        )  # here: under the caller's settings
        out = join_slices(run_in_threads(program, [(piece,) for piece in slices]), size)
        return jax.device_put(out, NamedSharding(mesh_, P()))
    padded = -(-size // count) * count
    out = _sweep_program(fn, mesh_, axis)(_pad(values, padded))
    return out if padded == size else jax.tree_util.tree_map(lambda a: a[:size], out)


def _pad(values: PyTree, padded: int) -> PyTree:
    def pad(leaf):  # repeat the last value: the extra results are computed, then dropped
        leaf = jnp.asarray(leaf)
        extra = jnp.repeat(leaf[-1:], padded - leaf.shape[0], axis=0)
        return jnp.concatenate([leaf, extra]) if padded > leaf.shape[0] else leaf

    return jax.tree_util.tree_map(pad, values)


def _core_parts(mesh_: Mesh, size: int, values: PyTree) -> int:
    """Slices for :func:`sweep` on one CPU device, one per core (``cpu_parts``): XLA runs the
    vmapped program's loops on one core. 1 (the one-program path) on several devices, on other
    platforms, for traced values and inside any trace (the function may close over tracers)."""
    single_cpu = mesh_.size == 1 and mesh_.devices.flat[0].platform == "cpu"
    if not single_cpu or not is_concrete(values) or not top_level():
        return 1
    return cpu_parts(size)


@functools.lru_cache(maxsize=64)
def _vmapped(
    fn,
):  # one jitted function per swept function: a second sweep of its shape compiles nothing
    return jax.jit(jax.vmap(fn))


@functools.lru_cache(maxsize=64)
def _sweep_program(
    fn, mesh_, axis
):  # one program per function and mesh: a second sweep compiles nothing
    split = P(axis)
    return jax.jit(
        jax.shard_map(jax.vmap(fn), mesh=mesh_, in_specs=split, out_specs=split, check_vma=False)
    )
