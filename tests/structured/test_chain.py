"""The OCR feature map, Viterbi and loss-augmented Viterbi (SPEC 12; UML section 17.3, Exercise 17.3)."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn.structured import (
    chain_features,
    hamming_loss,
    loss_augmented_viterbi,
    sequence_score,
    split_weights,
    structured_hinge,
    viterbi,
)

Q, R, N = 3, 5, 4
ALL_Y = jnp.asarray(list(itertools.product(range(Q), repeat=R)))  # 3^5 = 243 labellings


def _problem(seed, q=Q, r=R, n=N):
    kx, kw, ky = jax.random.split(jax.random.PRNGKey(seed), 3)
    x = jax.random.normal(kx, (n, r))
    w = 2.0 * jax.random.normal(kw, (n * q + q * q,))
    y = jax.random.randint(ky, (r,), 0, q)
    return w, x, y


def test_chain_features_by_hand():
    # 2 pixels, 3 letters: y = (1, 0, 1); bigrams "0 follows 1" once and "1 follows 0" once.
    x = jnp.array([[1.0, 2.0, 3.0], [0.0, 1.0, 5.0]])
    psi = chain_features(x, jnp.array([1, 0, 1]), 2)
    W1, W2 = split_weights(psi, 2, 2)
    np.testing.assert_allclose(W1, np.array([[2.0, 4.0], [1.0, 5.0]]) / 3)
    np.testing.assert_allclose(W2, np.array([[0.0, 1.0], [1.0, 0.0]]) / 3)
    assert psi.shape == (2 * 2 + 2 * 2,)


def test_score_identity_equals_emission_plus_transition_decomposition(x64):
    for seed in range(3):
        w, x, y = _problem(seed)
        W1, W2 = split_weights(w, N, Q)
        emission = sum(float(W1[:, y[t]] @ x[:, t]) for t in range(R))
        transition = sum(float(W2[y[t], y[t - 1]]) for t in range(1, R))
        want = (emission + transition) / R
        np.testing.assert_allclose(jnp.vdot(w, chain_features(x, y, Q)), want, rtol=1e-12)
        np.testing.assert_allclose(sequence_score(w, x, y, Q), want, rtol=1e-12)


def _brute(w, x, y=None):
    psi = jax.vmap(lambda yy: chain_features(x, yy, Q))(ALL_Y)
    values = psi @ w
    if y is not None:
        values = values + hamming_loss(ALL_Y, y[None, :], dtype=values.dtype)
    return values


@pytest.mark.parametrize("seed", range(2))
def test_viterbi_equals_brute_force(seed, x64):
    w, x, y = _problem(seed)
    labels, value = viterbi(w, x, Q, return_value=True)
    values = _brute(w, x)
    np.testing.assert_allclose(value, values.max(), rtol=1e-12)
    np.testing.assert_allclose(jnp.vdot(w, chain_features(x, labels, Q)), values.max(), rtol=1e-12)
    # the dynamic program found the argmax itself (the random problem has a unique maximiser)
    np.testing.assert_array_equal(labels, ALL_Y[jnp.argmax(values)])


@pytest.mark.parametrize("seed", range(2))
def test_loss_augmented_viterbi_equals_brute_force(seed, x64):
    w, x, y = _problem(seed)
    w = 0.2 * w  # small weights: the loss term matters, y_hat differs from plain Viterbi
    y_hat, value = loss_augmented_viterbi(w, x, y, Q, return_value=True)
    values = _brute(w, x, y)
    np.testing.assert_allclose(value, values.max(), rtol=1e-12)
    got = jnp.vdot(w, chain_features(x, y_hat, Q)) + hamming_loss(y_hat, y, dtype=w.dtype)
    np.testing.assert_allclose(got, values.max(), rtol=1e-12)
    # the generalised hinge bounds the Hamming loss of the prediction (17.3)
    bound = structured_hinge(w, x, y, Q)
    assert bound >= hamming_loss(viterbi(w, x, Q), y, dtype=w.dtype) - 1e-12


def test_loss_augmentation_changes_the_argmax():
    w, x, y = _problem(0)
    w = jnp.zeros_like(w)  # every labelling scores 0: the loss alone decides, all letters wrong
    y_hat = loss_augmented_viterbi(w, x, y, Q)
    assert bool(jnp.all(y_hat != y))
    np.testing.assert_allclose(structured_hinge(w, x, y, Q), 1.0)


def test_masked_word_equals_the_shorter_word(x64):
    w, x, y = _problem(7, r=6)
    length = 4
    mask = jnp.arange(6) < length
    y_pad = jnp.where(mask, y, -1)
    np.testing.assert_allclose(
        chain_features(x, y_pad, Q, mask=mask),
        chain_features(x[:, :length], y[:length], Q),
        rtol=1e-12,
    )
    labels, value = viterbi(w, x, Q, mask=mask, return_value=True)
    short, short_value = viterbi(w, x[:, :length], Q, return_value=True)
    np.testing.assert_array_equal(labels[:length], short)
    np.testing.assert_array_equal(labels[length:], [-1, -1])
    np.testing.assert_allclose(value, short_value, rtol=1e-12)
    y_hat, aug = loss_augmented_viterbi(w, x, y, Q, mask=mask, return_value=True)
    short_hat, short_aug = loss_augmented_viterbi(
        w, x[:, :length], y[:length], Q, return_value=True
    )
    np.testing.assert_array_equal(y_hat[:length], short_hat)
    np.testing.assert_allclose(aug, short_aug, rtol=1e-12)
    np.testing.assert_allclose(
        sequence_score(w, x, y_pad, Q, mask=mask),
        sequence_score(w, x[:, :length], y[:length], Q),
        rtol=1e-12,
    )


def test_viterbi_jits_and_vmaps_over_words():
    w, _, _ = _problem(1)
    xs = jax.random.normal(jax.random.PRNGKey(2), (6, N, R))
    batched = jax.jit(jax.vmap(lambda x: viterbi(w, x, Q)))(xs)
    for i in range(6):
        np.testing.assert_array_equal(batched[i], viterbi(w, xs[i], Q))


def test_shape_errors():
    w, x, y = _problem(0)
    with pytest.raises(ValueError, match=r"expected `w` of shape \(21,\)"):
        viterbi(w[:-1], x, Q)
    with pytest.raises(ValueError, match=r"expected `x` of shape \(n_pixels, r\)"):
        viterbi(w, x[:, 0], Q)
    with pytest.raises(ValueError, match=r"expected `y` of shape \(5,\)"):
        chain_features(x, y[:-1], Q)
    with pytest.raises(ValueError, match=r"expected `mask` of shape \(5,\)"):
        viterbi(w, x, Q, mask=jnp.ones(4, bool))
