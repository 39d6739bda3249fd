"""Structured SVM by SGD over letter sequences (SPEC 11.5, 12; UML sections 15.5, 17.2.5, 17.3)."""

import functools
import itertools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets
from jaxlearn._regularized import sample_indices
from jaxlearn.structured import _svm, hamming_loss, structured_svm

KEY = jax.random.PRNGKey(0)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _words(key, n, dtype):
    return datasets.ocr_words(key, n, 4, num_letters=4, noise=0.3, dtype=dtype)


def test_sgd_steps_match_a_numpy_transcription(x64):
    """theta^(t+1) = theta^(t) - (Psi(x, y_hat) - Psi(x, y)), w^(t) = theta^(t)/(lam t), averaged;
    y_hat by brute force over all labellings (q = 2, r = 3: 8 of them)."""
    q, r, n, m, steps, lam = 2, 3, 4, 5, 25, 0.3
    X = np.asarray(jax.random.normal(jax.random.PRNGKey(1), (m, n, r)))
    Y = np.asarray(jax.random.randint(jax.random.PRNGKey(2), (m, r), 0, q))
    idx = np.asarray(sample_indices(KEY, steps, m))
    labellings = np.array(list(itertools.product(range(q), repeat=r)))

    def psi(x, y):  # UML section 17.3, written out: pixel block (n, q), bigram block (q, q), / r
        emission, transition = np.zeros((n, q)), np.zeros((q, q))
        for t in range(r):
            emission[:, y[t]] += x[:, t]
            if t:
                transition[y[t], y[t - 1]] += 1
        return np.concatenate([emission.ravel(), transition.ravel()]) / r

    theta, total = np.zeros(n * q + q * q), np.zeros(n * q + q * q)
    for t in range(1, steps + 1):
        w = theta / (lam * t)
        x, y = X[idx[t - 1]], Y[idx[t - 1]]
        values = [np.mean(v != y) + w @ psi(x, v) for v in labellings]
        y_hat = labellings[int(np.argmax(values))]
        theta = theta - (psi(x, y_hat) - psi(x, y))
        total += w
    params = structured_svm(lam, steps, q).fit(KEY, jnp.asarray(X), jnp.asarray(Y))
    np.testing.assert_allclose(params.w, total / steps, rtol=1e-10, atol=1e-12)


def _letter_accuracy(pred, Y):
    return float(jnp.mean((pred == Y).astype(jnp.float32)))


def _letters(X):
    return jnp.transpose(X, (0, 2, 1)).reshape(-1, X.shape[1])


def test_structured_svm_beats_independent_per_letter_svms_on_ocr_words():
    """Transition features matter: with noisy images, decoding the word beats reading letters one by one.

    The per-letter baseline is ``jaxlearn.multiclass.multiclass_svm`` on the letters (UML 17.2.5); where
    that package is absent, the same structured SGD with the bigram block held at 0.
    """
    Xtr, Ytr = datasets.ocr_words(jax.random.PRNGKey(0), 200, 6, noise=0.8, split="train")
    Xte, Yte = datasets.ocr_words(jax.random.PRNGKey(1), 200, 6, noise=0.8, split="test")
    learner = structured_svm(0.003, 2000, 10)
    structured = _letter_accuracy(learner.predict(learner.fit(KEY, Xtr, Ytr), Xte), Yte)
    try:
        from jaxlearn.multiclass import multiclass_svm
    except ImportError:  # the multiclass package is optional for this comparison
        independent = structured_svm(0.003, 2000, 10, transitions=False)
        params = independent.fit(KEY, Xtr, Ytr)
        np.testing.assert_array_equal(params.w[64 * 10 :], 0.0)
        baselines = {"transitions=False": _letter_accuracy(independent.predict(params, Xte), Yte)}
    else:
        per_letter = multiclass_svm(0.003, 6000, 10)
        p = per_letter.fit(KEY, _letters(Xtr), Ytr.ravel())
        baselines = {
            "multiclass_svm": _letter_accuracy(per_letter.predict(p, _letters(Xte)), Yte.ravel())
        }
    # measured: 0.68 against 0.43 (transitions=False) and 0.41 (multiclass_svm; 0.41-0.43 for lam in
    # 0.001..0.03): the bigram block is worth about 25 points of letter accuracy here
    assert structured > 0.6, structured
    for name, baseline in baselines.items():
        assert structured > baseline + 0.15, (name, structured, baseline)


