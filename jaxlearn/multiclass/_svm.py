r"""Multiclass SVM by SGD with the loss-augmented argmax (UML section 17.2.5).

One ``lax.scan`` over an index sequence drawn up front from the key (as :func:`jaxlearn.linear.soft_svm`);
``lam`` and the cost matrix ``delta`` are traced arguments of one module-level compiled program, so
``jax.vmap`` over ``lam`` is one program and a second fit with inputs of the same shapes compiles nothing.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_class_labels, check_finite, check_multiclass_sample, check_ndim
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn._regularized import present_indices, regularized_sgd, sample_indices
from jaxlearn._shared import float_dtype
from jaxlearn.core import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    BatchLearner,
    learner_factory,
    loadable,
)
from jaxlearn.losses import check_cost_matrix, zero_one_cost
from jaxlearn.multiclass._common import (
    NUM_CLASSES,
    all_features,
    argmax_label,
    as_array,
    as_feature_map,
    as_sample,
    batch_X,
    width_error,
)
from jaxlearn.multiclass._feature_maps import multivector

Array = jax.Array


@loadable
class MulticlassSVMParams(NamedTuple):
    r"""``w``: the averaged weights :math:`\bar w`, flat, shape ``(d,)`` (for the multivector map
    :math:`d = nk` and ``w.reshape(k, n)[y]`` is :math:`w_y`); ``b``: the per-class intercepts, shape
    ``(k,)`` (0 unless ``fit_intercept``)."""

    w: Array
    b: Array


def loss_augmented_argmax(scores: Array, costs: Array, y: Array) -> Array:
    r""":math:`\hat y \in \arg\max_{y'} \Delta(y', y) + s_{y'} - s_y` (loss-augmented inference, UML 17.2.5).

    ``scores`` are :math:`s_{y'} = \langle w, \Psi(x, y')\rangle`, ``costs`` the column
    :math:`\Delta(\cdot, y)`. Ties among :math:`y' \ne y` go to the minimal index; :math:`\hat y = y`
    (a zero sub-gradient) unless some :math:`y' \ne y` makes the term strictly positive, the strict
    margin test of the binary hinge (:func:`jaxlearn.losses.hinge`).

    Args: ``scores`` and ``costs`` of shape ``(k,)`` (finite, ``costs >= 0``), ``y`` a label in ``0..k-1``.
    """
    scores, costs = jnp.asarray(scores), jnp.asarray(costs)
    check_ndim("scores", scores, 1, "(k,)")
    k = scores.shape[0]
    if k == 0:
        raise ValueError("expected `scores` of shape (k,) with k >= 1, got (0,)")
    if np.shape(costs) != (k,):
        raise ValueError(
            f"expected `costs` of shape ({k},) (the column Delta(., y)), got {np.shape(costs)}"
        )
    y = as_array(y)
    check_ndim("y", y, 0, "() (one label)")
    check_finite("scores", scores)
    NON_NEGATIVE.check("costs", costs)
    check_class_labels("y", y, k)
    dtype = float_dtype(scores)
    scores, costs, y = scores.astype(dtype), costs.astype(dtype), jnp.asarray(y).astype(jnp.int32)
    labels = jnp.arange(scores.shape[-1], dtype=jnp.int32)
    terms = jnp.where(labels == y, -jnp.inf, costs + scores - scores[y])
    best = jnp.argmax(terms).astype(jnp.int32)
    return jnp.where(terms[best] > 0, best, y)


@learner_factory(
    "lam",
    "delta",
    "feature_map",
    ranges={
        "lam": POSITIVE,
        "steps": POSITIVE_INT,
        "num_classes": NUM_CLASSES,
        "delta": NON_NEGATIVE,
    },
    functions=("feature_map",),
)
def multiclass_svm(
    lam: ArrayLike,
    steps: int,
    num_classes: int,
    *,
    delta: Optional[ArrayLike] = None,
    feature_map=multivector,
    fit_intercept: bool = False,
) -> BatchLearner:
    r"""Multiclass SVM by SGD with the loss-augmented argmax (UML section 17.2.5).

    .. math:: \min_w \frac\lambda2\|w\|^2 + \frac1m\sum_i \max_{y'}
        \big(\Delta(y', y_i) + \langle w, \Psi(x_i, y') - \Psi(x_i, y_i)\rangle\big)

    by ``regularized_sgd`` with the sub-gradient :math:`\Psi(x_i, \hat y) - \Psi(x_i,
    y_i)`, :math:`\hat y` from :func:`loss_augmented_argmax` (the book's :math:`\lambda` is half of this one).

    Args:
      lam, steps: :math:`\lambda > 0` (traced: vmap sweeps a grid); the SGD steps :math:`T` (static).
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (static).
      delta: the ``(k, k)`` cost matrix ``delta[y', y]`` (zero diagonal, >= 0; traced); ``None``: zero-one.
      feature_map: ``psi(x, y, num_classes) -> (d,)``: :func:`multivector` (default) or :func:`tfidf`'s.
      fit_intercept: per-class regularised intercepts ``b`` (a constant feature; multivector only).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) -> MulticlassSVMParams``;
      ``predict`` the argmax labels (int32, ties to the minimal index); ``decision_function`` the
      scores ``(n, k)``. With ``sample_weight`` (m,) >= 0, each step draws uniformly among the
      :math:`m_+` examples of positive weight and its sub-gradient is scaled by the example's
      weight; the fit runs :math:`\lfloor T m_+ / m \rfloor` of the :math:`T` steps (at least one),
      as many per example as on the :math:`m_+` examples alone, whose draws they are: examples of
      weight 0 appended to the sample (and ``steps`` grown by as many per example) change nothing.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [1.5, 0.2]])
      >>> svm = multiclass_svm(0.1, 500, num_classes=3)
      >>> svm.predict(svm.fit(jax.random.PRNGKey(0), X, jnp.array([0, 1, 2, 0])), X).tolist()
      [0, 1, 2, 0]

    References:
      UML sections 17.2.4-17.2.5, 15.5; Crammer & Singer (2001).
    """
    return sgd_learner(_fit, lam, steps, num_classes, delta, feature_map, fit_intercept)


def sgd_learner(
    program, step_size, steps, num_classes, delta, feature_map, fit_intercept
) -> BatchLearner:
    """The learner of a multiclass SGD (:func:`multiclass_svm`, ``multiclass_sgd``): ``fit`` draws the
    ``steps`` indices from the key and runs ``program(idx, X, y, step_size, cost, psi, weight=None,
    count=None, *, num_classes, blocks, fit_intercept)`` (with ``sample_weight``: the weights and
    the steps to run, from :func:`~jaxlearn._regularized.present_indices`); the scores are
    :func:`linear_scores`, the labels their argmax."""
    steps, k = int(steps), int(num_classes)
    if delta is not None:
        check_cost_matrix(delta, k)
    blocks = feature_map is multivector
    if fit_intercept and not blocks:
        raise ValueError(
            "expected `feature_map` the multivector map with `fit_intercept=True` (the intercept is the "
            "weight of a constant feature in each class's block), got another map"
        )
    psi = as_feature_map(feature_map)

    def fit(key, X, y, sample_weight=None):
        X, y = as_sample(X, y)
        cost = zero_one_cost(k, X.dtype) if delta is None else jnp.asarray(delta).astype(X.dtype)
        options = dict(num_classes=k, blocks=blocks, fit_intercept=fit_intercept)
        if sample_weight is None:
            idx = sample_indices(key, steps, X.shape[0])
            return program(idx, X, y, step_size, cost, psi, **options)
        weight = jnp.asarray(sample_weight).astype(X.dtype)
        idx, count = present_indices(key, steps, weight)
        return program(idx, X, y, step_size, cost, psi, weight, count, **options)

    def decision_function(params, X):
        return linear_scores(params, X, psi, k, blocks)

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    def check(X, y, sample_weight=None):
        check_multiclass_sample(X, y, k)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return BatchLearner(fit, predict, decision_function, check)


def linear_scores(params, X: ArrayLike, psi, num_classes: int, blocks: bool) -> Array:
    r"""The scores :math:`\langle w, \Psi(x_i, y)\rangle` (+ ``params.b[y]`` where the params carry it),
    shape ``(n, k)``."""
    w = params.w
    X = batch_X(X)
    if blocks:
        width = w.shape[-1] // num_classes
        if X.shape[1] != width:
            raise width_error(X, width)
        return _block_scores(params, X, num_classes)
    try:  # the map must take X's rows and give Psi of w's length
        row = jax.ShapeDtypeStruct(X.shape[1:], w.dtype)
        d = jax.eval_shape(lambda x: psi(x, 0, num_classes), row).shape
    except (TypeError, ValueError) as error:
        raise width_error(X, None, error) from None
    if d != w.shape:
        raise width_error(X, None, ValueError(f"Psi(x, y) of shape {d}, the params {w.shape}"))
    scores = jax.vmap(lambda x: all_features(psi, x, num_classes) @ w)(X.astype(w.dtype))
    return _plus_bias(params, scores)


@functools.partial(jax.jit, static_argnums=2)
def _block_scores(params, X, num_classes):
    """The multivector map's scores, ``X @ W.T`` (+ ``b``): one program for every learner of a shape."""
    w = params.w
    return _plus_bias(params, X.astype(w.dtype) @ w.reshape(num_classes, -1).T)


