"""Run scikit-learn's own test modules with jaxlearn's estimators swapped in.

Used by ``scripts/run_sklearn_upstream_tests.py`` (every test of the modules) and by
``tests/test_sklearn_upstream.py`` (a few that pass, kept as regression tests). Nothing of
scikit-learn's test code is stored here: the modules are read from the installed wheel.

The mechanism, in three parts:

* :func:`rewrite_source` rewrites only the *imports* of a test module so that the names of the shared
  estimators resolve to ``jaxlearn.sklearn``'s classes: ``from sklearn.svm import SVR, LinearSVC``
  becomes ``from sklearn.svm import SVR; from jaxlearn.sklearn import LinearSVC``, and a subpackage
  imported as a module (``from sklearn import svm``, used as ``svm.SVC``) becomes a namespace that
  answers ``svm.SVC`` with ours and everything else with scikit-learn's (:func:`swapped_module`).
  The rewritten import keeps its line count, so line numbers in tracebacks are upstream's.
* :func:`prepare` copies the rewritten modules into a directory, mirroring their place in the wheel.
* This module is also a pytest plugin (``-p tests._sklearn_upstream``, with the repository root on
  ``sys.path``): it wraps ``__init__``/``fit``/``partial_fit`` of each swapped class to record which
  test constructed or fitted one of ours, arms a per-test time limit, and appends one JSON line per
  test (outcome, swapped classes used, cause of a failure) to ``$JAXLEARN_UPSTREAM_RECORD``.
  scikit-learn's own fixtures come from ``-p sklearn.conftest``.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import pathlib
import signal
import sys
import types

import pytest

#: The estimators both libraries have: scikit-learn's public module -> the names swapped for ours.
SWAPS = {
    "sklearn.linear_model": (
        "LogisticRegression",
        "Perceptron",
        "Ridge",
        "RidgeClassifier",
        "SGDClassifier",
    ),
    "sklearn.svm": ("LinearSVC", "SVC"),
    "sklearn.kernel_ridge": ("KernelRidge",),
    "sklearn.neighbors": ("KNeighborsClassifier", "KNeighborsRegressor", "NearestCentroid"),
    "sklearn.tree": ("DecisionTreeClassifier",),
    "sklearn.ensemble": ("RandomForestClassifier",),
    "sklearn.neural_network": ("MLPClassifier",),
    "sklearn.multiclass": ("OneVsOneClassifier", "OneVsRestClassifier"),
}
SWAPPED_NAMES = tuple(sorted({name for names in SWAPS.values() for name in names}))

#: The upstream test modules, as paths inside the ``sklearn`` package.
UPSTREAM_MODULES = (
    "linear_model/tests/test_logistic.py",
    "linear_model/tests/test_sgd.py",
    "linear_model/tests/test_perceptron.py",
    "linear_model/tests/test_ridge.py",
    "svm/tests/test_svm.py",
    "neighbors/tests/test_neighbors.py",
    "neighbors/tests/test_nearest_centroid.py",
    "tree/tests/test_tree.py",
    "ensemble/tests/test_forest.py",
    "neural_network/tests/test_mlp.py",
    "tests/test_multiclass.py",
)

RECORD_ENV = "JAXLEARN_UPSTREAM_RECORD"
TIMEOUT_ENV = "JAXLEARN_UPSTREAM_TIMEOUT"
X64_ENV = "JAXLEARN_UPSTREAM_X64"
REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]


def sklearn_dir() -> pathlib.Path:
    import sklearn

    return pathlib.Path(sklearn.__file__).parent


# --- the rewrite --------------------------------------------------------------------------------


def swapped_module(name: str) -> types.ModuleType:
    """scikit-learn's module ``name`` with the shared estimators replaced by jaxlearn's."""
    import importlib

    import jaxlearn.sklearn as ours

    upstream = importlib.import_module(name)
    namespace = types.ModuleType(name, upstream.__doc__)
    namespace.__dict__.update(vars(upstream))
    for attribute in SWAPS[name]:
        setattr(namespace, attribute, getattr(ours, attribute))
    return namespace


def _rewritten_import(node: ast.ImportFrom) -> str | None:
    """The replacement statement(s) of one ``from ... import ...``, or None to keep it."""
    if node.level:
        return None
    statements, kept = [], []
    if node.module in SWAPS:  # from sklearn.svm import SVR, LinearSVC
        ours = [a for a in node.names if a.name in SWAPS[node.module]]
        kept = [a for a in node.names if a.name not in SWAPS[node.module]]
        if not ours:
            return None
        names = ", ".join(a.name if a.asname is None else f"{a.name} as {a.asname}" for a in ours)
        statements.append(f"from jaxlearn.sklearn import {names}")
    elif node.module == "sklearn":  # from sklearn import svm, datasets
        ours = [a for a in node.names if f"sklearn.{a.name}" in SWAPS]
        kept = [a for a in node.names if f"sklearn.{a.name}" not in SWAPS]
        if not ours:
            return None
        for a in ours:
            statements.append(
                "from tests._sklearn_upstream import swapped_module as _jaxlearn_swapped; "
                f"{a.asname or a.name} = _jaxlearn_swapped('sklearn.{a.name}')"
            )
    else:
        return None
    if kept:
        statements.insert(0, ast.unparse(ast.ImportFrom(node.module, kept, 0)))
    return "; ".join(statements)


def rewrite_source(source: str) -> tuple[str, list[str]]:
    """``source`` with the imports of the shared estimators resolving to jaxlearn's, and a list of
    the rewrites made (``"line 12: from sklearn.svm import LinearSVC -> ..."``)."""
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        replacement = _rewritten_import(node)
        if replacement is None:
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        prefix = lines[first][: node.col_offset]
        suffix = lines[last][node.end_col_offset :]
        if prefix.strip() or suffix.strip():
            raise ValueError(f"line {node.lineno}: an import sharing its line is not rewritten")
        new = prefix + replacement + "\n" * (last - first + 1)
        edits.append((first, last, new, f"line {node.lineno}: {replacement}"))
    for first, last, new, _ in sorted(edits, reverse=True):
        lines[first : last + 1] = [new]
    return "".join(lines), [note for *_, note in sorted(edits)]


def prepare(destination: pathlib.Path, modules=UPSTREAM_MODULES) -> dict[str, list[str]]:
    """Copy the rewritten upstream ``modules`` under ``destination`` (``svm/tests/test_svm.py``...);
    returns each module's rewrites."""
    notes = {}
    for module in modules:
        source = (sklearn_dir() / module).read_text()
        target = destination / module
        target.parent.mkdir(parents=True, exist_ok=True)
        rewritten, notes[module] = rewrite_source(source)
        target.write_text(rewritten)
    return notes


