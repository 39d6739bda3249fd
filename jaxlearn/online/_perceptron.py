"""The Perceptron and Balcan's margin Perceptron (COMP0078 "The Perceptron learning algorithm"; Balcan,
8803 Machine Learning Theory, Lecture 3, sections 1 and 1.1).

Both are mistake-driven and have an exact block rule (``Learner.run_block``): one matrix-vector product
scores a block and the learner jumps from update to update, with the weights and mistakes of the
sequential algorithm (bitwise, except for scores within float rounding of 0).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import check_binary_stream, check_ndim, check_width
from jaxlearn._shared import (
    ScalarOrSchedule,
    check_scalar_label,
    check_scalar_labels,
    first_index,
    float_dtype,
    on_device,
    schedule_value,
    sign_label,
    zero_counter,
    zeros,
)
from jaxlearn.core import POSITIVE, Interval, Learner, learner_factory, loadable

Array = jax.Array


@loadable
class PerceptronState(NamedTuple):
    """``w``: the weight vector; ``b``: the bias (stays 0 unless the learner has ``fit_intercept``);
    ``step``: rounds played so far (int32)."""

    w: Array
    b: Array
    step: Array


@loadable
class PerceptronInfo(NamedTuple):
    """``prediction``: the label predicted before the update, +1 iff ``<w, x> > 0``;
    ``loss``: the 0-1 loss of the round; ``mistake``: ``y <w, x> <= 0`` (a zero score is a mistake)."""

    prediction: Array
    loss: Array
    mistake: Array


@loadable
class MarginPerceptronInfo(NamedTuple):
    """Like :class:`PerceptronInfo`, plus ``margin_mistake`` (correct sign but normalised score inside
    ``(-gamma/2, gamma/2)``) and ``update`` (the weights changed: a mistake or a margin mistake)."""

    prediction: Array
    loss: Array
    mistake: Array
    margin_mistake: Array
    update: Array


def _half(gamma: ArrayLike, like: Array) -> Array:
    """gamma / 2 in the dtype of the scores (gamma may be a float32 tracer in a float64 run)."""
    return jnp.asarray(gamma).astype(like.dtype) / 2


def _unit_rows(X: Array) -> Array:
    norms = jnp.linalg.norm(X, axis=-1, keepdims=True)
    return X / jnp.where(norms > 0, norms, 1)


def _as_weights_dtype(state: PerceptronState, x: ArrayLike) -> Array:
    """``x`` in the (float) dtype of the weights: a bool/int ``x`` never makes the arithmetic integer."""
    return jnp.asarray(x).astype(state.w.dtype)


def _predict(state: PerceptronState, x: ArrayLike) -> Array:
    """The sign of the score, in full float32 too: vmapped over learning rates, ``<w, x>`` becomes a matrix
    product (on an H100 TF32 sent 12 of 64 noisy-stream rates off scikit-learn's round-by-round run)."""
    check_width("x", x, state.w.shape[0])
    score = jnp.vdot(state.w, _as_weights_dtype(state, x), precision=jax.lax.Precision.HIGHEST)
    return sign_label(score + state.b)


def _init_weights(example_x: ArrayLike, key=None) -> PerceptronState:
    x = on_device(example_x)
    check_ndim("example_x", x, 1, "(d,)")
    dtype = float_dtype(x)
    w, b = zeros(x.shape, dtype, like=x), zeros((), dtype, like=x)
    return PerceptronState(w=w, b=b, step=zero_counter())


def _scores(w: Array, X: Array) -> Array:
    """``X @ w`` in full float32 (``Precision.HIGHEST``): on GPUs the default lets matrix products round
    their inputs to TF32 (10 bits), and a block's scores must equal the round-by-round ones."""
    return jnp.matmul(X, w, precision=jax.lax.Precision.HIGHEST)


def _mistake_driven(
    prepare: Callable[[Array], Array],
    score: Callable[[Array, Array], Array],
    needs_update: Callable[[Array, Array], Array],
    step_size: Callable[[Array], Array],
    make_info: Callable[[Array, Array], tuple],
    fit_intercept: bool = False,
):
    """Build ``update`` and ``run_block`` for a learner of the form

    .. math:: s_t = \\mathrm{score}(w_t, x_t), \\quad
              w_{t+1} = w_t + \\eta_t\\, y_t x_t \\;\\text{ if needs\\_update}(s_t, y_t) \\text{ else } w_t.

    ``make_info(scores, ys)`` turns the scores seen at each round (before its update) into ``Info``.
    With ``fit_intercept`` the rule runs on :math:`(w, b)` and :math:`(x, 1)`: the bias is one more
    weight on a constant feature (before ``prepare``, so a normalising rule scales it too).
    """

    def weights(state):  # (w, b) as one vector when there is a bias
        return jnp.append(state.w, state.b) if fit_intercept else state.w

    def augmented(X):
        return (
            jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1) if fit_intercept else X
        )

    def new_state(state, w, step):
        if fit_intercept:
            return PerceptronState(w[:-1], w[-1], step)
        return PerceptronState(w, state.b, step)

    def update(state, x, y):
        check_width("x", x, state.w.shape[0])
        check_scalar_label(y)
        x = prepare(augmented(_as_weights_dtype(state, x)[None]))  # bool/int x: floats first
        y = jnp.asarray(y).astype(x.dtype)
        w0 = weights(state)
        s = score(w0, x)[0]
        upd = needs_update(s, y)
        eta = jnp.asarray(step_size(state.step)).astype(x.dtype)
        w = jnp.where(upd, w0 + eta * y * x[0], w0)
        return new_state(state, w, state.step + 1), make_info(s, y)

    def run_block(state, xs, ys):
        check_width("xs", xs, state.w.shape[0])
        check_scalar_labels(ys)
        X = prepare(augmented(_as_weights_dtype(state, xs)))
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

        w0 = weights(state)
        scores = score(w0, X)
        w, scores, _ = jax.lax.while_loop(
            lambda c: c[2] < X.shape[0], body, (w0, scores, next_update(scores, -1))
        )
        return new_state(state, w, state.step + X.shape[0]), make_info(scores, ys)

    return update, run_block


