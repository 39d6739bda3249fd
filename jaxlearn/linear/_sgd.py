"""Stochastic (sub-)gradient descent on a sample (SS10 Algorithms 5 and 6; UML section 15.5).

One ``fit`` is one ``lax.scan``. The example indices are drawn up front from the key
(:func:`sample_indices`), so learners given the same key see the same draws.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import optax
from jax.typing import ArrayLike

from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._progress import scan
from jaxlearn._shared import ScalarOrSchedule, as_float
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.linear._common import (
    all_devices,
    data_parallel,
    linear_predict,
    linear_score,
    minibatches,
)

Array = jax.Array
Loss = Callable[[Array, Array, Array], Array]


@loadable
class SGDParams(NamedTuple):
    r"""``w``: the output, :math:`\bar w = \frac1T\sum_{t=1}^T w_t` (or :math:`w_{T+1}` when
    ``average=False``); ``last``: the last iterate :math:`w_{T+1}`; ``num_steps``: :math:`T` (int32);
    ``diverged``: some :math:`w_t` (or the running sum) was not finite; then ``last`` is the last
    finite iterate :math:`w_k` and ``w`` the mean of :math:`w_1..w_k` (of the terms that kept the sum
    finite)."""

    w: Array
    last: Array
    num_steps: Array
    diverged: Array = False


# --------------------------------------------------------------------------------------------
# SGD
# --------------------------------------------------------------------------------------------


@learner_factory(
    "eta",
    "lam",
    "projection",
    ranges={"steps": POSITIVE_INT, "eta": POSITIVE, "lam": POSITIVE, "batch_size": POSITIVE_INT},
    functions=("loss", "projection"),
)
def sgd(
    loss: Loss,
    *,
    steps: int,
    batch_size: int = 1,
    eta: Optional[ScalarOrSchedule] = None,
    lam: Optional[ArrayLike] = None,
    projection: Optional[Callable[[Array], Array]] = None,
    average: bool = True,
    optimizer: Optional[optax.GradientTransformation] = None,
    labels: Optional[tuple] = (-1, 1),
    progress: bool = False,
) -> BatchLearner:
    r"""SGD on the empirical risk, optionally regularised, with the step sizes of SS10 Algorithms 5 and 6.

    .. math:: w_{t+1} = \Pi_A(w_t - \eta_t (\nabla \ell(w_t, z_{i_t}) + \lambda w_t)), \; i_t \sim U[m], \;
        w_1 = \Pi_A(0), \; \eta_t = \eta/\sqrt t \text{ or } 1/(\lambda t), \; \bar w = \frac1T \sum_t w_t

    (Algorithm 5; 6 if ``eta`` is ``None``, 7 with the hinge). With ``batch_size=b > 1`` the gradient
    is that of a stratified mini-batch, :math:`\sum_j c_j \nabla\ell(w_t, z_{i_j})`, :math:`i_j` uniform
    over the :math:`j`-th of :math:`b` contiguous blocks of rows, :math:`c_j` its share of the sample
    (as :func:`soft_svm`); with ``X`` split by rows over devices (:func:`jaxlearn.parallel.shard_rows`)
    it runs data-parallel, each device on its own rows, the partial sums added by ``lax.psum``.
    :math:`E f(\bar w) - \min_A f` is at most
    :func:`jaxlearn.theory.sgd_convex_bound` (:math:`U\rho\sqrt{2/T}`, best :math:`\eta`) or, for Algorithm 6,
    :func:`jaxlearn.theory.sgd_strongly_convex_bound` (:math:`\frac{\rho^2}{2\lambda T}(1 + \ln T)`).

    Args:
      loss: ``loss(w, x, y)``, convex in ``w`` (:mod:`jaxlearn.losses`); ``jax.grad`` gives the sub-gradient.
      steps, lam: the number of rounds :math:`T` (static); :math:`\lambda > 0` (traced).
      batch_size: the examples :math:`b` per step (static; at most the sample size).
      eta, optimizer: :math:`\eta` (traced) or a schedule ``eta(t - 1)``; optax steps instead (``eta=None``).
      projection, average: :math:`\Pi_A` (identity, or e.g. ``online.l2_ball``); ``False``: :math:`w_{T+1}`.
      labels: checked by ``fit``, returned by ``predict``; ``None`` for regression (real scores).
      progress: show a tqdm bar over the steps during ``fit`` (static; the ``progress`` extra).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner` (``fit -> SGDParams``); ``predict`` is +1 iff ``x @ w > 0``.
      A non-finite iterate (too large a step size) is never returned: the params keep the last finite
      one and set ``diverged`` (an eager ``fit`` warns).

    Examples:
      >>> import jax, jax.numpy as jnp, jaxlearn
      >>> X = jnp.array([[1.0, 0.5], [-1.0, -0.2], [0.8, -0.1], [-0.5, -1.0]])
      >>> learner = jaxlearn.linear.sgd(jaxlearn.losses.logistic, steps=2000, lam=0.1)  # Algorithm 6
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, jnp.sign(X[:, 0])), X).tolist()
      [1.0, -1.0, 1.0, -1.0]

    References:
      SS10 L6 section 13, Algorithms 5-6, Theorem 5, Lemma 7; UML sections 14.5, 15.5.
    """
    steps, batch_size = (
        check_positive_int("steps", steps),
        check_positive_int("batch_size", batch_size),
    )
    if optimizer is not None and eta is not None:
        raise ValueError("expected `eta=None` with an `optimizer` (the optimizer sets the steps)")
    if optimizer is None and eta is None and lam is None:
        raise ValueError(
            "expected `eta` (Algorithm 5, eta_t = eta / sqrt(t)) or `lam` (Algorithm 6, eta_t = 1 / (lam t))"
        )
    schedule = eta if callable(eta) else None
    eta_value = None if callable(eta) else eta
    structure = dict(
        loss=loss,
        projection=projection,
        average=average,
        optimizer=optimizer,
        schedule=schedule,
        progress=progress,
    )

    def fit(key, X, y):
        X, y = as_float(X, y)
        idx, weights, split = minibatches(key, steps, X, batch_size)
        if split is None:
            return _fit(idx, X, y, eta_value, lam, weights, **structure)
        return data_parallel(_fit_body, split, **structure)(idx, X, y, eta_value, lam, weights)

    def predict(params, X):
        return linear_score(params, X) if labels is None else linear_predict(params, X)

    return BatchLearner(fit, predict, linear_score, functools.partial(check_sample, labels=labels))


def _fit_body(
    idx,
    X,
    y,
    eta,
    lam,
    weights,
    *,
    loss,
    projection,
    average,
    optimizer,
    schedule,
    progress=False,
    axes=None,
):
    # The indices come in drawn (``minibatches``, outside): the PRNG's program is then compiled
    # once per number of steps, not once per learner. ``weights``: the batch's c_j (None: one example);
    # ``axes``: the mesh axes to sum the batch's gradient over (data-parallel; None on one device).
    steps = idx.shape[0]
    dtype = X.dtype
    project = (lambda w: w) if projection is None else projection
    lam = None if lam is None else jnp.asarray(lam).astype(dtype)
    eta = None if eta is None else jnp.asarray(eta).astype(dtype)
    grad = jax.grad(loss)

    def loss_gradient(w, i):
        if weights is None:
            return grad(w, X[i], y[i])
        per_example = jax.vmap(grad, in_axes=(None, 0, 0))(
            w, X[i], y[i]
        )  # this device's part of the batch
        return all_devices(weights @ per_example, axes)

    def subgradient(w, i):
        v = loss_gradient(w, i)
        return v if lam is None else v + lam * w

    def step_size(t):  # t = 1..T, as a float of the data's dtype
        if schedule is not None:
            return jnp.asarray(schedule(t - 1)).astype(dtype)
        if eta is not None:
            return eta / jnp.sqrt(t)
        return 1 / (lam * t)  # Algorithm 6

    def book_step(state, i, t):
        (w,) = state
        return (project(w - step_size(t) * subgradient(w, i)),)

    def optax_step(state, i, t):
        w, opt_state = state
        with jax.numpy_dtype_promotion(
            "standard"
        ):  # optax's internals are not strict-promotion clean
            updates, opt_state = optimizer.update(subgradient(w, i), opt_state, w)
        return project(optax.apply_updates(w, updates)), opt_state

    def step(carry, it):
        state, total = carry
        return (advance(state, *it), total + state[0]), None

    advance = book_step if optimizer is None else optax_step
    w1 = project(jnp.zeros(X.shape[1], dtype))
    start = (w1,) if optimizer is None else (w1, optimizer.init(w1))
    ts = jnp.arange(1, steps + 1, dtype=jnp.int32).astype(dtype)
    carry = (start, jnp.zeros_like(w1))
    (state, total), _ = scan(step, carry, (idx, ts), progress=progress, desc="jaxlearn.linear.sgd")
    # A non-finite iterate makes the sum non-finite for good: checked once, after the loop; only then
    # are the steps replayed up to the last finite iterate (a while loop: zero trips otherwise).
    diverged = ~(jnp.isfinite(state[0]).all() & jnp.isfinite(total).all())
    finite_last, finite_total, count = _replay(advance, start, idx, ts, diverged)
    last = jnp.where(diverged, finite_last, state[0])
    finite_mean = finite_total / jnp.maximum(count, 1).astype(dtype)
    w = jnp.where(diverged, finite_mean, total / jnp.asarray(steps, dtype)) if average else last
    return SGDParams(w=w, last=last, num_steps=jnp.asarray(steps, jnp.int32), diverged=diverged)


_STATIC = ("loss", "projection", "average", "optimizer", "schedule", "progress")
_fit = jax.jit(_fit_body, static_argnames=_STATIC)


def _replay(advance, start, idx, ts, diverged):
    """The steps again, from ``start``, while ``w_t`` and the sum of ``w_1..w_t`` stay finite: the last
    finite iterate, that sum and the number of its terms (no step at all unless ``diverged``)."""

    def keep_going(carry):
        return ~carry[-1]

    def one(carry):
        t, state, total, _ = carry
        total_next = total + state[0]
        new = advance(state, idx[t], ts[t])
        summed = jnp.isfinite(total_next).all()
        moved = summed & jnp.isfinite(new[0]).all()
        state = jax.tree_util.tree_map(lambda a, b: jnp.where(moved, a, b), new, state)
        total = jnp.where(summed, total_next, total)
        return t + summed.astype(jnp.int32), state, total, ~moved | (t + 1 >= idx.shape[0])

    init = (jnp.zeros([], jnp.int32), start, jnp.zeros_like(start[0]), ~diverged)
    count, state, total, _ = jax.lax.while_loop(keep_going, one, init)
    return state[0], total, count
