"""Bad and unusual input to :mod:`jaxlearn.parallel` (one device here; the several-device behaviour is
tested in ``tests/parallel``)."""
# ruff: noqa: E501 - one row per line reads as a table

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import parallel as par
from tests.inputs.rows import Bad, Same

_X = np.arange(12.0, dtype=np.float32).reshape(4, 3)
_NAN = np.array([[1.0, np.nan], [0.0, 1.0]], np.float32)

ROWS = [
    # mesh
    Bad(par.mesh, "no axis names", lambda: par.mesh(()), "axis_names"),
    Bad(par.mesh, "repeated axis names", lambda: par.mesh(("data", "data")), "axis_names"),
    Bad(par.mesh, "no devices", lambda: par.mesh(devices=[]), "devices"),
    Bad(par.mesh, "shape of the wrong size", lambda: par.mesh(shape=(2,)), "shape"),
    Bad(par.mesh, "a shape per axis", lambda: par.mesh(("data", "model"), shape=(1,)), "shape"),
    Same(
        par.mesh,
        "a name as a string",
        lambda: par.mesh("data").devices.shape,
        lambda: par.mesh(("data",)).devices.shape,
    ),
    # shard_rows / replicate
    Bad(par.shard_rows, "a scalar", lambda: par.shard_rows(np.float32(1.0)), "tree"),
    Bad(par.shard_rows, "NaN rows", lambda: par.shard_rows(_NAN), "tree"),
    Bad(par.shard_rows, "rows differ", lambda: par.shard_rows((_X, _X[:2])), "tree"),
    Bad(par.shard_rows, "an unknown axis", lambda: par.shard_rows(_X, axis="model"), "axis"),
    Bad(par.shard_rows, "not a mesh", lambda: par.shard_rows(_X, mesh="data"), "mesh", TypeError),
    Same(par.shard_rows, "a list", lambda: par.shard_rows(_X.tolist()), lambda: par.shard_rows(_X)),
    Same(par.replicate, "a list", lambda: par.replicate(_X.tolist()), lambda: par.replicate(_X)),
    Bad(
        par.replicate,
        "not a mesh",
        lambda: par.replicate(_X, mesh=jax.devices()),
        "mesh",
        TypeError,
    ),
    # sweep
    Bad(par.sweep, "a scalar", lambda: par.sweep(lambda v: v, jnp.float32(1.0)), "values"),
    Bad(par.sweep, "no values", lambda: par.sweep(lambda v: v, jnp.zeros((0,))), "values"),
    Bad(
        par.sweep,
        "lengths differ",
        lambda: par.sweep(lambda a, b=None: a, (jnp.zeros(2), jnp.zeros(3))),
        "values",
    ),
    Same(
        par.sweep,
        "a pytree",
        lambda: par.sweep(lambda p: p[0] * p[1], (jnp.arange(3.0), jnp.ones(3))),
        lambda: jnp.arange(3.0),
    ),
]
