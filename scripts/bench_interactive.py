"""Interactive on small data (issue 35): jaxlearn.sklearn against scikit-learn on new shapes.

Every figure comes from a FRESH Python process (one per estimator, data set, side and repeat, run
one after the other) with JAX's persistent compilation cache off (``JAXLEARN_COMPILATION_CACHE=0``,
``JAX_COMPILATION_CACHE_DIR`` unset), so jaxlearn's times include every compilation. Python's own
bytecode cache is on, as in a user's installation (``PYTHONDONTWRITEBYTECODE`` unset; the ``.pyc``
files go to a temporary ``PYTHONPYCACHEPREFIX``, written by one untimed import first). The timers
start after the imports and the data loading (except in the import row of part c). Parts:

a. **cross-validation**: ``cross_val_score(make_pipeline(StandardScaler(), est), X, y, cv=5)`` on
   the digits (1,797 x 64, 10 classes) and on breast cancer (569 x 30, 2 classes), ours against
   scikit-learn's namesake; target: ours / scikit-learn's <= 3.
b. **warm fit + predict** on the digits and on breast cancer (``--data``; the same pipeline, fit
   and predict on all rows): the median of 7 calls after the first, in one process; target: ours /
   scikit-learn's <= 1.
c. **first calls**: the first fit + predict on the digits in a fresh process (target < 1 s; the
   same process as b), and ``import jaxlearn.sklearn`` in a fresh process, timed with
   ``time.perf_counter`` around the import inside the child (target < 1.5 s).
d. **a new training size**: the pipeline's fit on the first n rows of the digits (warm: the median
   of 3 fits after the first), then one fit on each larger size (default 1000, then 1100 and 1150).
   Target: a size that falls in the bucket of a size already fitted (the issue's example ladder
   2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k: 1100 and 1150 both pad to 1280) fits within 2x the
   warm fit.
e. **GridSearchCV**: jaxlearn's ``SVC`` over C x gamma (3 x 3), cv=3, on 500 rows of the
   standardised digits with the binary labels digit >= 5 (``SVC`` takes two classes), and
   ``LinearSVC`` over 8 values of C, cv=5, on the standardised breast cancer data; ours
   (``jaxlearn.sklearn.GridSearchCV`` where it exists, else scikit-learn's ``GridSearchCV`` over
   jaxlearn's estimator) against scikit-learn's ``GridSearchCV`` over scikit-learn's estimator;
   target: ours / theirs <= 2.

Estimators without a scikit-learn namesake are compared with the nearest one (marked ``~``).
Binary-only estimators on the digits follow ``bench_accuracy.py``: they refuse 10 classes and the
row says so; ``--binary ovr`` wraps them in ``jaxlearn.sklearn.OneVsRestClassifier`` instead
(scikit-learn's side stays its plain estimator). Regressors (``Ridge``, ``KernelRidge``,
``KNeighborsRegressor``) fit the class labels as numbers (R^2). The compile columns count XLA
compilations in jaxlearn's process (JAX's ``backend_compile`` events, eager operations included)
and their seconds, tracing and lowering apart. A child that fails or runs past ``--timeout`` puts
its error in its row.

    python scripts/bench_interactive.py                                # everything (about an hour)
    python scripts/bench_interactive.py --part a --only SVC --data digits --quick
    python scripts/bench_interactive.py --part c,d,e --quick --write   # benchmarks/interactive-*.md
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATASETS = ("digits", "breast_cancer")
PARTS = "abcde"
TARGETS = {"a": 3.0, "b": 1.0, "c_fit": 1.0, "c_import": 1.5, "d": 2.0, "e": 2.0}
WARM_REPEATS = 7
SEED = 0
#: Nearest scikit-learn estimator for ours that have no namesake: (label, constructor source).
NEAREST = {
    "HardMarginSVC": "SVC(kernel='linear', C=1e6)",
    "KernelPerceptron": "Perceptron()",
    "MarginPerceptron": "Perceptron()",
    "MulticlassPerceptron": "Perceptron()",
    "MulticlassSVC": "LinearSVC(multi_class='crammer_singer')",
    "OnlineGradientDescentClassifier": "SGDClassifier(loss='hinge')",
    "Winnow": "Perceptron()",
}
REGRESSORS = ("Ridge", "KernelRidge", "KNeighborsRegressor")
GRIDS = {
    "SVC": "SVC, 3 C x 3 gamma, cv=3, digits 500 rows (digit >= 5)",
    "LinearSVC": "LinearSVC, 8 C, cv=5, breast cancer",
}


# --------------------------------------------------------------------------- child process


def _compile_counter():
    """Count JAX's compilations from now on: a dict updated by a monitoring listener."""
    import jax

    counts = {"compiles": 0, "compile_s": 0.0, "trace_lower_s": 0.0}

    def listen(event, duration, **_):
        if event == "/jax/core/compile/backend_compile_duration":
            counts["compiles"] += 1
            counts["compile_s"] += duration
        elif event in (
            "/jax/core/compile/jaxpr_trace_duration",
            "/jax/core/compile/jaxpr_to_mlir_module_duration",
        ):
            counts["trace_lower_s"] += duration

    jax.monitoring.register_event_duration_secs_listener(listen)
    return counts


