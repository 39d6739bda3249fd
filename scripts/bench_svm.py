"""Benchmark jaxlearn's soft-SVM and kernel SVM against scikit-learn (CPU, float32).

Measured, each as the median of ``--repeats`` timed runs (after one warm-up run for the JAX
programs, which compiles them), all in this process, with XLA's default threading:

1. Time to a 1% objective gap, for each ``--lams`` value: the Soft-SVM objective of UML (15.12),
   :math:`f(w) = \\frac\\lambda2\\|w\\|^2 + \\frac1n\\sum_i \\max\\{0, 1 - y_i\\langle w, x_i\\rangle\\}`,
   on ``--n`` examples in ``--d`` dimensions (``datasets.noisy_halfspace`` with 5% of the labels
   flipped, standardised, float32). The optimum :math:`f^\\star` comes from scikit-learn's
   ``LinearSVC(loss="hinge", C=1/(lam n), fit_intercept=False)`` (liblinear's dual coordinate descent,
   whose objective :math:`\\frac12\\|w\\|^2 + C\\sum_i \\xi_i` is :math:`f/\\lambda`) at ``tol=1e-6``;
   the gap of a ``w`` is :math:`f(w)/f^\\star - 1`, evaluated in float64. Implementations:
   ``soft_svm(lam, T).fit`` (UML section 15.5, averaged output) with the smallest ``T`` found to reach
   1% (doubling from 10,000 steps, then bisection on a 10,000-step grid; one fixed key), the same
   under ``jax.jit``; ``SGDClassifier(loss="hinge", penalty="l2", alpha=lam, fit_intercept=False,
   tol=None)`` (objective :math:`\\frac\\alpha2\\|w\\|^2 +` mean hinge, i.e. the same :math:`f` with
   :math:`\\alpha = \\lambda`; its default ``learning_rate="optimal"``) with the smallest ``max_iter``
   (epochs, doubling then bisection) that reaches 1%; and ``LinearSVC`` at the loosest ``tol`` of
   ``LINEAR_SVC_TOLS`` that reaches 1%. For the first value of ``--lams`` three rows investigate
   jaxlearn's time: ``soft_svm(variant="ss10")`` and ``sgd(hinge, lam=lam, average=False)`` (SS10
   Algorithm 6, last iterate), each at its own smallest ``T``, and ``soft_svm``'s own scan with one
   change (not a library function): :math:`w^{(t)} = \\theta^{(t)} \\cdot s_t` with the scales
   :math:`s_t = 1/(\\lambda t)` computed before the scan, instead of :math:`\\theta^{(t)} / (\\lambda t)`
   in the loop (same indices, same ``T``).
2. Sweep: ``N_LAMBDAS`` values ``logspace(-4, -1)`` as one ``jax.jit(jax.vmap(lambda lam:
   soft_svm(lam, T).fit(key, X, y).w))`` program against ``N_LAMBDAS`` sequential ``SGDClassifier``
   fits, with the ``T`` and the epochs each needed for a 1% gap at the first ``--lams`` value.
3. Kernel SVM: ``kernel_svm(gaussian(sigma), lam, T).fit`` (UML section 16.3, the default path: the
   visited examples' kernel matrix for ``T <= m``, the Gram matrix in blocks of steps above) at
   ``T = --kernel-steps`` and, on the moons, at the smallest ``T`` (grid ``KERNEL_STEP_GRID``, doubling
   then bisection) within ``ACCURACY_POINTS`` and within ``CLOSE_POINTS`` of SVC's test accuracy,
   against ``SVC(kernel="rbf", gamma=1/(2 sigma), C=1/(lam m))``, the same objective up to SVC's
   unregularised intercept, on ``--kernel-m`` training and as many test points: two moons in 2-D
   (``make_moons``, noise 0.3, standardised) and a noisy sphere in 10-D (label: ``||x||^2`` above its
   median, 5% flipped), where the intercept matters; there a third row adds a regularised bias through
   the kernel ``K + 1``. Fit and predict (the test set) are timed separately; accuracy on the test set.

Before timing, the script checks that the implementations compute what they claim: the LinearSVC
reference agrees with a ``tol=1e-5`` run and lies below every objective the other solvers reach;
the vmapped sweep equals single ``soft_svm`` fits at three lambdas; ``kernel_svm``'s
``decision_function`` (kernel evaluations only) equals the Gram matrix times ``alpha`` on the training
set; ``kernel_svm`` and SVC agree on most test predictions. A failed check aborts the script.

Targets on 2 CPU cores: time to 1% no worse than ``SGDClassifier`` (``soft_svm(...).fit``, for every
``--lams`` value), the sweep at least ``SWEEP_TARGET`` times faster than the sequential
``SGDClassifier`` fits, ``kernel_svm`` (Gaussian) test accuracy within ``ACCURACY_POINTS`` of SVC's
on the moons, and there, at the smallest such ``T``, ``kernel_svm.fit`` no slower than ``SVC.fit``.
``--sections kernel`` runs section 3 alone.

Usage: ``python scripts/bench_svm.py [--n 100000] [--d 50] [--lams 1e-3 1e-2] [--kernel-m 5000]
[--repeats 5]``; a smoke run (about 30 s):
``--n 5000 --lams 1e-2 --kernel-m 500 --repeats 1``.
"""

