"""Boolean functions as sign networks (UML section 20.3, Lemma 20.4 and Claim 20.1), on all inputs."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import nn


def test_boolean_inputs_is_the_truth_table_order():
    for n in (1, 3):
        expected = np.array(list(itertools.product((-1, 1), repeat=n)), np.float32)
        np.testing.assert_array_equal(nn.boolean_inputs(n), expected)


@pytest.mark.parametrize("k", range(1, 7))
def test_conjunction_and_disjunction_neurons(k):
    X = np.asarray(nn.boolean_inputs(k))
    negated = np.random.default_rng(k).random(k) < 0.5
    for neg in (None, negated):
        literals = X if neg is None else np.where(negated, -X, X)  # the literals' values, +1 = true
        # conjunction: +1 iff every literal is +1; disjunction: +1 iff some literal is +1
        for neuron, reduce in ((nn.conjunction_neuron, np.min), (nn.disjunction_neuron, np.max)):
            w, b = neuron(k, negated=neg)
            a = X @ np.asarray(w) + float(b)
            assert np.all(a != 0)  # sign(0) never arises
            expected = np.where(reduce(literals, axis=1) > 0, 1, -1)
            np.testing.assert_array_equal(np.where(a > 0, 1, -1), expected)
    with pytest.raises(ValueError, match=r"`negated` of shape \(3,\)"):
        nn.conjunction_neuron(3, negated=[True, False])


@pytest.mark.parametrize("n", range(1, 6))
def test_boolean_network_reproduces_every_table(n):
    rng = np.random.default_rng(n)
    tables = np.where(rng.random((16, 2**n)) < 0.5, 1.0, -1.0).astype(np.float32)
    tables[0], tables[1] = -1.0, 1.0  # the constant functions (k = 0 and k = 2^n)
    X = nn.boolean_inputs(n)

    @jax.jit
    def evaluate(tables):
        def one(table):
            params, apply = nn.boolean_network(table)
            pre_activations = X @ params[0][0].T + params[0][1]
            return jax.vmap(lambda x: apply(params, x)[0])(X), jnp.abs(pre_activations).min()

        return jax.vmap(one)(tables)

    outputs, smallest = evaluate(jnp.asarray(tables))
    np.testing.assert_array_equal(outputs, tables)
    assert float(smallest.min()) >= 1  # no hidden pre-activation is 0
    params, _ = nn.boolean_network(tables[2])
    assert params[0][0].shape == (2**n, n) and params[1][0].shape == (
        1,
        2**n,
    )  # |V_1| = 2^n (+ constant)


def test_boolean_network_rejects_bad_tables():
    with pytest.raises(ValueError, match=r"`table` of length 2\*\*n"):
        nn.boolean_network(jnp.ones(3))
    with pytest.raises(ValueError, match=r"expected `table` in \{-1, 1\}"):
        nn.boolean_network(jnp.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"`table` of shape \(2\*\*n,\)"):
        nn.boolean_network(jnp.ones((2, 2)))
