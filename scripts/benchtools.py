"""Shared by the benchmark scripts: medians of repeated calls in this process, and the benchmark record.

Every script prints its own table and also calls :func:`record` once per figure it compares, so that
``python -m jaxlearn bench --json PATH`` can keep the figures of every script in one file (see
:mod:`jaxlearn._bench`). Outside that runner :func:`record` only checks its arguments.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import jax
import numpy as np

#: The runner names, in this environment variable, the JSON-lines file that :func:`record` appends to.
RECORD_ENV = "JAXLEARN_BENCH_RECORD"


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


#: Units of scores rather than times, whose higher values are better (like rates).
HIGHER_IS_BETTER = ("accuracy", "R^2")


def record(
    name, workload, jaxlearn, reference, *, unit="s", reference_name="scikit-learn", target=None
):
    """Keep one row of the benchmark record: jaxlearn's figure beside its reference's, and the ratio.

    ``unit`` is ``"s"`` (or any unit of time: lower is better), a rate such as ``"examples/s"`` (any
    unit ending in ``/s``: higher is better) or a score of :data:`HIGHER_IS_BETTER` (``"accuracy"``).
    ``ratio`` is jaxlearn's speed-up (or score) over the reference
    (above 1: jaxlearn is faster) whichever the unit. ``target`` is the ratio the issue asks for, if
    any. ``reference`` may be ``None`` for a figure with nothing to compare against (no ratio then).
    Returns the row (a dict).
    """
    if not (isinstance(jaxlearn, (int, float)) and math.isfinite(jaxlearn) and jaxlearn > 0):
        raise ValueError(f"record: jaxlearn must be a positive finite number, found {jaxlearn!r}")
    if reference is not None and not (
        isinstance(reference, (int, float)) and math.isfinite(reference) and reference > 0
    ):
        raise ValueError(
            f"record: reference must be a positive finite number or None, found {reference!r}"
        )
    rate = unit.endswith("/s") or unit in HIGHER_IS_BETTER
    ratio = None
    if reference is not None:
        ratio = jaxlearn / reference if rate else reference / jaxlearn
    row = {
        "script": Path(sys.argv[0]).stem,
        "name": str(name),
        "workload": str(workload),
        "jaxlearn": float(jaxlearn),
        "reference": None if reference is None else float(reference),
        "reference_name": str(reference_name),
        "unit": unit,
        "ratio": ratio,
        "target": None if target is None else float(target),
        "backend": jax.default_backend(),
        "device": jax.devices()[0].device_kind,
    }
    path = os.environ.get(RECORD_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return row
