"""``nn.train``'s minibatch rules on one device: ``sampling="uniform"`` (the default, unchanged) and
``"stratified"`` (example ``j`` from block ``j`` of the rows, weighted by the block's share ``|B_j|/m``).
The data-parallel fits are in ``tests/parallel/test_nn.py``."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxlearn import nn
from jaxlearn._sharding import block_starts, stratified_indices

SGD = optax.sgd(0.3)
BOOK = dict(activation=nn.sigmoid)  # the book's sigma, explicit: jaxlearn.nn's default is relu


def test_stratified_minibatches_draw_example_j_from_block_j():
    m, b = 44, 8  # blocks of 5 and 6 rows
    idx = np.asarray(nn._descent.minibatches(jax.random.PRNGKey(0), "stratified", 600, 50, m, b))
    assert idx.shape == (12, 50, b)
    starts = block_starts(m, b)
    for j in range(b):
        drawn = idx[..., j]
        assert drawn.min() >= starts[j] and drawn.max() < starts[j + 1], j
        assert set(drawn.ravel()) == set(range(starts[j], starts[j + 1])), (
            j
        )  # every row of its block


def test_weighted_stratified_steps_are_the_by_hand_weighted_gradient_steps(x64):
    # b = 8 does not divide m = 44: the batch loss is sum_j |B_j|/m * loss(x_{i_j}), not the batch mean.
    m, b, steps, lam = 44, 8, 3, 0.01
    X = jax.random.normal(jax.random.PRNGKey(0), (m, 3), jnp.float64)
    Y = jnp.tanh(X[:, :1] - X[:, 1:2])
    params = nn.mlp_init(jax.random.PRNGKey(1), [3, 4, 1], dtype=jnp.float64)
    key = jax.random.PRNGKey(2)
    best, history = nn.train(
        key,
        params,
        X,
        Y,
        loss="squared",
        optimizer=SGD,
        steps=steps,
        batch_size=b,
        weight_decay=lam,
        eval_every=1,
        sampling="stratified",
        **BOOK,
    )

    def loss(p, x, y):
        return nn.squared_loss(nn.mlp_apply(p, x, **BOOK), y)

    def batch_loss(p, rows):
        weights = np.diff(block_starts(m, b)) / m  # 5/44 or 6/44
        return sum(weights[j] * loss(p, X[rows[j]], Y[rows[j]]) for j in range(b))

    @jax.jit
    def valid_loss(p):  # the training set's mean loss
        return jnp.mean(jax.vmap(loss, in_axes=(None, 0, 0))(p, X, Y))

    step = jax.jit(jax.value_and_grad(batch_loss))

    draws = np.asarray(stratified_indices(key, (steps, 1), m, b))[:, 0]  # train's draws, same key
    iterates, values = [params], []
    for rows in draws:
        p = iterates[-1]
        value, grads = step(p, rows)
        iterates.append(jax.tree_util.tree_map(lambda w, g: w - 0.3 * (g + lam * w), p, grads))
        values.append(value)
    np.testing.assert_allclose(history.train_loss, values, rtol=1e-12)
    np.testing.assert_allclose(
        history.valid_loss, [valid_loss(p) for p in iterates[1:]], rtol=1e-12
    )
    assert int(history.best_step) > 0
    chex.assert_trees_all_close(best, iterates[int(history.best_step)], rtol=1e-12, atol=1e-14)


def test_uniform_sampling_is_the_default_and_stratified_differs():
    X = jax.random.normal(jax.random.PRNGKey(0), (40, 3))
    y = (X[:, 0] > 0).astype(jnp.int32)
    params = nn.mlp_init(jax.random.PRNGKey(1), [3, 4, 2])
    run = lambda **kw: nn.train(
        jax.random.PRNGKey(2),
        params,
        X,
        y,
        loss="cross_entropy",
        optimizer=SGD,  # noqa: E731
        steps=8,
        batch_size=4,
        eval_every=4,
        **BOOK,
        **kw,
    )
    default = run()
    chex.assert_trees_all_equal(run(sampling="uniform"), default)  # bitwise
    stratified = run(sampling="stratified")  # b | m: the batch mean, other draws
    assert not np.array_equal(stratified[1].train_loss, default[1].train_loss)
