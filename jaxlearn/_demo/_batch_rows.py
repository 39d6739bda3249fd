"""The demo's rows for the batch learners: linear, multiclass, structured, ranking, nets, trees, k-NN.

Each row is a dict over the columns of :data:`jaxlearn._demo.BATCH_COLUMNS` (a missing column is
blank): training accuracy (on the sample fitted), test accuracy (on a held-out split), and the
learner's own quantity (objective, margin, updates) in its own column.
"""

from __future__ import annotations

import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import (
    datasets,
    kernels,
    linear,
    losses,
    multiclass,
    neighbors,
    nn,
    ranking,
    structured,
    theory,
    trees,
)
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._demo._online_rows import TIMING, accuracy_cell, circle


@functools.partial(jax.jit, static_argnums=0)
def _objective(loss, lam, w, X, y):
    r""":math:`\lambda/2 \|w\|^2 + \frac1m \sum_i \ell(w, x_i, y_i)`."""
    return lam / 2 * jnp.vdot(w, w) + jnp.mean(jax.vmap(loss, (None, 0, 0))(w, X, y))


def _per_s(count: float, seconds: float, unit: str) -> str:
    return f"{count / seconds:,.0f} {unit}/s"


def _fit_timed(learner, X, y):
    """Fit once to compile, then time a second fit; return (params, seconds)."""
    fit = cpu_jit(learner.fit)
    key = jax.random.PRNGKey(0)
    jax.block_until_ready(fit(key, X, y))
    with TIMING:
        start = time.perf_counter()
        params = jax.block_until_ready(fit(key, X, y))
        return params, time.perf_counter() - start


def linear_rows(key):
    """Rows for the batch convex learners: training accuracy and the theorems' quantities."""
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
        objective = _objective(loss, lam, params.w, Xc, yc)
        yield {
            "learner": name,
            "data": "breast cancer",
            "train acc": accuracy_cell(yc, learner.predict(params, Xc)),
            "objective": f"{float(objective):.3f}",
            "throughput": _per_s(steps, seconds, "SGD steps"),
        }

    X, y, w_star = datasets.separable(key, 500, 10, margin=0.1)
    learner = linear.hard_svm()
    params, seconds = _fit_timed(learner, X, y)
    data = "separable n=500 d=10 gamma>=0.1"
    margin = params.margin
    yield {
        "learner": "hard-SVM (dual ascent)",
        "data": data,
        "train acc": accuracy_cell(y, learner.predict(params, X)),
        "margin": f"{float(margin):.4f}",
        "bound": "margin >= 0.1 (the generator's)",
        "throughput": _per_s(500, seconds, "examples"),
    }
    learner = linear.batch_perceptron()
    params, seconds = _fit_timed(learner, X, y)
    bound = theory.perceptron_mistake_bound(theory.radius(X), margin)
    yield {
        "learner": "batch perceptron",
        "data": data,
        "train acc": accuracy_cell(y, learner.predict(params, X)),
        "updates": int(params.num_updates),
        "bound": f"updates <= (R/g(S))^2 = {float(bound):.0f}",
        "throughput": _per_s(500, seconds, "examples"),
    }

    Xk, yk, _ = circle(key, 1000)
    learner = linear.kernel_svm(kernels.gaussian(0.1), 1e-3, 20_000)
    params, seconds = _fit_timed(learner, Xk, yk)
    yield {
        "learner": "kernel SVM, gaussian(0.1)",
        "data": "circle n=1000 d=2",
        "train acc": accuracy_cell(yk, learner.predict(params, Xk)),
        "throughput": _per_s(20_000, seconds, "SGD steps"),
    }


def _digits_split(key):
    """The digits, a random 70/30 split, standardised with the training statistics."""
    X, y = datasets.load_digits()
    perm = np.asarray(jax.random.permutation(key, y.size))
    train, test = perm[: int(0.7 * y.size)], perm[int(0.7 * y.size) :]
    mean, std = X[train].mean(0), X[train].std(0) + 1e-6
    scale = lambda A: jnp.asarray((A - mean) / std)  # noqa: E731
    return scale(X[train]), jnp.asarray(y[train]), scale(X[test]), jnp.asarray(y[test])


