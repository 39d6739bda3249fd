"""The batch Perceptron (SS10 Algorithm 1) and its efficient non-separable version (SS10 Algorithm 3)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn import core, online
from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._shared import as_float
from jaxlearn.core import OPEN_UNIT, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.linear._common import cyclic_passes, linear_predict, linear_score

Array = jax.Array


@loadable
class BatchPerceptronParams(NamedTuple):
    """``w``: the weights; ``num_updates``: updates made; ``num_epochs``: passes over the sample;
    ``converged``: the last pass made no update (every example has :math:`y\\langle w, x\\rangle > 0`);
    ``update_counts``: the updates made on each example, so :math:`w = \\sum_i c_i y_i x_i`: the examples
    with :math:`c_i > 0` are the Perceptron's compression set (SS10 L4 Corollary 2)."""

    w: Array
    num_updates: Array
    num_epochs: Array
    converged: Array
    update_counts: Array


@loadable
class AugmentedPerceptronParams(NamedTuple):
    r"""``w``: the first :math:`d` coordinates of the augmented weights (the returned predictor);
    ``xi``: the :math:`m` slack coordinates (:math:`\xi_i \ne 0` only for examples that were updated);
    ``num_updates``, ``num_epochs``, ``converged`` as for :class:`BatchPerceptronParams`."""

    w: Array
    xi: Array
    num_updates: Array
    num_epochs: Array
    converged: Array


@learner_factory(ranges={"max_epochs": POSITIVE_INT, "block_size": POSITIVE_INT})
def batch_perceptron(max_epochs: int = 1000, *, block_size: int = 256) -> BatchLearner:
    r"""The batch Perceptron: cycle through the sample, updating on every mistake, until a pass makes none.

    .. math::
        w = 0; \quad \text{while } \exists i: y_i\langle w, x_i\rangle \le 0: \; w \leftarrow w + y_i x_i.

    Each pass is the online :func:`jaxlearn.online.perceptron` in its exact block mode. If
    :math:`\gamma(S) > 0` and :math:`\|x_i\| \le \rho`, at most :math:`(\rho/\gamma(S))^2` updates, then zero
    training error (Theorem 3; :func:`jaxlearn.theory.perceptron_mistake_bound`).

    Args:
      max_epochs: the most passes over the sample (static; ``params.converged`` tells if it stopped earlier).
      block_size: examples scored per matrix-vector product inside a pass (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner` (labels :math:`\pm1`); ``fit`` gives
      :class:`BatchPerceptronParams`.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets, linear
      >>> X, y, _ = datasets.separable(jax.random.PRNGKey(0), 200, 5, margin=0.1)  # at most 100 updates
      >>> learner = linear.batch_perceptron()
      >>> params = learner.fit(jax.random.PRNGKey(0), X, y)
      >>> bool(params.converged), bool((learner.predict(params, X) == y).all())
      (True, True)

    References:
      SS10 L4 Algorithm 1, Theorem 3; UML Remark 15.1.
    """
    max_epochs = check_positive_int("max_epochs", max_epochs)
    block_size = check_positive_int("block_size", block_size)

    def fit(key, X, y):
        X, y = as_float(X, y)
        return _batch_fit(X, y, max_epochs=max_epochs, block_size=min(block_size, X.shape[0]))

    return BatchLearner(fit, linear_predict, linear_score, check_sample)


@learner_factory("a", ranges={"a": OPEN_UNIT, "max_epochs": POSITIVE_INT})
def augmented_perceptron(a: ArrayLike, max_epochs: int = 10_000) -> BatchLearner:
    r"""The efficient Perceptron for non-separable data: the batch Perceptron on separable augmented data.

    .. math:: \tilde x_i = [a x_i;\ \sqrt{1-a^2}\, e^i] \in \mathbb R^{d+m}, \qquad \tilde w = [w; \xi],

    never built: an update on example :math:`i` adds :math:`a y_i x_i` to :math:`w` and
    :math:`\sqrt{1-a^2}\, y_i` to :math:`\xi_i` (memory :math:`O(d + m)`). Lemma 2: for every unit :math:`w^*`
    and :math:`\gamma > 0`, at most :math:`1/(a^2\gamma^2) + \sum_i (\ell_i/\gamma)^2/(1-a^2)` updates,
    :math:`\ell_i = \max\{0, \gamma - y_i\langle w^*, x_i\rangle\}`; examples with :math:`\xi_i = 0` are
    classified correctly. Inputs should lie in the unit ball.

    Args:
      a: the trade-off :math:`a \in (0, 1)` (traced; checked when concrete).
      max_epochs: the most passes over the sample (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner` (labels :math:`\pm1`); ``fit`` gives
      :class:`AugmentedPerceptronParams`.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets, linear
      >>> X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(0), 200, 5, flip=0.1)
      >>> learner = linear.augmented_perceptron(0.5)
      >>> params = learner.fit(jax.random.PRNGKey(0), X, y)
      >>> bool(params.converged), bool((learner.predict(params, X) == y)[params.xi == 0].all())
      (True, True)

    References:
      SS10 L4 section 5, Algorithm 3, Lemma 2.
    """
    max_epochs = check_positive_int("max_epochs", max_epochs)

    def fit(key, X, y):
        X, y = as_float(X, y)
        return _augmented_fit(X, y, a, max_epochs=max_epochs)

    return BatchLearner(fit, linear_predict, linear_score, check_sample)


# One compiled program per (shapes, max_epochs, block_size): a second fit, or a learner with another
# `a`, compiles nothing.
@functools.partial(jax.jit, static_argnames=("max_epochs", "block_size"))
def _batch_fit(X, y, *, max_epochs, block_size):
    learner = online.perceptron()

    def one_pass(carry):
        state, updates, epochs, _, counts = carry
        state, trace = core.run(
            learner, state, X, y, block_size=block_size, trace_fn=lambda i: i.mistake
        )
        made = jnp.sum(trace).astype(jnp.int32)
        return state, updates + made, epochs + 1, made == 0, counts + trace.astype(jnp.int32)

    def keep_going(carry):
        return (~carry[3]) & (carry[2] < max_epochs)

    zero = jnp.zeros([], jnp.int32)
    init = (learner.init(X[0]), zero, zero, jnp.array(False), jnp.zeros(X.shape[0], jnp.int32))
    state, updates, epochs, converged, counts = jax.lax.while_loop(keep_going, one_pass, init)
    return BatchPerceptronParams(state.w, updates, epochs, converged, counts)


@functools.partial(jax.jit, static_argnames=("max_epochs",))
def _augmented_fit(X, y, a, *, max_epochs):
    a_ = jnp.asarray(a).astype(X.dtype)
    b_ = jnp.sqrt(1 - a_**2)

    def visit(carry, i):
        w, xi = carry
        violated = y[i] * (a_ * jnp.vdot(w, X[i]) + b_ * xi[i]) <= 0
        w = jnp.where(violated, w + a_ * y[i] * X[i], w)
        xi = xi.at[i].add(jnp.where(violated, b_ * y[i], 0))
        return (w, xi), violated

    start = (jnp.zeros(X.shape[1], X.dtype), jnp.zeros(X.shape[0], X.dtype))
    (w, xi), updates, epochs, converged = cyclic_passes(visit, start, X.shape[0], max_epochs)
    return AugmentedPerceptronParams(w, xi, updates, epochs, converged)
