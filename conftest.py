"""Root test configuration: docstring examples run as a user runs them.

``tests/conftest.py`` turns on strict dtype promotion for the test suite (as equinox does); the
examples in the docstrings (``--doctest-modules``) are user code, so they run with JAX's standard
promotion.

The suite compiles thousands of small programs, and compiling dominates its time, so the test
process compiles without XLA's backend (LLVM) optimisations (``jax_disable_most_optimizations``):
about 30% less time on 2 cores; and its CPU backend emits fusions by XLA's older elemental emitters
(``--xla_cpu_use_fusion_emitters=false``), which compile in about half the time of the MLIR fusion
emitters: ``tests/test_conformance.py`` 182 s to 110 s on one core, the same tests passing. The
graph-level passes still run, so the programs compute what the optimised ones do up to floating-point
contraction and the elementary functions' last bits. The notebooks run in Jupyter kernels of their
own with ``JAX_DISABLE_MOST_OPTIMIZATIONS=1`` but the user's ``XLA_FLAGS`` (the flag is taken out
again once this process's backend has read it: a notebook reads ``XLA_FLAGS`` itself).
"""

import atexit
import importlib.metadata
import os
import shutil
import tempfile

# Each test process keeps the programs it compiles in a persistent compilation cache of its own,
# deleted when it exits: tests that build the same program afresh (a learner made again, a new
# `jax.jit` of the same function) read it back instead of compiling it again. One directory per
# process, since JAX 0.10 writes entries in place (no rename, no lock), and xdist workers sharing one
# could read half-written entries; the suite's programs (most optimisations off, below) are of no use
# to a user's cache. The Jupyter kernels a worker starts share its directory (one at a time).
# JAXLEARN_COMPILATION_CACHE set by the user is kept; tests/test_latency_cache.py checks the cache
# itself in subprocesses with their own environment.
_OWNER = "_JAXLEARN_TEST_CACHE_OWNER"
_inherited = os.environ.get(_OWNER) not in (
    None,
    str(os.getpid()),
)  # set by the xdist controller's conftest
if "JAXLEARN_COMPILATION_CACHE" not in os.environ or _inherited:
    _cache = tempfile.mkdtemp(prefix="jaxlearn-test-cache-")
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
    os.environ.update({"JAXLEARN_COMPILATION_CACHE": _cache, _OWNER: str(os.getpid())})

# XLA reads XLA_FLAGS once, when the backend starts: the flag is added for this process only, and the
# processes it starts (Jupyter kernels, the subprocesses of some tests) see the user's XLA_FLAGS.
# The flag is gone from the XLA of jax 0.11, which aborts on an unknown flag: older versions only.
_USER_XLA_FLAGS = os.environ.get("XLA_FLAGS")
_JAXLIB = tuple(int(p) for p in importlib.metadata.version("jaxlib").split(".")[:2] if p.isdigit())
if _JAXLIB < (0, 11):
    os.environ["XLA_FLAGS"] = f"{_USER_XLA_FLAGS or ''} --xla_cpu_use_fusion_emitters=false".strip()

import jax  # noqa: E402
import pytest  # noqa: E402
from _pytest.doctest import DoctestItem  # noqa: E402

jax.config.update("jax_disable_most_optimizations", True)
jax.devices()  # starts the backend, which reads XLA_FLAGS
if _USER_XLA_FLAGS is None:
    os.environ.pop("XLA_FLAGS", None)
else:
    os.environ["XLA_FLAGS"] = _USER_XLA_FLAGS


@pytest.fixture(autouse=True)
def _standard_promotion_in_docstring_examples(request):
    if isinstance(request.node, DoctestItem):
        with jax.numpy_dtype_promotion("standard"):
            yield
    else:
        yield


def pytest_runtest_teardown(item, nextitem):
    """JAX's compiled programs are dropped when a test module ends: a compiled CPU program holds about
    three memory maps, and a worker that kept the tens of thousands the suite compiles would reach the
    kernel's limit (65,530). Run alone, ``tests/test_conformance.py`` peaks at about 43,000. The next
    module reads the programs it shares back from the persistent cache."""
    if nextitem is None or nextitem.path != item.path:
        jax.clear_caches()


#: Tests that each run for most of a minute (a notebook in a Jupyter kernel of its own, the demo) go
#: first, so that under ``pytest -n auto`` no worker is left finishing one alone at the end.
_LONG_TESTS = (
    "tests/test_notebooks.py::test_notebook_executes_with_the_stored_outputs",
    "tests/test_demo.py::test_demo_tables_bounds_and_figure",
)


def pytest_collection_modifyitems(items):
    items.sort(
        key=lambda item: not item.nodeid.startswith(_LONG_TESTS)
    )  # stable: the rest keep their order
