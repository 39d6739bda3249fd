"""The README's quickstart runs as written."""

import pathlib
import re

import matplotlib

matplotlib.use("Agg")

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_quickstart_runs(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has a python quickstart"
    assert len(blocks[0].splitlines()) <= 22
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "README.md", "exec"), {})
    assert (tmp_path / "sweep.png").stat().st_size > 0
    printed = capsys.readouterr().out
    mistakes, bound = re.match(r"(\d+) mistakes <= ([\d.]+)", printed).groups()
    assert int(mistakes) <= float(bound)


def test_every_python_block_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks[1:]:  # later blocks may use the names of earlier ones, as a reader would
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["traces"].mistake.shape == (3, 1_000)
    assert repr(namespace["learner"]) == "averaged_perceptron(eta=0.5)"
    assert namespace["trace"].loss.shape == (1_000,)
