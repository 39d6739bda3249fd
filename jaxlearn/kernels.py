"""Kernels ``k(x, z) -> scalar`` on single examples, and Gram matrices (UML chapter 16).

A kernel is a plain function of two examples; ``gram`` vmaps it. Numeric parameters (``sigma``) are
traced, so ``jax.vmap(lambda s: gram(gaussian(s), X))(sigmas)`` is one program.
"""

from __future__ import annotations

from typing import Callable, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array
Kernel = Callable[[ArrayLike, ArrayLike], Array]


def linear() -> Kernel:
    r"""The linear kernel :math:`K(x, x') = \langle x, x'\rangle`."""

    def k(x, z):
        return jnp.vdot(jnp.asarray(x), jnp.asarray(z))

    return k


def polynomial(degree: int) -> Kernel:
    r"""The polynomial kernel :math:`K(x, x') = (1 + \langle x, x'\rangle)^k` (UML Example 16.1).

    Its exact feature map has one coordinate :math:`\prod_{i=1}^k x_{J_i}` per
    :math:`J \in \{0..n\}^k` with :math:`x_0 = 1`. ``degree`` is structural (a Python int).
    """
    if not isinstance(degree, int) or degree < 1:
        raise ValueError(f"expected `degree` a positive int, got {degree!r}")

    def k(x, z):
        return (1 + jnp.vdot(jnp.asarray(x), jnp.asarray(z))) ** degree

    return k


def gaussian(sigma: ArrayLike) -> Kernel:
    r"""The Gaussian (RBF) kernel :math:`K(x, x') = \exp(-\|x - x'\|^2 / (2\sigma))` (UML Example 16.2).

    Note the book's parameterisation: :math:`2\sigma`, not :math:`2\sigma^2`.
    """

    def k(x, z):
        diff = jnp.asarray(x) - jnp.asarray(z)
        return jnp.exp(-jnp.vdot(diff, diff) / (2 * jnp.asarray(sigma).astype(diff.dtype)))

    return k


def gram(kernel: Kernel, X: ArrayLike, Z: Optional[ArrayLike] = None) -> Array:
    """The Gram matrix ``G[i, j] = kernel(X[i], Z[j])`` (``Z = X`` by default)."""
    X = jnp.asarray(X)
    Z = X if Z is None else jnp.asarray(Z)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError(f"expected `X` of shape (n, d) and `Z` of shape (m, d), got {X.shape} and {Z.shape}")
    return jax.vmap(lambda x: jax.vmap(lambda z: kernel(x, z))(Z))(X)


def polynomial_features(x: ArrayLike, degree: int) -> Array:
    r"""The exact feature map of :func:`polynomial` (UML Example 16.1), for testing.

    With :math:`x_0 = 1`, one coordinate :math:`\prod_{i=1}^k x_{J_i}` per :math:`J \in \{0..n\}^k`,
    so :math:`\langle \psi(x), \psi(x')\rangle = (1 + \langle x, x'\rangle)^k`. Its dimension is
    :math:`(n+1)^k`: use it only on small inputs. ``x`` has shape (n,); vmap for batches.
    """
    if not isinstance(degree, int) or degree < 1:
        raise ValueError(f"expected `degree` a positive int, got {degree!r}")
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"expected `x` of shape (n,), got {x.shape}")
    x1 = jnp.concatenate([jnp.ones((1,), x.dtype), x])
    features = x1
    for _ in range(degree - 1):  # degree is a small static int: an outer product per factor
        features = jnp.outer(features, x1).reshape(-1)
    return features
