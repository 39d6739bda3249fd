"""The benchmark record: ``benchtools.record`` rows, ``python -m jaxlearn bench --json`` and ``--compare``."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlearn import _bench
from jaxlearn.__main__ import main

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture
def benchtools(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import benchtools

    return benchtools


def test_record_ratio_is_the_speed_up_whatever_the_unit(benchtools, monkeypatch, tmp_path):
    path = tmp_path / "rows.jsonl"
    monkeypatch.setenv(_bench.RECORD_ENV, str(path))
    slow = benchtools.record("fit", "digits", 2.0, 1.0)  # seconds: jaxlearn twice as slow
    fast = benchtools.record("stream", "n=10", 300.0, 100.0, unit="examples/s", target=2.0)
    alone = benchtools.record("ceiling", "n=10", 5.0, None)
    assert slow["ratio"] == 0.5 and fast["ratio"] == 3.0 and alone["ratio"] is None
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["name"] for r in rows] == ["fit", "stream", "ceiling"]
    assert rows[1]["target"] == 2.0 and rows[0]["backend"] == "cpu" and rows[0]["device"]


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), "1"])
def test_record_refuses_figures_that_are_not_positive_numbers(benchtools, bad):
    with pytest.raises(ValueError, match="jaxlearn must be a positive finite number"):
        benchtools.record("x", "w", bad, 1.0)
    with pytest.raises(ValueError, match="reference must be a positive finite number or None"):
        benchtools.record("x", "w", 1.0, bad)


def test_bench_json_collects_every_scripts_rows_with_the_machine(tmp_path, capfd):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    shutil.copy(SCRIPTS / "benchtools.py", scripts)
    for name, seconds in (("one", 1.0), ("two", 4.0)):
        (scripts / f"bench_{name}.py").write_text(
            textwrap.dedent(f"""
                from benchtools import record
                print("table of {name}")
                record("{name} fit", "tiny", {seconds}, 2.0)
            """)
        )
    out = tmp_path / "record.json"
    assert _bench.run_scripts((), json_path=out, scripts_dir=scripts) == 0
    printed = capfd.readouterr().out  # the scripts print their tables to the inherited stdout
    assert "## bench_one.py" in printed and "table of one" in printed and "table of two" in printed
    record = json.loads(out.read_text())
    assert record["scripts"] == {"one": 0, "two": 0}
    assert [(r["script"], r["name"], r["ratio"]) for r in record["rows"]] == [
        ("bench_one", "one fit", 2.0),
        ("bench_two", "two fit", 0.5),
    ]
    assert record["machine"]["cpu_count"] >= 1 and record["versions"]["jax"]
    assert set(record) >= {"date", "commit", "machine", "versions", "rows"}
    assert _bench.run_scripts(("three",), scripts_dir=scripts) == 2


def test_a_failing_script_sets_the_status_and_keeps_the_others(tmp_path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "bench_bad.py").write_text("raise SystemExit(3)\n")
    (scripts / "bench_good.py").write_text("print('ok')\n")
    out = tmp_path / "r.json"
    assert _bench.run_scripts((), json_path=out, scripts_dir=scripts) == 3
    assert json.loads(out.read_text())["scripts"] == {"bad": 3, "good": 0}


def write_record(path, ratios, cpu="AMD EPYC"):
    rows = [
        {"script": "bench_x", "name": name, "workload": "w", "ratio": ratio, "device": "cpu"}
        for name, ratio in ratios.items()
    ]
    path.write_text(
        json.dumps({"machine": {"cpu": cpu, "cpu_count": 2}, "versions": {}, "rows": rows})
    )
    return str(path)


def test_compare_prints_the_ratios_that_moved_and_fails_on_a_slowdown(tmp_path, capsys):
    old = write_record(
        tmp_path / "old.json", {"a": 2.0, "b": 1.0, "c": 4.0, "gone": 1.0, "none": None}
    )
    new = write_record(
        tmp_path / "new.json", {"a": 2.1, "b": 1.5, "c": 2.0, "added": 1.0, "none": 1.0}
    )
    assert main(["bench", "--compare", old, new]) == 1
    out = capsys.readouterr().out
    assert "2 of 4 ratios moved by more than 20%" in out
    assert "| bench_x | b | w | 1x | 1.5x | 1.50x faster |" in out
    assert "| bench_x | c | w | 4x | 2x | 0.50x SLOWER |" in out
    assert "| bench_x | a |" not in out
    assert "only in OLD: bench_x / gone / w" in out and "only in NEW: bench_x / added / w" in out
    assert "different machines" not in out
    assert main(["bench", "--compare", old, new, "--threshold", "1.5"]) == 0  # 2x is within 150%


def test_compare_says_when_the_machines_differ(tmp_path, capsys):
    old = write_record(tmp_path / "old.json", {"a": 1.0})
    new = write_record(tmp_path / "new.json", {"a": 1.0}, cpu="NVIDIA H100")
    assert main(["bench", "--compare", old, new]) == 0
    assert "different machines" in capsys.readouterr().out


def test_compare_refuses_bad_input(tmp_path, capsys):
    good = write_record(tmp_path / "good.json", {"a": 1.0})
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "norows.json").write_text("{}")
    for path, message in (
        (tmp_path / "bad.json", "expected a benchmark record (JSON)"),
        (tmp_path / "norows.json", "with a 'rows' list"),
        (tmp_path / "missing.json", "expected a benchmark record (JSON)"),
    ):
        with pytest.raises(SystemExit):
            main(["bench", "--compare", good, str(path)])
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="expected threshold > 0, found 0"):
        _bench.compare(good, good, threshold=0)
    with pytest.raises(SystemExit):
        main(["bench", "online", "--compare", good, good])
    assert "takes no script names" in capsys.readouterr().err


def test_the_repository_scripts_all_record_rows():
    for script in sorted(SCRIPTS.glob("bench_*.py")):
        assert "record(" in script.read_text(), f"{script.name} never calls benchtools.record"


def test_python_dash_m_runs_the_command_line(tmp_path):
    import subprocess

    old = write_record(tmp_path / "old.json", {"a": 1.0})
    done = subprocess.run(
        [sys.executable, "-m", "jaxlearn", "bench", "--compare", old, old],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "0 of 1 ratios moved" in done.stdout
