r"""Structured-output SVM over chains by SGD (UML sections 17.2.5 and 17.3; SPEC 11.5, 12.3).

The multiclass SVM of UML section 17.2.5 with the OCR feature map and the normalised Hamming loss of
section 17.3, solved by the book's SGD for regularised loss minimisation (the :math:`\theta`/:math:`w`
rule of UML section 15.5, as :func:`jaxlearn.linear.soft_svm` runs it), with
:func:`~jaxlearn.structured.loss_augmented_viterbi` as the loss-augmented argmax.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import BatchLearner, check_finite, check_positive_int, float_dtype, is_concrete
from jaxlearn.linear._common import check_positive, sample_indices
from jaxlearn.structured._chain import PAD, chain_features, feature_size, loss_augmented_viterbi, viterbi

Array = jax.Array


class StructuredSVMParams(NamedTuple):
    r"""``w``: the averaged weights :math:`\bar w`, flat of length ``n_pixels*q + q*q`` (see
    :func:`~jaxlearn.structured.chain_features` for the layout)."""

    w: Array


def structured_svm(lam: ArrayLike, steps: int, num_labels: int, *, transitions: bool = True) -> BatchLearner:
    r"""Structured-output SVM for letter sequences by SGD (UML sections 15.5, 17.2.5, 17.3).

    Minimises, in expectation, the regularised generalised-hinge objective over words
    :math:`(x_i, y_i)` with the OCR map :math:`\Psi` and the normalised Hamming loss :math:`\Delta`,

    .. math::
        f(w) = \frac\lambda2\|w\|^2 + \frac1m\sum_{i=1}^m
        \max_{y'}\big(\Delta(y', y_i) + \langle w, \Psi(x_i, y') - \Psi(x_i, y_i)\rangle\big),

    by the :math:`\theta`/:math:`w` SGD of UML section 15.5 (the rule of
    :func:`jaxlearn.linear.soft_svm`), with the sub-gradient :math:`v_t = \Psi(x, \hat y) - \Psi(x, y)` of
    UML section 17.2.5 and :math:`\hat y` from :func:`~jaxlearn.structured.loss_augmented_viterbi`:

    .. math::
        \theta^{(1)} = 0;\quad t = 1..T:\ w^{(t)} = \frac{\theta^{(t)}}{\lambda t},\ i \sim U[m],\
        \theta^{(t+1)} = \theta^{(t)} - (\Psi(x_i, \hat y) - \Psi(x_i, y_i));\quad
        \bar w = \frac1T\sum_{t=1}^T w^{(t)}.

    (:math:`\hat y = y_i` gives :math:`v_t = 0`: a word decoded with margin leaves :math:`\theta` alone.)
    ``predict`` decodes with :func:`~jaxlearn.structured.viterbi`. With ``transitions=False`` the bigram
    block is held at 0: the model is then a per-letter multiclass SVM (each letter decoded
    independently), the baseline that shows what the transition features buy.

    Unequal lengths: pad the words to a common ``r`` and pass ``mask`` (``(m, r)`` booleans, ``True`` on
    each word's letters, a prefix of at least one letter) to ``fit`` and ``predict``; a word of length
    :math:`\ell` then counts exactly as the length-:math:`\ell` word (features, :math:`1/\ell`, Hamming
    loss; see :mod:`jaxlearn.structured._chain`). Predicted labels are ``-1`` on the padding.

    Args:
      lam: :math:`\lambda > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      steps: the number of SGD rounds :math:`T` (static).
      num_labels: :math:`q`, labels are ``0..q-1`` (static).
      transitions: learn the letter-bigram block (static; ``False`` for the independent baseline).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, Y, mask=None) -> StructuredSVMParams`` with
      ``X`` of shape ``(m, n_pixels, r)`` (each word as in the book) and ``Y`` ``(m, r)`` int labels;
      ``predict(params, X, mask=None)`` the Viterbi labels ``(m, r)``; ``decision_function(params, X,
      mask=None)`` the value :math:`\max_y\langle\bar w, \Psi(x, y)\rangle` of each word ``(m,)``.

    Raises:
      ValueError: on a bad ``steps``/``num_labels`` or a concrete ``lam <= 0``; ``fit`` on words of
        unequal length without a mask (a ragged list), labels outside ``0..q-1``, NaN/inf, a mask that
        is not a non-empty prefix, or mismatched shapes.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets
      >>> X, Y = datasets.ocr_words(jax.random.PRNGKey(0), 50, 4, num_letters=3)
      >>> learner = structured_svm(0.01, 500, 3)
      >>> params = learner.fit(jax.random.PRNGKey(1), X, Y)
      >>> learner.predict(params, X).shape
      (50, 4)

    References:
      UML section 15.5 (SGD for Soft-SVM), section 17.2.5 (SGD for multiclass learning), section 17.3
      and Exercise 17.3 (structured output, loss-augmented Viterbi); SPEC 9.7, 11.5, 12.
    """
    steps = check_positive_int("steps", steps)
    num_labels = check_positive_int("num_labels", num_labels)
    check_positive("lam", lam)

    def fit(key, X, Y, mask=None):
        X, Y, mask = check_sequences(X, Y, num_labels, mask)
        idx = sample_indices(key, steps, X.shape[0])
        return _fit(idx, X, Y, mask, lam, num_labels=num_labels, transitions=transitions)

    def predict(params, X, mask=None):
        X, _, mask = check_sequences(X, None, num_labels, mask)
        return _decode(params.w, X, mask, num_labels=num_labels)[0]

    def decision_function(params, X, mask=None):
        X, _, mask = check_sequences(X, None, num_labels, mask)
        return _decode(params.w, X, mask, num_labels=num_labels)[1]

    return BatchLearner(fit, predict, decision_function)


def _ragged(name: str, value) -> Optional[list]:
    """The shapes of a Python list/tuple of arrays when they differ, else ``None``."""
    if not isinstance(value, (list, tuple)):
        return None
    shapes = [np.shape(v) for v in value]
    return shapes if len(set(shapes)) > 1 else None


def check_sequences(X, Y, num_labels: int, mask):
    """The input checks of the sequence learners; returns ``(X, Y, mask)`` as arrays (mask bool).

    ``X`` of shape (m, n_pixels, r), ``Y`` of shape (m, r) in ``0..q-1`` (``-1`` allowed on padding),
    ``mask`` (m, r) prefix masks. Value checks run only on concrete inputs.
    """
    for name, value in (("X", X), ("Y", Y)):
        shapes = _ragged(name, value)
        if shapes is not None:
            raise ValueError(
                f"expected `{name}` holding sequences of equal length, got shapes {shapes[:5]}"
                f"{' ...' if len(shapes) > 5 else ''}; pad them to a common length and pass `mask` "
                "(True on each sequence's letters)"
            )
    X = jnp.asarray(X)
    if X.ndim != 3:
        raise ValueError(f"expected `X` of shape (m, n_pixels, r), got {X.shape}")
    m, _, r = X.shape
    if m == 0 or r == 0:
        raise ValueError(f"expected a non-empty sample of non-empty words, got `X` of shape {X.shape}")
    X = X.astype(float_dtype(X))
    check_finite("X", X)
    if mask is None:
        mask = jnp.ones((m, r), bool)
    else:
        if jnp.shape(mask) != (m, r):
            raise ValueError(f"expected `mask` of shape ({m}, {r}), got {jnp.shape(mask)}")
        mask = jnp.asarray(mask).astype(bool)
        if is_concrete(mask):
            mk = np.asarray(mask)
            if not mk[:, 0].all() or (mk[:, 1:] & ~mk[:, :-1]).any():
                raise ValueError(
                    "expected `mask` rows that are prefixes with at least one True (a word's letters "
                    "first, then the padding)"
                )
    if Y is None:
        return X, None, mask
    Y = jnp.asarray(Y)
    if Y.shape != (m, r):
        raise ValueError(f"expected `Y` of shape ({m}, {r}) (one label per letter of `X`), got {Y.shape}")
    if jnp.issubdtype(Y.dtype, jnp.floating):
        check_finite("Y", Y)
    if is_concrete(Y, mask):
        found = np.asarray(Y)[np.asarray(mask)]
        bad = found[(found < 0) | (found > num_labels - 1) | (found != np.round(found))]
        if bad.size:
            raise ValueError(
                f"expected `Y` with labels in 0..{num_labels - 1}, found {np.unique(bad)[:5].tolist()}"
                + ("; pass `mask` to mark padding" if (bad == PAD).any() else "")
            )
    return X, Y.astype(jnp.int32), mask


@functools.partial(jax.jit, static_argnames=("num_labels", "transitions"))
def _fit(idx, X, Y, mask, lam, *, num_labels, transitions):
    dtype, steps = X.dtype, idx.shape[0]
    size = feature_size(X.shape[1], num_labels)
    lam = jnp.asarray(lam).astype(dtype)
    scales = 1 / (lam * jnp.arange(1, steps + 1, dtype=jnp.int32).astype(dtype))  # w_t = theta_t / (lam t)
    learn = jnp.arange(size) < (size if transitions else X.shape[1] * num_labels)

    def step(carry, it):
        theta, total = carry
        i, scale = it
        w = theta * scale
        x, y, mk = X[i], Y[i], mask[i]
        y_hat = loss_augmented_viterbi(w, x, y, num_labels, mask=mk)
        v = chain_features(x, y_hat, num_labels, mask=mk) - chain_features(x, y, num_labels, mask=mk)
        theta = theta - jnp.where(learn, v, jnp.zeros_like(v))
        return (theta, total + w), None

    zeros = jnp.zeros(size, dtype)
    (_, total), _ = jax.lax.scan(step, (zeros, zeros), (idx, scales))
    return StructuredSVMParams(w=total / jnp.asarray(steps, dtype))


@functools.partial(jax.jit, static_argnames=("num_labels",))
def _decode(w, X, mask, *, num_labels):
    one = lambda x, mk: viterbi(w.astype(X.dtype), x, num_labels, mask=mk, return_value=True)
    return jax.vmap(one)(X, mask)
