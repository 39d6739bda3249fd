"""Model selection (issue 14, section 2): splits, cross-validation, and the grid x folds as one program.

Every grid-search result is checked against a hand loop of single fits on the folds the key gives
(``fold_key, fit_key = split(key)``, ``kfold(fold_key, n, folds)``, fit keys ``split(fit_key, folds)``).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.metrics import mean_squared_error, r2_score

from jaxlearn import datasets, kernels, linear, neighbors, selection
from tests.harness import COMPILE_EVENT

KEY = jax.random.key(0)
X, Y, _ = datasets.noisy_halfspace(jax.random.key(1), 90, 3, 0.1)
LAMS = jnp.array([0.001, 0.1, 1.0])
STEPS = 60


def soft_svm(lam):
    return linear.soft_svm(lam, STEPS)


def hand_scores(make, points, X, y, key, folds, score):
    """scores[p, f] by single fits, one at a time, on the folds and keys grid_search documents."""
    fold_key, fit_key = jax.random.split(key)
    split = selection.kfold(fold_key, X.shape[0], folds)
    keys = jax.random.split(fit_key, folds)
    scores = np.zeros((len(points), folds))
    for p, point in enumerate(points):
        learner = make(**point)
        for f in range(folds):
            tr, te = split.train[f], split.test[f]
            params = learner.fit(keys[f], X[tr], y[tr])
            scores[p, f] = score(np.asarray(y[te]), np.asarray(learner.predict(params, X[te])))
    return scores


def accuracy(y_true, y_pred):
    return np.mean(y_true == y_pred)


class Compilations:
    """Names of the programs XLA compiles inside the block (``jax.monitoring``'s compile event)."""

    def __enter__(self):
        self.names = []
        jax.monitoring.register_event_duration_secs_listener(self.listen)
        return self

    def listen(self, event, secs, **kwargs):
        if event == COMPILE_EVENT:
            self.names.append(kwargs.get("fun_name"))

    def __exit__(self, *exc):
        jax.monitoring.unregister_event_duration_listener(self.listen)


# --- splits ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", [KEY, None])
def test_kfold_partitions(key):
    n, k = 23, 4  # 3 examples over: in every training set, in no test fold
    folds = selection.kfold(key, n, k)
    assert folds.test.shape == (k, n // k) and folds.train.shape == (k, n - n // k)
    assert folds.test.dtype == jnp.int32 and folds.train.dtype == jnp.int32
    test, train = np.asarray(folds.test), np.asarray(folds.train)
    assert len(set(test.ravel())) == k * (n // k)  # test folds pairwise disjoint
    for f in range(k):
        assert not set(train[f]) & set(test[f])  # disjoint
        assert sorted(set(train[f]) | set(test[f])) == list(range(n))  # cover, no repeats
        assert len(set(train[f])) == n - n // k
    remainder = set(range(n)) - set(test.ravel())
    assert len(remainder) == n % k and all(remainder <= set(row) for row in train)
    if key is None:
        np.testing.assert_array_equal(test, np.arange(20).reshape(4, 5))
    else:
        assert not np.array_equal(test, np.asarray(selection.kfold(jax.random.key(5), n, k).test))


def test_train_test_split_shapes_and_disjointness():
    X, y = jnp.arange(30.0).reshape(10, 3), jnp.arange(10.0)
    X_train, X_test, y_train, y_test = selection.train_test_split(KEY, X, y, 0.25)
    assert X_train.shape == (7, 3) and X_test.shape == (3, 3) and y_train.shape == (7,)
    np.testing.assert_array_equal(X_train[:, 0] / 3, y_train)  # rows stay with their labels
    np.testing.assert_array_equal(X_test[:, 0] / 3, y_test)
    assert sorted(np.concatenate([y_train, y_test]).tolist()) == list(range(10))
    assert y_test.tolist() != [7.0, 8.0, 9.0]  # shuffled
    assert selection.train_test_split(None, X, y, 0.25)[3].tolist() == [7.0, 8.0, 9.0]


# --- grid search -----------------------------------------------------------------------------------


def test_grid_search_equals_hand_loop_and_refits_the_best():
    result = selection.grid_search(soft_svm, {"lam": LAMS}, X, Y, key=KEY, folds=3)
    want = hand_scores(soft_svm, [{"lam": lam} for lam in LAMS.tolist()], X, Y, KEY, 3, accuracy)
    assert result.scores.shape == (3, 3)
    np.testing.assert_allclose(result.scores, want, atol=1e-6)
    np.testing.assert_allclose(result.mean_score, want.mean(axis=1), atol=1e-6)
    assert result.best_index == int(np.argmax(want.mean(axis=1)))
    assert result.best_params == {"lam": LAMS.tolist()[result.best_index]}
    assert isinstance(result.best_params["lam"], float)
    assert repr(result.best_learner) == repr(soft_svm(result.best_params["lam"]))
    refit = result.best_learner.fit(jax.random.split(KEY)[1], X, Y)
    np.testing.assert_array_equal(result.params.w, refit.w)
    np.testing.assert_allclose(result.points["lam"], LAMS)
    cv = selection.cross_validate(
        soft_svm(LAMS[1]), X, Y, key=KEY, folds=3
    )  # row 1, the same folds
    np.testing.assert_allclose(cv, want[1], atol=1e-6)
    assert (
        selection.grid_search(soft_svm, {"lam": LAMS}, X, Y, key=KEY, folds=3, refit=False).params
        is None
    )


def test_grid_search_is_one_program_and_a_new_grid_compiles_nothing():
    X7, y7 = X[:87], Y[:87]  # shapes no other test uses: the first call compiles
    with Compilations() as first:
        selection.grid_search(
            soft_svm, {"lam": np.asarray(LAMS)}, X7, y7, key=KEY, folds=3, refit=False
        )
    assert first.names.count("jit(_grid_program)") == 1, (
        first.names
    )  # every (point, fold) fit: one program
    lams = np.array([0.01, 0.5, 2.0], np.float32)
    with Compilations() as second:  # new values, a new `make` closure: nothing new
        result = selection.grid_search(
            lambda lam: linear.soft_svm(lam, STEPS),
            {"lam": lams},
            X7,
            y7,
            key=KEY,
            folds=3,
            refit=False,
        )
    assert second.names == []
    assert result.points["lam"].tolist() == lams.tolist()


def test_static_options_loop_over_programs():
    def make(lam, steps):
        return linear.soft_svm(lam, steps, fit_intercept=True)

    static = {"steps": [20, STEPS]}
    result = selection.grid_search(make, {"lam": LAMS[:2]}, X, Y, key=KEY, folds=3, static=static)
    assert result.scores.shape == (4, 3)
    assert result.points["steps"].tolist() == [20, 20, STEPS, STEPS]
    points = [{"lam": lam, "steps": s} for s in (20, STEPS) for lam in LAMS[:2].tolist()]
    np.testing.assert_allclose(
        result.scores, hand_scores(make, points, X, Y, KEY, 3, accuracy), atol=1e-6
    )
    assert set(result.best_params) == {"lam", "steps"} and isinstance(
        result.best_params["steps"], int
    )


def test_product_grid_in_chunks():
    def make(sigma, lam):
        return linear.kernel_ridge(kernels.gaussian(sigma), lam)

    grid = {"sigma": jnp.array([0.5, 2.0]), "lam": jnp.array([0.01, 0.1, 1.0])}
    result = selection.grid_search(make, grid, X, Y, key=KEY, folds=2, scoring="r2", batch_size=4)
    assert result.points["sigma"].tolist() == [0.5] * 3 + [2.0] * 3  # the last name varies fastest
    np.testing.assert_allclose(result.points["lam"], jnp.tile(grid["lam"], 2))
    points = [{"sigma": s, "lam": lam} for s in (0.5, 2.0) for lam in grid["lam"].tolist()]
    np.testing.assert_allclose(
        result.scores, hand_scores(make, points, X, Y, KEY, 2, r2_score), rtol=1e-4
    )


@pytest.mark.parametrize("batch_size", [None, 2])
def test_folds_side_by_side_score_as_the_folds_in_turn(monkeypatch, batch_size):
    """On an accelerator the folds are vmapped (one loop over an online learner's steps for every
    fit); on a CPU they run in turn. Both programs, forced here on the CPU, give the hand loop's
    scores."""
    points = [{"lam": lam} for lam in LAMS.tolist()]
    want = hand_scores(soft_svm, points, X, Y, KEY, 3, accuracy)
    for together in (True, False):
        monkeypatch.setattr(selection, "_folds_together", lambda together=together: together)
        jax.clear_caches()  # the choice is made when the program is traced
        result = selection.grid_search(
            soft_svm, {"lam": LAMS}, X, Y, key=KEY, folds=3, refit=False, batch_size=batch_size
        )
        np.testing.assert_allclose(result.scores, want, atol=1e-6)


def test_regression_scoring_and_callable():
    w = jnp.array([1.0, -2.0, 0.5])
    y = X @ w + 0.3 * jax.random.normal(jax.random.key(2), (X.shape[0],))
    lams = jnp.array([0.1, 10.0, 100.0])
    points = [{"lam": lam} for lam in lams.tolist()]
    for scoring, reference in (
        ("r2", r2_score),
        ("neg_mean_squared_error", lambda a, b: -mean_squared_error(a, b)),
        (lambda a, b: -jnp.mean(jnp.abs(a - b)), lambda a, b: -np.mean(np.abs(a - b))),
    ):
        result = selection.grid_search(
            linear.ridge, {"lam": lams}, X, y, key=KEY, folds=3, scoring=scoring
        )
        want = hand_scores(linear.ridge, points, X, y, KEY, 3, reference)
        np.testing.assert_allclose(result.scores, want, rtol=1e-4, atol=1e-5)
    assert result.best_params == {"lam": 0.1}  # a little ridge fits a linear target best


def test_static_only_search_on_multiclass_labels():
    yc = (X[:, 0] > 0).astype(jnp.int32) + (X[:, 1] > 0).astype(jnp.int32)  # labels 0, 1, 2

    def make(k):
        return neighbors.knn(k, num_classes=3)

    result = selection.grid_search(make, {}, X, yc, key=KEY, folds=3, static={"k": [1, 5]})
    want = hand_scores(make, [{"k": 1}, {"k": 5}], X, yc, KEY, 3, accuracy)
    np.testing.assert_allclose(result.scores, want, atol=1e-6)
    assert result.best_params == {"k": [1, 5][int(np.argmax(want.mean(axis=1)))]}
    np.testing.assert_array_equal(result.params.X, X)  # refit on all data


# --- errors ----------------------------------------------------------------------------------------


def search(make=soft_svm, grid=None, X=X, y=Y, **options):
    """``grid_search`` with this file's defaults, some replaced."""
    options.setdefault("key", KEY)
    return selection.grid_search(make, {"lam": LAMS} if grid is None else grid, X, y, **options)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: search(grid={}), ValueError, "`grid`"),
        (lambda: search(grid={"lam": jnp.ones((2, 2))}), ValueError, "`grid"),
        (lambda: search(grid={"lam": jnp.ones(0)}), ValueError, "`grid"),
        (lambda: search(grid={"eta": LAMS}), ValueError, "`grid`"),
        (
            lambda: search(grid={"lam": jnp.array([0.1, -1.0])}),
            ValueError,
            "`lam`",
        ),  # checked at every point
        (
            lambda: search(lambda steps: linear.soft_svm(0.1, steps), {"steps": jnp.array([1, 2])}),
            ValueError,
            "`static=`",
        ),
        (lambda: search(static={"lam": [0.1]}), ValueError, "`static`"),
        (lambda: search(static={"steps": []}), ValueError, "`static`"),
        (lambda: search(folds=1), ValueError, "`folds`"),
        (lambda: search(folds=91), ValueError, "`folds`"),
        (lambda: search(scoring="f1"), ValueError, "`scoring`"),
        (lambda: search(batch_size=0), ValueError, "`batch_size`"),
        (lambda: search(y=Y[:-1]), ValueError, "`X`"),
        (lambda: search(y=2 * Y), ValueError, "`y`"),
        (lambda: search(key=0), TypeError, "`key`"),
        (lambda: search(lambda lam: lam), TypeError, "`make"),
        (lambda: selection.cross_validate(soft_svm, X, Y, key=KEY), TypeError, "`learner`"),
        (lambda: selection.kfold(KEY, 5, 6), ValueError, "`folds`"),
        (lambda: selection.kfold(KEY, 5, 2.5), TypeError, "`folds`"),
        (lambda: selection.train_test_split(KEY, X, Y, 1.0), ValueError, "`test_size`"),
        (lambda: selection.train_test_split(KEY, X, Y, 0.0), ValueError, "`test_size`"),
        (lambda: selection.train_test_split(KEY, X, Y[:5], 0.5), ValueError, "`X`"),
    ],
)
def test_errors_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
