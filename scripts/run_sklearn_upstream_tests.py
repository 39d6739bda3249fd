"""scikit-learn's own per-estimator test modules, run with jaxlearn's estimators swapped in.

The modules (``tests/_sklearn_upstream.py`` lists them: test_logistic, test_sgd, test_perceptron,
test_ridge, test_svm, test_neighbors, test_nearest_centroid, test_tree, test_forest, test_mlp,
test_multiclass) are copied from the installed wheel into a temporary directory with only their
imports of the shared estimators rewritten to ``jaxlearn.sklearn`` (``from sklearn.svm import
LinearSVC`` -> ``from jaxlearn.sklearn import LinearSVC``; ``svm.SVC`` through a namespace that holds
ours), and run by pytest, one process per module, two at a time, each test under a time limit
(``--timeout``) and each module under ``--module-limit``. A test counts as *ran with ours* only when
it constructed or fitted one of our classes (their ``__init__``/``fit``/``partial_fit`` are wrapped
to note it); the other tests exercise scikit-learn only and are counted apart.

    python scripts/run_sklearn_upstream_tests.py                  # print the tables (~20 min, 2 cores)
    python scripts/run_sklearn_upstream_tests.py --write          # and write the report
    python scripts/run_sklearn_upstream_tests.py --modules svm/tests/test_svm.py
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests import _sklearn_upstream as upstream  # noqa: E402

REPORT = REPO / "benchmarks" / "sklearn-upstream-tests.md"


# --- running --------------------------------------------------------------------------------------


def collect(workdir: pathlib.Path, modules) -> tuple[dict[str, int], dict[str, str]]:
    """The number of tests each module collects, and the collection error of those that fail."""
    command, env = upstream.upstream_command(modules, workdir / "collect.jsonl")
    run = subprocess.run(
        [*command, "--collect-only", "-q"], cwd=workdir, env=env, capture_output=True, text=True
    )
    counts = {m: 0 for m in modules}
    errors = {}
    for line in run.stdout.splitlines():
        match = re.fullmatch(r"(\S+\.py): (\d+)", line.strip())
        if match:
            counts[match[1]] = int(match[2])
        match = re.match(r"ERROR (\S+\.py) - (.*)", line)
        if match:
            errors[match[1]] = match[2]
    for module in errors:  # the full message of a collection error
        command, env = upstream.upstream_command([module], workdir / "collect.jsonl")
        detail = subprocess.run(
            [*command, "--collect-only", "-q", "--tb=short"],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
        ).stdout
        lines = [line for line in detail.splitlines() if re.match(r"E\s", line)]
        where = re.findall(r"^\S+\.py:(\d+): in <module>", detail, re.M)
        if lines:
            at = f" (line {where[-1]})" if where else ""
            errors[module] = re.sub(r"^E\s+", "", lines[-1]) + at
    return counts, errors


def run_module(workdir: pathlib.Path, module: str, timeout: float, limit: float, x64: bool):
    """Run one module; returns (its records by node id, seconds, whether the module limit cut it)."""
    record = workdir / (module.replace("/", "__") + ".jsonl")
    record.unlink(missing_ok=True)
    command, env = upstream.upstream_command([module], record, timeout=timeout, x64=x64)
    env["JAXLEARN_COMPILATION_CACHE"] = str(workdir / ("cache-" + pathlib.Path(module).stem))
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        process.wait(timeout=limit)
        cut = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        cut = True
    seconds = time.perf_counter() - start
    print(f"  {module}: {seconds:.0f} s{' (module limit)' if cut else ''}", file=sys.stderr)
    return upstream.read_records(record), seconds, cut


# --- classifying failures -------------------------------------------------------------------------

CAUSES = (
    "timeout (per-test limit)",
    "parameter not in our signature (construction or set_params)",
    "argument of a method not accepted",
    "sparse input refused",
    "multi-output y or NaN input refused",
    "our parameter/input validation (error raised in jaxlearn)",
    "attribute or method missing",
    "numerical or result difference",
    "expected error/warning not raised, or another message",
    "other assertion (behaviour differs)",
    "other error inside jaxlearn",
    "other error",
)


def cause(failure: dict) -> tuple[str, str]:
    """(cause, detail) of a failure record."""
    kind, message = failure["type"], failure["message"]
    if kind == "UpstreamTestTimeout":
        return CAUSES[0], ""
    match = re.search(r"(\w+)\.__init__\(\) got an unexpected keyword argument '(\w+)'", message)
    if match:
        return CAUSES[1], f"{match[1]}({match[2]}=)"
    match = re.search(r"Invalid parameter '(\w+)' for estimator (\w+)", message)
    if match:
        return CAUSES[1], f"{match[2]}({match[1]}=)"
    match = re.search(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'", message)
    if match:
        return CAUSES[2], f"{match[1]}({match[2]}=)"
    if "sparse" in message.lower():
        return CAUSES[3], ""
    if "y should be a 1d array" in message or "contains NaN" in message:
        return CAUSES[4], _short(message, 40)
    if failure["origin"] == "jaxlearn" and kind in (
        "InvalidParameterError",
        "ValueError",
        "TypeError",
        "NotImplementedError",
    ):
        return CAUSES[5], _short(message)
    if kind == "AttributeError":
        match = re.search(r"has no attribute '(\w+)'", message)
        return CAUSES[6], match[1] if match else _short(message)
    numeric = ("not almost equal", "Not equal to tolerance", "Arrays are not equal", "Mismatch")
    if kind == "AssertionError" and any(text in message for text in numeric):
        return CAUSES[7], ""
    if message.startswith(("DID NOT RAISE", "DID NOT WARN")) or "did not match" in message:
        return CAUSES[8], _short(message)
    if kind == "AssertionError":
        return CAUSES[9], ""
    if failure["through_jaxlearn"]:
        return CAUSES[10], f"{kind}: {_short(message)}"
    return CAUSES[11], f"{kind}: {_short(message)}"


def _short(message: str, width: int = 70) -> str:
    message = re.sub(r"\s+", " ", message).replace("|", "/")
    return message if len(message) <= width else message[: width - 1] + "…"


# --- the report -----------------------------------------------------------------------------------


def table(header, rows) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def tally(records) -> dict[str, int]:
    counts = collections.Counter(r["outcome"] for r in records)
    counts["skipped"] += counts.pop("xfailed", 0)
    return counts


def report(results, counts, errors, args, elapsed) -> str:
    import jax
    import sklearn

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "jaxlearn"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    if dirty:
        commit += " (with uncommitted changes under jaxlearn/)"
    lines = [
        "# scikit-learn's own tests, run with jaxlearn's estimators swapped in",
        "",
        f"Written by `scripts/run_sklearn_upstream_tests.py` at commit {commit}, "
        f"{datetime.date.today().isoformat()}; scikit-learn {sklearn.__version__}, "
        f"jax {jax.__version__}, float{'64' if args.x64 else '32'} "
        f"(jax_enable_x64 {'on' if args.x64 else 'off'}), {os.cpu_count()} CPU cores; "
        f"per-test limit {args.timeout:.0f} s, per-module limit {args.module_limit:.0f} s; "
        f"about {elapsed / 60:.0f} min on {args.jobs} processes.",
        "",
        "Each module is copied from the installed wheel with only its imports of the shared "
        f"estimators ({', '.join(upstream.SWAPPED_NAMES)}) rewritten to `jaxlearn.sklearn`'s "
        "classes, then run by pytest. **Ran with ours**: the tests that constructed or fitted one "
        "of our classes (recorded by wrapping their `__init__`/`fit`/`partial_fit`); the other "
        "tests exercise scikit-learn only and are not counted as ours. *Passed*, *failed*, "
        "*errors* (a fixture or setup failed) and *skipped* (skips and xfails) count tests that "
        "ran with ours. *Not run*: collected tests the module limit cut off.",
        "",
        "## Per module",
        "",
    ]
    rows, every = [], []
    for module in args.modules:
        records, seconds, cut = results.get(module, ({}, 0.0, False))
        ours = [r for r in records.values() if r["ours"]]
        every += ours
        t = tally(ours)
        note = f"collection error: {_short(errors[module], 90)}" if module in errors else ""
        not_run = counts.get(module, 0) - len(records)
        rows.append(
            [
                f"`{module}`",
                counts.get(module, 0),
                len(ours),
                len(records) - len(ours),
                t["passed"],
                t["failed"],
                t["error"],
                t["skipped"],
                not_run if cut else (not_run or ""),
                f"{seconds:.0f}",
                note,
            ]
        )
    t = tally(every)
    total_collected = sum(counts.get(m, 0) for m in args.modules)
    total_records = sum(len(results.get(m, ({},))[0]) for m in args.modules)
    rows.append(
        [
            "**all**",
            total_collected,
            f"**{len(every)}**",
            total_records - len(every),
            f"**{t['passed']}**",
            t["failed"],
            t["error"],
            t["skipped"],
            total_collected - total_records,
            f"{sum(results.get(m, (0, 0.0))[1] for m in args.modules):.0f}",
            "",
        ]
    )
    header = ["module", "collected", "ran with ours", "ran, scikit-learn only", "passed"]
    header += ["failed", "errors", "skipped", "not run", "seconds", "note"]
    lines += table(header, rows)

    lines += [
        "",
        "## Per estimator",
        "",
        "A test that used two of our classes counts for both.",
        "",
    ]
    rows = []
    for name in upstream.SWAPPED_NAMES:
        used = [r for r in every if name in r["ours"]]
        t = tally(used)
        rows.append([name, len(used), t["passed"], t["failed"], t["error"], t["skipped"]])
    lines += table(["estimator", "ran with ours", "passed", "failed", "errors", "skipped"], rows)

    failures = [r for r in every if r["failure"]]
    by_cause = collections.defaultdict(list)
    for r in failures:
        by_cause[cause(r["failure"])[0]].append(r)
    lines += ["", "## Failures and errors by cause", ""]
    lines += [f"{len(failures)} tests that ran with ours failed or errored:", ""]
    rows = []
    for name in CAUSES:
        if name not in by_cause:
            continue
        details = collections.Counter(cause(r["failure"])[1] for r in by_cause[name])
        details.pop("", None)
        top = ", ".join(f"{d} ×{n}" for d, n in details.most_common(8))
        more = len(details) - 8
        rows.append([name, len(by_cause[name]), top + (f", … ({more} more)" if more > 0 else "")])
    lines += table(["cause", "tests", "most frequent (scikit-learn's names)"], rows)

    lines += ["", "## Passed with ours", ""]
    for module in args.modules:
        passed = [
            r["nodeid"].split("::", 1)[1]
            for r in results.get(module, ({},))[0].values()
            if r["ours"] and r["outcome"] == "passed"
        ]
        if passed:
            lines.append(f"- `{module}` ({len(passed)}): " + ", ".join(f"`{p}`" for p in passed))
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", nargs="+", default=list(upstream.UPSTREAM_MODULES))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per test")
    parser.add_argument("--module-limit", type=float, default=420.0, help="seconds per module")
    parser.add_argument("--jobs", type=int, default=2, help="modules run at once")
    parser.add_argument("--x64", action="store_true", help="run with jax_enable_x64 on")
    parser.add_argument("--keep", type=pathlib.Path, help="work in this directory and keep it")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the report from the records in --keep"
    )
    parser.add_argument("--write", action="store_true", help=f"write {REPORT.relative_to(REPO)}")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sklearn-upstream-") as temporary:
        workdir = args.keep or pathlib.Path(temporary)
        workdir.mkdir(parents=True, exist_ok=True)
        upstream.prepare(workdir, args.modules)
        counts, errors = collect(workdir, args.modules)
        print(f"collected {sum(counts.values())} tests; running", file=sys.stderr)
        runs = workdir / "runs.json"
        if args.report_only:  # the records of an earlier run in --keep
            results = {
                m: (upstream.read_records(workdir / (m.replace("/", "__") + ".jsonl")), *run)
                for m, run in json.loads(runs.read_text()).items()
            }
        else:
            order = sorted(args.modules, key=lambda m: -counts.get(m, 0))  # the longest first
            with ThreadPoolExecutor(args.jobs) as pool:
                futures = {
                    m: pool.submit(
                        run_module, workdir, m, args.timeout, args.module_limit, args.x64
                    )
                    for m in order
                    if m not in errors
                }
                results = {m: future.result() for m, future in futures.items()}
            runs.write_text(json.dumps({m: r[1:] for m, r in results.items()}))
        elapsed = sum(r[1] for r in results.values()) / args.jobs
        text = report(results, counts, errors, args, elapsed)
    print(text)
    if args.write:
        REPORT.write_text(text)
        print(f"wrote {REPORT.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
