"""Execute every notebook under ``notebooks/`` top to bottom; a cell that raises fails its test.

One test per notebook, so ``pytest -n auto`` (pytest-xdist) runs the notebooks in parallel, each in
its own Jupyter kernel. The notebooks assert the bounds they illustrate, so a violated bound fails
here too. Kernels run with ``MPLBACKEND=Agg`` and with the notebooks folder as working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
CELL_TIMEOUT_S = 600


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_S,
        startup_timeout=180,
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    try:
        client.execute(env=env)
    except nbclient.exceptions.CellExecutionError as err:
        pytest.fail(f"{path.name}: a cell raised\n{err}", pytrace=False)
