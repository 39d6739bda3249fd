"""Command line: ``python -m jaxlearn demo`` and ``python -m jaxlearn bench [name ...]``.

The demo trains the online learners on generated data with known margins and on scikit-learn's
breast-cancer data, and prints, per learner, its mistakes (or loss), the theorem's bound, the accuracy
of the final state and the throughput of the compiled loop.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import (
    core,
    datasets,
    experts,
    kernels,
    linear,
    losses,
    metrics,
    multiclass,
    neighbors,
    nn,
    online,
    ranking,
    structured,
    theory,
    trees,
)


def _timed_run(learner, X, y, state0=None, **kwargs):
    """Run once to compile, then time a second run; return (state, trace, rounds per second).

    ``state0`` defaults to ``learner.init(X[0])``; ``kwargs`` go to :func:`jaxlearn.core.run`.
    """
    state0 = learner.init(X[0]) if state0 is None else state0
    jax.block_until_ready(core.run(learner, state0, X, y, **kwargs))
    start = time.perf_counter()
    state, trace = jax.block_until_ready(core.run(learner, state0, X, y, **kwargs))
    return state, trace, y.shape[0] / (time.perf_counter() - start)


def _rows(key):
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


def _expert_rows(key):
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


def _fit_timed(learner, X, y):
    """Fit once to compile, then time a second fit; return (params, seconds)."""
    fit = jax.jit(learner.fit)
    key = jax.random.PRNGKey(0)
    jax.block_until_ready(fit(key, X, y))
    start = time.perf_counter()
    params = jax.block_until_ready(fit(key, X, y))
    return params, time.perf_counter() - start


def _linear_rows(key):
    """Rows for the batch convex learners: training accuracy against the theorems' quantities."""
    try:
        Xc, yc = datasets.load_breast_cancer()
    except ImportError:
        return
    Xc = datasets.standardize(Xc)
    steps, lam = 50_000, 0.01
    for name, learner, loss in [
        (f"soft-SVM (UML 15.5), lam={lam}", linear.soft_svm(lam, steps), losses.hinge),
        (
            f"logistic regression, sgd lam={lam}",
            linear.sgd(losses.logistic, steps=steps, lam=lam),
            losses.logistic,
        ),
    ]:
        params, seconds = _fit_timed(learner, Xc, yc)
        acc = metrics.accuracy(yc, learner.predict(params, Xc))
        risk = jnp.mean(jax.vmap(loss, (None, 0, 0))(params.w, Xc, yc))
        objective = lam / 2 * jnp.vdot(params.w, params.w) + risk
        yield name, "breast cancer", f"objective {float(objective):.3f}", "-", acc, steps / seconds

    X, y, w_star = datasets.separable(key, 500, 10, margin=0.1)
    learner = linear.hard_svm()
    params, seconds = _fit_timed(learner, X, y)
    acc = metrics.accuracy(y, learner.predict(params, X))
    data = "separable n=500 d=10 gamma>=0.1"
    margin = f"margin {float(params.margin):.4f}"
    yield "hard-SVM (dual ascent)", data, margin, ">= 0.1 (generator)", acc, 500 / seconds
    learner = linear.batch_perceptron()
    params, seconds = _fit_timed(learner, X, y)
    bound = theory.perceptron_mistake_bound(theory.radius(X), linear.hard_svm().fit(key, X, y).margin)
    updates, bound = f"{int(params.num_updates)} updates", f"(R/g(S))^2 = {float(bound):.0f}"
    acc = metrics.accuracy(y, learner.predict(params, X))
    yield "batch perceptron", data, updates, bound, acc, 500 / seconds

    Xk = jax.random.uniform(key, (1000, 2), minval=-1.0, maxval=1.0)
    yk = jnp.where(jnp.sum(Xk**2, axis=1) > 0.5, 1.0, -1.0)
    learner = linear.kernel_svm(kernels.gaussian(0.1), 1e-3, 20_000)
    params, seconds = _fit_timed(learner, Xk, yk)
    acc = metrics.accuracy(yk, learner.predict(params, Xk))
    yield "kernel SVM, gaussian(0.1)", "circle n=1000 d=2", "-", "-", acc, 20_000 / seconds


def _digits_split(key):
    """The digits, a random 70/30 split, standardised with the training statistics."""
    X, y = datasets.load_digits()
    perm = np.asarray(jax.random.permutation(key, y.size))
    train, test = perm[: int(0.7 * y.size)], perm[int(0.7 * y.size) :]
    mean, std = X[train].mean(0), X[train].std(0) + 1e-6
    scale = lambda A: jnp.asarray((A - mean) / std)  # noqa: E731
    return scale(X[train]), jnp.asarray(y[train]), scale(X[test]), jnp.asarray(y[test])


