"""Balcan's level-based learner of decision lists over {0,1}^n (Balcan section 2.2)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn._shared import check_scalar_label, float_dtype, zero_counter
from jaxlearn.core import POSITIVE_INT, Learner, learner_factory, loadable
from jaxlearn.online._conjunction import (
    MAX_FEATURES,
    _bits,
    _boolean_stream_check,
    _check_example,
    _check_features,
)

Array = jax.Array


@loadable
class DecisionListState(NamedTuple):
    """``level``: int32 of shape ``(4n + 2,)``, the level (0 = first) of each candidate rule, in the
    order :math:`x_i \\Rightarrow 1, x_i \\Rightarrow 0, \\bar x_i \\Rightarrow 1, \\bar x_i \\Rightarrow 0`
    for :math:`i = 1..n` (rule ``4(i-1) + 2 \\cdot \\mathrm{negated} + (1 - b)`` has consequent ``b``),
    then :math:`T \\Rightarrow 1, T \\Rightarrow 0`; ``step``: rounds played."""

    level: Array
    step: Array


@loadable
class DecisionListInfo(NamedTuple):
    """``prediction`` in {0, 1} made before the update; ``loss`` its 0-1 loss; ``mistake`` the flag."""

    prediction: Array
    loss: Array
    mistake: Array


def _fires(x: Array) -> Array:
    """Which of the 4n + 2 rules have their antecedent satisfied by ``x`` (bool, shape (4n + 2,))."""
    x = _bits(x)
    literals = jnp.stack([x, x, ~x, ~x], axis=1).reshape(-1)
    return jnp.concatenate([literals, jnp.ones((2,), bool)])  # T fires on every x


def _consequents(n: int) -> Array:
    """The right-hand side of every rule: 1, 0, 1, 0, ... (shape (4n + 2,), int32)."""
    return jnp.tile(jnp.array([1, 0], jnp.int32), 2 * n + 1)


@learner_factory(ranges={"n": POSITIVE_INT}, load_caps={"n": MAX_FEATURES})
def decision_list(n: int) -> Learner:
    r"""Balcan's decision-list learner: :math:`4n + 2` rules by levels (all 0 at first); a tie predicts 1.

    .. math:: \hat y_t = 1\big[|\{r \in A_t : b_r = 1\}| \ge |\{r \in A_t : b_r = 0\}|\big], \qquad
        \mathrm{level}_{t+1}(r) = \mathrm{level}_t(r) + 1[\hat y_t \ne y_t,\ r \in A_t,\ b_r \ne y_t],

    :math:`A_t`: the rules firing on :math:`x_t` at the lowest level any does. If a list of length :math:`L`
    labels the data, at most :math:`(4n + 2)(L + 1)` mistakes (:func:`jaxlearn.theory.decision_list_bound`).

    Args:
      n: the number of boolean variables, a positive int (static).

    Returns:
      A :class:`~jaxlearn.core.Learner` over {0,1}^n, labels {0, 1}; ``State`` is :class:`DecisionListState`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import core, online
      >>> learner = online.decision_list(2)  # Balcan's example: x1 => 0, else ~x2 => 1, else 0
      >>> X, y = jnp.array([[0, 1], [0, 0]]), jnp.array([0, 1])
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> trace.prediction.tolist(), state.level.tolist()
      ([1, 0], [0, 0, 1, 1, 1, 0, 0, 1, 1, 1])

    References:
      Balcan, 8803 Machine Learning Theory, Lecture 3, section 2.2.
    """
    n = int(n)
    consequents = _consequents(n)

    def init(example_x, key=None):
        _check_example(example_x, n)
        return DecisionListState(level=jnp.zeros((4 * n + 2,), jnp.int32), step=zero_counter())

    def deciding(state, x):
        """The rules that fire on ``x`` in the first level where any fires (never empty)."""
        _check_features("x", x, n)
        fires = _fires(x)
        first = jnp.min(jnp.where(fires, state.level, jnp.iinfo(jnp.int32).max))
        return fires & (state.level == first)

    def vote(active):
        ones = jnp.sum(active & (consequents == 1))
        zeros = jnp.sum(active & (consequents == 0))
        return (ones >= zeros).astype(jnp.int32)

    def predict(state, x):
        return vote(deciding(state, x))

    def update(state, x, y):
        check_scalar_label(y)
        active = deciding(state, x)
        y_hat = vote(active)
        y = jnp.asarray(y).astype(jnp.int32)
        mistake = y_hat != y
        moves = mistake & active & (consequents != y)
        info = DecisionListInfo(
            prediction=y_hat, loss=mistake.astype(float_dtype(x)), mistake=mistake
        )
        return DecisionListState(state.level + moves.astype(jnp.int32), state.step + 1), info

    return Learner(init, update, predict, _boolean_stream_check(n, "decision_list"))
