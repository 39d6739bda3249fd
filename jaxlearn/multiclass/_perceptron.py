r"""The multiclass batch Perceptron (UML section 17.8, Exercise 17.2, Theorem 17.5; SPEC 4.11)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn.core import BatchLearner, check_positive_int
from jaxlearn.multiclass._common import (
    all_features,
    argmax_label,
    as_feature_map,
    as_sample,
    check_multiclass_sample,
    check_num_classes,
)
from jaxlearn.multiclass._feature_maps import multivector
from jaxlearn.multiclass._svm import linear_scores

Array = jax.Array


class MulticlassPerceptronParams(NamedTuple):
    r"""``w``: the weights, flat (for the multivector map ``w.reshape(k, n)[y]`` is :math:`w_y`);
    ``num_updates``: updates made; ``num_epochs``: passes over the sample; ``converged``: the last pass
    made no update (every example has
    :math:`\langle w, \Psi(x_i, y_i)\rangle > \langle w, \Psi(x_i, y)\rangle` for all :math:`y \ne y_i`)."""

    w: Array
    num_updates: Array
    num_epochs: Array
    converged: Array


def multiclass_perceptron(
    num_classes: int, *, max_epochs: int = 1000, feature_map=multivector
) -> BatchLearner:
    r"""The multiclass batch Perceptron (UML Exercise 17.2).

    .. math::
        w^{(1)} = 0; \quad \text{while } \exists i, y \ne y_i:
        \langle w, \Psi(x_i, y_i)\rangle \le \langle w, \Psi(x_i, y)\rangle:\;
        w \leftarrow w + \Psi(x_i, y_i) - \Psi(x_i, y).

    Examples are visited in a cyclic scan (one ``lax.scan`` per pass inside a bounded
    ``lax.while_loop``); at a violated example the update uses the first :math:`y \ne y_i` of largest
    score (ties count as violations, SPEC 4.11, which makes the final argmax strict). The fit stops after
    the first pass without an update, or after ``max_epochs`` passes (``converged`` tells which).

    Theorem 17.5: if some :math:`w^*` has :math:`\langle w^*, \Psi(x_i, y_i)\rangle \ge
    \langle w^*, \Psi(x_i, y)\rangle + 1` for all :math:`i` and :math:`y \ne y_i`, and
    :math:`R = \max_{i, y}\|\Psi(x_i, y_i) - \Psi(x_i, y)\|`, it stops after at most
    :math:`(R\|w^*\|)^2` updates with :math:`y_i = \arg\max_y\langle w, \Psi(x_i, y)\rangle` for every
    :math:`i` (see :func:`jaxlearn.theory.multiclass_perceptron_bound`).

    Args:
      num_classes: :math:`k \ge 2` (static).
      max_epochs: the most passes over the sample (static).
      feature_map: ``psi(x, y, num_classes) -> (d,)``, the multivector map by default.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> MulticlassPerceptronParams`` (``key``
      unused: the scan is cyclic), ``predict`` the labels (int32), ``decision_function`` the scores
      ``(n, k)``.

    Examples:
      >>> import jax.numpy as jnp
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
      >>> learner = multiclass_perceptron(3)
      >>> params = learner.fit(None, X, jnp.array([0, 1, 2]))
      >>> learner.predict(params, X).tolist(), bool(params.converged), int(params.num_updates)
      ([0, 1, 2], True, 3)
    """
    k = check_num_classes(num_classes)
    max_epochs = check_positive_int("max_epochs", max_epochs)
    blocks = feature_map is multivector
    psi = as_feature_map(feature_map)

    def fit(key, X, y):
        del key  # deterministic: cyclic passes
        check_multiclass_sample(X, y, k)
        X, y = as_sample(X, y)
        return _fit(X, y, psi, num_classes=k, max_epochs=max_epochs)

    def decision_function(params, X):
        return linear_scores(params, X, psi, k, blocks)

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function)


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
        (w, new_updates), _ = jax.lax.scan(visit, (w, updates), jnp.arange(X.shape[0], dtype=jnp.int32))
        return w, new_updates, epochs + 1, new_updates == updates

    def keep_going(carry):
        return (~carry[3]) & (carry[2] < max_epochs)

    d = jax.eval_shape(lambda x: psi(x, 0, num_classes), X[0]).shape[0]
    zero = jnp.zeros([], jnp.int32)
    init = (jnp.zeros(d, dtype), zero, zero, jnp.array(False))
    w, updates, epochs, converged = jax.lax.while_loop(keep_going, one_pass, init)
    return MulticlassPerceptronParams(w, updates, epochs, converged)