@jax.jit
def _clusters(key):
    """UML Exercise 17.1: clusters of radius 1 whose centres are 5 apart, with a constant feature;
    ``w_i = [mu_i, -|mu_i|^2/2]`` separates them with margin 1. Returns ``(X, y, w_star, R)``."""
    mu = 5.0 * jnp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], jnp.float32)
    y = jax.random.randint(key, (1000,), 0, 5)
    z = jax.random.normal(jax.random.fold_in(key, 1), (1000, 3))
    X = mu[y] + z / jnp.maximum(1.0, jnp.linalg.norm(z, axis=1, keepdims=True))
    X = jnp.concatenate([X, jnp.ones((1000, 1))], axis=1)
    w_star = jnp.concatenate([mu, -jnp.sum(mu**2, axis=1, keepdims=True) / 2], axis=1)
    R = jnp.sqrt(2.0) * jnp.max(jnp.linalg.norm(X, axis=1))  # |Psi(x, y) - Psi(x, y')| = sqrt(2)|x|
    return X, y, w_star, R


_kendall_tau_losses = jax.jit(jax.vmap(ranking.kendall_tau_loss))


def multiclass_rows(key):
    """Rows for multiclass, structured output and ranking (UML chapter 17): accuracy or loss."""
    k_split, k_clusters, k_words, k_queries = jax.random.split(key, 4)
    try:
        X_train, y_train, X_test, y_test = _digits_split(k_split)
    except ImportError:
        return
    data = "digits, 70/30 split"
    steps = 20_000
    binary = linear.soft_svm(0.01, steps, fit_intercept=True)
    for name, learner in [
        ("one-vs-all soft-SVM (UML 17.1)", multiclass.one_vs_all(binary, 10)),
        (
            "multiclass SVM (UML 17.2.5)",
            multiclass.multiclass_svm(1e-3, steps, 10, fit_intercept=True),
        ),
    ]:
        params, seconds = _fit_timed(learner, X_train, y_train)
        yield {
            "learner": name,
            "data": data,
            "train acc": accuracy_cell(y_train, learner.predict(params, X_train)),
            "test acc": accuracy_cell(y_test, learner.predict(params, X_test)),
            "throughput": _per_s(steps, seconds, "SGD steps"),
        }

    X, y, w_star, R = _clusters(k_clusters)
    learner = multiclass.multiclass_perceptron(5)
    params, seconds = _fit_timed(learner, X, y)
    bound = theory.multiclass_perceptron_bound(R, np.linalg.norm(np.asarray(w_star)))
    yield {
        "learner": "multiclass perceptron",
        "data": "5 clusters (Ex. 17.1) n=1000",
        "train acc": accuracy_cell(y, learner.predict(params, X)),
        "updates": int(params.num_updates),
        "bound": f"updates <= (R|w*|)^2 = {float(bound):.0f}",
        "throughput": _per_s(1000 * int(params.num_epochs), seconds, "examples"),
    }

    k_tr, k_te = jax.random.split(k_words)
    X_train, Y_train = datasets.ocr_words(k_tr, 300, 6, noise=0.8, split="train")
    X_test, Y_test = datasets.ocr_words(k_te, 300, 6, noise=0.8, split="test")
    for name, transitions in (
        ("structured SVM, Viterbi (17.3)", True),
        ("  same, no bigrams", False),
    ):
        learner = structured.structured_svm(0.003, 3000, 10, transitions=transitions)
        params, seconds = _fit_timed(learner, X_train, Y_train)
        yield {
            "learner": name,
            "data": "ocr_words, 300 words x 6 letters, noisy",
            "train acc": accuracy_cell(Y_train.ravel(), learner.predict(params, X_train).ravel()),
            "test acc": accuracy_cell(Y_test.ravel(), learner.predict(params, X_test).ravel()),
            "other": "letter accuracies",
            "throughput": _per_s(3000, seconds, "SGD steps"),
        }

    X, Y, _ = jax.device_get(datasets.ranking_queries(k_queries, 600, 10, 8, noise=0.3))
    learner = ranking.ranking_svm(0.01, 4000)
    params, seconds = _fit_timed(learner, X[:400], Y[:400])
    tau = np.mean(_kendall_tau_losses(learner.predict(params, X[400:]), Y[400:]))
    yield {
        "learner": "ranking SVM, Kendall (17.4)",
        "data": "400 + 200 queries x 10 items",
        "other": f"test Kendall-tau loss {float(tau):.3f}",
        "throughput": _per_s(4000, seconds, "SGD steps"),
    }


