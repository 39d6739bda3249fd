"""The book's backpropagation (UML section 20.6) against ``jax.grad`` and finite differences (float64)."""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree

from jaxlearn import nn

# (layer sizes, hidden activation, output): depths 1..4, several widths, the book's sigmoid output too.
NETWORKS = [
    ([3, 1], nn.sigmoid, nn.identity),
    ([4, 5, 2], nn.sigmoid, nn.identity),
    ([4, 5, 2], nn.sigmoid, nn.sigmoid),
    ([2, 7, 3, 4], nn.tanh, nn.identity),
    ([5, 3, 6, 3, 2], nn.sigmoid, nn.sigmoid),
    ([6, 8, 1], nn.relu, nn.identity),
]
IDS = [f"{'-'.join(map(str, s))}-{a.__name__}-{o.__name__}" for s, a, o in NETWORKS]


def _objective(params, x, y, activation, output, lam):
    """1/2 ||o_T - y||^2 + lam/2 ||w||^2, the function whose gradient the book's SGD step uses."""
    penalty = sum(jnp.sum(leaf**2) for leaf in jax.tree_util.tree_leaves(params))
    out = nn.mlp_apply(params, x, activation=activation, output=output)
    return nn.squared_loss(out, y) + lam / 2 * penalty


def _example(sizes, seed):
    """Random params (biases too), input and target for one network, in float64 (drawn by NumPy:
    JAX's float64 PRNG would cost more compile time than the checks)."""
    rng = np.random.default_rng(seed)
    params = [
        (jnp.asarray(0.8 * rng.normal(size=(k_out, k_in))), jnp.asarray(rng.normal(size=k_out)))
        for k_in, k_out in zip(sizes[:-1], sizes[1:])
    ]
    return params, jnp.asarray(rng.normal(size=sizes[0])), jnp.asarray(rng.normal(size=sizes[-1]))


@functools.partial(jax.jit, static_argnums=(4, 5))
def _three_gradients(params, x, y, lam, activation, output):
    """(backprop, jax.grad, central differences) of the objective, flattened."""
    flat, unravel = ravel_pytree(params)
    objective = jax.vmap(lambda w: _objective(unravel(w), x, y, activation, output, lam))
    h = 1e-5
    eye = jnp.eye(flat.size, dtype=flat.dtype)
    numeric = (objective(flat + h * eye) - objective(flat - h * eye)) / (2 * h)
    hand = nn.backprop(params, x, y, activation=activation, output=output, weight_decay=lam)
    chex.assert_trees_all_equal_shapes_and_dtypes(hand, params)
    auto = jax.grad(_objective)(params, x, y, activation, output, lam)
    return ravel_pytree(hand)[0], ravel_pytree(auto)[0], numeric


@pytest.mark.parametrize("sizes, activation, output", NETWORKS, ids=IDS)
def test_backprop_equals_autodiff_and_finite_differences(x64, sizes, activation, output):
    # the weight-decay term lam w of the book's SGD step is included for lam > 0
    for seed, lam in enumerate([0.0, 0.37, 2.0]):
        params, x, y = _example(sizes, seed)
        hand, auto, numeric = _three_gradients(params, x, y, jnp.float64(lam), activation, output)
        np.testing.assert_allclose(hand, auto, atol=1e-10, rtol=0)
        np.testing.assert_allclose(hand, numeric, atol=1e-6, rtol=0)
        if lam == 0:  # the comparison is not vacuous: the gradient is far from zero
            assert float(jnp.abs(auto).max()) > 1e-2


def test_backprop_is_the_book_recursion_on_a_hand_example(x64):
    # T = 2, one neuron per layer, sigmoid everywhere: the derivatives written out by hand.
    w0, b0, w1, b1 = 0.5, -0.2, 1.5, 0.1
    params = [(jnp.array([[w0]]), jnp.array([b0])), (jnp.array([[w1]]), jnp.array([b1]))]
    x, y = jnp.array([2.0]), jnp.array([0.3])
    s = jax.nn.sigmoid
    a1 = w0 * 2.0 + b0
    o1 = s(a1)
    a2 = w1 * o1 + b1
    o2 = s(a2)
    d2 = o2 - 0.3
    d1 = w1 * d2 * s(a2) * (1 - s(a2))
    grads = nn.backprop(params, x, y, activation=nn.sigmoid, output=nn.sigmoid)
    np.testing.assert_allclose(grads[1][0][0, 0], d2 * s(a2) * (1 - s(a2)) * o1, rtol=1e-14)
    np.testing.assert_allclose(grads[1][1][0], d2 * s(a2) * (1 - s(a2)), rtol=1e-14)
    np.testing.assert_allclose(grads[0][0][0, 0], d1 * s(a1) * (1 - s(a1)) * 2.0, rtol=1e-14)
    np.testing.assert_allclose(grads[0][1][0], d1 * s(a1) * (1 - s(a1)), rtol=1e-14)


def test_backprop_rejects_softmax_and_takes_custom_activations(x64):
    params, x, y = _example([3, 4, 2], 1)
    with pytest.raises(ValueError, match="element-wise `output`"):
        nn.backprop(params, x, y, output=nn.softmax)

    def softplus(a):  # no .derivative: backprop differentiates it element-wise
        return jnp.log1p(jnp.exp(a))

    hand = jax.jit(lambda p: nn.backprop(p, x, y, activation=softplus))(params)
    auto = jax.jit(jax.grad(_objective), static_argnums=(3, 4))(
        params, x, y, softplus, nn.identity, 0.0
    )
    chex.assert_trees_all_close(hand, auto, atol=1e-10, rtol=0)


def test_mlp_init_shapes_and_bad_sizes():
    params = nn.mlp_init(jax.random.PRNGKey(0), [4, 8, 3])
    assert [(W.shape, b.shape) for W, b in params] == [((8, 4), (8,)), ((3, 8), (3,))]
    assert all(W.dtype == jnp.float32 for W, _ in params)
    # random and near zero: the neurons of a layer differ, weights of order 1/sqrt(k_in)
    W0 = np.asarray(params[0][0])
    assert np.abs(W0).max() < 3 and len({tuple(row) for row in W0.round(6)}) == 8
    for bad in ([4], [4, 0, 3]):
        with pytest.raises(ValueError, match="`layer_sizes`"):
            nn.mlp_init(jax.random.PRNGKey(0), bad)
    for bad in ([4.5, 3], 4, [4, True]):
        with pytest.raises(TypeError, match="`layer_sizes`"):
            nn.mlp_init(jax.random.PRNGKey(0), bad)
