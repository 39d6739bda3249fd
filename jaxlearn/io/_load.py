"""Reading: names resolved in jaxlearn's registry only, functions and learners only where a factory
takes them, sizes capped before any factory runs, every failure a :class:`FileError`."""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import re
from inspect import iscode
from typing import Any

import jax
import numpy as np
from jax.tree_util import Partial

from jaxlearn._registry import entry as loadable_entry
from jaxlearn.io._archive import read
from jaxlearn.io._arrays import restore
from jaxlearn.io._common import LEARNERS, MISSING, FileError, as_path, factory_call, name_of

_NODES = (
    "none",
    "bool",
    "int",
    "str",
    "float",
    "array",
    "tuple",
    "list",
    "dict",
    "object_array",
    "namedtuple",
    "learner",
    "function",
    "closure",
    "partial",
    "estimator",
)
#: Where a node may stand: the nodes that are not plain data, by the role that admits them.
DATA = frozenset()
FUNCTION = frozenset({"function", "closure", "partial"})
LEARNER = frozenset({"learner"})
ESTIMATOR = frozenset({"estimator"})
ANYTHING = FUNCTION | LEARNER | ESTIMATOR
_NUMBER = (int, float, np.integer, np.floating)
#: The fitted attributes an estimator may have, by name, and what each must be.
FITTED = {
    "classes_": lambda v: isinstance(v, np.ndarray),
    "feature_names_in_": lambda v: isinstance(v, np.ndarray),
    "n_features_in_": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool),
    "n_iter_": lambda v: isinstance(v, (*_NUMBER, np.ndarray)) and not isinstance(v, bool),
    "n_samples_fit_": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool),
    "gamma_": lambda v: isinstance(v, _NUMBER) and not isinstance(v, bool),
    "state_": lambda v: isinstance(v, tuple) and hasattr(v, "_fields"),
    "params_": lambda v: isinstance(v, tuple) and hasattr(v, "_fields"),
    "estimator_attributes_": lambda v: isinstance(v, dict),
}


def _is_key(value) -> bool:
    if type(value) is tuple:
        return all(_is_key(v) for v in value)
    return value is None or type(value) in (bool, int, float, str)


