"""Reading: the metadata checked, names resolved inside jaxlearn only, the value rebuilt."""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
from inspect import iscode
from typing import Any

import jax
import numpy as np
from jax.tree_util import Partial

from jaxlearn.io._arrays import restore
from jaxlearn.io._common import (
    FORMAT,
    LEARNERS,
    META,
    MISSING,
    NAME,
    VERSION,
    FileError,
    as_path,
    factory_call,
    in_jaxlearn,
    is_factory,
    name_of,
)

_NODES = (
    "none", "bool", "int", "str", "float", "array", "tuple", "list", "dict", "object_array", "namedtuple",
    "learner", "function", "closure", "partial", "estimator",
)  # fmt: skip


def _is_key(value) -> bool:
    if type(value) is tuple:
        return all(_is_key(v) for v in value)
    return value is None or type(value) in (bool, int, float, str)


class _Reader:
    """Rebuilds a value from its JSON node; ``like`` (when given) supplies types and is checked."""

    def __init__(self, path: str, arrays: list, leaves: list):
        self.path, self.arrays, self.leaves = path, arrays, leaves

    def fail(self, where: str, problem: str):
        return FileError(f"{self.path}: {problem} (at {where})")

    def mismatch(self, where: str, like, found: str):
        return FileError(
            f"{self.path}: the saved tree does not match `like` at {where}: `like` has {_kind(like)}, "
            f"the file {found}"
        )

    def node(self, n, where: str, like=MISSING):
        kind = n.get("type") if isinstance(n, dict) else None
        method = getattr(self, f"_{kind}") if kind in _NODES else None
        if method is None:
            raise self.fail(where, f"corrupted metadata: unknown node {str(n)[:80]!r}")
        return method(n, where, like)

    def _check_like(self, where, like, ok: bool, found: str):
        if like is not MISSING and not ok:
            raise self.mismatch(where, like, found)

    def _none(self, n, where, like):
        self._check_like(where, like, like is None, "has None")

    def _scalar(self, n, where, like, cls, value):
        if type(value) is not cls:
            raise self.fail(where, f"corrupted metadata: expected a {cls.__name__} value")
        self._check_like(where, like, type(like) is cls, f"has a Python {cls.__name__}")
        return value

    def _bool(self, n, where, like):
        return self._scalar(n, where, like, bool, n.get("value"))

    def _int(self, n, where, like):
        return self._scalar(n, where, like, int, n.get("value"))

    def _str(self, n, where, like):
        return self._scalar(n, where, like, str, n.get("value"))

    def _float(self, n, where, like):
        try:
            value = float.fromhex(n.get("value"))
        except (TypeError, ValueError):
            raise self.fail(where, "corrupted metadata: a float is not a hex string") from None
        return self._scalar(n, where, like, float, value)

    def _items(self, n, where, like, key="items"):
        items = n.get(key)
        if not isinstance(items, list):
            raise self.fail(where, f"corrupted metadata: `{key}` is not a list")
        if like is not MISSING and len(like) != len(items):
            raise self.mismatch(where, like, f"has {len(items)} items")
        likes = list(like) if like is not MISSING else [MISSING] * len(items)
        return [self.node(item, f"{where}[{i}]", u) for i, (item, u) in enumerate(zip(items, likes))]

    def _tuple(self, n, where, like):
        self._check_like(where, like, type(like) is tuple, "has a tuple")
        return tuple(self._items(n, where, like))

    def _list(self, n, where, like):
        self._check_like(where, like, type(like) is list, "has a list")
        return self._items(n, where, like)

    def _dict(self, n, where, like):
        keys = self._items(n, f"{where} keys", MISSING, "keys")
        if not all(_is_key(k) for k in keys):
            raise self.fail(where, "corrupted metadata: a dict key is not a scalar or a tuple of scalars")
        self._check_like(
            where, like, type(like) is dict and list(like) == keys, f"has a dict with keys {keys}"
        )
        values = n.get("values")
        if not isinstance(values, list) or len(values) != len(keys):
            raise self.fail(where, "corrupted metadata: a dict's keys and values differ in number")
        likes = [like[k] for k in keys] if like is not MISSING else [MISSING] * len(keys)
        return {k: self.node(v, f"{where}[{k!r}]", u) for k, v, u in zip(keys, values, likes)}

    def _object_array(self, n, where, like):
        items, shape = self._items(n, where, MISSING), n.get("shape")
        if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
            raise self.fail(where, "corrupted metadata: a bad shape")
        if int(np.prod(shape)) != len(items) or not all(type(u) in (bool, int, float, str) for u in items):
            raise self.fail(where, "corrupted metadata: an object array's items do not fit its shape")
        out = np.empty(shape, object)
        out.reshape(-1)[:] = items
        ok = isinstance(like, np.ndarray) and like.dtype == object and like.shape == out.shape
        self._check_like(where, like, ok, f"has an object array of shape {out.shape}")
        return out

    def _array(self, n, where, like):
        i = n.get("leaf")
        if type(i) is not int or not 0 <= i < len(self.leaves):
            raise self.fail(where, "corrupted metadata: a leaf index out of range")
        fail = functools.partial(self.fail, f"{where} (leaf_{i})")
        value = restore(self.leaves[i], self.arrays[i], fail)
        if like is not MISSING:
            ok = isinstance(like, (np.ndarray, np.generic, jax.Array))
            ok = ok and (like.dtype, like.shape) == (value.dtype, value.shape)
            self._check_like(where, like, ok, f"has an array of dtype {value.dtype} and shape {value.shape}")
        return value

    def _namedtuple(self, n, where, like):
        ref, fields = n.get("class"), n.get("fields")
        if like is not MISSING:
            ok = isinstance(like, tuple) and hasattr(like, "_fields")
            self._check_like(where, like, ok and name_of(type(like)) == ref, f"has a {ref}")
            cls = type(like)
        else:
            cls = self.resolve(ref, where, "NamedTuple class")
            if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
                raise self.fail(where, f"{ref} is not a NamedTuple class")
        if list(cls._fields) != fields:
            raise self.fail(where, f"the fields {fields} are not those of {ref}: {list(cls._fields)}")
        return cls(*self._items(n, where, like))

    def _learner(self, n, where, like):
        ref, kind, args = n.get("factory"), n.get("kind"), n.get("args")
        if kind not in LEARNERS or not isinstance(args, dict):
            raise self.fail(where, "corrupted metadata: a bad learner")
        likes = {}
        if like is not MISSING:
            call = factory_call(like) if isinstance(like, tuple(LEARNERS.values())) else None
            self._check_like(
                where, like, call is not None and name_of(call[0]) == ref, f"has a learner of {ref}"
            )
            factory, likes = call
            self._check_like(where, like, set(likes) == set(args), f"has arguments {sorted(args)}")
        else:
            factory = self.resolve(ref, where, "learner factory")
            if not is_factory(factory):
                raise self.fail(where, f"{ref} is not a core.learner_factory factory")
        values = {k: self.node(a, f"{where}.{k}", likes.get(k, MISSING)) for k, a in args.items()}
        try:
            learner = factory(**values)
        except (TypeError, ValueError) as e:
            raise self.fail(where, f"cannot rebuild the learner with {ref}: {e}") from None
        if type(learner) is not LEARNERS[kind]:
            raise self.fail(where, f"{ref} built a {type(learner).__name__}, the file has a {kind}")
        return learner

    def _function(self, n, where, like):
        ref = n.get("ref")
        if like is not MISSING:
            self._check_like(where, like, callable(like) and name_of(like) == ref, f"has the function {ref}")
            return like
        f = self.resolve(ref, where, "function")
        if not callable(f) or isinstance(f, type):
            raise self.fail(where, f"{ref} is not a function")
        return f

    def _closure(self, n, where, like):
        maker = self.resolve(n.get("maker"), where, "function maker")
        args, name = n.get("args"), n.get("name")
        code = getattr(getattr(maker, "__wrapped__", None), "__code__", None)
        inner = [getattr(c, "co_qualname", c.co_name) for c in getattr(code, "co_consts", ()) if iscode(c)]
        if not (hasattr(maker, "cache_info") and isinstance(args, dict) and name in inner):
            raise self.fail(where, f"{n.get('maker')} is not a cached jaxlearn maker of {name!r}")
        values = {k: self.node(a, f"{where}.{k}") for k, a in args.items()}
        order = list(inspect.signature(maker).parameters)
        if set(order) != set(values) or not all(type(v) in (bool, int, float, str) for v in values.values()):
            raise self.fail(where, f"corrupted metadata: the arguments of {n.get('maker')} are not {order}")
        try:
            f = maker(*(values[k] for k in order))
        except (TypeError, ValueError) as e:
            raise self.fail(where, f"cannot rebuild the function: {e!r}") from None
        if getattr(f, "__qualname__", None) != name:
            raise self.fail(where, f"{n.get('maker')} did not make the function {name!r}")
        self._check_like(where, like, like is f, f"has {name_of(f)}")
        return f

    def _partial(self, n, where, like):
        self._check_like(where, like, isinstance(like, Partial), "has a jax.tree_util.Partial")
        parts = (like.func, like.args, like.keywords) if like is not MISSING else (MISSING,) * 3
        keywords = n.get("keywords")
        if not isinstance(keywords, dict):
            raise self.fail(where, "corrupted metadata: a Partial's keywords are not an object")
        if parts[2] is not MISSING and set(parts[2]) != set(keywords):
            raise self.mismatch(where, like, f"has the keywords {sorted(keywords)}")
        func = self.node(n.get("func"), f"{where}.func", parts[0])
        args = self._items(n, f"{where}.args", parts[1], "args")
        likes = parts[2] if parts[2] is not MISSING else {}
        kw = {k: self.node(a, f"{where}.{k}", likes.get(k, MISSING)) for k, a in keywords.items()}
        if not callable(func):
            raise self.fail(where, "corrupted metadata: a Partial of something not callable")
        return Partial(func, *args, **kw)

    def _estimator(self, n, where, like):
        name, params, fitted = n.get("class"), n.get("params"), n.get("fitted")
        estimators = importlib.import_module("jaxlearn.sklearn")
        if not isinstance(name, str) or name not in estimators.__all__:
            raise self.fail(where, f"{name!r} is not an estimator of jaxlearn.sklearn")
        cls = getattr(estimators, name)
        self._check_like(where, like, type(like) is cls, f"has a {name}")
        if not (isinstance(params, dict) and isinstance(fitted, dict)):
            raise self.fail(where, "corrupted metadata: a bad estimator")
        bad = [k for k in fitted if not re.match(r"[A-Za-z][A-Za-z0-9_]*_\Z", k) or hasattr(cls, k)]
        if bad:
            raise self.fail(where, f"{bad[0]!r} is not a fitted attribute name")
        try:
            est = cls(**{k: self.node(a, f"{where}.{k}") for k, a in params.items()})
        except (TypeError, ValueError) as e:
            raise self.fail(where, f"cannot rebuild {name}: {e}") from None
        for k, a in fitted.items():
            setattr(est, k, self.node(a, f"{where}.{k}"))
        return est

    def resolve(self, ref, where: str, what: str):
        """The object named ``module:qualname``, only if it is defined in a jaxlearn module."""
        module, _, qualname = ref.partition(":") if isinstance(ref, str) else ("", "", "")
        names = qualname.split(".")
        valid = all(NAME.match(p) and not p.startswith("__") for p in module.split(".") + names)
        if not (valid and in_jaxlearn(module)):
            raise self.fail(
                where,
                f"refuses to load the {what} {ref!r}: only objects defined in jaxlearn modules are "
                "loaded by name (pass `like=` to restore your own types)",
            )
        try:
            obj = importlib.import_module(module)
        except ImportError:
            raise self.fail(where, f"the {what} {ref!r} does not exist in this jaxlearn") from None
        for i, name in enumerate(names):
            obj = getattr(obj, name, None)
            if i < len(names) - 1 and not isinstance(obj, type):
                obj = None
        if obj is None or name_of(obj) != ref:
            raise self.fail(where, f"the {what} {ref!r} does not exist in this jaxlearn")
        return obj


