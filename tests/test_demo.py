"""`python -m jaxlearn demo` prints its table, every bound it shows respected."""

import re

from jaxlearn.__main__ import main


def test_demo_prints_the_table(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "learner" not in line]
    names = {row.split("|")[1].strip() for row in rows}
    assert {"perceptron", "margin perceptron", "halving", "hedge", "SOA", "hard-SVM (dual ascent)"} <= names
    for row in rows:  # "<mistakes> | <name> = <bound>": the count never exceeds the bound
        cells = [c.strip() for c in row.split("|")[1:-1]]
        count, bound = re.match(r"(\d+)", cells[2]), re.search(r"= ([\d.]+)$", cells[3])
        if count and bound and "regret" not in cells[2]:
            assert int(count.group(1)) <= float(bound.group(1)), row


def test_bench_lists_the_scripts_and_rejects_unknown_names(capsys):
    assert main(["bench", "no_such_benchmark"]) == 2
    err = capsys.readouterr().err
    assert "no_such_benchmark" in err and "online" in err and "svm" in err
