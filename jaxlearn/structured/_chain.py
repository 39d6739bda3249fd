r"""Chain-structured output: the OCR features of UML section 17.3 and their dynamic program (17.4)-(17.5).

A word is ``x`` of shape ``(n, r)`` (column ``t`` the ``n`` pixels of letter ``t``, as in the book) with
labels ``y`` in :math:`[q]^r` (here ``0..q-1``). The feature map :math:`\Psi(x, y) \in \mathbb R^{nq + q^2}`
is one flat vector, the pixel-per-letter block then the letter-bigram block, both carrying the
book's :math:`1/r`:

.. math::
    \Psi_{i,j,1}(x, y) = \frac1r\sum_{t=1}^r x_{i,t}\,1[y_t = j], \qquad
    \Psi_{i,j,2}(x, y) = \frac1r\sum_{t=2}^r 1[y_t = i]\,1[y_{t-1} = j].

With ``w`` split as :math:`W_1 \in \mathbb R^{n\times q}` (row-major, the first ``n*q`` entries) and
:math:`W_2 \in \mathbb R^{q\times q}` (:math:`W_2[i, j]`: letter ``i`` follows letter ``j``),
:math:`\langle w, \Psi(x, y)\rangle = \frac1r(\sum_t e[y_t, t] + \sum_{t\ge2} W_2[y_t, y_{t-1}])` with the
emission scores :math:`e = W_1^\top x`. The :math:`1/r` changes no argmax, so :func:`viterbi` runs the
dynamic program (17.5) on the unscaled scores and rescales the value.

**Masks (sequences of unequal length).** Words of different lengths are padded to a common ``r`` and
passed with a boolean ``mask`` of shape ``(r,)``, ``True`` on the letters of the word: a prefix
(``mask[t]`` implies ``mask[t-1]``), at least one letter. A word of length :math:`\ell` is then exactly
the length-:math:`\ell` word of the book: :math:`\Psi` sums over its :math:`\ell` letters and
:math:`\ell-1` bigrams and divides by :math:`\ell`; the dynamic program carries its scores unchanged
through the padding, and decoded labels are ``-1`` there (``-1`` is also accepted, and ignored, as a
padding label in ``y``).

Every function checks shapes (also under ``jit``/``vmap``) and, on concrete inputs, that ``x`` and ``w``
are finite, labels are integers in ``0..q-1`` and masks are prefixes; a bad input is a ``ValueError``.
"""

from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_finite, is_concrete
from jaxlearn._shared import float_dtype
from jaxlearn.core import POSITIVE_INT

Array = jax.Array

#: The label written at padded positions of a decoded sequence.
PAD = -1


def feature_size(n_pixels: int, num_labels: int) -> int:
    """The length :math:`nq + q^2` of :math:`\\Psi` and of ``w``."""
    return n_pixels * num_labels + num_labels * num_labels


def split_weights(w: ArrayLike, n_pixels: int, num_labels: int) -> tuple[Array, Array]:
    """``w`` as :math:`(W_1, W_2)` of shapes ``(n, q)`` and ``(q, q)`` (``W2[i, j]``: ``i`` follows ``j``)."""
    POSITIVE_INT.check("n_pixels", n_pixels)
    POSITIVE_INT.check("num_labels", num_labels)
    w = jnp.asarray(w)
    size = feature_size(n_pixels, num_labels)
    if w.shape != (size,):
        raise ValueError(
            f"expected `w` of shape ({size},) = n_pixels*q + q*q for n_pixels={n_pixels}, "
            f"num_labels={num_labels}, got {w.shape}"
        )
    check_finite("w", w)
    cut = n_pixels * num_labels
    return w[:cut].reshape(n_pixels, num_labels), w[cut:].reshape(num_labels, num_labels)


def _check_mask(name: str, mask) -> None:
    """Concrete ``mask`` rows: 0/1 values, a prefix of ``True`` with at least one ``True``."""
    if not is_concrete(mask):
        return
    mk = np.asarray(mask)
    if mk.dtype != np.bool_ and not np.isin(mk, (0, 1)).all():
        raise ValueError(
            f"expected `{name}` of booleans (or 0/1), found {np.unique(mk)[:5].tolist()}"
        )
    mk = mk.astype(bool)
    if not mk[..., 0].all() or (mk[..., 1:] & ~mk[..., :-1]).any():
        raise ValueError(
            f"expected `{name}` rows that are prefixes with at least one True (a word's letters first, "
            "then the padding)"
        )


