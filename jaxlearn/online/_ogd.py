"""Online gradient descent with projection (UML section 21.3; COMP0078 "OGD with Hinge Loss")."""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxlearn._checks import (
    check_binary_stream,
    check_finite,
    check_ndim,
    check_sample_shapes,
    check_width,
)
from jaxlearn._shared import (
    ScalarOrSchedule,
    as_float,
    check_scalar_label,
    float_dtype,
    on_device,
    schedule_value,
    zero_counter,
    zeros,
)
from jaxlearn.core import POSITIVE, POSITIVE_INT, Learner, learner_factory, loadable

Array = jax.Array
Loss = Callable[[Array, Array, Array], Array]


@loadable
class OGDState(NamedTuple):
    """``w``: the current iterate :math:`w^{(t)}`; ``b``: the bias (0 unless ``fit_intercept``);
    ``step``: rounds played (int32); ``diverged``: a step produced a non-finite iterate, which was not
    kept (``w`` and ``b`` are the last finite ones; sticky)."""

    w: Array
    b: Array
    step: Array
    diverged: Array


@loadable
class OGDInfo(NamedTuple):
    r"""``prediction``: the real score :math:`\langle w^{(t)}, x_t\rangle`; ``loss``:
    :math:`\ell(w^{(t)}, (x_t, y_t))`; ``grad_norm``: :math:`\|v_t\|`, for the pathwise regret bound."""

    prediction: Array
    loss: Array
    grad_norm: Array


@learner_factory(
    "eta",
    "projection",
    aliases={"learning_rate": "eta"},
    ranges={"eta": POSITIVE},
    functions=("loss", "projection"),
)
def online_gradient_descent(
    loss: Loss,
    eta: ScalarOrSchedule,
    *,
    projection: Optional[Callable[[Array], Array]] = None,
    fit_intercept: bool = False,
) -> Learner:
    r"""Online (sub-)gradient descent with a projection onto the hypothesis set.

    .. math:: w_{t+1} = \Pi(w_t - \eta_t v_t), \quad v_t = \nabla_w \ell(w_t, z_t), \quad w_1 = \Pi(0).

    Regret against every :math:`u \in H`: at most :math:`\|u\|^2/(2\eta) + (\eta/2)\sum_t \|v_t\|^2`
    (:func:`jaxlearn.theory.ogd_pathwise_bound`; :func:`jaxlearn.theory.ogd_regret_bound` for the hinge).
    A step whose iterate is not finite (too large an :math:`\eta`) is not taken: ``w`` stays the last
    finite iterate and ``OGDState.diverged`` is set (``core.run`` then warns).

    Args:
      loss: ``loss(w, x, y)``, convex in ``w`` (:mod:`jaxlearn.losses`); ``jax.grad`` gives :math:`v_t`.
      eta: :math:`\eta_t > 0`: a number, array or schedule of the 0-based round (traced); alias
        ``learning_rate``.
      projection: :math:`\Pi`, e.g. :func:`l2_ball` or :func:`box` (radius traced); identity by default.
      fit_intercept: add an unregularised, unprojected bias :math:`b`: the loss is taken at
        :math:`(w, b)` on :math:`(x, 1)` and :math:`b` moves by its own gradient step (static; the
        regret bounds are stated for the default, without).

    Returns:
      A :class:`~jaxlearn.core.Learner`, labels in {-1, +1}; ``predict`` returns the real score.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, losses, online, theory
      >>> X, y, _ = datasets.separable(jax.random.PRNGKey(0), 200, 5, margin=0.1)  # 10 w* has hinge loss 0
      >>> learner = online.online_gradient_descent(losses.hinge, 0.1, projection=online.l2_ball(10.0))
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.loss.sum() <= theory.ogd_pathwise_bound(10.0, 0.1, trace.grad_norm**2))
      True

    References:
      UML section 21.3; COMP0078 "Online Approach", "OGD with Hinge Loss".
    """
    project = (lambda w: w) if projection is None else projection

    def init(example_x, key=None):
        x = on_device(example_x)
        check_ndim("example_x", x, 1, "(d,)")
        dtype = float_dtype(x)
        w = project(zeros(x.shape, dtype, like=x))
        b, diverged = zeros((), dtype, like=x), zeros((), bool, like=x)
        return OGDState(w=w, b=b, step=zero_counter(), diverged=diverged)

    def predict(state, x):
        check_width("x", x, state.w.shape[0])
        return jnp.vdot(state.w, jnp.asarray(x).astype(state.w.dtype)) + state.b

    def update(state, x, y):
        check_width("x", x, state.w.shape[0])
        check_scalar_label(y)
        x = jnp.asarray(x).astype(state.w.dtype)
        y = jnp.asarray(y).astype(state.w.dtype)
        step_size = jnp.asarray(schedule_value(eta, state.step)).astype(state.w.dtype)
        if fit_intercept:  # the loss at (w, b) on (x, 1); the bias is not projected
            value, v = jax.value_and_grad(loss)(jnp.append(state.w, state.b), jnp.append(x, 1), y)
            grad_norm = jnp.linalg.norm(v)
            v, b = v[:-1], state.b - step_size * v[-1]
        else:
            value, v = jax.value_and_grad(loss)(state.w, x, y)
            b, grad_norm = state.b, jnp.linalg.norm(v)
        w = project(state.w - step_size * v)
        finite = jnp.all(jnp.isfinite(w)) & jnp.isfinite(b)  # never keep a non-finite iterate
        info = OGDInfo(prediction=jnp.vdot(state.w, x) + state.b, loss=value, grad_norm=grad_norm)
        w, b = jnp.where(finite, w, state.w), jnp.where(finite, b, state.b)
        return OGDState(w, b, state.step + 1, state.diverged | ~finite), info

    return Learner(init, update, predict, check_binary_stream)


