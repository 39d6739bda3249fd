"""Online gradient descent: COMP0078's hinge rule, the U R sqrt(T) regret bound, the pathwise
inequality, projections."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, losses, metrics, online, theory


def _comparator_losses(U, X, y):
    """Hinge losses of the best fixed u in the ball ||u|| <= U."""
    u = online.best_fixed_predictor(
        losses.hinge, X, y, projection=online.l2_ball(U), learning_rate=U / theory.radius(X)
    )
    return u, jax.vmap(losses.hinge, (None, 0, 0))(u, X, y)


def test_best_fixed_predictor_beats_other_comparators():
    X, y, w_star = datasets.noisy_halfspace(jax.random.PRNGKey(9), 1000, 5, 0.1)
    u, best = _comparator_losses(3.0, X, y)
    assert float(jnp.linalg.norm(u)) <= 3.0 + 1e-5
    dirs = jax.random.normal(jax.random.PRNGKey(1), (64, 5))
    others = jnp.concatenate(
        [3.0 * w_star[None], 3.0 * dirs / jnp.linalg.norm(dirs, axis=1, keepdims=True)]
    )
    totals = jax.vmap(lambda v: jax.vmap(losses.hinge, (None, 0, 0))(v, X, y).sum())(others)
    assert float(best.sum()) <= float(totals.min()) + 1e-3


def test_hinge_ogd_is_the_comp0078_rule(x64):
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(0), 200, 4, 0.1)
    eta = 0.3
    learner = online.online_gradient_descent(losses.hinge, eta)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    w = np.zeros(4)
    for x, label in zip(np.asarray(X), np.asarray(y)):  # w_{t+1} = w_t + 1[y w.x < 1] eta y x
        w = w + (label * w @ x < 1) * eta * label * x
    np.testing.assert_allclose(state.w, w, rtol=1e-12)


def test_hinge_kink_gives_no_update(x64):
    # y <w, x> == 1 exactly: the strict rule makes no update (sub-gradient 0 at the kink).
    learner = online.online_gradient_descent(losses.hinge, 1.0)
    x = jnp.array([1.0, 0.0])
    state, _ = learner.update(learner.init(x), x, 1.0)  # w = (1, 0): margin exactly 1 next
    state2, info = learner.update(state, x, 1.0)
    chex.assert_trees_all_equal(state.w, state2.w)
    assert float(info.loss) == 0.0 and float(info.grad_norm) == 0.0


@pytest.mark.parametrize("flip", [0.0, 0.1, 0.3])
@pytest.mark.parametrize("U", [1.0, 5.0])
def test_regret_bound_with_tuned_step(flip, U):
    T = 2000
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(int(flip * 10)), T, 5, flip)
    R = theory.radius(X)
    eta = U / (R * jnp.sqrt(T))
    learner = online.online_gradient_descent(losses.hinge, eta)
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    u, comparator = _comparator_losses(U, X, y)
    assert float(jnp.linalg.norm(u)) <= U + 1e-4
    running = metrics.regret(trace.loss, comparator)
    bound = theory.ogd_regret_bound(U, R, jnp.arange(1, T + 1))  # holds at the horizon T
    assert float(running[-1]) <= float(bound[-1])
    # many other comparators in the ball, all at once: (T, K) losses, regret against the best
    dirs = jax.random.normal(jax.random.PRNGKey(1), (256, 5))
    us = U * dirs / jnp.linalg.norm(dirs, axis=1, keepdims=True)
    many = jax.vmap(lambda u: jax.vmap(losses.hinge, (None, 0, 0))(u, X, y), out_axes=1)(us)
    assert float(metrics.regret(trace.loss, many)[-1]) <= float(bound[-1])


def test_regret_bound_against_an_adaptive_adversary():
    # Each round the adversary labels x_t against the learner's score: y_t = -sign(<w_t, x_t>).
    T, U = 1500, 2.0
    X = datasets.noisy_halfspace(jax.random.PRNGKey(5), T, 3, 0.0)[0]
    R = theory.radius(X)
    eta = U / (R * jnp.sqrt(T))
    learner = online.online_gradient_descent(losses.hinge, eta)

    def body(state, x):
        label = jnp.where(learner.predict(state, x) > 0, -1.0, 1.0)
        state, info = learner.update(state, x, label)
        return state, (info, label)

    _, (trace, y) = jax.lax.scan(body, learner.init(X[0]), X)
    u, comparator = _comparator_losses(U, X, y)
    assert float(trace.loss.sum()) >= T  # every round is a mistake: loss >= 1
    assert float(metrics.regret(trace.loss, comparator)[-1]) <= float(
        theory.ogd_regret_bound(U, R, T)
    )


@pytest.mark.parametrize(
    "loss,projection",
    [
        (losses.hinge, None),
        (losses.logistic, None),
        (losses.squared, online.l2_ball(1.0)),
        (losses.absolute, online.box(-0.3, 0.3)),
    ],
    ids=["hinge", "logistic", "squared_ball", "absolute_box"],
)
def test_pathwise_inequality_for_any_comparator(loss, projection, x64):
    # sum_t f_t(w_t) - f_t(u) <= ||u||^2 / (2 eta) + eta/2 sum_t ||v_t||^2 for every u in H.
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(2), 500, 4, 0.2)
    eta = 0.05
    learner = online.online_gradient_descent(loss, eta, projection=projection)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    us = jax.random.normal(jax.random.PRNGKey(3), (128, 4))
    if projection is not None:
        us = jax.vmap(projection)(us)
        assert float(jnp.max(jnp.abs(state.w - projection(state.w)))) < 1e-12  # iterates stay in H
    for u in us:
        gap = trace.loss.sum() - jax.vmap(loss, (None, 0, 0))(u, X, y).sum()
        assert float(gap) <= float(
            theory.ogd_pathwise_bound(jnp.linalg.norm(u), eta, trace.grad_norm**2)
        )


def test_projections_satisfy_the_projection_lemma(x64):
    # ||w - u||^2 >= ||P(w) - u||^2 for u in the set (SS10 Lemma 6).
    key_w, key_u = jax.random.split(jax.random.PRNGKey(0))
    ws = 3 * jax.random.normal(key_w, (200, 5))
    for project in [online.l2_ball(1.5), online.box(-0.5, 0.2)]:
        us = jax.vmap(project)(jax.random.normal(key_u, (200, 5)))
        pw = jax.vmap(project)(ws)
        chex.assert_trees_all_close(jax.vmap(project)(pw), pw)  # idempotent
        lhs = jnp.sum((ws - us) ** 2, axis=1)
        rhs = jnp.sum((pw - us) ** 2, axis=1)
        assert bool(jnp.all(lhs >= rhs - 1e-12))


def test_initial_point_is_projected():
    learner = online.online_gradient_descent(losses.squared, 0.1, projection=online.box(0.5, 1.0))
    state = learner.init(jnp.zeros(3))
    np.testing.assert_array_equal(state.w, [0.5, 0.5, 0.5])
