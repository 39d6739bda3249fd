"""Balcan's level-based learner of decision lists over {0,1}^n (Balcan section 2.2)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn.core import Learner, float_dtype, learner_factory, zero_counter
from jaxlearn.online._conjunction import _boolean_stream_check, _check_example, _check_features, _check_n

Array = jax.Array


class DecisionListState(NamedTuple):
    """``level``: int32 of shape ``(4n + 2,)``, the level (0 = first) of each candidate rule, in the
    order :math:`x_i \\Rightarrow 1, x_i \\Rightarrow 0, \\bar x_i \\Rightarrow 1, \\bar x_i \\Rightarrow 0`
    for :math:`i = 1..n` (rule ``4(i-1) + 2 \\cdot \\mathrm{negated} + (1 - b)`` has consequent ``b``),
    then :math:`T \\Rightarrow 1, T \\Rightarrow 0`; ``step``: rounds played."""

    level: Array
    step: Array


class DecisionListInfo(NamedTuple):
    """``prediction`` in {0, 1} made before the update; ``loss`` its 0-1 loss; ``mistake`` the flag."""

    prediction: Array
    loss: Array
    mistake: Array


def _fires(x: Array) -> Array:
    """Which of the 4n + 2 rules have their antecedent satisfied by ``x`` (bool, shape (4n + 2,))."""
    x = jnp.asarray(x) > 0
    literals = jnp.stack([x, x, ~x, ~x], axis=1).reshape(-1)
    return jnp.concatenate([literals, jnp.ones((2,), bool)])  # T fires on every x


def _consequents(n: int) -> Array:
    """The right-hand side of every rule: 1, 0, 1, 0, ... (shape (4n + 2,), int32)."""
    return jnp.tile(jnp.array([1, 0], jnp.int32), 2 * n + 1)


@learner_factory()
def decision_list(n: int) -> Learner:
    r"""Balcan's learner of decision lists, by levels of candidate rules (Balcan section 2.2).

    The hypothesis is an ordered list of sets (levels) of the :math:`4n + 2` rules
    :math:`\{x_i \Rightarrow b,\ \bar x_i \Rightarrow b : i \in [n], b \in \{0, 1\}\} \cup
    \{T \Rightarrow 1, T \Rightarrow 0\}`, stored as one level per rule, all 0 at first. With
    :math:`F_t` the rules whose antecedent :math:`x_t` satisfies and
    :math:`k_t = \min_{r \in F_t} \mathrm{level}(r)`, the rules that decide are
    :math:`A_t = \{r \in F_t : \mathrm{level}(r) = k_t\}` and

    .. math::
        \hat y_t = 1\big[\,|\{r \in A_t : b_r = 1\}| \ge |\{r \in A_t : b_r = 0\}|\,\big], \qquad
        \mathrm{level}_{t+1}(r) = \mathrm{level}_t(r) + 1[\hat y_t \ne y_t,\ r \in A_t,\ b_r \ne y_t].

    Balcan predicts with "some rule that fires" in the first level that has one, "breaking ties
    arbitrarily"; here the choice is deterministic: the level votes, each firing rule for its
    consequent :math:`b_r`, and a tie predicts 1 (the Halving convention). This is still the
    prediction of one firing rule of :math:`A_t`, so the analysis is unchanged, and it reproduces
    Balcan's worked example (on ``01`` a 3-3 tie predicts 1; on ``00`` one vote for 1 against three
    predicts 0). On a mistake every rule of :math:`A_t` that predicted wrongly, at least the voted
    one, moves down one level. If a decision list of length :math:`L` labels the stream, its
    :math:`j`-th rule never goes below level :math:`j` (1-based), no rule below level :math:`L + 1`,
    and there are at most :math:`(4n + 2)(L + 1)` mistakes
    (:func:`jaxlearn.theory.decision_list_bound`). Since :math:`T \Rightarrow 1` and
    :math:`T \Rightarrow 0` fire on every :math:`x`, :math:`A_t` is never empty; the hypothesis is
    not itself a decision list.

    Args:
      n: the number of boolean variables (structural).

    Returns:
      A :class:`~jaxlearn.core.Learner` over ``x`` in {0,1}^n with labels in {0, 1}; ``Info`` is
      :class:`DecisionListInfo`, ``State`` is :class:`DecisionListState`.

    Examples:
      Balcan's example, target :math:`x_1 \Rightarrow 0`, else :math:`\bar x_2 \Rightarrow 1`, else 0:

      >>> import jax.numpy as jnp
      >>> from jaxlearn import core, online
      >>> learner = online.decision_list(2)
      >>> X, y = jnp.array([[0, 1], [0, 0]]), jnp.array([0, 1])
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> trace.prediction.tolist(), state.level.tolist()
      ([1, 0], [0, 0, 1, 1, 1, 0, 0, 1, 1, 1])

    References:
      Balcan, 8803 Machine Learning Theory, Lecture 3, section 2.2 (SPEC section 2.7).
    """
    n = _check_n(n)
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
        active = deciding(state, x)
        y_hat = vote(active)
        y = jnp.asarray(y).astype(jnp.int32)
        mistake = y_hat != y
        moves = mistake & active & (consequents != y)
        info = DecisionListInfo(prediction=y_hat, loss=mistake.astype(float_dtype(x)), mistake=mistake)
        return DecisionListState(state.level + moves.astype(jnp.int32), state.step + 1), info

    return Learner(init, update, predict, _boolean_stream_check(n, "decision_list"))
