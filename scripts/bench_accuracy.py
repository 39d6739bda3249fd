"""Right answers by default: each ``jaxlearn.sklearn`` estimator against its scikit-learn namesake.

For every estimator of ``jaxlearn.sklearn.__all__`` that scikit-learn also has, at default
hyperparameters, the 5-fold cross-validated score (``KFold(5, shuffle=True, random_state=0)``) of
ours and of scikit-learn's on its bundled data sets, on the raw features and behind a
``StandardScaler``: accuracy on digits, breast cancer, wine and iris for the classifiers, R^2 on
diabetes for the regressors. Estimators whose result depends on a random order or draw (marked ``*``)
are scored as the mean over ``--seeds`` values of ``random_state`` (ours against the mean over as many
of scikit-learn's), with the spread (max - min) printed beside it. A cell is **short** when ours is
more than ``--points`` points below scikit-learn's; the script's exit status is the number of short
cells (0: the target is met). The data sets are float64 as scikit-learn loads them (``--dtype
float32``: cast to float32 for both sides).

    python scripts/bench_accuracy.py                 # every estimator (several minutes on 2 cores)
    python scripts/bench_accuracy.py --only LinearSVC SGDClassifier
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
import warnings

import numpy as np
from benchtools import record
from sklearn import datasets as skdata
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

CLASSIFICATION = {
    "digits": skdata.load_digits,
    "breast_cancer": skdata.load_breast_cancer,
    "wine": skdata.load_wine,
    "iris": skdata.load_iris,
}
REGRESSION = {"diabetes": skdata.load_diabetes}


def _pairs():
    """``(name, ours, theirs, randomized)`` for every estimator both libraries have."""
    import sklearn.ensemble
    import sklearn.kernel_ridge
    import sklearn.linear_model
    import sklearn.multiclass
    import sklearn.neighbors
    import sklearn.neural_network
    import sklearn.svm
    import sklearn.tree

    import jaxlearn.sklearn as ours

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
    for name in ours.__all__:
        theirs = next((getattr(m, name) for m in modules if hasattr(m, name)), None)
        if theirs is None:
            continue
        mine = getattr(ours, name)
        if (
            "estimator" in inspect.signature(mine.__init__).parameters
        ):  # the reductions wrap LinearSVC
            make_ours = lambda rs=None, mine=mine: mine(ours.LinearSVC(random_state=rs))
            make_theirs = lambda rs=None, theirs=theirs: theirs(
                sklearn.svm.LinearSVC(random_state=rs)
            )
        else:
            make_ours = _maker(mine)
            make_theirs = _maker(theirs)
        yield name, make_ours, make_theirs, _randomized(theirs)


def _maker(cls):
    takes_seed = "random_state" in inspect.signature(cls.__init__).parameters
    return lambda rs=None: cls(random_state=rs) if takes_seed and rs is not None else cls()


def _randomized(cls) -> bool:
    """Estimators whose default fit depends on a random order or draw (scikit-learn's decision tree
    visits the features in a random order, which picks among equally good splits)."""
    randomized = {
        "Perceptron",
        "SGDClassifier",
        "MLPClassifier",
        "RandomForestClassifier",
        "DecisionTreeClassifier",
    }
    return cls.__name__ in randomized


def _score(make, X, y, scaled, seeds, scoring):
    cv = KFold(5, shuffle=True, random_state=0)
    runs = []
    for rs in seeds:
        estimator = make(rs)
        model = make_pipeline(StandardScaler(), estimator) if scaled else estimator
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            runs.append(cross_val_score(clone(model), X, y, cv=cv, scoring=scoring).mean())
    return float(np.mean(runs)), float(np.ptp(runs))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="estimator names (default: all)")
    parser.add_argument(
        "--seeds", type=int, default=5, help="random_state values for randomized ones"
    )
    parser.add_argument(
        "--points", type=float, default=1.0, help="the allowed shortfall, in points"
    )
    parser.add_argument("--data", nargs="*", help="data set names (default: all)")
    parser.add_argument(
        "--features", choices=("raw", "scaled"), help="only raw or only standardised features"
    )
    parser.add_argument(
        "--dtype",
        choices=("float64", "float32"),
        default="float64",
        help="the data sets as loaded (float64) or cast to float32 for both sides",
    )
    args = parser.parse_args(argv)

    rows, short = [], 0
    header = f"| estimator | data | features | jaxlearn | scikit-learn | difference | {'':>5} |"
    print(header)
    print("|---|---|---|---:|---:|---:|---|")
    for name, ours, theirs, randomized in _pairs():
        if args.only and name not in args.only:
            continue
        regressor = name.endswith("Regressor") or name in ("Ridge", "KernelRidge")
        sets = REGRESSION if regressor else CLASSIFICATION
        scoring = "r2" if regressor else "accuracy"
        seeds = list(range(args.seeds)) if randomized else [None]
        for data_name, load in sets.items():
            if args.data and data_name not in args.data:
                continue
            X, y = load(return_X_y=True)
            X = X.astype(args.dtype)
            for scaled in (False, True):
                if args.features and args.features != ("scaled" if scaled else "raw"):
                    continue
                start = time.perf_counter()
                try:
                    mine, mine_spread = _score(ours, X, y, scaled, seeds, scoring)
                except Exception as e:  # noqa: BLE001 - a failure is a row of the table, not a crash
                    mine, mine_spread = float("nan"), 0.0
                    print(f"<!-- {name} on {data_name}: {type(e).__name__}: {str(e)[:120]} -->")
                ref, ref_spread = _score(theirs, X, y, scaled, seeds, scoring)
                diff = 100 * (mine - ref)
                bad = not diff >= -args.points
                short += bad
                spread = (
                    f" (±{50 * mine_spread:.1f} / ±{50 * ref_spread:.1f})" if randomized else ""
                )
                label = f"{name}{'*' if randomized else ''} | {data_name} | {'scaled' if scaled else 'raw'}"
                flag = "**short**" if bad else ""
                seconds = time.perf_counter() - start
                print(
                    f"| {label} | {100 * mine:.1f} | {100 * ref:.1f} | {diff:+.1f}{spread} | {flag} |"
                    f" <!-- {seconds:.0f} s -->"
                )
                rows.append((name, data_name, scaled, mine, ref))
                if mine > 0 and ref > 0:
                    unit = "R^2" if regressor else "accuracy"
                    record(
                        name,
                        f"{data_name} {'scaled' if scaled else 'raw'}, 5-fold",
                        mine,
                        ref,
                        unit=unit,
                    )
                sys.stdout.flush()
    print(
        f"\n{short} cells more than {args.points:g} points below scikit-learn ({len(rows)} cells)"
    )
    return short


if __name__ == "__main__":
    sys.exit(min(main(), 100))
