"""The demo's rows for the online learners and prediction with expert advice (UML chapter 21)."""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import core, datasets, experts, kernels, losses, metrics, online, theory


def _timed_run(learner, X, y, state0=None, **kwargs):
    """Run once to compile, then time a second run; return (state, trace, rounds per second).

    ``state0`` defaults to ``learner.init(X[0])``; ``kwargs`` go to :func:`jaxlearn.core.run`.
    """
    state0 = learner.init(X[0]) if state0 is None else state0
    jax.block_until_ready(core.run(learner, state0, X, y, **kwargs))
    start = time.perf_counter()
    state, trace = jax.block_until_ready(core.run(learner, state0, X, y, **kwargs))
    return state, trace, y.shape[0] / (time.perf_counter() - start)


def online_rows(key):
    """Yield (learner, data set, mistakes, bound, accuracy, examples/s) rows."""
    k_sep, k_noisy, k_bool, k_ker = jax.random.split(key, 4)

    X, y, w_star = datasets.separable(k_sep, 20_000, 20, margin=0.1)
    R, gamma = theory.radius(X), theory.halfspace_margin(w_star, X, y)
    gamma_unit = theory.halfspace_margin(w_star, X, y, normalize=True)
    data = "separable n=20000 d=20 gamma=0.1"
    for name, learner, bound, kwargs in [
        ("perceptron", online.perceptron(), theory.perceptron_mistake_bound(R, gamma), {}),
        (
            "perceptron (block mode)",
            online.perceptron(),
            theory.perceptron_mistake_bound(R, gamma),
            {"block_size": 64},
        ),
        (
            "perceptron (normalized)",
            online.perceptron(normalize=True),
            theory.perceptron_mistake_bound(1.0, gamma_unit),
            {"block_size": 64},
        ),
    ]:
        state, trace, speed = _timed_run(learner, X, y, **kwargs)
        acc = metrics.accuracy(y, core.predict_batch(learner, state, X))
        yield name, data, int(trace.mistake.sum()), f"(R/g)^2 = {float(bound):.0f}", acc, speed

    learner = online.margin_perceptron(gamma_unit)
    state, trace, speed = _timed_run(learner, X, y, block_size=64)
    acc = metrics.accuracy(y, core.predict_batch(learner, state, X))
    bound = theory.margin_perceptron_bound(gamma_unit)
    yield (
        "margin perceptron",
        data,
        f"{int(trace.update.sum())} updates",
        f"12/g^2 = {float(bound):.0f}",
        acc,
        speed,
    )

    Xc = jax.random.uniform(k_ker, (4000, 2), minval=-1.0, maxval=1.0)
    Xc = Xc[jnp.abs(jnp.sum(Xc**2, axis=1) - 0.5) > 0.1]
    yc = jnp.where(jnp.sum(Xc**2, axis=1) > 0.5, 1.0, -1.0)
    learner = online.kernel_perceptron(kernels.polynomial(2), budget=256)
    state, trace, speed = _timed_run(learner, Xc, yc)
    acc = metrics.accuracy(yc, core.predict_batch(learner, state, Xc))
    full = " (budget full!)" if bool(trace.budget_full.any()) else ""
    yield (
        "kernel perceptron, poly(2)",
        f"circle n={Xc.shape[0]} d=2",
        f"{int(trace.mistake.sum())}{full}",
        "-",
        acc,
        speed,
    )

    Xb, yb, _ = datasets.disjunction(k_bool, 20_000, 200, 4)
    learner = online.winnow()
    state, trace, speed = _timed_run(learner, Xb, yb)
    acc = metrics.accuracy(yb, core.predict_batch(learner, state, Xb))
    bound = theory.winnow_mistake_bound(4, 200)
    yield (
        "winnow",
        "4-of-200 disjunction n=20000",
        int(trace.mistake.sum()),
        f"2+3k(1+log2 n) = {float(bound):.0f}",
        acc,
        speed,
    )

    Xn, yn, _ = datasets.noisy_halfspace(k_noisy, 20_000, 20, 0.1)
    T, U, Rn = Xn.shape[0], 2.0, theory.radius(Xn)
    learner = online.online_gradient_descent(losses.hinge, U / (Rn * np.sqrt(T)))
    state, trace, speed = _timed_run(learner, Xn, yn)
    acc = metrics.accuracy(yn, jnp.where(core.predict_batch(learner, state, Xn) > 0, 1.0, -1.0))
    u = online.best_fixed_predictor(losses.hinge, Xn, yn, projection=online.l2_ball(U), learning_rate=U / Rn)
    comparator = jax.vmap(losses.hinge, (None, 0, 0))(u, Xn, yn)
    regret = float(metrics.regret(trace.loss, comparator)[-1])
    mistakes = int((trace.prediction * yn <= 0).sum())
    bound = theory.ogd_regret_bound(U, Rn, T)
    yield (
        "OGD, hinge, eta=U/(R sqrt T)",
        "noisy n=20000 d=20 flip=0.1",
        f"{mistakes} (hinge regret {regret:.0f})",
        f"regret <= U R sqrt(T) = {float(bound):.0f}",
        acc,
        speed,
    )

    try:
        Xc, yc = datasets.load_breast_cancer()
    except ImportError as err:
        print(f"(skipping breast cancer: {err})", file=sys.stderr)
        return
    Xc = datasets.standardize(Xc)
    for name, learner in [
        ("perceptron", online.perceptron()),
        ("OGD, hinge, eta=0.05", online.online_gradient_descent(losses.hinge, 0.05)),
    ]:
        state, trace, speed = _timed_run(learner, jnp.tile(Xc, (5, 1)), jnp.tile(yc, 5))
        score = core.predict_batch(learner, state, Xc)
        acc = metrics.accuracy(yc, jnp.where(score > 0, 1.0, -1.0))
        mistakes = int((trace.prediction * jnp.tile(yc, 5) <= 0).sum())
        yield name, "breast cancer, 5 passes", mistakes, "- (not separable)", acc, speed


