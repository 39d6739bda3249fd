"""Layered feedforward networks as parameter pytrees (UML sections 20.1-20.2).

A network of depth :math:`T` is a list of ``T`` pairs ``(W_t, b_t)``, ``W_t`` of shape
``(k_{t+1}, k_t)`` in the book's orientation and ``b_t`` the weights of the constant neuron:
:math:`a_{t+1} = W_t o_t + b_t`, :math:`o_{t+1} = \\sigma(a_{t+1})`, with ``output`` at the last layer.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_class_labels, check_finite
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._shared import drawn_flat
from jaxlearn.core import POSITIVE, loadable
from jaxlearn.nn._inputs import (
    as_numbers,
    check_callable,
    check_dtype,
    check_key,
    check_width,
    network,
)

Array = jax.Array
Params = list  # [(W_0, b_0), ..., (W_{T-1}, b_{T-1})]
Activation = Callable[[Array], Array]


# --------------------------------------------------------------------------------------------
# Activations (element-wise, each carrying its derivative for the hand-written backpropagation)
# --------------------------------------------------------------------------------------------


@loadable
def sigmoid(a: ArrayLike) -> Array:
    r"""The book's sigmoid :math:`\sigma(a) = 1/(1 + e^{-a})` (UML section 20.1)."""
    return jax.nn.sigmoid(as_numbers("a", a))


def _sigmoid_derivative(a):
    # UML section 20.6: sigma'(a) = 1 / ((1 + e^a)(1 + e^-a)) = sigma(a)(1 - sigma(a)).
    s = jax.nn.sigmoid(a)
    return s * (1 - s)


@loadable
def tanh(a: ArrayLike) -> Array:
    r""":math:`\tanh(a)`, a sigmoid rescaled to (-1, 1): :math:`\tanh(a) = 2\sigma(2a) - 1`."""
    return jnp.tanh(as_numbers("a", a))


@loadable
def relu(a: ArrayLike) -> Array:
    r""":math:`\max\{0, a\}` (derivative taken as 0 at 0, as ``jax.grad`` does)."""
    return jax.nn.relu(as_numbers("a", a))


@loadable
def identity(a: ArrayLike) -> Array:
    """The identity output (a network for the squared loss of UML section 20.6)."""
    return as_numbers("a", a)


@loadable
def softmax(a: ArrayLike) -> Array:
    r"""The softmax output :math:`e^{a_i}/\sum_j e^{a_j}` (class probabilities; pairs with the
    cross-entropy). Not element-wise: :func:`backprop` does not take it."""
    a = as_numbers("a", a)
    if a.ndim == 0:
        raise ValueError(
            "expected `a` of shape (..., k) (softmax acts on the last axis), got a scalar"
        )
    return jax.nn.softmax(a)


@loadable
def sign(a: ArrayLike) -> Array:
    r"""The sign activation of UML section 20.1 with values in :math:`\{\pm1\}`: +1 iff :math:`a > 0`
    (``sign(0) = -1``, the library's convention; the constructions of section 20.3 never reach 0)."""
    a = as_numbers("a", a)
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
      layer_sizes: :math:`(k_0, \dots, k_T)`, input width first, output width last (at least two ints >= 1).
      scale: the standard deviation :math:`s > 0` of every weight (traced; default :math:`1/\sqrt{k_t}`).
      dtype: a float dtype (default: JAX's default float).

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
    check_key(key)
    expected = "at least two ints >= 1 (input width, ..., output width)"
    if isinstance(layer_sizes, (str, bytes)) or not isinstance(
        layer_sizes, (list, tuple, np.ndarray)
    ):
        raise TypeError(f"expected `layer_sizes` {expected}, got {type(layer_sizes).__name__}")
    if not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in layer_sizes):
        raise TypeError(f"expected `layer_sizes` {expected}, got {tuple(layer_sizes)!r}")
    sizes = [int(k) for k in layer_sizes]
    if len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(f"expected `layer_sizes` {expected}, got {tuple(sizes)!r}")
    POSITIVE.check("scale", scale)
    dtype = check_dtype("dtype", dtype)
    if scale is None:  # 1/sqrt(k_t), rounded once each (as JAX computes it outside a program)
        stds = tuple(np.asarray(1 / np.sqrt(np.asarray(k, dtype)), dtype) for k in sizes[:-1])
    else:
        stds = (jnp.asarray(scale, dtype),) * (len(sizes) - 1)
    return _normal_layers(key, stds, tuple(sizes), dtype)


