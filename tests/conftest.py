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
