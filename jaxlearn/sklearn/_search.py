"""scikit-learn's ``GridSearchCV``, ``cross_validate`` and ``cross_val_score``, with the grid and the
folds of a jaxlearn estimator as one program.

Where the estimator (or the last step of a ``Pipeline``) can sweep every searched parameter
(``C`` of :class:`LogisticRegression`, ``alpha`` of :class:`SGDClassifier`, ...), every candidate
on every fold is fitted in one ``jax.vmap``:
the folds are row weights (the rows outside a fold's training set weigh 0) and the candidates are
the learner's traced leaves. The preprocessing steps of a pipeline are fitted per fold with
scikit-learn, as ``GridSearchCV`` fits them. Anything else is scikit-learn's own search, unchanged.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.stats import rankdata
from sklearn import model_selection
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import check_array, column_or_1d
from sklearn.utils.multiclass import check_classification_targets

from jaxlearn._buckets import parts_of

__all__ = ["GridSearchCV", "cross_val_score", "cross_validate"]


class GridSearchCV(model_selection.GridSearchCV):
    """scikit-learn's :class:`~sklearn.model_selection.GridSearchCV` (same arguments, same
    ``cv_results_``, ``best_params_``, ``best_score_``, ``best_estimator_``), which fits a grid over a
    jaxlearn estimator's numeric hyperparameters and all the folds as one vmapped program.

    The one-program path is taken when the estimator, or the last step of a ``Pipeline``, can sweep
    every parameter of the grid (``C`` of :class:`LogisticRegression`; ``alpha``, ``l1_ratio``,
    ``eta0``, ``power_t``, ``epsilon`` of :class:`SGDClassifier` and :class:`Perceptron` in grids of
    32 fits or more), ``scoring`` is ``None`` or ``"accuracy"``, ``refit`` is a bool and ``fit`` gets
    no fit parameters; ``cv`` is anything scikit-learn takes. Otherwise the search is scikit-learn's
    own loop (on a CPU, a loop of the other solvers' fits beats their vmapped loops, which run until
    the slowest problem converges).
    ``search_path_`` says which ran (``"one program"`` or ``"scikit-learn"``).

    Example:
      >>> from sklearn.datasets import load_iris
      >>> from jaxlearn.sklearn import GridSearchCV, LogisticRegression
      >>> X, y = load_iris(return_X_y=True)
      >>> search = GridSearchCV(LogisticRegression(max_iter=500), {"C": [0.01, 1.0]}, cv=3).fit(X, y)
      >>> search.best_params_, search.search_path_
      ({'C': 1.0}, 'one program')
    """

    def fit(self, X, y=None, **params):
        """Run the search (see the class docstring for which path); returns ``self``."""
        plan = None
        if not params and self.scoring in (None, "accuracy") and isinstance(self.refit, bool):
            plan = _sweep_plan(self.estimator, self.param_grid, y)
        if plan is None or not self._fit_one_program(X, y, *plan):
            self.search_path_ = "scikit-learn"
            # the folds' fits pad their rows as the refit on every row does: one program for both
            with parts_of(X.shape[0] if hasattr(X, "shape") else len(X)):
                return super().fit(X, y, **params)
        self.search_path_ = "one program"
        return self

    def _fit_one_program(self, X, y, steps, estimator, prefix) -> bool:
        """The search as one program; ``False`` (nothing set) where the estimator declines it."""
        start = time.perf_counter()
        X, y = _checked(X, y)
        candidates = list(ParameterGrid(self.param_grid))
        G = len(candidates)
        scores = _fold_scores(
            X, y, self.cv, is_classifier(self.estimator), steps, estimator, prefix, candidates
        )
        if scores is None:
            return False
        test_scores, train_scores = scores
        F = test_scores.shape[1]
        fit_seconds = (time.perf_counter() - start) / (G * F)
        results = {
            "mean_fit_time": np.full(G, fit_seconds),
            "std_fit_time": np.zeros(G),
            "mean_score_time": np.zeros(G),
            "std_score_time": np.zeros(G),
        }
        for key in candidates[0]:
            column = np.ma.MaskedArray(np.empty(G, object), mask=False)
            column[:] = [c[key] for c in candidates]
            results[f"param_{key}"] = column
        results["params"] = candidates
        _add_scores(results, "test", test_scores)
        results["rank_test_score"] = rankdata(
            -np.round(results["mean_test_score"], 12), "min"
        ).astype(np.int32)
        if self.return_train_score:
            _add_scores(results, "train", train_scores)
        self.cv_results_ = results
        self.n_splits_ = F
        self.multimetric_ = False
        self.best_index_ = int(np.argmin(results["rank_test_score"]))
        self.best_score_ = float(results["mean_test_score"][self.best_index_])
        self.best_params_ = candidates[self.best_index_]
        self.scorer_ = check_scoring(self.estimator, scoring=self.scoring)
        if self.refit:
            began = time.perf_counter()
            self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_).fit(X, y)
            self.refit_time_ = time.perf_counter() - began
            if hasattr(self.best_estimator_, "feature_names_in_"):
                self.feature_names_in_ = self.best_estimator_.feature_names_in_
        return True


def cross_validate(
    estimator, X, y=None, *, cv=None, scoring=None, return_train_score=False, **options
):
    """scikit-learn's :func:`~sklearn.model_selection.cross_validate` (same arguments, same result),
    which fits all the folds of a jaxlearn estimator as one vmapped program where
    :class:`GridSearchCV` would (its one-candidate grid): ``scoring`` ``None`` or ``"accuracy"`` and
    no other options. Otherwise it is scikit-learn's own loop.

    Example:
      >>> from sklearn.datasets import load_iris
      >>> from jaxlearn.sklearn import LogisticRegression, cross_validate
      >>> X, y = load_iris(return_X_y=True)
      >>> sorted(cross_validate(LogisticRegression(max_iter=500), X, y, cv=3))
      ['fit_time', 'score_time', 'test_score']
    """
    plan = None
    if not options and scoring in (None, "accuracy"):
        plan = _sweep_plan(estimator, {}, y)
    scores = None
    if plan is not None and getattr(plan[1], "_sweepable", frozenset)():
        steps, final, prefix = plan
        start = time.perf_counter()
        name = sorted(final._sweepable())[0]
        candidate = {prefix + name: final.get_params()[name]}
        classifier = is_classifier(estimator)
        scores = _fold_scores(*_checked(X, y), cv, classifier, steps, final, prefix, [candidate])
    if scores is None:
        return model_selection.cross_validate(
            estimator,
            X,
            y,
            cv=cv,
            scoring=scoring,
            return_train_score=return_train_score,
            **options,
        )
    test, train = scores
    F = test.shape[1]
    result = {
        "fit_time": np.full(F, (time.perf_counter() - start) / F),
        "score_time": np.zeros(F),
        "test_score": test[0],
    }
    if return_train_score:
        result["train_score"] = train[0]
    return result


def cross_val_score(estimator, X, y=None, *, cv=None, scoring=None, **options):
    """scikit-learn's :func:`~sklearn.model_selection.cross_val_score`: the ``test_score`` of
    :func:`cross_validate` (one program for a jaxlearn estimator where it applies).

    Example:
      >>> from sklearn.datasets import load_iris
      >>> from jaxlearn.sklearn import LogisticRegression, cross_val_score
      >>> X, y = load_iris(return_X_y=True)
      >>> cross_val_score(LogisticRegression(max_iter=500), X, y, cv=3).shape
      (3,)
    """
    return cross_validate(estimator, X, y, cv=cv, scoring=scoring, **options)["test_score"]


def _sweep_plan(estimator, param_grid, y):
    """``(preprocessing steps, final estimator, step prefix)`` when every parameter of ``param_grid`` is
    one the final estimator (or a ``Pipeline``'s last step) can sweep in one program, else ``None``."""
    if y is None:
        return None
    steps, prefix = [], ""
    if isinstance(estimator, Pipeline):
        *steps, (name, estimator) = estimator.steps
        prefix = f"{name}__"
    sweepable = getattr(estimator, "_sweepable", lambda: frozenset())()
    for grid in param_grid if isinstance(param_grid, list) else [param_grid]:
        for key, values in grid.items():
            if not key.startswith(prefix) or key[len(prefix) :] not in sweepable:
                return None
            if not all(
                isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values
            ):
                return None
    return steps, estimator, prefix


def _checked(X, y):
    """``X`` finite numbers and ``y`` class labels, as the estimator's own fit requires."""
    X = check_array(X)
    y = column_or_1d(y)
    check_classification_targets(y)
    return X, y


def _fold_scores(X, y, cv, classifier, steps, estimator, prefix, candidates):
    """The accuracy of every candidate on every fold's test and training rows, each (G, F), from one
    vmapped fit of all of them (``estimator._sweep``); ``None`` where the estimator declines."""
    folds = list(check_cv(cv, y, classifier=classifier).split(X, y))
    n, F = len(y), len(folds)
    if not getattr(estimator, "_sweeps", lambda fits: True)(len(candidates) * F):
        return None
    train, test = np.zeros((F, n), bool), np.zeros((F, n), bool)
    for f, (rows, held_out) in enumerate(folds):
        train[f, rows], test[f, held_out] = True, True
    inputs = [_transformed(steps, X, y, rows) for rows, _ in folds]
    grid = {
        key[len(prefix) :]: np.array([c[key] for c in candidates], float) for key in candidates[0]
    }
    swept = estimator._sweep(np.stack(inputs), y, folds, grid)
    if swept is None:
        return None
    predicted, classes = swept  # (G, F, n)
    correct = classes[predicted] == y[None, None, :]
    return _accuracy(correct, test), _accuracy(correct, train)


def _transformed(steps, X, y, rows):
    """``X`` through the pipeline's preprocessing steps, fitted on a fold's training rows."""
    for _, step in steps:
        if step is None or step == "passthrough":
            continue
        X = clone(step).fit(X[rows], y[rows]).transform(X)
    return np.asarray(X)


def _accuracy(correct, rows):
    """The share of ``correct`` (G, F, n) over the ``rows`` (F, n) of each fold: (G, F)."""
    return np.sum(correct & rows[None], axis=2) / np.sum(rows, axis=1)[None]


def _add_scores(results, which, scores):
    for f in range(scores.shape[1]):
        results[f"split{f}_{which}_score"] = scores[:, f]
    results[f"mean_{which}_score"] = scores.mean(axis=1)
    results[f"std_{which}_score"] = scores.std(axis=1)