def test_unequal_lengths_through_a_mask():
    """Words of lengths 2..4 padded to 4: the padding's content and labels do not matter, decoding
    writes -1 there, and ragged input without a mask is refused."""
    X, Y = _words(jax.random.PRNGKey(3), 16, jnp.float32)
    lengths = 2 + jnp.arange(16) % 3
    mask = jnp.arange(4)[None, :] < lengths[:, None]
    Y_pad = jnp.where(mask, Y, -1)
    X_junk = jnp.where(mask[:, None, :], X, 7.0)
    learner = structured_svm(0.01, 200, 4)  # the shapes of tests/test_conformance.py's row
    params = learner.fit(KEY, X, Y_pad, mask)
    chex.assert_trees_all_close(learner.fit(KEY, X_junk, Y, mask), params, rtol=1e-6, atol=1e-7)
    pred = learner.predict(params, X_junk, mask)
    np.testing.assert_array_equal(pred == -1, ~mask)
    assert float(hamming_loss(pred, Y, mask=mask).mean()) < 0.2
    # the masked fit differs from the fit on the full-length words (the mask is used)
    assert not np.allclose(learner.fit(KEY, X, Y).w, params.w)
    ragged = [X[i, :, : int(lengths[i])] for i in range(4)]
    with pytest.raises(ValueError, match="sequences of equal length.*`mask`"):
        learner.fit(KEY, ragged, [Y[i, : int(lengths[i])] for i in range(4)])
    with pytest.raises(ValueError, match=r"labels in 0..3, found \[-1\]; pass `mask`"):
        learner.fit(KEY, X, Y_pad)
    with pytest.raises(ValueError, match="prefixes"):
        learner.fit(KEY, X, Y, mask[:, ::-1])


def test_bad_input():
    X, Y = _words(KEY, 16, jnp.float32)
    learner = structured_svm(0.1, 10, 4)
    with pytest.raises(ValueError, match=r"expected `Y` with labels in 0..3, found \[4\]"):
        learner.fit(KEY, X, Y.at[0, 1].set(4))
    with pytest.raises(ValueError, match="`X` to be finite"):
        learner.fit(KEY, X.at[2, 3, 1].set(jnp.nan), Y)
    with pytest.raises(ValueError, match=r"expected `X` of shape \(m, n_pixels, r\)"):
        learner.fit(KEY, X[0], Y)
    with pytest.raises(ValueError, match=r"expected `Y` of shape \(16, 4\)"):
        learner.fit(KEY, X, Y[:-1])
    with pytest.raises(ValueError, match=r"`lam` a number in \(0, inf\)"):
        structured_svm(0.0, 10, 4)
    with pytest.raises(ValueError, match=r"`steps` an integer in \[1, inf\)"):
        structured_svm(0.1, 0, 4)


def test_params_dtypes(dtype):
    X, Y = _words(KEY, 16, dtype)
    learner = structured_svm(0.1, 200, 4)
    params = learner.fit(KEY, X, Y)
    assert isinstance(params, _svm.StructuredSVMParams)
    assert params.w.dtype == dtype and params.w.shape == (64 * 4 + 16,)
    assert np.isfinite(np.asarray(params.w)).all()
    pred = learner.predict(params, X)
    assert pred.shape == Y.shape and pred.dtype == jnp.int32
    assert set(np.unique(np.asarray(pred)).tolist()) <= {0, 1, 2, 3}
    value = learner.decision_function(params, X)
    assert value.shape == (16,) and value.dtype == dtype
