r"""SGD in epochs of shuffled passes with Bottou's step sizes and a stopping rule (Bottou 2012, section 5.2).

One ``fit`` is one ``lax.while_loop`` over the epochs, each a ``lax.scan`` over a permutation of the
rows. It is the SGD of scikit-learn's ``SGDClassifier`` and ``Perceptron`` (same losses on the margin,
step sizes, unregularised intercept and stopping rule); :func:`jaxlearn.linear.sgd` is the book's.
:func:`epoch_sgd_fits` runs many such fits (a grid of ``alpha``) on one sample in one loop.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._buckets import shuffled
from jaxlearn._checks import check_sample
from jaxlearn._shared import as_float
from jaxlearn.core import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    BatchLearner,
    Interval,
    hyperparameters,
    learner_factory,
    loadable,
)
from jaxlearn.linear._common import linear_predict, linear_score

Array = jax.Array

#: The losses of a score ``p = <w, x> + b`` for a label ``y`` in {-1, +1}: ``(loss, dloss/dp)``, each
#: a function of ``(y, p, epsilon)``. At a kink the derivative is the left one, as Bottou's and
#: scikit-learn's code take it. The last four are regression losses on ``y - p``, which scikit-learn's
#: ``SGDClassifier`` also offers.
LOSSES = (
    "hinge",
    "log_loss",
    "modified_huber",
    "squared_hinge",
    "perceptron",
    "squared_error",
    "huber",
    "epsilon_insensitive",
    "squared_epsilon_insensitive",
)
SCHEDULES = ("optimal", "constant", "invscaling", "adaptive")
PENALTIES = (None, "l2", "l1", "elasticnet")

_MAX_DLOSS = 1e12  # the derivative is clipped to +-1e12, as scikit-learn does


def _hinge(threshold, y, p, epsilon):
    z = y * p
    return jnp.where(z <= threshold, threshold - z, 0.0), jnp.where(z <= threshold, -y, 0.0)


def _squared_hinge(y, p, epsilon):
    z = 1.0 - y * p
    return jnp.where(z > 0, z * z, 0.0), jnp.where(z > 0, -2.0 * y * z, 0.0)


def _log_loss(y, p, epsilon):
    return jax.nn.softplus(-y * p), -y * jax.nn.sigmoid(-y * p)


def _modified_huber(y, p, epsilon):
    z = y * p
    loss = jnp.where(z >= 1, 0.0, jnp.where(z >= -1, (1 - z) ** 2, -4 * z))
    return loss, jnp.where(z >= 1, 0.0, jnp.where(z >= -1, -2 * y * (1 - z), -4 * y))


def _squared_error(y, p, epsilon):
    return 0.5 * (p - y) ** 2, p - y


def _huber(y, p, epsilon):
    r = p - y
    inside = jnp.abs(r) <= epsilon
    loss = jnp.where(inside, 0.5 * r * r, epsilon * (jnp.abs(r) - 0.5 * epsilon))
    return loss, jnp.where(inside, r, epsilon * jnp.sign(r))


def _epsilon_insensitive(y, p, epsilon):
    z = y - p
    slope = jnp.where(z > epsilon, -1.0, jnp.where(-z > epsilon, 1.0, 0.0))
    return jnp.maximum(jnp.abs(z) - epsilon, 0.0), slope


def _squared_epsilon_insensitive(y, p, epsilon):
    z = y - p
    excess = jnp.maximum(jnp.abs(z) - epsilon, 0.0)
    slope = jnp.where(
        z > epsilon, -2 * (z - epsilon), jnp.where(z < -epsilon, 2 * (-z - epsilon), 0.0)
    )
    return excess * excess, slope


_LOSS = {
    "hinge": functools.partial(_hinge, 1.0),
    "perceptron": functools.partial(_hinge, 0.0),
    "squared_hinge": _squared_hinge,
    "log_loss": _log_loss,
    "modified_huber": _modified_huber,
    "squared_error": _squared_error,
    "huber": _huber,
    "epsilon_insensitive": _epsilon_insensitive,
    "squared_epsilon_insensitive": _squared_epsilon_insensitive,
}


@loadable
class EpochSGDParams(NamedTuple):
    r"""``w``, ``b``: the output (the averaged iterate once averaging has started, else the last);
    ``last_w``, ``last_b``: the last iterate; ``mean_w``, ``mean_b``: the running mean of the iterates
    since step ``average``; ``t``: 1 + the steps taken (scikit-learn's ``t_``), float; ``num_epochs``:
    the epochs of the last call (int32); ``diverged``: an epoch ended non-finite (the params are then
    those before it)."""

    w: Array
    b: Array
    last_w: Array
    last_b: Array
    mean_w: Array
    mean_b: Array
    t: Array
    num_epochs: Array
    diverged: Array


def init_params(num_features: int, dtype=jnp.float32) -> EpochSGDParams:
    """The starting point: zero weights and intercept, ``t = 1``."""
    w, b = jnp.zeros(num_features, dtype), jnp.zeros((), dtype)
    one, zero = jnp.ones((), dtype), jnp.zeros((), jnp.int32)
    return EpochSGDParams(w, b, w, b, w, b, one, zero, jnp.zeros((), bool))


#: The learner's structure (static) and its numeric hyperparameters (traced leaves).
_STATIC = ("loss", "penalty", "learning_rate", "fit_intercept", "shuffle")
_TRACED = (
    "alpha",
    "l1_ratio",
    "epsilon",
    "eta0",
    "power_t",
    "max_iter",
    "tol",
    "n_iter_no_change",
    "average",
)


def _check(X, y, sample_weight=None, init=None, validation=None, seed=None):
    check_sample(X, y, labels=(-1, 1))


@learner_factory(
    *_TRACED,
    ranges={
        "alpha": NON_NEGATIVE,
        "l1_ratio": Interval(0.0, 1.0, True, True),
        "epsilon": NON_NEGATIVE,
        "eta0": NON_NEGATIVE,
        "power_t": NON_NEGATIVE,
        "max_iter": POSITIVE_INT,
        "tol": NON_NEGATIVE,
        "n_iter_no_change": POSITIVE_INT,
        "average": POSITIVE,
    },
)
def epoch_sgd(
    loss: str = "hinge",
    *,
    alpha: ArrayLike = 1e-4,
    penalty: Optional[str] = "l2",
    l1_ratio: ArrayLike = 0.15,
    epsilon: ArrayLike = 0.1,
    learning_rate: str = "optimal",
    eta0: ArrayLike = 0.0,
    power_t: ArrayLike = 0.5,
    max_iter: ArrayLike = 1000,
    tol: Optional[ArrayLike] = 1e-3,
    n_iter_no_change: ArrayLike = 5,
    fit_intercept: bool = True,
    shuffle: bool = True,
    average: Optional[ArrayLike] = None,
) -> BatchLearner:
    r"""Regularised SGD on a loss of the margin, in epochs, stopped when the objective stalls.

    .. math:: w \leftarrow (1 - \eta_t\alpha) w - \eta_t c_i \ell'(y_i, p_i) x_i, \quad
        b \leftarrow b - \eta_t c_i \ell'(y_i, p_i), \quad p_i = \langle w, x_i\rangle + b,

    one step per example of each epoch (a fresh permutation when ``shuffle``), :math:`c_i` its weight.
    Step sizes: ``"optimal"`` :math:`\eta_t = 1/(\alpha(t_0 + t - 1))` with Bottou's
    :math:`t_0 = 1/(\alpha\eta_{typ})`, :math:`\eta_{typ} = \sqrt{1/\sqrt\alpha}/\max(1, \ell'(1,
    -\sqrt{1/\sqrt\alpha}))` (:math:`\ell' \le 0` there:
    :math:`\eta_{typ} = \alpha^{-1/4}`); ``"constant"`` :math:`\eta_0`; ``"invscaling"`` :math:`\eta_0/t^{p}`;
    ``"adaptive"`` :math:`\eta_0`, divided by 5 when the objective stalls. After each epoch the mean over
    the epoch of :math:`\ell(y_i, p_i) + \alpha\,\Omega(w)` (``l2``: :math:`\frac12\|w\|^2`) is compared
    with the best so far: ``n_iter_no_change`` epochs in a row above best - ``tol`` stop the fit.
    ``l1``/``elasticnet`` apply Tsuruoka et al.'s cumulative L1 penalty after each step.

    Args:
      loss: ``"hinge"``, ``"log_loss"``, ``"modified_huber"``, ``"squared_hinge"``, ``"perceptron"``
        (:math:`\max(0, -yp)`), or a regression loss of :math:`r = p - y`: ``"squared_error"``
        (:math:`r^2/2`), ``"huber"`` (:math:`r^2/2` for :math:`|r| \le \epsilon`, then linear),
        ``"epsilon_insensitive"`` (:math:`\max(0, |r| - \epsilon)`) or
        ``"squared_epsilon_insensitive"`` (its square) (static).
      epsilon: the :math:`\epsilon` of the last three (traced).
      alpha, l1_ratio: the penalty's weight and its L1 share (``elasticnet``); traced.
      penalty: ``None``, ``"l2"``, ``"l1"`` or ``"elasticnet"`` (static).
      learning_rate, eta0, power_t: the schedule (static) and its numbers (traced).
      max_iter, tol, n_iter_no_change: the stopping rule (traced; ``tol=None``: ``max_iter`` epochs).
      fit_intercept, shuffle: an unregularised intercept; a new order each epoch (static).
      average: ``None``, or the step :math:`\ge 1` from which the output is the mean of the iterates
        (ASGD; traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None, init=None,
      validation=None, seed=None) -> EpochSGDParams`` (labels in {-1, +1}; ``init``: the params to go
      on from, as ``partial_fit``; ``validation``: ``(held_out, weights)``, a mask of rows kept out of
      the steps and their weights: the stopping rule then watches the weighted accuracy on them,
      scikit-learn's ``early_stopping``, scored as scikit-learn scores them: with the weights divided
      by the product of the steps' weight decays since the fit began (its ``wscale``, 1 again
      whenever it falls below 1e-9, 1e-6 in float32); ``seed``: a 31-bit integer, to
      shuffle as scikit-learn's ``SGDClassifier`` does for that seed, one Fisher-Yates permutation
      of the rows applied again each epoch, instead of a fresh permutation per epoch drawn from
      ``key``); ``predict`` is +1 iff
      :math:`\langle w, x\rangle + b > 0`.

    Examples:
      >>> import jax, jax.numpy as jnp, jaxlearn
      >>> X = jnp.array([[1.0, 0.5], [-1.0, -0.2], [0.8, -0.1], [-0.5, -1.0]])
      >>> learner = jaxlearn.linear.epoch_sgd("hinge", alpha=0.01)
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, jnp.sign(X[:, 0])), X).tolist()
      [1.0, -1.0, 1.0, -1.0]

    References:
      L. Bottou, "Stochastic Gradient Descent Tricks" (2012), sections 5.1-5.2; UML section 14.5;
      Tsuruoka, Tsujii, Ananiadou (2009) for the cumulative L1 penalty.
    """
    if loss not in _LOSS:
        raise ValueError(f"expected `loss` one of {LOSSES}, got {loss!r}")
    if learning_rate not in SCHEDULES:
        raise ValueError(f"expected `learning_rate` one of {SCHEDULES}, got {learning_rate!r}")
    if penalty not in PENALTIES:
        raise ValueError(f"expected `penalty` one of {PENALTIES}, got {penalty!r}")
    hyper = dict(
        alpha=alpha,
        l1_ratio=l1_ratio,
        epsilon=epsilon,
        eta0=eta0,
        power_t=power_t,
        max_iter=max_iter,
        tol=tol,
        n_iter_no_change=n_iter_no_change,
        average=average,
    )
    structure = dict(
        loss=loss,
        penalty=penalty,
        learning_rate=learning_rate,
        fit_intercept=bool(fit_intercept),
        shuffle=bool(shuffle),
    )

    def fit(key, X, y, sample_weight=None, init=None, validation=None, seed=None):
        X, y = as_float(X, y)
        weights = (
            jnp.ones_like(y)
            if sample_weight is None
            else jnp.asarray(sample_weight).astype(X.dtype)
        )
        start = init_params(X.shape[1], X.dtype) if init is None else init
        if seed is not None:
            seed = jnp.asarray(seed).astype(jnp.uint32)
        return _fit(hyper, key, X, y, weights, start, validation, seed, **structure)

    return BatchLearner(fit, linear_predict, linear_score, _check)


def epoch_sgd_fits(
    learners: BatchLearner,
    key,
    X: ArrayLike,
    y: ArrayLike,
    sample_weight: Optional[ArrayLike] = None,
    init: Optional[EpochSGDParams] = None,
    validation=None,
    seed=None,
) -> EpochSGDParams:
    r"""The fits of several :func:`epoch_sgd` learners on a sample (or on each of several samples),
    in one loop over the epochs.

    ``learners`` is one learner whose numeric hyperparameters are stacked on a leading axis of length
    :math:`G` (``jax.tree.map(lambda *a: jnp.stack(a), *learners)``; its structure, such as ``loss``,
    shared). The result is ``jax.vmap(lambda l: l.fit(key, X, y, ...))(learners)``, the params of each
    fit stacked, bit for bit, computed faster: every fit visits the rows in the same orders (the same
    ``key`` or ``seed``), so each epoch's rows are gathered once for all of them and each step reads
    one row for every fit. A fit that has stopped keeps its params; on samples of 8,192 rows or more
    the fits still going run in smaller batches (a quarter, a sixteenth of :math:`G`) once they fit.

    With ``X`` of shape (S, m, d) (``y``, ``sample_weight`` and the ``validation`` masks (S, m),
    ``seed`` (S,)), every learner is fitted on each of the S samples, each in its own order: a grid
    over the folds of a cross-validation (or the one-vs-rest problems of each fold) in one call.

    Args:
      learners: the stacked learners.
      key, X, y, sample_weight, validation, seed: as :func:`epoch_sgd`'s ``fit`` (shared by the fits),
        or stacked on a leading axis of S samples.
      init: ``None`` (zeros), or the params to go on from, stacked as the learners ((S, G, ...) with
        S samples).

    Returns:
      :class:`EpochSGDParams`, each field with the leading axis :math:`G` ((S, G, ...) with S samples).

    Examples:
      >>> import jax, jax.numpy as jnp, jaxlearn
      >>> X = jnp.array([[1.0, 0.5], [-1.0, -0.2], [0.8, -0.1], [-0.5, -1.0]])
      >>> each = [jaxlearn.linear.epoch_sgd("hinge", alpha=a) for a in (0.001, 0.1)]
      >>> learners = jax.tree.map(lambda *a: jnp.stack(a), *each)
      >>> params = jaxlearn.linear.epoch_sgd_fits(learners, jax.random.key(0), X, jnp.sign(X[:, 0]))
      >>> params.w.shape, params.num_epochs.shape
      ((2, 2), (2,))
    """
    try:
        options = hyperparameters(learners)
    except TypeError:
        options = {}
    if options.get("loss") not in _LOSS or not isinstance(learners, BatchLearner):
        raise TypeError(f"expected `learners` stacked epoch_sgd learners, got {learners!r}")
    leaves = jax.tree.leaves(learners)
    sizes = {np.shape(leaf)[0] if np.ndim(leaf) else None for leaf in leaves}
    if len(sizes) != 1 or None in sizes:
        raise ValueError(
            "expected `learners` with every numeric hyperparameter stacked on one leading axis, "
            f"got leaves of shapes {sorted({np.shape(leaf) for leaf in leaves})}"
        )
    (size,) = sizes
    X, y = as_float(X, y)
    samples = np.ndim(X) == 3  # several samples, each fitted by every learner
    if not samples:
        X, y = X[None], y[None]
        sample_weight, init, seed, validation = jax.tree.map(
            lambda a: jnp.asarray(a)[None], (sample_weight, init, seed, validation)
        )
    if np.ndim(X) != 3 or np.ndim(y) != 2:
        raise ValueError(
            f"expected `X` of shape (m, d) and `y` (m,), or (S, m, d) and (S, m), got {np.shape(X)} "
            f"and {np.shape(y)}"
        )
    _check(X.reshape(-1, X.shape[-1]), y.reshape(-1))
    if X.shape[:2] != y.shape:
        raise ValueError(f"expected `X` and `y` with the same samples, got {X.shape} and {y.shape}")
    weights = jnp.ones_like(y) if sample_weight is None else jnp.asarray(sample_weight, X.dtype)
    if init is None:
        zeros = init_params(X.shape[-1], X.dtype)
        init = jax.tree.map(lambda a: jnp.broadcast_to(a, (X.shape[0], size, *a.shape)), zeros)
    if seed is not None:
        seed = jnp.asarray(seed).astype(jnp.uint32)
    hyper = {name: options[name] for name in _TRACED}
    structure = {name: options[name] for name in _STATIC}
    params = _fits(
        hyper,
        key,
        X,
        y,
        weights,
        init,
        validation,
        seed,
        batches=_batches(size, X.shape[1]),
        **structure,
    )
    return params if samples else jax.tree.map(lambda a: a[0], params)


#: From this many rows a sample, the epochs run the problems still going in smaller batches
#: (:func:`_batches`); on fewer, compiling the smaller batches' epochs costs more than they save.
BATCHED_FROM = 8192


def _batches(size: int, n: int) -> tuple:
    """The batch sizes of :func:`_fits_body` for ``size`` problems a sample of ``n`` rows: ``size``,
    and on samples of :data:`BATCHED_FROM` rows or more also a quarter and a sixteenth of it."""
    if n < BATCHED_FROM:
        return (size,)
    return tuple(sorted({size, -(-size // 4), -(-size // 16)}))


def _fisher_yates(seed, n, size: int):
    """The order of scikit-learn's ``SequentialDataset.shuffle(seed)`` over the first ``n`` of ``size``
    rows (the rest stay last): Fisher-Yates driven by Marsaglia's 32-bit xorshift (13, 17, 5), each
    draw taken modulo 2^31, a zero seed read as 1."""

    def swap(i, carry):
        order, state = carry
        state = jnp.where(state == 0, jnp.uint32(1), state)
        state = state ^ (state << 13)
        state = state ^ (state >> 17)
        state = state ^ (state << 5)
        j = i + ((state % jnp.uint32(2**31)) % (n - i).astype(jnp.uint32)).astype(i.dtype)
        return order.at[i].set(order[j]).at[j].set(order[i]), state

    order, _ = jax.lax.fori_loop(0, n - 1, swap, (jnp.arange(size), seed))
    return order


class _Problem(NamedTuple):
    """One fit's epochs, as functions of its carry (its hyperparameters closed over), so that one loop
    over the epochs can drive one fit (:func:`_fit_body`) or many on the same rows (:func:`_fits_body`)."""

    init: Callable  # start params -> carry
    going: Callable  # carry -> bool: another epoch is due
    epoch: Callable  # (carry, the epoch's rows) -> carry
    finish: Callable  # carry -> EpochSGDParams


def _sample(X, y, weights, validation):
    """The per-row arrays each epoch visits in its order: ``X, y, weights``, whether the row is passed
    over (a label 0 is a row left out, the padding of a size bucket; held-out rows), and ``||x||^2``
    (for the step-by-step ``||w||^2``)."""
    present = y != 0
    passed_over = ~present if validation is None else ~present | validation[0]
    return X, y, weights, passed_over, jnp.sum(X * X, axis=1)


def _problem(hyper, X, y, validation, *, loss, penalty, learning_rate, fit_intercept) -> _Problem:
    dtype = X.dtype

    def number(value):
        return jnp.asarray(value).astype(dtype)

    alpha, eta0, power_t = number(hyper["alpha"]), number(hyper["eta0"]), number(hyper["power_t"])
    epsilon = number(hyper["epsilon"])
    l1_ratio = {None: 0.0, "l2": 0.0, "l1": 1.0, "elasticnet": number(hyper["l1_ratio"])}[penalty]
    max_iter = jnp.asarray(hyper["max_iter"]).astype(jnp.int32)
    patience = jnp.asarray(hyper["n_iter_no_change"]).astype(jnp.int32)
    average = None if hyper["average"] is None else number(hyper["average"])
    tol = None if hyper["tol"] is None else number(hyper["tol"])
    loss_and_slope = functools.partial(_LOSS[loss], epsilon=epsilon)
    # scikit-learn keeps its weights as wscale * w, and folds wscale into w once it falls below this;
    # its early stopping scores the held-out rows with w alone, and so does this
    reset_scale = 1e-9 if jnp.dtype(dtype) == jnp.float64 else 1e-6
    if learning_rate == "optimal":  # Bottou's t0: the first step is eta_typ
        typical_w = jnp.sqrt(1 / jnp.sqrt(alpha))
        eta_typical = typical_w / jnp.maximum(1.0, loss_and_slope(number(1.0), -typical_w)[1])
        t0 = 1 / (eta_typical * alpha)

    def step_size(t, eta):
        """The step size of step ``t`` (``eta``: the current one, kept by the other schedules)."""
        if learning_rate == "optimal":
            return 1 / (alpha * (t0 + t - 1))
        if learning_rate == "invscaling":
            return eta0 / t**power_t
        return eta

    def step(carry, row):
        """Step ``t`` with step size ``eta``; it returns the step size of step ``t + 1``, so that XLA
        computes it with the scalars' updates, not in a kernel of its own."""
        w, b, mean_w, mean_b, t, eta, u, q, scale, total, sq = carry
        x, label, weight, x_sq = row
        xw = x @ w
        p = xw + b
        value, slope = loss_and_slope(label, p)
        if penalty == "l2":  # ||w||^2 kept up to date step by step, as scikit-learn's weight vector
            value = value + alpha * (0.5 * sq)
        elif penalty is not None:
            value = value + alpha * ((1 - l1_ratio) * 0.5 * (w @ w) + l1_ratio * jnp.abs(w).sum())
        update = -eta * jnp.clip(slope, -_MAX_DLOSS, _MAX_DLOSS) * weight
        if penalty in ("l2", "elasticnet"):
            decay = jnp.maximum(0.0, 1 - (1 - l1_ratio) * eta * alpha)
            w = w * decay
            if validation is not None:  # scikit-learn's wscale: 1 again once below its threshold
                scale = scale * decay
                scale = jnp.where(scale < reset_scale, 1.0, scale)
            if penalty == "l2":
                sq = sq * decay * decay + 2 * update * decay * xw + update * update * x_sq
        w = w + update * x
        if fit_intercept:
            b = b + update
        if average is not None:  # ASGD: the running mean of the iterates from step `average` on
            averaging = average <= t
            count = jnp.maximum(t - average + 1, 1.0)
            mean_w = jnp.where(averaging, mean_w + (w - mean_w) / count, mean_w)
            mean_b = jnp.where(averaging, mean_b + (b - mean_b) / count, mean_b)
        if penalty in (
            "l1",
            "elasticnet",
        ):  # the cumulative penalty u, what each weight got of it q
            u = u + l1_ratio * eta * alpha
            before = w
            w = jnp.where(
                w > 0,
                jnp.maximum(0.0, w - (u + q)),
                jnp.where(w < 0, jnp.minimum(0.0, w + (u - q)), w),
            )
            q = q + w - before
        next_eta = step_size(t + 1, eta)
        return (w, b, mean_w, mean_b, t + 1, next_eta, u, q, scale, total + value, sq), None

    # a step's carry: the vectors w, mean_w, q and the scalars b, mean_b, t, eta, u, scale, total,
    # ||w||^2 stacked in one vector, so that XLA updates the scalars in one kernel a step, not one each
    def pack(carry):
        w, b, mean_w, mean_b, t, eta, u, q, scale, total, sq = carry
        return w, mean_w, q, jnp.stack([b, mean_b, t, eta, u, scale, total, sq])

    def unpack(packed):
        w, mean_w, q, (b, mean_b, t, eta, u, scale, total, sq) = packed
        return w, b, mean_w, mean_b, t, eta, u, q, scale, total, sq

    count = jnp.sum(y != 0).astype(dtype)

    def train_step(packed, i, rows):
        """The step on row ``i`` of the epoch's ``rows`` (``X, y, weights, passed_over, row_sq`` in
        the epoch's order): held-out and left-out rows are passed over (no step, no count, no loss)."""
        X_epoch, y_epoch, weights_epoch, passed_epoch, sq_epoch = rows
        new, _ = step(unpack(packed), (X_epoch[i], y_epoch[i], weights_epoch[i], sq_epoch[i]))
        new = pack(new)
        return jax.tree.map(lambda a, b: jnp.where(passed_epoch[i], b, a), new, packed), None

    def going(carry):
        epoch, _, _, _, _, _, stop, _ = carry
        return (epoch < max_iter) & ~stop

    def epoch_of(carry, rows):
        epoch, state, eta, carried, best, stalled, _, _ = carry
        w, t = state[0], state[4]
        # the epoch's first step size from t (the carry holds eta0 before the first epoch)
        zero, eta = jnp.zeros((), dtype), step_size(t, eta)
        packed, _ = jax.lax.scan(
            lambda carry, i: train_step(carry, i, rows),
            pack((*state, eta, *carried, zero, w @ w)),  # ||w||^2 exact at the start of each epoch
            jnp.arange(y.shape[0]),
        )
        (*new, eta, u, q, scale, total, _) = unpack(packed)
        diverged = ~jnp.all(jnp.stack([jnp.isfinite(a).all() for a in new]))
        objective = total / count
        if (
            validation is not None
        ):  # minus the weighted accuracy on the held-out rows: lower is better
            held_out, held_weights = validation
            # scored as scikit-learn scores them: its weight vector's data, the weights over wscale
            correct = jnp.where(X @ (new[0] / scale) + new[1] > 0, 1.0, -1.0) == y
            objective = -jnp.sum(jnp.where(held_out & correct, held_weights, 0.0)) / jnp.sum(
                jnp.where(held_out, held_weights, 0.0)
            )
        tired = jnp.zeros((), bool)
        if tol is not None:
            stalled = jnp.where(objective > best - tol, stalled + 1, 0)
            best = jnp.minimum(best, objective)
            tired = stalled >= patience
            if learning_rate == "adaptive":
                shrink = tired & (eta > 1e-6)
                eta = jnp.where(shrink, eta / 5, eta)
                stalled = jnp.where(shrink, 0, stalled)
                tired = tired & ~shrink
        state = jax.tree.map(
            lambda a, b: jnp.where(diverged, b, a), tuple(new), state
        )  # keep the finite one
        carried = (u, q, scale)
        return epoch + 1, state, eta, carried, best, stalled, tired | diverged, diverged

    def init(start):
        state = (start.last_w, start.last_b, start.mean_w, start.mean_b, number(start.t))
        # the cumulative L1 penalty u, what each weight got of it q, and scikit-learn's wscale
        carried = (jnp.zeros((), dtype), jnp.zeros_like(start.last_w), jnp.ones((), dtype))
        inf, zero_int, false = (
            jnp.asarray(jnp.inf, dtype),
            jnp.zeros((), jnp.int32),
            jnp.zeros((), bool),
        )
        return zero_int, state, eta0, carried, inf, zero_int, false, false

    def finish(carry):
        epochs, state, *_, diverged = carry
        last_w, last_b, mean_w, mean_b, t = state
        w, b = last_w, last_b
        if average is not None:
            w = jnp.where(average <= t - 1, mean_w, last_w)
            b = jnp.where(average <= t - 1, mean_b, last_b)
        return EpochSGDParams(w, b, last_w, last_b, mean_w, mean_b, t, epochs, diverged)

    return _Problem(init, going, epoch_of, finish)