@cpu_jit(static_argnames=("sizes", "dtype"))
def _normal_layers(key, stds, sizes, dtype):  # one program for every layer's draw
    params = []
    keys = jax.random.split(key, len(sizes) - 1)
    for k_in, k_out, layer_key, std in zip(sizes[:-1], sizes[1:], keys, stds):
        draw = drawn_flat(jax.random.normal, layer_key, (k_out, k_in), dtype=dtype)
        W = std * jax.lax.optimization_barrier(draw)  # rounded as outside a program
        params.append((W, jnp.zeros(k_out, dtype)))
    return params


def glorot_init(
    key: Array, layer_sizes: Sequence[int], *, factor: ArrayLike = 6.0, dtype=None
) -> Params:
    r"""Glorot-uniform weights and biases, scikit-learn's ``MLPClassifier`` start (UML section 20.6).

    .. math:: W_t \sim \mathcal U(-r_t, r_t)^{k_{t+1}\times k_t}, \quad
        b_t \sim \mathcal U(-r_t, r_t)^{k_{t+1}}, \qquad r_t = \sqrt{\frac{c}{k_t + k_{t+1}}},

    with :math:`c = 6` (Glorot and Bengio's bound for tanh and relu) or :math:`c = 2` (scikit-learn's
    for the logistic sigmoid). Unlike :func:`mlp_init`'s, the biases are random too.

    Args:
      key: a PRNG key.
      layer_sizes: :math:`(k_0, \dots, k_T)`, input width first, output width last (at least two ints >= 1).
      factor: :math:`c > 0` (traced).
      dtype: a float dtype (default: JAX's default float).

    Returns:
      ``[(W_0, b_0), ..., (W_{T-1}, b_{T-1})]``, ``W_t`` of shape ``(k_{t+1}, k_t)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> (W, b), = nn.glorot_init(jax.random.PRNGKey(0), [4, 2])
      >>> bool(jnp.abs(W).max() <= 1.0 and jnp.abs(b).max() <= 1.0)  # r = sqrt(6 / 6)
      True

    References:
      UML section 20.6 ("SGD for Neural Networks": initialise at random, close to 0);
      Glorot and Bengio (2010), "Understanding the difficulty of training deep feedforward networks".
    """
    shapes = [(W.shape, b.shape) for W, b in jax.eval_shape(lambda: mlp_init(key, layer_sizes))]
    POSITIVE.check("factor", factor)
    dtype = check_dtype("dtype", dtype)
    return _glorot_layers(key, jnp.asarray(factor, dtype), tuple(shapes), dtype)


@cpu_jit(static_argnames=("shapes", "dtype"))
def _glorot_layers(key, factor, shapes, dtype):  # one program for every layer's draw
    params = []
    for (w_shape, b_shape), layer_key in zip(shapes, jax.random.split(key, len(shapes))):
        bound = jnp.sqrt(factor / (w_shape[0] + w_shape[1]))
        w_key, b_key = jax.random.split(layer_key)
        W = drawn_flat(jax.random.uniform, w_key, w_shape, dtype=dtype, minval=-1.0, maxval=1.0)
        W = W * bound
        b = jax.random.uniform(b_key, b_shape, dtype, -1.0, 1.0) * bound
        params.append((W, b))
    return params


def layer_sizes(params: Params) -> tuple[int, ...]:
    """:math:`(k_0, \\dots, k_T)` of a network's params."""
    return (params[0][0].shape[1],) + tuple(W.shape[0] for W, _ in params)