def expert_rows(key):
    """Rows for prediction with expert advice: mistakes or regret against the theorems' bounds."""
    k_real, k_noisy, k_soft, k_loss = jax.random.split(key, 4)
    T, n = 20_000, 256
    X, y = datasets.expert_advice(k_real, T, n)  # expert 0 is perfect
    learner = experts.halving()
    _, trace, speed = _timed_run(learner, X, y)
    data = f"{n} experts, one perfect, T={T}"
    yield (
        "halving",
        data,
        int(trace.mistake.sum()),
        f"log2 n = {float(theory.halving_bound(n)):.0f}",
        "-",
        speed,
    )

    X, y = datasets.expert_advice(k_noisy, T, n, jnp.linspace(0.1, 0.5, n))
    best = int(jnp.min(jnp.sum(X != y[:, None], axis=0)))
    data = f"{n} experts, best errs {best}, T={T}"
    learner = experts.weighted_majority()
    _, trace, speed = _timed_run(learner, X, y)
    bound = theory.weighted_majority_bound(1 / np.e, best, n)
    yield (
        "weighted majority, beta=1/e",
        data,
        int(trace.mistake.sum()),
        f"2.63 (M* + ln n) = {float(bound):.0f}",
        "-",
        speed,
    )

    eta = float(np.sqrt(2 * np.log(n) / T))
    learner = experts.randomized_weighted_majority(eta)
    _, trace, speed = _timed_run(learner, X, y, state0=learner.init(X[0], jax.random.PRNGKey(1)))
    regret = float(trace.expected_loss.sum()) - best
    yield (
        "randomized WM",
        data,
        f"regret {regret:.1f}",
        f"sqrt(2 T ln n) = {float(theory.rwm_regret_bound(T, n)):.0f}",
        "-",
        speed,
    )

    losses_ = jax.random.uniform(k_loss, (T, 1000))
    learner = experts.hedge(float(np.sqrt(2 * np.log(1000) / T)))
    keep = lambda info: info.loss  # noqa: E731 - the allocations themselves would be T x n
    _, loss, speed = _timed_run(learner, None, losses_, state0=learner.init(jnp.zeros(1000)), trace_fn=keep)
    regret = float(metrics.regret(loss, losses_)[-1])
    bound = theory.hedge_regret_bound(T, 1000)
    yield (
        "hedge",
        f"1000 actions, uniform losses, T={T}",
        f"regret {regret:.1f}",
        f"sqrt(2 T ln n) = {float(bound):.0f}",
        "-",
        speed,
    )

    N = 63  # thresholds on a grid: |H| = 64, Ldim = floor(log2 64) = 6
    H = (jnp.arange(N)[None, :] < jnp.arange(N + 1)[:, None]).astype(jnp.int32)
    points = jax.random.randint(k_soft, (2000,), 0, N)
    target = H[N // 3]
    learner = experts.soa(H)
    _, trace, speed = _timed_run(learner, points, target[points])
    ldim = experts.littlestone_dimension(H)
    data = f"thresholds on {N} points, T=2000"
    yield "SOA", data, int(trace.mistake.sum()), f"Ldim(H) = {ldim}", "-", speed

    k_x, k_y = jax.random.split(k_soft)
    Xs = jax.random.uniform(k_x, (T, 32), minval=0.01, maxval=0.99)
    ys = jax.random.bernoulli(k_y, 0.3, (T,)).astype(jnp.float32)
    for loss, eta in (("entropic", 1.0), ("square", 0.5)):
        learner = experts.weighted_average(eta, loss)
        _, trace, speed = _timed_run(learner, Xs, ys)
        regret = float(metrics.regret(trace.loss, trace.expert_losses)[-1])
        bound = theory.weighted_average_regret_bound(32, loss)
        yield (
            f"weighted average, {loss}",
            f"32 experts in [0,1], T={T}",
            f"regret {regret:.2f}",
            f"{float(bound):.2f}",
            "-",
            speed,
        )