def _snapshot(counts):
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in counts.items()}


def _load(data):
    import numpy as np
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{data}")(return_X_y=True)
    return X.astype(np.float32), y


def _estimator(name, side, multiclass, binary):
    """A fresh estimator: ours (``side == "jaxlearn"``), or scikit-learn's namesake or nearest."""
    import inspect

    import sklearn.ensemble
    import sklearn.kernel_ridge
    import sklearn.linear_model
    import sklearn.multiclass
    import sklearn.neighbors
    import sklearn.neural_network
    import sklearn.svm
    import sklearn.tree

    modules = (
        sklearn.linear_model,
        sklearn.svm,
        sklearn.neighbors,
        sklearn.tree,
        sklearn.ensemble,
        sklearn.neural_network,
        sklearn.kernel_ridge,
        sklearn.multiclass,
    )
    if side == "sklearn":
        if name in NEAREST:
            namespace = {k: v for m in modules for k, v in vars(m).items() if not k.startswith("_")}
            return eval(NEAREST[name], namespace)  # noqa: S307 - our own constant table
        cls = next(getattr(m, name) for m in modules if hasattr(m, name))
        if "estimator" in inspect.signature(cls.__init__).parameters:
            return cls(sklearn.svm.LinearSVC(random_state=SEED))
        return _seeded(cls)

    import jaxlearn.sklearn as ours

    cls = getattr(ours, name)
    if "estimator" in inspect.signature(cls.__init__).parameters:  # the reductions wrap LinearSVC
        return cls(ours.LinearSVC(random_state=SEED))
    est = _seeded(cls)
    if multiclass and _binary_only(est):
        if binary != "ovr":
            raise ValueError("refused: binary only (--binary ovr wraps it in OneVsRestClassifier)")
        est = ours.OneVsRestClassifier(est)
    return est


def _seeded(cls):
    import inspect

    takes_seed = "random_state" in inspect.signature(cls.__init__).parameters
    return cls(random_state=SEED) if takes_seed else cls()


def _binary_only(est) -> bool:
    from sklearn.utils import get_tags

    tags = get_tags(est).classifier_tags
    return tags is not None and not tags.multi_class


def _pipeline(name, side, y, binary):
    import numpy as np
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    multiclass = np.unique(y).size > 2 and name not in REGRESSORS
    return make_pipeline(StandardScaler(), _estimator(name, side, multiclass, binary))


def _labels(name, y):
    return y.astype("float32") if name in REGRESSORS else y


def _block(out):
    """Wait for JAX's outputs (scikit-learn's children never import jax, not even here)."""
    jax = sys.modules.get("jax")
    return out if jax is None else jax.block_until_ready(out)


