"""Size buckets: every training or query size in a bucket runs one compiled program, and the rows added
to reach the bucket (label 0, weight 0) change nothing."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sklearn.linear_model
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.preprocessing import StandardScaler

import jaxlearn.sklearn as jsk
from jaxlearn import linear, multiclass
from jaxlearn._buckets import bucket, pad_rows, shuffled
from tests.harness import count_compilations


def test_buckets_are_quarter_steps_between_powers_of_two():
    sizes = [bucket(n) for n in range(1, 5000)]
    assert sizes[:8] == [8] * 8
    for n, size in enumerate(sizes, start=1):
        assert size >= n and (n <= 8 or size < 1.25 * n + 1)
        k = size.bit_length() - 1
        assert (
            size in {2**k, 2**k + 2 ** (k - 2), 2**k + 2 ** (k - 1), 2**k + 3 * 2 ** (k - 2)}
            or k < 3
        )
    assert sizes == sorted(sizes)
    assert len(set(sizes)) < 60  # a few dozen programs cover five thousand sizes


def test_shuffled_keeps_the_order_of_the_first_rows():
    key = jax.random.key(3)
    short, long = np.asarray(shuffled(key, 37)), np.asarray(shuffled(key, 48))
    assert sorted(short) == list(range(37))
    np.testing.assert_array_equal(long[long < 37], short)


def _binary():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X).astype(np.float32)[:300]
    weights = np.random.default_rng(0).uniform(0.5, 2.0, 300).astype(np.float32)
    return X, (2 * y[:300] - 1).astype(np.float32), weights


def _multiclass():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X).astype(np.float32)
    return X, y.astype(np.int32), np.ones(len(y), np.float32)


def _padded_and_not(learner, X, y, weights, size):
    fit, key = jax.jit(learner.fit), jax.random.key(1)
    return fit(key, X, y, weights), fit(key, *(pad_rows(a, size) for a in (X, y, weights)))


@pytest.mark.parametrize(
    "learner",
    [
        linear.svm_dual_cd(1.0, fit_intercept=True),
        linear.svm_dual_cd(0.5, loss="squared_hinge"),
        linear.epoch_sgd(),
        linear.epoch_sgd("log_loss", average=10),
        linear.epoch_sgd("perceptron", penalty=None, learning_rate="constant", eta0=1.0),
    ],
    ids=["dual-hinge", "dual-squared-hinge", "sgd-hinge", "sgd-averaged-log", "perceptron"],
)
def test_padding_changes_no_bit_of_the_coordinate_and_sgd_iterates(learner):
    # the same key visits the real rows in the same order; the added rows are passed over
    X, y, weights = _binary()
    unpadded, padded = _padded_and_not(learner, X, y, weights, 384)
    np.testing.assert_array_equal(unpadded.w, padded.w)
    np.testing.assert_array_equal(unpadded.b, padded.b)
    if hasattr(unpadded, "num_epochs"):
        assert int(unpadded.num_epochs) == int(padded.num_epochs)
        np.testing.assert_array_equal(unpadded.t, padded.t)
    else:
        assert int(unpadded.n_iter) == int(padded.n_iter)


def test_padding_leaves_crammer_singer_to_rounding():
    # the iterates are the same; w is summed once more at the end over more (zero) rows
    X, y, weights = _multiclass()
    unpadded, padded = _padded_and_not(
        multiclass.multiclass_svm_dual_cd(1.0, 3), X, y, weights, 160
    )
    assert int(unpadded.n_iter) == int(padded.n_iter)
    np.testing.assert_allclose(unpadded.w, padded.w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make", [multiclass.multiclass_svm, multiclass.multiclass_sgd])
def test_padding_changes_no_bit_of_the_multiclass_sgd(make):
    # the padded fit draws the same examples (JAX draws element t from t alone) and runs as many
    # steps per real row: the first max_iter * n of its max_iter * 160 steps
    X, y, weights = _multiclass()
    key = jax.random.key(1)
    unpadded = make(0.01, 5 * 150, 3, fit_intercept=True).fit(key, X, y)
    padded = jax.jit(make(0.01, 5 * 160, 3, fit_intercept=True).fit)(
        key, *(pad_rows(a, 160) for a in (X, y, weights))
    )
    np.testing.assert_array_equal(unpadded.w, padded.w)
    np.testing.assert_array_equal(unpadded.b, padded.b)


def test_multiclass_svc_fits_as_the_unpadded_learner_and_zero_weights_as_rows_left_out():
    X, y, _ = _multiclass()
    order = np.random.default_rng(0).permutation(150)
    X, y = X[order], y[order]
    model = jsk.MulticlassSVC(C=2.0, max_iter=5, random_state=0).fit(X[:107], y[:107])  # 112 rows
    learner = multiclass.multiclass_svm(1 / (2.0 * 107), 5 * 107, 3, fit_intercept=True)
    unpadded = learner.fit(model._key(), X[:107], y[:107])
    np.testing.assert_array_equal(model.coef_, np.asarray(unpadded.w).reshape(3, -1))
    np.testing.assert_array_equal(model.intercept_, unpadded.b)
    weight = np.where(np.arange(150) % 3 == 0, 0.0, 1.0)  # lam and the steps count 100 rows
    weighted = jsk.MulticlassSVC(C=2.0, max_iter=5, random_state=0).fit(X, y, sample_weight=weight)
    alone = jsk.MulticlassSVC(C=2.0, max_iter=5, random_state=0).fit(X[weight > 0], y[weight > 0])
    np.testing.assert_array_equal(weighted.coef_, alone.coef_)
    np.testing.assert_array_equal(weighted.intercept_, alone.intercept_)


@pytest.mark.parametrize("which", ["logistic", "primal", "multinomial"])
def test_padding_leaves_lbfgs_to_its_tolerance(which):
    # L-BFGS sums the gradient over the rows: more (zero) rows change the rounding, so the two runs
    # stop at points whose objectives agree to the solver's tolerance
    if which == "multinomial":
        X, y, weights = _multiclass()
        learner, size = multiclass.multinomial_logistic_regression(1.0, 3, tol=1e-6), 160
    else:
        X, y, weights = _binary()
        size = 384
        learner = (
            linear.logistic_regression(1.0, tol=1e-6)
            if which == "logistic"
            else linear.svm_primal_lbfgs(1.0, tol=1e-6)
        )
    unpadded, padded = _padded_and_not(learner, X, y, weights, size)
    assert bool(unpadded.converged) and bool(padded.converged)
    np.testing.assert_allclose(unpadded.w, padded.w, rtol=2e-3, atol=2e-3)


ESTIMATORS = {
    "LinearSVC": lambda: jsk.LinearSVC(random_state=0),
    "LinearSVC-dual": lambda: jsk.LinearSVC(dual=True, random_state=0),
    "LinearSVC-crammer-singer": lambda: jsk.LinearSVC(multi_class="crammer_singer", random_state=0),
    "LogisticRegression": lambda: jsk.LogisticRegression(),
    "SGDClassifier": lambda: jsk.SGDClassifier(random_state=0),
    "SGDClassifier-early-stopping": lambda: jsk.SGDClassifier(early_stopping=True, random_state=0),
    "Perceptron": lambda: jsk.Perceptron(random_state=0),
    "NearestCentroid": lambda: jsk.NearestCentroid(),
    "RidgeClassifier": lambda: jsk.RidgeClassifier(),
    "OneVsRestClassifier": lambda: jsk.OneVsRestClassifier(jsk.LinearSVC(random_state=0)),
    "OneVsOneClassifier": lambda: jsk.OneVsOneClassifier(jsk.LinearSVC(random_state=0)),
    "MulticlassPerceptron": lambda: jsk.MulticlassPerceptron(),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_new_size_in_the_bucket_compiles_nothing(name):
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = StandardScaler().fit_transform(X)[order], y[order]
    ESTIMATORS[name]().fit(X[:100], y[:100]).predict(
        X[100:]
    )  # sizes 100 and 50: buckets 112 and 56
    with count_compilations() as compiled:
        model = ESTIMATORS[name]().fit(X[:107], y[:107])
        model.predict(X[97:])
        model.decision_function(X[:53])
    assert compiled[0] == 0


def test_a_padded_estimator_fits_as_its_rows_alone():
    # 100 rows are padded to 112, 112 rows are not: the first 100 of them, with 12 more of weight 0,
    # give the same dual solution bit for bit (the same key visits the same rows in the same order)
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(1).permutation(len(y))
    X, y = StandardScaler().fit_transform(X)[order][:112], y[order][:112]
    alone = ESTIMATORS["LinearSVC-dual"]().fit(X[:100], y[:100])
    padded = ESTIMATORS["LinearSVC-dual"]().fit(
        X, y, sample_weight=np.r_[np.ones(100), np.zeros(12)]
    )
    np.testing.assert_array_equal(alone.coef_, padded.coef_)
    np.testing.assert_array_equal(alone.intercept_, padded.intercept_)


def test_a_padded_ridge_is_its_rows_alone_and_compiles_nothing_for_a_new_size():
    X, y = load_iris(return_X_y=True)
    jsk.Ridge().fit(X[:100], y[:100])  # bucket 112
    with count_compilations() as compiled:
        ridge = jsk.Ridge().fit(X[:107], y[:107])
    assert compiled[0] == 0
    theirs = sklearn.linear_model.Ridge().fit(X[:107], y[:107])
    np.testing.assert_allclose(ridge.coef_, theirs.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ridge.intercept_, theirs.intercept_, rtol=1e-4, atol=1e-5)


def test_predictions_do_not_depend_on_the_bucket():
    X, y = load_iris(return_X_y=True)
    model = jsk.LogisticRegression().fit(X, y)
    whole = model.predict_proba(X)
    for n in (1, 7, 9, 33, 149):
        np.testing.assert_allclose(model.predict_proba(X[:n]), whole[:n], rtol=1e-6, atol=1e-7)
    assert jnp.asarray(model.decision_function(X[:5])).shape == (5, 3)


def _digits(rows):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X[:rows].astype(np.float32), y[:rows].astype(np.int32)


def test_padding_changes_no_bit_of_a_tree_or_a_forest():
    from jaxlearn.trees import _forest, _tree
    from jaxlearn.trees._bins import fit_bins, pad_sample

    X, y = _digits(300)
    options = dict(max_depth=6, num_classes=10, criterion="gini", min_samples_leaf=1)
    bins, edges = fit_bins(X, None)
    alone = _tree._fit_binned(bins, edges, y, np.int32(300), **options)
    padded = _tree._fit_binned(*pad_sample(bins, edges, y), **options)
    jax.tree.map(np.testing.assert_array_equal, alone, padded)
    options.update(
        num_trees=8, parts=1, max_bins=64, min_samples_split=2, max_features=8, bootstrap=True
    )
    bins, edges = fit_bins(X, 64)
    n = np.int32(300)  # the rows, and the draws of each bootstrap sample
    alone = _forest._fit(jax.random.key(0), X, y, (bins, edges), n, n, 0, **options)
    bins, edges, labels, count = pad_sample(bins, edges, y)
    rows = np.zeros((bins.shape[0], X.shape[1]), np.float32)
    padded = _forest._fit(jax.random.key(0), rows, labels, (bins, edges), count, n, 0, **options)

    # the same bootstrap draws of the real rows: the same splits and counts; the importances are sums
    # over the rows, rounded differently for another number of rows
    def splits(forest):
        return forest.trees._replace(feature_importances=None)

    jax.tree.map(np.testing.assert_array_equal, splits(alone), splits(padded))
    np.testing.assert_allclose(
        alone.trees.feature_importances, padded.trees.feature_importances, rtol=1e-5, atol=1e-7
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: jsk.DecisionTreeClassifier(max_depth=4),
        lambda: jsk.DecisionTreeClassifier(),  # unlimited depth: still one program per bucket
        lambda: jsk.RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0),
        lambda: jsk.RandomForestClassifier(n_estimators=4, random_state=0),
        lambda: jsk.KNeighborsClassifier(),
    ],
    ids=["tree", "tree-unlimited", "forest", "forest-unlimited", "knn"],
)
def test_trees_and_neighbours_compile_nothing_for_a_new_size_in_the_bucket(make):
    X, y = _digits(400)
    make().fit(X[:300], y[:300]).predict_proba(X[300:])  # buckets 320 and 112
    with count_compilations() as compiled:
        make().fit(X[:310], y[:310]).predict_proba(X[290:])
    assert compiled[0] == 0


def test_svc_compiles_nothing_for_a_new_size_in_the_bucket():
    # two classes: one pair of all the rows (with more classes each pair's rows have their own bucket)
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    jsk.SVC().fit(X[:400], y[:400]).decision_function(X[400:])  # buckets 448 and 192
    with count_compilations() as compiled:
        model = jsk.SVC(C=3.0).fit(X[:420], y[:420])
        model.decision_function(X[390:])
        model.predict(X[395:])
    assert compiled[0] == 0


def test_mlp_padding_changes_no_bit_and_a_new_size_compiles_nothing():
    """Trailing rows of weight 0 join no batch: the MLP fit of a padded sample is the fit of its
    rows, bit for bit; MLPClassifier pads to the size bucket, so a new size in it compiles nothing."""
    from sklearn.datasets import load_digits

    from jaxlearn import nn

    X, y = load_digits(return_X_y=True)
    X = (X / 16).astype(np.float32)
    key, layers = jax.random.PRNGKey(0), nn.glorot_init(jax.random.PRNGKey(1), [64, 16, 10])

    def alone_and_padded(n, size, batch_alone, batch_padded):
        alone = nn.mlp_fit(key, layers, X[:n], y[:n], batch_size=batch_alone, max_epochs=6)
        padded = nn.mlp_fit(
            key,
            layers,
            pad_rows(X[:n], size),
            pad_rows(y[:n], size),
            sample_weight=pad_rows(np.ones(n), size),
            batch_size=batch_padded,
            max_epochs=6,
        )
        return zip(jax.tree.leaves(alone), jax.tree.leaves(padded))

    for a, b in alone_and_padded(410, 448, 100, 100):
        np.testing.assert_array_equal(a, b)
    # below scikit-learn's 200 rows a batch is the whole sample: the padded sample's one batch holds
    # the same rows in the same order (and zeros), summed in another order
    for a, b in alone_and_padded(107, 112, 107, 112):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = jsk.MLPClassifier(hidden_layer_sizes=(16,), max_iter=3, random_state=0)
        first.fit(X[:400], y[:400]).predict(X[:400])  # sizes 400 and 410: bucket 448
    with count_compilations() as compiled, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter=3: a ConvergenceWarning
        model = jsk.MLPClassifier(hidden_layer_sizes=(16,), max_iter=3, random_state=0)
        model.fit(X[:410], y[:410]).predict(X[:410])
    assert compiled[0] == 0


@pytest.mark.parametrize(
    "name",
    [
        "KNeighborsRegressor",
        "KernelRidge",
        "KernelPerceptron",  # the online estimators' epochs padded with rounds that change nothing
        "MarginPerceptron",
        "OnlineGradientDescentClassifier",
        "Winnow",
        "MLPClassifier",  # below 200 rows, one batch of the padded sample
        "HardMarginSVC",  # examples of weight 0 take no part in the hard margin
        "MulticlassSVC",  # examples of weight 0 never drawn, max_iter * n of the padded steps run
    ],
)
def test_the_other_estimators_compile_nothing_for_a_new_size_in_the_bucket(name):
    make = getattr(jsk, name)
    try:
        make().fit(np.ones((4, 2)), [0, 1, 2, 0])
        X, y = load_iris(return_X_y=True)
        X, sizes = StandardScaler().fit_transform(X), (100, 107)  # buckets 112 and 112
    except ValueError:  # two classes only
        X, y = load_breast_cancer(return_X_y=True)
        X, sizes = StandardScaler().fit_transform(X), (400, 420)  # buckets 448 and 448
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order].astype(float if "Regressor" in name or "Ridge" in name else int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence
        make().fit(X[: sizes[0]], y[: sizes[0]]).predict(X[sizes[0] :])
        with count_compilations() as compiled:
            make().fit(X[: sizes[1]], y[: sizes[1]]).predict(X[sizes[0] - 3 :])
    assert compiled[0] == 0
