"""Data: generators with known ground truth, and loaders for the data sets bundled with scikit-learn.

Generators take a ``jax.random`` key first and return JAX arrays; their hyperparameters (``margin``,
``flip``) are traced, so a sweep over them is one vmapped program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

Array = jax.Array


def _check_size(n: int, d: int) -> None:
    if int(n) < 1 or int(d) < 1:
        raise ValueError(f"expected `n` >= 1 and `d` >= 1, got n={n}, d={d}")


def _unit_ball(key: Array, n: int, d: int, dtype) -> Array:
    """``n`` points uniform in the unit ball of R^d."""
    k_dir, k_rad = jax.random.split(key)
    z = jax.random.normal(k_dir, (n, d), dtype)
    z = z / jnp.linalg.norm(z, axis=1, keepdims=True)
    return z * jax.random.uniform(k_rad, (n, 1), dtype) ** (1.0 / d)


def _unit_vector(key: Array, d: int, dtype) -> Array:
    v = jax.random.normal(key, (d,), dtype)
    return v / jnp.linalg.norm(v)


def separable(key: Array, n: int, d: int, margin: ArrayLike, *, dtype=None) -> tuple[Array, Array, Array]:
    r"""A linearly separable sample with a margin (SPEC section 4, common generator).

    Draws a unit :math:`w^*` and points uniform in the unit ball, then pushes each point out of the
    band :math:`|\langle w^*, x\rangle| < \gamma`: its component along :math:`w^*` becomes
    :math:`\pm(\gamma + |s|(1 - \gamma))` and its orthogonal part shrinks so that :math:`\|x\| \le 1`.

    Returns:
      ``(X, y, w_star)`` with ``||x_i|| <= 1``, ``y_i <w_star, x_i> >= margin``, ``||w_star|| = 1``,
      ``y`` in {-1, +1} (same float dtype as ``X``).
    """
    _check_size(n, d)
    dtype = dtype or jnp.result_type(float)
    k_w, k_x = jax.random.split(key)
    w_star = _unit_vector(k_w, d, dtype)
    X = _unit_ball(k_x, n, d, dtype)
    s = X @ w_star
    y = jnp.where(s >= 0, 1.0, -1.0).astype(dtype)
    along = margin + jnp.abs(s) * (1 - margin)
    perp = X - s[:, None] * w_star
    shrink = jnp.sqrt(jnp.clip((1 - along**2) / jnp.clip(1 - s**2, 1e-12), 0.0, 1.0))
    X = perp * shrink[:, None] + (y * along)[:, None] * w_star
    return X, y, w_star


def noisy_halfspace(key: Array, n: int, d: int, flip: ArrayLike, *, dtype=None) -> tuple[Array, Array, Array]:
    """Points uniform in the unit ball labelled by a random unit halfspace, each label flipped with
    probability ``flip``.

    Returns:
      ``(X, y, w_star)``, ``y`` in {-1, +1}.
    """
    _check_size(n, d)
    dtype = dtype or jnp.result_type(float)
    k_w, k_x, k_f = jax.random.split(key, 3)
    w_star = _unit_vector(k_w, d, dtype)
    X = _unit_ball(k_x, n, d, dtype)
    y = jnp.where(X @ w_star >= 0, 1.0, -1.0).astype(dtype)
    y = jnp.where(jax.random.bernoulli(k_f, flip, (n,)), -y, y)
    return X, y, w_star


def disjunction(key: Array, n: int, d: int, k: int, *, p: float | None = None) -> tuple[Array, Array, Array]:
    """Boolean examples in {0,1}^d labelled by a monotone disjunction of ``k`` of the ``d`` variables.

    Each bit is 1 with probability ``p`` (default ``1 - 2 ** (-1 / k)``, so about half the examples are
    positive). Returns ``(X, y, relevant)``: ``X`` float {0,1}, ``y`` in {0, 1}, ``relevant`` the
    indices of the disjunction's variables.
    """
    _check_size(n, d)
    if not 1 <= int(k) <= int(d):
        raise ValueError(f"expected 1 <= `k` <= d={d}, got {k}")
    p = 1 - 2 ** (-1 / k) if p is None else p
    k_rel, k_x = jax.random.split(key)
    relevant = jax.random.permutation(k_rel, d)[:k]
    X = jax.random.bernoulli(k_x, p, (n, d)).astype(jnp.result_type(float))
    y = (X[:, relevant].sum(axis=1) > 0).astype(jnp.int32)
    return X, y, relevant


def expert_advice(key: Array, T: int, n: int, error_rates: ArrayLike | None = None) -> tuple[Array, Array]:
    """Binary outcomes and the advice of ``n`` experts; expert ``i`` errs with probability ``error_rates[i]``.

    Outcomes are fair coins. The default error rates go linearly from 0 (expert 0 is perfect: the stream
    is realizable) to 1/2 (the last expert is a coin). Returns ``(X, y)``: advice of shape (T, n) and
    outcomes of shape (T,), both int32 in {0, 1}.
    """
    _check_size(T, n)
    rates = jnp.linspace(0.0, 0.5, n) if error_rates is None else jnp.asarray(error_rates)
    k_y, k_flip = jax.random.split(key)
    y = jax.random.bernoulli(k_y, 0.5, (T,)).astype(jnp.int32)
    wrong = jax.random.bernoulli(k_flip, rates, (T, n)).astype(jnp.int32)
    return jnp.abs(y[:, None] - wrong), y


def standardize(X: ArrayLike) -> Array:
    """Scale every column to zero mean and unit variance (constant columns are left centred)."""
    X = jnp.asarray(X)
    std = jnp.std(X, axis=0)
    return (X - jnp.mean(X, axis=0)) / jnp.where(std > 0, std, 1.0)


_SKLEARN_MISSING = (
    "`{name}` loads a data set bundled with scikit-learn, which is not installed; "
    "install it with: pip install 'jaxlearn[sklearn]'"
)


def _sklearn_datasets(name: str):
    try:
        import sklearn.datasets
    except ImportError as err:
        raise ImportError(_SKLEARN_MISSING.format(name=name)) from err
    return sklearn.datasets


def load_breast_cancer(*, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Wisconsin breast cancer (569 x 30), labels mapped to {-1, +1} (+1 = benign, sklearn's 1).

    Features are returned as they are (not scaled); see :func:`standardize`.
    """
    data = _sklearn_datasets("load_breast_cancer").load_breast_cancer()
    return data.data.astype(dtype), (2 * data.target - 1).astype(dtype)


def load_digits(*, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """The 8x8 handwritten digits (1797 x 64, pixel values 0..16), labels 0..9 (int32)."""
    data = _sklearn_datasets("load_digits").load_digits()
    return data.data.astype(dtype), data.target.astype(np.int32)
