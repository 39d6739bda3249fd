"""Root test configuration: docstring examples run as a user runs them.

``tests/conftest.py`` turns on strict dtype promotion for the test suite (as equinox does); the
examples in the docstrings (``--doctest-modules``) are user code, so they run with JAX's standard
promotion.
"""

import jax
import pytest
from _pytest.doctest import DoctestItem


@pytest.fixture(autouse=True)
def _standard_promotion_in_docstring_examples(request):
    if isinstance(request.node, DoctestItem):
        with jax.numpy_dtype_promotion("standard"):
            yield
    else:
        yield


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """Drop JAX's compiled programs after each module: thousands of executables kept alive by one
    long-lived xdist worker exhaust its memory maps (XLA then aborts mid-compile)."""
    yield
    jax.clear_caches()
