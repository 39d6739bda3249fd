"""Generators for structured output and ranking: ``ocr_words`` and ``ranking_queries``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets

KEY = jax.random.PRNGKey(0)


def test_ocr_words_letters_are_digit_images_with_a_bigram_model():
    X, Y = datasets.ocr_words(KEY, 200, 5, num_letters=6, follow=0.8)
    assert X.shape == (200, 64, 5) and Y.shape == (200, 5)
    assert X.dtype == jnp.float32 and Y.dtype == jnp.int32
    assert int(Y.min()) >= 0 and int(Y.max()) <= 5
    # each letter is the image of a digit of its class (noise=0), pixels scaled to [0, 1]
    images, labels = datasets.load_digits()
    letters = np.asarray(X).transpose(0, 2, 1).reshape(-1, 64)
    nearest = np.argmin(((letters[:, None, :] - images[None, :, :] / 16.0) ** 2).sum(-1), axis=1)
    np.testing.assert_array_equal(labels[nearest], np.asarray(Y).ravel())
    np.testing.assert_allclose(letters, images[nearest] / 16.0, atol=1e-6)
    # successors: follow + (1 - follow)/q of the transitions
    Yn = np.asarray(Y)
    rate = np.mean(Yn[:, 1:] == (Yn[:, :-1] + 1) % 6)
    assert abs(rate - (0.8 + 0.2 / 6)) < 0.05, rate


def test_ocr_words_splits_are_disjoint_and_noise_and_dtype_apply(x64):
    Xtr, _ = datasets.ocr_words(KEY, 100, 3, split="train")
    Xte, _ = datasets.ocr_words(KEY, 100, 3, split="test")
    assert Xtr.dtype == jnp.float64
    tr = {tuple(np.round(c, 6)) for c in np.asarray(Xtr).transpose(0, 2, 1).reshape(-1, 64)}
    te = {tuple(np.round(c, 6)) for c in np.asarray(Xte).transpose(0, 2, 1).reshape(-1, 64)}
    assert not tr & te
    Xn, _ = datasets.ocr_words(KEY, 100, 3, split="train", noise=0.5)
    assert 0.4 < float(jnp.std(Xn - Xtr)) < 0.6
    with pytest.raises(ValueError, match="`num_letters` in 2..10"):
        datasets.ocr_words(KEY, 10, 3, num_letters=11)
    with pytest.raises(ValueError, match="`split`"):
        datasets.ocr_words(KEY, 10, 3, split="valid")


def test_ranking_queries():
    X, Y, w = datasets.ranking_queries(KEY, 50, 8, 5, levels=4, noise=0.0)
    assert X.shape == (50, 8, 5) and Y.shape == (50, 8) and w.shape == (5,)
    assert set(np.unique(np.asarray(Y)).tolist()) == {0.0, 1.0, 2.0, 3.0}
    # without noise the grades are monotone in the hidden score
    s = np.asarray(X @ w).ravel()
    order = np.argsort(s)
    assert (np.diff(np.asarray(Y).ravel()[order]) >= 0).all()
