"""What :func:`jaxlearn.io.load` may build from a name in a file: an explicit registry.

A name in a file (``"module:qualname"``) resolves only to an entry registered here, where the object
is defined:

- ``factory``: every learner factory (:func:`jaxlearn.core.learner_factory` registers it);
- ``namedtuple``: the states, params, traces and histories the families return (:func:`loadable`
  on the class);
- ``function``: the pure functions a learner may hold, kernels, losses, projections, activations
  and feature maps (:func:`loadable` on the function);
- ``maker``: the cached makers of such functions (the polynomial kernel's, the substring
  kernel's), whose closures a file describes by the maker's arguments (:func:`loadable` too).

Nothing else is loaded by name: not :class:`~jaxlearn.core.Learner`, ``BatchLearner`` or
``Transform`` (containers of functions), not a private helper, not a function of another library.
"""

from __future__ import annotations

import importlib
import inspect

#: The packages whose import registers every entry (imported by :func:`entry`, not at import).
PACKAGES = (
    "jaxlearn.core",
    "jaxlearn.experts",
    "jaxlearn.kernels",
    "jaxlearn.linear",
    "jaxlearn.losses",
    "jaxlearn.multiclass",
    "jaxlearn.neighbors",
    "jaxlearn.nn",
    "jaxlearn.online",
    "jaxlearn.ranking",
    "jaxlearn.structured",
    "jaxlearn.trees",
)

_ENTRIES: dict = {}
_complete = False


def name_of(obj) -> str:
    """The name a file uses for ``obj``: ``"module:qualname"``."""
    return f"{getattr(obj, '__module__', None)}:{getattr(obj, '__qualname__', None)}"


def _kind_of(obj) -> str:
    if isinstance(obj, type):
        if not (issubclass(obj, tuple) and hasattr(obj, "_fields")):
            raise TypeError(f"loadable: {obj.__qualname__} is not a NamedTuple class")
        return "namedtuple"
    if not inspect.isfunction(getattr(obj, "__wrapped__", obj)):
        raise TypeError(f"loadable: {obj!r} is not a function or a NamedTuple class")
    if hasattr(obj, "traced_hyperparameters"):
        return "factory"
    return "maker" if hasattr(obj, "cache_info") else "function"


def loadable(obj):
    """Register ``obj`` (a data ``NamedTuple`` class, a pure function or a cached function maker)
    for :func:`jaxlearn.io.load`; returns ``obj``, so it decorates the definition."""
    _ENTRIES[name_of(obj)] = (_kind_of(obj), obj)
    return obj


def entry(name):
    """``(kind, object)`` registered under ``name``, or ``None``."""
    global _complete
    if not _complete:
        for package in PACKAGES:
            importlib.import_module(package)
        _complete = True
    return _ENTRIES.get(name) if isinstance(name, str) else None


def registered() -> dict:
    """Every registered name and its kind, sorted by name."""
    entry(None)
    return {name: kind for name, (kind, _) in sorted(_ENTRIES.items())}
