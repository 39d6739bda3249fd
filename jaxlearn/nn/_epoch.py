r"""One epoch of minibatch descent on a classifier network, carrying the optimiser state between calls
(scikit-learn's ``partial_fit``; UML section 20.6)."""

from __future__ import annotations

import functools
from typing import Any, Optional

import jax
import jax.numpy as jnp
import optax
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._buckets import shuffled
from jaxlearn._checks import check_multiclass_sample, check_width
from jaxlearn.nn._mlp import Activation, Params, mlp_apply, relu
from jaxlearn.nn._train import picked_entries

Array = jax.Array

#: The optax optimisers :func:`mlp_epoch` builds from a traced step size.
EPOCH_OPTIMIZERS = {"sgd": optax.sgd, "adam": optax.adam}


def mlp_epoch(
    key: Array,
    layers: Params,
    opt_state: Optional[Any],
    X: ArrayLike,
    y: ArrayLike,
    *,
    eta: ArrayLike = 1e-3,
    weight_decay: ArrayLike = 1e-4,
    optimizer: str = "adam",
    batch_size: int = 200,
    activation: Activation = relu,
) -> tuple[Params, Any, Array]:
    r"""One pass over ``(X, y)`` in shuffled minibatches: one optimiser step per batch (one ``lax.scan``).

    .. math:: w \leftarrow w - \eta\,\mathrm{opt}\Big(\nabla \frac{1}{|B|}\sum_{i \in B}
        -\log \mathrm{softmax}(h_w(x_i))_{y_i} + \lambda w\Big)

    The batches are a random permutation of the rows cut into ``ceil(m / batch_size)`` pieces, the last
    one shorter (as scikit-learn's ``partial_fit``).

    Args:
      key: shuffles the rows.
      layers: the network (``mlp_init``; logits out, labels ``0..k-1``).
      opt_state: the optimiser state a previous call returned, or ``None`` (a fresh one).
      X, y: ``(m, d)`` inputs and ``(m,)`` int labels.
      eta, weight_decay: the step size > 0 and :math:`\lambda \ge 0` (traced).
      optimizer: ``"adam"`` or ``"sgd"``; batch_size: rows per step (static, >= 1).
      activation: :math:`\sigma` of the hidden layers (default ``relu``, as everywhere in
        :mod:`jaxlearn.nn`; the book's is ``nn.sigmoid``).

    Returns:
      ``(layers, opt_state, loss)``: ``loss`` the mean cross-entropy of the rows at the parameters
      their batch started from (scikit-learn's epoch loss, without the weight-decay term).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> X, y = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]] * 4), jnp.array([0, 1, 2] * 4)
      >>> layers, state = nn.mlp_init(jax.random.PRNGKey(0), [2, 8, 3]), None
      >>> losses = []
      >>> for epoch in range(20):
      ...     layers, state, loss = nn.mlp_epoch(jax.random.PRNGKey(epoch), layers, state, X, y,
      ...                                        eta=0.05, batch_size=4)
      ...     losses.append(float(loss))
      >>> losses[-1] < losses[0]
      True

    References:
      UML section 20.6 ("SGD for Neural Networks").
    """
    if optimizer not in EPOCH_OPTIMIZERS:
        raise ValueError(f"expected `optimizer` in {tuple(EPOCH_OPTIMIZERS)}, got {optimizer!r}")
    core.POSITIVE.check("eta", eta)
    core.NON_NEGATIVE.check("weight_decay", weight_decay)
    core.POSITIVE_INT.check("batch_size", batch_size)
    X = jnp.asarray(X)
    check_multiclass_sample(X, y, layers[-1][0].shape[0])
    check_width("X", X, layers[0][0].shape[1])
    dtype = layers[0][0].dtype
    batch_size = min(int(batch_size), X.shape[0])
    rates = tuple(jnp.asarray(v).astype(dtype) for v in (eta, weight_decay))
    if opt_state is None:
        opt_state = _optimizer(optimizer, *rates).init(layers)
    return _epoch(
        key,
        layers,
        opt_state,
        X.astype(dtype),
        jnp.asarray(y).astype(jnp.int32),
        *rates,
        optimizer=optimizer,
        batch_size=batch_size,
        activation=activation,
    )


def _optimizer(name, eta, weight_decay):
    return optax.chain(optax.add_decayed_weights(weight_decay), EPOCH_OPTIMIZERS[name](eta))


@functools.partial(jax.jit, static_argnames=("optimizer", "batch_size", "activation"))
def _epoch(key, layers, opt_state, X, y, eta, weight_decay, *, optimizer, batch_size, activation):
    def batch_loss(p, rows, w):
        log_p = jax.nn.log_softmax(mlp_apply(p, X[rows], activation=activation))
        return -jnp.sum(w * picked_entries(log_p, y[rows])) / jnp.sum(w)

    opt = _optimizer(optimizer, eta, weight_decay)
    return one_pass(key, layers, opt_state, batch_loss, opt, m=X.shape[0], batch_size=batch_size)


def one_pass(key, layers, opt_state, batch_loss, opt, *, m, batch_size, shuffle=True, rows=None):
    """One pass over the first ``rows`` (traced; default ``m``) of ``m`` rows in batches of
    ``batch_size`` (a random order when ``shuffle``, the last batch shorter): one ``opt`` step on
    ``batch_loss(params, rows, mask)`` per batch, in one ``lax.scan``. ``mask`` is 1 on the batch's
    rows, 0 on the padding. The rows past ``rows`` (a size bucket's padding) join no batch, and the
    batches they fill are passed over, so the pass is the pass over the first ``rows`` alone: the
    order is drawn row by row (``_buckets.shuffled``), which keeps the first rows' order whatever
    rows follow. Returns ``(layers, opt_state, loss)``, ``loss`` the batch losses weighted by their
    rows, over ``rows``."""
    steps = -(-m // batch_size)
    slots = jnp.arange(steps * batch_size, dtype=jnp.int32)
    n = jnp.asarray(m if rows is None else rows, jnp.int32)
    order = shuffled(key, m).astype(jnp.int32) if shuffle else jnp.arange(m, dtype=jnp.int32)
    if rows is not None:  # the rows that take part first, in their own order
        order = order[jnp.argsort(order >= n, stable=True)]
    order = order[jnp.minimum(slots, m - 1)].reshape(steps, batch_size)
    dtype = layers[0][0].dtype
    masks = (slots < n).astype(dtype).reshape(steps, batch_size)  # the padding: 0

    def step(carry, batch):
        p, state = carry
        loss, grads = jax.value_and_grad(batch_loss)(p, *batch)
        with jax.numpy_dtype_promotion("standard"):  # optax's internals are not strict-clean
            updates, new_state = opt.update(grads, state, p)
            new_p = optax.apply_updates(p, updates)
        if rows is not None:  # a batch of padding only: no step
            real = jnp.any(batch[1] > 0)
            new_p, new_state = jax.tree.map(
                lambda a, b: jnp.where(real, a, b), (new_p, new_state), (p, state)
            )
        return (new_p, new_state), loss * jnp.sum(batch[1])

    (layers, opt_state), sums = jax.lax.scan(step, (layers, opt_state), (order, masks))
    return layers, opt_state, jnp.sum(sums) / n.astype(sums.dtype)