class _Reader:
    """Rebuilds a value from its JSON node; ``like`` (when given) supplies types and is checked.

    ``role`` is the set of non-data nodes the position admits: a function only as a factory's
    function argument (or inside a ``Partial`` there), a learner only as a factory's learner
    argument, an estimator only as an estimator's parameter; the top of the file admits them all.
    """

    def __init__(self, path: str, arrays: list, leaves: list):
        self.path, self.arrays, self.leaves = path, arrays, leaves

    def fail(self, where: str, problem: str):
        return FileError(f"{self.path}: {problem} (at {where})")

    def mismatch(self, where: str, like, found: str):
        return FileError(
            f"{self.path}: the saved tree does not match `like` at {where}: `like` has {_kind(like)}, "
            f"the file {found}"
        )

    def node(self, n, where: str, like=MISSING, role=ANYTHING):
        kind = n.get("type") if isinstance(n, dict) else None
        if kind not in _NODES:
            raise self.fail(where, f"corrupted metadata: unknown node {str(n)[:80]!r}")
        if like is MISSING and kind in ANYTHING and kind not in role:
            raise self.fail(
                where, f"a {kind} where only data may stand (pass `like=` to supply your own)"
            )
        try:
            return getattr(self, f"_{kind}")(n, where, like, role)
        except (FileError, RecursionError):
            raise
        except Exception as e:  # noqa: BLE001 - whatever a malformed node raises is a bad file
            raise self.fail(where, f"corrupted metadata ({type(e).__name__}: {e})") from None

    def _check_like(self, where, like, ok: bool, found: str):
        if like is not MISSING and not ok:
            raise self.mismatch(where, like, found)

    def _none(self, n, where, like, role=DATA):
        self._check_like(where, like, like is None, "has None")

    def _scalar(self, n, where, like, cls, value):
        if type(value) is not cls:
            raise self.fail(where, f"corrupted metadata: expected a {cls.__name__} value")
        self._check_like(where, like, type(like) is cls, f"has a Python {cls.__name__}")
        return value

    def _bool(self, n, where, like, role=DATA):
        return self._scalar(n, where, like, bool, n.get("value"))

    def _int(self, n, where, like, role=DATA):
        return self._scalar(n, where, like, int, n.get("value"))

    def _str(self, n, where, like, role=DATA):
        return self._scalar(n, where, like, str, n.get("value"))

    def _float(self, n, where, like, role=DATA):
        try:
            value = float.fromhex(n.get("value"))
        except (TypeError, ValueError, OverflowError):
            raise self.fail(
                where, "corrupted metadata: a float is not a finite-exponent hex string"
            ) from None
        return self._scalar(n, where, like, float, value)

    def _items(self, n, where, like, key="items", role=DATA):
        items = n.get(key)
        if not isinstance(items, list):
            raise self.fail(where, f"corrupted metadata: `{key}` is not a list")
        if like is not MISSING and len(like) != len(items):
            raise self.mismatch(where, like, f"has {len(items)} items")
        likes = list(like) if like is not MISSING else [MISSING] * len(items)
        return [
            self.node(item, f"{where}[{i}]", u, role)
            for i, (item, u) in enumerate(zip(items, likes))
        ]

    def _tuple(self, n, where, like, role=DATA):
        self._check_like(where, like, type(like) is tuple, "has a tuple")
        return tuple(self._items(n, where, like, role=role))

    def _list(self, n, where, like, role=DATA):
        self._check_like(where, like, type(like) is list, "has a list")
        return self._items(n, where, like, role=role)

    def _dict(self, n, where, like, role=DATA):
        keys = self._items(n, f"{where} keys", MISSING, "keys")
        if not all(_is_key(k) for k in keys) or len(set(map(repr, keys))) != len(keys):
            raise self.fail(
                where, "corrupted metadata: a dict key is not a distinct scalar or tuple of scalars"
            )
        self._check_like(
            where, like, type(like) is dict and list(like) == keys, f"has a dict with keys {keys}"
        )
        values = n.get("values")
        if not isinstance(values, list) or len(values) != len(keys):
            raise self.fail(where, "corrupted metadata: a dict's keys and values differ in number")
        likes = [like[k] for k in keys] if like is not MISSING else [MISSING] * len(keys)
        return {k: self.node(v, f"{where}[{k!r}]", u, role) for k, v, u in zip(keys, values, likes)}

    def _object_array(self, n, where, like, role=DATA):
        items, shape = self._items(n, where, MISSING), n.get("shape")
        if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
            raise self.fail(where, "corrupted metadata: a bad shape")
        if math.prod(shape) != len(items) or not all(
            type(u) in (bool, int, float, str) for u in items
        ):
            raise self.fail(
                where, "corrupted metadata: an object array's items do not fit its shape"
            )
        out = np.empty(shape, object)
        out.reshape(-1)[:] = items
        ok = isinstance(like, np.ndarray) and like.dtype == object and like.shape == out.shape
        self._check_like(where, like, ok, f"has an object array of shape {out.shape}")
        return out

    def _array(self, n, where, like, role=DATA):
        i = n.get("leaf")
        if type(i) is not int or not 0 <= i < len(self.leaves):
            raise self.fail(where, "corrupted metadata: a leaf index out of range")
        fail = functools.partial(self.fail, f"{where} (leaf_{i})")
        value = restore(self.leaves[i], self.arrays[i], fail)
        if like is not MISSING:
            ok = isinstance(like, (np.ndarray, np.generic, jax.Array))
            ok = ok and (like.dtype, like.shape) == (value.dtype, value.shape)
            self._check_like(
                where, like, ok, f"has an array of dtype {value.dtype} and shape {value.shape}"
            )
        return value

    def _namedtuple(self, n, where, like, role=DATA):
        ref, fields = n.get("class"), n.get("fields")
        if like is not MISSING:
            ok = isinstance(like, tuple) and hasattr(like, "_fields")
            self._check_like(where, like, ok and name_of(type(like)) == ref, f"has a {ref}")
            cls = type(like)
        else:
            cls = self.resolve(ref, where, "namedtuple", "NamedTuple class")
        if list(cls._fields) != fields:
            raise self.fail(
                where, f"the fields {fields} are not those of {ref}: {list(cls._fields)}"
            )
        if not isinstance(n.get("items"), list) or len(n["items"]) != len(fields):
            raise self.fail(
                where, f"corrupted metadata: {ref} has {len(fields)} fields, not as many items"
            )
        return cls(*self._items(n, where, like))

    def _learner(self, n, where, like, role=DATA):
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
            factory = self.resolve(ref, where, "factory", "learner factory")
            unknown = set(args) - set(inspect.signature(factory).parameters)
            if unknown:
                raise self.fail(where, f"{ref} has no arguments {sorted(unknown)}")
        roles = {
            **{k: FUNCTION for k in factory.function_arguments},
            **{k: LEARNER for k in factory.learner_arguments},
        }
        values = {
            k: self.node(a, f"{where}.{k}", likes.get(k, MISSING), roles.get(k, DATA))
            for k, a in args.items()
        }
        for name, cap in factory.load_caps.items():
            value, vouched = values.get(name), likes.get(name)
            limit = max(cap, vouched) if isinstance(vouched, _NUMBER) else cap
            if isinstance(value, _NUMBER) and value > limit:
                raise self.fail(
                    f"{where}.{name}",
                    f"the file asks {ref.split(':')[-1]} for `{name}` = {value}; a file may ask for at most "
                    f"{limit} (pass `like=` a learner built with that `{name}` to load it)",
                )
        try:
            learner = factory(**values)
        except Exception as e:  # noqa: BLE001 - the factory's own checks refuse the file's arguments
            raise self.fail(where, f"cannot rebuild the learner with {ref}: {e}") from None
        if type(learner) is not LEARNERS[kind]:
            raise self.fail(where, f"{ref} built a {type(learner).__name__}, the file has a {kind}")
        return learner

    def _function(self, n, where, like, role=DATA):
        ref = n.get("ref")
        if like is not MISSING:
            self._check_like(
                where, like, callable(like) and name_of(like) == ref, f"has the function {ref}"
            )
            return like
        return self.resolve(ref, where, "function", "function")

    def _closure(self, n, where, like, role=DATA):
        maker = self.resolve(n.get("maker"), where, "maker", "function maker")
        args, name = n.get("args"), n.get("name")
        code = getattr(getattr(maker, "__wrapped__", None), "__code__", None)
        inner = [
            getattr(c, "co_qualname", c.co_name)
            for c in getattr(code, "co_consts", ())
            if iscode(c)
        ]
        if not (isinstance(args, dict) and name in inner):
            raise self.fail(where, f"{n.get('maker')} is not a maker of {name!r}")
        values = {k: self.node(a, f"{where}.{k}", role=DATA) for k, a in args.items()}
        order = list(inspect.signature(maker).parameters)
        if set(order) != set(values) or not all(
            type(v) in (bool, int, float, str) for v in values.values()
        ):
            raise self.fail(
                where, f"corrupted metadata: the arguments of {n.get('maker')} are not {order}"
            )
        try:
            f = maker(*(values[k] for k in order))
        except Exception as e:  # noqa: BLE001
            raise self.fail(where, f"cannot rebuild the function: {e!r}") from None
        if getattr(f, "__qualname__", None) != name:
            raise self.fail(where, f"{n.get('maker')} did not make the function {name!r}")
        self._check_like(where, like, like is f, f"has {name_of(f)}")
        return f

    def _partial(self, n, where, like, role=DATA):
        self._check_like(where, like, isinstance(like, Partial), "has a jax.tree_util.Partial")
        parts = (like.func, like.args, like.keywords) if like is not MISSING else (MISSING,) * 3
        keywords = n.get("keywords")
        if not isinstance(keywords, dict):
            raise self.fail(where, "corrupted metadata: a Partial's keywords are not an object")
        if parts[2] is not MISSING and set(parts[2]) != set(keywords):
            raise self.mismatch(where, like, f"has the keywords {sorted(keywords)}")
        func = self.node(n.get("func"), f"{where}.func", parts[0], FUNCTION)
        args = self._items(n, f"{where}.args", parts[1], "args")
        likes = parts[2] if parts[2] is not MISSING else {}
        kw = {
            k: self.node(a, f"{where}.{k}", likes.get(k, MISSING), DATA)
            for k, a in keywords.items()
        }
        return Partial(func, *args, **kw)

    def _estimator(self, n, where, like, role=DATA):
        name, params, fitted = n.get("class"), n.get("params"), n.get("fitted")
        estimators = importlib.import_module("jaxlearn.sklearn")
        if not isinstance(name, str) or name not in estimators.__all__:
            raise self.fail(where, f"{name!r} is not an estimator of jaxlearn.sklearn")
        cls = getattr(estimators, name)
        self._check_like(where, like, type(like) is cls, f"has a {name}")
        if not (isinstance(params, dict) and isinstance(fitted, dict)):
            raise self.fail(where, "corrupted metadata: a bad estimator")
        unknown = set(params) - set(cls._get_param_names())
        if unknown:
            raise self.fail(where, f"{name} has no parameters {sorted(unknown)}")
        bad = [k for k in fitted if not re.match(r"[A-Za-z][A-Za-z0-9_]*_\Z", k) or hasattr(cls, k)]
        if bad:
            raise self.fail(where, f"{bad[0]!r} is not a fitted attribute name")
        like_params = like.get_params(deep=False) if like is not MISSING else {}
        values = {}
        for (
            k,
            a,
        ) in params.items():  # a parameter's value is the file's; a nested estimator is checked
            vouched = like_params.get(k, MISSING)
            vouched = vouched if hasattr(vouched, "get_params") else MISSING
            values[k] = self.node(a, f"{where}.{k}", vouched, ESTIMATOR)
        try:
            est = cls(**values)
            if hasattr(est, "_check_params"):  # the estimator's own range checks
                est._check_params()
        except Exception as e:  # noqa: BLE001
            raise self.fail(where, f"cannot rebuild {name}: {e}") from None
        like_fitted = {}
        if like is not MISSING:
            like_fitted = {
                k: v for k, v in vars(like).items() if k.endswith("_") and not k.startswith("_")
            }
        if like_fitted and set(like_fitted) != set(fitted):
            raise self.mismatch(where, like, f"has the fitted attributes {sorted(fitted)}")
        for k, a in fitted.items():
            value = self.node(a, f"{where}.{k}", like_fitted.get(k, MISSING), DATA)
            if k in FITTED and not FITTED[k](value):
                raise self.fail(
                    f"{where}.{k}",
                    f"the fitted attribute {k} of {name} is a {type(value).__name__}",
                )
            setattr(est, k, value)
        return est

    def resolve(self, ref, where: str, kind: str, what: str):
        """The object registered as ``ref`` for loading, which must be of ``kind``."""
        found = loadable_entry(ref)
        if found is None or found[0] != kind:
            raise self.fail(
                where,
                f"refuses to load the {what} {ref!r}: not registered for loading by jaxlearn "
                "(see jaxlearn.io; pass `like=` to restore your own types and functions)",
            )
        return found[1]


