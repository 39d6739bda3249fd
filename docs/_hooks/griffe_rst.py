r"""A griffe extension for the API reference: reST roles and math of the docstrings, for Markdown.

The docstrings are Google style with a few Sphinx roles (``:func:`run```, ``:class:`~x.Learner```,
``:math:`R^2```) and ``.. math::`` directives. mkdocstrings reads Markdown, where a role would show
as ``:func:`` before a code span; this extension rewrites each reference role to the code span alone
(the last dotted part under ``~``), and the math to ``\(...\)`` and ``\[...\]``, which
pymdownx.arithmatex hands to MathJax.
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
ROLE = re.compile(r":(?:func|class|meth|attr|mod|data|obj|exc|const|py:\w+):`~?([^`]+)`")
MATH = re.compile(r":math:`([^`]+)`")
DIRECTIVE = re.compile(r"^(\s*)\.\. math::\s*(.*)$")


def _code(match: re.Match) -> str:
    text = match.group(0)
    target = match.group(1)
    if ":`~" in text:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _math_blocks(text: str) -> str:
    """``.. math::`` and its indented lines as a display block ``\\[ ... \\]``."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        directive = DIRECTIVE.match(lines[i])
        if not directive:
            out.append(lines[i])
            i += 1
            continue
        indent, first = directive.groups()
        body = [first] if first.strip() else []
        i += 1
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(indent)
        ):
            body.append(lines[i].strip())
            i += 1
        if out and out[-1].strip():
            out.append("")
        out += [indent + "\\[", *(indent + line for line in body if line), indent + "\\]", ""]
    return "\n".join(out)


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
        text = MATH.sub(lambda m: f"\\({m.group(1)}\\)", _math_blocks(obj.docstring.value))
        obj.docstring.value = _continuations(ROLE.sub(_code, text))
    for member in obj.members.values():
        if not member.is_alias:
            _rewrite(member, seen)


class RestRoles(griffe.Extension):
    """Rewrites ``:role:`target``` to ``target`` in code font in every docstring of the package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg, set())
