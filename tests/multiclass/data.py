"""Samples shared by the multiclass tests: Gaussian blobs, the digits split, Example 17.1."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import datasets

K = 3


@functools.partial(jax.jit, static_argnums=(1, 2), static_argnames=("k", "d", "spread"))
def blobs(key, n, dtype, k=K, d=4, spread=0.6):
    """``n`` points in ``d`` dimensions around ``k`` centres (labels int32 in 0..k-1), with a constant
    last feature so that linear predictors have intercepts."""
    k_c, k_y, k_x = jax.random.split(key, 3)
    centres = 2.0 * jax.random.normal(k_c, (k, d - 1), dtype)
    y = jax.random.randint(k_y, (n,), 0, k).astype(jnp.int32)
    X = centres[y] + spread * jax.random.normal(k_x, (n, d - 1), dtype)
    return jnp.concatenate([X, jnp.ones((n, 1), dtype)], axis=1), y


@functools.lru_cache(maxsize=1)
def digits_split():
    """Digits (1797 x 64), a stratified 70/30 split, standardised with the training statistics."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = datasets.load_digits()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    scaler = StandardScaler().fit(X_train)
    as32 = lambda a: scaler.transform(a).astype(np.float32)
    return as32(X_train), as32(X_test), y_train, y_test


def example_17_1(sizes=(20, 10, 20), radius=0.1, seed=0):
    """UML Example 17.1: three discs in a row at (-1, 1), (0, 1), (1, 1) (masses 40%, 20%, 40%)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-1.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    X, y = [], []
    for label, size in enumerate(sizes):
        angle = rng.uniform(0, 2 * np.pi, size)
        r = radius * np.sqrt(rng.uniform(0, 1, size))
        X.append(centres[label] + np.c_[r * np.cos(angle), r * np.sin(angle)])
        y.append(np.full(size, label))
    return np.concatenate(X).astype(np.float32), np.concatenate(y).astype(np.int32)


def clusters(k=4, n=3, per_class=15, r=1.0, spacing=5.0, seed=0, dtype=np.float64):
    """Exercise 17.1 data: points within ``r`` of centres mu_i on a grid of spacing ``spacing`` >= 4r.

    Returns ``(X, y, mu)``."""
    rng = np.random.default_rng(seed)
    grid = np.array(np.meshgrid(*[np.arange(3)] * n)).reshape(n, -1).T[:k] * spacing
    X, y = [], []
    for label, mu in enumerate(grid):
        direction = rng.standard_normal((per_class, n))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        X.append(mu + r * rng.uniform(0, 1, (per_class, 1)) * direction)
        y.append(np.full(per_class, label))
    return np.concatenate(X).astype(dtype), np.concatenate(y).astype(np.int32), grid.astype(dtype)