def _permutation(y, seed, shuffle: bool):
    """scikit-learn's order for ``seed``: one Fisher-Yates permutation of the rows present (``None``
    without ``shuffle`` or ``seed``)."""
    if not shuffle or seed is None:
        return None
    return _fisher_yates(seed, jnp.sum(y != 0).astype(jnp.int32), y.shape[0])


def _next_order(key, epoch, order, permutation, *, shuffle: bool, seeded: bool):
    """The order of the rows in epoch ``epoch`` from the last one's: unchanged without ``shuffle``;
    scikit-learn's (``permutation`` applied again each epoch) when ``seeded``; else a fresh
    permutation drawn from ``key``."""
    if not shuffle:
        return order
    if not seeded:
        return shuffled(jax.random.fold_in(key, epoch), order.shape[0])
    return order[permutation]


def _fit_body(hyper, key, X, y, weights, start, validation, seed, *, shuffle, **structure):
    sample = _sample(X, y, weights, validation)
    problem = _problem(hyper, X, y, validation, **structure)
    permutation = _permutation(y, seed, shuffle)
    next_order = functools.partial(_next_order, key, shuffle=shuffle, seeded=seed is not None)

    def epoch_of(carry):
        order, fit = carry
        order = next_order(fit[0], order, permutation)
        # the rows gathered in the epoch's order once: each step then reads its row at one index
        # shared by every problem of a vmap (a batched gather at every step runs several times slower)
        return order, problem.epoch(fit, tuple(a[order] for a in sample))

    carry = (jnp.arange(y.shape[0]), problem.init(start))
    _, fit = jax.lax.while_loop(lambda carry: problem.going(carry[1]), epoch_of, carry)
    return problem.finish(fit)