def nn_rows(key):
    """Rows for neural networks (UML chapter 20): the book's backpropagation against autodiff, an MLP."""
    k_init, k_x, k_fit = jax.random.split(key, 3)
    params = nn.mlp_init(k_init, [8, 16, 16, 3])
    x, y = jax.random.normal(k_x, (8,)), jnp.array([0.5, -1.0, 2.0])
    by_hand = jax.jit(nn.backprop)(params, x, y)
    by_grad = jax.jit(jax.grad(lambda p: nn.squared_loss(nn.mlp_apply(p, x), y)))(params)
    by_hand, by_grad = jax.device_get((by_hand, by_grad))
    gap = max(
        float(np.max(np.abs(a - b)))
        for a, b in zip(jax.tree_util.tree_leaves(by_hand), jax.tree_util.tree_leaves(by_grad))
    )
    yield {
        "learner": "backprop (UML 20.6)",
        "data": "8-16-16-3 sigmoid net",
        "other": f"max |backprop - jax.grad| {gap:.1e}",
    }
    try:
        X_train, y_train, X_test, y_test = _digits_split(k_fit)
    except ImportError:
        return
    steps = 800
    learner = nn.mlp_classifier(128, steps=steps, num_classes=10)
    params, seconds = _fit_timed(learner, X_train, y_train)
    yield {
        "learner": "MLP 64-128-10, Adam (nn.train)",
        "data": "digits, 70/30 split",
        "train acc": accuracy_cell(y_train, learner.predict(params, X_train)),
        "test acc": accuracy_cell(y_test, learner.predict(params, X_test)),
        "throughput": _per_s(32 * steps, seconds, "examples"),
    }


def tree_rows(key):
    """Rows for decision trees, random forests and k-NN (UML chapters 18-19): accuracy."""
    k_split = jax.random.split(key)[0]
    # UML Exercise 18.2: ID3 to depth 2 errs on a quarter of this sample; the best depth-2 tree is perfect
    X = jnp.array([[1, 1, 1], [1, 0, 0], [1, 1, 0], [0, 0, 1]], jnp.float32)
    y = jnp.array([1, 1, 0, 0], jnp.int32)
    learner = trees.decision_tree(2, criterion="entropy", num_classes=2)
    params, _ = _fit_timed(learner, X, y)
    yield {
        "learner": "ID3, depth 2 (Exercise 18.2)",
        "data": "the book's 4 examples",
        "train acc": accuracy_cell(y, learner.predict(params, X)),
        "other": "the best depth-2 tree: 1.000",
    }
    try:
        X_train, y_train, X_test, y_test = _digits_split(k_split)
    except ImportError:
        return
    data, m = "digits, 70/30 split", X_train.shape[0]
    for name, learner in [
        ("decision tree, gini, depth 10", trees.decision_tree(10, num_classes=10)),
        ("random forest, 16 trees, depth 8", trees.random_forest(16, 8, num_classes=10)),
    ]:
        params, seconds = _fit_timed(learner, X_train, y_train)
        yield {
            "learner": name,
            "data": data,
            "train acc": accuracy_cell(y_train, learner.predict(params, X_train)),
            "test acc": accuracy_cell(y_test, learner.predict(params, X_test)),
            "throughput": _per_s(m, seconds, "examples"),
        }
    for k in (1, 5):
        learner = neighbors.knn(k, num_classes=10)
        params = learner.fit(key, X_train, y_train)
        predict = jax.jit(learner.predict)
        jax.block_until_ready(predict(params, X_test))
        with TIMING:
            start = time.perf_counter()
            predicted = jax.block_until_ready(predict(params, X_test))
            seconds = time.perf_counter() - start
        yield {
            "learner": f"{k}-NN (brute force, lax.top_k)",
            "data": data,
            "train acc": accuracy_cell(y_train, predict(params, X_train)),
            "test acc": accuracy_cell(y_test, predicted),
            "throughput": _per_s(X_test.shape[0], seconds, "queries"),
        }