#: Rounds per block of the exact block rule that ``core.run`` uses by default for the perceptrons.
BLOCK_SIZE = 64


@learner_factory("eta", aliases={"learning_rate": "eta"}, ranges={"eta": POSITIVE})
def perceptron(
    eta: ScalarOrSchedule = 1.0, *, normalize: bool = False, fit_intercept: bool = False
) -> Learner:
    r"""The online Perceptron, updated on every mistake; a zero score predicts -1 and is a mistake.

    .. math:: w_1 = 0, \qquad w_{t+1} = w_t + \eta_t\, y_t x_t\, 1[y_t \langle w_t, x_t\rangle \le 0].

    Novikoff: if :math:`\|x_t\| \le R` and a unit :math:`v` has :math:`y_t\, v \cdot x_t \ge \gamma`, at most
    :math:`(R/\gamma)^2` mistakes, any :math:`\eta > 0` (:func:`jaxlearn.theory.perceptron_mistake_bound`).

    Args:
      eta: :math:`\eta_t > 0`: a number, array or schedule of the 0-based round (traced); alias
        ``learning_rate``.
      normalize: scale each ``x`` to unit length first (Balcan's version, :math:`M \le 1/\gamma^2`; static).
      fit_intercept: add an unregularised bias :math:`b` (``PerceptronState.b``), updated as a weight on
        a constant feature: :math:`b \mathrel{+}= \eta_t y_t` on a mistake. The default is the book's
        homogeneous form, which the mistake bounds are stated for (static).

    Returns:
      A :class:`~jaxlearn.core.Learner` with labels in {-1, +1}; ``Info`` is :class:`PerceptronInfo`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, online, theory
      >>> X, y, _ = datasets.separable(jax.random.PRNGKey(0), 500, 5, margin=0.1)  # ||x|| <= 1
      >>> learner = online.perceptron()
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.mistake.sum() <= theory.perceptron_mistake_bound(1.0, 0.1))
      True

    References:
      COMP0078 "The Perceptron learning algorithm"; Balcan section 1, Theorem 1.
    """

    def info(scores, ys):
        mistake = ys * scores <= 0
        return PerceptronInfo(sign_label(scores), mistake.astype(scores.dtype), mistake)

    update, run_block = _mistake_driven(
        prepare=_unit_rows if normalize else jnp.asarray,
        score=_scores,
        needs_update=lambda s, y: y * s <= 0,
        step_size=lambda t: schedule_value(eta, t),
        make_info=info,
        fit_intercept=fit_intercept,
    )

    return Learner(_init_weights, update, _predict, check_binary_stream, run_block, BLOCK_SIZE)


#: A margin of unit-length examples: :math:`0 < \gamma \le 1`.
MARGIN = Interval(0.0, 1.0, hi_closed=True)


@learner_factory("gamma", ranges={"gamma": MARGIN})
def margin_perceptron(gamma: ArrayLike, *, fit_intercept: bool = False) -> Learner:
    r"""Balcan's margin Perceptron: it updates on mistakes and on correct scores of too small a margin.

    .. math:: w_{t+1} = w_t + y_t \bar x_t\, 1[y_t s_t < \gamma/2], \qquad s_t = w_t \cdot \bar x_t / \|w_t\|,

    with :math:`\bar x_t = x_t / \|x_t\|`, :math:`w_1 = 0`, :math:`s_1 = 0`; predicts +1 iff :math:`s_t > 0`.
    Theorem 2: if a unit :math:`w^*` labels every example with :math:`|w^* \cdot \bar x| \ge \gamma`, at most
    :math:`12/\gamma^2` updates (:func:`jaxlearn.theory.margin_perceptron_bound`).

    Args:
      gamma: the margin :math:`\gamma \in (0, 1]` the data are assumed to have (traced: vmap over it freely).
      fit_intercept: add a bias :math:`b` (``PerceptronState.b``) as the weight of a constant feature
        appended to :math:`x` before it is normalised (static; the theorem is for the default, without).

    Returns:
      A :class:`~jaxlearn.core.Learner`, labels in {-1, +1}; ``Info`` is :class:`MarginPerceptronInfo`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, online, theory
      >>> X, y, _ = datasets.separable(jax.random.PRNGKey(0), 500, 5, margin=0.1)
      >>> learner = online.margin_perceptron(0.1)
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.update.sum() <= theory.margin_perceptron_bound(0.1))
      True

    References:
      Balcan, 8803 Machine Learning Theory, section 1.1, Theorem 2.
    """

    def score(w, X):
        norm = jnp.linalg.norm(w)
        return _scores(w, X) / jnp.where(norm > 0, norm, 1)

    def info(scores, ys):
        mistake = ys * scores <= 0
        update = ys * scores < _half(gamma, scores)
        return MarginPerceptronInfo(
            sign_label(scores), mistake.astype(scores.dtype), mistake, update & ~mistake, update
        )

    update, run_block = _mistake_driven(
        prepare=_unit_rows,
        score=score,
        needs_update=lambda s, y: y * s < _half(gamma, s),
        step_size=lambda t: jnp.ones([]),
        make_info=info,
        fit_intercept=fit_intercept,
    )

    return Learner(_init_weights, update, _predict, check_binary_stream, run_block, BLOCK_SIZE)
