"""Benchmark jaxlearn's online Perceptron against scikit-learn, river and a NumPy loop (CPU, float32).

Measured, each as the median of ``--repeats`` timed runs after one warm-up (compile) run, all in
this process, with XLA's default threading:

1. Single stream: one pass of the Perceptron (learning rate 1, w = 0, no intercept) over ``--n``
   examples in ``--d`` dimensions, on separable data (margin 0.05) and on a noisy halfspace (5% of
   labels flipped). Implementations: the plain ``core.run(learner, learner.init(X[0]), X, y)`` a
   user calls first (its default: the Perceptron's exact block rule, input checks included),
   ``core.run`` round by round (``block_size=0``, one ``lax.scan`` step per example) and with the
   fastest ``block_size`` of ``BLOCK_SIZES`` in a short probe, the same call under ``jax.jit``
   (which skips ``run``'s host-side input checks), scikit-learn's ``Perceptron.fit`` for one epoch, and two
   example-at-a-time Python loops timed on a prefix of the stream (river's ``learn_one`` and plain
   NumPy) whose examples/s are extrapolated.
2. Sweep: 64 Perceptrons with learning rates ``logspace(-2, 1, 64)`` on the same stream, as one
   ``jax.jit(jax.vmap(...))`` program (round by round and blocked), against 64 sequential
   scikit-learn fits. Throughput is learner-steps/s = 64 * n / time.

Before timing, the script checks that the implementations compute the same thing: blocked and
round-by-round runs must give identical mistakes and weights, and jaxlearn's weights must equal
scikit-learn's ``coef_`` (float32 tolerance). On separable data a failed check aborts the script;
on noisy data it is reported (float32 rounding can flip a near-zero score and the runs diverge).

Usage: ``python scripts/bench_online.py [--n 200000] [--d 100] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import river.linear_model
from benchtools import record, timeit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron

from jaxlearn import core, datasets, online

BLOCK_SIZES = (16, 32, 64, 128, 256)
N_LEARNERS = 64
RIVER_PREFIX = 10_000
NUMPY_PREFIX = 20_000
SINGLE_TARGET, SWEEP_TARGET = 1.0, 8.0


def pick_block_size(make_fn):
    """The fastest block size of ``BLOCK_SIZES`` (median of 3 runs each) and the probe's timings."""
    probe = {b: timeit(make_fn(b), 3)[0] for b in BLOCK_SIZES}
    return min(probe, key=probe.get), probe


def sklearn_fit(X, y, lr):
    clf = Perceptron(fit_intercept=False, shuffle=False, max_iter=1, tol=None, eta0=float(lr))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y).coef_[0]


def numpy_perceptron(X, y):
    w = np.zeros(X.shape[1], X.dtype)
    for x_t, y_t in zip(X, y):
        if y_t * (x_t @ w) <= 0:
            w += y_t * x_t
    return w


def river_perceptron(rows, labels):
    model = river.linear_model.Perceptron()
    for x, label in zip(rows, labels):
        model.learn_one(x, label)
    return model


