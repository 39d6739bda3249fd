"""Timing shared by the benchmark scripts: medians of repeated calls, in this process."""

from __future__ import annotations

import time

import jax
import numpy as np


def timeit(fn, repeats, warm_up=True):
    """(median seconds of ``repeats`` calls of ``fn``, the output of the last call).

    With ``warm_up`` one untimed call comes first (it compiles the JAX programs); JAX outputs are
    waited for with ``jax.block_until_ready``.
    """
    if warm_up:
        jax.block_until_ready(fn())
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def median_seconds(fn, repeats, warm_up=True):
    """The median seconds of :func:`timeit`, without the output."""
    return timeit(fn, repeats, warm_up)[0]
