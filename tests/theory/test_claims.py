"""Smaller statements of the sources, each against measured figures: UML Claim 15.1 (the distance to a
hyperplane), Claim 15.6 (the hinge is ||x||-Lipschitz), the simplex projection of SPEC 5.2 (the nearest
point, and OGD's hypothesis set), and the SGD pathwise inequality of SPEC 7.2 [derived]."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxlearn import datasets, losses, online, theory
from jaxlearn.linear import sgd

# --- UML Claim 15.1 -------------------------------------------------------------------------------


def test_distance_to_a_hyperplane_is_the_absolute_score_claim_15_1(x64):
    """UML Claim 15.1 (SPEC 9.1): for ||w|| = 1 the distance from x to {v : <w, v> + b = 0} is |<w, x> + b|,
    attained at v = x - (<w, x> + b) w. Checked against optax's projection onto the hyperplane and against
    random points of the plane; theory.halfspace_margin is that distance for the nearest point of a sample."""
    k_w, k_x, k_z = jax.random.split(jax.random.PRNGKey(0), 3)
    d, b = 5, 0.7
    w = jax.random.normal(k_w, (d,))
    w = w / jnp.linalg.norm(w)
    X = 3 * jax.random.normal(k_x, (200, d))
    scores = X @ w + b
    V = X - scores[:, None] * w  # the closest points of the claim
    np.testing.assert_allclose(V @ w + b, 0.0, atol=1e-12)  # on the plane
    np.testing.assert_allclose(jnp.linalg.norm(X - V, axis=1), jnp.abs(scores), rtol=1e-12)
    projected = jax.vmap(lambda x: optax.projections.projection_hyperplane(x, w, -b))(X)
    np.testing.assert_allclose(projected, V, atol=1e-12)
    Z = 4 * jax.random.normal(k_z, (500, d))
    plane = Z - (Z @ w + b)[:, None] * w  # random points of the plane
    distances = jnp.linalg.norm(X[:, None, :] - plane[None, :, :], axis=-1)
    assert bool(jnp.all(distances.min(axis=1) >= jnp.abs(scores) - 1e-12))  # none is closer
    # a sample separated by {<w, v> = 0}: its margin (w of any length) is the smallest distance
    y = jnp.where(X @ w > 0, 1.0, -1.0)
    nearest = X - (X @ w)[:, None] * w  # the claim's v for b = 0
    distance = jnp.linalg.norm(X - nearest, axis=1)
    np.testing.assert_allclose(
        theory.halfspace_margin(3.5 * w, X, y), jnp.min(distance), rtol=1e-10
    )


# --- UML Claim 15.6 -------------------------------------------------------------------------------


def test_hinge_is_norm_x_lipschitz_claim_15_6(x64):
    """UML Claim 15.6 (SPEC 6.4): f(w) = max{0, 1 - y<w, x>} is ||x||-Lipschitz. The measured ratio
    |f(u) - f(v)| / ||u - v|| over random pairs and over adversarial pairs (u - v along x, both inside the
    hinge's slope) never exceeds ||x|| and reaches it within 1e-6; every sub-gradient has norm 0 or ||x||."""
    k_x, k_u, k_v, k_a, k_t = jax.random.split(jax.random.PRNGKey(1), 5)
    x, y = 1.7 * jax.random.normal(k_x, (4,)), -1.0
    norm = float(jnp.linalg.norm(x))
    f = jax.jit(jax.vmap(losses.hinge, (0, None, None)))
    U = 2 * jax.random.normal(k_u, (5000, 4))
    V = U + 0.5 * jax.random.normal(k_v, (5000, 4))
    # adversarial: u with margin a in [-2, 0.9], v = u + t y x/||x||^2 with margin a + t < 1
    a = jax.random.uniform(k_a, (500,), minval=-2.0, maxval=0.9)
    t = jax.random.uniform(k_t, (500,), minval=-1.0, maxval=0.09)
    base = U[:500] - (y * (U[:500] @ x) - a)[:, None] * (y * x / norm**2)  # margin exactly a
    U_adv, V_adv = base, base + t[:, None] * (y * x / norm**2)
    ratios = [
        jnp.abs(f(P, x, y) - f(Q, x, y)) / jnp.linalg.norm(P - Q, axis=1)
        for P, Q in ((U, V), (U_adv, V_adv))
    ]
    measured = float(jnp.max(jnp.concatenate(ratios)))
    assert measured <= norm * (1 + 1e-12)
    assert measured >= norm * (1 - 1e-6)
    assert float(jnp.max(ratios[0])) < norm * (
        1 - 1e-3
    )  # random pairs alone stay below: the pairs matter
    grads = jax.vmap(jax.grad(losses.hinge), (0, None, None))(U, x, y)
    grad_norms = np.asarray(jnp.linalg.norm(grads, axis=1))
    assert np.all(np.isclose(grad_norms, 0.0) | np.isclose(grad_norms, norm, rtol=1e-12))


# --- SPEC 5.2: the simplex projection ----------------------------------------------------------------


def _brute_force_simplex(w, scale):
    """The nearest point of {p >= 0, sum p = scale}, by trying every support size k of the sorted w."""
    w = np.asarray(w)
    best, best_distance = None, np.inf
    for k in range(1, len(w) + 1):
        tau = (np.sort(w)[::-1][:k].sum() - scale) / k
        p = np.maximum(w - tau, 0.0)
        if abs(p.sum() - scale) < 1e-9 and np.linalg.norm(p - w) < best_distance:
            best, best_distance = p, np.linalg.norm(p - w)
    return best


@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_simplex_projection_is_the_nearest_point_of_the_simplex(scale, x64):
    """SPEC 5.2 (sort-based projection), SS10 Lemma 6: p = online.simplex(s)(w) is feasible, meets the KKT
    conditions p_i = max(w_i - tau, 0), certifies optimality by <w - p, u - p> <= 0 at every vertex u = s e_j
    (hence on the whole simplex), equals a brute force over supports, and is no farther than w from any
    point u of the simplex."""
    W = 2 * jax.random.normal(jax.random.PRNGKey(2), (300, 6))
    P = np.asarray(jax.jit(jax.vmap(online.simplex(scale)))(W))
    W = np.asarray(W)
    assert np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), scale, rtol=1e-12)
    support = P > 0
    tau = np.where(support, W - P, np.nan)  # one tau per row on the support
    np.testing.assert_allclose(np.nanmax(tau, axis=1), np.nanmin(tau, axis=1), atol=1e-12)
    off = np.where(support, -np.inf, W)
    assert np.all(off.max(axis=1) <= np.nanmin(tau, axis=1) + 1e-12)
    residual = W - P
    certificate = scale * residual.max(axis=1) - np.sum(
        residual * P, axis=1
    )  # max_u <w - p, u - p>
    assert certificate.max() <= 1e-12
    for w, p in zip(W[:40], P[:40]):
        np.testing.assert_allclose(p, _brute_force_simplex(w, scale), atol=1e-12)
    U = scale * np.random.default_rng(0).dirichlet(np.ones(6), 300)
    assert np.all(np.sum((W - U) ** 2, axis=1) >= np.sum((P - U) ** 2, axis=1) - 1e-12)
    assert int((np.abs(P - W).max(axis=1) > 0.1).sum()) == 300  # no point was already on it


