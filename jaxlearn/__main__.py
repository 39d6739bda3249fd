"""Command line: ``python -m jaxlearn demo [--figure PATH]`` and ``python -m jaxlearn bench [name ...]``.

The demo (:mod:`jaxlearn._demo`) trains the learners of every family on generated data with known
margins and on scikit-learn's data sets, and prints two tables (online learners, batch learners) with
each measured quantity in its own column (mistakes, updates, regret and its comparator, training and
test accuracy, objective, margin) beside the theorem's bound and the throughput of the compiled loop
or fit. It also draws the online learners' mistakes and regret against their bounds, round by round,
to ``--figure`` (default ``jaxlearn_demo.png`` in the working directory; needs matplotlib).

``bench`` runs ``scripts/bench_<name>.py`` (all of them without names); ``--json PATH`` also writes every
script's rows into one record, and ``bench --compare OLD.json NEW.json`` prints the ratios that moved by
more than ``--threshold`` between two records (:mod:`jaxlearn._bench`).
"""

from __future__ import annotations

import argparse
import sys

from jaxlearn import _bench, enable_compilation_cache
from jaxlearn._demo import demo


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxlearn", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["demo", "bench"], help="what to run")
    parser.add_argument(
        "names", nargs="*", help="bench: which scripts/bench_<name>.py (default: all)"
    )
    parser.add_argument(
        "--figure",
        default="jaxlearn_demo.png",
        metavar="PATH",
        help="demo: where to write the figure of measured against bound (default: %(default)s)",
    )
    parser.add_argument("--no-figure", action="store_true", help="demo: print the tables only")
    parser.add_argument(
        "--json", metavar="PATH", help="bench: also write every script's rows to PATH"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="bench: the ratios that moved from OLD to NEW",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.2,
        help="bench --compare: the relative change of a ratio that counts as moved (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        if args.names:
            parser.error("demo takes no further arguments")
        enable_compilation_cache()  # a second run reads the compiled programs back
        demo(figure=None if args.no_figure else args.figure)
        return 0
    if args.compare:
        if args.names or args.json:
            parser.error("bench --compare takes no script names and no --json")
        try:
            return _bench.compare(*args.compare, threshold=args.threshold)
        except ValueError as error:
            parser.error(str(error))
    return _bench.run_scripts(args.names, json_path=args.json)


if __name__ == "__main__":
    sys.exit(main())