def upstream_command(paths, record: pathlib.Path, timeout: float = 60.0, x64: bool = False):
    """The command and environment that run ``paths`` (files or node ids, relative to the prepared
    directory, which is the working directory) with the swap and the recorder."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env[RECORD_ENV] = str(record)
    env[TIMEOUT_ENV] = str(timeout)
    env[X64_ENV] = "1" if x64 else "0"
    env.setdefault("SKLEARN_SKIP_NETWORK_TESTS", "1")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "sklearn.conftest", "-p", "tests._sklearn_upstream"]
    command += ["--import-mode=importlib", "-o", "addopts=", "--rootdir=.", "--noconftest"]
    command += ["--continue-on-collection-errors"]
    command += ["--tb=no", *map(str, paths)]
    return command, env


def read_records(record: pathlib.Path) -> dict[str, dict]:
    """The recorder's lines by test node id (the last line of a node id wins)."""
    if not record.exists():
        return {}
    records = {}
    for line in record.read_text().splitlines():
        if line.strip():
            entry = json.loads(line)
            records[entry["nodeid"]] = entry
    return records


# --- the pytest plugin (active only when loaded with -p and $JAXLEARN_UPSTREAM_RECORD set) --------

_used: set[str] = set()
_phases: dict[str, dict] = {}