def _linear_loss(w, x, y):
    """<w, l_t>: the loss vector l_t rides in x (the allocation setting of Hedge); y is unused."""
    del y
    return jnp.vdot(w, x)


def test_ogd_over_the_simplex_stays_on_it_and_keeps_its_pathwise_regret(x64):
    """SPEC 5.2: OGD with projection onto the simplex (w_1 = Pi(0), uniform) is online learning of a
    distribution over n experts with linear losses l_t in [0, 1]^n. Every iterate is on the simplex, and
    its regret against each expert e_i is within ||e_i||^2/(2 eta) + (eta/2) sum ||v_t||^2
    (theory.ogd_pathwise_bound; ||Pi(0) - u|| <= ||u|| by SS10 Lemma 6) against an adversary who puts
    loss 1 on the heaviest coordinate, where the regret is 3/8 of the bound, and on random losses."""
    n, T = 4, 2000
    eta = 1 / np.sqrt(T)
    learner = online.online_gradient_descent(_linear_loss, eta, projection=online.simplex())
    state0 = learner.init(jnp.zeros(n))
    np.testing.assert_allclose(state0.w, jnp.full(n, 1 / n), rtol=1e-12)

    def play(adversarial, random_losses):
        def round_(state, random_loss):
            heaviest = jax.nn.one_hot(jnp.argmax(state.w), n, dtype=state.w.dtype)
            loss = jnp.where(adversarial, heaviest, random_loss)
            new, info = learner.update(state, loss, 1.0)
            return new, (state.w, loss, info.loss, info.grad_norm)

        return jax.lax.scan(round_, state0, random_losses)[1]

    random_losses = jax.random.uniform(jax.random.PRNGKey(3), (T, n))
    for adversarial, least in ((True, 0.33), (False, 0.0)):  # measured: 0.375 and 0.18 of the bound
        W, L, learner_loss, grad_norm = jax.jit(play, static_argnums=0)(adversarial, random_losses)
        assert bool(jnp.all(W >= 0))
        np.testing.assert_allclose(W.sum(axis=1), 1.0, rtol=1e-12)
        regret = learner_loss.sum() - L.sum(axis=0).min()
        bound = theory.ogd_pathwise_bound(1.0, eta, grad_norm**2)
        assert float(regret) <= float(bound)
        assert float(regret) >= least * float(bound), (float(regret), float(bound))


# --- SPEC 7.2 [derived]: the SGD pathwise inequality ---------------------------------------------------


def _sgd_pathwise_bound(U, eta1, grad_norms):
    """U^2 sqrt(T) / (2 eta_1) + (eta_1 / 2) sum_t ||v_t||^2 / sqrt(t) (SPEC 7.2 [derived])."""
    t = jnp.arange(1, grad_norms.shape[-1] + 1, dtype=grad_norms.dtype)
    return U**2 * jnp.sqrt(t[-1]) / (2 * eta1) + eta1 / 2 * jnp.sum(
        grad_norms**2 / jnp.sqrt(t), axis=-1
    )


