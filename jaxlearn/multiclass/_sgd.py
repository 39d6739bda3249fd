r"""SGD for multiclass learning: a fixed step size, no regulariser, the average iterate (UML section 17.2.5,
Corollary 17.2).

One ``lax.scan`` over an index sequence drawn up front from the key; ``eta`` and the cost matrix ``delta``
are traced, so ``jax.vmap`` over ``eta`` (or over keys) is one compiled program. The sub-gradient and the
loss-augmented argmax are :func:`~jaxlearn.multiclass.multiclass_svm`'s.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    BatchLearner,
    learner_factory,
    loadable,
)
from jaxlearn.multiclass._common import NUM_CLASSES
from jaxlearn.multiclass._feature_maps import multivector
from jaxlearn.multiclass._svm import hinge_subgradient, sgd_learner

Array = jax.Array


@loadable
class MulticlassSGDParams(NamedTuple):
    r"""``w``: the average iterate :math:`\bar w = \frac1T\sum_{t=1}^T w^{(t)}`, flat, shape ``(d,)`` (for
    the multivector map ``w.reshape(k, n)[y]`` is :math:`w_y`); ``b``: the per-class intercepts, shape
    ``(k,)`` (0 unless ``fit_intercept``)."""

    w: Array
    b: Array


@learner_factory(
    "eta",
    "delta",
    "feature_map",
    ranges={
        "eta": POSITIVE,
        "steps": POSITIVE_INT,
        "num_classes": NUM_CLASSES,
        "delta": NON_NEGATIVE,
    },
    functions=("feature_map",),
)
def multiclass_sgd(
    eta: ArrayLike,
    steps: int,
    num_classes: int,
    *,
    delta: Optional[ArrayLike] = None,
    feature_map=multivector,
    fit_intercept: bool = False,
) -> BatchLearner:
    r"""SGD for multiclass learning (UML section 17.2.5): the generalised hinge loss, a fixed step size.

    .. math::
        w^{(1)} = 0;\quad t = 1..T:\ (x, y) \sim S,\
        \hat y \in \arg\max_{y'} \Delta(y', y) + \langle w^{(t)}, \Psi(x, y') - \Psi(x, y)\rangle,\
        w^{(t+1)} = w^{(t)} - \eta\,(\Psi(x, \hat y) - \Psi(x, y));\quad \bar w = \frac1T\sum_{t=1}^T w^{(t)}

    No projection and no regulariser (compare :func:`~jaxlearn.multiclass.multiclass_svm`, the
    regularised problem). Corollary 17.2: if :math:`\|\Psi(x, y)\| \le \rho/2`,
    :math:`T \ge B^2\rho^2/\epsilon^2` (:func:`jaxlearn.theory.multiclass_sgd_steps`) and
    :math:`\eta = \sqrt{B^2/(\rho^2 T)}`, then
    :math:`E[L_D^\Delta(h_{\bar w})] \le \min_{\|u\| \le B} L_D^{g-hinge}(u) + \epsilon`.

    Args:
      eta: the step size :math:`\eta > 0` (traced: vmap sweeps a grid).
      steps: the SGD steps :math:`T` (static); each draws an example uniformly from the sample.
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (static).
      delta: the ``(k, k)`` cost matrix ``delta[y', y]`` (zero diagonal, >= 0; traced); ``None``: zero-one.
      feature_map: ``psi(x, y, num_classes) -> (d,)``: :func:`multivector` (default) or :func:`tfidf`'s.
      fit_intercept: per-class intercepts ``b``, learned as the weights of a constant feature 1 (the
        1 appended in UML Exercise 17.1; multivector only).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      MulticlassSGDParams`` (``sample_weight`` as :func:`~jaxlearn.multiclass.multiclass_svm`
      takes it); ``predict`` the argmax labels (int32, ties to the minimal index);
      ``decision_function`` the scores ``(n, k)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [1.5, 0.2]])
      >>> sgd = multiclass_sgd(0.1, 500, num_classes=3)
      >>> sgd.predict(sgd.fit(jax.random.PRNGKey(0), X, jnp.array([0, 1, 2, 0])), X).tolist()
      [0, 1, 2, 0]

    References:
      UML section 17.2.5, Corollary 17.2 (:func:`jaxlearn.theory.multiclass_sgd_steps`).
    """
    return sgd_learner(_fit, eta, steps, num_classes, delta, feature_map, fit_intercept)


@functools.partial(jax.jit, static_argnames=("num_classes", "blocks", "fit_intercept"))
def _fit(idx, X, y, eta, cost, psi, weight=None, count=None, *, num_classes, blocks, fit_intercept):
    if fit_intercept:
        X = jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)
    subgradient, zeros = hinge_subgradient(X, y, cost, psi, num_classes, blocks, weight)
    eta = jnp.asarray(eta).astype(X.dtype)

    def step(carry, i):  # adds w^(t) to the running sum, then takes the step to w^(t+1)
        w, total = carry
        return (w - eta * subgradient(w, i), total + w), None

    if count is None:
        (_, total), _ = jax.lax.scan(step, (zeros, zeros), idx)
    else:  # the first `count` steps: one program for every count
        total = jax.lax.fori_loop(0, count, lambda t, c: step(c, idx[t])[0], (zeros, zeros))[1]
    w_bar = total / jnp.asarray(idx.shape[0] if count is None else count, X.dtype)
    if fit_intercept:
        return MulticlassSGDParams(w=w_bar[:, :-1].reshape(-1), b=w_bar[:, -1])
    return MulticlassSGDParams(w=w_bar.reshape(-1), b=jnp.zeros(num_classes, X.dtype))
