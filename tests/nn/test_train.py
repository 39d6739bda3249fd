"""``jaxlearn.nn.train``: the book's SGD for neural networks (UML section 20.6) with optax."""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxlearn import nn
from tests.harness import count_compilations

# Optimisers and schedules are part of train's compiled program: build them once.
SCHEDULE = lambda t: 0.5 / (1.0 + 0.05 * t)  # noqa: E731 - eta_i = schedule(i - 1)
BOOK_SGD = optax.sgd(SCHEDULE)
ADAM = optax.adam(0.05)
HUGE_SGD = optax.sgd(1e4)
# The book's sigma, explicit: jaxlearn.nn's default activation is relu.
BOOK = dict(activation=nn.sigmoid)


def _regression(seed, m, d, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)).astype(dtype)
    return jnp.asarray(X), jnp.asarray((1.0 + 0.1 * rng.normal(size=(m, 1))).astype(dtype))


def _numpy_params(seed, sizes, dtype=np.float64, scale=0.3):
    rng = np.random.default_rng(seed)
    return [
        (
            jnp.asarray((scale * rng.normal(size=(k_out, k_in))).astype(dtype)),
            jnp.zeros(k_out, dtype),
        )
        for k_in, k_out in zip(sizes[:-1], sizes[1:])
    ]


@functools.partial(jax.jit, static_argnums=(4,))
def _book_step(w, xb, yb, t, lam):
    """One step of UML 20.6 as written: w <- w - eta_t (v_t + lam w), v_t by the book's backprop."""
    v = jax.tree_util.tree_map(
        lambda *g: jnp.mean(jnp.stack(g), axis=0),
        *[nn.backprop(w, xb[i], yb[i], **BOOK) for i in range(xb.shape[0])],
    )
    eta = SCHEDULE(t - 1)  # eta_t, t = 1, 2, ...
    return jax.tree_util.tree_map(lambda w_, v_: w_ - eta * (v_ + lam * w_), w, v)


@jax.jit
def _valid_loss(w, X, y):
    return jnp.mean(jax.vmap(lambda x, t: nn.squared_loss(nn.mlp_apply(w, x, **BOOK), t))(X, y))