def _check_labels(y, valid, num_labels: int) -> None:
    """Concrete ``y``: integer labels in ``0..q-1`` on the word's letters (``-1`` allowed on padding)."""
    if not is_concrete(y, valid):
        return
    values = np.asarray(y)
    if values.dtype == np.bool_:
        values = values.astype(np.int32)  # {False, True} are the labels {0, 1}
    if not np.issubdtype(values.dtype, np.number):
        raise ValueError(
            f"expected `y` with integer labels in 0..{num_labels - 1}, got dtype {values.dtype}"
        )
    with np.errstate(invalid="ignore"):
        found = values[np.asarray(valid)]
        bad = found[
            ~np.isfinite(found)
            | (found < 0)
            | (found > num_labels - 1)
            | (found != np.round(found))
        ]
    if bad.size:
        raise ValueError(
            f"expected `y` with labels in 0..{num_labels - 1} (num_labels={num_labels}), found "
            f"{np.unique(bad)[:5].tolist()}"
            + ("; pass `mask` to mark padding" if (bad == PAD).any() else "")
        )


def _check_word(x, y, mask, num_labels=None) -> tuple[Array, Array]:
    """Shapes (also at trace time), values when concrete: ``x`` finite, ``y`` labels in ``0..q-1``,
    ``mask`` a prefix. Returns ``x`` as a float array and the mask as booleans."""
    if num_labels is not None:
        POSITIVE_INT.check("num_labels", num_labels)
    x = jnp.asarray(x)
    if x.ndim != 2 or 0 in x.shape:
        raise ValueError(f"expected `x` of shape (n_pixels, r), both >= 1, got {x.shape}")
    r = x.shape[1]
    if y is not None and np.shape(y) != (r,):
        raise ValueError(
            f"expected `y` of shape ({r},) (one label per column of `x`), got {np.shape(y)}"
        )
    if mask is not None and np.shape(mask) != (r,):
        raise ValueError(f"expected `mask` of shape ({r},), got {np.shape(mask)}")
    check_finite("x", x)
    if mask is not None:
        _check_mask("mask", mask)
    valid = jnp.ones(r, bool) if mask is None else jnp.asarray(mask).astype(bool)
    if y is not None and num_labels is not None:
        _check_labels(y, valid, int(num_labels))
    return x.astype(float_dtype(x)), valid


def _as_labels(y) -> Array:
    return jnp.asarray(y).astype(jnp.int32)


def chain_features(
    x: ArrayLike, y: ArrayLike, num_labels: int, *, mask: Optional[ArrayLike] = None
) -> Array:
    r"""The OCR feature map :math:`\Psi(x, y)` of UML section 17.3, one flat vector of length :math:`nq+q^2`.

    .. math::
        \Psi_{i,j,1} = \frac1r\sum_{t=1}^r x_{i,t}1[y_t = j],\quad
        \Psi_{i,j,2} = \frac1r\sum_{t=2}^r 1[y_t = i]1[y_{t-1} = j]

    (pixel block flattened row-major as ``(n, q)``, then the bigram block as ``(q, q)``).

    Args:
      x: the word, shape ``(n_pixels, r)``: column ``t`` is letter ``t``.
      y: its labels, shape ``(r,)``, in ``0..q-1`` (``-1`` at padded positions).
      num_labels: :math:`q` (static).
      mask: optional ``(r,)`` booleans, ``True`` on the letters of the word (a prefix); ``r`` in the
        :math:`1/r` is then the word's length.

    Returns:
      :math:`\Psi(x, y)`, shape ``(n_pixels*q + q*q,)``, in ``x``'s floating dtype.

    Examples:
      >>> import jax.numpy as jnp
      >>> x = jnp.array([[1.0, 0.0], [0.0, 2.0]])  # 2 pixels, 2 letters
      >>> chain_features(x, jnp.array([0, 1]), 2).tolist()
      [0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.0]

    References:
      UML section 17.3 (OCR example).
    """
    x, valid = _check_word(x, y, mask, num_labels)
    dtype = x.dtype
    onehot = jax.nn.one_hot(
        jnp.where(valid, _as_labels(y), PAD), num_labels, dtype=dtype
    )  # (r, q); PAD -> zeros
    length = jnp.maximum(jnp.sum(valid), 1).astype(dtype)
    emission = x @ onehot  # (n, q): sum_t x[i, t] 1[y_t = j]
    transition = onehot[1:].T @ onehot[:-1]  # (q, q): [i, j] counts "i follows j"
    return jnp.concatenate([emission.ravel(), transition.ravel()]) / length


