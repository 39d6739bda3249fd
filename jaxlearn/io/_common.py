"""What saving and loading share: the format's constants, names of objects, learners' factory calls."""

from __future__ import annotations

import os
import re
import sys

import jax

from jaxlearn import core

#: The ``format`` entry of the metadata.
FORMAT = "jaxlearn.io"
#: The format version this module writes (and the newest it reads).
VERSION = 1

META = "__jaxlearn__"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
LEARNERS = {"Learner": core.Learner, "BatchLearner": core.BatchLearner, "Transform": core.Transform}
MISSING = object()


class FileError(ValueError):
    """Every failure of :func:`~jaxlearn.io.load`: the message names the file and, inside it, the node
    (``tree['learner'].eta``) where the problem is."""


def name_of(obj) -> str:
    return f"{getattr(obj, '__module__', None)}:{getattr(obj, '__qualname__', None)}"


def lookup(module: str, qualname: str):
    """The object at ``qualname`` in the already imported ``module`` (``None`` if not there)."""
    obj = sys.modules.get(module)
    for name in qualname.split("."):
        obj = getattr(obj, name, None)
    return obj


def in_jaxlearn(module) -> bool:
    return isinstance(module, str) and (module == "jaxlearn" or module.startswith("jaxlearn."))


def is_factory(obj) -> bool:
    return callable(obj) and hasattr(obj, "traced_hyperparameters") and hasattr(obj, "__wrapped__")


def factory_call(learner):
    """``(factory, arguments)`` of a factory-built learner, read off its tree definition."""
    kind, aux = jax.tree_util.tree_structure(learner).node_data()
    if not (isinstance(aux, tuple) and aux and aux[0] == "spec"):
        return None
    children = jax.tree_util.tree_flatten(learner, is_leaf=lambda v: v is not learner)[0]
    return aux[1], {
        **{name: static.value for name, static in aux[3]},
        **dict(zip(aux[2], children)),
    }


def is_estimator(value) -> bool:
    if in_jaxlearn(type(value).__module__) and hasattr(value, "get_params"):
        return True
    base = sys.modules.get("sklearn.base")
    return base is not None and isinstance(value, base.BaseEstimator)


def as_path(path) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"expected `path` a str or os.PathLike, got {type(path).__name__}")
    return os.fspath(path)
