"""One compiled program, run on slices of its batch axis in threads: every core of a one-device CPU.

XLA runs a program's loops (a ``lax.scan``, a ``while_loop``, the vmapped steps of a sweep) on one
core, while two programs called from two Python threads run side by side. So an eager call on a CPU
of several cores can split its batch axis (trees, seeds, rates) into one slice per core and run the
same compiled program on each slice in its own thread: the random forest's trees
(``trees.random_forest``) and :func:`jaxlearn.parallel.sweep` on one CPU device do.

The program is traced and compiled in the caller's thread, under the caller's JAX settings
(``enable_x64`` and dtype promotion hold per thread); the threads only run it.

Examples:
  >>> import jax.numpy as jnp
  >>> calls = [(jnp.arange(3.0),), (jnp.arange(3.0, 6.0),)]  # the arguments of each call
  >>> [float(out.sum()) for out in run_in_threads(lambda x: 2 * x, calls)]
  [6.0, 24.0]
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np


def cpu_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )


def cpu_parts(count: int) -> int:
    """Into how many equal slices an eager CPU call splits a batch of ``count`` (trees, seeds): one per
    core, and as few slices of that size as hold the batch (none is all padding). 1 on other
    backends and on one core."""
    if jax.default_backend() != "cpu":
        return 1
    size = -(-count // max(1, min(cpu_cores(), count)))
    return -(-count // size)


def top_level() -> Optional[bool]:
    """Whether no JAX trace is under way (then arrays are values, and JAX accepts compiler options);
    ``None`` where this JAX has no way to tell (callers then take their plain path)."""
    try:
        from jax._src import core as jax_core  # private: checked, and never required

        return jax_core.trace_state_clean()
    except (ImportError, AttributeError):
        return None


def run_in_threads(program: Callable[..., Any], calls: Sequence[tuple]) -> list:
    """``[program(*args) for args in calls]``, each call in its own thread, waiting for every result."""
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda args: jax.block_until_ready(program(*args)), calls))


def join_slices(outs: Sequence[Any], count: int) -> Any:
    """The slices' results (pytrees of the same structure) joined on their leading axis, the padding
    past ``count`` dropped, by NumPy where the threads ran, on the host: no program compiled (key
    arrays by JAX)."""

    def join(*slices):
        if jax.dtypes.issubdtype(slices[0].dtype, jax.dtypes.prng_key):
            return jnp.concatenate(slices)[:count]
        return jax.device_put(np.concatenate([np.asarray(piece) for piece in slices])[:count])

    return jax.tree_util.tree_map(join, *outs)
