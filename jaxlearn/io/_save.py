"""Writing: a value described as JSON nodes plus its arrays, written atomically."""

from __future__ import annotations

import contextlib
import errno
import importlib
import inspect
import json
import os
import stat
import tempfile
from typing import Any

import jax
import numpy as np
from jax.tree_util import Partial

from jaxlearn import core
from jaxlearn.io._arrays import encode
from jaxlearn.io._common import (
    FORMAT,
    META,
    VERSION,
    as_path,
    factory_call,
    in_jaxlearn,
    is_estimator,
    lookup,
    name_of,
)


class _Writer:
    """Describes a value as a JSON node, collecting its arrays."""

    def __init__(self):
        self.arrays, self.leaves = [], []

    def node(self, v, path: str) -> dict:
        if v is None:
            return {"type": "none"}
        if type(v) in (bool, int, str):
            return {"type": type(v).__name__, "value": v}
        if type(v) is float:
            return {"type": "float", "value": v.hex()}
        if isinstance(v, np.ndarray) and v.dtype == object:
            items = [
                self.node(u.item() if isinstance(u, np.generic) else u, f"{path}[...]")
                for u in v.flat
            ]
            return {"type": "object_array", "shape": list(v.shape), "items": items}
        if isinstance(v, (np.ndarray, np.generic, jax.Array)):
            return self.leaf(v, path)
        if isinstance(v, (core.Learner, core.BatchLearner, core.Transform)):
            return self.learner(v, path)
        if isinstance(v, Partial):
            return {
                "type": "partial",
                "func": self.node(v.func, f"{path}.func"),
                "args": [self.node(a, f"{path}.args[{i}]") for i, a in enumerate(v.args)],
                "keywords": {k: self.node(a, f"{path}.{k}") for k, a in v.keywords.items()},
            }
        if isinstance(v, tuple) and hasattr(type(v), "_fields"):
            cls = type(v)
            if lookup(cls.__module__, cls.__qualname__) is not cls:
                raise ValueError(
                    f"cannot save {path}: the NamedTuple {cls.__qualname__} is not reachable by name"
                )
            items = [self.node(a, f"{path}.{f}") for f, a in zip(cls._fields, v)]
            return {
                "type": "namedtuple",
                "class": name_of(cls),
                "fields": list(cls._fields),
                "items": items,
            }
        if type(v) in (tuple, list):
            items = [self.node(a, f"{path}[{i}]") for i, a in enumerate(v)]
            return {"type": type(v).__name__, "items": items}
        if type(v) is dict:
            return {
                "type": "dict",
                "keys": [self.node(k, f"{path} key") for k in v],
                "values": [self.node(a, f"{path}[{k!r}]") for k, a in v.items()],
            }
        if is_estimator(v):
            return self.estimator(v, path)
        if callable(v) and not isinstance(v, type):
            return self.function(v, path)
        raise ValueError(
            f"cannot save {path}: an object of type {type(v).__name__} is not a pytree of arrays"
        )

    def leaf(self, v, path: str) -> dict:
        spec, data = encode(v, path)
        self.leaves.append(spec)
        self.arrays.append(data)
        return {"type": "array", "leaf": len(self.arrays) - 1}

    def learner(self, v, path: str) -> dict:
        call = factory_call(v)
        if call is None:
            raise ValueError(
                f"cannot save {path}: a {type(v).__name__} built by hand (not by a core.learner_factory "
                "factory) cannot be described; save its state or params instead"
            )
        factory, arguments = call
        if lookup(factory.__module__, factory.__qualname__) is not factory:
            raise ValueError(
                f"cannot save {path}: its factory {factory.__qualname__} is not reachable by name"
            )
        args = {name: self.node(a, f"{path}.{name}") for name, a in arguments.items()}
        return {
            "type": "learner",
            "kind": type(v).__name__,
            "factory": name_of(factory),
            "args": args,
        }

    def function(self, f, path: str) -> dict:
        if isinstance(f, jax.sharding.Mesh):  # devices are not data: they do not travel in a file
            raise ValueError(
                f"cannot save {path}: a jax.sharding.Mesh is a placement on this machine's "
                "devices; save the params, or the learner built with mesh=None"
            )
        module, qualname = getattr(f, "__module__", None), getattr(f, "__qualname__", "")
        if isinstance(module, str) and "<" not in qualname and lookup(module, qualname) is f:
            return {"type": "function", "ref": name_of(f)}
        maker = lookup(module, qualname.split(".<locals>.")[0]) if "<locals>" in qualname else None
        if in_jaxlearn(module) and hasattr(maker, "cache_info") and getattr(f, "__closure__", None):
            cells = dict(zip(f.__code__.co_freevars, (c.cell_contents for c in f.__closure__)))
            order = list(inspect.signature(maker).parameters)
            if (
                set(cells) == set(order) and maker(*(cells[k] for k in order)) is f
            ):  # positional, as called
                described = {k: self.node(cells[k], f"{path}.{k}") for k in order}
                return {
                    "type": "closure",
                    "maker": name_of(maker),
                    "name": qualname,
                    "args": described,
                }
        raise ValueError(
            f"cannot save {path}: the function {qualname or f!r} (a lambda, a local function or another "
            "callable) cannot be described safely; use a module-level function (such as losses.hinge) "
            "or a jaxlearn kernel or projection"
        )

    def estimator(self, est, path: str) -> dict:
        cls, estimators = type(est), importlib.import_module("jaxlearn.sklearn")
        if cls.__name__ not in estimators.__all__ or getattr(estimators, cls.__name__) is not cls:
            raise ValueError(
                f"cannot save {path}: {cls.__name__} is not an estimator of jaxlearn.sklearn"
            )
        params = est.get_params(deep=False)
        fitted = {k: a for k, a in vars(est).items() if k.endswith("_") and not k.startswith("_")}
        return {
            "type": "estimator",
            "class": cls.__name__,
            "params": {k: self.node(a, f"{path}.{k}") for k, a in params.items()},
            "fitted": {k: self.node(a, f"{path}.{k}") for k, a in fitted.items()},
        }


