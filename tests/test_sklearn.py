"""jaxlearn.sklearn (online and linear estimators): scikit-learn's own estimator checks, the ecosystem
(Pipeline, GridSearchCV, cross_val_score, clone), label sets, partial_fit, agreement with the learners."""

import jax
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import jaxlearn.sklearn as jsk
from jaxlearn import core, kernels, linear, online
from jaxlearn.sklearn._online import _linear_scores, epoch_order
from tests.harness import count_compilations

ONLINE = [
    jsk.MarginPerceptron,
    jsk.KernelPerceptron,
    jsk.Winnow,
    jsk.OnlineGradientDescentClassifier,
]
# Perceptron, SGDClassifier, NearestCentroid and SVC take any number of classes (scikit-learn's);
# they are here for scikit-learn's checks (its multiclass ones included), and in
# tests/test_sklearn_linear_models.py and tests/test_sklearn_svc.py for the rest.
BINARY = ONLINE + [
    jsk.Perceptron,
    jsk.SGDClassifier,
    jsk.LinearSVC,
    jsk.HardMarginSVC,
    jsk.SVC,
    jsk.RidgeClassifier,
    jsk.NearestCentroid,
]
REGRESSORS = [jsk.Ridge, jsk.KernelRidge]

# float32 scores: the invariance checks compare with rtol=1e-7, below float32's resolution (1.2e-7);
# XLA's vectorised kernel expansion can round a row 1 ulp differently with its position in the batch.
_ULP = "float32 kernel expansion: 1-ulp differences with the row's position; the check's rtol=1e-7 < eps"
_INVARIANCE = {
    "check_methods_sample_order_invariance": _ULP,
    "check_methods_subset_invariance": _ULP,
}
EXPECTED_FAILURES = {name: dict(_INVARIANCE) for name in ("KernelPerceptron", "SVC")}
# As scikit-learn's own SGDClassifier and Perceptron (its PER_ESTIMATOR_XFAIL_CHECKS): a weight scales a
# step, it does not repeat the row in the shuffled epochs. tests/test_sklearn_linear_models.py checks
# the weights in distribution instead.
_SGD_WEIGHTS = (
    "sample_weight scales an example's step; repeating it changes the epochs (as scikit-learn's)"
)
for _name in ("SGDClassifier", "Perceptron"):
    EXPECTED_FAILURES[_name] = {"check_sample_weight_equivalence_on_dense_data": _SGD_WEIGHTS}
# float32 weighted means: a weight of 2 and a repeated row round 1 ulp apart (the check's rtol=1e-7 < eps);
# tests/test_sklearn_linear_models.py checks the predictions are equal.
EXPECTED_FAILURES["NearestCentroid"] = {  # its centroids are explicit: no kernel expansion
    "check_sample_weight_equivalence_on_dense_data": "float32 weighted means: 1-ulp apart; rtol=1e-7 < eps",
}
# As scikit-learn's own Ridge and RidgeClassifier (its PER_ESTIMATOR_XFAIL_CHECKS): `max_iter` is read
# by iterative solvers only; the closed form has no n_iter_.
for _name in ("Ridge", "RidgeClassifier"):
    EXPECTED_FAILURES[_name] = {
        "check_non_transformer_estimators_n_iter": (
            "the closed form has no iterations (scikit-learn's own Ridge fails this check too)"
        )
    }
