"""The tests of ``jaxlearn.parallel`` and the data-parallel fits run on four CPU devices.

``make test`` runs this folder in its own pytest process with
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` (the rest of the suite keeps one device).
Run alone: ``XLA_FLAGS=--xla_force_host_platform_device_count=4 pytest tests/parallel``.
"""

import jax
import pytest

from jaxlearn import parallel

DEVICES = 4


def pytest_collection_modifyitems(config, items):
    if jax.device_count() >= DEVICES:
        return
    reason = (
        f"needs {DEVICES} devices, found {jax.device_count()}: run with "
        f"XLA_FLAGS=--xla_force_host_platform_device_count={DEVICES} (as `make test` does)"
    )
    for item in items:
        if "tests/parallel" in str(item.fspath):
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(params=[1, 2, 4], ids=lambda n: f"{n}dev")
def mesh(request):
    """A one-axis ("data") mesh over the first 1, 2 and 4 devices."""
    return parallel.mesh(devices=jax.devices()[: request.param])
