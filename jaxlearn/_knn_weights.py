"""The weights of the k nearest neighbours' votes (UML section 19.1), shared by the k-NN rules'
programs (:mod:`jaxlearn.neighbors`) and the scikit-learn layer's leave-one-out predictions."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def neighbour_weights(weights: str, rho):
    """(n, k): the weights of the neighbours at distances ``rho`` (n, k) for ``weights``
    ``"distance"`` (:math:`1/\\rho_i`; a query on training points: those points only, weight 1, as
    scikit-learn's) or ``"as_printed"`` (:math:`\\rho_i / \\sum_j \\rho_j`, UML's formula as printed;
    all ``k`` on the query: equal weights)."""
    if weights == "distance":
        here = rho == 0
        inverse = 1 / jnp.where(here, 1, rho)
        return jnp.where(jnp.any(here, axis=1, keepdims=True), here.astype(rho.dtype), inverse)
    total = jnp.sum(rho, axis=1, keepdims=True)
    return jnp.where(total > 0, rho / jnp.where(total > 0, total, 1), 1 / rho.shape[1])


#: :func:`neighbour_weights` as one compiled program, for distances held on the host.
compiled_neighbour_weights = jax.jit(neighbour_weights, static_argnums=0)