def sequence_score(
    w: ArrayLike, x: ArrayLike, y: ArrayLike, num_labels: int, *, mask: Optional[ArrayLike] = None
) -> Array:
    r""":math:`\langle w, \Psi(x, y)\rangle = \frac1r(\sum_t e[y_t, t] + \sum_{t\ge2}W_2[y_t, y_{t-1}])`,
    the score decomposed over positions (UML section 17.3), without building :math:`\Psi`."""
    x, valid = _check_word(x, y, mask, num_labels)
    dtype = x.dtype
    W1, W2 = split_weights(jnp.asarray(w).astype(dtype), x.shape[0], num_labels)
    y = jnp.clip(_as_labels(y), 0, num_labels - 1)
    emissions = (W1.T @ x)[y, jnp.arange(x.shape[1])]
    transitions = W2[y[1:], y[:-1]]
    v = valid.astype(dtype)
    total = jnp.sum(emissions * v) + jnp.sum(transitions * v[1:])
    return total / jnp.maximum(jnp.sum(v), 1)


def hamming_loss(
    y_pred: ArrayLike, y_true: ArrayLike, *, mask: Optional[ArrayLike] = None, dtype=None
) -> Array:
    r"""The Hamming loss :math:`\Delta(y', y) = \frac1r\sum_{t=1}^r 1[y'_t \ne y_t]` (UML section 17.3).

    Over the last axis (``r >= 1``; leading axes are batch axes and broadcast); with ``mask`` (booleans,
    prefixes with at least one ``True``, broadcasting to the labels), over the masked-in positions
    (``r`` the word's length). ``dtype``: the floating dtype of the result.
    """
    y_pred, y_true = jnp.asarray(y_pred), jnp.asarray(y_true)
    try:
        shape = jnp.broadcast_shapes(y_pred.shape, y_true.shape)
    except ValueError:
        shape = None
    r = y_true.shape[-1] if y_true.ndim else 0
    if shape is None or not (y_pred.ndim and r) or y_pred.shape[-1] != r:
        raise ValueError(
            f"expected `y_pred` and `y_true` of shapes (..., r) with the same r >= 1 (leading axes "
            f"broadcast), got {y_pred.shape} and {y_true.shape}"
        )
    if dtype is not None and not jnp.issubdtype(dtype, jnp.floating):
        raise TypeError(f"expected `dtype` a floating dtype, got {dtype!r}")
    check_finite("y_pred", y_pred)
    check_finite("y_true", y_true)
    dtype = dtype or jnp.result_type(float)
    if mask is None:
        valid = jnp.ones(shape, bool)
    else:
        mask_shape = np.shape(mask)
        try:
            fits = bool(mask_shape) and jnp.broadcast_shapes(mask_shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"expected `mask` of a shape broadcasting to {shape}, got {mask_shape}"
            )
        _check_mask("mask", mask)
        valid = jnp.asarray(mask).astype(bool)
    floats = [a.dtype for a in (y_pred, y_true) if jnp.issubdtype(a.dtype, jnp.floating)]
    common = (
        floats[0] if floats else jnp.int32
    )  # labels compared as floats when one is (0.5 is not 0)
    wrong = ((y_pred.astype(common) != y_true.astype(common)) & valid).astype(dtype)
    return jnp.sum(wrong, axis=-1) / jnp.maximum(jnp.sum(valid.astype(dtype), axis=-1), 1)


def _dynamic_program(W1, W2, x, bonus, valid):
    r"""Max-sum dynamic program (17.5) on unscaled scores plus a per-position ``bonus`` (q, r).

    Returns the maximising labels (PAD at masked positions) and the unscaled maximum.
    """
    q = W2.shape[0]
    scores = W1.T @ x + bonus  # (q, r): e[s, t] (+ delta(s, y_t))
    keep = jnp.arange(q)

    def forward(M, inputs):
        score_t, valid_t = inputs
        cand = M[None, :] + W2  # cand[s, s'] = M[s'] + W2[s, s']: s follows s'
        back = jnp.argmax(cand, axis=1)  # ties: the smallest previous label
        new = jnp.max(cand, axis=1) + score_t
        return jnp.where(valid_t, new, M), jnp.where(valid_t, back, keep)

    M, backs = jax.lax.scan(forward, scores[:, 0], (scores[:, 1:].T, valid[1:]))
    last = jnp.argmax(M)

    def backward(label, back_t):  # label at t -> label at t-1
        return back_t[label], label

    first, rest = jax.lax.scan(backward, last, backs, reverse=True)
    labels = jnp.concatenate([first[None], rest])
    return jnp.where(valid, labels, PAD).astype(jnp.int32), jnp.max(M)


