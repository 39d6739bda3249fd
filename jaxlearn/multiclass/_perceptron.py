r"""The multiclass batch Perceptron (UML section 17.8, Exercise 17.2, Theorem 17.5)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn._checks import check_multiclass_sample
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
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> MulticlassPerceptronParams`` (``key``
      unused), ``predict`` the labels (int32), ``decision_function`` the scores ``(n, k)``.

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

    def fit(key, X, y):
        del key  # deterministic: cyclic passes
        X, y = as_sample(X, y)
        return _fit(X, y, psi, num_classes=k, max_epochs=max_epochs)

    def decision_function(params, X):
        return linear_scores(params, X, psi, k, blocks)

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    check = functools.partial(check_multiclass_sample, num_classes=k)
    return BatchLearner(fit, predict, decision_function, check)


@functools.partial(jax.jit, static_argnames=("num_classes", "max_epochs"))
def _fit(X, y, psi, *, num_classes, max_epochs):
    dtype = X.dtype
    labels = jnp.arange(num_classes, dtype=jnp.int32)

    def visit(carry, i):
        w, updates = carry
        features = all_features(psi, X[i], num_classes).astype(dtype)
        scores = features @ w
        label = y[i]
        others = jnp.where(labels == label, -jnp.inf, scores)
        y_hat = jnp.argmax(others)
        violated = others[y_hat] >= scores[label]
        w = w + jnp.where(violated, features[label] - features[y_hat], jnp.zeros_like(w))
        return (w, updates + violated.astype(jnp.int32)), None

    def one_pass(carry):
        w, updates, epochs, _ = carry
        (w, new_updates), _ = jax.lax.scan(
            visit, (w, updates), jnp.arange(X.shape[0], dtype=jnp.int32)
        )
        return w, new_updates, epochs + 1, new_updates == updates

    def keep_going(carry):
        return (~carry[3]) & (carry[2] < max_epochs)

    d = jax.eval_shape(lambda x: psi(x, 0, num_classes), X[0]).shape[0]
    zero = jnp.zeros([], jnp.int32)
    init = (jnp.zeros(d, dtype), zero, zero, jnp.array(False))
    w, updates, epochs, converged = jax.lax.while_loop(keep_going, one_pass, init)
    return MulticlassPerceptronParams(w, updates, epochs, converged)
