"""The benchmark record: ``python -m jaxlearn bench [--json PATH] [--compare OLD NEW]``.

Every ``scripts/bench_<name>.py`` prints its table and, through ``benchtools.record``, appends one JSON
row per compared figure to the file named by the environment variable :data:`RECORD_ENV`: the name,
the workload, jaxlearn's figure, the reference's figure, the unit and the ratio (jaxlearn's speed-up:
above 1 means jaxlearn is faster). :func:`run_scripts` runs the scripts one after the other, each in
its own process, and with ``json_path`` writes their rows with the machine, the versions and the
commit into one record; :func:`compare` prints the ratios that moved between two records by more than
a threshold. The records of each release live in the checkout's ``benchmarks/`` folder.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

#: The environment variable naming the JSON-lines file the scripts append their rows to.
RECORD_ENV = "JAXLEARN_BENCH_RECORD"

#: The benchmark scripts live in the source checkout, beside the package (they need scikit-learn,
#: river and the checkout's ``scripts/benchtools.py``).
SCRIPTS_DIR = Path(__file__).resolve().parent.parent / "scripts"


def available(scripts_dir: Path = SCRIPTS_DIR) -> list[str]:
    """The names ``<name>`` of the ``bench_<name>.py`` scripts, sorted."""
    return sorted(p.stem.removeprefix("bench_") for p in scripts_dir.glob("bench_*.py"))


def run_scripts(names=(), json_path=None, scripts_dir: Path = SCRIPTS_DIR) -> int:
    """Run ``bench_<name>.py`` for each name (all when empty); with ``json_path`` write the record.

    Returns a process status: 2 for unknown names or no scripts, else the OR of the scripts' statuses.
    """
    names = list(names)
    known = available(scripts_dir)
    if not known:
        print(
            f"no benchmark scripts in {scripts_dir} (they ship with the source checkout)",
            file=sys.stderr,
        )
        return 2
    unknown = sorted(set(names) - set(known))
    if unknown:
        print(f"unknown benchmark(s) {unknown}; expected some of {known}", file=sys.stderr)
        return 2
    status, rows, statuses = 0, [], {}
    for name in names or known:
        print(f"\n## bench_{name}.py\n", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            rows_file = Path(tmp) / "rows.jsonl"
            env = dict(os.environ, **{RECORD_ENV: str(rows_file)})
            code = subprocess.call([sys.executable, str(scripts_dir / f"bench_{name}.py")], env=env)
            if rows_file.exists():
                rows += [json.loads(line) for line in rows_file.read_text().splitlines() if line]
        statuses[name] = code
        status |= code
    if json_path is not None:
        record = {
            "format": 1,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(),
            "versions": versions(),
            "commit": commit(scripts_dir.parent),
            "scripts": statuses,
            "rows": rows,
        }
        Path(json_path).write_text(json.dumps(record, indent=1) + "\n")
        print(f"\nwrote {len(rows)} rows of {len(statuses)} script(s) to {json_path}")
    return status


def machine() -> dict:
    """The host (without starting JAX's backends: the scripts' rows name their device)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "node": platform.node(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "system": platform.platform(),
    }


def versions() -> dict:
    """Python's and the installed versions of jaxlearn, jax, jaxlib, numpy and scikit-learn."""
    out = {"python": platform.python_version()}
    for package in ("jaxlearn", "jax", "jaxlib", "numpy", "scikit-learn"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out


def commit(checkout: Path) -> str | None:
    """The checkout's ``HEAD`` commit, with ``+dirty`` if tracked files changed; None outside git."""
    try:
        head = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def load(path) -> dict:
    """A record written by :func:`run_scripts`, checked for its keys."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"expected a benchmark record (JSON) at {path}, found: {error}") from None
    if not isinstance(record, dict) or not isinstance(record.get("rows"), list):
        raise ValueError(f"expected a benchmark record with a 'rows' list at {path}")
    return record


def _key(row):
    return row["script"], row["name"], row["workload"]


def compare(old_path, new_path, threshold: float = 0.2, out=None) -> int:
    """Print the rows whose ratio moved by more than ``threshold`` (relative) from OLD to NEW.

    Returns 1 if some ratio fell by more than the threshold (a slowdown against the reference), else 0.
    """
    if not (isinstance(threshold, (int, float)) and math.isfinite(threshold) and threshold > 0):
        raise ValueError(f"expected threshold > 0, found {threshold!r}")
    say = functools.partial(print, file=out or sys.stdout)
    old, new = load(old_path), load(new_path)
    before = {_key(row): row for row in old["rows"]}
    after = {_key(row): row for row in new["rows"]}
    say(f"OLD {old_path}: {_describe(old)}\nNEW {new_path}: {_describe(new)}")
    if old.get("machine") != new.get("machine"):
        say(
            "note: the records come from different machines; their ratios may differ for that reason"
        )
    moved, both = [], [k for k in after if k in before]
    for key in both:
        a, b = before[key]["ratio"], after[key]["ratio"]
        if a is not None and b is not None and abs(math.log(b / a)) > math.log1p(threshold):
            moved.append((key, a, b, b / a))
    say(f"\n{len(moved)} of {len(both)} ratios moved by more than {threshold:.0%}")
    if moved:
        say("\n| script | name | workload | old ratio | new ratio | change |")
        say("|---|---|---|---:|---:|---:|")
        for (script, name, workload), a, b, change in moved:
            word = "faster" if change > 1 else "SLOWER"
            say(f"| {script} | {name} | {workload} | {a:.3g}x | {b:.3g}x | {change:.2f}x {word} |")
    for label, keys in (
        ("OLD", before.keys() - after.keys()),
        ("NEW", after.keys() - before.keys()),
    ):
        if keys:
            say(f"\nonly in {label}: " + "; ".join(" / ".join(k) for k in sorted(keys)))
    return int(any(change < 1 for *_, change in moved))


def _describe(record):
    versions, host = record.get("versions", {}), record.get("machine", {})
    devices = ", ".join(sorted({row.get("device", "?") for row in record["rows"]})) or "?"
    return (
        f"{record.get('date', '?')}, commit {str(record.get('commit'))[:12]}, "
        f"jax {versions.get('jax', '?')}, "
        f"{host.get('cpu', '?')} x{host.get('cpu_count', '?')}, devices {devices}, {len(record['rows'])} rows"
    )