# As scikit-learn's own LinearSVC: the dual solver stops at tol=1e-4, so a weight of 2 and a repeated row
# reach the same optimum only to that tolerance (the check's rtol=1e-7). tests/linear/test_dual_cd.py
# checks the weights against liblinear in float64 at tol=1e-8.
EXPECTED_FAILURES["LinearSVC"] = {
    "check_sample_weight_equivalence_on_dense_data": "equal to the solver's tol only (as scikit-learn's)"
}
# As scikit-learn's own SVC (libsvm's SMO stops at tol=1e-3): a weight of 2 and a repeated row
# reach the same optimum only to that tolerance. tests/linear/test_kernel_dual_cd.py checks the
# weights against libsvm in float64 at tol=1e-9, and a weight 0 against the row removed.
EXPECTED_FAILURES["SVC"] = {
    **_INVARIANCE,
    "check_sample_weight_equivalence_on_dense_data": "equal to the solver's tol only (as scikit-learn's)",
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [cls() for cls in BINARY + REGRESSORS], expected_failed_checks=_expected_failed_checks
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def _binary_sample():
    """The binary problem of scikit-learn's ``check_classifiers_train`` (shapes compiled there)."""
    X, y = make_blobs(n_samples=300, random_state=0)
    X = StandardScaler().fit_transform(X)
    return X[y != 2], y[y != 2]


@pytest.mark.parametrize("cls", BINARY, ids=lambda c: c.__name__)
def test_label_sets_map_to_the_same_predictions(cls):
    X, y01 = _binary_sample()
    predictions = []
    for labels in (np.array([0, 1]), np.array([-1, 1]), np.array(["cat", "dog"])):
        est = cls().set_params(
            **({"random_state": 0} if "random_state" in cls().get_params() else {})
        )
        est.fit(X, labels[y01])
        np.testing.assert_array_equal(est.classes_, labels)
        pred = est.predict(X)
        assert set(np.unique(pred)) <= set(labels)
        predictions.append(np.searchsorted(labels, pred))
    np.testing.assert_array_equal(predictions[0], predictions[1])
    np.testing.assert_array_equal(predictions[0], predictions[2])
    if cls is not jsk.Winnow:
        assert np.mean(predictions[0] == y01) > 0.9
    # the fitted attributes are what jaxlearn.io saves: public names ending in "_", arrays, numbers or
    # jaxlearn NamedTuples, never a learner or a function
    for name, value in vars(est).items():
        if name.endswith("_") and not name.startswith("_"):
            leaves = jax.tree_util.tree_leaves(value)
            assert all(
                isinstance(v, (np.ndarray, jax.Array, int, float, bool, str)) for v in leaves
            ), name
            assert not callable(value), name


def test_one_class_and_more_classes_are_clear_errors():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match="at least 2 classes"):
        jsk.Perceptron().fit(X, np.ones(6))
    with pytest.raises(ValueError, match="OneVsRestClassifier"):
        jsk.HardMarginSVC().fit(X, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="classes"):
        jsk.Perceptron().partial_fit(X, np.arange(6) % 2)
    with pytest.raises(ValueError, match=r"`y` with values in classes_"):
        jsk.Perceptron().partial_fit(X, [0, 1, 2, 0, 1, 0], classes=[0, 1])
    with pytest.raises(ValueError, match="binarize"):
        jsk.Winnow(binarize=None).fit(X, np.arange(6) % 2)
    with pytest.raises(ValueError, match="`kernel`"):
        jsk.SVC(kernel="precomputed").fit(X, np.arange(6) % 2)
    with pytest.raises(ValueError, match="`loss`"):
        jsk.SGDClassifier(loss="squared").fit(X, np.arange(6) % 2)


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_partial_fit_over_chunks_equals_one_fit_pass(cls):
    X, y = _binary_sample()
    labels = np.array(["a", "b"])[y]
    whole = cls(max_iter=1, shuffle=False).fit(X, labels)
    chunked = cls().partial_fit(X[:100], labels[:100], classes=["a", "b"])
    chunked.partial_fit(X[100:], labels[100:])
    for a, b in zip(
        jax.tree_util.tree_leaves(whole.state_), jax.tree_util.tree_leaves(chunked.state_)
    ):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(whole.predict(X), chunked.predict(X))


