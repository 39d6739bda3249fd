"""The eager input layer around every factory-built learner (used by :mod:`jaxlearn._learner`).

On concrete inputs (outside ``jit``/``vmap``) it turns lists into arrays, refuses NaN/inf, applies an
online learner's ``check`` to the one example of an eager ``update`` and a batch learner's ``check``
to the sample of ``fit``, and warns when a result's ``diverged`` flag is set. Under a trace only the
learners' own shape checks run, so nothing here is staged into a compiled program.

A state given to an eager ``update`` (or to ``core.run``) is compared with the one the learner's ``init``
builds from the round's example: the same structure, shapes and kinds of dtype (abstractly, with
``jax.eval_shape``, cached per example shape, so also under a trace); when concrete, no NaN, no
infinity except ``-inf`` in log-weights (``log_*`` fields: a weight of 0) and no negative counter.
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn._checks import (
    array_summary,
    as_array,
    as_labels,
    check_finite,
    is_concrete,
    warn_if_diverged,
)


def _check_finite_if_concrete(*named):
    if is_concrete(*(value for _, value in named)):
        for name, value in named:
            check_finite(name, value)


def _renamed(error: ValueError, names: dict) -> ValueError:
    message = str(error)
    for old, new in names.items():
        message = message.replace(f"`{old}`", f"`{new}`")
    return ValueError(message)


# --- states -------------------------------------------------------------------------------------------

#: Integer fields of a state that count rounds or stored items: never negative.
COUNTERS = ("step", "count")
#: The most example shapes whose ``init`` structure a cache keeps.
_CACHE_SIZE = 64


def _dtype(leaf) -> Any:
    dtype = getattr(leaf, "dtype", None)
    return np.asarray(leaf).dtype if dtype is None else dtype


def _abstract(tree) -> Any:
    return jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(np.shape(a), _dtype(a)), tree)


def _kind(dtype) -> str:
    """What a dtype holds, regardless of precision: a float32 state runs a float64 stream."""
    if jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        return "key"
    for kind, base in (("bool", jnp.bool_), ("integer", jnp.integer), ("floating", jnp.floating)):
        if jnp.issubdtype(dtype, base):
            return kind
    return str(dtype)


def _init_structure(init, example) -> Optional[tuple]:
    """``(tree, [(path, ShapeDtypeStruct)], treedef)`` of ``init(example)`` (with a key where it needs
    one), or ``None`` where ``init`` cannot be evaluated on this example (nothing to compare with)."""
    for args in ((example,), (example, jax.eval_shape(jax.random.PRNGKey, 0))):
        try:
            tree = jax.eval_shape(init, *args)
        except Exception:  # noqa: BLE001 - any failure only means there is nothing to compare with
            continue
        leaves, treedef = jax.tree_util.tree_flatten_with_path(tree)
        return tree, leaves, treedef
    return None


def expected_state(init, example, cache: dict, key: Any = None) -> Optional[tuple]:
    """What ``init`` builds from one example, cached in ``cache`` by ``key`` and the example's shapes
    and dtypes (abstract: one trace of ``init`` per new shape, no compilation)."""
    try:
        leaves, treedef = jax.tree_util.tree_flatten(example)
        full_key = (key, treedef, tuple((np.shape(a), str(_dtype(a))) for a in leaves))
        hash(full_key)
    except (TypeError, ValueError):  # a ragged list or an unhashable learner: not cached
        return _init_structure(init, _abstract(example))
    if full_key not in cache:
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache[full_key] = _init_structure(init, _abstract(example))
    return cache[full_key]


def _named(tree) -> str:
    return type(tree).__name__


def check_state(state: Any, expected: Optional[tuple], example: str, own_checks=None) -> None:
    """Raise ``ValueError`` naming `state` unless it is a state ``init`` could have built (see the
    module docstring); ``example`` names the argument ``init`` was evaluated on (an example of it).

    On a shape that differs, ``own_checks()`` (the learner's ``update`` evaluated abstractly) runs
    first: where the data have another width than the state, the learner's own message says so."""
    if expected is None:
        return
    tree, want, treedef = expected
    got, got_def = jax.tree_util.tree_flatten_with_path(state)
    if got_def != treedef:
        shown = (_named(tree), _named(state))
        if shown[0] == shown[1]:
            shown = (str(treedef), str(got_def))
        raise ValueError(
            f"expected `state` of the structure `learner.init` builds ({shown[0]}), got {shown[1]}; "
            "pass the state from `learner.init` or from a previous `run`/`update` of this learner"
        )
    concrete = is_concrete(state)
    for (path, leaf), (_, spec) in zip(got, want):
        where = "state" + jax.tree_util.keystr(path)
        dtype, shape = _dtype(leaf), np.shape(leaf)
        kinds = (_kind(dtype), _kind(spec.dtype))
        if "key" in kinds:  # a typed or a raw PRNG key: either is a key
            continue
        if kinds[0] != kinds[1]:
            raise ValueError(
                f"expected `state` as `learner.init` builds it: `{where}` of dtype {spec.dtype}, got "
                f"{dtype}; pass the state from `learner.init` or from a previous `run`/`update`"
            )
        if shape != spec.shape:  # the state or the data: the learner's own width checks speak first
            _own_checks_first(own_checks)
            raise ValueError(
                f"expected `state` and `{example}` to agree: `learner.init` builds `{where}` of shape "
                f"{spec.shape} from this `{example}`, but `state` has {shape} (another width of data?)"
            )
        if concrete:
            _check_state_values(
                where, leaf, kinds[0], getattr(path[-1], "name", "") if path else ""
            )


def _own_checks_first(own_checks) -> None:
    if own_checks is None:
        return
    try:
        own_checks()
    except ValueError:
        raise
    except Exception:  # noqa: BLE001 - a failure inside JAX: the state's message is the clearer one
        return


def _check_state_values(where: str, leaf, kind: str, field: str) -> None:
    if kind == "floating" and np.size(leaf):
        finite, _, _ = array_summary(leaf)
        if not finite:
            values = np.asarray(leaf)
            bad = np.isnan(values) | np.isposinf(values)
            if not field.startswith("log"):  # log-weights hold -inf for a weight of 0
                bad |= np.isneginf(values)
            if bad.any():
                raise ValueError(f"expected `state` to be finite, found NaN or inf in `{where}`")
    if kind == "integer" and field in COUNTERS and np.size(leaf):
        low = np.asarray(leaf).min()  # on the host (NumPy's min of a jax.Array would be traced)
        if low < 0:
            raise ValueError(f"expected `state` with counters >= 0, got `{where}` = {low}")


def checked(learner):
    """The learner with jaxlearn's eager input layer around its functions.

    Lists become arrays; on concrete inputs (outside ``jit``/``vmap``) NaN/inf are refused, an online
    ``update`` applies the learner's ``check`` to its one example, a batch ``fit`` applies ``check``
    to the sample; a concrete result whose ``diverged`` flag is set gives a ``RuntimeWarning``.
    Under a trace only the learners' own shape checks run.
    """
    fields = getattr(learner, "_fields", ())
    if "fit" in fields:
        return _checked_batch(learner)
    if "update" not in fields:
        return learner
    init, update, predict, check = learner.init, learner.update, learner.predict, learner.check

    def checked_init(example_x, *args, **kwargs):
        example_x = as_array(example_x)
        if isinstance(example_x, np.ndarray):  # put on the device (jnp.asarray compiles a program)
            example_x = jax.device_put(example_x)
        return init(example_x, *args, **kwargs)

    init_shapes: dict = {}

    def checked_update(state, x, y):
        x, y = as_array(x), as_labels(y)
        example, name = (x, "x") if x is not None else (y, "y")  # Hedge's rounds: a loss vector
        own_checks = functools.partial(jax.eval_shape, update, state, x, y)
        check_state(state, expected_state(init, example, init_shapes), name, own_checks)
        if is_concrete(x, y):
            _check_finite_if_concrete(("x", x), ("y", y))
            if check is not None:
                one = functools.partial(jax.tree_util.tree_map, lambda a: np.asarray(a)[None])
                try:
                    check(one(x), one(y))
                except ValueError as error:
                    raise _renamed(error, {"xs": "x", "ys": "y"}) from None
        return update(state, x, y)

    def checked_predict(state, x=None):  # x=None: Hedge's allocation takes no instance
        x = as_array(x)
        _check_finite_if_concrete(("x", x))
        return predict(state, x)

    return learner._replace(init=checked_init, update=checked_update, predict=checked_predict)


def _checked_batch(learner):
    fit, predict, decision, check = (
        learner.fit,
        learner.predict,
        learner.decision_function,
        learner.check,
    )

    def checked_fit(key, X, y, *args, **kwargs):
        X, y = as_array(X), as_labels(y)
        if check is not None:
            check(X, y, *args, **kwargs)
        params = fit(key, X, y, *args, **kwargs)
        warn_if_diverged(params, "fit", stacklevel=4)  # the caller of the learner's `fit` field
        return params

    def with_finite_X(function):
        def checked(params, X, *args, **kwargs):
            X = as_array(X)
            _check_finite_if_concrete(("X", X))
            return function(params, X, *args, **kwargs)

        return checked

    return learner._replace(
        fit=checked_fit,
        predict=with_finite_X(predict),
        decision_function=None if decision is None else with_finite_X(decision),
    )
