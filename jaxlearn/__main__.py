"""Command line: ``python -m jaxlearn demo [--figure PATH]`` and ``python -m jaxlearn bench [name ...]``.

The demo (:mod:`jaxlearn._demo`) trains the learners of every family on generated data with known
margins and on scikit-learn's data sets, and prints two tables (online learners, batch learners) with
each measured quantity in its own column (mistakes, updates, regret and its comparator, training and
test accuracy, objective, margin) beside the theorem's bound and the throughput of the compiled loop
or fit. It also draws the online learners' mistakes and regret against their bounds, round by round,
to ``--figure`` (default ``jaxlearn_demo.png`` in the working directory; needs matplotlib).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from jaxlearn._demo import demo

#: The benchmark scripts live in the source checkout, beside the package (they need scikit-learn,
#: river and the checkout's ``scripts/benchtools.py``); ``bench`` runs them one after the other.
SCRIPTS_DIR = Path(__file__).resolve().parent.parent / "scripts"


def bench(names=()) -> int:
    """Run ``scripts/bench_<name>.py`` for each name (all of them when ``names`` is empty)."""
    available = sorted(p.stem.removeprefix("bench_") for p in SCRIPTS_DIR.glob("bench_*.py"))
    if not available:
        where = f"no benchmark scripts in {SCRIPTS_DIR} (they ship with the source checkout)"
        print(where, file=sys.stderr)
        return 2
    unknown = sorted(set(names) - set(available))
    if unknown:
        print(f"unknown benchmark(s) {unknown}; expected some of {available}", file=sys.stderr)
        return 2
    status = 0
    for name in names or available:
        print(f"\n## bench_{name}.py\n", flush=True)
        status |= subprocess.call([sys.executable, str(SCRIPTS_DIR / f"bench_{name}.py")])
    return status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxlearn", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["demo", "bench"], help="what to run")
    parser.add_argument("names", nargs="*", help="bench: which scripts/bench_<name>.py (default: all)")
    parser.add_argument(
        "--figure",
        default="jaxlearn_demo.png",
        metavar="PATH",
        help="demo: where to write the figure of measured against bound (default: %(default)s)",
    )
    parser.add_argument("--no-figure", action="store_true", help="demo: print the tables only")
    args = parser.parse_args(argv)
    if args.command == "demo":
        if args.names:
            parser.error("demo takes no further arguments")
        demo(figure=None if args.no_figure else args.figure)
        return 0
    return bench(args.names)


if __name__ == "__main__":
    sys.exit(main())
