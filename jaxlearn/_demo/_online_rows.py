"""The demo's rows for the online learners and prediction with expert advice (UML chapter 21).

Each row is a dict over the columns of :data:`jaxlearn._demo.ONLINE_COLUMNS` (a missing column is
blank). The bound names the quantity it bounds (``mistakes <= ...``, ``updates <= ...``,
``regret <= ...``); the regret names its comparator. The curves of the demo's figure (measured
against bound, round by round) go to ``curves``.
"""

from __future__ import annotations

import functools
import sys
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import core, datasets, experts, kernels, losses, metrics, online, theory

#: Held around every timed run: the demo's two tables are computed in two threads (their compilations
#: overlap), but no two timed runs do.
TIMING = threading.Lock()


def _timed_run(learner, X, y, state0=None, **kwargs):
    """Run once to compile, then time a second run; return (state, trace, rounds per second), the
    trace on the host (the table's counts and curves are NumPy's: no program to compile for them).

    ``state0`` defaults to ``learner.init(X[0])``; ``kwargs`` go to :func:`jaxlearn.core.run`.
    """
    state0 = learner.init(np.asarray(X)[0]) if state0 is None else state0
    jax.block_until_ready(core.run(learner, state0, X, y, **kwargs))
    with TIMING:
        start = time.perf_counter()
        state, trace = jax.block_until_ready(core.run(learner, state0, X, y, **kwargs))
        seconds = time.perf_counter() - start
    return state, jax.device_get(trace), y.shape[0] / seconds


def rounds_per_s(speed: float) -> str:
    """The throughput cell of an online row."""
    return f"{speed:,.0f} rounds/s"


def accuracy_cell(y, predicted) -> str:
    """The share of equal labels, as :func:`jaxlearn.metrics.accuracy` (by NumPy, on the host)."""
    return f"{np.mean(np.asarray(y, np.float64) == np.asarray(predicted, np.float64)):.3f}"


def _signs(scores) -> np.ndarray:
    return np.where(np.asarray(scores) > 0, 1.0, -1.0)


@functools.partial(jax.jit, static_argnums=1)
def _uniform(key, shape):
    return jax.random.uniform(key, shape)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _randint(key, shape, high):
    return jax.random.randint(key, shape, 0, high)


@functools.partial(jax.jit, static_argnums=2)
def _expert_predictions(k_x, k_y, T):
    """32 experts' predictions in [0.01, 0.99] and outcomes, 1 with probability 0.3."""
    X = jax.random.uniform(k_x, (T, 32), minval=0.01, maxval=0.99)
    return X, jax.random.bernoulli(k_y, 0.3, (T,)).astype(jnp.float32)


@functools.partial(jax.jit, static_argnums=1)
def circle(key, n: int):
    """``n`` points uniform in [-1, 1]^2, labelled +1 outside the circle |x|^2 = 1/2 (else -1), and
    their |x|^2."""
    X = jax.random.uniform(key, (n, 2), minval=-1.0, maxval=1.0)
    radius2 = jnp.sum(X**2, axis=1)
    return X, jnp.where(radius2 > 0.5, 1.0, -1.0), radius2


def _cumulative(mistake) -> np.ndarray:
    return np.cumsum(np.asarray(mistake, np.int64))