class UpstreamTestTimeout(Exception):
    """A test ran past the per-test time limit."""


def _recording(cls, method):
    original = cls.__dict__.get(method) or getattr(cls, method)
    swapped = set(SWAPPED_NAMES)

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        for klass in type(self).__mro__:
            if klass.__module__.startswith("jaxlearn.") and klass.__name__ in swapped:
                _used.add(klass.__name__)
                break
        return original(self, *args, **kwargs)

    return wrapper


def install_recorder() -> None:
    """Wrap ``__init__``, ``fit`` and ``partial_fit`` of the swapped classes to note their use."""
    import jaxlearn.sklearn as ours

    for name in SWAPPED_NAMES:
        cls = getattr(ours, name)
        for method in ("__init__", "fit", "partial_fit"):
            if hasattr(cls, method) and not hasattr(getattr(cls, method), "__wrapped__"):
                setattr(cls, method, _recording(cls, method))


def pytest_configure(config):
    if not os.environ.get(RECORD_ENV):
        return
    import jax

    # as the repository's own test suite: compiling dominates, so compile with fewer optimisations
    jax.config.update("jax_disable_most_optimizations", True)
    if os.environ.get(X64_ENV) == "1":
        jax.config.update("jax_enable_x64", True)
    install_recorder()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _used.clear()
    _phases.pop(item.nodeid, None)


def _on_alarm(signum, frame):
    raise UpstreamTestTimeout(f"ran past {os.environ.get(TIMEOUT_ENV)} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = float(os.environ.get(TIMEOUT_ENV) or 0)
    if limit > 0 and os.environ.get(RECORD_ENV):
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    else:
        yield


def _frame_origin(path: str) -> str:
    path = str(path)
    if f"{os.sep}jaxlearn{os.sep}" in path and "site-packages" not in path:
        return "jaxlearn"
    for package in ("sklearn", "numpy", "scipy", "jax", "jaxlib", "_pytest"):
        if f"site-packages{os.sep}{package}{os.sep}" in path:
            return package
    return "test"


def _failure(call) -> dict:
    excinfo = call.excinfo
    entries = list(excinfo.traceback)
    origins = [_frame_origin(entry.path) for entry in entries]
    message = str(excinfo.value).strip().splitlines()
    return {
        "type": excinfo.type.__name__,
        "message": (message[0] if message else "")[:300],
        "origin": origins[-1] if origins else "test",
        "through_jaxlearn": "jaxlearn" in origins,
    }


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    report = outcome.get_result()
    phases = _phases.setdefault(item.nodeid, {})
    phases[call.when] = report.outcome
    phases["duration"] = phases.get("duration", 0.0) + report.duration
    if report.outcome == "failed" and "failure" not in phases and call.excinfo is not None:
        phases["failure"] = {"when": call.when, **_failure(call)}
    if report.outcome == "skipped" and call.excinfo is not None and "skip" not in phases:
        phases["skip"] = str(getattr(call.excinfo.value, "msg", call.excinfo.value))[:200]
    if call.when != "teardown":
        return
    if "failure" in phases:
        result = "error" if phases["failure"]["when"] != "call" else "failed"
    elif phases.get("setup") == "skipped" or phases.get("call") == "skipped":
        result = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    else:
        result = "passed"
    entry = {
        "nodeid": item.nodeid,
        "outcome": result,
        "ours": sorted(_used),
        "duration": round(phases["duration"], 3),
        "failure": phases.get("failure"),
        "skip": phases.get("skip"),
    }
    with open(path, "a") as stream:
        stream.write(json.dumps(entry) + "\n")
    _phases.pop(item.nodeid, None)
