r"""Epochs of minibatch descent on a classifier network until the epoch loss stops improving, as
scikit-learn's ``MLPClassifier`` trains (UML section 20.6): one compiled ``lax.while_loop`` over epochs,
each epoch one pass of :func:`~jaxlearn.nn.mlp_epoch`'s body."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._checks import check_multiclass_sample, check_width, is_concrete
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._lbfgs import check_sample_weight, minimize_lbfgs
from jaxlearn._shared import on_device
from jaxlearn.nn._epoch import one_pass
from jaxlearn.nn._mlp import Activation, Params, mlp_apply, relu
from jaxlearn.nn._train import picked_entries

Array = jax.Array

#: The optimisers :func:`mlp_fit` builds from traced hyperparameters, and full-batch L-BFGS.
FIT_OPTIMIZERS = ("adam", "sgd", "lbfgs")
#: [0, 1): Adam's decay rates (scikit-learn's ``beta_1``, ``beta_2``).
DECAY = core.Interval(0.0, 1.0, lo_closed=True)


class MLPFit(NamedTuple):
    """What :func:`mlp_fit` returns.

    Attributes:
      layers: the network: the last iterate, or with ``validation`` the iterate of best held-out
        accuracy (the earliest of equals).
      loss_curve: ``(max_epochs,)``: entry ``e`` the mean batch loss of epoch ``e`` (penalty
        included), NaN from epoch ``n_epochs`` on; with ``"lbfgs"``, ``(1,)``: the loss at the end.
      validation_scores: ``(max_epochs,)`` held-out accuracies after each epoch (NaN past the last),
        or ``None`` without ``validation``.
      n_epochs: the epochs run (int32); with ``"lbfgs"``, its iterations.
      converged: True if the stopping rule ended the run (False: ``max_epochs`` was reached, or
        divergence).
      diverged: True if an epoch's loss or parameters became non-finite; ``layers`` then holds the last
        finite iterate.
    """

    layers: list
    loss_curve: Array
    validation_scores: Optional[Array]
    n_epochs: Array
    converged: Array
    diverged: Array


def mlp_fit(
    key: Array,
    layers: Params,
    X: ArrayLike,
    y: ArrayLike,
    *,
    sample_weight: Optional[ArrayLike] = None,
    validation: Optional[tuple] = None,
    eta: ArrayLike = 1e-3,
    alpha: ArrayLike = 1e-4,
    optimizer: str = "adam",
    batch_size: int = 200,
    activation: Activation = relu,
    max_epochs: int = 200,
    tol: ArrayLike = 1e-4,
    n_iter_no_change: ArrayLike = 10,
    shuffle: bool = True,
    beta_1: ArrayLike = 0.9,
    beta_2: ArrayLike = 0.999,
    epsilon: ArrayLike = 1e-8,
    momentum: ArrayLike = 0.9,
    nesterov: bool = True,
) -> MLPFit:
    r"""Epochs of minibatch descent from ``layers`` until the loss stops improving (one ``while_loop``).

    Each batch :math:`B` of an epoch (a permutation of the rows cut into pieces of ``batch_size``, the
    last shorter) takes one optimiser step on the weighted cross-entropy plus an L2 penalty on the
    weight matrices (not the biases), both over the batch's weight:

    .. math:: L_B(w) = \frac{\sum_{i \in B} s_i\,(-\log \mathrm{softmax}(h_w(x_i))_{y_i})
        + \frac\alpha2 \sum_t \|W_t\|_F^2}{\sum_{i \in B} s_i}.

    The epoch loss is :math:`\sum_B |B|\,L_B / m`. Let :math:`c` count the epochs in a row that did not
    improve: an epoch loss above the best so far minus ``tol`` (with ``validation``: a held-out accuracy
    below the best so far plus ``tol``) adds one, any other resets it to 0; training stops once
    :math:`c >` ``n_iter_no_change`` or after ``max_epochs`` (scikit-learn's rule). A network with one
    output is a binary classifier: its logit :math:`z` stands for the logits :math:`(0, z)` (the
    logistic loss).

    Args:
      key: shuffles the rows (epoch ``e`` uses ``fold_in(key, e)``).
      layers: the starting network (``glorot_init``, scikit-learn's; ``k`` outputs for labels
        ``0..k-1``, or one for labels in {0, 1}).
      X, y: ``(m, d)`` inputs and ``(m,)`` int labels.
      sample_weight: ``(m,)`` weights :math:`s_i \ge 0` (default all 1). The trailing rows of weight 0
        join no batch, so that a sample padded with them (to a size bucket) is fitted as the sample.
      validation: ``(X_val, y_val)`` or ``(X_val, y_val, w_val)``: stop on their (weighted) accuracy
        and return the best iterate (scikit-learn's ``early_stopping``).
      eta, alpha: the step size > 0 and :math:`\alpha \ge 0` (traced).
      optimizer: ``"adam"`` (scikit-learn's Adam: ``beta_1``, ``beta_2``, ``epsilon``), ``"sgd"``
        (``momentum``, Nesterov's if ``nesterov``), or ``"lbfgs"``: L-BFGS on the whole sample's
        loss (:math:`B` all the rows) for at most ``max_epochs`` iterations, until
        :math:`\max_j|\partial L/\partial w_j| \le` ``tol`` (scikit-learn's ``solver="lbfgs"``;
        ``key``, ``eta``, ``batch_size``, ``validation`` and the other optimisers' numbers unused).
      batch_size, max_epochs: rows per step and the most epochs (static ints >= 1).
      activation: :math:`\sigma` of the hidden layers (static).
      tol, n_iter_no_change: the stopping rule's tolerance and patience (traced).
      shuffle: a new permutation each epoch (False: the rows in order).

    Returns:
      An :class:`MLPFit`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> X, y = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]] * 4), jnp.array([0, 1, 2] * 4)
      >>> start = nn.glorot_init(jax.random.PRNGKey(0), [2, 8, 3])
      >>> fit = nn.mlp_fit(jax.random.PRNGKey(1), start, X, y, eta=0.05, max_epochs=300)
      >>> bool(fit.converged), float(fit.loss_curve[fit.n_epochs - 1]) < 0.05
      (True, True)

    References:
      UML section 20.6 ("SGD for Neural Networks").
    """
    if optimizer not in FIT_OPTIMIZERS:
        raise ValueError(f"expected `optimizer` in {FIT_OPTIMIZERS}, got {optimizer!r}")
    for name, value in (("eta", eta), ("epsilon", epsilon)):
        core.POSITIVE.check(name, value)
    for name, value in (("alpha", alpha), ("tol", tol)):
        core.NON_NEGATIVE.check(name, value)
    for name, value in (("beta_1", beta_1), ("beta_2", beta_2)):
        DECAY.check(name, value)
    core.UNIT.check("momentum", momentum)
    core.POSITIVE_INT.check("n_iter_no_change", n_iter_no_change)
    core.POSITIVE_INT.check("batch_size", batch_size)
    core.POSITIVE_INT.check("max_epochs", max_epochs)
    X = on_device(X)
    k = layers[-1][0].shape[0]
    check_multiclass_sample(X, y, max(k, 2))
    check_width("X", X, layers[0][0].shape[1])
    dtype = layers[0][0].dtype
    m = X.shape[0]
    check_sample_weight(sample_weight, m)
    weights = jnp.ones(m, dtype) if sample_weight is None else jnp.asarray(sample_weight, dtype)
    if validation is not None:
        if not isinstance(validation, tuple) or len(validation) not in (2, 3):
            raise TypeError("expected `validation` a tuple (X_val, y_val) or (X_val, y_val, w_val)")
        Xv, yv = jnp.asarray(validation[0]).astype(dtype), jnp.asarray(validation[1])
        check_width("X_val", Xv, layers[0][0].shape[1])
        wv = jnp.ones(Xv.shape[0], dtype) if len(validation) == 2 else validation[2]
        validation = (Xv, yv.astype(jnp.int32), jnp.asarray(wv, dtype))
    if optimizer == "lbfgs":
        return _fit_lbfgs(
            layers,
            X.astype(dtype),
            on_device(y, jnp.int32),
            weights,
            _as_type(alpha, dtype),
            _as_type(tol, dtype),
            activation=activation,
            max_iter=int(max_epochs),
        )
    numbers = dict(eta=eta, alpha=alpha, tol=tol, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)
    numbers = {name: _as_type(v, dtype) for name, v in numbers.items()}
    numbers["momentum"] = _as_type(momentum, dtype)
    numbers["patience"] = _as_type(n_iter_no_change, jnp.int32)
    return _fit(
        key,
        layers,
        X.astype(dtype),
        on_device(y, jnp.int32),
        weights,
        validation,
        numbers,
        optimizer=optimizer,
        batch_size=min(int(batch_size), m),
        activation=activation,
        max_epochs=int(max_epochs),
        shuffle=bool(shuffle),
        nesterov=bool(nesterov),
    )


@cpu_jit(static_argnames=("activation", "max_iter"))
def _fit_lbfgs(layers, X, y, weights, alpha, tol, *, activation, max_iter):
    def loss(p):
        log_p = jax.nn.log_softmax(_logits(p, X, activation))
        penalty = 0.5 * alpha * sum(jnp.sum(W * W) for W, _ in p)
        return (-jnp.sum(weights * picked_entries(log_p, y)) + penalty) / jnp.sum(weights)

    result = minimize_lbfgs(loss, layers, tol=tol, max_iter=max_iter)
    diverged = ~(_finite(result.x) & jnp.isfinite(result.value))
    return MLPFit(
        result.x,
        result.value[None],
        None,
        result.n_iter,
        result.converged & ~diverged,
        diverged,
    )


def _as_type(value, dtype):
    """``value`` as an array of ``dtype``: converted on the host when it is concrete."""
    if is_concrete(value):
        return np.asarray(value, dtype)
    return jnp.asarray(value).astype(dtype)


class ScaledAdamState(NamedTuple):
    """Adam's step count and moment estimates."""

    count: Array
    mu: Any
    nu: Any


def scaled_adam(eta, beta_1, beta_2, epsilon) -> optax.GradientTransformation:
    r"""Adam as scikit-learn writes it: the bias corrections fold into the step size,
    :math:`\eta_t = \eta\sqrt{1 - \beta_2^t}/(1 - \beta_1^t)`, and the update is
    :math:`-\eta_t\, m_t/(\sqrt{v_t} + \epsilon)` (``optax.adam`` adds :math:`\epsilon` to the corrected
    :math:`\sqrt{\hat v_t}` instead).

    Args:
      eta: the step size (> 0); beta_1, beta_2: the moment decays, in [0, 1); epsilon: > 0 (traced;
        checked when concrete).

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> opt = nn.scaled_adam(0.1, 0.9, 0.999, 1e-8)
      >>> updates, _ = opt.update(jnp.array([2.0]), opt.init(jnp.zeros(1)))
      >>> round(float(updates[0]), 4)  # the first step is -eta sign(g)
      -0.1

    References:
      Kingma and Ba (2015), section 2 (the step-size form of the bias correction); UML section 20.6.
    """
    core.POSITIVE.check("eta", eta)
    DECAY.check("beta_1", beta_1)
    DECAY.check("beta_2", beta_2)
    core.POSITIVE.check("epsilon", epsilon)

    def init(params):
        zeros = jax.tree.map(jnp.zeros_like, params)
        return ScaledAdamState(jnp.zeros((), jnp.int32), zeros, zeros)

    def update(grads, state, params=None):
        del params
        count = state.count + 1
        mu = jax.tree.map(lambda m, g: beta_1 * m + (1 - beta_1) * g, state.mu, grads)
        nu = jax.tree.map(lambda v, g: beta_2 * v + (1 - beta_2) * g * g, state.nu, grads)
        t = count.astype(jax.tree.leaves(grads)[0].dtype)
        rate = eta * jnp.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        updates = jax.tree.map(lambda m, v: -rate * m / (jnp.sqrt(v) + epsilon), mu, nu)
        return updates, ScaledAdamState(count, mu, nu)

    return optax.GradientTransformation(init, update)


def _finite(tree) -> Array:
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(a)) for a in jax.tree.leaves(tree)]))


