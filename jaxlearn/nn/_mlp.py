"""Layered feedforward networks as parameter pytrees (SPEC 17.1; UML sections 20.1-20.2).

A network of depth :math:`T` is a list of ``T`` pairs ``(W_t, b_t)``, ``W_t`` of shape
``(k_{t+1}, k_t)`` in the book's orientation and ``b_t`` the weights of the constant neuron:
:math:`a_{t+1} = W_t o_t + b_t`, :math:`o_{t+1} = \\sigma(a_{t+1})`, with ``output`` at the last layer.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array
Params = list  # [(W_0, b_0), ..., (W_{T-1}, b_{T-1})]
Activation = Callable[[Array], Array]


# --------------------------------------------------------------------------------------------
# Activations (element-wise, each carrying its derivative for the hand-written backpropagation)
# --------------------------------------------------------------------------------------------


def sigmoid(a: ArrayLike) -> Array:
    r"""The book's sigmoid :math:`\sigma(a) = 1/(1 + e^{-a})` (UML section 20.1)."""
    return jax.nn.sigmoid(a)


def _sigmoid_derivative(a):
    # UML section 20.6: sigma'(a) = 1 / ((1 + e^a)(1 + e^-a)) = sigma(a)(1 - sigma(a)).
    s = jax.nn.sigmoid(a)
    return s * (1 - s)


def tanh(a: ArrayLike) -> Array:
    r""":math:`\tanh(a)`, a sigmoid rescaled to (-1, 1): :math:`\tanh(a) = 2\sigma(2a) - 1`."""
    return jnp.tanh(a)


def relu(a: ArrayLike) -> Array:
    r""":math:`\max\{0, a\}` (derivative taken as 0 at 0, as ``jax.grad`` does)."""
    return jax.nn.relu(a)


def identity(a: ArrayLike) -> Array:
    """The identity output (a network for the squared loss of UML section 20.6)."""
    return jnp.asarray(a)


def softmax(a: ArrayLike) -> Array:
    r"""The softmax output :math:`e^{a_i}/\sum_j e^{a_j}` (class probabilities; pairs with the
    cross-entropy). Not element-wise: :func:`backprop` does not take it."""
    return jax.nn.softmax(a)


def sign(a: ArrayLike) -> Array:
    r"""The sign activation of UML section 20.1 with values in :math:`\{\pm1\}`: +1 iff :math:`a > 0`
    (``sign(0) = -1``, the library's convention; the constructions of section 20.3 never reach 0)."""
    a = jnp.asarray(a)
    return jnp.where(a > 0, 1, -1).astype(a.dtype)


sigmoid.derivative = _sigmoid_derivative
tanh.derivative = lambda a: 1 - jnp.tanh(a) ** 2
relu.derivative = lambda a: (a > 0).astype(a.dtype)
identity.derivative = lambda a: jnp.ones_like(a)


def derivative(activation: Activation) -> Activation:
    """The element-wise derivative of ``activation``: its ``.derivative`` if it has one, else
    ``jax.grad`` applied element-wise (for a user's own element-wise activation)."""
    known = getattr(activation, "derivative", None)
    if known is not None:
        return known
    return jnp.vectorize(jax.grad(activation))


# --------------------------------------------------------------------------------------------
# Networks
# --------------------------------------------------------------------------------------------