def best_fixed_predictor(
    loss: Loss,
    X: Array,
    y: Array,
    *,
    projection: Optional[Callable[[Array], Array]] = None,
    steps: int = 1000,
    eta: float = 1.0,
    learning_rate: Optional[float] = None,
) -> Array:
    r"""The comparator of the regret, :math:`\arg\min_{u \in H} \sum_t \ell(u, (x_t, y_t))`, approximately.

    Projected sub-gradient descent (``optax.sgd`` with an :math:`\eta/\sqrt{k}` schedule, then the
    projection) on the average loss, returning the best iterate seen. Use it to measure regret in
    hindsight: ``regret(trace.loss, vmap(loss, (None, 0, 0))(u, X, y))``. ``eta`` (alias
    ``learning_rate``) should be
    of the order of the comparator's norm divided by the data radius (for the ball of radius ``U``:
    about ``U / R``). ``X`` of shape (m, d) and ``y`` of shape (m,) must be finite.
    """
    eta = eta if learning_rate is None else learning_rate
    POSITIVE.check("learning_rate" if learning_rate is not None else "eta", eta)
    POSITIVE_INT.check("steps", steps)
    X, y = (np.asarray(a) if isinstance(a, list) else a for a in (X, y))
    check_sample_shapes(X, y)
    check_finite("X", X)
    check_finite("y", y)
    X, y = as_float(X, y)
    dtype = X.dtype
    project = (lambda w: w) if projection is None else projection
    total = lambda u: jnp.mean(jax.vmap(loss, (None, 0, 0))(u, X, y))  # noqa: E731
    rate = jnp.asarray(eta).astype(dtype)
    optimizer = optax.sgd(lambda k: rate / jnp.sqrt(jnp.asarray(k + 1).astype(dtype)))

    def step(carry, _):
        u, opt_state, best, best_value = carry
        value, grad = jax.value_and_grad(total)(u)
        better = value < best_value
        best, best_value = jnp.where(better, u, best), jnp.where(better, value, best_value)
        updates, opt_state = optimizer.update(grad, opt_state, u)
        return (project(optax.apply_updates(u, updates)), opt_state, best, best_value), None

    u0 = project(jnp.zeros(X.shape[1], dtype))
    carry = (u0, optimizer.init(u0), u0, jnp.asarray(jnp.inf, dtype))
    (u, _, best, best_value), _ = jax.lax.scan(step, carry, None, length=steps)
    return jnp.where(total(u) < best_value, u, best)