from __future__ import annotations

import argparse
import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from benchtools import record, timeit
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import SVC, LinearSVC

from jaxlearn import datasets, kernels, linear, losses

N_LAMBDAS = 32
GAP = 0.01
STEP_GRID = 10_000
LINEAR_SVC_TOLS = (1e-1, 1e-2, 1e-3, 1e-4)
REFERENCE_TOL = 1e-6
KERNEL_SIGMA_2D, KERNEL_SIGMA_10D, KERNEL_LAM = 0.5, 10.0, 1e-3
SWEEP_TARGET, ACCURACY_POINTS = 8.0, 1.0
KERNEL_STEP_GRID, CLOSE_POINTS = 100, 0.1
KEY = jax.random.PRNGKey(1)


def objective(w, X64, y, lam):
    """The Soft-SVM objective lam/2 ||w||^2 + mean hinge, in float64."""
    w = np.asarray(w, np.float64)
    return lam / 2 * w @ w + np.maximum(0.0, 1.0 - y * (X64 @ w)).mean()


def smallest(reaches, start, grid, cap):
    """The smallest value on ``grid`` found to pass ``reaches`` (doubling from ``start``, then
    bisection), or ``cap`` if none up to ``cap`` does; and whether it passed."""
    lo, hi = 0, start
    while not reaches(hi):
        if hi >= cap:
            return cap, False
        lo, hi = hi, min(2 * hi, cap)
    while hi - lo > grid:
        mid = (lo + hi) // 2 // grid * grid
        if mid <= lo:
            break
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    return hi, True


def sgd_classifier(lam, epochs, X, y):
    """``SGDClassifier`` on the same objective, fitted for ``epochs`` passes (``tol=None``)."""
    clf = SGDClassifier(
        loss="hinge",
        penalty="l2",
        alpha=lam,
        fit_intercept=False,
        max_iter=epochs,
        tol=None,
        random_state=0,
    )
    with warnings.catch_warnings():  # tol=None: "max_iter reached" is the point
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y).coef_[0]


def linear_svc(lam, tol, X, y):
    """``LinearSVC`` (liblinear, dual coordinate descent) on the same objective, to ``tol``."""
    clf = LinearSVC(
        loss="hinge", C=1 / (lam * X.shape[0]), fit_intercept=False, tol=tol, max_iter=1_000_000
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y).coef_[0]