def close(a, b):
    """Equal within float32 tolerance (relative to the largest weight of ``b``)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.allclose(a, b, rtol=1e-5, atol=1e-5 * max(np.abs(b).max(), 1.0))


class Report:
    def __init__(self, workload):
        self.workload = workload
        self.rows, self.checks, self.notes, self.targets = [], [], [], []

    def check(self, what, ok, fatal, detail=""):
        self.checks.append(
            f"- [{'ok' if ok else 'DIFFERS'}] {what}" + (f" ({detail})" if detail else "")
        )
        if fatal and not ok:
            raise AssertionError(f"{what}: {detail}")

    def add(self, task, impl, seconds, work, sklearn_rate=None):
        rate = work / seconds
        if sklearn_rate:
            record(f"{task}: {impl}", self.workload, rate, sklearn_rate, unit="examples/s")
        self.rows.append((task, impl, seconds, rate, rate / sklearn_rate if sklearn_rate else 1.0))
        return rate

    def target(self, task, ratio, goal, impl):
        met = "met" if ratio >= goal else "NOT met"
        self.targets.append(
            f"- {task}: {ratio:.2f}x >= {goal:.1f}x scikit-learn ({impl}): **{met}**"
        )

    def print(self, header):
        print(header + "\n")
        print(
            "| task | implementation | median time (s) | examples/s (sweep: learner-steps/s) "
            "| vs scikit-learn |"
        )
        print("|---|---|---:|---:|---:|")
        for task, impl, seconds, rate, ratio in self.rows:
            print(f"| {task} | {impl} | {seconds:.4f} | {rate:,.0f} | {ratio:.2f}x |")
        for title, lines in (
            ("Checks", self.checks),
            ("Notes", self.notes),
            ("Targets", self.targets),
        ):
            print(f"\n**{title}**\n\n" + "\n".join(lines))


def single_stream(report, task, X, y, repeats, exact):
    n = X.shape[0]
    learner = online.perceptron(1.0)
    state0 = learner.init(X[0])
    Xn, yn = np.array(X), np.array(y)

    def jaxlearn_run(b):
        return lambda: core.run(learner, state0, X, y, block_size=b)

    block, probe = pick_block_size(jaxlearn_run)
    t_default, (s_default, _) = timeit(lambda: core.run(learner, learner.init(X[0]), X, y), repeats)
    t_scan, (s_scan, tr_scan) = timeit(jaxlearn_run(0), repeats)
    t_block, (s_block, tr_block) = timeit(jaxlearn_run(block), repeats)
    jitted = jax.jit(lambda X, y: core.run(learner, state0, X, y, block_size=block))
    t_jit, (s_jit, _) = timeit(lambda: jitted(X, y), repeats)
    t_sk, w_sk = timeit(lambda: sklearn_fit(Xn, yn, 1.0), repeats)

    m_scan, m_block = np.asarray(tr_scan.mistake), np.asarray(tr_block.mistake)
    report.check(
        f"{task}: block and scan give identical mistakes and weights",
        np.array_equal(m_scan, m_block) and np.array_equal(s_scan.w, s_block.w),
        exact,
        f"{m_scan.sum()} vs {m_block.sum()} mistakes",
    )
    report.check(
        f"{task}: jaxlearn weights equal scikit-learn's coef_",
        close(s_scan.w, w_sk) and close(s_jit.w, w_sk) and close(s_default.w, w_sk),
        exact,
        f"max |dw| = {np.abs(np.asarray(s_scan.w) - w_sk).max():.2e}, {m_scan.sum()} mistakes",
    )
    report.notes.append(
        f"- {task}: block-size probe (s): " + ", ".join(f"{b}: {t:.4f}" for b, t in probe.items())
    )

    m_river, m_np = min(RIVER_PREFIX, n), min(NUMPY_PREFIX, n)
    rows = [dict(enumerate(r)) for r in Xn[:m_river].tolist()]
    labels = (yn[:m_river] > 0).tolist()
    t_river, _ = timeit(lambda: river_perceptron(rows, labels), repeats)
    t_np, w_np = timeit(lambda: numpy_perceptron(Xn[:m_np], yn[:m_np]), repeats)
    if m_np == n:
        report.check(f"{task}: NumPy loop weights equal scikit-learn's", close(w_np, w_sk), exact)

    sk_rate = report.add(task, "scikit-learn Perceptron.fit (1 epoch)", t_sk, n)
    default = "jaxlearn run(learner, learner.init(X[0]), X, y) (default)"
    default_rate = report.add(task, default, t_default, n, sk_rate)
    report.add(task, "jaxlearn run, round by round (block_size=0)", t_scan, n, sk_rate)
    block_rate = report.add(task, f"jaxlearn run, block_size={block}", t_block, n, sk_rate)
    report.add(
        task, f"jax.jit(jaxlearn run, block_size={block}) (no host checks)", t_jit, n, sk_rate
    )
    report.add(
        task,
        f"river Perceptron.learn_one (first {m_river:,}, extrapolated)",
        t_river,
        m_river,
        sk_rate,
    )
    report.add(task, f"NumPy Python loop (first {m_np:,}, extrapolated)", t_np, m_np, sk_rate)
    del block_rate
    report.target(task, default_rate / sk_rate, SINGLE_TARGET, "default run")


def sweep(report, task, X, y, repeats, exact):
    n = X.shape[0]
    lrs = jnp.logspace(-2, 1, N_LEARNERS, dtype=X.dtype)
    state0 = online.perceptron(1.0).init(X[0])
    Xn, yn = np.array(X), np.array(y)

    def program(b):
        def final_weights(lr, X, y):
            return core.run(online.perceptron(lr), state0, X, y, block_size=b)[0].w

        fn = jax.jit(jax.vmap(final_weights, in_axes=(0, None, None)))
        return lambda: fn(lrs, X, y)

    block, probe = pick_block_size(program)
    t_scan, W_scan = timeit(program(0), repeats)
    t_block, W_block = timeit(program(block), repeats)
    t_sk, W_sk = timeit(
        lambda: np.stack([sklearn_fit(Xn, yn, lr) for lr in np.asarray(lrs)]), repeats
    )

    W_scan, W_block = np.asarray(W_scan), np.asarray(W_block)
    diff = [not np.array_equal(a, b) for a, b in zip(W_scan, W_block)]
    report.check(
        f"{task}: vmapped block and scan weights identical for all {N_LEARNERS} rates",
        not any(diff),
        exact,
        f"{sum(diff)} rates differ, max |dw| = {np.abs(W_scan - W_block).max():.2e}",
    )
    diff = [not close(a, b) for a, b in zip(W_scan, W_sk)]
    report.check(
        f"{task}: vmapped scan weights equal scikit-learn's for all {N_LEARNERS} rates",
        not any(diff),
        exact,
        f"{sum(diff)} rates differ",
    )
    report.notes.append(
        f"- {task}: block-size probe (s): " + ", ".join(f"{b}: {t:.4f}" for b, t in probe.items())
    )

    work = N_LEARNERS * n
    sk_rate = report.add(
        task, f"scikit-learn Perceptron.fit x {N_LEARNERS}, sequential", t_sk, work
    )
    scan_rate = report.add(task, "jit(vmap(jaxlearn run)), round by round", t_scan, work, sk_rate)
    block_rate = report.add(
        task, f"jit(vmap(jaxlearn run)), block_size={block}", t_block, work, sk_rate
    )
    best = max((scan_rate, "vmapped scan"), (block_rate, f"vmapped block_size={block}"))
    report.target(task, best[0] / sk_rate, SWEEP_TARGET, best[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="stream length")
    parser.add_argument("--d", type=int, default=100, help="dimension")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (median reported)")
    args = parser.parse_args()

    key_sep, key_noisy = jax.random.split(jax.random.PRNGKey(0))
    X_sep, y_sep, _ = datasets.separable(key_sep, args.n, args.d, 0.05, dtype=jnp.float32)
    X_noisy, y_noisy, _ = datasets.noisy_halfspace(
        key_noisy, args.n, args.d, 0.05, dtype=jnp.float32
    )
    report = Report(f"n={args.n}, d={args.d}, float32")
    single_stream(report, "single stream, separable", X_sep, y_sep, args.repeats, exact=True)
    single_stream(report, "single stream, noisy", X_noisy, y_noisy, args.repeats, exact=False)
    sweep_task = f"{N_LEARNERS}-rate sweep"
    sweep(report, f"{sweep_task}, separable", X_sep, y_sep, args.repeats, exact=True)
    sweep(report, f"{sweep_task}, noisy", X_noisy, y_noisy, args.repeats, exact=False)
    report.print(
        f"### Online Perceptron, n={args.n:,}, d={args.d}, float32, "
        f"{jax.devices()[0].platform.upper()}, median of {args.repeats}"
    )


if __name__ == "__main__":
    main()
