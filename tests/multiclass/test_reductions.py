"""One-versus-All and All-Pairs (UML section 17.1; SPEC 11.1-11.2)."""

from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, kernels, linear
from jaxlearn.multiclass import all_pairs, multivector, one_vs_all, pairs
from tests.harness import count_compilations
from tests.multiclass.data import blobs, digits_split, example_17_1

KEY = jax.random.PRNGKey(0)
SVM = linear.soft_svm(0.05, 300, fit_intercept=True)


def _count(jaxpr, name):
    """Occurrences of primitive ``name`` in a jaxpr and every jaxpr nested in it."""
    total = 0
    for eqn in jaxpr.eqns:
        total += eqn.primitive.name == name
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += _count(inner, name)
    return total


def test_one_vs_all_equals_k_separate_binary_fits(x64):
    k = 4
    X, y = blobs(jax.random.PRNGKey(1), 60, jnp.float64, k=k)
    params = one_vs_all(SVM, k).fit(KEY, X, y)
    keys = jax.random.split(KEY, k)
    for i in range(k):
        one = SVM.fit(keys[i], X, jnp.where(y == i, 1.0, -1.0))
        np.testing.assert_allclose(params.w[i], one.w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(params.b[i], one.b, rtol=1e-12, atol=1e-14)
    scores = one_vs_all(SVM, k).decision_function(params, X)
    np.testing.assert_allclose(scores, X @ params.w.T + params.b, rtol=1e-12)
    np.testing.assert_array_equal(one_vs_all(SVM, k).predict(params, X), jnp.argmax(scores, axis=1))


def test_one_vs_all_is_one_program_over_the_classes():
    """One scan for the k binary problems (a Python loop would trace k), and nothing recompiles."""
    k = 5
    X, y = blobs(jax.random.PRNGKey(2), 30, jnp.float32, k=k)
    ova = one_vs_all(SVM, k)
    jaxpr = jax.make_jaxpr(ova.fit)(KEY, X, y).jaxpr
    assert _count(jaxpr, "scan") == 1
    scans = [e for e in _walk(jaxpr) if e.primitive.name == "scan"]
    assert scans[0].params["length"] == 300
    assert any(
        v.aval.shape[:1] == (k,) for v in scans[0].outvars
    )  # the carry holds the k weight vectors
    jax.block_until_ready(ova.fit(KEY, X, y))
    X2, y2 = blobs(jax.random.PRNGKey(3), 30, jnp.float32, k=k)
    with count_compilations() as compiled:
        jax.block_until_ready(
            one_vs_all(linear.soft_svm(0.5, 300, fit_intercept=True), k).fit(KEY, X2, y2)
        )
    assert compiled[0] == 0
    with count_compilations() as compiled:  # the whole fit as one XLA program
        jax.block_until_ready(jax.jit(ova.fit)(KEY, X2, y2))
    assert compiled[0] == 1


def _walk(jaxpr):
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from _walk(inner)


def test_example_17_1_one_vs_all_fails_where_the_multivector_predictor_is_perfect():
    X, y = example_17_1()
    # the multivector linear predictor with the book's w_1, w_2, w_3 (labels 0, 1, 2 here)
    s = 1 / np.sqrt(2)
    w = np.array([[-s, s], [0.0, 1.0], [s, s]], np.float32).reshape(-1)
    scores = jax.vmap(lambda x: jnp.stack([jnp.vdot(w, multivector(x, c, 3)) for c in range(3)]))(X)
    np.testing.assert_array_equal(jnp.argmax(scores, axis=1), y)
    # One-versus-All over halfspaces (soft-SVM with a bias), ties broken by the minimal index: the best
    # "class 1 vs rest" halfspace is all-negative, so every example of class 1 gets label 0
    svm = linear.soft_svm(0.01, 2000, fit_intercept=True)
    signs_only = core.BatchLearner(svm.fit, svm.predict)  # h_i(x) in {-1, +1}, as in the book
    ova = one_vs_all(signs_only, 3)
    params = ova.fit(KEY, X, y)
    middle = jax.vmap(svm.predict, (None, 0))(
        jax.tree_util.tree_map(lambda a: a[1], params), X[:, None, :]
    )
    np.testing.assert_array_equal(middle, -1.0)
    predicted = np.asarray(ova.predict(params, X))
    assert np.all(predicted[y == 1] == 0)  # all of class 1 wrong: 20% error
    assert np.all(predicted[y != 1] == y[y != 1])


def _cyclic_perceptron(X, y):
    """SS10 Algorithm 1 in NumPy: cyclic passes, w += y x where y <w, x> <= 0, until a clean pass."""
    w, updates, clean = np.zeros(X.shape[1]), 0, False
    while not clean:
        clean = True
        for x, label in zip(X, y):
            if label * (w @ x) <= 0:
                w, updates, clean = w + label * x, updates + 1, False
    return w, updates


def test_all_pairs_cycle_equals_the_batch_perceptron_on_each_pair(x64):
    k = 3
    X, _ = blobs(jax.random.PRNGKey(4), 48, jnp.float64, k=k, spread=0.3)
    # 16 examples a class, interleaved: every pair has 32 examples (one compiled per-pair program)
    centres = jnp.stack([jnp.mean(X[_ == c], axis=0) for c in range(k)])
    y = jnp.arange(48, dtype=jnp.int32) % k
    X = centres[y] + 0.1 * jax.random.normal(jax.random.PRNGKey(6), X.shape, X.dtype)
    perceptron = linear.batch_perceptron(max_epochs=200)
    params = all_pairs(perceptron, k, subsample="cycle").fit(KEY, X, y)
    first, second = pairs(k)
    for p, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        member = (y == i) | (y == j)
        w, updates = _cyclic_perceptron(
            np.asarray(X[member]), np.where(np.asarray(y[member]) == i, 1.0, -1.0)
        )
        assert bool(params.converged[p])
        np.testing.assert_allclose(params.w[p], w, rtol=1e-12, atol=1e-12)
        assert int(params.num_updates[p]) == updates
    assert int(params.num_updates.sum()) > len(first)  # not trivial


def test_all_pairs_mask_gives_excluded_examples_no_weight(x64):
    """subsample="mask": the pair (i, j) fit is soft_svm's SGD over labels in {+1, -1, 0}, which equals
    SGD on the pair's examples alone with the same draws (label-0 draws leave theta unchanged)."""
    k = 3
    X, y = blobs(jax.random.PRNGKey(5), 40, jnp.float64, k=k)
    y = np.asarray(y)
    params = all_pairs(SVM, k, subsample="mask").fit(KEY, X, y)
    keys = jax.random.split(KEY, 3)
    first, second = pairs(k)
    for p, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        labels = np.where(y == i, 1.0, np.where(y == j, -1.0, 0.0))
        # a NumPy transcription of UML 15.5 over the pair's draws only (theta moves on pair examples)
        idx = np.asarray(jax.random.randint(keys[p], (300,), 0, 40, dtype=jnp.int32))
        Xa = np.c_[np.asarray(X), np.ones(40)]
        theta, total = np.zeros(Xa.shape[1]), np.zeros(Xa.shape[1])
        for t, e in enumerate(idx, start=1):
            w = theta / (0.05 * t)
            total += w
            label = float(labels[e])
            if label != 0 and label * (w @ Xa[e]) < 1:
                theta += label * Xa[e]
        np.testing.assert_allclose(
            np.r_[params.w[p], params.b[p]], total / 300, rtol=1e-10, atol=1e-12
        )


@pytest.mark.parametrize(
    "exact",
    [
        linear.svm_primal_newton(1.0, tol=1e-10, fit_intercept=True),
        linear.svm_dual_cd(1.0, tol=1e-8, max_iter=20_000, fit_intercept=True),
        linear.kernel_svm_dual_cd(kernels.gaussian(0.5), 1.0, tol=1e-10),
    ],
    ids=["primal_newton", "dual_cd", "kernel_dual_cd"],
)
def test_all_pairs_compact_fits_each_pair_on_its_own_examples(x64, exact):
    """subsample="compact" over an exact solver: each pair's problem is the solver on the pair's own
    examples (in their order, then label-0 slots), the minimiser "mask" finds on every row; a traced
    ``y`` (sizes unknown) takes "mask" itself."""
    k = 4
    X, y = blobs(jax.random.PRNGKey(6), 90, jnp.float64, k=k)
    y = np.asarray(y)
    compact = all_pairs(exact, k, subsample="compact")
    params = compact.fit(KEY, X, y)
    masked = all_pairs(exact, k, subsample="mask").fit(KEY, X, y)
    traced = jax.jit(compact.fit)(KEY, X, y)
    keys = jax.random.split(KEY, k * (k - 1) // 2)
    first, second = pairs(k)
    Xn = np.asarray(X)
    for p, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        own = (y == i) | (y == j)
        alone = exact.fit(keys[p], Xn[own], np.where(y[own] == i, 1.0, -1.0))
        fits = [jax.tree_util.tree_map(lambda a, p=p: a[p], r) for r in (params, masked, traced)]
        scores = [np.asarray(exact.decision_function(q, Xn)) for q in (fits[0], alone, *fits[1:])]
        for other in scores[1:]:
            np.testing.assert_allclose(scores[0], other, rtol=1e-6, atol=1e-6)
    assert compact.predict(params, X).tolist() == compact.predict(masked, X).tolist()


@pytest.mark.parametrize(
    "svm",
    [SVM, linear.soft_svm(0.05, 300, variant="ss10")],
    ids=["intercept", "ss10"],
)
def test_all_pairs_default_is_soft_svm_on_each_pairs_own_examples(x64, svm):
    """subsample="pair" over soft_svm: pair (i, j) is soft_svm.fit(key_ij, X[S_ij], y_ij), the book's
    definition, with the same draws (bitwise equal in our runs; 1e-12 allows another XLA's reassociation).
    A pair with no examples keeps w = 0."""
    k = 5
    X, y = blobs(jax.random.PRNGKey(5), 40, jnp.float64, k=3)  # classes 3 and 4 have no examples
    y = np.asarray(y)
    params = all_pairs(svm, k).fit(KEY, X, y)
    keys = jax.random.split(KEY, 10)
    for p, (i, j) in enumerate(zip(*pairs(k))):
        own = (y == i) | (y == j)
        if not own.any():
            assert float(jnp.abs(params.w[p]).max()) == 0.0 and float(params.b[p]) == 0.0
            continue
        one = svm.fit(keys[p], X[own], np.where(y[own] == i, 1.0, -1.0))
        np.testing.assert_allclose(params.w[p], one.w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(params.b[p], one.b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "binary",
    [
        core.BatchLearner(lambda *a: SVM.fit(*a), SVM.predict, SVM.decision_function),
        linear.soft_svm(0.05, 300, batch_size=4),
    ],
    ids=["hand-built", "batch_size=4"],
)
def test_all_pairs_default_over_other_learners_repeats_each_pairs_examples(x64, binary):
    """subsample="pair" over any other binary learner: pair (i, j) fits S_ij in order, repeated
    r = m // n_ij whole times in m slots, the rest label 0 (so a uniform draw is uniform over S_ij)."""
    k, m = 3, 40
    X, y = blobs(jax.random.PRNGKey(6), m, jnp.float64, k=k)
    y = np.asarray(y)
    params = all_pairs(binary, k).fit(KEY, X, y)
    keys = jax.random.split(KEY, 3)
    for p, (i, j) in enumerate(zip(*pairs(k))):
        own = np.flatnonzero((y == i) | (y == j))
        r = m // own.size
        slots = np.resize(own, m)  # own, own, ... cut at m
        labels = np.where(y[slots] == i, 1.0, -1.0) * (np.arange(m) < r * own.size)
        one = jax.jit(binary.fit)(keys[p], X[slots], labels)  # jit: label 0 passes the value check
        np.testing.assert_allclose(params.w[p], one.w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(params.b[p], one.b, rtol=1e-12, atol=1e-14)


def test_all_pairs_default_is_one_program_whatever_the_class_counts():
    """One scan over the 45 pairs, X shared (no per-pair copy of the sample); new labels (other class
    counts) and a new lam compile nothing."""
    k = 10
    X, y = blobs(jax.random.PRNGKey(2), 60, jnp.float32, k=k)
    ap = all_pairs(SVM, k)
    jaxpr = jax.make_jaxpr(ap.fit)(KEY, X, y).jaxpr
    assert _count(jaxpr, "scan") == 1
    assert not any(
        v.aval.shape[-2:] == X.shape for e in _walk(jaxpr) for v in e.outvars if v.aval.ndim == 3
    )
    jax.block_until_ready(ap.fit(KEY, X, y))
    _, y2 = blobs(jax.random.PRNGKey(3), 60, jnp.float32, k=k)
    assert np.any(np.bincount(y2, minlength=k) != np.bincount(y, minlength=k))
    with count_compilations() as compiled:
        jax.block_until_ready(
            all_pairs(linear.soft_svm(0.5, 300, fit_intercept=True), k).fit(KEY, X, y2)
        )
    assert compiled[0] == 0


def test_all_pairs_votes_and_tie_rule():
    """score_i = sum_{j>i} h_ij - sum_{j<i} h_ji; ties between vote counts go to the larger confidence."""
    k = 3
    # fixed binary scorers a x + b on a 1-D input, pair order (0, 1), (0, 2), (1, 2)
    fixed = core.BatchLearner(
        lambda key, X, y: Fixed(jnp.zeros(()), jnp.zeros(())),
        lambda p, X: jnp.where(X[:, 0] * p.a + p.b > 0, 1.0, -1.0),
        lambda p, X: X[:, 0] * p.a + p.b,
    )
    ap = all_pairs(fixed, k)
    params = Fixed(jnp.array([1.0, 0.0, -1.0]), jnp.array([0.0, 1.0, 0.0]))
    X = jnp.array([[2.0], [-2.0]])
    # x = 2: h_01 = +1, h_02 = +1, h_12 = -1 -> votes (2, -2, 0); x = -2: h_01 = -1, h_02 = +1, h_12 = +1
    # -> votes (0, 2, -2)
    np.testing.assert_array_equal(
        jnp.round(ap.decision_function(params, X)), [[2, -2, 0], [0, 2, -2]]
    )
    np.testing.assert_array_equal(ap.predict(params, X), [0, 1])
    # a three-way vote tie (a cycle 0 > 1 > 2 > 0) is broken by the summed confidences
    cycle = Fixed(jnp.array([0.0, 0.0, 0.0]), jnp.array([1.0, -3.0, 2.0]))
    scores = ap.decision_function(cycle, X[:1])
    np.testing.assert_allclose(jnp.round(scores), [[0, 0, 0]])
    # confidences: class 0: 1 + (-3) = -2; class 1: -1 + 2 = 1; class 2: 3 - 2 = 1 -> tie 1/2: minimal index
    assert int(ap.predict(cycle, X[:1])[0]) == 1


class Fixed(NamedTuple):
    a: jax.Array
    b: jax.Array


def _sklearn_accuracy(clf, data):
    X_train, X_test, y_train, y_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X_train, y_train)
    return float(np.mean(clf.predict(X_test) == y_test))


@pytest.mark.parametrize("reduction", ["one_vs_all", "all_pairs"])
def test_digits_accuracy_within_2_points_of_scikit_learn(reduction):
    from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
    from sklearn.svm import LinearSVC

    data = digits_split()
    X_train, X_test, y_train, y_test = data
    binary = linear.soft_svm(0.01, 20_000, fit_intercept=True)
    if reduction == "one_vs_all":
        learner, reference = one_vs_all(binary, 10), OneVsRestClassifier(LinearSVC())
    else:
        learner, reference = all_pairs(binary, 10), OneVsOneClassifier(LinearSVC())
    params = learner.fit(KEY, X_train, y_train)
    accuracy = float(np.mean(np.asarray(learner.predict(params, X_test)) == y_test))
    want = _sklearn_accuracy(reference, data)
    assert accuracy >= want - 0.02, (accuracy, want)
    assert accuracy > 0.9


def test_bad_input():
    X, y = blobs(KEY, 20, jnp.float32)
    ova = one_vs_all(SVM, 3)
    with pytest.raises(
        ValueError, match=r"expected `y` with labels in 0..2 \(num_classes=3\), found \{5\}"
    ):
        ova.fit(KEY, X, y.at[0].set(5))
    with pytest.raises(ValueError, match=r"labels in 0..2.*found \{-1\}"):
        all_pairs(SVM, 3).fit(KEY, X, y.at[0].set(-1))
    with pytest.raises(ValueError, match=r"labels in 0..2.*found \{0.5\}"):
        ova.fit(KEY, X, y.astype(jnp.float32).at[0].set(0.5))
    with pytest.raises(ValueError, match=r"`num_classes` an integer in \[2, inf\)"):
        one_vs_all(SVM, 1)
    with pytest.raises(TypeError, match="`binary` a BatchLearner"):
        one_vs_all(lambda key, X, y: None, 3)
    with pytest.raises(ValueError, match="`subsample`"):
        all_pairs(SVM, 3, subsample="random")
    with pytest.raises(ValueError, match=r"pair of classes.*\(1, 2\)"):
        all_pairs(SVM, 4, subsample="cycle").fit(KEY, X, jnp.where(y == 0, 0, 3))
