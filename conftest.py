"""Root test configuration: docstring examples run as a user runs them.

``tests/conftest.py`` turns on strict dtype promotion for the test suite (as equinox does); the
examples in the docstrings (``--doctest-modules``) are user code, so they run with JAX's standard
promotion.

The suite compiles thousands of small programs, and compiling dominates its time, so the test
process compiles without XLA's backend (LLVM) optimisations (``jax_disable_most_optimizations``):
about 30% less time on 2 cores. The graph-level passes still run, so the programs compute what the
optimised ones do up to floating-point contraction; the notebooks run in their own kernels, compiled as
a user's programs are, and their stored outputs are compared with that.
"""

import atexit
import os
import shutil
import tempfile

# Each test process keeps the programs it compiles in a persistent compilation cache of its own,
# deleted when it exits: tests that build the same program afresh (a learner made again, a new
# `jax.jit` of the same function) read it back instead of compiling it again. One directory per
# process, since JAX 0.10 writes entries in place (no rename, no lock), and xdist workers sharing one
# could read half-written entries; the suite's programs (most optimisations off, below) are of no use
# to a user's cache. The Jupyter kernels and the demo started by a worker share its directory (one at
# a time). JAXLEARN_COMPILATION_CACHE set by the user is kept; tests/test_latency_cache.py checks the
# cache itself in subprocesses with their own environment.
_OWNER = "_JAXLEARN_TEST_CACHE_OWNER"
if "JAXLEARN_COMPILATION_CACHE" not in os.environ or os.environ.get(_OWNER, str(os.getpid())) != str(
    os.getpid()
):  # unset, or set by the conftest of the xdist controller that started this worker
    _cache = tempfile.mkdtemp(prefix="jaxlearn-test-cache-")
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
    os.environ.update({"JAXLEARN_COMPILATION_CACHE": _cache, _OWNER: str(os.getpid())})

import jax  # noqa: E402
import pytest  # noqa: E402
from _pytest.doctest import DoctestItem  # noqa: E402

jax.config.update("jax_disable_most_optimizations", True)


@pytest.fixture(autouse=True)
def _standard_promotion_in_docstring_examples(request):
    if isinstance(request.node, DoctestItem):
        with jax.numpy_dtype_promotion("standard"):
            yield
    else:
        yield


def _memory_maps() -> int:
    try:
        with open("/proc/self/maps", "rb") as maps:
            return sum(1 for _ in maps)
    except OSError:  # not Linux: nothing to watch
        return 0


_watch = {"tests": 0, "cleared_at": 0}


@pytest.fixture(autouse=True)
def _release_compiled_programs():
    """Drop JAX's compiled programs when this worker holds too many: their code lives in memory maps,
    and a long-lived xdist worker near the kernel's limit (65,530 maps) aborted inside XLA's
    compiler. Checked every 20th test; cleared at most once per 10,000 new maps."""
    yield
    _watch["tests"] += 1
    if _watch["tests"] % 20:
        return
    maps = _memory_maps()
    if maps > 35_000 and maps > _watch["cleared_at"] + 10_000:
        jax.clear_caches()
        _watch["cleared_at"] = _memory_maps()
