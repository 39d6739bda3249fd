r"""Structured-output SVM over chains by SGD (UML sections 17.2.5 and 17.3, Exercise 17.3).

The multiclass SVM of UML section 17.2.5 with the OCR feature map and the normalised Hamming loss of
section 17.3, solved by the book's SGD for regularised loss minimisation (the :math:`\theta`/:math:`w`
rule of UML section 15.5, ``regularized_sgd``), with
:func:`~jaxlearn.structured.loss_augmented_viterbi` as the loss-augmented argmax.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_finite, is_concrete
from jaxlearn._regularized import regularized_sgd, sample_indices
from jaxlearn._shared import float_dtype
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.structured._chain import (
    PAD,
    chain_features,
    feature_size,
    loss_augmented_viterbi,
    viterbi,
)

Array = jax.Array


@loadable
class StructuredSVMParams(NamedTuple):
    r"""``w``: the averaged weights :math:`\bar w`, flat of length ``n_pixels*q + q*q`` (see
    :func:`~jaxlearn.structured.chain_features` for the layout)."""

    w: Array


@learner_factory(
    "lam",
    aliases={"num_labels": "num_classes"},
    ranges={"lam": POSITIVE, "steps": POSITIVE_INT, "num_classes": POSITIVE_INT},
)
def structured_svm(
    lam: ArrayLike, steps: int, num_classes: int, *, transitions: bool = True
) -> BatchLearner:
    r"""Structured-output SVM for letter sequences by SGD (UML sections 15.5, 17.2.5, 17.3).

    .. math:: \min_w \frac\lambda2\|w\|^2 + \frac1m\sum_i
        \max_{y'}\big(\Delta(y', y_i) + \langle w, \Psi(x_i, y') - \Psi(x_i, y_i)\rangle\big)

    (OCR map :math:`\Psi`, normalised Hamming :math:`\Delta`) by ``regularized_sgd`` with
    :math:`\hat y` from :func:`~jaxlearn.structured.loss_augmented_viterbi`; pad unequal lengths (``mask``).

    Args:
      lam, steps: :math:`\lambda > 0` (traced: vmap sweeps a grid); the SGD rounds :math:`T` (static).
      num_classes: :math:`q`, labels ``0..q-1`` (static; alias ``num_labels``).
      transitions: learn the letter-bigram block (``False``: per-letter multiclass SVM baseline).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, Y, mask=None)``, ``X`` ``(m, n_pixels, r)``, ``Y``
      ``(m, r)``, ``mask`` ``(m, r)`` a ``True`` prefix; ``predict(params, X, mask=None)`` the Viterbi labels
      (``-1`` on padding); ``decision_function`` :math:`\max_y\langle\bar w, \Psi(x, y)\rangle` per word.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets
      >>> X, Y = datasets.ocr_words(jax.random.PRNGKey(0), 50, 4, num_letters=3)
      >>> learner = structured_svm(0.01, 500, num_classes=3)
      >>> learner.predict(learner.fit(jax.random.PRNGKey(1), X, Y), X).shape
      (50, 4)

    References:
      UML sections 15.5, 17.2.5, 17.3 and Exercise 17.3.
    """
    steps, q = int(steps), int(num_classes)

    # fit takes a mask, which BatchLearner.check (X, y) cannot see: fit checks its inputs itself
    def fit(key, X, Y, mask=None):
        X, Y, mask = check_sequences(X, Y, q, mask)
        idx = sample_indices(key, steps, X.shape[0])
        return _fit(idx, X, Y, mask, lam, num_labels=q, transitions=transitions)

    def predict(params, X, mask=None):
        X, _, mask = check_sequences(X, None, q, mask, w=params.w)
        return _decode(params.w, X, mask, num_labels=q)[0]

    def decision_function(params, X, mask=None):
        X, _, mask = check_sequences(X, None, q, mask, w=params.w)
        return _decode(params.w, X, mask, num_labels=q)[1]

    return BatchLearner(fit, predict, decision_function)


def _ragged(name: str, value) -> Optional[list]:
    """The shapes of a Python list/tuple of arrays when they differ, else ``None``."""
    if not isinstance(value, (list, tuple)):
        return None
    shapes = [np.shape(v) for v in value]
    return shapes if len(set(shapes)) > 1 else None


def check_sequences(X, Y, num_labels: int, mask, w=None):
    """The input checks of the sequence learners; returns ``(X, Y, mask)`` as arrays (mask bool).

    ``X`` of shape (m, n_pixels, r) (``n_pixels`` the one of the weights ``w`` when given), ``Y`` of
    shape (m, r) in ``0..q-1`` (``-1`` allowed on padding), ``mask`` (m, r) prefix masks. Value checks
    run only on concrete inputs.
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
    m, n_pixels, r = X.shape
    if m == 0 or r == 0:
        raise ValueError(
            f"expected a non-empty sample of non-empty words, got `X` of shape {X.shape}"
        )
    if w is not None and np.shape(w)[-1] != feature_size(n_pixels, num_labels):
        expected = (np.shape(w)[-1] - num_labels * num_labels) // num_labels
        raise ValueError(
            f"expected `X` of shape (m, {expected}, r) (the n_pixels of the params' `w`), got {X.shape}"
        )
    X = X.astype(float_dtype(X))
    check_finite("X", X)
    if mask is None:
        mask = jnp.ones((m, r), bool)
    else:
        if np.shape(mask) != (m, r):
            raise ValueError(f"expected `mask` of shape ({m}, {r}), got {np.shape(mask)}")
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
        raise ValueError(
            f"expected `Y` of shape ({m}, {r}) (one label per letter of `X`), got {Y.shape}"
        )
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
    size = feature_size(X.shape[1], num_labels)
    learn = jnp.arange(size) < (size if transitions else X.shape[1] * num_labels)

    def subgradient(w, i):  # Psi(x, y_hat) - Psi(x, y): 0 when the word is decoded with margin
        x, y, mk = X[i], Y[i], mask[i]
        y_hat = loss_augmented_viterbi(w, x, y, num_labels, mask=mk)
        v = chain_features(x, y_hat, num_labels, mask=mk) - chain_features(
            x, y, num_labels, mask=mk
        )
        return jnp.where(learn, v, jnp.zeros_like(v))

    return StructuredSVMParams(w=regularized_sgd(subgradient, idx, lam, jnp.zeros(size, X.dtype)))


@functools.partial(jax.jit, static_argnames=("num_labels",))
def _decode(w, X, mask, *, num_labels):
    one = lambda x, mk: viterbi(w.astype(X.dtype), x, num_labels, mask=mk, return_value=True)
    return jax.vmap(one)(X, mask)