def child_cv(spec):
    """Part a: one 5-fold cross_val_score, compilation included."""
    import warnings

    from sklearn.model_selection import cross_val_score

    X, y = _load(spec["data"])
    y = _labels(spec["name"], y)
    counts = _compile_counter() if spec["side"] == "jaxlearn" else None
    model = _pipeline(spec["name"], spec["side"], y, spec["binary"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        scores = cross_val_score(model, X, y, cv=5)
        seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "score": float(scores.mean()),
        "counts": counts and _snapshot(counts),
    }


def child_fit_predict(spec):
    """Parts b and c: the first fit + predict on the data set (the digits for c), then the median of
    WARM_REPEATS more."""
    import warnings

    X, y = _load(spec.get("data", "digits"))
    y = _labels(spec["name"], y)
    counts = _compile_counter() if spec["side"] == "jaxlearn" else None
    model = _pipeline(spec["name"], spec["side"], y, spec["binary"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        _block(model.fit(X, y).predict(X))
        first = time.perf_counter() - start
        first_counts = counts and _snapshot(counts)
        times = []
        for _ in range(WARM_REPEATS):
            start = time.perf_counter()
            _block(model.fit(X, y).predict(X))
            times.append(time.perf_counter() - start)
    return {
        "first": first,
        "warm": statistics.median(times),
        "counts": first_counts,
        "warm_compiles": counts and counts["compiles"] - first_counts["compiles"],
    }


def child_sizes(spec):
    """Part d: fits on the first n rows of the digits for each n of ``spec["sizes"]``."""
    import warnings

    X, y = _load("digits")
    y = _labels(spec["name"], y)
    counts = _compile_counter()
    sizes = spec["sizes"]
    model = _pipeline(spec["name"], "jaxlearn", y, spec["binary"])
    out = {"first": None, "warm": None, "fits": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, n in enumerate(sizes):
            before = counts["compiles"]
            start = time.perf_counter()
            _block(model.fit(X[:n], y[:n]))
            seconds = time.perf_counter() - start
            if i == 0:
                out["first"] = seconds
                times = []
                for _ in range(WARM_REPEATS):
                    start = time.perf_counter()
                    _block(model.fit(X[:n], y[:n]))
                    times.append(time.perf_counter() - start)
                out["warm"] = statistics.median(times)
            else:
                fit = {"n": n, "seconds": seconds, "compiles": counts["compiles"] - before}
                out["fits"].append(fit)
    return out


def child_grid(spec):
    """Part e: one GridSearchCV fit, compilation included."""
    import warnings

    import numpy as np
    from sklearn.preprocessing import StandardScaler

    if spec["name"] == "SVC":
        X, y = _load("digits")
        X, y = X[:500], (y[:500] >= 5).astype(int)
        grid = {"C": [0.1, 1.0, 10.0], "gamma": [0.003, 0.01, 0.03]}
        cv = 3
    else:
        X, y = _load("breast_cancer")
        grid = {"C": [float(c) for c in np.logspace(-3, 4, 8)]}
        cv = 5
    X = StandardScaler().fit_transform(X).astype(np.float32)
    counts = None
    if spec["side"] == "jaxlearn":
        import jaxlearn.sklearn as ours

        counts = _compile_counter()
        est = getattr(ours, spec["name"])()
        if hasattr(ours, "GridSearchCV"):
            search, which = ours.GridSearchCV, "jaxlearn.sklearn.GridSearchCV"
        else:
            from sklearn.model_selection import GridSearchCV as search

            which = "sklearn GridSearchCV over jaxlearn's"
    else:
        import sklearn.svm
        from sklearn.model_selection import GridSearchCV as search

        est, which = getattr(sklearn.svm, spec["name"])(), "sklearn GridSearchCV"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        fitted = search(est, grid, cv=cv).fit(X, y)
        seconds = time.perf_counter() - start
        warm = []  # the same search again in this process: its programs compiled
        for _ in range(WARM_REPEATS):
            start = time.perf_counter()
            search(est, grid, cv=cv).fit(X, y)
            warm.append(time.perf_counter() - start)
    return {
        "seconds": seconds,
        "warm": statistics.median(warm),
        "which": which,
        "best": {k: float(v) for k, v in fitted.best_params_.items()},
        "score": float(fitted.best_score_),
        "counts": counts and _snapshot(counts),
    }


def child_import(spec):
    """Part c: ``import jaxlearn.sklearn`` in a process that has imported nothing else."""
    start = time.perf_counter()
    import jaxlearn.sklearn  # noqa: F401

    return {"seconds": time.perf_counter() - start}


CHILDREN = {
    "cv": child_cv,
    "fit_predict": child_fit_predict,
    "sizes": child_sizes,
    "grid": child_grid,
    "import": child_import,
}


def child(spec_json):
    spec = json.loads(spec_json)
    try:
        out = CHILDREN[spec["kind"]](spec)
    except Exception as e:  # noqa: BLE001 - a failure is a row of the table, not a crash
        out = {"error": f"{type(e).__name__}: {e}"}
    print("RESULT " + json.dumps(out), flush=True)


# --------------------------------------------------------------------------- parent process


#: Where the children's Python bytecode goes (set by ``main``; a temporary directory).
PYCACHE = {}


def child_env():
    """The children's environment: the compilation cache off, Python's bytecode cache on."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(PYCACHE)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    return env


def run_child(spec, timeout):
    """The child's result dict, or ``{"error": ...}`` if it failed, printed nothing or timed out."""
    env = child_env()
    env["JAXLEARN_COMPILATION_CACHE"] = spec.get("cache", "0")  # a directory: the cache on
    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    try:
        options = dict(capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        done = subprocess.run(command, env=env, **options)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:g} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        tail = [line for line in done.stderr.strip().splitlines() if line.strip()][-1:]
        return {"error": f"exit {done.returncode}: {tail[0] if tail else 'no output'}"}
    return json.loads(lines[-1][len("RESULT ") :])


def repeated(spec, repeats, timeout, key="seconds"):
    """The median of ``key`` over ``repeats`` fresh processes (the first run's other fields)."""
    runs = [run_child(spec, timeout) for _ in range(repeats)]
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0]
    out = dict(good[0])
    for k in (key,) if isinstance(key, str) else key:
        out[k] = statistics.median(r[k] for r in good)
    out["runs"] = len(good)
    return out


def _s(x, digits=2):
    return "" if x is None else f"{x:.{digits}f}"


def _verdict(ratio, target):
    return "" if ratio is None else ("pass" if ratio <= target else "**fail**")


def _under(seconds, target):
    return "" if seconds is None else ("pass" if seconds < target else "**fail**")


def _cell(result, key, digits=2):
    """A figure of ``result``, or its error where the child failed."""
    return _s(result.get(key), digits) or _err(result)


def _err(result):
    return str(result.get("error", ""))[:140].replace("|", "/").replace("\n", " ")


def _compiles(result):
    c = result.get("counts")
    if not c:
        return ""
    return f"{c['compiles']} ({c['compile_s']:.1f} s + {c['trace_lower_s']:.1f} s)"


def _log(msg):
    print(f"  [{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _record(*args, **kwargs):
    from benchtools import record

    try:
        record(*args, **kwargs)
    except ValueError:
        pass


def _counterpart(name):
    return f"~{NEAREST[name]}" if name in NEAREST else name


def part_a(names, data_sets, args):
    lines = [
        "## a. 5-fold cross_val_score behind StandardScaler, fresh process, compilation included\n",
        f"Target: jaxlearn / scikit-learn <= {TARGETS['a']:g}. Seconds: median of {args.repeats} "
        "fresh process(es). Compiles: XLA compilations in jaxlearn's process (their seconds + "
        "tracing and lowering).\n",
        "| estimator | data | scikit-learn's | jaxlearn (s) | scikit-learn (s) | ratio | target "
        "| pass | jaxlearn compiles | mean score (ours / theirs) |",
        "|---|---|---|---:|---:|---:|---:|---|---|---|",
    ]
    for data in data_sets:
        for name in names:
            spec = {"kind": "cv", "name": name, "data": data, "binary": args.binary}
            ours = repeated({**spec, "side": "jaxlearn"}, args.repeats, args.timeout)
            theirs = repeated({**spec, "side": "sklearn"}, args.repeats, args.timeout)
            ratio = None
            if "error" not in ours and "error" not in theirs:
                ratio = ours["seconds"] / theirs["seconds"]
                _record(
                    f"{name} cross_val_score",
                    f"{data}, 5-fold, fresh process",
                    ours["seconds"],
                    theirs["seconds"],
                    reference_name=_counterpart(name),
                    target=1 / TARGETS["a"],
                )
            score = ""
            if "score" in ours and "score" in theirs:
                score = f"{ours['score']:.3f} / {theirs['score']:.3f}"
            row = (
                f"| {name} | {data} | {_counterpart(name)} | {_cell(ours, 'seconds')} "
                f"| {_cell(theirs, 'seconds')} | {_s(ratio, 1)} | {TARGETS['a']:g} "
                f"| {_verdict(ratio, TARGETS['a'])} | {_compiles(ours)} | {score} |"
            )
            lines.append(row)
            _log(row)
    return lines


def parts_bc(names, parts, data_sets, args):
    """Parts b and c share one fresh process per estimator, data set and side (c: the digits')."""
    data_sets = data_sets if "b" in parts else ["digits"]
    if "c" in parts and "digits" not in data_sets:
        data_sets = ["digits", *data_sets]
    runs = {}
    for data in data_sets:
        for name in names:
            spec = {"kind": "fit_predict", "name": name, "binary": args.binary, "data": data}
            keys = ("first", "warm")
            ours = repeated({**spec, "side": "jaxlearn"}, args.repeats, args.timeout, keys)
            theirs = repeated({**spec, "side": "sklearn"}, args.repeats, args.timeout, keys)
            runs[name, data] = ours, theirs
            _log(
                f"{name} on {data}: first {ours.get('first')} warm {ours.get('warm')} {_err(ours)} "
                f"/ theirs first {theirs.get('first')} warm {theirs.get('warm')} {_err(theirs)}"
            )
    results = {name: runs[name, "digits"] for name in names if (name, "digits") in runs}
    lines = []
    if "b" in parts:
        lines += [
            "## b. Warm fit + predict (behind StandardScaler)\n",
            f"Median of {WARM_REPEATS} calls after the first, in one process (then the median over "
            f"{args.repeats} process(es)). Target: jaxlearn / scikit-learn <= {TARGETS['b']:g}.\n",
            "| estimator | data | scikit-learn's | jaxlearn (s) | scikit-learn (s) | ratio | target "
            "| pass | compiles in the warm calls |",
            "|---|---|---|---:|---:|---:|---:|---|---:|",
        ]
        for (name, data), (ours, theirs) in runs.items():
            if data not in args.data.split(","):
                continue
            ratio = None
            if "error" not in ours and "error" not in theirs:
                ratio = ours["warm"] / theirs["warm"]
                _record(
                    f"{name} warm fit + predict",
                    f"{data}, StandardScaler",
                    ours["warm"],
                    theirs["warm"],
                    reference_name=_counterpart(name),
                    target=1 / TARGETS["b"],
                )
            lines.append(
                f"| {name} | {data} | {_counterpart(name)} | {_cell(ours, 'warm', 4)} "
                f"| {_cell(theirs, 'warm', 4)} | {_s(ratio, 2)} | {TARGETS['b']:g} "
                f"| {_verdict(ratio, TARGETS['b'])} | {ours.get('warm_compiles', '')} |"
            )
        lines.append("")
    if "c" in parts:
        imp = repeated({"kind": "import"}, args.repeats, args.timeout)
        t = imp.get("seconds")
        if t:
            _record("import jaxlearn.sklearn", "fresh process", t, None, reference_name="none")
        lines += [
            "## c. First calls in a fresh process\n",
            f"Median over {args.repeats} fresh process(es).\n",
            "| what | jaxlearn (s) | target (s) | pass | scikit-learn (s) | compiles |",
            "|---|---:|---:|---|---:|---|",
            f"| import jaxlearn.sklearn | {_s(t) or _err(imp)} | < {TARGETS['c_import']:g} "
            f"| {_under(t, TARGETS['c_import'])} | | |",
        ]
        for name, (ours, theirs) in results.items():
            t = ours.get("first")
            if t:
                _record(
                    f"{name} first fit + predict",
                    "digits, StandardScaler, fresh process",
                    t,
                    theirs.get("first"),
                    reference_name=_counterpart(name),
                )
            lines.append(
                f"| {name}: first fit + predict, digits | {_s(t) or _err(ours)} "
                f"| < {TARGETS['c_fit']:g} | {_under(t, TARGETS['c_fit'])} "
                f"| {_s(theirs.get('first'), 3)} | {_compiles(ours)} |"
            )
    return lines


def _bucket(n):
    """The issue's example size ladder: the next of 2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k."""
    k = 1
    while True:
        for step in (1.0, 1.25, 1.5, 1.75):
            if int(k * step) >= n:
                return int(k * step)
        k *= 2


def part_d(names, args):
    sizes = args.sizes
    seen, shares = set(), []
    for n in sizes:
        shares.append(_bucket(n) in seen)
        seen.add(_bucket(n))
    headers = " | ".join(f"n={n} (s) | ratio" for n in sizes[1:])
    lines = [
        "## d. A new training size: fits on the first n rows of the digits, one process\n",
        f"Warm: the median of {WARM_REPEATS} fits at n={sizes[0]} after its first. Then one fit at "
        "each new size (its XLA compilations in brackets) and its ratio to the warm fit. Target: "
        f"<= {TARGETS['d']:g} for a size whose bucket (the issue's example ladder: "
        + ", ".join(f"{n} -> {_bucket(n)}" for n in sizes)
        + ") was fitted before"
        + (f" ({', '.join(str(n) for n, s in zip(sizes, shares) if s)})" if any(shares) else "")
        + ".\n",
        f"| estimator | first at n={sizes[0]} (s) | warm (s) | {headers} | target | pass |",
        "|---|---:|---:|" + "---:|---:|" * (len(sizes) - 1) + "---:|---|",
    ]
    for name in names:
        spec = {"kind": "sizes", "name": name, "sizes": sizes, "binary": args.binary}
        r = run_child(spec, args.timeout)
        if "error" in r:
            cells = " | ".join("|" for _ in sizes[1:])
            lines.append(f"| {name} | {_err(r)} | | {cells} | {TARGETS['d']:g} | |")
            _log(lines[-1])
            continue
        cells, verdicts = [], []
        for fit, share in zip(r["fits"], shares[1:]):
            ratio = fit["seconds"] / r["warm"]
            cells.append(f"{fit['seconds']:.2f} ({fit['compiles']}) | {ratio:.1f}")
            if share or not any(shares):
                verdicts.append(ratio <= TARGETS["d"])
                _record(
                    f"{name} fit at a new size",
                    f"digits, n={sizes[0]} -> {fit['n']}",
                    fit["seconds"],
                    r["warm"],
                    reference_name=f"warm fit at n={sizes[0]}",
                    target=1 / TARGETS["d"],
                )
        verdict = ("pass" if all(verdicts) else "**fail**") if verdicts else ""
        lines.append(
            f"| {name} | {r['first']:.2f} | {r['warm']:.3f} | {' | '.join(cells)} "
            f"| {TARGETS['d']:g} | {verdict} |"
        )
        _log(lines[-1])
    return lines


def part_e(grids, args):
    lines = [
        "## e. GridSearchCV, fresh process, compilation included\n",
        f"Target: jaxlearn / scikit-learn <= {TARGETS['e']:g}; seconds: median of {args.repeats} "
        "fresh process(es). *Cached*: jaxlearn's search in fresh processes with the persistent "
        "compilation cache on (`JAXLEARN_COMPILATION_CACHE` set to a directory one process filled "
        "before), as in a new session of a user who turned it on. *Warm*: the median of the same "
        f"search run again {WARM_REPEATS} times in the first process (its programs compiled), each "
        "side.\n",
        "| grid | ours via | jaxlearn (s) | scikit-learn (s) | ratio | target | pass "
        "| cached: jaxlearn (s) | ratio | pass "
        "| warm: jaxlearn (s) | scikit-learn (s) | ratio | pass "
        "| best (ours / theirs) | jaxlearn compiles |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---|---|---|",
    ]
    for name in grids:
        spec = {"kind": "grid", "name": name}
        ours = repeated({**spec, "side": "jaxlearn"}, args.repeats, args.timeout)
        theirs = repeated({**spec, "side": "sklearn"}, args.repeats, args.timeout)
        with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
            run_child({**spec, "side": "jaxlearn", "cache": cache}, args.timeout)  # fills it
            cached = repeated(
                {**spec, "side": "jaxlearn", "cache": cache}, args.repeats, args.timeout
            )
        ratio, cached_ratio, warm, best = None, None, None, ""
        if "error" not in ours and "error" not in theirs and "error" not in cached:
            ratio = ours["seconds"] / theirs["seconds"]
            cached_ratio = cached["seconds"] / theirs["seconds"]
            warm = ours["warm"] / theirs["warm"]
            best = f"{ours['best']} {ours['score']:.3f} / {theirs['best']} {theirs['score']:.3f}"
            _record(
                f"GridSearchCV {name}",
                GRIDS[name],
                ours["seconds"],
                theirs["seconds"],
                reference_name=f"GridSearchCV({name})",
                target=1 / TARGETS["e"],
            )
        lines.append(
            f"| {GRIDS[name]} | {ours.get('which', '')} | {_s(ours.get('seconds')) or _err(ours)} "
            f"| {_s(theirs.get('seconds')) or _err(theirs)} | {_s(ratio, 1)} | {TARGETS['e']:g} "
            f"| {_verdict(ratio, TARGETS['e'])} | {_s(cached.get('seconds'))} "
            f"| {_s(cached_ratio, 1)} | {_verdict(cached_ratio, TARGETS['e'])} "
            f"| {_s(ours.get('warm'), 3)} "
            f"| {_s(theirs.get('warm'), 3)} | {_s(warm, 1)} | {_verdict(warm, TARGETS['e'])} "
            f"| {best} | {_compiles(ours)} |"
        )
        _log(lines[-1])
    return lines


def machine():
    import jax
    import jaxlib
    import sklearn

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", "jaxlearn"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    commit = f"{commit or '?'}{' + uncommitted changes under jaxlearn/' if dirty else ''}"
    return (
        f"{datetime.date.today()}, commit {commit}, {os.cpu_count()} CPU cores ({cpu}), "
        f"JAX backend {jax.default_backend()}, jax {jax.__version__}, jaxlib {jaxlib.__version__}, "
        f"scikit-learn {sklearn.__version__}, Python {platform.python_version()}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", default=",".join(PARTS), help="comma-separated of a,b,c,d,e")
    parser.add_argument("--only", default="", help="comma-separated estimator names (default: all)")
    parser.add_argument(
        "--data", default=",".join(DATASETS), help="parts a, b: digits,breast_cancer"
    )
    parser.add_argument("--grid", help="part e: SVC,LinearSVC (default: those in --only, or both)")
    parser.add_argument("--sizes", default="1000,1100,1150", help="part d: training sizes")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--quick", action="store_true", help="one fresh process per figure")
    parser.add_argument(
        "--binary",
        choices=("refuse", "ovr"),
        default="refuse",
        help="binary-only estimators on the digits: refuse (a row saying so) "
        "or wrap in jaxlearn's OneVsRestClassifier",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per child process")
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the tables to benchmarks/interactive-cpu-<N>core.md",
    )
    parser.add_argument("--out", help="with --write: another path for the markdown")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)
    if args.quick:
        args.repeats = 1
    parts = [p for p in args.part.replace(" ", "").split(",") if p]
    bad = [p for p in parts if p not in PARTS]
    data_sets = [d for d in args.data.split(",") if d]
    args.sizes = [int(n) for n in args.sizes.split(",") if n]
    if bad or any(d not in DATASETS for d in data_sets) or len(args.sizes) < 2:
        parser.error("--part takes a..e, --data digits,breast_cancer, --sizes two sizes or more")

    import jaxlearn.sklearn as ours

    wanted = [w for w in args.only.split(",") if w]
    # the estimators (part e times GridSearchCV; cross_val_score and cross_validate are functions)
    estimators = [
        n for n in ours.__all__ if isinstance(getattr(ours, n), type) and n != "GridSearchCV"
    ]
    unknown = [w for w in wanted if w not in estimators]
    if unknown:
        parser.error(f"--only: not in jaxlearn.sklearn.__all__: {', '.join(unknown)}")
    names = wanted or estimators
    if args.grid:
        grids = [g for g in args.grid.split(",") if g]
        if any(g not in GRIDS for g in grids):
            parser.error(f"--grid takes {','.join(GRIDS)}")
    else:
        grids = [g for g in GRIDS if g in wanted] or list(GRIDS)

    wall = time.perf_counter()
    description = machine()
    PYCACHE["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="bench-pycache-")
    atexit.register(shutil.rmtree, PYCACHE["PYTHONPYCACHEPREFIX"], ignore_errors=True)
    warm_up = "import jaxlearn.sklearn, sklearn.ensemble, sklearn.svm, sklearn.neural_network"
    subprocess.run([sys.executable, "-c", warm_up], env=child_env(), cwd=ROOT, check=True)
    lines = [
        "# scripts/bench_interactive.py: interactive on small data (issue 35)\n",
        f"{description}. Persistent compilation cache off; every figure from fresh processes.\n",
        f"Command: `python scripts/bench_interactive.py {' '.join(argv or sys.argv[1:])}`\n",
    ]
    print("\n".join(lines), flush=True)
    sections = []
    if "a" in parts:
        sections.append(part_a(names, data_sets, args))
    if "b" in parts or "c" in parts:
        sections.append(parts_bc(names, parts, data_sets, args))
    if "d" in parts:
        sections.append(part_d(names, args))
    if "e" in parts:
        sections.append(part_e(grids, args))
    for section in sections:
        print("\n".join(section) + "\n", flush=True)
        lines += section + [""]
    footer = f"Wall time of this run: {time.perf_counter() - wall:.0f} s."
    print(footer)
    if args.write:
        default = ROOT / "benchmarks" / f"interactive-cpu-{os.cpu_count()}core.md"
        path = Path(args.out) if args.out else default
        path.write_text("\n".join(lines + [footer]) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
