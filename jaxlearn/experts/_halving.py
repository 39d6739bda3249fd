"""Consistent and Halving: version spaces over a finite set of experts (UML section 21.1; COMP0078)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import Learner, check_ndim, check_width, learner_factory, zero_counter
from jaxlearn.experts._common import check_advice_stream

Array = jax.Array


class VersionSpaceState(NamedTuple):
    """``alive``: boolean mask of the experts consistent with every outcome so far (:math:`V_t`);
    ``step``: rounds played (int32)."""

    alive: Array
    step: Array


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
        return vote(state.alive, jnp.asarray(x) > 0).astype(jnp.int32)

    def update(state, x, y):
        prediction = predict(state, x)
        right = state.alive & ((jnp.asarray(x) > 0) == (jnp.asarray(y) > 0))
        inconsistent = ~jnp.any(right)
        alive = jnp.where(inconsistent, state.alive, right)
        mistake = prediction != jnp.asarray(y).astype(jnp.int32)
        info = VersionSpaceInfo(prediction, mistake.astype(jnp.float32), mistake, inconsistent)
        return VersionSpaceState(alive, state.step + 1), info

    return Learner(_init, update, predict, check_advice_stream)


@learner_factory()
def consistent() -> Learner:
    r"""Consistent (UML section 21.1): predict with any hypothesis of the version space.

    .. math:: p_t = h(x_t) \text{ for the first } h \in V_t, \qquad
              V_{t+1} = \{h \in V_t : h(x_t) = y_t\}.

    The chosen hypothesis is the smallest-index expert still in :math:`V_t` (the book leaves the choice
    free; with this rule the singleton class of UML Exercise 21.1 forces all :math:`|H| - 1` mistakes).
    Corollary 21.2: at most :math:`|H| - 1` mistakes on a realizable stream
    (:func:`jaxlearn.theory.consistent_bound`).

    ``x_t`` is the experts' advice (for a class given as a label matrix ``H``, ``H[:, point]``), the
    outcome ``y_t`` is in {0, 1}.
    """

    def vote(alive, says_one):
        return says_one[jnp.argmax(alive)]

    return _version_space_learner(vote)


@learner_factory()
def halving() -> Learner:
    r"""Halving (UML section 21.1, Theorem 21.3; COMP0078 "A Solution: Halving Algorithm").

    .. math:: p_t = \arg\max_{r \in \{0,1\}} |\{h \in V_t : h(x_t) = r\}| \text{ (a tie predicts 1)}, \qquad
              V_{t+1} = \{h \in V_t : h(x_t) = y_t\}.

    Each mistake at least halves :math:`V_t`, so on a realizable stream it makes at most
    :math:`\log_2 |H|` mistakes (:func:`jaxlearn.theory.halving_bound`).
    """

    def vote(alive, says_one):
        ones = jnp.sum(alive & says_one)
        zeros = jnp.sum(alive & ~says_one)
        return ones >= zeros

    return _version_space_learner(vote)
