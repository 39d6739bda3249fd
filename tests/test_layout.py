"""Layout rules, read off the sources (ast): who may import what.

- The core's private modules (``jaxlearn._checks``, ``jaxlearn._eager``, ``jaxlearn._lbfgs``,
  ``jaxlearn._learner``, ``jaxlearn._pipeline``, ``jaxlearn._progress``, ``jaxlearn._regularized``,
  ``jaxlearn._registry``, ``jaxlearn._sharding``, ``jaxlearn._threads``) are reached through
  ``jaxlearn.core`` only.
- A family (``jaxlearn.online``, ``jaxlearn.linear``, ...) imports its own private modules, and of the
  others only public names: never ``jaxlearn.<other>._module``, never a ``_name`` of another module.
- ``jaxlearn.theory`` uses public names only.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "jaxlearn"
MODULES = sorted(PACKAGE.rglob("*.py"))


CORE_INTERNALS = {
    "_checks",
    "_eager",
    "_lbfgs",
    "_learner",
    "_pipeline",
    "_progress",
    "_regularized",
    "_registry",
    "_sharding",
    "_threads",
}
# Private modules that the package's __init__ runs at import (configuration, not API).
PACKAGE_SETUP = {"jaxlearn._compilation_cache"}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _owner(module: str) -> str:
    """The family a dotted name belongs to: ``jaxlearn.linear._svm`` -> ``linear``."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    return "cli" if top in ("__main__", "_bench") or top.startswith("_demo") else top


def _is_module(dotted: str) -> bool:
    relative = pathlib.Path(*dotted.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").exists() or (PACKAGE / relative / "__init__.py").exists()


def _imports(source: str):
    """``(imported module, imported name or None, line)`` for every jaxlearn import in ``source``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("jaxlearn"):
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxlearn"):
            for alias in node.names:
                yield node.module, alias.name, node.lineno


def violations(here: str, source: str) -> list[str]:
    """The import rules broken by ``source``, the text of module ``here`` (``jaxlearn.trees._tree``)."""
    family, found = _owner(here), []
    for module, name, line in _imports(source):
        if here == "jaxlearn" and module in PACKAGE_SETUP:
            continue
        is_submodule = name is not None and _is_module(f"{module}.{name}")
        target = f"{module}.{name}" if is_submodule else module
        parts = target.split(".")[1:]
        where = f"{here}:{line} imports {module}" + (f" {name}" if name else "")
        if parts and parts[0] in CORE_INTERNALS:
            if here != "jaxlearn.core" and _owner(here) not in CORE_INTERNALS:
                found.append(f"{where}: core internals are reached through jaxlearn.core")
        elif any(p.startswith("_") for p in parts) and _owner(target) != family:
            found.append(f"{where}: a private module of another family")
        if name and not is_submodule and name.startswith("_") and _owner(target) != family:
            found.append(f"{where}: a private name of another module")
    return found


def test_import_rules():
    found = [v for path in MODULES for v in violations(_module_name(path), path.read_text())]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "here, source, broken",
    [
        ("jaxlearn.trees._tree", "from jaxlearn.linear._common import check_sample", True),
        ("jaxlearn.trees._tree", "import jaxlearn.linear._common", True),
        ("jaxlearn.trees._tree", "from jaxlearn.kernels import _hidden", True),
        ("jaxlearn.trees._tree", "from jaxlearn._checks import check_sample", True),
        ("jaxlearn.theory", "from jaxlearn.linear._svm import sample_margin", True),
        ("jaxlearn.trees._forest", "from jaxlearn.trees._tree import grow", False),
        ("jaxlearn.trees._tree", "from jaxlearn.core import check_sample", False),
        ("jaxlearn.core", "from jaxlearn._checks import check_sample", False),
        ("jaxlearn.linear._perceptron", "from jaxlearn import online", False),
    ],
)
def test_rules_can_fail(here, source, broken):
    assert bool(violations(here, source)) == broken
