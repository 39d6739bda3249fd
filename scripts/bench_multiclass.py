"""Benchmark jaxlearn's multiclass learners against scikit-learn on the digits (CPU, float32).

Data: scikit-learn's 8x8 digits (1797 x 64, 10 classes), a stratified 70/30 train/test split
(``random_state=0``), standardised with the training statistics. Three tasks, each a jaxlearn learner
against its scikit-learn counterpart:

1. One-versus-All: ``one_vs_all(soft_svm(lam, T, fit_intercept=True), 10)`` (UML section 17.1; the ten
   binary soft-SVMs of UML section 15.5 as one vmapped program) against
   ``OneVsRestClassifier(LinearSVC())``.
2. All-Pairs: ``all_pairs(soft_svm(lam, T, fit_intercept=True), 10)`` (45 pairs, one vmapped program)
   against ``OneVsOneClassifier(LinearSVC())``.
3. Multiclass SVM: ``multiclass_svm(lam, T, 10, fit_intercept=True)`` (UML section 17.2.5, SGD with the
   loss-augmented argmax) against ``LinearSVC(multi_class="crammer_singer")`` (the same objective with
   liblinear's regularised intercept feature, solved exactly).

scikit-learn runs at its defaults (``C=1``; ``LinearSVC``'s squared hinge for one-vs-rest and one-vs-one).
jaxlearn uses one ``--lam`` for all three and, per task, the smallest ``T`` of a doubling grid (from
``--min-steps``) whose test accuracy is within ``POINTS`` of scikit-learn's (one fixed key). Fit times are
medians of ``--repeats`` runs; the JAX fits are timed after one warm-up call (which compiles them),
both as ``learner.fit`` (host-side input checks, then the compiled program) and as
``jax.jit(learner.fit)``. Accuracy is on the test set.

Target: every jaxlearn fit at least as fast as its scikit-learn counterpart, at equal accuracy.

Usage: ``python scripts/bench_multiclass.py [--lam 0.01] [--repeats 5] [--min-steps 2500]``.
"""

from __future__ import annotations

import argparse
import warnings

import jax
import numpy as np
from benchtools import timeit
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from jaxlearn import datasets, linear, multiclass

POINTS = 0.01  # accuracy within 1 point
MAX_STEPS = 320_000
KEY = jax.random.PRNGKey(0)


def digits():
    X, y = datasets.load_digits()
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    scaler = StandardScaler().fit(X_train)
    return (
        scaler.transform(X_train).astype(np.float32),
        scaler.transform(X_test).astype(np.float32),
        y_train,
        y_test,
    )


def sklearn_fit(make, X, y):
    with warnings.catch_warnings():  # liblinear's "increase the number of iterations" at its defaults
        warnings.simplefilter("ignore")
        return make().fit(X, y)


def accuracy(pred, y):
    return float(np.mean(np.asarray(pred) == y))


def task(rows, notes, name, make_sklearn, make_jax, data, lam, repeats, min_steps):
    X, X_test, y, y_test = data
    t_sk, clf = timeit(lambda: sklearn_fit(make_sklearn, X, y), repeats, False)
    acc_sk = accuracy(clf.predict(X_test), y_test)

    searched, steps = {}, min_steps
    while True:
        learner = make_jax(lam, steps)
        searched[steps] = accuracy(learner.predict(learner.fit(KEY, X, y), X_test), y_test)
        if searched[steps] >= acc_sk - POINTS or steps >= MAX_STEPS:
            break
        steps *= 2
    learner = make_jax(lam, steps)
    jitted = jax.jit(learner.fit)
    t_fit, params = timeit(lambda: learner.fit(KEY, X, y), repeats)
    t_jit, _ = timeit(lambda: jitted(KEY, X, y), repeats)
    acc = accuracy(learner.predict(params, X_test), y_test)

    rows.append((name, f"scikit-learn {make_sklearn.__doc__}", "defaults (C=1)", t_sk, acc_sk, "1.00x"))
    setting = f"lam={lam:g}, T={steps:,}"
    rows.append((name, f"jaxlearn {make_jax.__doc__}.fit", setting, t_fit, acc, f"{t_sk / t_fit:.2f}x"))
    rows.append((name, f"jax.jit({make_jax.__doc__}.fit)", setting, t_jit, acc, f"{t_sk / t_jit:.2f}x"))
    notes.append(
        f"- {name}: accuracy by T (test set): "
        + ", ".join(f"T={t:,}: {a:.2%}" for t, a in searched.items())
        + f"; scikit-learn {acc_sk:.2%}"
    )
    met = acc >= acc_sk - POINTS and t_fit <= t_sk
    return (
        f"- {name}: jaxlearn {t_fit:.3f} s vs scikit-learn {t_sk:.3f} s ({t_sk / t_fit:.2f}x), accuracy "
        + (f"{acc:.2%} vs {acc_sk:.2%}: **{'met' if met else 'NOT met'}**")
    )


def ovr():
    """OneVsRestClassifier(LinearSVC())"""
    return OneVsRestClassifier(LinearSVC())


def ovo():
    """OneVsOneClassifier(LinearSVC())"""
    return OneVsOneClassifier(LinearSVC())


def crammer_singer():
    """LinearSVC(multi_class="crammer_singer")"""
    return LinearSVC(multi_class="crammer_singer")


def one_vs_all(lam, steps):
    """one_vs_all(soft_svm(lam, T, fit_intercept=True), 10)"""
    return multiclass.one_vs_all(linear.soft_svm(lam, steps, fit_intercept=True), 10)


def all_pairs(lam, steps):
    """all_pairs(soft_svm(lam, T, fit_intercept=True), 10)"""
    return multiclass.all_pairs(linear.soft_svm(lam, steps, fit_intercept=True), 10)


def multiclass_svm(lam, steps):
    """multiclass_svm(lam, T, 10, fit_intercept=True)"""
    return multiclass.multiclass_svm(lam, steps, 10, fit_intercept=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lam", type=float, default=0.01, help="jaxlearn's lambda (all three tasks)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (median reported)")
    parser.add_argument("--min-steps", type=int, default=2_500, help="first T of the doubling search")
    args = parser.parse_args()

    data = digits()
    rows, notes, targets = [], [], []
    for name, make_sklearn, make_jax in (
        ("one-vs-all, 10 classes", ovr, one_vs_all),
        ("all-pairs, 45 pairs", ovo, all_pairs),
        ("multiclass SVM", crammer_singer, multiclass_svm),
    ):
        targets.append(
            task(rows, notes, name, make_sklearn, make_jax, data, args.lam, args.repeats, args.min_steps)
        )

    m, d = data[0].shape
    print(
        f"### Multiclass on the digits: {m} train / {data[1].shape[0]} test, d={d}, 10 classes, float32, "
        f"{jax.devices()[0].platform.upper()}, median of {args.repeats}\n"
    )
    print("| task | implementation | setting | median fit time (s) | test accuracy | speed vs scikit-learn |")
    print("|---|---|---|---:|---:|---:|")
    for name, impl, setting, seconds, acc, speed in rows:
        print(f"| {name} | {impl} | {setting} | {seconds:.4f} | {acc:.2%} | {speed} |")
    print("\n**Notes**\n\n" + "\n".join(notes))
    print(f"\n**Targets** (fit at least as fast, accuracy within {POINTS:.0%})\n\n" + "\n".join(targets))


if __name__ == "__main__":
    main()
