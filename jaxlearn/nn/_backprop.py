"""The book's backpropagation, written out by hand (SPEC 17.5; UML section 20.6).

It computes the gradient of the squared loss :math:`\\frac12\\|o_T - y\\|^2` of one example with respect
to every weight, by one forward pass (storing :math:`a_t`, :math:`o_t`) and one backward pass (the
:math:`\\delta_t`). It exists to check the autodiff path and to teach: :func:`jaxlearn.nn.train` uses
``jax.grad``, and the tests check that the two agree to 1e-10 in float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.nn._mlp import Activation, Params, derivative, identity, sigmoid, softmax

Array = jax.Array


def backprop(
    params: Params,
    x: ArrayLike,
    y: ArrayLike,
    *,
    activation: Activation = sigmoid,
    output: Activation = identity,
    weight_decay: ArrayLike = 0.0,
) -> Params:
    r"""The gradient of :math:`\frac12\|h_w(x) - y\|^2 + \frac\lambda2\|w\|^2` by the book's
    backpropagation (UML section 20.6).

    With ``params[t] = (W_t, b_t)`` (``W_t`` of shape :math:`k_{t+1}\times k_t`, :math:`W_{t,i,j}` the
    weight of the edge :math:`v_{t,j}\to v_{t+1,i}`; ``b_t`` the edges of the constant neuron):

    **Forward.** :math:`o_0 = x`; for :math:`t = 1..T`: :math:`a_t = W_{t-1} o_{t-1} + b_{t-1}`,
    :math:`o_t = \sigma(a_t)` (``output`` in place of :math:`\sigma` at :math:`t = T`).

    **Backward.** :math:`\delta_T = o_T - y`; for :math:`t = T-1, \dots, 1`:

    .. math:: \delta_{t,i} = \sum_{j=1}^{k_{t+1}} W_{t,j,i}\, \delta_{t+1,j}\, \sigma'(a_{t+1,j}).

    **Output.** For every edge :math:`v_{t-1,j} \to v_t,i`:

    .. math:: \frac{\partial}{\partial W_{t-1,i,j}} = \delta_{t,i}\, \sigma'(a_{t,i})\, o_{t-1,j},
        \qquad \frac{\partial}{\partial b_{t-1,i}} = \delta_{t,i}\, \sigma'(a_{t,i})

    (the constant neuron outputs 1), plus :math:`\lambda W_{t-1}` and :math:`\lambda b_{t-1}` from the
    weight decay: the :math:`v_i + \lambda w^{(i)}` of the book's SGD step. The recursion carries
    :math:`\sigma'` of the *next* layer; the derivative multiplies :math:`\sigma'` of the *current*
    layer once (SPEC 17.5's double-counting pitfall), and stops at :math:`t = 1` (no :math:`\delta_0`).
    The sigmoid's derivative is the book's :math:`\sigma'(a) = \sigma(a)(1 - \sigma(a))`.

    Args:
      params: ``[(W_0, b_0), ...]`` as from :func:`jaxlearn.nn.mlp_init`.
      x: one input, shape ``(k_0,)``.
      y: its target, shape ``(k_T,)``.
      activation: the element-wise :math:`\sigma` of the hidden layers.
      output: the element-wise function of the output layer: ``identity`` (default, matching
        :func:`~jaxlearn.nn.mlp_apply`'s default) or ``activation`` for the book's network, which
        applies :math:`\sigma` at the output too.
      weight_decay: :math:`\lambda` (traced).

    Returns:
      A pytree shaped like ``params``: :math:`[(\partial W_0, \partial b_0), \dots]`.

    Raises:
      ValueError: for ``output=softmax`` (backpropagation here is for the squared loss with an
        element-wise output).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn.nn import mlp_init, mlp_apply
      >>> params = mlp_init(jax.random.PRNGKey(0), [3, 4, 2])
      >>> x, y = jnp.ones(3), jnp.zeros(2)
      >>> auto = jax.grad(lambda p: 0.5 * jnp.sum((mlp_apply(p, x) - y) ** 2))(params)
      >>> hand = backprop(params, x, y)
      >>> bool(jnp.allclose(hand[0][0], auto[0][0], atol=1e-6))
      True

    References:
      UML section 20.6, "Backpropagation" pseudocode and (20.2)-(20.3); SPEC 17.5.
    """
    if output is softmax:
        raise ValueError(
            "expected an element-wise `output` (identity or an activation): backprop is the book's "
            "algorithm for the squared loss; use jax.grad for softmax cross-entropy"
        )
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
