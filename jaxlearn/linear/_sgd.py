"""Stochastic (sub-)gradient descent on a sample (SPEC sections 7.2-7.4; SS10 Algorithms 5 and 6).

One ``fit`` is one ``lax.scan`` of ``steps`` rounds. The example of round ``t`` is ``X[i_t]`` with
``i = jax.random.randint(key, (steps,), 0, m)`` drawn up front (:func:`sample_indices`): uniform with
replacement, and the same sequence for every learner given the same key, so that two algorithms
(feature-space and kernel soft-SVM, say) can be compared on the same draws.

The numeric hyperparameters (``eta``, ``lam``) are arguments of the compiled program, not constants
in it: building a learner with a new value does not recompile, and ``jax.vmap`` over them sweeps a
grid in one program. ``steps`` and the loss are structural (Python values).
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import optax
from jax.typing import ArrayLike

from jaxlearn.core import (
    BatchLearner,
    ScalarOrSchedule,
    check_positive,
    check_positive_int,
    check_sample,
    learner_factory,
)
from jaxlearn.linear._common import as_float, linear_score, sample_indices, sign_label

Array = jax.Array
Loss = Callable[[Array, Array, Array], Array]


class SGDParams(NamedTuple):
    r"""``w``: the output, :math:`\bar w = \frac1T\sum_{t=1}^T w_t` (or :math:`w_{T+1}` when
    ``average=False``); ``last``: the last iterate :math:`w_{T+1}`; ``num_steps``: :math:`T` (int32)."""

    w: Array
    last: Array
    num_steps: Array


# --------------------------------------------------------------------------------------------
# SGD
# --------------------------------------------------------------------------------------------


@learner_factory("eta", "lam", "projection")
def sgd(
    loss: Loss,
    *,
    steps: int,
    eta: Optional[ScalarOrSchedule] = None,
    lam: Optional[ArrayLike] = None,
    projection: Optional[Callable[[Array], Array]] = None,
    average: bool = True,
    optimizer: Optional[optax.GradientTransformation] = None,
    labels: Optional[tuple] = (-1, 1),
) -> BatchLearner:
    r"""SGD on the empirical risk, with the step sizes of SS10 Algorithms 5 and 6.

    The objective is :math:`f(w) = L_S(w) = \frac1m\sum_i \ell(w, (x_i, y_i))`, or with ``lam`` the
    :math:`\lambda`-strongly convex :math:`f(w) = L_S(w) + \frac\lambda2\|w\|^2`. Starting from
    :math:`w_1 = \Pi(0)` (:math:`= 0` whenever :math:`0 \in A`), for :math:`t = 1..T`:

    .. math::
        i_t \sim U[m], \quad v_t = \nabla_w \ell(w_t, (x_{i_t}, y_{i_t})) + \lambda w_t, \quad
        w_{t+1} = \Pi_A\big(w_t - \eta_t v_t\big), \qquad
        \bar w = \frac1T \sum_{t=1}^T w_t,

    with (SS10 section 13)

    - Algorithm 5 (convex, ``eta`` given): :math:`\eta_t = \eta/\sqrt t`. Theorem 5: if
      :math:`E\|v_t\|^2 \le \rho^2` and :math:`A` has diameter :math:`U`,
      :math:`E f(\bar w) - \min_A f \le \frac{1}{\sqrt T}(\frac{U^2}{2\eta} + \rho^2\eta)`, which is
      :math:`U\rho\sqrt{2/T}` at :math:`\eta = U/(\rho\sqrt2)` (:func:`jaxlearn.theory.sgd_convex_bound`).
    - Algorithm 6 (``lam`` given, ``eta=None``): :math:`\eta_t = 1/(\lambda t)`. Lemma 7:
      :math:`E f(\bar w) - \min f \le \frac{\rho^2}{2\lambda T}(1 + \ln T)`
      (:func:`jaxlearn.theory.sgd_strongly_convex_bound`). Without projection this is UML's
      :math:`w^{(t+1)} = -\frac{1}{\lambda t}\sum_{j \le t} \nabla\ell_j` (SPEC 7.4), and with
      :func:`jaxlearn.losses.hinge` it is exactly SS10 Algorithm 7 (``soft_svm(variant="ss10")``).

    With both ``eta`` and ``lam``, Algorithm 5's steps run on the regularised objective. A callable
    ``eta`` is a schedule of the 0-based step count, as in optax: :math:`\eta_t` = ``eta(t - 1)``.
    The sub-gradient is ``jax.grad(loss)``, with the conventions of :mod:`jaxlearn.losses` (the
    hinge's gradient is 0 at its kink). The output is the average of :math:`w_1..w_T` (including
    :math:`w_1`, excluding :math:`w_{T+1}`, SPEC 1.7).

    ``optimizer`` replaces the book's rule by any optax transformation on the same objective and the
    same index sequence (``optax.adam(1e-2)``, ``optax.sgd(schedule)``...); ``eta`` must then be
    ``None``. The projection, if any, is applied after each optimizer step.

    Args:
      loss: ``loss(w, x, y) -> scalar`` for one example, convex in ``w`` (:mod:`jaxlearn.losses`);
        logistic regression is ``sgd(jaxlearn.losses.logistic, ...)``.
      steps: the number of rounds :math:`T` (static).
      eta: :math:`\eta_1` of Algorithm 5 (traced: sweep it with ``jax.vmap``), or a schedule.
      lam: :math:`\lambda > 0`, the regularisation and strong-convexity parameter (traced).
      projection: :math:`\Pi_A`, e.g. :func:`jaxlearn.online.l2_ball` (identity by default). The loss,
        projection, schedule and optimizer are part of the compiled program's identity: build them
        once and reuse them (a new ``l2_ball(B)`` object per fit recompiles; ``B`` itself is traced).
      average: return :math:`\bar w` (the book's output); ``False`` returns :math:`w_{T+1}`.
      optimizer: an optax ``GradientTransformation`` used instead of the book's step sizes.
      labels: the label set ``fit`` checks and ``predict`` returns; ``None`` for regression losses
        (``squared``, ``absolute``): no label check, and ``predict`` returns the real score.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner` whose ``fit(key, X, y)`` returns :class:`SGDParams`;
      ``predict`` is +1 iff :math:`\langle \bar w, x\rangle > 0` (a zero score predicts -1).

    Raises:
      ValueError: if ``steps`` is not a positive int, neither ``eta`` nor ``lam`` (nor ``optimizer``)
        is given, ``eta`` is given with ``optimizer``, or a concrete ``eta``/``lam`` is not positive;
        ``fit`` raises on inputs of the wrong shape, NaN/inf or labels outside ``labels``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import losses
      >>> X = jnp.array([[1.0, 0.5], [-1.0, -0.2], [0.8, -0.1], [-0.5, -1.0]])
      >>> y = jnp.array([1.0, -1.0, 1.0, -1.0])
      >>> learner = sgd(losses.logistic, steps=2000, lam=0.1)
      >>> params = learner.fit(jax.random.PRNGKey(0), X, y)
      >>> learner.predict(params, X).tolist()
      [1.0, -1.0, 1.0, -1.0]

    References:
      SS10 L6 section 13, Algorithms 5-6, Theorem 5, Lemma 7; UML section 14.5 via 15.5 (SPEC 7.2-7.4).
    """
    steps = check_positive_int("steps", steps)
    if optimizer is not None and eta is not None:
        raise ValueError("expected `eta=None` with an `optimizer` (the optimizer sets the steps)")
    if optimizer is None and eta is None and lam is None:
        raise ValueError(
            "expected `eta` (Algorithm 5, eta_t = eta / sqrt(t)) or `lam` (Algorithm 6, eta_t = 1 / (lam t))"
        )
    check_positive("eta", eta)
    check_positive("lam", lam)
    schedule = eta if callable(eta) else None
    eta_value = None if callable(eta) else eta
    structure = dict(
        loss=loss, projection=projection, average=average, optimizer=optimizer, schedule=schedule
    )

    def fit(key, X, y):
        X, y = as_float(X, y)
        return _fit(sample_indices(key, steps, X.shape[0]), X, y, eta_value, lam, **structure)

    def predict(params, X):
        score = linear_score(params, X)
        return score if labels is None else sign_label(score)

    return BatchLearner(fit, predict, linear_score, functools.partial(check_sample, labels=labels))


@functools.partial(jax.jit, static_argnames=("loss", "projection", "average", "optimizer", "schedule"))
def _fit(idx, X, y, eta, lam, *, loss, projection, average, optimizer, schedule):
    # The indices come in drawn (``sample_indices``, outside): the PRNG's program is then compiled
    # once per number of steps, not once per learner.
    steps = idx.shape[0]
    dtype = X.dtype
    project = (lambda w: w) if projection is None else projection
    lam = None if lam is None else jnp.asarray(lam).astype(dtype)
    eta = None if eta is None else jnp.asarray(eta).astype(dtype)
    grad = jax.grad(loss)

    def subgradient(w, i):
        v = grad(w, X[i], y[i])
        return v if lam is None else v + lam * w

    def step_size(t):  # t = 1..T, as a float of the data's dtype
        if schedule is not None:
            return jnp.asarray(schedule(t - 1)).astype(dtype)
        if eta is not None:
            return eta / jnp.sqrt(t)
        return 1 / (lam * t)  # Algorithm 6

    def book_step(carry, it):
        w, total = carry
        i, t = it
        w_next = project(w - step_size(t) * subgradient(w, i))
        return (w_next, total + w), None

    def optax_step(carry, it):
        w, total, opt_state = carry
        i, _ = it
        with jax.numpy_dtype_promotion("standard"):  # optax's internals are not strict-promotion clean
            updates, opt_state = optimizer.update(subgradient(w, i), opt_state, w)
        w_next = project(optax.apply_updates(w, updates))
        return (w_next, total + w, opt_state), None

    w1 = project(jnp.zeros(X.shape[1], dtype))
    ts = jnp.arange(1, steps + 1, dtype=jnp.int32).astype(dtype)
    if optimizer is None:
        (last, total), _ = jax.lax.scan(book_step, (w1, jnp.zeros_like(w1)), (idx, ts))
    else:
        carry = (w1, jnp.zeros_like(w1), optimizer.init(w1))
        (last, total, _), _ = jax.lax.scan(optax_step, carry, (idx, ts))
    w = total / jnp.asarray(steps, dtype) if average else last
    return SGDParams(w=w, last=last, num_steps=jnp.asarray(steps, jnp.int32))
