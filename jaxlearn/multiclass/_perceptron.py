r"""The multiclass batch Perceptron (UML section 17.8, Exercise 17.2, Theorem 17.5)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn._checks import check_multiclass_sample
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn.core import POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.multiclass._common import (
    NUM_CLASSES,
    all_features,
    argmax_label,
    as_feature_map,
    as_sample,
)
from jaxlearn.multiclass._feature_maps import multivector
from jaxlearn.multiclass._svm import linear_scores

Array = jax.Array


@loadable
class MulticlassPerceptronParams(NamedTuple):
    r"""``w``: the weights, flat (for the multivector map ``w.reshape(k, n)[y]`` is :math:`w_y`);
    ``num_updates``: updates made; ``num_epochs``: passes over the sample; ``converged``: the last pass
    made no update (every example has
    :math:`\langle w, \Psi(x_i, y_i)\rangle > \langle w, \Psi(x_i, y)\rangle` for all :math:`y \ne y_i`)."""

    w: Array
    num_updates: Array
    num_epochs: Array
    converged: Array


@learner_factory(
    "feature_map",
    ranges={"num_classes": NUM_CLASSES, "max_epochs": POSITIVE_INT},
    functions=("feature_map",),
)
def multiclass_perceptron(
    num_classes: int, *, max_epochs: int = 1000, feature_map=multivector
) -> BatchLearner:
    r"""The multiclass batch Perceptron (UML Exercise 17.2, Theorem 17.5).

    .. math::
        \text{while } \exists i, y \ne y_i:\ \langle w, \Psi(x_i, y_i)\rangle \le
        \langle w, \Psi(x_i, y)\rangle:\quad w \leftarrow w + \Psi(x_i, y_i) - \Psi(x_i, y)

    from :math:`w = 0`, in cyclic passes until one makes no update (``converged``) or ``max_epochs``;
    :math:`y` is the first other label of largest score (ties count as violations: the :math:`\le` of
    UML Exercise 17.2).

    Args:
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (static).
      max_epochs: the most passes over the sample (static).
      feature_map: ``psi(x, y, num_classes) -> (d,)``, the multivector map by default.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      MulticlassPerceptronParams`` (``key`` unused; ``sample_weight`` (n,) >= 0 scales each example's
      update, and an example of weight 0 takes no part: the book's Perceptron is all weights 1),
      ``predict`` the labels (int32), ``decision_function`` the scores ``(n, k)``.

    Examples:
      >>> import jax.numpy as jnp
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
      >>> learner = multiclass_perceptron(num_classes=3)
      >>> params = learner.fit(None, X, jnp.array([0, 1, 2]))
      >>> learner.predict(params, X).tolist(), bool(params.converged), int(params.num_updates)
      ([0, 1, 2], True, 3)

    References:
      UML section 17.8, Exercise 17.2, Theorem 17.5 (:func:`jaxlearn.theory.multiclass_perceptron_bound`).
    """
    k, max_epochs = int(num_classes), int(max_epochs)
    blocks = feature_map is multivector
    psi = as_feature_map(feature_map)

    def fit(key, X, y, sample_weight=None):
        del key  # deterministic: cyclic passes
        X, y = as_sample(X, y)
        weight = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else sample_weight
        weight = jnp.asarray(weight).astype(X.dtype)
        return _fit(X, y, weight, psi, num_classes=k, max_epochs=max_epochs, blocks=blocks)

    def decision_function(params, X):
        return linear_scores(params, X, psi, k, blocks)

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    def check(X, y, sample_weight=None):
        check_multiclass_sample(X, y, k)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return BatchLearner(fit, predict, decision_function, check)


#: The examples scored at once: a pass scores the next ``BLOCK`` examples with the current ``w`` and
#: jumps to the first violation among them (``w`` only changes there), so it runs one loop iteration per
#: update or per ``BLOCK`` examples without one, and visits the examples in the same order.
BLOCK = 64


@functools.partial(jax.jit, static_argnames=("num_classes", "max_epochs", "blocks"))
def _fit(X, y, weight, psi, *, num_classes, max_epochs, blocks):
    dtype = X.dtype
    n = X.shape[0]
    labels = jnp.arange(num_classes, dtype=jnp.int32)
    # BLOCK rows past the end, never violations, so that every block is a full slice
    X_padded = jnp.concatenate([X, jnp.zeros((BLOCK, *X.shape[1:]), X.dtype)])
    y_padded = jnp.concatenate([y, jnp.zeros(BLOCK, y.dtype)])
    weight_padded = jnp.concatenate([weight, jnp.zeros(BLOCK, weight.dtype)])

    def scores_of(w, rows):
        if blocks:  # the multivector map: <w, Psi(x, c)> = <w_c, x>
            return rows.astype(dtype) @ w.reshape(num_classes, -1).T
        return jax.vmap(lambda x: all_features(psi, x, num_classes).astype(dtype) @ w)(rows)

    def update(w, x, label, y_hat, s):
        if blocks:
            x = s * x.astype(dtype)
            return w.reshape(num_classes, -1).at[label].add(x).at[y_hat].add(-x).reshape(-1)
        return w + s * (psi(x, label, num_classes) - psi(x, y_hat, num_classes)).astype(dtype)

    def visit_block(carry):
        w, i, updates = carry
        rows = jax.lax.dynamic_slice_in_dim(X_padded, i, BLOCK)
        targets = jax.lax.dynamic_slice_in_dim(y_padded, i, BLOCK)
        weights = jax.lax.dynamic_slice_in_dim(weight_padded, i, BLOCK)
        scores = scores_of(w, rows)
        own = jnp.take_along_axis(scores, targets[:, None], axis=1)[:, 0]
        others = jnp.where(labels == targets[:, None], -jnp.inf, scores)
        y_hat = jnp.argmax(others, axis=1)
        violated = (jnp.max(others, axis=1) >= own) & (weights > 0)  # rows past n weigh 0
        found = jnp.any(violated)
        j = jnp.argmax(violated).astype(jnp.int32)  # the first violation of the block
        w = jnp.where(found, update(w, rows[j], targets[j], y_hat[j], weights[j]), w)
        return (
            w,
            jnp.where(found, i + j + 1, i + BLOCK).astype(jnp.int32),
            updates + found.astype(jnp.int32),
        )

    def one_pass(carry):
        w, updates, epochs, _ = carry
        start = (w, jnp.zeros([], jnp.int32), updates)
        w, _, new_updates = jax.lax.while_loop(lambda c: c[1] < n, visit_block, start)
        return w, new_updates, epochs + 1, new_updates == updates

    def keep_going(carry):
        return (~carry[3]) & (carry[2] < max_epochs)

    d = jax.eval_shape(lambda x: psi(x, 0, num_classes), X[0]).shape[0]
    zero = jnp.zeros([], jnp.int32)
    init = (jnp.zeros(d, dtype), zero, zero, jnp.array(False))
    w, updates, epochs, converged = jax.lax.while_loop(keep_going, one_pass, init)
    return MulticlassPerceptronParams(w, updates, epochs, converged)