def online_rows(key, curves):
    """Rows for the Perceptrons, Winnow and online gradient descent."""
    k_sep, k_noisy, k_bool, k_ker = jax.random.split(key, 4)

    X, y, w_star = datasets.separable(k_sep, 20_000, 20, margin=0.1)
    R, gamma = theory.radius(X), theory.halfspace_margin(w_star, X, y)
    gamma_unit = theory.halfspace_margin(w_star, X, y, normalize=True)
    data = "separable n=20000 d=20 gamma=0.1"
    perceptron_bound = theory.perceptron_mistake_bound(R, gamma)
    for name, learner, bound, kwargs in [
        ("perceptron, round by round", online.perceptron(), perceptron_bound, {"block_size": 0}),
        ("perceptron, block mode", online.perceptron(), perceptron_bound, {}),
        (
            "perceptron, normalized",
            online.perceptron(normalize=True),
            theory.perceptron_mistake_bound(1.0, gamma_unit),
            {},
        ),
    ]:
        state, trace, speed = _timed_run(learner, X, y, **kwargs)
        if name.endswith("round by round"):
            label = r"perceptron, $(R/\gamma)^2$"
            curves["mistakes"].append((label, _cumulative(trace.mistake), float(bound)))
        yield {
            "learner": name,
            "data": data,
            "mistakes": int(trace.mistake.sum()),
            "bound": f"mistakes <= (R/g)^2 = {float(bound):.0f}",
            "train acc": accuracy_cell(y, core.predict_batch(learner, state, X)),
            "throughput": rounds_per_s(speed),
        }

    learner = online.margin_perceptron(gamma_unit)
    state, trace, speed = _timed_run(learner, X, y)
    yield {
        "learner": "margin perceptron",
        "data": data,
        "mistakes": int(trace.mistake.sum()),
        "updates": int(trace.update.sum()),
        "bound": f"updates <= 12/g^2 = {float(theory.margin_perceptron_bound(gamma_unit)):.0f}",
        "train acc": accuracy_cell(y, core.predict_batch(learner, state, X)),
        "throughput": rounds_per_s(speed),
    }

    Xc, yc, radius2 = jax.device_get(circle(k_ker, 4000))
    keep = np.abs(radius2 - 0.5) > 0.1  # none within 0.1 of the circle (in |x|^2)
    Xc, yc = Xc[keep], yc[keep]
    learner = online.kernel_perceptron(kernels.polynomial(2), budget=256)
    state, trace, speed = _timed_run(learner, Xc, yc)
    full = " (budget full!)" if bool(trace.budget_full.any()) else ""
    yield {
        "learner": "kernel perceptron, poly(2)",
        "data": f"circle n={Xc.shape[0]} d=2",
        "mistakes": f"{int(trace.mistake.sum())}{full}",
        "train acc": accuracy_cell(yc, core.predict_batch(learner, state, Xc)),
        "throughput": rounds_per_s(speed),
    }

    Xb, yb, _ = datasets.disjunction(k_bool, 20_000, 200, 4)
    learner = online.winnow()
    state, trace, speed = _timed_run(learner, Xb, yb)
    bound = float(theory.winnow_mistake_bound(4, 200))
    curves["mistakes"].append(
        (r"winnow, $2 + 3k(1 + \log_2 n)$", _cumulative(trace.mistake), bound)
    )
    yield {
        "learner": "winnow",
        "data": "4-of-200 disjunction n=20000",
        "mistakes": int(trace.mistake.sum()),
        "bound": f"mistakes <= 2+3k(1+log2 n) = {bound:.0f}",
        "train acc": accuracy_cell(yb, core.predict_batch(learner, state, Xb)),
        "throughput": rounds_per_s(speed),
    }

    Xn, yn, _ = datasets.noisy_halfspace(k_noisy, 20_000, 20, 0.1)
    T, U, Rn = Xn.shape[0], 2.0, theory.radius(Xn)
    eta = U / (Rn * np.sqrt(T))
    ball = online.l2_ball(U)  # the learner's hypothesis set and the comparator's
    learner = online.online_gradient_descent(losses.hinge, eta, projection=ball)
    state, trace, speed = _timed_run(learner, Xn, yn)
    u = online.best_fixed_predictor(losses.hinge, Xn, yn, projection=ball, eta=U / Rn)
    comparator = jax.vmap(losses.hinge, (None, 0, 0))(u, Xn, yn)
    regret = np.asarray(metrics.regret(trace.loss, comparator))
    t = np.arange(1, T + 1)
    worst_case = (
        U**2 / (2 * float(eta)) + float(eta) * float(Rn) ** 2 * t / 2
    )  # U R sqrt(T) at t = T
    curves["ogd"] = (
        f"OGD, hinge: regret vs the best fixed $\\|u\\| \\leq {U:g}$",
        regret,
        worst_case,
    )
    yield {
        "learner": "OGD on ||w|| <= U, hinge, eta=U/(R sqrt T)",
        "data": "noisy n=20000 d=20 flip=0.1",
        "mistakes": int((trace.prediction * np.asarray(yn) <= 0).sum()),
        "regret": f"{regret[-1]:.0f}",
        "bound": f"regret <= U R sqrt(T) = {float(theory.ogd_regret_bound(U, Rn, T)):.0f}",
        "comparator": f"best fixed u, ||u|| <= U = {U:g} (hinge)",
        "train acc": accuracy_cell(yn, _signs(core.predict_batch(learner, state, Xn))),
        "throughput": rounds_per_s(speed),
    }

    try:
        Xc, yc = datasets.load_breast_cancer()
    except ImportError as err:
        print(f"(skipping breast cancer: {err})", file=sys.stderr)
        return
    Xc = np.asarray(datasets.standardize(Xc))
    X5, y5 = np.tile(Xc, (5, 1)), np.tile(yc, 5)
    for name, learner in [
        ("perceptron", online.perceptron()),
        ("OGD, hinge, eta=0.05", online.online_gradient_descent(losses.hinge, 0.05)),
    ]:
        state, trace, speed = _timed_run(learner, X5, y5)
        score = core.predict_batch(learner, state, Xc)
        yield {
            "learner": name,
            "data": "breast cancer, 5 passes",
            "mistakes": int((trace.prediction * y5 <= 0).sum()),
            "bound": "none (not separable)",
            "train acc": accuracy_cell(yc, _signs(score)),
            "throughput": rounds_per_s(speed),
        }


