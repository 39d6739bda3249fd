"""The Perceptron and Balcan's margin Perceptron (SPEC sections 4.1, 4.2, 4.4).

Both are mistake-driven: the weights change only on rounds the learner gets wrong (or, for the margin
Perceptron, gets right by too small a margin). Besides the round-by-round ``update``, each exposes an
exact block rule (``Learner.run_block``): one matrix-vector product scores a whole block, the learner
jumps to the first round that needs an update, updates, rescores the rest of the block, and so on.
Weights and mistakes are those of the sequential algorithm (bitwise, except where a score lies
within float rounding of 0 and the two summation orders disagree); correct blocks cost one product.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import (
    Learner,
    ScalarOrSchedule,
    check_binary_stream,
    check_ndim,
    check_width,
    first_index,
    float_dtype,
    learner_factory,
    schedule_value,
    zero_counter,
)

Array = jax.Array


class PerceptronState(NamedTuple):
    """``w``: the weight vector; ``step``: rounds played so far (int32)."""

    w: Array
    step: Array


class PerceptronInfo(NamedTuple):
    """``prediction``: the label predicted before the update, +1 iff ``<w, x> > 0``;
    ``loss``: the 0-1 loss of the round; ``mistake``: ``y <w, x> <= 0`` (a zero score is a mistake)."""

    prediction: Array
    loss: Array
    mistake: Array


class MarginPerceptronInfo(NamedTuple):
    """Like :class:`PerceptronInfo`, plus ``margin_mistake`` (correct sign but normalised score inside
    ``(-gamma/2, gamma/2)``) and ``update`` (the weights changed: a mistake or a margin mistake)."""

    prediction: Array
    loss: Array
    mistake: Array
    margin_mistake: Array
    update: Array


def _sign_label(score: Array) -> Array:
    """+1 where the score is positive, -1 elsewhere (Balcan: a zero score predicts negative)."""
    return jnp.where(score > 0, 1, -1).astype(score.dtype)


def _half(gamma: ArrayLike, like: Array) -> Array:
    """gamma / 2 in the dtype of the scores (gamma may be a float32 tracer in a float64 run)."""
    return jnp.asarray(gamma).astype(like.dtype) / 2


def _unit_rows(X: Array) -> Array:
    norms = jnp.linalg.norm(X, axis=-1, keepdims=True)
    return X / jnp.where(norms > 0, norms, 1)


def _init_weights(example_x: ArrayLike, key=None) -> PerceptronState:
    x = jnp.asarray(example_x)
    check_ndim("example_x", x, 1, "(d,)")
    return PerceptronState(w=jnp.zeros(x.shape, float_dtype(x)), step=zero_counter())


def _mistake_driven(
    prepare: Callable[[Array], Array],
    score: Callable[[Array, Array], Array],
    needs_update: Callable[[Array, Array], Array],
    step_size: Callable[[Array], Array],
    make_info: Callable[[Array, Array], tuple],
):
    """Build ``update`` and ``run_block`` for a learner of the form

    .. math:: s_t = \\mathrm{score}(w_t, x_t), \\quad
              w_{t+1} = w_t + \\eta_t\\, y_t x_t \\;\\text{ if needs\\_update}(s_t, y_t) \\text{ else } w_t.

    ``make_info(scores, ys)`` turns the scores seen at each round (before its update) into ``Info``.
    """

    def update(state, x, y):
        check_width("x", x, state.w.shape[0])
        x = prepare(jnp.asarray(x)[None])
        y = jnp.asarray(y).astype(x.dtype)
        s = score(state.w, x)[0]
        upd = needs_update(s, y)
        eta = jnp.asarray(step_size(state.step)).astype(x.dtype)
        w = jnp.where(upd, state.w + eta * y * x[0], state.w)
        return PerceptronState(w, state.step + 1), make_info(s, y)

    def run_block(state, xs, ys):
        check_width("xs", xs, state.w.shape[0])
        X = prepare(xs)
        ys = jnp.asarray(ys).astype(X.dtype)
        idx = jnp.arange(X.shape[0], dtype=jnp.int32)

        def next_update(scores, after):
            return first_index(needs_update(scores, ys) & (idx > after))

        def body(carry):
            w, scores, i = carry
            eta = jnp.asarray(step_size(state.step + i)).astype(X.dtype)
            w = w + eta * ys[i] * X[i]
            scores = jnp.where(idx > i, score(w, X), scores)  # only later rounds see the new w
            return w, scores, next_update(scores, i)

        scores = score(state.w, X)
        w, scores, _ = jax.lax.while_loop(
            lambda c: c[2] < X.shape[0], body, (state.w, scores, next_update(scores, -1))
        )
        return PerceptronState(w, state.step + X.shape[0]), make_info(scores, ys)

    return update, run_block


#: Rounds per block of the exact block rule that ``core.run`` uses by default for the perceptrons.
BLOCK_SIZE = 64


@learner_factory("eta", aliases={"learning_rate": "eta"})
def perceptron(eta: ScalarOrSchedule = 1.0, *, normalize: bool = False) -> Learner:
    r"""The online Perceptron (COMP0078 "The Perceptron learning algorithm"; Balcan section 1).

    .. math::
        w_1 = 0, \qquad
        w_{t+1} = \begin{cases} w_t + \eta_t\, y_t x_t & \text{if } y_t \langle w_t, x_t\rangle \le 0
        \\ w_t & \text{otherwise.} \end{cases}

    A zero score is a mistake, as the mistake-bound proofs need. Novikoff: if a unit :math:`v` has
    :math:`y_t \langle v, x_t\rangle \ge \gamma` and :math:`\|x_t\| \le R`, the number of mistakes is at
    most :math:`(R/\gamma)^2` (:func:`jaxlearn.theory.perceptron_mistake_bound`), for any
    :math:`\eta > 0` (the mistakes do not depend on a constant step size).

    Args:
      eta: :math:`\eta_t`, a number, array or schedule of the round ``t`` (0-based); the keyword
        ``learning_rate`` is an alias.
      normalize: scale each ``x`` to unit length first (Balcan's version: then
        :math:`M \le 1/\gamma^2`, and :math:`M \le 1/\gamma^2 + (2/\gamma) TD_\gamma` without separability).

    Returns:
      A :class:`~jaxlearn.core.Learner` with labels in {-1, +1}; ``Info`` is :class:`PerceptronInfo`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import core, datasets, online
      >>> X, y, _ = datasets.separable(jax.random.PRNGKey(0), 500, 5, margin=0.1)
      >>> learner = online.perceptron()
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.mistake.sum() <= (1 / 0.1) ** 2)
      True
    """

    def info(scores, ys):
        mistake = ys * scores <= 0
        return PerceptronInfo(_sign_label(scores), mistake.astype(scores.dtype), mistake)

    update, run_block = _mistake_driven(
        prepare=_unit_rows if normalize else jnp.asarray,
        score=lambda w, X: X @ w,
        needs_update=lambda s, y: y * s <= 0,
        step_size=lambda t: schedule_value(eta, t),
        make_info=info,
    )

    def predict(state, x):
        check_width("x", x, state.w.shape[0])
        return _sign_label(jnp.vdot(state.w, jnp.asarray(x)))

    return Learner(_init_weights, update, predict, check_binary_stream, run_block, BLOCK_SIZE)


@learner_factory("gamma")
def margin_perceptron(gamma: ArrayLike) -> Learner:
    r"""Balcan's margin Perceptron (Balcan section 1.1, Theorem 2).

    Every example is scaled to unit length. The first example initialises :math:`w_1 = y x`; then,
    with :math:`s_t = \langle w_t, x_t\rangle / \|w_t\|`, the prediction is positive if
    :math:`s_t \ge \gamma/2`, negative if :math:`s_t \le -\gamma/2`, and a *margin mistake* in between;
    on a mistake or a margin mistake (i.e. :math:`y_t s_t < \gamma/2`),
    :math:`w_{t+1} = w_t + y_t x_t`. (Starting from :math:`w = 0`, whose score is 0, the first example
    is an update that sets :math:`w_1 = y x`: the initialisation counts as one update.)

    Theorem 2: if a unit :math:`w^*` has :math:`|w^* \cdot x| / \|x\| \ge \gamma` and agrees with every
    label, the number of updates (margin mistakes included) is at most :math:`12/\gamma^2`
    (:func:`jaxlearn.theory.margin_perceptron_bound`). Cycling through a sample until a pass makes no
    update leaves every example with :math:`y\, w\cdot x / (\|w\|\|x\|) \ge \gamma/2`.

    Args:
      gamma: the margin the data are assumed to have (traced: vmap over it freely).

    Returns:
      A :class:`~jaxlearn.core.Learner`; ``Info`` is :class:`MarginPerceptronInfo`.
    """

    def score(w, X):
        norm = jnp.linalg.norm(w)
        return (X @ w) / jnp.where(norm > 0, norm, 1)

    def info(scores, ys):
        mistake = ys * scores <= 0
        update = ys * scores < _half(gamma, scores)
        return MarginPerceptronInfo(
            _sign_label(scores), mistake.astype(scores.dtype), mistake, update & ~mistake, update
        )

    update, run_block = _mistake_driven(
        prepare=_unit_rows,
        score=score,
        needs_update=lambda s, y: y * s < _half(gamma, s),
        step_size=lambda t: jnp.ones([]),
        make_info=info,
    )

    def predict(state, x):
        check_width("x", x, state.w.shape[0])
        return _sign_label(jnp.vdot(state.w, jnp.asarray(x)))

    return Learner(_init_weights, update, predict, check_binary_stream, run_block, BLOCK_SIZE)
