"""Every ```python block of README.md and docs/*.md runs on its own, as a reader would paste it.

Each block is executed in a fresh namespace, in a temporary working directory, so a block that uses
a name it does not define or import fails here. A block that needs an optional extra (scikit-learn,
matplotlib, river, ...) is skipped where that module is not installed; the modules are read off the
block's imports. A block that cannot run in one process (several processes, a device count set
before JAX starts) is marked by the line ``<!-- not run: the reason -->`` just above its fence;
shell commands and output use ```bash or ```text fences, which are not run.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from jaxlearn import _registry

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^(?:<!-- (not run: [^>]*) -->\n)?```python\n(.*?)^```", re.S | re.M)


def _blocks():
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start(2)) + 1
            name = f"{document.relative_to(ROOT)}:{line}"
            found.append(pytest.param(document, line, match.group(2), match.group(1), id=name))
    return found


def _imported_modules(source: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
            if node.module == "jaxlearn":
                modules.update(alias.name for alias in node.names if alias.name == "sklearn")
    if any(name.startswith("jaxlearn.sklearn") for name in _dotted_imports(source)):
        modules.add("sklearn")  # jaxlearn.sklearn needs scikit-learn, the `sklearn` extra
    return modules


def _dotted_imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_documents_have_examples():
    assert len(_blocks()) >= 10


@pytest.mark.parametrize(("document", "line", "source", "not_run"), _blocks())
def test_block_runs_alone(document, line, source, not_run, tmp_path, monkeypatch):
    if not_run:
        compile(source, f"{document.name}:{line}", "exec")  # still valid Python
        pytest.skip(not_run)
    for module in sorted(_imported_modules(source)):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}, an optional extra")
    if "matplotlib" in _imported_modules(source):
        import matplotlib

        matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    # Line numbers in a traceback are those of the document.
    code = compile("\n" * (line - 1) + source, str(document.relative_to(ROOT)), "exec")
    # A block may register its own learner for io (as a user's module would): the registry is the
    # library's again after it, so the other tests see only jaxlearn's entries.
    monkeypatch.setattr(_registry, "_ENTRIES", dict(_registry._ENTRIES))
    exec(code, {"__name__": "__doc_example__"})
