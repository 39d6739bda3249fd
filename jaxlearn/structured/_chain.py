r"""Chain-structured output: the OCR features of UML section 17.3 and their dynamic program (SPEC 12).

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
"""

from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array

#: The label written at padded positions of a decoded sequence.
PAD = -1


def feature_size(n_pixels: int, num_labels: int) -> int:
    """The length :math:`nq + q^2` of :math:`\\Psi` and of ``w``."""
    return n_pixels * num_labels + num_labels * num_labels


def split_weights(w: ArrayLike, n_pixels: int, num_labels: int) -> tuple[Array, Array]:
    """``w`` as :math:`(W_1, W_2)` of shapes ``(n, q)`` and ``(q, q)`` (``W2[i, j]``: ``i`` follows ``j``)."""
    w = jnp.asarray(w)
    size = feature_size(n_pixels, num_labels)
    if w.shape != (size,):
        raise ValueError(
            f"expected `w` of shape ({size},) = n_pixels*q + q*q for n_pixels={n_pixels}, "
            f"num_labels={num_labels}, got {w.shape}"
        )
    cut = n_pixels * num_labels
    return w[:cut].reshape(n_pixels, num_labels), w[cut:].reshape(num_labels, num_labels)


def _check_word(x, y, mask) -> tuple[Array, Array]:
    """Shape checks (trace time); returns ``x`` as an array and the mask as a float 0/1 vector."""
    x = jnp.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"expected `x` of shape (n_pixels, r), got {x.shape}")
    r = x.shape[1]
    if y is not None and jnp.shape(y) != (r,):
        raise ValueError(f"expected `y` of shape ({r},) (one label per column of `x`), got {jnp.shape(y)}")
    if mask is None:
        return x, jnp.ones(r, bool)
    if jnp.shape(mask) != (r,):
        raise ValueError(f"expected `mask` of shape ({r},), got {jnp.shape(mask)}")
    return x, jnp.asarray(mask).astype(bool)


def _float(x: Array):
    return x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.result_type(float)


def chain_features(x: ArrayLike, y: ArrayLike, num_labels: int, *, mask: Optional[ArrayLike] = None) -> Array:
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
      UML section 17.3 (OCR example); SPEC 12.1.
    """
    x, valid = _check_word(x, y, mask)
    dtype = _float(x)
    x = x.astype(dtype)
    onehot = jax.nn.one_hot(jnp.where(valid, y, PAD), num_labels, dtype=dtype)  # (r, q); PAD -> zeros
    length = jnp.maximum(jnp.sum(valid), 1).astype(dtype)
    emission = x @ onehot  # (n, q): sum_t x[i, t] 1[y_t = j]
    transition = onehot[1:].T @ onehot[:-1]  # (q, q): [i, j] counts "i follows j"
    return jnp.concatenate([emission.ravel(), transition.ravel()]) / length


def sequence_score(
    w: ArrayLike, x: ArrayLike, y: ArrayLike, num_labels: int, *, mask: Optional[ArrayLike] = None
) -> Array:
    r""":math:`\langle w, \Psi(x, y)\rangle = \frac1r(\sum_t e[y_t, t] + \sum_{t\ge2}W_2[y_t, y_{t-1}])`,
    the score decomposed over positions (SPEC 12.1), without building :math:`\Psi`."""
    x, valid = _check_word(x, y, mask)
    dtype = _float(x)
    W1, W2 = split_weights(jnp.asarray(w).astype(dtype), x.shape[0], num_labels)
    y = jnp.clip(jnp.asarray(y), 0, num_labels - 1)
    emissions = (W1.T @ x.astype(dtype))[y, jnp.arange(x.shape[1])]
    transitions = W2[y[1:], y[:-1]]
    v = valid.astype(dtype)
    total = jnp.sum(emissions * v) + jnp.sum(transitions * v[1:])
    return total / jnp.maximum(jnp.sum(v), 1)


def hamming_loss(
    y_pred: ArrayLike, y_true: ArrayLike, *, mask: Optional[ArrayLike] = None, dtype=None
) -> Array:
    r"""The normalised Hamming loss :math:`\Delta(y', y) = \frac1r\sum_{t=1}^r 1[y'_t \ne y_t]` (SPEC 12.1).

    Over the last axis; with ``mask``, over the masked-in positions (``r`` the word's length).
    """
    y_pred, y_true = jnp.asarray(y_pred), jnp.asarray(y_true)
    dtype = dtype or jnp.result_type(float)
    valid = jnp.ones(y_true.shape, bool) if mask is None else jnp.asarray(mask).astype(bool)
    wrong = ((y_pred.astype(y_true.dtype) != y_true) & valid).astype(dtype)
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
      UML section 17.3, (17.4)-(17.5); SPEC 12.2.
    """
    x, valid = _check_word(x, None, mask)
    dtype = _float(x)
    W1, W2 = split_weights(jnp.asarray(w).astype(dtype), x.shape[0], num_labels)
    bonus = jnp.zeros((num_labels, x.shape[1]), dtype)
    labels, best = _dynamic_program(W1, W2, x.astype(dtype), bonus, valid)
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
    :math:`s` at position :math:`\tau`; both terms then carry the same :math:`1/r` (SPEC 12.3). This is
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
      UML section 17.3 and Exercise 17.3; SPEC 12.3.
    """
    x, valid = _check_word(x, y, mask)
    dtype = _float(x)
    W1, W2 = split_weights(jnp.asarray(w).astype(dtype), x.shape[0], num_labels)
    labels = jnp.arange(num_labels, dtype=jnp.int32)[:, None]
    bonus = ((labels != jnp.asarray(y).astype(jnp.int32)[None, :]) & valid[None, :]).astype(dtype)
    y_hat, best = _dynamic_program(W1, W2, x.astype(dtype), bonus, valid)
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
