"""Many seeds as one program: ``jax.vmap`` of ``mlp_classifier(...).fit`` over keys (issue 16).

The cross-entropy picks each row's log-probability by a masked row sum instead of
``jnp.take_along_axis``: the same numbers and gradients, and no batched scatter in the vmapped program.
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import nn


def _old_mean_cross_entropy(params, X, labels):
    """The cross-entropy as it was computed before (a gather of the picked log-probabilities)."""
    log_p = jax.nn.log_softmax(nn.mlp_apply(params, X, activation=nn.relu))
    picked = jnp.take_along_axis(log_p, labels.astype(jnp.int32)[:, None], axis=1)
    return -jnp.sum(picked) / X.shape[0]


def test_masked_cross_entropy_equals_the_gathered_one_value_and_gradient(x64):
    X = jax.random.normal(jax.random.PRNGKey(0), (40, 5), jnp.float64)
    labels = jax.random.randint(jax.random.PRNGKey(1), (40,), 0, 4)
    params = nn.mlp_init(jax.random.PRNGKey(2), [5, 7, 4], dtype=jnp.float64)
    new = nn._train.example_loss("cross_entropy", nn.relu).mean
    value, grads = jax.value_and_grad(new)(params, X, labels)
    old_value, old_grads = jax.value_and_grad(_old_mean_cross_entropy)(params, X, labels)
    np.testing.assert_allclose(value, old_value, rtol=1e-15)
    chex.assert_trees_all_close(grads, old_grads, rtol=1e-12, atol=1e-15)


def test_vmapped_fit_has_no_scatter_and_equals_the_separate_fits():
    X = jax.random.normal(jax.random.PRNGKey(3), (60, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(jnp.int32) + (X[:, 2] > 1).astype(jnp.int32)
    learner = nn.mlp_classifier(6, steps=24, num_classes=3, batch_size=8, eval_every=8)
    keys = jax.random.split(jax.random.PRNGKey(4), 4)
    program = jax.jit(jax.vmap(learner.fit, (0, None, None)))
    assert (
        "scatter" not in program.lower(keys, X, y).as_text()
    )  # the gradient is a select, not a scatter
    many = program(keys, X, y)
    for i in range(4):
        one = jax.jit(learner.fit)(keys[i], X, y)
        got = jax.tree_util.tree_map(lambda a, i=i: a[i], many)
        chex.assert_trees_all_close(got, one, rtol=1e-5, atol=1e-6)
