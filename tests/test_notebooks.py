"""The notebooks run, and the outputs committed with them are the ones a fresh run gives.

Every notebook under ``notebooks/`` is executed top to bottom in its own Jupyter kernel (one test per
notebook, so ``pytest -n auto`` runs them in parallel) by ``scripts/execute_notebooks.py``, with
``MPLBACKEND=Agg`` and the notebooks folder as working directory. The notebooks assert the bounds they
illustrate, so a violated bound fails here too. The fresh run is then compared with the stored one:

- the stored code cells were executed in order (``execution_count`` 1, 2, ... top to bottom);
- each cell's printed text (stdout, and the ``text/plain`` of results and displays) is the same once
  normalised: memory addresses, version numbers and timings removed, whitespace collapsed, and
  numbers equal to about 3 significant digits;
- a stored cell shows as many images as the fresh one (figures are compared by presence only).

stderr (warnings, which depend on library versions) is not compared. The stored outputs are those of
programs compiled as a user's are; the test's kernel compiles with most of XLA's optimisations off, as
the rest of the suite does (the root ``conftest.py``): a quarter less time for the nine notebooks, and
the printed numbers agree to the 3 digits compared. ``JAXLEARN_REFRESH_NOTEBOOKS`` runs them as a user
does. To refresh the stored outputs:
``python scripts/execute_notebooks.py notebooks/<name>.ipynb``, or run this test with
``JAXLEARN_REFRESH_NOTEBOOKS=1``.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
from pathlib import Path

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
REFRESH = "JAXLEARN_REFRESH_NOTEBOOKS"
#: Two printed numbers are equal when they agree to about 3 significant digits (or are both ~0).
RTOL, ATOL = 5e-3, 1e-6

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_VERSION = re.compile(r"\b\d+\.\d+\.\d+[\w.+-]*")
_TIMING = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?\s?(?:s|ms|us|µs|ns|min)\b")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _load_script():
    path = ROOT / "scripts" / "execute_notebooks.py"
    spec = importlib.util.spec_from_file_location("execute_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- normalisation ---------------------------------------------------------------------------------


def scrub(text: str, keep_lines: bool = False) -> str:
    """``text`` without what legitimately changes between runs: addresses, versions, timings, spacing
    (runs of whitespace become one space; with ``keep_lines``, line breaks stay)."""
    text = _ADDRESS.sub("0x?", text)
    text = _VERSION.sub("<version>", text)
    text = _TIMING.sub("<time>", text)
    if keep_lines:
        return "\n".join(" ".join(line.split()) for line in text.splitlines())
    return " ".join(text.split())


def template(text: str) -> tuple[str, np.ndarray]:
    """Scrubbed ``text`` with every number replaced by ``#``, and the numbers in order."""
    text = scrub(text)
    return _NUMBER.sub("#", text), np.array([float(n) for n in _NUMBER.findall(text)])


def same_text(a: str, b: str) -> bool:
    """``a`` and ``b`` read the same: equal templates, numbers equal to about 3 significant digits."""
    (ta, na), (tb, nb) = template(a), template(b)
    return ta == tb and na.shape == nb.shape and bool(np.allclose(na, nb, rtol=RTOL, atol=ATOL))


def rounded(text: str) -> str:
    """Scrubbed ``text``, line by line, with numbers to 3 significant digits (the failure's diff)."""
    return _NUMBER.sub(lambda m: f"{float(m.group()):.3g}", scrub(text, keep_lines=True))


def cell_record(cell) -> dict:
    """What is compared of one code cell: its stdout, its ``text/plain`` outputs, its image count."""
    stdout = "".join(
        o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout"
    )
    data = [o.data for o in cell.outputs if o.output_type in ("display_data", "execute_result")]
    return {
        "stdout": stdout,
        "text/plain": "\n".join(d["text/plain"] for d in data if "text/plain" in d),
        "images": sum(any(k.startswith("image/") for k in d) for d in data),
    }


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def order_problems(nb) -> list[str]:
    """Why the stored notebook is not one top-to-bottom run (empty if it is)."""
    counts = [c.execution_count for c in code_cells(nb)]
    problems = []
    if counts != list(range(1, len(counts) + 1)):
        problems.append(f"execution counts {counts}, expected 1..{len(counts)} in order")
    if any(o.output_type == "error" for c in code_cells(nb) for o in c.outputs):
        problems.append("a stored cell shows an error")
    return problems