def mlp_apply(
    params: Params, x: ArrayLike, *, activation: Activation = relu, output: Activation = identity
) -> Array:
    r"""The network's output :math:`h_w(x) = o_T` on one example ``x`` (UML section 20.1), or on each
    row of a batch ``x`` of shape ``(m, k_0)`` (outputs ``(m, k_T)``).

    .. math:: o_0 = x, \quad o_{t+1} = \sigma(W_t o_t + b_t)\ (t < T - 1), \quad
        o_T = \mathrm{output}(W_{T-1} o_{T-1} + b_{T-1}).

    ``activation`` defaults to ``relu``, as everywhere in :mod:`jaxlearn.nn` (scikit-learn's
    default); the book's :math:`\sigma` is ``activation=nn.sigmoid``.
    The book applies :math:`\sigma` at the output too: pass ``output=activation`` for that network.
    ``x`` of any bool/int/float dtype is computed in the params' float dtype; a width other than
    :math:`k_0`, and (eagerly) NaN/inf in ``x`` or ``params``, are refused.
    A batch of rows is computed as :math:`O_{t+1} = \sigma(O_t W_t^\top + b_t)`, the same function as
    ``jax.vmap(lambda x: mlp_apply(params, x))(X)`` (``softmax`` acts on the last axis).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> params = nn.mlp_init(jax.random.PRNGKey(0), [2, 5, 1])
      >>> nn.mlp_apply(params, jnp.ones(2)).shape
      (1,)
    """
    params = network(params)
    check_callable("activation", activation)
    check_callable("output", output)
    o = as_numbers("x", x)
    check_width(
        "x", o, params[0][0].shape[1], {1: "(k_0,)", 2: "(m, k_0)"}, "the input width of `params`"
    )
    check_finite("x", o)
    for t, (W, b) in enumerate(params):
        a = o.astype(W.dtype) @ W.T + b  # = W o + b for one example, row-wise for a batch
        o = output(a) if t == len(params) - 1 else activation(a)
    return o


# --------------------------------------------------------------------------------------------
# Losses of one example (the ``loss`` of :func:`jaxlearn.nn.train` is built from these)
# --------------------------------------------------------------------------------------------


def squared_loss(output: ArrayLike, y: ArrayLike) -> Array:
    r"""The book's :math:`\Delta(h_w(x), y) = \frac12\|h_w(x) - y\|^2` (UML section 20.6); ``output`` and
    ``y`` of the same shape (no broadcasting), computed in the wider of their float dtypes."""
    output, y = as_numbers("output", output), as_numbers("y", y)
    if output.shape != y.shape:
        raise ValueError(
            f"expected `output` and `y` of the same shape, got {output.shape} and {y.shape}"
        )
    check_finite("output", output)
    check_finite("y", y)
    dtype = max(output.dtype, y.dtype, key=lambda d: d.itemsize)
    diff = output.astype(dtype) - y.astype(dtype)
    return 0.5 * jnp.sum(diff * diff)


def cross_entropy(logits: ArrayLike, label: ArrayLike) -> Array:
    r"""The softmax cross-entropy :math:`-\log \mathrm{softmax}(a)_y` of logits ``a`` of shape ``(k,)`` and
    one label ``y`` in ``0..k-1`` (int, bool or an integral float)."""
    logits = as_numbers("logits", logits)
    if logits.ndim != 1 or logits.shape[0] < 1:
        raise ValueError(f"expected `logits` of shape (k,), got {logits.shape}")
    label = jnp.asarray(label)
    if label.ndim != 0:
        raise ValueError(f"expected `label` a scalar class index, got shape {label.shape}")
    label = label.astype(jnp.int32) if label.dtype == jnp.bool_ else label
    check_finite("logits", logits)
    check_class_labels("label", label, logits.shape[0])
    return -jax.nn.log_softmax(logits)[label.astype(jnp.int32)]
