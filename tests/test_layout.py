"""Layout rules, read off the sources (ast): who may import what, and what is API.

- A family (``jaxlearn.online``, ``jaxlearn.linear``, ``jaxlearn.kernels``, ...) imports its own
  private modules and, of the others, public names only: never ``jaxlearn.<other>._module``, never a
  ``_name`` of another module.
- The shared private top-level modules (``jaxlearn._checks``, ``jaxlearn._regularized``,
  ``jaxlearn._sharding``, ...) may be imported by any family directly.
- Every public module has an ``__all__`` of public names it defines; ``jaxlearn.core.__all__`` is
  the API of the core, and the library uses no other name of ``jaxlearn.core``.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import subprocess
import sys
import textwrap
import warnings

import pytest

import jaxlearn
from jaxlearn import core

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "jaxlearn"
MODULES = sorted(PACKAGE.rglob("*.py"))
CLI = ("__main__", "_bench", "_demo")  # the command line: private to itself, shared with no family

CORE_API = {
    "Learner",
    "BatchLearner",
    "Transform",
    "PipelineState",
    "InitFn",
    "UpdateFn",
    "PredictFn",
    "CheckFn",
    "RunBlockFn",
    "FitFn",
    "run",
    "predict_batch",
    "pipeline",
    "learner_factory",
    "hyperparameters",
    "replace",
    "loadable",
    "Interval",
    "POSITIVE",
    "NON_NEGATIVE",
    "NON_NEGATIVE_INT",
    "POSITIVE_INT",
    "UNIT",
    "OPEN_UNIT",
}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _owner(module: str) -> str:
    """The family a dotted name belongs to: ``jaxlearn.linear._svm`` -> ``linear``."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    return "cli" if top in CLI else top


def _is_shared(module: str) -> bool:
    """A private top-level module every family may import (``jaxlearn._checks``)."""
    parts = module.split(".")
    return len(parts) == 2 and parts[1].startswith("_") and _owner(module) != "cli"


def _is_public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


def _is_module(dotted: str) -> bool:
    relative = pathlib.Path(*dotted.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").exists() or (
        PACKAGE / relative / "__init__.py"
    ).exists()


def _imports(source: str):
    """``(imported module, imported name or None, line)`` for every jaxlearn import in ``source``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("jaxlearn"):
                    yield alias.name, None, node.lineno
        elif (
            isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxlearn")
        ):
            for alias in node.names:
                yield node.module, alias.name, node.lineno


def violations(here: str, source: str) -> list[str]:
    """The import rules broken by ``source``, the text of module ``here`` (``jaxlearn.trees._tree``)."""
    family, found = _owner(here), []
    for module, name, line in _imports(source):
        is_submodule = name is not None and _is_module(f"{module}.{name}")
        target = f"{module}.{name}" if is_submodule else module
        where = f"{here}:{line} imports {module}" + (f" {name}" if name else "")
        private = not _is_public(target)
        if private and _owner(target) != family and not _is_shared(target):
            found.append(f"{where}: a private module of another family")
        if name and not is_submodule and name.startswith("_") and _owner(target) != family:
            found.append(f"{where}: a private name of another module")
    return found


def core_names_used(source: str) -> dict[str, int]:
    """``{name: line}`` of every name of ``jaxlearn.core`` that ``source`` imports or reads."""
    tree, aliases, used = ast.parse(source), set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "jaxlearn":
            aliases |= {a.asname or a.name for a in node.names if a.name == "core"}
        elif isinstance(node, ast.ImportFrom) and node.module == "jaxlearn.core":
            used.update({a.name: node.lineno for a in node.names})
        elif isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == "jaxlearn.core" and a.asname}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Name) and base.id in aliases:
                used.setdefault(node.attr, node.lineno)
            elif isinstance(base, ast.Attribute) and base.attr == "core":  # jaxlearn.core.X
                if isinstance(base.value, ast.Name) and base.value.id == "jaxlearn":
                    used.setdefault(node.attr, node.lineno)
    return used


def api_problems(here: str, source: str) -> list[str]:
    """What is wrong with the ``__all__`` of public module ``here``: missing, not a list of string
    literals, a private or duplicated name, or a name the module does not bind."""
    tree = ast.parse(source)
    bound, listed = set(), None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                if isinstance(target, ast.Name) and target.id == "__all__":
                    try:
                        listed = ast.literal_eval(node.value)
                    except ValueError:
                        return [f"{here}: __all__ is not a literal list of names"]
    if listed is None:
        return [f"{here}: no __all__"]
    found = [f"{here}: __all__ lists the private name {n!r}" for n in listed if n.startswith("_")]
    twice = sorted(n for n in set(listed) if listed.count(n) > 1)
    found += [f"{here}: __all__ lists {n!r} twice" for n in twice]
    found += [f"{here}: __all__ lists {n!r}, not bound there" for n in listed if n not in bound]
    return found


# --- the rules on the package --------------------------------------------------------------------


def test_import_rules():
    found = [v for path in MODULES for v in violations(_module_name(path), path.read_text())]
    assert not found, "\n".join(found)


def test_every_public_module_has_an_all_of_public_names():
    public = [path for path in MODULES if _is_public(_module_name(path))]
    assert len(public) > 15
    found = [p for path in public for p in api_problems(_module_name(path), path.read_text())]
    assert not found, "\n".join(found)


def test_every_name_in_an_all_resolves():
    for path in MODULES:
        name = _module_name(path)
        if not _is_public(name):
            continue
        try:
            module = importlib.import_module(name)
        except ImportError as error:  # an optional extra (scikit-learn) not installed
            pytest.skip(f"{name}: {error}")
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert not missing, f"{name}.__all__ lists names it lacks: {missing}"


def test_core_all_is_the_api():
    assert set(core.__all__) == CORE_API
    assert len(core.__all__) == len(CORE_API)
    assert {"BatchLearner", "Learner", "predict_batch", "run"} <= set(jaxlearn.__all__)


def test_the_library_uses_only_the_api_of_core():
    found = []
    for path in MODULES:
        here = _module_name(path)
        for name, line in core_names_used(path.read_text()).items():
            if name not in CORE_API:
                found.append(f"{here}:{line} uses jaxlearn.core.{name}, not in core.__all__")
    assert not found, "\n".join(found)


# --- the names that left core --------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(core._MOVED))
def test_a_name_that_left_core_resolves_with_a_deprecation_warning(name):
    module, there = core._MOVED[name]
    assert name not in vars(core), f"core still binds {name}: no warning would be given"
    expected = rf"jaxlearn\.core\.{name} is private now"
    with pytest.warns(DeprecationWarning, match=expected) as record:
        value = getattr(core, name)
    assert value is getattr(importlib.import_module(module), there)
    message = str(record[0].message)
    assert module in message or "jaxlearn.io.registered" in message
    assert record[0].filename == __file__  # the warning points at the caller


def test_from_import_of_a_moved_name_warns_and_unknown_names_raise():
    with pytest.warns(DeprecationWarning, match="jaxlearn._checks"):
        from jaxlearn.core import check_sample  # noqa: F401
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        core.no_such_name  # noqa: B018
    assert not set(core._MOVED) & CORE_API


WARNS_NOTHING = """
import importlib, pkgutil, warnings
warnings.filterwarnings("error", message=r"jaxlearn\\.core\\.", category=DeprecationWarning)
import jaxlearn
for info in pkgutil.walk_packages(jaxlearn.__path__, "jaxlearn."):
    if info.name not in ("jaxlearn.__main__",):
        try:
            importlib.import_module(info.name)
        except ImportError as error:
            if "jaxlearn.core" in str(error):
                raise