def output_differences(stored, fresh) -> list[str]:
    """Per code cell, how the stored outputs differ from the fresh run's (empty if they agree)."""
    found = []
    for i, (old, new) in enumerate(zip(code_cells(stored), code_cells(fresh)), start=1):
        a, b = cell_record(old), cell_record(new)
        if a["images"] != b["images"]:
            found.append(
                f"code cell {i}: {a['images']} stored image(s), the fresh run shows {b['images']}"
            )
        for kind in ("stdout", "text/plain"):
            if not same_text(a[kind], b[kind]):
                old, new = rounded(a[kind]).splitlines(), rounded(b[kind]).splitlines()
                diff = difflib.unified_diff(old, new, "stored", "fresh", lineterm="")
                found.append(f"code cell {i} {kind} differs:\n" + "\n".join(list(diff)[:40]))
    return found


def _refresh_hint(path: Path) -> str:
    return (
        f"refresh the stored outputs: `python scripts/execute_notebooks.py notebooks/{path.name}` "
        f"(or run this test with {REFRESH}=1), then commit the notebook"
    )


# --- the normalisation itself (cheap) ------------------------------------------------------------------


def test_normalisation_ignores_what_varies_and_keeps_what_matters():
    assert same_text("ran in 19.9 s at 0x7fd0 (jax 0.10.2)", "ran in 3 s at 0x1a2b (jax 0.11.0rc1)")
    assert same_text("regret   964.89,\nbound 1070.04", "regret 964.9, bound 1070.0")
    assert same_text("[1.0 2.5]", "[1.0001   2.5]") and same_text("gap 1.2e-07", "gap 0.0")
    assert not same_text("68 mistakes", "70 mistakes")
    assert not same_text("regret 140.0", "regret 141.0")
    assert not same_text("4 passes", "4 passes and more")
    assert not same_text("[1 2 3]", "[1 2]")
    assert rounded("eta = 0.0424264,  T = 5000\nin 2.5 s") == "eta = 0.0424, T = 5e+03\nin <time>"


def test_differences_name_the_cell():
    stored, fresh = nbformat.v4.new_notebook(), nbformat.v4.new_notebook()
    for nb, text in ((stored, "mistakes 68\n"), (fresh, "mistakes 75\n")):
        cell = nbformat.v4.new_code_cell("print(...)", execution_count=1)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        nb.cells = [cell]
    assert order_problems(stored) == []
    (message,) = output_differences(stored, fresh)
    assert message.startswith("code cell 1 stdout differs")
    assert "-mistakes 68" in message and "+mistakes 75" in message
    image = nbformat.v4.new_output("display_data", data={"image/png": ""})
    fresh.cells[0].outputs = stored.cells[0].outputs + [image]
    assert "0 stored image(s), the fresh run shows 1" in output_differences(stored, fresh)[0]
    stored.cells[0].execution_count = None
    assert order_problems(stored)


# --- the notebooks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_executed(path: Path) -> None:
    """Cheap: the committed notebook is one top-to-bottom run with outputs."""
    nb = nbformat.read(path, as_version=4)
    problems = order_problems(nb)
    if not any(c.outputs for c in code_cells(nb)):
        problems.append("no stored outputs")
    assert not problems, f"{path.name}: " + "; ".join(problems) + f"; {_refresh_hint(path)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes_with_the_stored_outputs(path: Path) -> None:
    script = _load_script()
    stored = nbformat.read(path, as_version=4)
    refresh = bool(os.environ.get(REFRESH))
    env = {} if refresh else {"JAX_DISABLE_MOST_OPTIMIZATIONS": "1"}
    try:
        fresh = script.execute(path, env)
    except nbclient.exceptions.CellExecutionError as err:
        pytest.fail(f"{path.name}: a cell raised\n{err}", pytrace=False)
    if refresh:
        script.store(fresh, path)
        return
    differences = output_differences(stored, fresh)
    if differences:
        pytest.fail(
            f"{path.name}: the stored outputs are not those of a fresh run; {_refresh_hint(path)}\n\n"
            + "\n\n".join(differences),
            pytrace=False,
        )