def _multiclass_rows(key):
    """Rows for multiclass, structured output and ranking (UML chapter 17): test accuracy or loss."""
    k_split, k_clusters, k_words, k_queries = jax.random.split(key, 4)
    try:
        X_train, y_train, X_test, y_test = _digits_split(k_split)
    except ImportError:
        return
    data = "digits, 70/30 split (test)"
    steps = 20_000
    binary = linear.soft_svm(0.01, steps, fit_intercept=True)
    for name, learner in [
        ("one-vs-all soft-SVM (UML 17.1)", multiclass.one_vs_all(binary, 10)),
        ("multiclass SVM (UML 17.2.5)", multiclass.multiclass_svm(1e-3, steps, 10, fit_intercept=True)),
    ]:
        params, seconds = _fit_timed(learner, X_train, y_train)
        acc = metrics.accuracy(y_test, learner.predict(params, X_test))
        yield name, data, "-", "-", acc, steps / seconds

    # Exercise 17.1: clusters of radius 1 whose centres are 5 apart; w_i = [mu_i, -|mu_i|^2/2] has margin 1
    mu = 5.0 * jnp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], jnp.float32)
    y = jax.random.randint(k_clusters, (1000,), 0, 5)
    z = jax.random.normal(jax.random.fold_in(k_clusters, 1), (1000, 3))
    X = mu[y] + z / jnp.maximum(1.0, jnp.linalg.norm(z, axis=1, keepdims=True))
    X = jnp.concatenate([X, jnp.ones((1000, 1))], axis=1)
    w_star = jnp.concatenate([mu, -jnp.sum(mu**2, axis=1, keepdims=True) / 2], axis=1)
    R = jnp.sqrt(2.0) * jnp.max(jnp.linalg.norm(X, axis=1))  # |Psi(x, y) - Psi(x, y')| = sqrt(2) |x|
    learner = multiclass.multiclass_perceptron(5)
    params, seconds = _fit_timed(learner, X, y)
    bound = theory.multiclass_perceptron_bound(R, jnp.linalg.norm(w_star))
    acc = metrics.accuracy(y, learner.predict(params, X))
    yield (
        "multiclass perceptron",
        "5 clusters (Ex. 17.1) n=1000",
        f"{int(params.num_updates)} updates",
        f"(R|w*|)^2 = {float(bound):.0f}",
        acc,
        1000 * int(params.num_epochs) / seconds,
    )

    k_tr, k_te = jax.random.split(k_words)
    X_train, Y_train = datasets.ocr_words(k_tr, 300, 6, noise=0.8, split="train")
    X_test, Y_test = datasets.ocr_words(k_te, 300, 6, noise=0.8, split="test")
    for name, transitions in (("structured SVM, Viterbi (17.3)", True), ("  same, no bigrams", False)):
        learner = structured.structured_svm(0.003, 3000, 10, transitions=transitions)
        params, seconds = _fit_timed(learner, X_train, Y_train)
        acc = jnp.mean(learner.predict(params, X_test) == Y_test)
        yield name, "ocr_words 300 x 6 letters, noisy (test)", "-", "-", acc, 3000 / seconds

    X, Y, _ = datasets.ranking_queries(k_queries, 600, 10, 8, noise=0.3)
    learner = ranking.ranking_svm(0.01, 4000)
    params, seconds = _fit_timed(learner, X[:400], Y[:400])
    tau = jnp.mean(jax.vmap(ranking.kendall_tau_loss)(learner.predict(params, X[400:]), Y[400:]))
    yield (
        "ranking SVM, Kendall (17.4)",
        "200 test queries x 10 items",
        f"Kendall-tau loss {float(tau):.3f}",
        "-",
        "-",
        4000 / seconds,
    )


def _nn_rows(key):
    """Rows for neural networks (UML chapter 20): the book's backpropagation against autodiff, an MLP."""
    k_init, k_x, k_fit = jax.random.split(key, 3)
    params = nn.mlp_init(k_init, [8, 16, 16, 3])
    x, y = jax.random.normal(k_x, (8,)), jnp.array([0.5, -1.0, 2.0])
    by_hand = nn.backprop(params, x, y)
    by_grad = jax.grad(lambda p: nn.squared_loss(nn.mlp_apply(p, x), y))(params)
    gap = max(
        float(jnp.max(jnp.abs(a - b)))
        for a, b in zip(jax.tree_util.tree_leaves(by_hand), jax.tree_util.tree_leaves(by_grad))
    )
    yield "backprop (UML 20.6) vs jax.grad", "8-16-16-3 sigmoid net", f"max |diff| {gap:.1e}", "-", "-", "-"
    try:
        X_train, y_train, X_test, y_test = _digits_split(k_fit)
    except ImportError:
        return
    steps = 800
    learner = nn.mlp_classifier(128, steps=steps, num_classes=10)
    params, seconds = _fit_timed(learner, X_train, y_train)
    acc = metrics.accuracy(y_test, learner.predict(params, X_test))
    yield "MLP 64-128-10, Adam (nn.train)", "digits, 70/30 split (test)", "-", "-", acc, 32 * steps / seconds


