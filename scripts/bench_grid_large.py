"""GridSearchCV on 50,000 x 50: 32 values of one hyperparameter, 5 folds, both libraries.

``jaxlearn.sklearn.GridSearchCV`` over jaxlearn's ``LinearSVC`` (32 values of ``C``) and
``SGDClassifier`` (32 values of ``alpha``) against ``sklearn.model_selection.GridSearchCV(n_jobs=-1)``
over scikit-learn's estimator of the same name, on ``make_classification(50_000, 50,
n_informative=20, random_state=0)`` in float32, the values ``logspace(-4, 2, 32)``. Each side runs in
a fresh process (compilation included, the persistent compilation cache off); the script prints the
seconds, the ratio, the path our search took and both best parameters and scores. Target (issue
"interactive on small data"): ours at least 10x faster.

    python scripts/bench_grid_large.py                       # both grids (several minutes on 2 cores)
    python scripts/bench_grid_large.py --only LinearSVC
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchtools import record

NAMES = ("LinearSVC", "SGDClassifier")
PARAM = {"LinearSVC": "C", "SGDClassifier": "alpha"}
TARGET = 10.0


def child(name: str, side: str) -> dict:
    """One search in this process: its seconds, path, best parameters and score."""
    import warnings

    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(50_000, 50, n_informative=20, random_state=0)
    X = X.astype(np.float32)
    grid = {PARAM[name]: [float(v) for v in np.logspace(-4, 2, 32)]}
    if side == "jaxlearn":
        import jaxlearn.sklearn as ours

        search = ours.GridSearchCV(getattr(ours, name)(random_state=0), grid, cv=5)
    else:
        import sklearn.linear_model
        import sklearn.svm
        from sklearn.model_selection import GridSearchCV

        module = sklearn.svm if name == "LinearSVC" else sklearn.linear_model
        search = GridSearchCV(getattr(module, name)(random_state=0), grid, cv=5, n_jobs=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        search.fit(X, y)
        seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "path": getattr(search, "search_path_", ""),
        "best": search.best_params_[PARAM[name]],
        "score": float(search.best_score_),
    }


def run_child(name: str, side: str, timeout: float) -> dict:
    env = dict(os.environ, JAXLEARN_COMPILATION_CACHE="0")
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", name, side]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:120]}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(NAMES), choices=NAMES)
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per search")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    print(
        "| grid (32 values, cv=5, 50,000 x 50) | ours via | jaxlearn (s) | scikit-learn, n_jobs=-1 (s) "
        "| speed-up | target | pass | best (ours / theirs) |"
    )
    print("|---|---|---:|---:|---:|---:|---|---|")
    for name in args.only:
        ours = run_child(name, "jaxlearn", args.timeout)
        theirs = run_child(name, "sklearn", args.timeout)
        if "error" in ours or "error" in theirs:
            print(
                f"| {name} {PARAM[name]} | | {ours.get('error', '')} | {theirs.get('error', '')} | | | | |"
            )
            continue
        speedup = theirs["seconds"] / ours["seconds"]
        verdict = "pass" if speedup >= TARGET else "**fail**"
        best = (
            f"{ours['best']:.3g} {ours['score']:.4f} / {theirs['best']:.3g} {theirs['score']:.4f}"
        )
        print(
            f"| {name} {PARAM[name]} | GridSearchCV, {ours['path']} path | {ours['seconds']:.1f} "
            f"| {theirs['seconds']:.1f} | {speedup:.2f}x | {TARGET:g}x | {verdict} | {best} |",
            flush=True,
        )
        record(
            f"GridSearchCV {name} 32 values",
            "50,000 x 50, cv=5",
            ours["seconds"],
            theirs["seconds"],
            reference_name=f"sklearn GridSearchCV({name}, n_jobs=-1)",
            target=TARGET,
        )


if __name__ == "__main__":
    main()