def _kind(value) -> str:
    if isinstance(value, (np.ndarray, np.generic, jax.Array)):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    call = factory_call(value) if isinstance(value, tuple(LEARNERS.values())) else None
    if call is not None:
        return f"a learner of {name_of(call[0])}"
    return "None" if value is None else f"a {type(value).__name__}"


def _read(path: str):
    """The metadata and the arrays of the file at ``path`` (``ValueError`` on any problem with it)."""
    with open(path, "rb") as f:
        if f.read(4) != b"PK\x03\x04":
            raise FileError(f"{path}: not a jaxlearn file (not a NumPy .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if META not in archive.files:
                raise FileError(f"{path}: not a jaxlearn file (an .npz archive without {META!r})")
            raw = archive[META]
            if raw.dtype != np.uint8 or raw.ndim != 1:
                raise FileError(f"{path}: corrupted metadata (not a uint8 vector)")
            try:
                meta = json.loads(raw.tobytes().decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise FileError(f"{path}: corrupted metadata (not UTF-8 JSON: {e})") from None
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                raise FileError(f"{path}: not a jaxlearn file (its metadata is not of format {FORMAT!r})")
            version = meta.get("version")
            if type(version) is not int or not 1 <= version <= VERSION:
                raise FileError(
                    f"{path}: format version {version!r}, this jaxlearn reads versions 1 to {VERSION} "
                    f"(written by jaxlearn {meta.get('jaxlearn')})"
                )
            leaves = meta.get("leaves")
            names = [META] + [f"leaf_{i}" for i in range(len(leaves) if isinstance(leaves, list) else 0)]
            if not isinstance(leaves, list) or sorted(archive.files) != sorted(names):
                raise FileError(f"{path}: corrupted file (its arrays do not match the metadata)")
            arrays = [archive[f"leaf_{i}"] for i in range(len(leaves))]
    except FileError:
        raise
    except Exception as e:  # noqa: BLE001 - zip, zlib, npy-header and CRC errors all mean a bad file
        raise FileError(f"{path}: truncated or corrupted file ({type(e).__name__}: {e})") from None
    return meta, arrays


def load(path, like: Any = None) -> Any:
    """Read what :func:`save` wrote at ``path``, with its types, dtypes and shapes.

    Args:
      path: the file.
      like: optional; a value of the expected structure (a freshly built state, params or learner).
        The loaded tree must match it (containers, ``NamedTuple`` types, factories, array dtypes and
        shapes), and its types are used: so your own ``NamedTuple`` s and functions are restored
        without resolving any name from the file.

    Returns:
      The saved value.

    Raises:
      ValueError: the file is truncated, corrupted or foreign, of a newer format version, names a type
        outside jaxlearn, or does not match ``like``; the message names the file and the problem.

    Examples:
      >>> import os, tempfile
      >>> import jax.numpy as jnp
      >>> from jaxlearn import io, online
      >>> state = online.perceptron().init(jnp.zeros(3))
      >>> path = os.path.join(tempfile.mkdtemp(), "state.npz")
      >>> io.save(path, state)
      >>> type(io.load(path, like=state)).__name__
      'PerceptronState'
    """
    path = as_path(path)
    meta, arrays = _read(path)
    reader = _Reader(path, arrays, meta["leaves"])
    try:
        return reader.node(meta.get("tree"), "tree", MISSING if like is None else like)
    except RecursionError:
        raise FileError(f"{path}: corrupted metadata (nested too deeply)") from None