def _logits(layers, X, activation):
    z = mlp_apply(layers, X, activation=activation)
    return jnp.concatenate([jnp.zeros_like(z), z], axis=1) if z.shape[1] == 1 else z


@cpu_jit(
    static_argnames=(
        "optimizer",
        "batch_size",
        "activation",
        "max_epochs",
        "shuffle",
        "nesterov",
    ),
    # LLVM at level 1: compiles in less time, and the epochs run no slower
    extra_options={"xla_backend_optimization_level": 1},
)
def _fit(
    key,
    layers,
    X,
    y,
    weights,
    validation,
    numbers,
    *,
    optimizer,
    batch_size,
    activation,
    max_epochs,
    shuffle,
    nesterov,
):
    dtype = X.dtype
    eta, alpha, tol = numbers["eta"], numbers["alpha"], numbers["tol"]
    if optimizer == "adam":
        opt = scaled_adam(eta, numbers["beta_1"], numbers["beta_2"], numbers["epsilon"])
    else:
        opt = optax.sgd(eta, momentum=numbers["momentum"], nesterov=nesterov)

    # the trailing rows of weight 0 (a size bucket's padding) join no batch
    position = jnp.arange(1, X.shape[0] + 1, dtype=jnp.int32)
    n_rows = jnp.max(jnp.where(weights > 0, position, 0))

    def batch_loss(p, rows, mask):
        w = weights[rows] * mask
        log_p = jax.nn.log_softmax(_logits(p, X[rows], activation))
        penalty = 0.5 * alpha * sum(jnp.sum(W * W) for W, _ in p)
        total = jnp.sum(w)
        safe = jnp.where(total > 0, total, 1)  # a batch of zero weight: loss and gradient 0
        return jnp.where(
            total > 0, (-jnp.sum(w * picked_entries(log_p, y[rows])) + penalty) / safe, 0
        )

    def accuracy(p):
        Xv, yv, wv = validation
        hit = (jnp.argmax(_logits(p, Xv, activation), axis=1).astype(jnp.int32) == yv).astype(dtype)
        return jnp.sum(wv * hit) / jnp.sum(wv)

    def go_on(carry):
        epoch, _, _, _, count, _, _, _, diverged = carry
        return (epoch < max_epochs) & (count <= numbers["patience"]) & ~diverged

    def epoch_step(carry):
        epoch, p, state, best, count, best_p, curve, scores, _ = carry
        new_p, new_state, loss = one_pass(
            jax.random.fold_in(key, epoch),
            p,
            state,
            batch_loss,
            opt,
            m=X.shape[0],
            batch_size=batch_size,
            shuffle=shuffle,
            rows=n_rows,
        )
        finite = jnp.isfinite(loss) & _finite(new_p)
        p, state = jax.tree.map(
            lambda a, b: jnp.where(finite, a, b), (new_p, new_state), (p, state)
        )
        curve = curve.at[epoch].set(loss)
        if validation is None:  # scikit-learn's _update_no_improvement_count on the loss
            count = jnp.where(loss > best - tol, count + 1, 0)
            best = jnp.minimum(best, loss)
        else:  # ... and on the held-out accuracy, keeping the best iterate
            score = accuracy(p)
            scores = scores.at[epoch].set(score)
            count = jnp.where(score < best + tol, count + 1, 0)
            better = score > best
            best_p = jax.tree.map(lambda a, b: jnp.where(better, a, b), p, best_p)
            best = jnp.maximum(best, score)
        return epoch + 1, p, state, best, count, best_p, curve, scores, ~finite

    nan = jnp.full(max_epochs, jnp.nan, dtype)
    start = (
        jnp.zeros((), jnp.int32),
        layers,
        opt.init(layers),
        jnp.asarray(jnp.inf if validation is None else -jnp.inf, dtype),
        jnp.zeros((), jnp.int32),
        None if validation is None else layers,
        nan,
        None if validation is None else nan,
        jnp.zeros((), bool),
    )
    epochs, p, _, _, count, best_p, curve, scores, diverged = jax.lax.while_loop(
        go_on, epoch_step, start
    )
    converged = (count > numbers["patience"]) & ~diverged
    return MLPFit(p if validation is None else best_p, curve, scores, epochs, converged, diverged)
