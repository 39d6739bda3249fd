"""Consistent and Halving: version spaces over a finite set of experts (UML section 21.1; COMP0078)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import check_ndim, check_width
from jaxlearn._shared import check_scalar_label, zero_counter
from jaxlearn.core import Learner, learner_factory, loadable
from jaxlearn.experts._common import check_advice_stream, says_one

Array = jax.Array


@loadable
class VersionSpaceState(NamedTuple):
    """``alive``: boolean mask of the experts consistent with every outcome so far (:math:`V_t`);
    ``step``: rounds played (int32)."""

    alive: Array
    step: Array


@loadable
class VersionSpaceInfo(NamedTuple):
    """``prediction`` in {0, 1} made before the outcome; ``loss``/``mistake`` its 0-1 loss;
    ``inconsistent``: no expert of :math:`V_t` agreed with the outcome (the stream is not realizable).
    On such a round the version space is kept as it was, instead of becoming empty."""

    prediction: Array
    loss: Array
    mistake: Array
    inconsistent: Array


def _init(example_x: ArrayLike, key=None) -> VersionSpaceState:
    x = jnp.asarray(example_x)
    check_ndim("example_x", x, 1, "(n,)")
    return VersionSpaceState(alive=jnp.ones(x.shape, bool), step=zero_counter())


def _version_space_learner(vote) -> Learner:
    """A learner that predicts ``vote(alive, advice)`` and keeps the experts that were right."""

    def predict(state, x):
        check_width("x", x, state.alive.shape[0])
        return vote(state.alive, says_one(x)).astype(jnp.int32)

    def update(state, x, y):
        check_scalar_label(y)
        prediction = predict(state, x)
        right = state.alive & (says_one(x) == says_one(y))
        inconsistent = ~jnp.any(right)
        alive = jnp.where(inconsistent, state.alive, right)
        mistake = prediction != jnp.asarray(y).astype(jnp.int32)
        info = VersionSpaceInfo(prediction, mistake.astype(jnp.float32), mistake, inconsistent)
        return VersionSpaceState(alive, state.step + 1), info

    return Learner(_init, update, predict, check_advice_stream)


@learner_factory()
def consistent() -> Learner:
    r"""Consistent: predict with the first expert of the version space (the smallest index).

    .. math:: p_t = h_{\min V_t}(x_t), \qquad V_{t+1} = \{h \in V_t : h(x_t) = y_t\}, \qquad V_1 = H.

    On a realizable stream at most :math:`|H| - 1` mistakes (Corollary 21.2,
    :func:`jaxlearn.theory.consistent_bound`); with this choice the singletons of UML Exercise 21.1 force all
    of them. A round that no expert of :math:`V_t` gets right sets ``Info.inconsistent`` and keeps
    :math:`V_t`.

    Returns:
      A :class:`~jaxlearn.core.Learner` over binary advice ``x_t`` (``H[:, point]`` for a class given as a
      label matrix ``H``) and outcomes in {0, 1}; ``Info`` is :class:`VersionSpaceInfo`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import core, experts
      >>> X = jnp.array([[1, 0, 1], [0, 0, 1], [1, 1, 0]])  # 3 experts' advice; expert 1 is right
      >>> learner = experts.consistent()
      >>> state, trace = core.run(learner, learner.init(X[0]), X, jnp.array([0, 0, 1]))
      >>> trace.prediction.tolist(), state.alive.tolist()
      ([1, 0, 1], [False, True, False])

    References:
      UML section 21.1, Corollary 21.2, Exercise 21.1.
    """

    def vote(alive, says_one):
        return says_one[jnp.argmax(alive)]

    return _version_space_learner(vote)


@learner_factory()
def halving() -> Learner:
    r"""Halving: predict with the majority of the version space (a tie predicts 1).

    .. math:: p_t = 1\big[|\{h \in V_t : h(x_t) = 1\}| \ge |\{h \in V_t : h(x_t) = 0\}|\big], \qquad
        V_{t+1} = \{h \in V_t : h(x_t) = y_t\}.

    Each mistake at least halves :math:`V_t`: at most :math:`\log_2 |H|` mistakes on a realizable stream
    (:func:`jaxlearn.theory.halving_bound`). Inputs and ``Info.inconsistent`` as for :func:`consistent`.

    Returns:
      A :class:`~jaxlearn.core.Learner` over binary advice and outcomes in {0, 1}; ``Info`` is
      :class:`VersionSpaceInfo`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, experts, theory
      >>> X, y = datasets.expert_advice(jax.random.PRNGKey(0), 100, 16)  # expert 0 is never wrong
      >>> learner = experts.halving()
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.mistake.sum() <= theory.halving_bound(16)), bool(state.alive[0])
      (True, True)

    References:
      UML section 21.1, Theorem 21.3; COMP0078 "A Solution: Halving Algorithm".
    """

    def vote(alive, says_one):
        ones = jnp.sum(alive & says_one)
        zeros = jnp.sum(alive & ~says_one)
        return ones >= zeros

    return _version_space_learner(vote)