def test_sgd_schedule_with_weight_decay_is_the_books_rule_and_returns_the_validation_best(x64):
    # Training targets are about 1, validation targets 0.5: starting near output 0, SGD passes the
    # validation optimum on its way to 1, so the last iterate is worse than an intermediate one.
    X, y = _regression(0, 32, 3)
    Xv, yv = X[:16], jnp.full((16, 1), 0.5)
    params = _numpy_params(1, [3, 4, 1])
    lam, steps, batch, every = 0.01, 60, 4, 5
    key = jax.random.PRNGKey(3)
    best, history = nn.train(
        key,
        params,
        X,
        y,
        loss="squared",
        optimizer=BOOK_SGD,
        steps=steps,
        batch_size=batch,
        weight_decay=lam,
        validation=(Xv, yv),
        eval_every=every,
        **BOOK,
    )

    # The book's loop by hand, on the minibatches train draws (uniform with replacement).
    idx = nn._descent.minibatch_indices(key, (steps // every, every, batch), 32)
    idx = np.asarray(idx).reshape(steps, batch)
    w, iterates, losses = params, [params], [float(_valid_loss(params, Xv, yv))]
    for t in range(1, steps + 1):
        w = _book_step(w, X[idx[t - 1]], y[idx[t - 1]], jnp.float64(t), lam)
        if t % every == 0:
            iterates.append(w)
            losses.append(float(_valid_loss(w, Xv, yv)))
    np.testing.assert_allclose(history.valid_loss, losses[1:], rtol=1e-10)
    np.testing.assert_array_equal(history.step, np.arange(every, steps + 1, every))
    chosen = int(np.argmin(losses))
    assert (
        0 < chosen < len(losses) - 1 and losses[-1] > 1.1 * losses[chosen]
    )  # the last iterate is worse
    assert int(history.best_step) == chosen * every
    chex.assert_trees_all_close(best, iterates[chosen], rtol=1e-10, atol=1e-12)
    assert not bool(history.diverged) and history.valid_error is None


def test_vmapped_16_seeds_equal_16_separate_runs():
    # Equality needs no big run: a tiny network, two evaluation windows (the best iterate differs by seed).
    X, y = _regression(2, 24, 2, np.float32)
    labels = (jnp.sum(X, axis=1) * X[:, 0] > 0).astype(jnp.int32)
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    kwargs = dict(
        loss="cross_entropy",
        optimizer=ADAM,
        steps=12,
        batch_size=4,
        eval_every=6,
        error="zero_one",
        validation=(X[:8], labels[:8]),
        weight_decay=1e-3,
        **BOOK,
    )

    @jax.jit
    def one(key):
        params = nn.mlp_init(jax.random.fold_in(key, 1), [2, 4, 2])
        return nn.train(key, params, X[8:], labels[8:], **kwargs)

    # A batched matrix product may sum in another order than the separate runs' (rtol 1e-5 in
    # float32); on a GPU its default precision (TF32) would round far more, so both run in full float32.
    with jax.default_matmul_precision("highest"):
        best, history = jax.vmap(one)(keys)
        assert history.valid_loss.shape == (16, 2) and history.valid_error.shape == (16, 2)
        for i in range(16):
            got = jax.tree_util.tree_map(lambda a, i=i: a[i], (best, history))
            chex.assert_trees_all_close(got, one(keys[i]), rtol=1e-5, atol=1e-6)
    assert len({int(s) for s in history.best_step}) > 1  # the seeds differ
    assert np.ptp(np.asarray(best[0][0]), axis=0).max() > 0.1


def test_diverging_learning_rate_is_flagged_not_returned_as_nan():
    X, y = _regression(3, 32, 3, np.float32)
    params = _numpy_params(4, [3, 16, 1], np.float32, scale=1.0)
    best, history = nn.train(
        jax.random.PRNGKey(0),
        params,
        X * 10,
        y * 100,
        loss="squared",
        optimizer=HUGE_SGD,
        steps=40,
        batch_size=4,
        eval_every=10,
        **BOOK,
    )
    assert bool(history.diverged)
    flags = np.asarray(history.nonfinite)
    assert np.all(np.diff(flags.astype(int)) >= 0)  # once frozen, frozen
    # the first non-finite window is discarded whole: the run stays at the previous evaluated iterate
    first = int(np.argmax(flags))
    before = (
        float(_valid_loss(params, X * 10, y * 100))
        if first == 0
        else float(history.valid_loss[first - 1])
    )
    np.testing.assert_allclose(history.valid_loss[first:], before, rtol=1e-6)
    assert not np.isfinite(float(history.train_loss[first]))
    assert int(history.best_step) <= first * 10
    assert all(np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree_util.tree_leaves(best))
    # the returned iterate is one whose validation loss was finite (the frozen one may overflow the loss)
    out = jax.vmap(lambda x: nn.mlp_apply(best, x, **BOOK))(X * 10)
    assert np.isfinite(float(nn.squared_loss(out, y * 100)))
    # a sane learning rate on the same problem does not diverge
    _, ok = nn.train(
        jax.random.PRNGKey(0),
        params,
        X,
        y,
        loss="squared",
        optimizer=ADAM,
        steps=40,
        batch_size=4,
        eval_every=10,
        **BOOK,
    )
    assert not bool(ok.diverged)


def test_no_recompilation_and_traced_weight_decay():
    X, y = _regression(5, 24, 3, np.float32)
    params = _numpy_params(6, [3, 5, 1], np.float32)
    run = functools.partial(
        nn.train, loss="squared", optimizer=ADAM, steps=20, batch_size=4, eval_every=10, **BOOK
    )
    lams = jnp.array(
        [0.0, 0.1, 1.0], jnp.float32
    )  # strongly typed: the sweep's single runs share a program
    run(jax.random.PRNGKey(0), params, X, y, weight_decay=lams[1])
    X2, y2 = _regression(7, 24, 3, np.float32)
    key = jax.random.PRNGKey(1)
    with count_compilations() as compiled:
        run(key, params, X2, y2, weight_decay=lams[2])
    assert compiled[0] == 0
    swept, _ = jax.vmap(lambda lam: run(jax.random.PRNGKey(0), params, X, y, weight_decay=lam))(
        lams
    )
    for i, lam in enumerate(lams):
        one, _ = run(jax.random.PRNGKey(0), params, X, y, weight_decay=lam)
        got = jax.tree_util.tree_map(lambda a, i=i: a[i], swept)
        chex.assert_trees_all_close(got, one, rtol=1e-5, atol=1e-6)


def test_bad_inputs():
    X, y = _regression(8, 12, 3, np.float32)
    params = _numpy_params(9, [3, 4, 1], np.float32)
    labels = jnp.zeros(12, jnp.int32)
    key = jax.random.PRNGKey(0)
    run = functools.partial(nn.train, key, optimizer=ADAM, steps=4, batch_size=2, **BOOK)
    with pytest.raises(
        ValueError, match=r"expected `X` of shape \(m, k_0\) with 3 features .*got \(12, 2\)"
    ):
        run(params, X[:, :2], y, loss="squared")
    with pytest.raises(ValueError, match=r"expected `y` in \{0, 1, 2\}, found values \{0, 5\}"):
        run(_numpy_params(9, [3, 4, 3], np.float32), X, labels.at[0].set(5), loss="cross_entropy")
    with pytest.raises(ValueError, match="expected `X` to be finite"):
        run(params, X.at[2, 1].set(jnp.nan), y, loss="squared")
    with pytest.raises(ValueError, match="expected `validation\\[0\\]` to be finite"):
        run(params, X, y, loss="squared", validation=(X.at[0, 0].set(jnp.inf), y))
    with pytest.raises(ValueError, match="expected `params` to be finite"):
        run([(params[0][0].at[0, 0].set(jnp.nan), params[0][1]), params[1]], X, y, loss="squared")
    with pytest.raises(ValueError, match="same number of examples"):
        run(params, X, y[:-1], loss="squared")
    with pytest.raises(ValueError, match=r"`weight_decay` a number in \[0, inf\)"):
        run(params, X, y, loss="squared", weight_decay=-1.0)
    with pytest.raises(ValueError, match="`loss` in"):
        run(params, X, y, loss="hinge")
    with pytest.raises(ValueError, match=r"`eval_every` an integer in \[1, inf\)"):
        run(params, X, y, loss="squared", eval_every=0)
    with pytest.raises(ValueError, match="`validation` a pair"):
        run(params, X, y, loss="squared", validation=X)
