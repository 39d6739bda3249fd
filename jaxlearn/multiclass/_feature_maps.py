r"""Class-sensitive feature maps :math:`\Psi(x, y)` (UML section 17.2.1).

A feature map is ``psi(x, y, num_classes) -> (d,)`` on one example ``x`` and one label ``y`` in
``0..k-1``; a linear multiclass predictor is :math:`h_w(x) = \arg\max_y\langle w, \Psi(x, y)\rangle`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jax.typing import ArrayLike

from jaxlearn._checks import check_class_labels, check_finite, check_ndim, check_width, is_concrete
from jaxlearn._shared import float_dtype
from jaxlearn.core import NON_NEGATIVE, loadable
from jaxlearn.multiclass._common import NUM_CLASSES, as_array

Array = jax.Array

_DF_MODES = ("occurrences", "documents")


@loadable
def multivector(x: ArrayLike, y: ArrayLike, num_classes: int) -> Array:
    r"""The multivector construction (UML (17.2); Crammer & Singer 2001).

    .. math:: \Psi(x, y) = [\,0_{yn},\ x_1, \dots, x_n,\ 0_{(k-1-y)n}\,] \in \mathbb R^{nk}

    (labels :math:`0..k-1`), so that with :math:`w = [w_0; \dots; w_{k-1}]`,
    :math:`\langle w, \Psi(x, y)\rangle = \langle w_y, x\rangle` and
    :math:`h_w(x) = \arg\max_y \langle w_y, x\rangle`.

    Args:
      x: one example, shape ``(n,)``.
      y: its label in ``0..num_classes-1`` (an int; traced is fine).
      num_classes: :math:`k \ge 2` (static).

    Returns:
      :math:`\Psi(x, y)`, shape ``(n * num_classes,)``, in ``x``'s floating dtype.

    Examples:
      >>> import jax.numpy as jnp
      >>> multivector(jnp.array([1.0, 2.0]), 1, 3).tolist()
      [0.0, 0.0, 1.0, 2.0, 0.0, 0.0]
    """
    NUM_CLASSES.check("num_classes", num_classes)
    x = jnp.asarray(x)
    check_ndim("x", x, 1, "(n,)")
    y = as_array(y)
    check_ndim("y", y, 0, "() (one label)")
    check_finite("x", x)
    check_class_labels("y", y, int(num_classes))
    x = x.astype(float_dtype(x))
    onehot = jax.nn.one_hot(y, int(num_classes), dtype=x.dtype)
    return (onehot[:, None] * x[None, :]).reshape(-1)


@loadable
def _tfidf_map(log_idf: Array, x: ArrayLike, y: ArrayLike, num_classes=None) -> Array:
    x = jnp.asarray(x)
    check_ndim("x", x, 1, "(d,) (a count vector)")
    check_width("x", x, log_idf.shape[-1])
    y = as_array(y)
    check_ndim("y", y, 0, "() (one label)")
    check_finite("x", x)
    check_class_labels("y", y, log_idf.shape[0])
    return x.astype(log_idf.dtype) * log_idf[y]


def tfidf(
    counts: ArrayLike,
    labels: ArrayLike,
    num_classes: int,
    *,
    smoothing: float = 1.0,
    df: str = "occurrences",
) -> Partial:
    r"""The class-sensitive TF-IDF feature map of UML section 17.2.1, fitted on a training corpus.

    .. math:: \Psi_j(x, y) = \mathrm{TF}(j, x)\, \log\frac{m}{\mathrm{DF}(j, y) + s}

    with :math:`\mathrm{TF}(j, x)` the count of word :math:`j` in document :math:`x` (count vector ``(d,)``),
    :math:`m` the number of training documents, :math:`\mathrm{DF}(j, y)` the occurrences of :math:`j` in the
    training documents *not* about topic :math:`y`. Words common to all topics get weights near or below 0.

    Args:
      counts, labels: the training term counts ``(m, d)``, entries >= 0; their topics ``(m,)`` in ``0..k-1``.
      num_classes: the number of topics :math:`k`.
      smoothing: :math:`s \ge 0` (default 1); ``0``, the book's formula, raises ``ValueError`` if a DF is 0.
      df: ``"occurrences"`` (default, the book's wording) or ``"documents"`` (documents containing :math:`j`).

    Returns:
      ``psi(x, y, num_classes=None) -> (d,)``, a ``jax.tree_util.Partial`` holding the ``(k, d)`` table
      :math:`\log(m/(\mathrm{DF} + s))`, the ``feature_map=`` of :func:`~jaxlearn.multiclass.multiclass_svm`.

    Examples:
      >>> import jax.numpy as jnp
      >>> counts = jnp.array([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
      >>> psi = tfidf(counts, jnp.array([0, 1, 1]), 2)
      >>> [round(v, 4) for v in psi(jnp.array([1.0, 3.0]), 0).tolist()]  # DF(., 0) = (1, 2)
      [0.4055, 0.0]

    References:
      UML section 17.2.1.
    """
    if df not in _DF_MODES:
        raise ValueError(f"expected `df` in {_DF_MODES}, got {df!r}")
    NUM_CLASSES.check("num_classes", num_classes)
    NON_NEGATIVE.check("smoothing", smoothing)
    k = int(num_classes)
    counts, labels = as_array(counts), as_array(labels)
    check_ndim("counts", counts, 2, "(m, d)")
    check_ndim("labels", labels, 1, "(m,)")
    if np.shape(counts)[0] != np.shape(labels)[0]:
        raise ValueError(
            f"expected `counts` and `labels` with the same number of documents, got "
            f"{np.shape(counts)[0]} and {np.shape(labels)[0]}"
        )
    if np.shape(counts)[0] == 0:
        raise ValueError("expected a non-empty corpus, got `counts` of shape (0, d)")
    check_finite("counts", counts)
    check_class_labels("labels", labels, k)
    if is_concrete(counts) and np.any(np.asarray(counts) < 0):
        raise ValueError("expected `counts` >= 0 (word counts)")
    counts = jnp.asarray(counts)
    counts = counts.astype(float_dtype(counts))
    labels = jnp.asarray(labels).astype(jnp.int32)
    occurrences = counts if df == "occurrences" else (counts > 0).astype(counts.dtype)
    per_topic = jax.ops.segment_sum(occurrences, labels, num_segments=k)  # (k, d)
    outside = jnp.sum(per_topic, axis=0)[None, :] - per_topic  # DF(j, y): documents not about y
    shifted = outside + jnp.asarray(smoothing).astype(counts.dtype)
    if is_concrete(shifted) and np.any(np.asarray(shifted) <= 0):
        raise ValueError(
            "expected DF(j, y) + smoothing > 0 for every word and topic, found a word that never appears "
            "outside a topic: log(m / 0) is infinite; use smoothing > 0"
        )
    m = jnp.asarray(counts.shape[0], counts.dtype)
    return Partial(_tfidf_map, jnp.log(m / shifted))