def _plus_bias(params, scores):
    b = getattr(params, "b", None)
    return scores if b is None else scores + b


def hinge_subgradient(
    X: Array, y: Array, cost: Array, psi, num_classes: int, blocks: bool, weight=None
):
    r"""The generalised hinge's sub-gradient on example ``i`` and the start :math:`w^{(1)} = 0`.

    Returns ``(subgradient, zeros)``: ``subgradient(w, i)`` is :math:`\Psi(x_i, \hat y) - \Psi(x_i, y_i)`
    with :math:`\hat y` from :func:`loss_augmented_argmax` (exactly 0 when :math:`\hat y = y_i`), times
    ``weight[i]`` where ``weight`` (m,) is given, shaped like ``zeros``: a ``(k, n)`` matrix for the
    multivector map (row ``y`` is :math:`w_y`), else ``(d,)``.
    """
    dtype = X.dtype
    if blocks:  # w as a (k, n) matrix: Psi(x, y) is x in row y

        def subgradient(W, i):
            x, label = X[i], y[i]
            y_hat = loss_augmented_argmax(W @ x, cost[:, label], label)
            move = jnp.where(y_hat != label, x, jnp.zeros_like(x))  # v = 0 exactly when y_hat = y
            move = move if weight is None else weight[i] * move
            return jnp.zeros_like(W).at[label].add(-move).at[y_hat].add(move)

        return subgradient, jnp.zeros((num_classes, X.shape[1]), dtype)

    def subgradient(w, i):
        x, label = X[i], y[i]
        features = all_features(psi, x, num_classes).astype(dtype)
        y_hat = loss_augmented_argmax(features @ w, cost[:, label], label)
        v = jnp.where(y_hat != label, features[y_hat] - features[label], jnp.zeros_like(w))
        return v if weight is None else weight[i] * v

    d = jax.eval_shape(lambda x: psi(x, 0, num_classes), X[0]).shape[0]
    return subgradient, jnp.zeros(d, dtype)


@functools.partial(jax.jit, static_argnames=("num_classes", "blocks", "fit_intercept"))
def _fit(idx, X, y, lam, cost, psi, weight=None, count=None, *, num_classes, blocks, fit_intercept):
    if fit_intercept:
        X = jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)
    subgradient, zeros = hinge_subgradient(X, y, cost, psi, num_classes, blocks, weight)
    w_bar = regularized_sgd(subgradient, idx, lam, zeros, count=count)
    if fit_intercept:
        return MulticlassSVMParams(w=w_bar[:, :-1].reshape(-1), b=w_bar[:, -1])
    return MulticlassSVMParams(w=w_bar.reshape(-1), b=jnp.zeros(num_classes, X.dtype))
