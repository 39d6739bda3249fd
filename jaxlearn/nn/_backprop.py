"""The book's backpropagation, written out by hand (UML section 20.6).

It exists to teach and to check the autodiff path: :func:`jaxlearn.nn.train` uses ``jax.grad``, and the
tests check that the two agree to 1e-10 in float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import check_finite
from jaxlearn.core import NON_NEGATIVE
from jaxlearn.nn._inputs import as_numbers, check_callable, check_width, network
from jaxlearn.nn._mlp import Activation, Params, derivative, identity, relu, softmax

Array = jax.Array


def backprop(
    params: Params,
    x: ArrayLike,
    y: ArrayLike,
    *,
    activation: Activation = relu,
    output: Activation = identity,
    weight_decay: ArrayLike = 0.0,
) -> Params:
    r"""The book's backpropagation: the gradient of :math:`\frac12\|h_w(x) - y\|^2 + \frac\lambda2\|w\|^2`.

    .. math:: \delta_T = o_T - y, \qquad \delta_{t,i} = \sum_j W_{t,j,i} \delta_{t+1,j} \sigma'(a_{t+1,j}),
        \qquad \partial_{W_{t-1,i,j}} = \delta_{t,i} \sigma'(a_{t,i}) o_{t-1,j} + \lambda W_{t-1,i,j},

    after the forward pass :math:`o_0 = x`, :math:`a_t = W_{t-1} o_{t-1} + b_{t-1}`, :math:`o_t = \sigma(a_t)`
    (``output`` at :math:`t = T`); the bias gradient drops :math:`o_{t-1,j}`.

    Args:
      params: ``[(W_0, b_0), ...]`` from :func:`~jaxlearn.nn.mlp_init`; ``W_t`` is :math:`k_{t+1}\times k_t`.
      x, y: one input, shape ``(k_0,)``, and its target, shape ``(k_T,)`` (bool/int/float; finite).
      activation, output: the element-wise :math:`\sigma` of the hidden layers (default ``relu``, as
        everywhere in :mod:`jaxlearn.nn`; the book's is ``nn.sigmoid``); the output function:
        ``identity`` (as :func:`~jaxlearn.nn.mlp_apply`) or ``activation`` (the book's); ``softmax`` raises.
      weight_decay: :math:`\lambda \ge 0` (traced).

    Returns:
      A pytree shaped like ``params``: :math:`[(\partial W_0, \partial b_0), \dots]`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> params, x, y = nn.mlp_init(jax.random.PRNGKey(0), [3, 4, 2]), jnp.ones(3), jnp.zeros(2)
      >>> h = lambda p: nn.mlp_apply(p, x, activation=nn.sigmoid)  # the book's sigma
      >>> auto = jax.grad(lambda p: 0.5 * jnp.sum((h(p) - y) ** 2))(params)
      >>> hand = nn.backprop(params, x, y, activation=nn.sigmoid)
      >>> bool(jnp.allclose(hand[0][0], auto[0][0], atol=1e-6))
      True

    References:
      UML section 20.6, "Backpropagation" pseudocode and (20.2)-(20.3).
    """
    if output is softmax:
        raise ValueError(
            "expected an element-wise `output` (identity or an activation): backprop is the book's "
            "algorithm for the squared loss; use jax.grad for softmax cross-entropy"
        )
    params = network(params)
    check_callable("activation", activation)
    check_callable("output", output)
    NON_NEGATIVE.check("weight_decay", weight_decay)
    x, y = as_numbers("x", x), as_numbers("y", y)
    check_width("x", x, params[0][0].shape[1], {1: "(k_0,)"}, "the input width of `params`")
    check_width("y", y, params[-1][0].shape[0], {1: "(k_T,)"}, "the output width of `params`")
    check_finite("x", x)
    check_finite("y", y)
    dtype = params[0][0].dtype
    T = len(params)
    sigma_prime = [derivative(activation)] * (T - 1) + [derivative(output)]

    # Forward: o[0] = x, a[t] and o[t] for t = 1..T (a[0] unused).
    o, a = [jnp.asarray(x).astype(dtype)], [None]
    for t in range(1, T + 1):
        W, b = params[t - 1]
        a.append(W @ o[t - 1] + b)
        o.append((output if t == T else activation)(a[t]))

    # Backward: delta[T] = o_T - y; delta[t] = W_t^T (delta[t+1] * sigma'(a[t+1])) for t = T-1..1.
    delta = [None] * (T + 1)
    delta[T] = o[T] - jnp.asarray(y).astype(dtype)
    for t in range(T - 1, 0, -1):
        W_t = params[t][0]
        delta[t] = W_t.T @ (delta[t + 1] * sigma_prime[t](a[t + 1]))

    # Output: dW_{t-1} = (delta_t * sigma'(a_t)) o_{t-1}^T, db_{t-1} = delta_t * sigma'(a_t); + lam w.
    lam = jnp.asarray(weight_decay).astype(dtype)
    grads = []
    for t in range(1, T + 1):
        W, b = params[t - 1]
        g = delta[t] * sigma_prime[t - 1](a[t])
        grads.append((jnp.outer(g, o[t - 1]) + lam * W, g + lam * b))
    return grads
