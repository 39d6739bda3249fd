"""Class-sensitive feature maps (UML section 17.2.1; SPEC 11.3)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn.multiclass import multivector, tfidf


def test_multivector_identity():
    k, n = 4, 3
    rng = np.random.default_rng(0)
    w = rng.standard_normal(k * n).astype(np.float32)
    X = rng.standard_normal((50, n)).astype(np.float32)
    psi = jax.jit(
        jax.vmap(jax.vmap(multivector, (None, 0, None)), (0, None, None)), static_argnums=2
    )
    features = psi(X, jnp.arange(k, dtype=jnp.int32), k)  # (50, k, nk)
    np.testing.assert_allclose(
        features @ w, X @ w.reshape(k, n).T, rtol=1e-6
    )  # <w, Psi(x,y)> = <w_y, x>
    np.testing.assert_array_equal(multivector(jnp.array([1.0, 2.0]), 2, 3), [0, 0, 0, 0, 1, 2])
    with pytest.raises(ValueError, match=r"expected `x` of shape \(n,\)"):
        multivector(jnp.ones((2, 2)), 0, 2)


def test_tfidf_on_a_toy_corpus():
    # vocabulary (ball, goal, vote, law); topics 0 = sport, 1 = politics, 2 = law
    counts = np.array(
        [
            [2, 1, 0, 0],  # sport
            [1, 1, 0, 0],  # sport
            [0, 0, 3, 1],  # politics
            [1, 0, 1, 2],  # law
        ],
        np.float32,
    )
    labels = np.array([0, 0, 1, 2])
    m = 4
    # DF(j, y) = occurrences of word j in documents not about y
    df = np.array([[1, 0, 4, 3], [4, 2, 1, 2], [3, 2, 3, 1]], np.float64)
    x = np.array([1.0, 2.0, 0.0, 1.0], np.float32)
    psi = tfidf(counts, labels, 3)  # smoothing 1: log(m / (DF + 1))
    for y in range(3):
        np.testing.assert_allclose(psi(x, y), x * np.log(m / (df[y] + 1)), rtol=1e-6)
    # the book's formula exactly (smoothing 0): infinite where a word never appears outside a topic
    with pytest.raises(ValueError, match="never appears outside a topic"):
        tfidf(counts, labels, 3, smoothing=0.0)
    outside = np.array([2, 3, 3])[
        :, None
    ]  # documents not about y: counts + 1 adds one per document
    psi0 = tfidf(counts + 1, labels, 3, smoothing=0.0)
    np.testing.assert_allclose(psi0(x, 0), x * np.log(m / (df[0] + outside[0])), rtol=1e-6)
    # document frequencies: number of documents not about y that contain the word
    docs = np.array([[1, 0, 2, 2], [3, 2, 1, 1], [2, 2, 1, 1]], np.float64)
    psi_docs = tfidf(counts, labels, 3, smoothing=0.5, df="documents")
    np.testing.assert_allclose(psi_docs(x, 1), x * np.log(m / (docs[1] + 0.5)), rtol=1e-6)
    # the map is a pytree: its table is the leaf
    assert jax.tree_util.tree_leaves(psi)[0].shape == (3, 4)


def test_tfidf_bad_input():
    counts = np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match=r"`labels` with labels in 0..1"):
        tfidf(counts, np.array([0, 1, 2]), 2)
    with pytest.raises(ValueError, match="`counts` >= 0"):
        tfidf(-counts, np.array([0, 1, 1]), 2)
    with pytest.raises(ValueError, match="same number of documents"):
        tfidf(counts, np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="`df`"):
        tfidf(counts, np.array([0, 1, 1]), 2, df="tf")
