"""A griffe extension for the API reference: the reST roles of jaxlearn's docstrings as code spans.

The docstrings are Google style with a few Sphinx roles (``:func:`run```, ``:class:`~x.Learner```,
``:math:`R^2```). mkdocstrings reads Markdown, where a role would show as ``:func:`` before a code
span; this extension rewrites each role to the code span alone (the last dotted part under ``~``).
It also reads a line of an ``Args:`` or ``Attributes:`` block that sits at the items' indentation
but has no ``name: description`` colon as the continuation of the item above it (two docstrings of
``jaxlearn.sklearn`` wrap their attribute lists that way). The docstrings are not changed.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

SECTION = re.compile(
    r"^(\s*)(Args|Arguments|Parameters|Attributes|Raises|Keyword Args|Other Parameters):\s*$"
)
ROLE = re.compile(r":(?:func|class|meth|attr|mod|data|obj|exc|const|math|py:\w+):`~?([^`]+)`")


def _code(match: re.Match) -> str:
    text = match.group(0)
    target = match.group(1)
    if ":`~" in text:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _continuations(text: str) -> str:
    """Indents an item-level line without a colon under its item, inside Google sections."""
    lines = text.splitlines()
    section_indent = item_indent = None
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        header = SECTION.match(line)
        if header:
            section_indent, item_indent = len(header.group(1)), None
            continue
        if section_indent is None or not line.strip():
            continue
        if indent <= section_indent:
            section_indent = item_indent = None
        elif item_indent is None:
            item_indent = indent
        elif indent == item_indent and ":" not in line:
            lines[i] = "    " + line
    return "\n".join(lines)


def _rewrite(obj: griffe.Object, seen: set[int]) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if obj.docstring is not None and ":" in obj.docstring.value:
        obj.docstring.value = _continuations(ROLE.sub(_code, obj.docstring.value))
    for member in obj.members.values():
        if not member.is_alias:
            _rewrite(member, seen)


class RestRoles(griffe.Extension):
    """Rewrites ``:role:`target``` to ``target`` in code font in every docstring of the package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg, set())