def test_online_estimators_are_the_learners():
    X, y = _binary_sample()
    ys = (2 * y - 1).astype(np.float32)
    X32 = X.astype(np.float32)
    est = jsk.MarginPerceptron(gamma=0.2, max_iter=3, random_state=7).fit(X, y)
    order = epoch_order(7, X.shape[0], 3, True)
    learner = online.margin_perceptron(0.2, fit_intercept=True)
    state, _ = core.run(learner, learner.init(X32[0]), X32[order], ys[order])
    for a, b in zip(jax.tree_util.tree_leaves(est.state_), jax.tree_util.tree_leaves(state)):
        np.testing.assert_array_equal(a, b)
    expected = np.asarray(core.predict_batch(learner, state, X32))
    np.testing.assert_array_equal(est.predict(X), np.where(expected > 0, 1, 0))
    assert est.n_iter_ == 3


@pytest.mark.parametrize("cls", [jsk.MarginPerceptron, jsk.OnlineGradientDescentClassifier])
def test_linear_online_scores_are_the_learners_and_compile_nothing(cls):
    X, y = _binary_sample()
    est = cls(max_iter=2, random_state=0).fit(X, y)
    with count_compilations() as compiled:
        scores = [est.decision_function(X[:size]) for size in (1, 7, X.shape[0])]
        est.predict(X[:3])
    assert compiled[0] == 0
    want = np.asarray(_linear_scores(est.state_, X.astype(np.float32)))  # the compiled score
    assert scores[-1].dtype == np.float32
    np.testing.assert_allclose(scores[-1], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(scores[1], scores[-1][:7])


def test_binary_perceptron_is_the_online_perceptron():
    # scikit-learn's Perceptron (SGD, perceptron loss, constant step) on two classes: in order, without
    # the stopping rule, three epochs are the online Perceptron's rounds over the three passes
    X, y = _binary_sample()
    ys, X32 = (2 * y - 1).astype(np.float32), X.astype(np.float32)
    est = jsk.Perceptron(eta0=0.5, max_iter=3, shuffle=False, tol=None).fit(X, y)
    learner = online.perceptron(0.5, fit_intercept=True)
    order = np.tile(np.arange(X.shape[0]), 3)
    state, _ = core.run(learner, learner.init(X32[0]), X32[order], ys[order])
    np.testing.assert_allclose(est.coef_[0], state.w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(est.intercept_[0], state.b, rtol=1e-6, atol=1e-6)
    assert est.n_iter_ == 3 and est.t_ == 1 + 3 * X.shape[0]


def test_batch_estimators_are_the_learners():
    X, y = _binary_sample()
    X32, ys = X.astype(np.float32), (2 * y - 1).astype(np.float32)
    m = X.shape[0]
    est = jsk.LinearSVC(C=0.5, loss="hinge", random_state=3).fit(X, y)  # the exact dual solver
    key = jax.random.key(np.random.RandomState(3).randint(2**31 - 1))
    learner = linear.svm_dual_cd(0.5, loss="hinge", tol=1e-4, max_iter=1000, fit_intercept=True)
    params = learner.fit(key, X32, ys)
    # the same bits as a user compiles them; this suite compiles with most optimisations off, where
    # the estimator's program (its problems in `lax.map`, XLA's fusion emitters) rounds 1 ulp apart
    np.testing.assert_allclose(est.coef_[0], params.w, rtol=1e-5)
    np.testing.assert_allclose(est.intercept_[0], params.b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        est.decision_function(X), learner.decision_function(params, X32), rtol=1e-6, atol=1e-6
    )

    ridge = jsk.Ridge(alpha=2.0).fit(X, ys)  # the book's ridge on the centred rows
    centre = X32.mean(axis=0)
    w = linear.ridge(2.0).fit(None, X32 - centre, ys - ys.mean()).w
    np.testing.assert_allclose(ridge.coef_, w, rtol=1e-5)
    np.testing.assert_allclose(ridge.intercept_, ys.mean() - centre @ w, rtol=1e-5, atol=1e-6)

    kr = jsk.KernelRidge(alpha=0.3, kernel="rbf", gamma=0.5).fit(X, ys)
    kl = linear.kernel_ridge(kernels.gaussian(1.0), 0.3 / (2 * m))  # sigma = 1 / (2 gamma)
    # the estimator solves its rows padded to their size bucket (weight 0): float32 rounding apart
    np.testing.assert_allclose(
        kr.predict(X), kl.predict(kl.fit(None, X32, ys), X32), rtol=1e-5, atol=2e-5
    )


@pytest.mark.parametrize("cls", [jsk.Perceptron, jsk.SGDClassifier], ids=lambda c: c.__name__)
def test_random_state_reproducibility(cls):
    X, y = _binary_sample()
    a, b, c = (cls(random_state=s).fit(X, y) for s in (0, 0, 1))
    leaves = lambda est: jax.tree_util.tree_leaves(
        getattr(est, "state_", getattr(est, "params_", None))
    )  # noqa: E731
    for u, v in zip(leaves(a), leaves(b)):
        np.testing.assert_array_equal(u, v)
    assert not all(np.array_equal(u, v) for u, v in zip(leaves(a), leaves(c)))
    rng = np.random.RandomState(5)  # a RandomState is accepted too
    cls(random_state=rng).fit(X, y)


def test_pipeline_grid_search_cross_val_and_clone():
    X, y = _binary_sample()
    X = X * [3.0, 0.2] + [5.0, -1.0]  # scales a StandardScaler undoes
    pipe = make_pipeline(StandardScaler(), jsk.LinearSVC(random_state=0))
    search = GridSearchCV(pipe, {"linearsvc__C": [0.01, 1.0, 100.0]}, cv=4).fit(X, y)
    assert search.best_score_ > 0.9
    assert search.best_estimator_.score(X, y) > 0.9
    assert search.cv_results_["mean_test_score"].shape == (3,)

    scores = cross_val_score(
        make_pipeline(StandardScaler(), jsk.Perceptron(random_state=0)), X, y, cv=4
    )
    assert scores.shape == (4,) and scores.mean() > 0.9

    est = jsk.KernelPerceptron(kernel="poly", degree=2, budget=64, random_state=1).fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and not hasattr(twin, "state_")
    np.testing.assert_array_equal(twin.fit(X, y).predict(X), est.predict(X))


def test_every_estimator_is_exported_and_default_constructible():
    assert len(jsk.__all__) == len(set(jsk.__all__))
    # scikit-learn's model selection (a search of an estimator and a grid; functions) aside
    for name in set(jsk.__all__) - {"GridSearchCV", "cross_validate", "cross_val_score"}:
        est = getattr(jsk, name)()
        assert type(est).__name__ == name
        for value in est.get_params(deep=False).values():
            assert (
                value is None
                or isinstance(value, (bool, int, float, str, tuple, list))
                or hasattr(value, "get_params")
            )


def test_winnow_batch_fit_skips_rows_masked_by_all_pairs():
    # all_pairs's "mask" mode labels the examples of neither class 0: Winnow must not learn from them
    rng = np.random.RandomState(0)
    X = (rng.rand(40, 6) > 0.5).astype(np.float32)
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0).astype(np.float32)
    noise = (rng.rand(40, 6) > 0.5).astype(np.float32)
    mixed_X = np.concatenate([X, noise]).reshape(2, 40, 6).transpose(1, 0, 2).reshape(80, 6)
    mixed_y = np.stack([y, np.zeros(40, np.float32)], axis=1).reshape(80)
    learner = jsk.Winnow(binarize=None, shuffle=False)._batch_learner(X)
    key = jax.random.PRNGKey(0)
    with_masked = learner.fit(key, mixed_X, mixed_y)
    without = learner.fit(key, X, y)
    np.testing.assert_array_equal(with_masked.log_w, without.log_w)