def _fits_body(
    hypers, key, X, y, weights, starts, validation, seed, *, batches, shuffle, **structure
):
    """:func:`_fit_body` of every problem of ``hypers`` (stacked on a leading axis of length G) on each
    of S samples (``X`` (S, n, d), ``y``, ``weights`` (S, n), ``seed`` (S,), ``starts`` (S, G, ...)),
    in one loop over the epochs. Each epoch gathers a sample's rows once, in the order its problems
    share, and each step reads them at one index. An epoch runs the problems still going, gathered
    into the smallest batch of ``batches`` (increasing sizes, the last G) that holds those of every
    sample; a problem that has stopped keeps its carry. Returns params (S, G, ...)."""
    num_samples = y.shape[0]

    def setup(X, y, weights, validation, seed):
        return _sample(X, y, weights, validation), _permutation(y, seed, shuffle)

    samples, permutations = jax.vmap(setup)(X, y, weights, validation, seed)
    next_order = functools.partial(_next_order, key, shuffle=shuffle, seeded=seed is not None)
    every = jax.tree.map(lambda h: jnp.broadcast_to(h, (num_samples, *jnp.shape(h))), hypers)

    def each(method, hypers, fits, *extra):
        """``method`` of every problem: ``hypers``, ``fits`` (S, k, ...), ``extra`` (S, ...)."""

        def sample(hypers, fits, X, y, validation, *extra):
            def one(hyper, fit):
                problem = _problem(hyper, X, y, validation, **structure)
                return getattr(problem, method)(fit, *extra)

            return jax.vmap(one)(hypers, fits)

        return jax.vmap(sample)(hypers, fits, X, y, validation, *extra)

    def epoch_of(carry):
        epoch, orders, fits = carry
        orders = jax.vmap(lambda order, p: next_order(epoch, order, p))(orders, permutations)
        rows = jax.vmap(lambda sample, order: tuple(a[order] for a in sample))(samples, orders)
        going = each("going", every, fits)  # (S, G)

        def batch(size):
            def run(fits):
                chosen = jnp.argsort(~going, axis=1, stable=True)[:, :size]  # the going first

                def take(a):
                    index = chosen.reshape(chosen.shape + (1,) * (a.ndim - 2))
                    return jnp.take_along_axis(a, index, axis=1)

                part, on = jax.tree.map(take, fits), take(going)
                new = each("epoch", jax.tree.map(take, every), part, rows)
                new = jax.tree.map(
                    lambda a, b: jnp.where(on.reshape(on.shape + (1,) * (a.ndim - 2)), a, b),
                    new,
                    part,
                )
                where = (jnp.arange(num_samples)[:, None], chosen)
                return jax.tree.map(lambda a, b: a.at[where].set(b), fits, new)

            return run

        running = jnp.max(jnp.sum(going, axis=1))
        index = jnp.searchsorted(
            jnp.asarray(batches), running
        )  # the smallest batch that holds them
        fits = jax.lax.switch(index, [batch(size) for size in batches], fits)
        return epoch + 1, orders, fits

    orders = jnp.broadcast_to(jnp.arange(y.shape[1]), y.shape)
    carry = (jnp.zeros((), jnp.int32), orders, each("init", every, starts))
    _, _, fits = jax.lax.while_loop(
        lambda carry: jnp.any(each("going", every, carry[2])), epoch_of, carry
    )
    return each("finish", every, fits)


_fit = jax.jit(_fit_body, static_argnames=_STATIC)
_fits = jax.jit(_fits_body, static_argnames=(*_STATIC, "batches"))
