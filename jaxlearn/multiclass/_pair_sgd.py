r"""All-Pairs over ``linear.soft_svm``, each pair's SGD drawing from the pair's own examples (UML 17.1, 15.5).

The pair :math:`(i, j)` is the book's Soft-SVM SGD on :math:`S_{ij} = \{x : y \in \{i, j\}\}` alone:
step :math:`t` visits :math:`S_{ij}[u_t]`, :math:`u_t` uniform in :math:`[0, n_{ij})`, by index into the one
sample ``X`` that every pair shares (the :math:`n_{ij}` are traced: one program for every labelling). It
is ``soft_svm.fit(key_ij, X[S_ij], y_ij)`` with the same draws, the :math:`k(k-1)/2` fits one ``jax.vmap``.
"""

from __future__ import annotations

import functools
from typing import Optional

import jax
import jax.numpy as jnp

from jaxlearn import core, linear
from jaxlearn._regularized import hinge_subgradient, regularized_sgd, sample_indices

Array = jax.Array


def soft_svm_options(binary) -> Optional[dict]:
    """The hyperparameters of ``binary`` when it is ``linear.soft_svm(...)`` with ``batch_size=1``, else
    ``None`` (another learner, or one assembled by hand)."""
    try:
        options = core.hyperparameters(binary)
        twin = linear.soft_svm(**options)
    except (TypeError, ValueError):
        return None
    if jax.tree_util.tree_structure(twin) != jax.tree_util.tree_structure(binary):
        return None  # the factory is part of a learner's tree structure: another factory
    return options if options["batch_size"] == 1 else None


def fit_pairs(options: dict, keys: Array, X: Array, Y: Array) -> linear.SoftSVMParams:
    r"""``soft_svm(**options).fit(keys[p], X[S_p], Y[p, S_p])`` for every pair ``p`` (rows of ``Y`` in
    :math:`\{+1, -1, 0\}`, :math:`S_p` the non-zero entries), stacked over the pairs."""
    static = {name: options[name] for name in ("steps", "fit_intercept", "variant", "progress")}
    return _fit_pairs(keys, X, Y, options["lam"], **static)


@functools.partial(jax.jit, static_argnames=("steps", "fit_intercept", "variant", "progress"))
def _fit_pairs(keys, X, Y, lam, *, steps, fit_intercept, variant, progress):
    if fit_intercept:  # a constant feature, regularised like the others (as soft_svm)
        X = jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)
    member = Y != 0
    rows = jnp.argsort(
        ~member, axis=1, stable=True
    )  # (pairs, m): each pair's examples first, in order
    counts = jnp.maximum(
        jnp.sum(member, axis=1, dtype=jnp.int32), 1
    )  # an empty pair draws a label 0

    def one_pair(key, rows, count, y):
        idx = rows[sample_indices(key, steps, count)]  # uniform over the pair's own examples
        zeros = jnp.zeros(X.shape[1], X.dtype)
        return regularized_sgd(
            hinge_subgradient(X, y), idx, lam, zeros, variant=variant, progress=progress
        )

    w = jax.vmap(one_pair)(keys, rows, counts, Y)
    if fit_intercept:
        return linear.SoftSVMParams(w=w[:, :-1], b=w[:, -1])
    return linear.SoftSVMParams(w=w, b=jnp.zeros(w.shape[:1], X.dtype))
