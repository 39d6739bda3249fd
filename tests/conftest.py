"""Test configuration: strict dtype promotion (as equinox does), so silent promotions show up."""

import jax
import pytest

jax.config.update("jax_numpy_dtype_promotion", "strict")


@pytest.fixture(params=["float32", "float64"])
def dtype(request):
    """Run a test in float32 and, with x64 enabled, in float64."""
    if request.param == "float64":
        with jax.enable_x64(True):
            yield jax.numpy.float64
    else:
        yield jax.numpy.float32


@pytest.fixture
def x64():
    """Enable float64 for exact identities."""
    with jax.enable_x64(True):
        yield


@pytest.fixture
def optimised():
    """Compile the test's programs with XLA's optimisations on. The suite compiles with most of them
    off (the root ``conftest.py``), which suits its thousands of small programs; a test whose time
    goes into running one long loop (an SMO solver on badly scaled data) runs it optimised."""
    before = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", False)
    yield
    jax.config.update("jax_disable_most_optimizations", before)