def _target(path: str) -> str:
    """The file ``save`` replaces: a symlink's target (the link stays, as with ``open(path, "wb")``);
    never a directory, a special file or a read-only file."""
    if not path or path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise ValueError(f"expected `path` the name of a file, got {path!r} (a directory)")
    target = os.path.realpath(path)
    if os.path.lexists(target):
        mode = os.stat(target).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(
                f"expected `path` a regular file or a new name, got {path!r} (a special file)"
            )
        if not mode & stat.S_IWUSR:
            raise PermissionError(errno.EACCES, "read-only file, not replaced", path)
    return target


def save(path, tree: Any) -> None:
    """Write ``tree`` (a state, params, a learner, an estimator, or containers of them) to ``path``.

    The format is the module's (an ``.npz`` archive of the arrays plus JSON metadata); the file is
    written atomically (a temporary file in the same directory, ``fsync``, ``os.replace``), so a
    failed save leaves ``path`` as it was. ``path`` is used as given (no suffix is added). As
    ``open(path, "wb")`` would, a symlink is followed (its target is replaced, the link stays) and a
    read-only file is refused (``PermissionError``, also for root); a directory, a name ending in a
    separator or a special file (a FIFO, a device) is a ``ValueError``.

    Args:
      path: the file to write (replaced if it exists).
      tree: the value: arrays, Python scalars, ``None``, tuples, lists, dicts, ``NamedTuple`` s,
        factory-built learners, kernels and projections, :mod:`jaxlearn.sklearn` estimators.

    Raises:
      ValueError: a part of ``tree`` cannot be described safely (a lambda, an optax optimiser, a
        learner built by hand, a traced value); the message names where it is.

    Examples:
      >>> import os, tempfile
      >>> import jax.numpy as jnp
      >>> from jaxlearn import io, online
      >>> learner = online.perceptron(0.5)
      >>> path = os.path.join(tempfile.mkdtemp(), "perceptron.npz")
      >>> io.save(path, {"learner": learner, "state": learner.init(jnp.zeros(3))})
      >>> sorted(io.load(path))
      ['learner', 'state']
    """
    target = _target(as_path(path))
    writer = _Writer()
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "jaxlearn": getattr(importlib.import_module("jaxlearn"), "__version__", None),
        "tree": writer.node(tree, "tree"),
        "leaves": writer.leaves,
    }
    text = json.dumps(meta, allow_nan=False, separators=(",", ":"))
    members = {META: np.frombuffer(text.encode("utf-8"), np.uint8)}
    members.update((f"leaf_{i}", a) for i, a in enumerate(writer.arrays))
    fd, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target)
    )
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, allow_pickle=False, **members)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(
            temporary, os.stat(target).st_mode & 0o777 if os.path.exists(target) else 0o666 & ~umask
        )
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself reaches the disk (POSIX)
        directory = os.open(os.path.dirname(target), os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