def _decreasing(eta1):
    return lambda t: (
        eta1 * jax.lax.rsqrt(t.astype(jnp.result_type(float)) + 1)
    )  # eta_1 / sqrt(t), 1-based


def test_sgd_pathwise_inequality_on_random_and_adversarial_streams(x64):
    """SPEC 7.2 [derived] (SS10 Algorithm 5, eta_t = eta_1/sqrt(t), projection onto the ball of radius B,
    U = 2B its diameter): for every realisation and every u in the ball,
    sum_t f_t(w_t) - f_t(u) <= U^2 sqrt(T)/(2 eta_1) + (eta_1/2) sum_t ||v_t||^2/sqrt(t). Checked for the
    hinge on a random stream (128 comparators) and against a 1-D adversary who labels against the sign of
    w_t (y_t = -1 if w_t > 0 else 1), where the measured regret reaches 0.49 of the bound."""
    B, T = 1.0, 600
    U = 2 * B
    # a random stream: examples of a noisy sample in the unit ball (rho = 1), in a random order
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(4), T, 3, 0.2, dtype=jnp.float64)
    eta1 = U / np.sqrt(2.0)
    learner = online.online_gradient_descent(
        losses.hinge, _decreasing(eta1), projection=online.l2_ball(B)
    )
    run = jax.jit(
        lambda X, y: jax.lax.scan(lambda s, xy: learner.update(s, *xy), learner.init(X[0]), (X, y))
    )
    _, trace = run(X, y)
    us = jax.vmap(online.l2_ball(B))(2 * jax.random.normal(jax.random.PRNGKey(5), (128, 3)))
    comparators = jax.jit(jax.vmap(lambda u: jax.vmap(losses.hinge, (None, 0, 0))(u, X, y).sum()))(
        us
    )
    bound = _sgd_pathwise_bound(U, eta1, trace.grad_norm)
    assert bool(jnp.all(trace.loss.sum() - comparators <= bound))

    # the adversary, in one dimension (x_t = 1): the learner's loss is 1 + |w_t| every round
    learner = online.online_gradient_descent(
        losses.hinge, _decreasing(eta1), projection=online.l2_ball(B)
    )

    def round_(state, _):
        label = jnp.where(state.w[0] > 0, -1.0, 1.0)
        state, info = learner.update(state, jnp.ones(1), label)
        return state, (label, info.loss, info.grad_norm)

    _, (labels, learner_loss, grad_norm) = jax.jit(
        lambda s: jax.lax.scan(round_, s, None, length=T)
    )(learner.init(jnp.ones(1)))
    grid = jnp.linspace(-B, B, 2001)  # the comparators u in [-B, B]
    comparator_loss = jnp.maximum(0.0, 1 - labels[None, :] * grid[:, None]).sum(axis=1)
    regret = learner_loss.sum() - comparator_loss
    bound = _sgd_pathwise_bound(U, eta1, grad_norm)
    assert float(regret.max()) <= float(bound)
    assert float(regret.max()) >= 0.4 * float(bound), (float(regret.max()), float(bound))  # 0.49


@functools.lru_cache(maxsize=None)
def _small_sample():
    with jax.enable_x64(True):
        X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(6), 40, 3, 0.15, dtype=jnp.float64)
        return np.asarray(X), np.asarray(y)


def test_full_gradient_sgd_stays_below_theorem_5_on_every_run(x64):
    """SPEC 7.2 [derived]: with exact sub-gradients v_t in df(w_t) (linear.sgd with batch_size = m: one row
    per block, weight 1/m) the pathwise inequality gives, with no expectation,
    f(w_bar) - f(u) <= (U^2/(2 eta_1) + rho^2 eta_1)/sqrt(T) (theory.sgd_convex_bound) for every u in A =
    {||w|| <= B}, U = 2B, rho = max ||x|| >= ||v_t||; f is the average hinge loss of a noisy sample, u
    the best of 256 points of the ball and of the runs' outputs."""
    X, y = _small_sample()
    m, B = X.shape[0], 1.0
    U, rho = 2 * B, float(theory.radius(X))
    f = jax.jit(jax.vmap(lambda w: jnp.mean(jax.vmap(losses.hinge, (None, 0, 0))(w, X, y))))
    us = jax.vmap(online.l2_ball(B))(3 * jax.random.normal(jax.random.PRNGKey(7), (256, 3)))
    runs = {}
    T = 300
    for eta1 in (U / (rho * np.sqrt(2)), 0.3, 3.0):  # traced: one compilation
        learner = sgd(losses.hinge, steps=T, batch_size=m, eta=eta1, projection=online.l2_ball(B))
        runs[T, eta1] = learner.fit(jax.random.PRNGKey(1), X, y).w
    f_best = f(jnp.concatenate([us, jnp.stack(list(runs.values()))])).min()  # every u of A will do
    for (T, eta1), w_bar in runs.items():
        gap = f(w_bar[None])[0] - f_best
        assert float(gap) <= float(theory.sgd_convex_bound(U, rho, T, eta1)), (T, eta1, float(gap))