def _kind(value) -> str:
    if isinstance(value, (np.ndarray, np.generic, jax.Array)):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    call = factory_call(value) if isinstance(value, tuple(LEARNERS.values())) else None
    if call is not None:
        return f"a learner of {name_of(call[0])}"
    return "None" if value is None else f"a {type(value).__name__}"


def load(path, like: Any = None) -> Any:
    """Read what :func:`save` wrote at ``path``, with its types, dtypes and shapes.

    The file is untrusted input: names resolve only to what jaxlearn registers for loading, a
    function or a learner stands only where a factory takes one, the arguments of every factory
    pass its range checks and size caps before it runs (see :mod:`jaxlearn.io`), and reading costs
    at most the file's size in memory.

    Args:
      path: the file.
      like: optional; a value of the expected structure (a freshly built state, params, learner or
        estimator). The loaded tree must match it (containers, ``NamedTuple`` types, factories,
        array dtypes and shapes, an estimator's class and fitted attributes), and its types and
        functions are used, never resolved from the file: so your own ``NamedTuple`` s and
        functions are restored, and a learner's size arguments may reach ``like``'s.

    Returns:
      The saved value.

    Raises:
      FileError: (a ``ValueError``) on every failure: a missing, special (FIFO, device, directory),
        truncated, corrupted, compressed or foreign file, a newer format version, a name that is not
        registered, an argument out of range or over its cap, or a tree that does not match
        ``like``; the message names the file and the node.

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
    meta, arrays = read(path)
    reader = _Reader(path, arrays, meta["leaves"])
    try:
        return reader.node(meta.get("tree"), "tree", MISSING if like is None else like)
    except RecursionError:
        raise FileError(f"{path}: corrupted metadata (nested too deeply)") from None