import jax, jax.numpy as jnp
from jaxlearn import core, datasets, io, linear, online, trees
X, y, _ = datasets.separable(jax.random.PRNGKey(0), 64, 3, 0.1)
learner = online.perceptron()
state, trace = core.run(learner, learner.init(X[0]), X, y)
core.predict_batch(learner, state, X)
svm = linear.soft_svm(0.1, 50)
svm.predict(svm.fit(jax.random.PRNGKey(1), X, y), X)
tree = trees.decision_tree(2)
tree.predict(tree.fit(jax.random.PRNGKey(2), X, (y > 0).astype(jnp.int32)), X)
io.registered()
print("ok")
"""


def test_the_library_triggers_none_of_these_warnings():
    command = [sys.executable, "-c", WARNS_NOTHING]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


# --- the checkers can fail -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "here, source, broken",
    [
        ("jaxlearn.trees._tree", "from jaxlearn.linear._common import check_sample", True),
        ("jaxlearn.trees._tree", "import jaxlearn.linear._common", True),
        ("jaxlearn.trees._tree", "from jaxlearn.online import _perceptron", True),
        ("jaxlearn.trees._tree", "from jaxlearn.kernels import _hidden", True),
        ("jaxlearn.trees._tree", "from jaxlearn._checks import _unreadable", True),
        ("jaxlearn.trees._tree", "from jaxlearn._demo._online_rows import rows", True),
        ("jaxlearn.theory", "from jaxlearn.linear._svm import sample_margin", True),
        ("jaxlearn.trees._forest", "from jaxlearn.trees._tree import grow", False),
        ("jaxlearn.trees._tree", "from jaxlearn._checks import check_sample", False),
        ("jaxlearn.theory._pac", "from jaxlearn import _checks", False),
        ("jaxlearn.core", "from jaxlearn._checks import check_sample", False),
        ("jaxlearn", "from jaxlearn._compilation_cache import enable_compilation_cache", False),
        ("jaxlearn.linear._perceptron", "from jaxlearn import online", False),
        ("jaxlearn._demo", "from jaxlearn._demo._online_rows import rows", False),
    ],
)
def test_import_rules_can_fail(here, source, broken):
    assert bool(violations(here, source)) == broken


@pytest.mark.parametrize(
    "source, names",
    [
        ("from jaxlearn import core\ncore.check_sample(X, y)\ncore.run()", {"check_sample", "run"}),
        ("from jaxlearn.core import as_array, Learner", {"as_array", "Learner"}),
        ("import jaxlearn.core as c\nc.float_dtype(x)", {"float_dtype"}),
        ("import jaxlearn\njaxlearn.core.sign_label(s)", {"sign_label"}),
        ("from jaxlearn._checks import check_sample\ncheck_sample(X, y)", set()),
    ],
)
def test_core_names_used_can_fail(source, names):
    assert set(core_names_used(source)) == names


@pytest.mark.parametrize(
    "source, broken",
    [
        ("x = 1", True),
        ("from jaxlearn.foo._a import _b\n__all__ = ['_b']", True),
        ("__all__ = ['missing']", True),
        ("def f(): pass\n__all__ = ['f', 'f']", True),
        ("__all__ = sorted(globals())", True),
        ("from jaxlearn.foo._a import b\ndef c(): pass\n__all__ = ['b', 'c']", False),
    ],
)
def test_api_problems_can_fail(source, broken):
    assert bool(api_problems("jaxlearn.foo", textwrap.dedent(source))) == broken