class Report:
    def __init__(self):
        self.rows, self.checks, self.notes, self.targets = [], [], [], []

    def check(self, what, ok, detail=""):
        self.checks.append(
            f"- [{'ok' if ok else 'FAILED'}] {what}" + (f" ({detail})" if detail else "")
        )
        if not ok:
            raise AssertionError(f"{what}: {detail}")

    def add(self, task, impl, setting, seconds, result, baseline=None):
        """``baseline``: the scikit-learn time this row is compared with (None: the row is that time;
        0: not compared)."""
        speed = "1.00x" if baseline is None else f"{baseline / seconds:.2f}x" if baseline else "-"
        self.rows.append((task, impl, setting, seconds, result, speed))

    def target(self, task, ok, text):
        self.targets.append(f"- {task}: {text}: **{'met' if ok else 'NOT met'}**")

    def print(self, header):
        print(header + "\n")
        print(
            "| task | implementation | setting | median time (s) | result | speed vs scikit-learn |"
        )
        print("|---|---|---|---:|---|---:|")
        for task, impl, setting, seconds, result, speed in self.rows:
            print(f"| {task} | {impl} | {setting} | {seconds:.4f} | {result} | {speed} |")
        for title, lines in (
            ("Checks", self.checks),
            ("Notes", self.notes),
            ("Targets", self.targets),
        ):
            print(f"\n**{title}**\n\n" + "\n".join(lines))


def linear_data(n, d):
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(0), n, d, 0.05, dtype=jnp.float32)
    return datasets.standardize(X), y