def expert_rows(key, curves):
    """Rows for prediction with expert advice: mistakes or regret against the theorems' bounds."""
    k_real, k_noisy, k_soft, k_loss = jax.random.split(key, 4)
    T, n = 20_000, 256
    X, y = datasets.expert_advice(k_real, T, n)  # expert 0 is perfect
    learner = experts.halving()
    _, trace, speed = _timed_run(learner, X, y)
    bound = float(theory.halving_bound(n))
    curves["mistakes"].append((r"halving, $\log_2 n$", _cumulative(trace.mistake), bound))
    yield {
        "learner": "halving",
        "data": f"{n} experts, one perfect, T={T}",
        "mistakes": int(trace.mistake.sum()),
        "bound": f"mistakes <= log2 n = {bound:.0f}",
        "throughput": rounds_per_s(speed),
    }

    X, y = datasets.expert_advice(k_noisy, T, n, np.linspace(0.1, 0.5, n))
    wrong = np.asarray(X) != np.asarray(y)[:, None]
    best_so_far = np.cumsum(wrong, axis=0, dtype=np.int64).min(axis=1)
    best = int(best_so_far[-1])
    data = f"{n} experts, best errs {best}, T={T}"
    learner = experts.weighted_majority()
    _, trace, speed = _timed_run(learner, X, y)
    bound_t = np.asarray(theory.weighted_majority_bound(1 / np.e, best_so_far, n))
    label = r"weighted majority, $2.63\,(M^*_t + \ln n)$"
    curves["mistakes"].append((label, _cumulative(trace.mistake), bound_t))
    yield {
        "learner": "weighted majority, beta=1/e",
        "data": data,
        "mistakes": int(trace.mistake.sum()),
        "bound": f"mistakes <= 2.63 (M* + ln n) = {float(bound_t[-1]):.0f}",
        "throughput": rounds_per_s(speed),
    }

    eta = float(np.sqrt(2 * np.log(n) / T))
    t = np.arange(1, T + 1)
    learner = experts.randomized_weighted_majority(eta)
    _, trace, speed = _timed_run(
        learner, X, y, state0=learner.init(np.asarray(X)[0], jax.random.PRNGKey(1))
    )
    regret = np.cumsum(np.asarray(trace.expected_loss, np.float64)) - best_so_far
    curves["experts"].append(("randomized WM (expected)", regret, np.log(n) / eta + eta * t / 2))
    yield {
        "learner": "randomized WM",
        "data": data,
        "regret": f"{regret[-1]:.1f}",
        "bound": f"regret <= sqrt(2 T ln n) = {float(theory.rwm_regret_bound(T, n)):.0f}",
        "comparator": "best expert (expected loss)",
        "throughput": rounds_per_s(speed),
    }

    losses_ = _uniform(k_loss, (T, 1000))
    eta = float(np.sqrt(2 * np.log(1000) / T))
    learner = experts.hedge(eta)
    keep = lambda info: info.loss  # noqa: E731 - the allocations themselves would be T x n
    _, loss, speed = _timed_run(
        learner, None, losses_, state0=learner.init(np.zeros(1000, np.float32)), trace_fn=keep
    )
    regret = np.asarray(metrics.regret(loss, losses_))
    curves["experts"].append(("hedge", regret, np.log(1000) / eta + eta * t / 2))
    yield {
        "learner": "hedge",
        "data": f"1000 actions, uniform losses, T={T}",
        "regret": f"{regret[-1]:.1f}",
        "bound": f"regret <= sqrt(2 T ln n) = {float(theory.hedge_regret_bound(T, 1000)):.0f}",
        "comparator": "best single action",
        "throughput": rounds_per_s(speed),
    }

    N = 63  # thresholds on a grid: |H| = 64, Ldim = floor(log2 64) = 6
    H = (np.arange(N)[None, :] < np.arange(N + 1)[:, None]).astype(np.int32)
    points = np.asarray(_randint(k_soft, (2000,), N))
    learner = experts.soa(H)
    _, trace, speed = _timed_run(learner, points, H[N // 3][points])
    ldim = experts.littlestone_dimension(H)
    curves["mistakes"].append((r"SOA, $\mathrm{Ldim}(H)$", _cumulative(trace.mistake), float(ldim)))
    yield {
        "learner": "SOA",
        "data": f"thresholds on {N} points, T=2000",
        "mistakes": int(trace.mistake.sum()),
        "bound": f"mistakes <= Ldim(H) = {ldim}",
        "throughput": rounds_per_s(speed),
    }

    k_x, k_y = jax.random.split(k_soft)
    Xs, ys = _expert_predictions(k_x, k_y, T)
    for loss, eta in (("entropic", 1.0), ("square", 0.5)):
        learner = experts.weighted_average(eta, loss)
        _, trace, speed = _timed_run(learner, Xs, ys)
        regret = float(metrics.regret(trace.loss, trace.expert_losses)[-1])
        bound = theory.weighted_average_regret_bound(32, loss)
        name = "ln n" if loss == "entropic" else "2 ln n"
        yield {
            "learner": f"weighted average, {loss}",
            "data": f"32 experts in [0,1], T={T}",
            "regret": f"{regret:.2f}",
            "bound": f"regret <= {name} = {float(bound):.2f}",
            "comparator": f"best expert ({loss} loss)",
            "throughput": rounds_per_s(speed),
        }
