"""`python -m jaxlearn demo`: two tables, one quantity per column, every bound it shows respected, and
the figure written where ``--figure`` says. The demo runs once, in one test (so that pytest-xdist
cannot run it on two workers); the checks on its output are functions of that output."""

import contextlib
import io
import re
import sys

import pytest

from jaxlearn.__main__ import main
from jaxlearn._demo import BATCH_COLUMNS, ONLINE_COLUMNS
from jaxlearn._demo._figure import write_figure

UNITS = ("rounds/s", "SGD steps/s", "examples/s", "queries/s")


def _cells(line, rule):
    """The stripped cells of a table ``line``, cut at the column widths of the table's ``rule`` line."""
    assert len(line) == len(rule), line
    cells, start = [], 1
    for segment in rule[1:-1].split("|"):
        cells.append(line[start : start + len(segment)].strip())
        start += len(segment) + 1
    return tuple(cells)


def _tables(out):
    """``{header tuple: [row dict, ...]}`` for each Markdown table printed (cut at the widths of its
    rule line: cells may contain ``|``, as in ``||u||``)."""
    lines, tables = out.splitlines(), {}
    for i, rule in enumerate(lines):
        if rule.startswith("|-"):
            header, rows = _cells(lines[i - 1], rule), []
            for line in lines[i + 1 :]:
                if not line.startswith("| "):
                    break
                rows.append(dict(zip(header, _cells(line, rule))))
            tables[header] = rows
    return tables


def check_columns(out):
    """Each quantity in its own column, of its own form; a regret always names its comparator."""
    tables = _tables(out)
    assert set(tables) == {ONLINE_COLUMNS, BATCH_COLUMNS}
    online, batch = tables[ONLINE_COLUMNS], tables[BATCH_COLUMNS]
    names = {row["learner"] for row in online + batch}
    assert {"perceptron, round by round", "margin perceptron", "halving", "hedge", "SOA"} <= names
    assert {"hard-SVM (dual ascent)", "batch perceptron", "multiclass perceptron"} <= names
    for row in online + batch:
        for column in (
            "mistakes",
            "updates",
        ):  # counts only: no regret, margin or objective in them
            assert re.fullmatch(r"(\d+( \(budget full!\))?)?", row.get(column, "")), row
        for column in ("regret", "objective", "margin", "train acc", "test acc"):
            assert re.fullmatch(r"(-?\d+(\.\d+)?)?", row.get(column, "")), row
        for column in ("train acc", "test acc"):
            assert row.get(column, "") == "" or 0 <= float(row[column]) <= 1, row
        assert row["throughput"] == "" or row["throughput"].endswith(UNITS), row
    for row in online:  # a regret always names its comparator, OGD's included
        assert bool(row["regret"]) == bool(row["comparator"]), row
    ogd = next(row for row in online if row["learner"].startswith("OGD on"))
    assert "||u|| <= U" in ogd["comparator"] and ogd["regret"] and ogd["mistakes"]
    held_out = [row for row in batch if row["data"] == "digits, 70/30 split"]
    assert held_out and all(row["train acc"] and row["test acc"] for row in held_out)
    assert "(test)" not in out


def check_bounds(out):
    """Every bound names the quantity it bounds, which is in the row and within the bound."""
    checked = 0
    for rows in _tables(out).values():
        for row in rows:
            bound = row.get("bound", "")
            upper = re.fullmatch(r"(mistakes|updates|regret) <= .* = ([\d.]+)", bound)
            lower = re.fullmatch(r"(margin) >= ([\d.]+).*", bound)
            assert upper or lower or bound in ("", "none (not separable)"), row
            if upper:
                assert row[upper.group(1)], row  # the bounded quantity is in the row
                assert float(row[upper.group(1)]) <= float(upper.group(2)), row
            if lower:
                assert float(row["margin"]) >= float(lower.group(2)), row
            checked += bool(upper or lower)
    assert checked >= 12


def check_figure(out, figure):
    """The figure is a PNG at the path asked for, and the demo says where."""
    assert figure.stat().st_size > 10_000
    assert f"Figure (measured against bound, online learners): {figure}" in out
    with open(figure, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_demo_tables_bounds_and_figure(tmp_path):
    figure = tmp_path / "measured_vs_bound.png"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["demo", "--figure", str(figure)]) == 0
    check_columns(out.getvalue())
    check_bounds(out.getvalue())
    check_figure(out.getvalue(), figure)


def test_without_matplotlib_the_figure_is_skipped_with_a_word(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails as if not installed
    message = write_figure({"mistakes": [], "ogd": None, "experts": []}, str(tmp_path / "f.png"))
    assert "matplotlib is not installed" in message and not (tmp_path / "f.png").exists()


def test_demo_refuses_extra_arguments(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "extra"])
    assert "demo takes no further arguments" in capsys.readouterr().err


def test_bench_lists_the_scripts_and_rejects_unknown_names(capsys):
    assert main(["bench", "no_such_benchmark"]) == 2
    err = capsys.readouterr().err
    assert "no_such_benchmark" in err and "online" in err and "svm" in err