def time_to_gap(report, X, y, lam, repeats, max_steps, investigate):
    """Section 1 for one lambda; returns (T, epochs) that reach the gap."""
    n = X.shape[0]
    Xn, yn = np.asarray(X), np.asarray(y, np.float64)
    X64 = Xn.astype(np.float64)
    task = f"time to {GAP:.0%} gap, lam={lam:g}"
    f = functools.partial(objective, X64=X64, y=yn, lam=lam)

    t_ref, w_ref = timeit(functools.partial(linear_svc, lam, REFERENCE_TOL, Xn, yn), 1, False)
    f_star = f(w_ref)
    f_check = f(linear_svc(lam, 10 * REFERENCE_TOL, Xn, yn))
    report.check(
        f"{task}: the LinearSVC reference (tol={REFERENCE_TOL:g}) agrees with tol={10 * REFERENCE_TOL:g}",
        abs(f_check / f_star - 1) < 1e-5,
        f"f* = {f_star:.6f}, relative difference {abs(f_check / f_star - 1):.1e}",
    )
    gaps = {}  # (implementation, setting) -> gap, every objective reached, for the f* check

    def gap(name, setting, w):
        gaps[name, setting] = f(w) / f_star - 1
        return gaps[name, setting]

    def jax_reaches(make):
        return lambda T: gap(make.__name__, T, make(T).fit(KEY, X, y).w) <= GAP

    def soft_svm_uml(T):
        return linear.soft_svm(lam, T)

    def soft_svm_ss10(T):
        return linear.soft_svm(lam, T, variant="ss10")

    def sgd_last_iterate(T):
        return linear.sgd(losses.hinge, steps=T, lam=lam, average=False)

    T, ok_T = smallest(jax_reaches(soft_svm_uml), STEP_GRID, STEP_GRID, max_steps)
    E, ok_E = smallest(
        lambda e: gap("SGDClassifier", e, sgd_classifier(lam, e, Xn, yn)) <= GAP,
        1,
        1,
        max(1, max_steps // n),
    )
    tol = next(
        (t for t in LINEAR_SVC_TOLS if gap("LinearSVC", t, linear_svc(lam, t, Xn, yn)) <= GAP),
        LINEAR_SVC_TOLS[-1],
    )

    # --- timings ---
    learner = linear.soft_svm(lam, T)
    jitted = jax.jit(learner.fit)
    t_sk, _ = timeit(functools.partial(sgd_classifier, lam, E, Xn, yn), repeats, False)
    t_fit, params = timeit(lambda: learner.fit(KEY, X, y), repeats)
    t_jit, _ = timeit(lambda: jitted(KEY, X, y), repeats)
    t_svc, _ = timeit(functools.partial(linear_svc, lam, tol, Xn, yn), repeats, False)

    def result(name, setting, reached=True):
        return f"gap {gaps[name, setting]:.2%}" + ("" if reached else " (cap)")

    report.add(
        task,
        "scikit-learn SGDClassifier(hinge, l2)",
        f"max_iter={E} epochs",
        t_sk,
        result("SGDClassifier", E, ok_E),
    )
    report.add(
        task,
        "jaxlearn soft_svm(lam, T).fit",
        f"T={T:,} ({T / n:.1f} passes)",
        t_fit,
        result("soft_svm_uml", T, ok_T),
        t_sk,
    )
    report.add(
        task,
        "jax.jit(soft_svm(lam, T).fit) (no host checks)",
        f"T={T:,}",
        t_jit,
        result("soft_svm_uml", T, ok_T),
        t_sk,
    )
    report.add(
        task,
        "scikit-learn LinearSVC(hinge), dual CD",
        f"tol={tol:g}",
        t_svc,
        result("LinearSVC", tol),
        t_sk,
    )
    report.add(
        task,
        "scikit-learn LinearSVC, the reference (one run)",
        f"tol={REFERENCE_TOL:g}",
        t_ref,
        "f* (gap 0)",
        0,
    )

    if investigate:
        for make, impl in (
            (soft_svm_ss10, 'investigation: jaxlearn soft_svm(lam, T, variant="ss10").fit'),
            (
                sgd_last_iterate,
                "investigation: jaxlearn sgd(hinge, lam=lam, average=False).fit (last iterate)",
            ),
        ):
            T2, ok2 = smallest(jax_reaches(make), STEP_GRID, STEP_GRID, max_steps)
            t2, _ = timeit(functools.partial(make(T2).fit, KEY, X, y), repeats)
            report.add(task, impl, f"T={T2:,}", t2, result(make.__name__, T2, ok2), t_sk)
        report.notes.append(
            f"- {task}: time per step: soft_svm.fit {t_fit / T * 1e9:.0f} ns, "
            f"jax.jit(fit) {t_jit / T * 1e9:.0f} ns; SGDClassifier {t_sk / (E * n) * 1e9:.0f} ns per "
            "example visit"
        )

    worst = min(gaps.values())
    report.check(
        f"{task}: f* lies below every objective reached ({len(gaps)} runs)",
        worst >= -1e-6,
        f"smallest gap {worst:.2e}",
    )

    def seen(name, unit):
        return ", ".join(
            f"{unit.format(s)}: {g:.2%}" for (k, s), g in sorted(gaps.items()) if k == name
        )

    report.notes.append(
        f"- {task}: f* = {f_star:.6f}; the LinearSVC reference (tol={REFERENCE_TOL:g}) took {t_ref:.2f} s; "
        f"gaps in the search: soft_svm {seen('soft_svm_uml', 'T={:,}')}; "
        f"SGDClassifier {seen('SGDClassifier', '{} ep')}; LinearSVC {seen('LinearSVC', 'tol={:g}')}"
    )
    report.target(
        task,
        t_fit <= t_sk and ok_T,
        f"soft_svm.fit {t_fit:.3f} s vs SGDClassifier {t_sk:.3f} s ({t_sk / t_fit:.2f}x, need >= 1x)",
    )
    return T, E


def sweep(report, X, y, T, E, repeats):
    task = f"{N_LAMBDAS}-lambda sweep"
    Xn, yn = np.asarray(X), np.asarray(y, np.float64)
    X64 = Xn.astype(np.float64)
    lams = jnp.logspace(-4, -1, N_LAMBDAS, dtype=X.dtype)
    program = jax.jit(
        jax.vmap(
            lambda lam, X, y: linear.soft_svm(lam, T).fit(KEY, X, y).w, in_axes=(0, None, None)
        )
    )

    def sklearn_sweep():
        return np.stack([sgd_classifier(float(lam), E, Xn, yn) for lam in lams])

    # --- checks, before timing ---
    W = np.asarray(program(lams, X, y))
    probe = (0, N_LAMBDAS // 2, N_LAMBDAS - 1)
    diffs = {}
    for i in probe:
        w1 = np.asarray(linear.soft_svm(float(lams[i]), T).fit(KEY, X, y).w)
        diffs[i] = np.abs(W[i] - w1).max() / max(np.abs(w1).max(), 1e-30)
    report.check(
        f"{task}: vmapped weights equal single soft_svm fits at lam = "
        + ", ".join(f"{float(lams[i]):.1e}" for i in probe),
        max(diffs.values()) < 1e-5,
        "max relative |dw| " + ", ".join(f"{d:.1e}" for d in diffs.values()),
    )

    # --- timings ---
    t_sk, W_sk = timeit(sklearn_sweep, repeats, False)
    t_jax, _ = timeit(lambda: program(lams, X, y), repeats)
    report.add(
        task,
        f"scikit-learn SGDClassifier x {N_LAMBDAS}, sequential",
        f"max_iter={E} epochs",
        t_sk,
        f"{N_LAMBDAS} fits",
    )
    report.add(
        task,
        f"jax.jit(jax.vmap(soft_svm(lam, T).fit)) over {N_LAMBDAS} lam",
        f"T={T:,}",
        t_jax,
        f"{N_LAMBDAS} fits",
        t_sk,
    )

    # gaps at the probed lambdas (the sweep's steps were tuned at one lambda only)
    parts = []
    for i in probe:
        lam = float(lams[i])
        f_star = objective(linear_svc(lam, REFERENCE_TOL, Xn, yn), X64, yn, lam)
        parts.append(
            f"lam={lam:.1e}: soft_svm {objective(W[i], X64, yn, lam) / f_star - 1:.2%}, "
            f"SGDClassifier {objective(W_sk[i], X64, yn, lam) / f_star - 1:.2%}"
        )
    report.notes.append(
        f"- {task}: lam = logspace(-4, -1, {N_LAMBDAS}); gaps (LinearSVC reference): "
        + "; ".join(parts)
    )
    report.notes.append(
        f"- {task}: {N_LAMBDAS} x T = {N_LAMBDAS * T:,} learner-steps in {t_jax:.2f} s "
        f"({t_jax / (N_LAMBDAS * T) * 1e9:.0f} ns each)"
    )
    report.target(
        task,
        t_sk / t_jax >= SWEEP_TARGET,
        f"{t_sk / t_jax:.2f}x faster than {N_LAMBDAS} SGDClassifier fits (need >= {SWEEP_TARGET:g}x)",
    )


def moons(m):
    X, y = make_moons(2 * m, noise=0.3, random_state=0)
    return X.astype(np.float32), (2 * y - 1).astype(np.float32)


def noisy_sphere(m, d=10):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2 * m, d)).astype(np.float32)
    r2 = (X**2).sum(axis=1)
    y = np.where(r2 > np.median(r2), 1.0, -1.0).astype(np.float32)
    return X, np.where(rng.random(2 * m) < 0.05, -y, y).astype(np.float32)