def _tree_rows(key):
    """Rows for decision trees, random forests and k-NN (UML chapters 18-19): test accuracy."""
    k_split = jax.random.split(key)[0]
    # UML Exercise 18.2: ID3 to depth 2 errs on a quarter of this sample; the best depth-2 tree is perfect
    X = jnp.array([[1, 1, 1], [1, 0, 0], [1, 1, 0], [0, 0, 1]], jnp.float32)
    y = jnp.array([1, 1, 0, 0], jnp.int32)
    learner = trees.decision_tree(2, criterion="entropy", num_classes=2)
    params, seconds = _fit_timed(learner, X, y)
    errors = int(jnp.sum(learner.predict(params, X) != y))
    yield (
        "ID3, depth 2 (Exercise 18.2)",
        "the book's 4 examples",
        f"{errors} of 4",
        "best depth-2 tree: 0",
        "-",
        "-",
    )
    try:
        X_train, y_train, X_test, y_test = _digits_split(k_split)
    except ImportError:
        return
    data, m = "digits, 70/30 split (test)", X_train.shape[0]
    for name, learner in [
        ("decision tree, gini, depth 10", trees.decision_tree(10, num_classes=10)),
        ("random forest, 16 trees, depth 8", trees.random_forest(16, 8, num_classes=10)),
    ]:
        params, seconds = _fit_timed(learner, X_train, y_train)
        acc = metrics.accuracy(y_test, learner.predict(params, X_test))
        yield name, data, "-", "-", acc, m / seconds
    for k in (1, 5):
        learner = neighbors.knn(k, num_classes=10)
        params = learner.fit(key, X_train, y_train)
        predict = jax.jit(learner.predict)
        jax.block_until_ready(predict(params, X_test))
        start = time.perf_counter()
        acc = metrics.accuracy(y_test, jax.block_until_ready(predict(params, X_test)))
        yield (
            f"{k}-NN (brute force, lax.top_k)",
            data,
            "-",
            "-",
            acc,
            X_test.shape[0] / (time.perf_counter() - start),
        )


def demo() -> None:
    """Print the table of learners, mistakes, bounds, accuracy and throughput."""
    start = time.perf_counter()
    header = ("learner", "data", "mistakes", "bound", "accuracy", "examples/s")
    rows = [
        (
            name,
            data,
            str(m),
            bound,
            acc if isinstance(acc, str) else f"{float(acc):.3f}",
            speed if isinstance(speed, str) else f"{speed:,.0f}",
        )
        for rows in (
            _rows(jax.random.PRNGKey(0)),
            _expert_rows(jax.random.PRNGKey(1)),
            _linear_rows(jax.random.PRNGKey(2)),
            _multiclass_rows(jax.random.PRNGKey(3)),
            _nn_rows(jax.random.PRNGKey(4)),
            _tree_rows(jax.random.PRNGKey(5)),
        )
        for name, data, m, bound, acc, speed in rows
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(f"jaxlearn demo on {jax.devices()[0].platform.upper()} (jax {jax.__version__})\n")
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line(row))
    print(
        "\nmistakes: rounds with y <w, x> <= 0 (the prequential record); accuracy: the final state "
        "on the same data (on held-out data where the data says test); examples/s: one compiled run "
        "(SGD steps/s for the batch learners, "
        "training examples/s for trees, queries/s for k-NN)."
        f"\nDone in {time.perf_counter() - start:.1f} s."
    )


#: The benchmark scripts live in the source checkout, beside the package (they need scikit-learn,
#: river and the checkout's ``scripts/benchtools.py``); ``bench`` runs them one after the other.
SCRIPTS_DIR = Path(__file__).resolve().parent.parent / "scripts"


def bench(names=()) -> int:
    """Run ``scripts/bench_<name>.py`` for each name (all of them when ``names`` is empty)."""
    available = sorted(p.stem.removeprefix("bench_") for p in SCRIPTS_DIR.glob("bench_*.py"))
    if not available:
        where = f"no benchmark scripts in {SCRIPTS_DIR} (they ship with the source checkout)"
        print(where, file=sys.stderr)
        return 2
    unknown = sorted(set(names) - set(available))
    if unknown:
        print(f"unknown benchmark(s) {unknown}; expected some of {available}", file=sys.stderr)
        return 2
    status = 0
    for name in names or available:
        print(f"\n## bench_{name}.py\n", flush=True)
        status |= subprocess.call([sys.executable, str(SCRIPTS_DIR / f"bench_{name}.py")])
    return status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxlearn", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["demo", "bench"], help="what to run")
    parser.add_argument("names", nargs="*", help="bench: which scripts/bench_<name>.py (default: all)")
    args = parser.parse_args(argv)
    if args.command == "demo":
        if args.names:
            parser.error("demo takes no further arguments")
        demo()
        return 0
    return bench(args.names)


if __name__ == "__main__":
    sys.exit(main())
