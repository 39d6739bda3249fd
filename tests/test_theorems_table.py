"""``docs/theorems.md``, the table of guarantees, against the code.

Every test the table names exists (found with ``ast``: module functions, methods of test classes and
parametrized functions alike), every public function of ``jaxlearn.theory`` and every other name in the
function column exists and appears, every row names a test or is one of the gaps listed below, and every
row of the specification's summary table (SPEC section 22) has a row, matched by the algorithm's name in
bold at the start of the first cell (checked when the specification sits beside the repository).
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
from pathlib import Path

import pytest

import jaxlearn.theory

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "theorems.md"
SPEC = ROOT.parent / "shared" / "SPEC.md"

# [`tests/path.py::test_name`](../tests/path.py)
TEST_LINK = re.compile(r"\[`(tests/[\w/]+\.py)::(\w+)`\]\(\.\./(tests/[\w/]+\.py)\)")
# `family.name` or `family.name(arguments)` in the function column
NAME = re.compile(r"`(\w+)\.(\w+)[(`]")
KEY = re.compile(r"^\*\*(.+?)\*\*")
GAP_MARKS = ("*pending*", "*no test yet*")

# Rows with no test yet, by the start of their first cell. Filling one means deleting it here.
GAPS = ()


@functools.lru_cache(maxsize=None)
def rows() -> tuple[tuple[str, ...], ...]:
    """The body rows of every table of the page, as tuples of their four stripped cells."""
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| guarantee |"):
            continue
        found.append(tuple(cell.strip() for cell in line.strip().strip("|").split(" | ")))
    return tuple(found)


def named_tests() -> list[tuple[str, str]]:
    return sorted({(path, name) for row in rows() for path, name, _ in TEST_LINK.findall(row[-1])})


@functools.lru_cache(maxsize=None)
def defined_functions(path: str) -> frozenset[str]:
    """The names of the functions defined in a test file, at module level or in (nested) classes."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names, bodies = set(), [tree.body]
    while bodies:
        for node in bodies.pop():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.ClassDef):
                bodies.append(node.body)
    return frozenset(names)


def summary_keys() -> list[str]:
    """The first column of SPEC section 22, the summary table: one algorithm or object per row."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("\n## 22.") :]
    following = section.find("\n## ", 1)
    section = section if following < 0 else section[:following]
    keys = []
    for line in section.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            keys.append(line.strip().strip("|").split("|")[0].strip())
    return keys[1:]  # the header row names the columns


def test_every_row_has_four_cells_and_starts_with_a_name_in_bold():
    assert len(rows()) > 60
    for row in rows():
        assert len(row) == 4, row
        assert KEY.match(row[0]), (
            f"the first cell should start with the algorithm in bold: {row[0]}"
        )


@pytest.mark.parametrize("path, name", named_tests(), ids=[f"{p}::{n}" for p, n in named_tests()])
def test_every_named_test_exists(path, name):
    assert (ROOT / path).is_file(), f"docs/theorems.md names {path}, which does not exist"
    assert name.startswith("test_"), f"{path}::{name} is not a test"
    assert name in defined_functions(path), (
        f"docs/theorems.md names {path}::{name}, not defined there"
    )


def test_every_link_opens_the_file_of_its_test():
    links = [match for row in rows() for match in TEST_LINK.findall(row[-1])]
    assert len(links) > 60
    wrong = [f"{path}::{name} -> {target}" for path, name, target in links if path != target]
    assert not wrong, wrong


def test_every_row_names_a_test_or_is_a_listed_gap():
    untested = [row[0] for row in rows() if not TEST_LINK.search(row[-1])]
    for cell in untested:
        row = next(r for r in rows() if r[0] == cell)
        assert row[-1] in GAP_MARKS, f"a row without a test must say {GAP_MARKS}: {cell}"
        assert any(cell.startswith(gap) for gap in GAPS), (
            f"a row without a test is not a listed gap: {cell}"
        )
    for gap in GAPS:
        matches = [cell for cell in untested if cell.startswith(gap)]
        tested = [row[0] for row in rows() if row[0].startswith(gap) and row not in untested]
        assert len(matches) == 1, f"the gap {gap!r} should match one untested row; tested: {tested}"
    marked = [
        row[0] for row in rows() if row[-1] in GAP_MARKS or any(m in row[-1] for m in GAP_MARKS)
    ]
    assert sorted(marked) == sorted(untested), "a row names a test and is marked as a gap"


def test_every_theory_function_is_in_the_table():
    mentioned = {
        name for row in rows() for family, name in NAME.findall(row[2]) if family == "theory"
    }
    public = {name: getattr(jaxlearn.theory, name) for name in jaxlearn.theory.__all__}
    functions = {
        name for name, value in public.items() if not isinstance(value, type)
    }  # not the NamedTuples
    missing = sorted(functions - mentioned)
    assert not missing, f"docs/theorems.md has no row for theory.{missing}"


def test_every_name_in_the_function_column_exists():
    unknown = []
    for row in rows():
        for family, name in NAME.findall(row[2]):
            module = importlib.import_module(f"jaxlearn.{family}")
            if name not in getattr(module, "__all__", ()):
                unknown.append(f"{family}.{name}")
    assert not unknown, f"docs/theorems.md names what jaxlearn does not export: {unknown}"


@pytest.mark.skipif(not SPEC.is_file(), reason="the specification is not beside the repository")
def test_every_row_of_the_summary_table_has_a_row():
    keys = summary_keys()
    assert len(keys) == 61
    have = {KEY.match(row[0]).group(1) for row in rows()}
    missing = [key for key in keys if key not in have]
    assert not missing, (
        f"docs/theorems.md has no row for these rows of the summary table: {missing}"
    )
