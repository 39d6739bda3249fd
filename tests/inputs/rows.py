"""Rows of the bad-input suite (``tests/test_inputs.py``): one call of a public entry point each.

A table module (``tests/inputs/table_*.py``) defines ``ROWS``, a list of:

* :class:`Bad`: invalid input. ``call()`` must raise ``error`` (``ValueError`` unless told), raised
  by jaxlearn's own code (never from inside JAX), with a message naming in backquotes (```eta```)
  the argument ``names`` (a string), every argument of a tuple, or one of a set.
* :class:`Same`: valid but unusual input (bool/int/list containers, one row, ...). ``call()`` equals
  ``reference()`` (the same call on plain float arrays) within ``rtol``/``atol``, and is finite.
* :class:`Holds`: valid extreme input. ``check(call())`` passes (``check`` asserts what must hold,
  e.g. finite and normalised); the result may not be NaN where ``check`` does not say so.

``entry`` is the public function the row exercises: the completeness test of ``tests/test_inputs.py``
asks that every callable in the package's ``__all__`` lists is the ``entry`` of some row.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Union

import chex
import jax
import numpy as np
import pytest


@dataclasses.dataclass(frozen=True)
class Bad:
    entry: Callable
    what: str
    call: Callable[[], Any]
    names: Union[str, tuple] = ()
    error: type = ValueError

    def run(self):
        with pytest.raises(self.error) as caught:
            jax.block_until_ready(self.call())
        assert_raised_by_jaxlearn(caught, self)
        message = str(caught.value)
        if isinstance(self.names, (set, frozenset)):
            assert any(f"`{n}`" in message for n in self.names), (
                f"{self.what}: names none of {self.names}"
            )
            return
        for name in (self.names,) if isinstance(self.names, str) else self.names:
            assert f"`{name}`" in message, (
                f"{self.what}: message does not name `{name}`: {message!r}"
            )


@dataclasses.dataclass(frozen=True)
class Same:
    entry: Callable
    what: str
    call: Callable[[], Any]
    reference: Callable[[], Any]
    rtol: float = 1e-6
    atol: float = 1e-6

    def run(self):
        got, want = self.call(), self.reference()
        assert_finite(got, self.what)
        chex.assert_trees_all_close(got, want, rtol=self.rtol, atol=self.atol)


@dataclasses.dataclass(frozen=True)
class Holds:
    entry: Callable
    what: str
    call: Callable[[], Any]
    check: Callable[[Any], None]

    def run(self):
        self.check(self.call())


def assert_finite(tree, what=""):
    """No floating leaf of ``tree`` holds NaN or inf."""
    for leaf in jax.tree_util.tree_leaves(tree):
        leaf = np.asarray(leaf)
        if np.issubdtype(leaf.dtype, np.inexact):
            assert np.isfinite(leaf).all(), f"{what}: non-finite values in the result"


def assert_raised_by_jaxlearn(caught, row):
    """The exception comes from a ``raise`` in jaxlearn's code, not from JAX or NumPy internals."""
    frame = caught.traceback[-1].frame
    module = frame.f_globals.get("__name__", "")
    assert module.startswith("jaxlearn"), (
        f"{row.what}: {type(caught.value).__name__} raised in {module!r}, not by jaxlearn: {caught.value}"
    )


def row_id(row) -> str:
    name = getattr(row.entry, "__qualname__", getattr(row.entry, "__name__", repr(row.entry)))
    module = getattr(row.entry, "__module__", "") or ""
    family = module.split(".")[1] if module.startswith("jaxlearn.") else module
    return f"{family}.{name}: {row.what}"
