"""A few of scikit-learn's own tests that pass with our estimators, kept as regression tests.

The test functions are not copied here: ``tests/_sklearn_upstream.py`` reads their modules from the
installed scikit-learn wheel, rewrites only the imports of the shared estimators to
``jaxlearn.sklearn``'s, and runs the chosen node ids in one pytest subprocess, recording which of our
classes each test constructed or fitted. ``scripts/run_sklearn_upstream_tests.py`` runs every test
of the modules the same way (``benchmarks/sklearn-upstream-tests.md``). Each kept test must pass and
must have used the estimator named beside it.
"""

import subprocess

import pytest

pytest.importorskip("sklearn")

from tests import _sklearn_upstream as upstream  # noqa: E402

#: upstream node id -> the estimator of ours it must exercise
KEPT = {
    "linear_model/tests/test_perceptron.py::test_undefined_methods": "Perceptron",
    "linear_model/tests/test_perceptron.py::test_perceptron_accuracy[array]": "Perceptron",
    "linear_model/tests/test_perceptron.py::test_perceptron_correctness": "Perceptron",
    "linear_model/tests/test_sgd.py::test_sgd_dtype_match[float64-SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_sgd.py::test_clone[SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_sgd.py::test_sgd_at_least_two_labels[SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_sgd.py::test_warm_start[optimal-SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_sgd.py::test_set_coef_multiclass[SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_sgd.py::test_sgd_l1_ratio_not_used[0.7-SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_sgd.py::test_regression_losses[SGDClassifier]": "SGDClassifier",
    "linear_model/tests/test_logistic.py::test_nan": "LogisticRegression",
    "linear_model/tests/test_logistic.py::test_write_parameters": "LogisticRegression",
    "linear_model/tests/test_sgd.py::test_late_onset_averaging_reached[SGDClassifier]": (
        "SGDClassifier"
    ),
    "linear_model/tests/test_logistic.py::test_sample_weight_not_modified[balanced]": (
        "LogisticRegression"
    ),
    "svm/tests/test_svm.py::test_unfitted": "SVC",
    "svm/tests/test_svm.py::test_svc_bad_kernel": "SVC",
    "svm/tests/test_svm.py::test_consistent_decision_function[42]": "SVC",
    "svm/tests/test_svm.py::test_linearsvc_iris[42]": "LinearSVC",
    "neighbors/tests/test_neighbors.py::test_dtype_convert": "KNeighborsClassifier",
    "neighbors/tests/test_neighbors.py::test_neighbor_classifiers_loocv[brute-nn_model0]": (
        "KNeighborsClassifier"
    ),
    "neighbors/tests/test_neighbors.py::test_neighbor_regressors_loocv[brute-nn_model0]": (
        "KNeighborsRegressor"
    ),
    "neighbors/tests/test_nearest_centroid.py::test_pickle": "NearestCentroid",
    "tree/tests/test_tree.py::test_importances_raises": "DecisionTreeClassifier",
    "tree/tests/test_tree.py::test_big_input": "DecisionTreeClassifier",
    "ensemble/tests/test_forest.py::test_unfitted_feature_importances[RandomForestClassifier]": (
        "RandomForestClassifier"
    ),
    "ensemble/tests/test_forest.py::test_forest_classifier_oob[True-X0-y0-0.9-array-"
    "RandomForestClassifier]": "RandomForestClassifier",
    "ensemble/tests/test_forest.py::test_forest_oob_warning[RandomForestClassifier]": (
        "RandomForestClassifier"
    ),
    "neural_network/tests/test_mlp.py::test_partial_fit_classes_error": "MLPClassifier",
    "tests/test_multiclass.py::test_ovo_exceptions": "OneVsOneClassifier",
    "tests/test_multiclass.py::test_ovo_ties2": "OneVsOneClassifier",
    "tests/test_multiclass.py::test_ovr_ovo_regressor": "OneVsOneClassifier",
    "tests/test_multiclass.py::test_ovr_binary": "OneVsRestClassifier",
    "tests/test_multiclass.py::test_ovr_single_label_predict_proba": "OneVsRestClassifier",
}


def _upstream_run(workdir):
    upstream.prepare(workdir, sorted({nodeid.split("::")[0] for nodeid in KEPT}))
    record = workdir / "record.jsonl"
    command, env = upstream.upstream_command(list(KEPT), record, timeout=120)
    env["JAXLEARN_COMPILATION_CACHE"] = str(workdir / "cache")
    run = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    return upstream.read_records(record), run.stdout[-4000:] + run.stderr[-4000:]


def test_upstream_tests_pass_with_ours(tmp_path):
    """Every kept test passes and uses the estimator named beside it. One test over all of them: the
    subprocess that runs them starts once (a fixture shared by parametrized tests would start it on
    each pytest-xdist worker that draws one of them)."""
    records, output = _upstream_run(tmp_path)
    failures = []
    for nodeid, estimator in KEPT.items():
        record = records.get(nodeid)
        if record is None:
            failures.append(f"{nodeid} did not run")
        elif record["outcome"] != "passed":
            failures.append(f"{nodeid}: {record}")
        elif estimator not in record["ours"]:
            failures.append(f"{nodeid} did not use our {estimator}: {record}")
    assert not failures, "\n".join(failures) + f"\n{output}"


def test_rewrite_touches_only_the_imports_of_shared_estimators():
    source = (
        "from sklearn.svm import SVR, LinearSVC as L\n"
        "from sklearn import datasets, svm\n"
        "from sklearn.linear_model import (\n    Lasso,\n)\n"
        "def f():\n    from sklearn.tree import DecisionTreeClassifier\n"
        "x = svm.SVC\n"
    )
    rewritten, notes = upstream.rewrite_source(source)
    lines = rewritten.splitlines()
    assert len(lines) == len(source.splitlines())  # line numbers are upstream's
    assert lines[0] == "from sklearn.svm import SVR; from jaxlearn.sklearn import LinearSVC as L"
    assert lines[1].startswith("from sklearn import datasets; ")
    assert "svm = _jaxlearn_swapped('sklearn.svm')" in lines[1]
    assert lines[2:5] == ["from sklearn.linear_model import (", "    Lasso,", ")"]
    assert lines[6] == "    from jaxlearn.sklearn import DecisionTreeClassifier"
    assert lines[7] == "x = svm.SVC" and len(notes) == 3
    import jaxlearn.sklearn as ours

    namespace = upstream.swapped_module("sklearn.svm")
    assert namespace.SVC is ours.SVC and namespace.LinearSVC is ours.LinearSVC
    assert namespace.SVR.__module__.startswith("sklearn.")
