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

import os

# The suite's thousands of programs (compiled with most optimisations off, below) are of no use to a
# user's compilation cache, and JAX 0.10 writes cache entries in place (no rename, no lock), so xdist
# workers sharing a directory could read half-written entries: the suite runs with jaxlearn's cache
# off unless JAXLEARN_COMPILATION_CACHE is set. tests/test_latency_cache.py checks it in subprocesses.
os.environ.setdefault("JAXLEARN_COMPILATION_CACHE", "0")

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