def viterbi(
    w: ArrayLike,
    x: ArrayLike,
    num_labels: int,
    *,
    mask: Optional[ArrayLike] = None,
    return_value: bool = False,
):
    r"""The best labels :math:`h_w(x) = \arg\max_y \langle w, \Psi(x, y)\rangle` by dynamic programming.

    UML (17.4)-(17.5): :math:`M_{s,1} = e[s, 1]`,
    :math:`M_{s,\tau} = \max_{s'}(M_{s',\tau-1} + W_2[s, s']) + e[s, \tau]` as a ``lax.scan`` forward, the
    maximising :math:`s'` kept as back-pointers, then :math:`y_r = \arg\max_s M_{s,r}` and a reverse
    ``lax.scan`` :math:`y_{\tau-1} = I_{y_\tau,\tau}`. :math:`O(rq^2 + rqn)` instead of :math:`q^r`. Ties go
    to the smallest label (``jnp.argmax``).

    Args:
      w: flat weights, shape ``(n_pixels*q + q*q,)`` (see :func:`chain_features`).
      x: the word, shape ``(n_pixels, r)``.
      num_labels: :math:`q` (static).
      mask: optional ``(r,)`` prefix mask for padded words (decoded labels are ``-1`` on the padding).
      return_value: also return :math:`\max_y\langle w, \Psi(x, y)\rangle` (with the :math:`1/r`).

    Returns:
      The labels, shape ``(r,)`` int32; or ``(labels, value)`` with ``return_value=True``.

    Examples:
      >>> import jax.numpy as jnp
      >>> x = jnp.eye(2)[:, [0, 1, 1]]  # pixel t lights up for letter t: (2, 3)
      >>> w = jnp.concatenate([jnp.eye(2).ravel(), jnp.zeros(4)])  # W1 = I, W2 = 0
      >>> viterbi(w, x, 2).tolist()
      [0, 1, 1]

    References:
      UML section 17.3, (17.4)-(17.5).
    """
    x, valid = _check_word(x, None, mask, num_labels)
    dtype = x.dtype
    W1, W2 = split_weights(jnp.asarray(w).astype(dtype), x.shape[0], num_labels)
    bonus = jnp.zeros((num_labels, x.shape[1]), dtype)
    labels, best = _dynamic_program(W1, W2, x, bonus, valid)
    if not return_value:
        return labels
    return labels, best / jnp.maximum(jnp.sum(valid), 1).astype(dtype)


def loss_augmented_viterbi(
    w: ArrayLike,
    x: ArrayLike,
    y: ArrayLike,
    num_labels: int,
    *,
    mask: Optional[ArrayLike] = None,
    return_value: bool = False,
):
    r"""Loss-augmented inference :math:`\hat y = \arg\max_{y'} \Delta(y', y) + \langle w, \Psi(x, y')\rangle`.

    UML Exercise 17.3 with the normalised Hamming loss: :math:`\Delta` decomposes over positions, so the
    dynamic program of :func:`viterbi` adds :math:`1[s \ne y_\tau]` to the unscaled score of label
    :math:`s` at position :math:`\tau`; both terms then carry the same :math:`1/r`. This is
    the :math:`\hat y` of the structured SGD step (:func:`structured_svm`).

    Args:
      w: flat weights, shape ``(n_pixels*q + q*q,)``.
      x: the word, shape ``(n_pixels, r)``.
      y: its true labels, shape ``(r,)``.
      num_labels: :math:`q` (static).
      mask: optional ``(r,)`` prefix mask for padded words.
      return_value: also return :math:`\max_{y'}\Delta(y', y) + \langle w, \Psi(x, y')\rangle`.

    Returns:
      :math:`\hat y`, shape ``(r,)`` int32; or ``(y_hat, value)``.

    References:
      UML section 17.3 and Exercise 17.3.
    """
    x, valid = _check_word(x, y, mask, num_labels)
    dtype = x.dtype
    W1, W2 = split_weights(jnp.asarray(w).astype(dtype), x.shape[0], num_labels)
    labels = jnp.arange(num_labels, dtype=jnp.int32)[:, None]
    bonus = ((labels != _as_labels(y)[None, :]) & valid[None, :]).astype(dtype)
    y_hat, best = _dynamic_program(W1, W2, x, bonus, valid)
    if not return_value:
        return y_hat
    return y_hat, best / jnp.maximum(jnp.sum(valid), 1).astype(dtype)


def structured_hinge(
    w: ArrayLike, x: ArrayLike, y: ArrayLike, num_labels: int, *, mask: Optional[ArrayLike] = None
) -> Array:
    r"""The generalised hinge loss (17.3) of one word,
    :math:`\max_{y'}(\Delta(y', y) + \langle w, \Psi(x, y') - \Psi(x, y)\rangle) \ge \Delta(h_w(x), y)`."""
    _, value = loss_augmented_viterbi(w, x, y, num_labels, mask=mask, return_value=True)
    return value - sequence_score(w, x, y, num_labels, mask=mask)