def mlp_init(
    key: Array, layer_sizes: Sequence[int], *, scale: Optional[ArrayLike] = None, dtype=None
) -> Params:
    r"""Random weights close to 0 for a fully connected layered network (UML section 20.6).

    .. math:: W_t \sim \mathcal N(0, s_t^2)^{k_{t+1}\times k_t}, \qquad b_t = 0,

    with :math:`s_t = 1/\sqrt{k_t}` by default. A zero start would keep the neurons of a layer identical
    forever; the random :math:`W` prevents it even with zero biases.

    Args:
      key: a PRNG key.
      layer_sizes: :math:`(k_0, \dots, k_T)`, input width first, output width last (Python ints).
      scale: the standard deviation of every weight (traced; default :math:`1/\sqrt{k_t}` per layer).
      dtype: the float dtype (default: JAX's default float).

    Returns:
      ``[(W_0, b_0), ..., (W_{T-1}, b_{T-1})]``, ``W_t`` of shape ``(k_{t+1}, k_t)``.

    Examples:
      >>> import jax
      >>> from jaxlearn import nn
      >>> params = nn.mlp_init(jax.random.PRNGKey(0), [4, 8, 3])
      >>> [(W.shape, b.shape) for W, b in params]
      [((8, 4), (8,)), ((3, 8), (3,))]

    References:
      UML sections 20.1 and 20.6 ("SGD for Neural Networks": initialise at random, close to 0).
    """
    sizes = [int(k) for k in layer_sizes]
    if len(sizes) < 2 or min(sizes) < 1 or any(k != s for k, s in zip(sizes, layer_sizes)):
        raise ValueError(
            f"expected `layer_sizes` of at least two positive ints (input width, ..., output width), "
            f"got {tuple(layer_sizes)!r}"
        )
    dtype = jnp.result_type(float) if dtype is None else dtype
    params = []
    for k_in, k_out, layer_key in zip(sizes[:-1], sizes[1:], jax.random.split(key, len(sizes) - 1)):
        std = (1 / jnp.sqrt(jnp.asarray(k_in, dtype))) if scale is None else jnp.asarray(scale, dtype)
        W = std * jax.random.normal(layer_key, (k_out, k_in), dtype)
        params.append((W, jnp.zeros(k_out, dtype)))
    return params


def layer_sizes(params: Params) -> tuple[int, ...]:
    """:math:`(k_0, \\dots, k_T)` of a network's params."""
    return (params[0][0].shape[1],) + tuple(W.shape[0] for W, _ in params)


def mlp_apply(
    params: Params, x: ArrayLike, *, activation: Activation = sigmoid, output: Activation = identity
) -> Array:
    r"""The network's output :math:`h_w(x) = o_T` on one example ``x`` (UML section 20.1), or on each
    row of a batch ``x`` of shape ``(m, k_0)`` (outputs ``(m, k_T)``).

    .. math:: o_0 = x, \quad o_{t+1} = \sigma(W_t o_t + b_t)\ (t < T - 1), \quad
        o_T = \mathrm{output}(W_{T-1} o_{T-1} + b_{T-1}).

    The book applies :math:`\sigma` at the output too: pass ``output=activation`` for that network.
    A batch of rows is computed as :math:`O_{t+1} = \sigma(O_t W_t^\top + b_t)`, the same function as
    ``jax.vmap(lambda x: mlp_apply(params, x))(X)`` (``softmax`` acts on the last axis).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> params = nn.mlp_init(jax.random.PRNGKey(0), [2, 5, 1])
      >>> nn.mlp_apply(params, jnp.ones(2)).shape
      (1,)
    """
    o = jnp.asarray(x)
    for t, (W, b) in enumerate(params):
        a = o.astype(W.dtype) @ W.T + b  # = W o + b for one example, row-wise for a batch
        o = output(a) if t == len(params) - 1 else activation(a)
    return o


# --------------------------------------------------------------------------------------------
# Losses of one example (the ``loss`` of :func:`jaxlearn.nn.train` is built from these)
# --------------------------------------------------------------------------------------------


def squared_loss(output: ArrayLike, y: ArrayLike) -> Array:
    r"""The book's :math:`\Delta(h_w(x), y) = \frac12\|h_w(x) - y\|^2` (UML section 20.6)."""
    diff = jnp.asarray(output) - jnp.asarray(y)
    return 0.5 * jnp.sum(diff * diff)


def cross_entropy(logits: ArrayLike, label: ArrayLike) -> Array:
    r"""The softmax cross-entropy :math:`-\log \mathrm{softmax}(a)_y` of logits ``a`` and an int label."""
    logits = jnp.asarray(logits)
    return -jax.nn.log_softmax(logits)[jnp.asarray(label).astype(jnp.int32)]