def gaussian_plus_one(sigma):
    """K(x, z) + 1: a Gaussian kernel with a regularised bias (a constant feature of the embedding)."""
    gaussian = kernels.gaussian(sigma)
    return lambda x, z: gaussian(x, z) + 1.0


def kernel_accuracy(kernel, lam, steps, X, y, X_test, y_test):
    """Test accuracy of ``kernel_svm(kernel, lam, steps)`` fitted with ``KEY``."""
    learner = linear.kernel_svm(kernel, lam, steps)
    return float((np.asarray(learner.predict(learner.fit(KEY, X, y), X_test)) == y_test).mean())


def kernel_task(report, name, X_all, y_all, sigma, steps, repeats, with_bias, target):
    m = X_all.shape[0] // 2
    mu, sd = X_all[:m].mean(axis=0), X_all[:m].std(axis=0)
    X_all = (X_all - mu) / sd
    X, y, X_test, y_test = X_all[:m], y_all[:m], X_all[m:], y_all[m:]
    lam = KERNEL_LAM
    task = f"kernel SVM, {name}, m={m:,}"
    workload = f"{name}, m={m:,} train + {m:,} test, sigma={sigma:g}, lam={lam:g}"
    svc = SVC(kernel="rbf", gamma=1 / (2 * sigma), C=1 / (lam * m))
    t_svc, svc = timeit(functools.partial(svc.fit, X, y), repeats, False)
    t_svc_pred, pred_svc = timeit(lambda: svc.predict(X_test), repeats, False)
    acc_svc = float((pred_svc == y_test).mean())
    report.add(
        task,
        "scikit-learn SVC(rbf), fit",
        f"C=1/(lam m)={1 / (lam * m):g}",
        t_svc,
        f"accuracy {acc_svc:.2%}",
    )
    report.add(
        task,
        "scikit-learn SVC(rbf), predict test set",
        f"{svc.n_support_.sum()} SVs",
        t_svc_pred,
        "",
        t_svc_pred,
    )

    gaussian = kernels.gaussian(sigma)
    runs = [("Gaussian", gaussian, steps)]  # (label, kernel, T)
    T_min, why = None, {}  # T -> why this T is run
    if target:  # the smallest T on the grid reaching SVC's accuracy minus ACCURACY_POINTS (and CLOSE_POINTS)
        seen = {}

        def within(points):
            def reaches(T):
                if T not in seen:
                    seen[T] = kernel_accuracy(gaussian, lam, T, X, y, X_test, y_test)
                return 100 * (acc_svc - seen[T]) <= points + 1e-9

            return reaches

        found = {
            p: smallest(within(p), KERNEL_STEP_GRID, KERNEL_STEP_GRID, steps)
            for p in (ACCURACY_POINTS, CLOSE_POINTS)
        }
        T_min, T_close = found[ACCURACY_POINTS][0], found[CLOSE_POINTS][0]
        runs[:0] = [("Gaussian", gaussian, T) for T in sorted({T_min, T_close} - {steps})]
        why = {T_close: f"smallest T within {CLOSE_POINTS:g} point of SVC"}
        why[T_min] = f"smallest T within {ACCURACY_POINTS:g} point of SVC"
        report.notes.append(
            f"- {task}: smallest T (grid {KERNEL_STEP_GRID}) within {ACCURACY_POINTS:g} point of SVC's "
            f"accuracy {acc_svc:.2%}: T={T_min:,}{'' if found[ACCURACY_POINTS][1] else ' (cap)'}; "
            f"within {CLOSE_POINTS:g} point: T={T_close:,}{'' if found[CLOSE_POINTS][1] else ' (cap)'}; "
            "accuracies seen: " + ", ".join(f"T={T:,}: {a:.2%}" for T, a in sorted(seen.items()))
        )
    if with_bias:
        runs.append(("Gaussian + 1 (regularised bias)", gaussian_plus_one(sigma), steps))
    accuracy, fit_seconds = {}, {}
    for label, kernel, T in runs:
        learner = linear.kernel_svm(kernel, lam, T)
        params = learner.fit(KEY, X, y)
        G = kernels.gram(kernel, jnp.asarray(X))
        scores = learner.decision_function(params, X)
        expected = np.asarray(G, np.float64) @ np.asarray(
            params.alpha, np.float64
        )  # no TF32 on a GPU
        report.check(
            f"{task}, {label}, T={T:,}: decision_function (kernel only) equals G alpha on the training set",
            np.allclose(scores, expected, rtol=1e-4, atol=1e-4 * float(np.abs(expected).max())),
            f"max |diff| {float(np.abs(np.asarray(scores) - expected).max()):.1e}",
        )
        t_fit, params = timeit(functools.partial(learner.fit, KEY, X, y), repeats)
        t_pred, pred = timeit(functools.partial(learner.predict, params, X_test), repeats)
        pred = np.asarray(pred)
        accuracy[label, T] = float((pred == y_test).mean())
        fit_seconds[label, T] = t_fit, t_pred
        agree = float((pred == pred_svc).mean())
        if label == "Gaussian" and target and T == steps:
            report.check(
                f"{task}: kernel_svm (T={T:,}) and SVC agree on >= 95% of test predictions",
                agree >= 0.95,
                f"{agree:.2%}",
            )
        nonzero = int(jnp.sum(params.alpha != 0))
        report.add(
            task,
            f"jaxlearn kernel_svm({label}, lam, T).fit",
            f"T={T:,}, sigma={sigma:g}, lam={lam:g}",
            t_fit,
            f"accuracy {accuracy[label, T]:.2%} (agrees with SVC on {agree:.1%})",
            t_svc,
        )
        report.add(
            task,
            f"jaxlearn kernel_svm({label}).predict test set",
            f"{nonzero} nonzero alpha",
            t_pred,
            "",
            t_svc_pred,
        )
        main_row = label == "Gaussian" and T == T_min
        reason = f" ({why[T]})" if label == "Gaussian" and T in why else ""
        record(
            f"kernel_svm {label} fit, T={T:,}{reason}",
            workload,
            t_fit,
            t_svc,
            reference_name="scikit-learn SVC",
            target=1.0 if main_row else None,
        )
        record(
            f"kernel_svm {label} predict, T={T:,}{reason}",
            workload,
            t_pred,
            t_svc_pred,
            reference_name="scikit-learn SVC",
        )
    if target:
        gap = 100 * (acc_svc - accuracy["Gaussian", steps])
        report.target(
            task,
            gap <= ACCURACY_POINTS,
            f"kernel_svm (T={steps:,}) accuracy {accuracy['Gaussian', steps]:.2%} vs SVC {acc_svc:.2%} "
            f"({gap:+.2f} points below; need <= {ACCURACY_POINTS:g})",
        )
        t_fit, t_pred = fit_seconds["Gaussian", T_min]
        report.target(
            task,
            t_fit <= t_svc
            and 100 * (acc_svc - accuracy["Gaussian", T_min]) <= ACCURACY_POINTS + 1e-9,
            f"kernel_svm.fit at T={T_min:,} (accuracy {accuracy['Gaussian', T_min]:.2%}) {t_fit:.4f} s vs "
            f"SVC.fit {t_svc:.4f} s ({t_svc / t_fit:.2f}x, need >= 1x); predict {t_pred:.4f} s vs "
            f"{t_svc_pred:.4f} s ({t_svc_pred / t_pred:.2f}x)",
        )
    else:
        report.notes.append(
            f"- {task}: accuracy SVC {acc_svc:.2%} (intercept {float(svc.intercept_[0]):.2f}), "
            + ", ".join(f"kernel_svm {k} {a:.2%}" for (k, _), a in accuracy.items())
            + ": the gap is SVC's unregularised intercept, which kernel_svm does not have"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="examples (soft-SVM)")
    parser.add_argument("--d", type=int, default=50, help="dimension (soft-SVM)")
    parser.add_argument(
        "--lams", type=float, nargs="+", default=[1e-3, 1e-2], help="lambdas, section 1"
    )
    parser.add_argument(
        "--max-steps", type=int, default=5_120_000, help="cap on steps (and epochs x n)"
    )
    parser.add_argument(
        "--kernel-m", type=int, default=5_000, help="training (and test) points, kernel SVM"
    )
    parser.add_argument(
        "--kernel-steps", type=int, default=None, help="kernel_svm steps (default 10 m)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (median reported)")
    parser.add_argument(
        "--sections",
        nargs="+",
        choices=("linear", "kernel"),
        default=("linear", "kernel"),
        help="linear: sections 1 and 2 (soft-SVM, sweep); kernel: section 3",
    )
    args = parser.parse_args()

    report = Report()
    if "linear" in args.sections:
        X, y = linear_data(args.n, args.d)
        first = None
        for i, lam in enumerate(args.lams):
            found = time_to_gap(report, X, y, lam, args.repeats, args.max_steps, investigate=i == 0)
            first = first or found
        sweep(report, X, y, *first, args.repeats)
    if "kernel" in args.sections:
        steps = args.kernel_steps or 10 * args.kernel_m
        m, repeats = args.kernel_m, args.repeats
        kernel_task(report, "moons 2-D", *moons(m), KERNEL_SIGMA_2D, steps, repeats, False, True)
        sphere = noisy_sphere(m)
        kernel_task(
            report, "noisy sphere 10-D", *sphere, KERNEL_SIGMA_10D, steps, repeats, True, False
        )
    sizes = ([f"n={args.n:,}, d={args.d}"] if "linear" in args.sections else []) + (
        [f"kernel m={args.kernel_m:,}"] if "kernel" in args.sections else []
    )
    report.print(
        f"### Soft-SVM and kernel SVM, {', '.join(sizes)}, float32, "
        f"{jax.devices()[0].platform.upper()}, median of {args.repeats}"
    )


if __name__ == "__main__":
    main()
