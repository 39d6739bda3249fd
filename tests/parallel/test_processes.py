"""Several processes: two local CPU processes joined by ``jax.distributed.initialize`` give the
one-process answers (the recipe of ``docs/parallel.md``).

Each process (``tests/parallel/_worker.py``) has two CPU devices; the global mesh spans the four. A
data-parallel ``soft_svm`` fit equals the one-process, one-device fit of the same stratified mini-batch
rule within 1e-6 in float32 and 1e-12 in float64 (the devices' partial sums are added in another
order; we measured 6.9e-8 in float32 and 4.4e-16 in float64); the row-split k-NN query equals the
one-process answer exactly, and so does a ``selection.grid_search`` whose grid points are split over
the processes. The two processes read the same bits. Skipped only when the installed
jaxlib cannot run CPU collectives across processes (the worker detects that error and exits with
``UNSUPPORTED``).
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import jax
import numpy as np
import pytest

from jaxlearn import linear
from jaxlearn import neighbors as nb
from tests.parallel import _worker

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120  # seconds, for both processes together


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_workers(tmp_path):
    """Start the two worker processes, wait for both; the paths of their ``.npz`` results."""
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
        "JAX_PLATFORMS": "cpu",
        # compiled as this process compiles the reference (the root conftest.py turns LLVM's optimisations
        # off; they change float contraction, so the k-NN distances' last bits)
        "JAX_DISABLE_MOST_OPTIMIZATIONS": str(jax.config.read("jax_disable_most_optimizations")),
    }
    port, outs = _free_port(), [tmp_path / f"process{i}.npz" for i in range(2)]
    logs = [open(tmp_path / f"process{i}.log", "w+") for i in range(2)]
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.parallel._worker", str(i), str(port), str(out)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for i, (out, log) in enumerate(zip(outs, logs))
    ]
    deadline = time.monotonic() + TIMEOUT
    try:
        while any(w.poll() is None for w in workers) and time.monotonic() < deadline:
            if any(w.returncode == _worker.UNSUPPORTED for w in workers):
                break  # the other one may wait for its peer forever
            time.sleep(0.1)
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()
    texts = []
    for log in logs:
        log.seek(0)
        texts.append(log.read())
        log.close()
    for w, text in zip(workers, texts):
        if w.returncode == _worker.UNSUPPORTED:
            reason = next(line for line in text.splitlines() if line.startswith("UNSUPPORTED"))
            pytest.skip(
                f"the installed jaxlib cannot run CPU collectives across processes ({reason})"
            )
    for i, (w, text) in enumerate(zip(workers, texts)):
        timed_out = " (killed after %d s)" % TIMEOUT if w.returncode < 0 else ""
        assert w.returncode == 0, (
            f"process {i} exited with {w.returncode}{timed_out}:\n{text[-4000:]}"
        )
    return outs


def test_two_processes_give_the_one_process_answers(tmp_path):
    first, second = (np.load(out) for out in _run_workers(tmp_path))
    assert sorted(first.files) == sorted(second.files)
    for name in first.files:  # both processes read the same replicated bits
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)

    svm = _worker.SVM
    for dtype, tolerance in ((np.float32, 1e-6), (np.float64, 1e-12)):
        with jax.enable_x64(dtype == np.float64):
            X, y, _, _ = _worker.sample(dtype)
            rule = linear.soft_svm(svm["lam"], svm["steps"], batch_size=svm["batch_size"])
            want = rule.fit(jax.random.PRNGKey(svm["seed"]), X, y)  # one process, one device
            for field in ("w", "b"):
                got = first[f"svm_{field}_{np.dtype(dtype).name}"]
                assert got.dtype == dtype
                np.testing.assert_allclose(
                    got, np.asarray(getattr(want, field)), rtol=0, atol=tolerance
                )

    X, _, labels, Q = _worker.sample(np.float32)
    rule = nb.knn(_worker.K, num_classes=_worker.NUM_CLASSES)
    params = rule.fit(None, X, labels)
    idx, dist = nb.neighbors(params, Q, _worker.K)
    for name, want in (
        ("knn_idx", idx),
        ("knn_dist", dist),
        ("knn_predict", rule.predict(params, Q)),
    ):
        assert first[name].dtype == want.dtype, name
        np.testing.assert_array_equal(first[name], np.asarray(want), err_msg=name)
    np.testing.assert_array_equal(first["grid_scores"], np.asarray(_worker.grid().scores))
