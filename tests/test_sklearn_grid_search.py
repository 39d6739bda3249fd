"""jaxlearn.sklearn.GridSearchCV: scikit-learn's search, with a jaxlearn grid x folds as one program."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import model_selection
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import jaxlearn.sklearn as jsk
from tests.harness import count_compilations


@pytest.mark.parametrize("data", ["iris", "breast_cancer"])
def test_one_program_gives_scikit_learns_results(data):
    make = jsk.LogisticRegression
    X, y = (load_iris if data == "iris" else load_breast_cancer)(return_X_y=True)
    pipeline = make_pipeline(StandardScaler(), make())
    name = pipeline.steps[-1][0]
    grid = {f"{name}__C": [0.01, 0.1, 1.0, 10.0]}
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    ours = jsk.GridSearchCV(pipeline, grid, cv=cv, return_train_score=True).fit(X, y)
    theirs = model_selection.GridSearchCV(pipeline, grid, cv=cv, return_train_score=True).fit(X, y)
    assert ours.search_path_ == "one program"
    assert set(ours.cv_results_) == set(theirs.cv_results_)
    for key in theirs.cv_results_:
        if "score" in key and "time" not in key:
            np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=0.011)
    assert ours.cv_results_["params"] == theirs.cv_results_["params"]
    assert list(ours.cv_results_[f"param_{name}__C"]) == grid[f"{name}__C"]
    assert ours.n_splits_ == 4 and ours.best_index_ == int(
        np.argmin(ours.cv_results_["rank_test_score"])
    )
    np.testing.assert_array_equal(ours.predict(X), ours.best_estimator_.predict(X))
    assert ours.score(X, y) == pytest.approx(ours.best_estimator_.score(X, y))


def test_a_new_grid_compiles_nothing():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    jsk.GridSearchCV(jsk.LogisticRegression(), {"C": [0.1, 1.0, 3.0]}, cv=3, refit=False).fit(X, y)
    with count_compilations() as compiled:
        search = jsk.GridSearchCV(
            jsk.LogisticRegression(), {"C": [0.2, 2.0, 5.0]}, cv=3, refit=False
        )
        search.fit(X, y)
    assert compiled[0] == 0 and not hasattr(search, "best_estimator_")


@pytest.mark.parametrize(
    "estimator, grid, kwargs",
    [
        (jsk.LogisticRegression(), {"C": [0.1, 1.0]}, {"scoring": "f1_macro"}),
        (jsk.LogisticRegression(), {"tol": [1e-3, 1e-4]}, {}),
        (jsk.LinearSVC(random_state=0), {"C": [0.1, 1.0]}, {}),
        (jsk.KNeighborsClassifier(), {"n_neighbors": [1, 3]}, {}),
    ],
    ids=["scorer", "tol", "linear-svc", "knn"],
)
def test_anything_else_is_scikit_learns_own_search(estimator, grid, kwargs):
    X, y = load_iris(return_X_y=True)
    ours = jsk.GridSearchCV(estimator, grid, cv=3, **kwargs).fit(X, y)
    theirs = model_selection.GridSearchCV(estimator, grid, cv=3, **kwargs).fit(X, y)
    assert ours.search_path_ == "scikit-learn"
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )


def test_bad_input_is_refused_as_scikit_learn_refuses_it():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        jsk.GridSearchCV(jsk.LogisticRegression(), {"C": [1.0]}, cv=3).fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        jsk.GridSearchCV(jsk.LogisticRegression(), {"C": [1.0]}, cv=3).fit(X[:, 2:], y + 0.5)


def test_folds_that_leave_rows_out_score_only_their_test_rows():
    from sklearn.model_selection import ShuffleSplit

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    cv = ShuffleSplit(3, train_size=0.5, test_size=0.2, random_state=0)
    ours = jsk.GridSearchCV(jsk.LogisticRegression(), {"C": [0.1, 1.0]}, cv=cv).fit(X, y)
    theirs = model_selection.GridSearchCV(jsk.LogisticRegression(), {"C": [0.1, 1.0]}, cv=cv)
    theirs.fit(X, y)
    assert ours.search_path_ == "one program"
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], atol=0.011
    )


@pytest.mark.parametrize("scaled", [False, True])
def test_cross_validate_is_scikit_learns_in_one_program(scaled, monkeypatch, optimised):
    X, y = load_breast_cancer(return_X_y=True)
    estimator = jsk.LogisticRegression(C=0.5, max_iter=5000)
    if scaled:
        estimator = make_pipeline(StandardScaler(), estimator)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    theirs = model_selection.cross_validate(estimator, X, y, cv=cv, return_train_score=True)
    swept = []
    original = jsk.LogisticRegression._sweep
    monkeypatch.setattr(
        jsk.LogisticRegression,
        "_sweep",
        lambda self, *a: swept.append(a[3]) or original(self, *a),
    )
    ours = jsk.cross_validate(estimator, X, y, cv=cv, return_train_score=True)
    assert len(swept) == 1 and swept[0]["C"].tolist() == [0.5]  # the four folds in one program
    assert sorted(ours) == sorted(theirs)
    np.testing.assert_allclose(ours["test_score"], theirs["test_score"], atol=0.011)
    np.testing.assert_allclose(ours["train_score"], theirs["train_score"], atol=0.011)
    np.testing.assert_array_equal(jsk.cross_val_score(estimator, X, y, cv=cv), ours["test_score"])


def test_cross_validate_of_anything_else_is_scikit_learns_own():
    X, y = load_iris(return_X_y=True)
    for estimator, kwargs in [
        (jsk.KNeighborsClassifier(), {}),
        (jsk.LogisticRegression(), {"scoring": "f1_macro"}),
    ]:
        ours = jsk.cross_validate(estimator, X, y, cv=3, **kwargs)
        theirs = model_selection.cross_validate(estimator, X, y, cv=3, **kwargs)
        np.testing.assert_array_equal(ours["test_score"], theirs["test_score"])


@pytest.mark.parametrize(
    "make, grid, options",
    [
        (jsk.SGDClassifier, {"alpha": np.logspace(-4, 0, 8).tolist()}, {}),
        (
            jsk.SGDClassifier,
            {"alpha": [1e-4, 1e-2], "l1_ratio": [0.2, 0.8]},
            {"penalty": "elasticnet", "early_stopping": True, "average": 3},
        ),
        (jsk.Perceptron, {"alpha": [1e-4, 1e-3], "eta0": [0.1, 1.0]}, {"penalty": "l2"}),
    ],
    ids=["sgd-alpha", "sgd-elasticnet-early-stopping", "perceptron"],
)
@pytest.mark.parametrize("data", ["iris", "breast_cancer"])
def test_sgd_grids_of_32_fits_or_more_are_one_program_with_the_loops_scores(
    make, grid, options, data
):
    X, y = (load_iris if data == "iris" else load_breast_cancer)(return_X_y=True)
    pipeline = make_pipeline(StandardScaler(), make(random_state=3, **options))
    name = pipeline.steps[-1][0]
    grid = {f"{name}__{key}": values for key, values in grid.items()}
    cv = StratifiedKFold(8, shuffle=True, random_state=0)  # >= 32 fits
    ours = jsk.GridSearchCV(pipeline, grid, cv=cv, return_train_score=True).fit(X, y)
    theirs = model_selection.GridSearchCV(pipeline, grid, cv=cv, return_train_score=True)
    theirs.fit(X, y)  # scikit-learn's loop over the same estimator: a fit per candidate and fold
    assert ours.search_path_ == "one program"
    for key in theirs.cv_results_:
        if "score" in key and "time" not in key and "rank" not in key:
            np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=1e-12)
    assert ours.best_params_ == theirs.best_params_


def test_sgd_grids_that_one_program_cannot_run_are_scikit_learns_loop():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    many = {"alpha": np.logspace(-4, 0, 8).tolist()}
    cases = [
        (jsk.SGDClassifier(random_state=0), {"alpha": [1e-4, 1e-3]}, 5),  # 10 fits: the loop
        (jsk.SGDClassifier(random_state=np.random.RandomState(0)), many, 5),  # draws per fit
        (jsk.SGDClassifier(random_state=0), {"alpha": [0.0, *many["alpha"]]}, 5),  # refused
    ]
    for estimator, grid, cv in cases:
        search = jsk.GridSearchCV(estimator, grid, cv=cv, error_score=np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search.fit(X, y)
        assert search.search_path_ == "scikit-learn"
    # a fold whose training rows lack a class: scikit-learn's loop fits it on the classes it has
    order = np.argsort(y, kind="stable")
    folds = [(order[50:], order[:50])] + [(order[:100], order[100:])] * 31
    search = jsk.GridSearchCV(jsk.SGDClassifier(random_state=0), {"alpha": [1e-3]}, cv=folds)
    assert search.fit(X, y).search_path_ == "scikit-learn"


def test_the_folds_and_the_refit_run_one_fit_program():
    import jax
    from sklearn.datasets import load_digits

    from jaxlearn.sklearn._linear import _fit_pairs, _svc_decisions

    X, y = load_digits(return_X_y=True)
    X, y = X[:500], (y[:500] >= 5).astype(int)  # folds of 333 rows (bucket 384), refit 500 (512)
    grid = {"C": [0.1, 10.0], "gamma": [0.001, 0.01]}
    jax.clear_caches()
    ours = jsk.GridSearchCV(jsk.SVC(), grid, cv=3).fit(X, y)
    assert ours.search_path_ == "scikit-learn" and _fit_pairs._cache_size() == 1
    # the candidates keep from about 190 to 500 support vectors: padded to the sample's bucket,
    # their scores run one program
    assert len({model.support_.size for model in _refits(grid, X, y)}) > 1
    assert _svc_decisions._cache_size() == 1
    jax.clear_caches()
    theirs = model_selection.GridSearchCV(jsk.SVC(), grid, cv=3).fit(X, y)
    assert _fit_pairs._cache_size() == 2  # scikit-learn's loop: the folds' bucket, then the refit's
    for fold in range(3):
        key = f"split{fold}_test_score"
        np.testing.assert_array_equal(ours.cv_results_[key], theirs.cv_results_[key])
    assert ours.best_params_ == theirs.best_params_


def _refits(grid, X, y):
    return [jsk.SVC(**params).fit(X, y) for params in model_selection.ParameterGrid(grid)]


@pytest.mark.parametrize(
    "make",
    [
        lambda: jsk.LinearSVC(),
        lambda: jsk.SGDClassifier(early_stopping=True, random_state=0),
        lambda: jsk.KNeighborsClassifier(),
        lambda: jsk.DecisionTreeClassifier(random_state=0),
        lambda: jsk.RandomForestClassifier(n_estimators=5, oob_score=True, random_state=0),
        lambda: jsk.MLPClassifier(max_iter=20, early_stopping=True, random_state=0),
    ],
    ids=["linear-svc", "sgd-early-stopping", "knn", "tree", "forest-oob", "mlp-early-stopping"],
)
def test_a_fit_padded_as_the_whole_sample_is_the_same_fit(make):
    from jaxlearn._buckets import bucket, fit_bucket, parts_of

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    part = np.random.default_rng(0).permutation(150)[:90]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the MLP's ConvergenceWarning
        with parts_of(150):
            assert (fit_bucket(90), bucket(90)) == (160, 96)
            padded = make().fit(X[part], y[part])
        alone = make().fit(X[part], y[part])
    score = "decision_function" if hasattr(alone, "decision_function") else "predict_proba"
    np.testing.assert_array_equal(getattr(padded, score)(X), getattr(alone, score)(X))
    if hasattr(alone, "oob_score_"):
        assert padded.oob_score_ == alone.oob_score_
