"""The protocols every jaxlearn learner follows, and the one online loop.

An online learner is a :class:`Learner`, a ``NamedTuple`` of pure functions in the style of optax's
``GradientTransformation``: ``init`` builds a state from one example, ``update`` plays one round of the
online protocol (predict on ``x``, see ``y``, suffer a loss, update) and ``predict`` labels one example.
:func:`run` plays a whole stream as one ``lax.scan``. A batch learner is a :class:`BatchLearner`,
``fit(key, X, y) -> params`` and ``predict(params, X)``. Factories decorated with
:func:`learner_factory` return learners that are pytrees (numeric hyperparameters are the leaves).

:func:`pipeline` chains online preprocessing steps (:class:`Transform`) in front of an online learner.
``__all__`` is the API. The validation helpers and the other plumbing the families share live
in private modules (``jaxlearn._checks``, ``jaxlearn._regularized``, ...); the names this module
used to re-export from them still resolve, with a ``DeprecationWarning``, for one release.
"""

from __future__ import annotations

import importlib
import types
import warnings
from typing import Any, Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import _checks, _eager, _progress
from jaxlearn._checks import (
    NON_NEGATIVE,
    OPEN_UNIT,
    POSITIVE,
    POSITIVE_INT,
    UNIT,
    Interval,
)
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._learner import (
    BatchLearner,
    CheckFn,
    FitFn,
    InitFn,
    Learner,
    PredictFn,
    RunBlockFn,
    UpdateFn,
    hyperparameters,
    learner_factory,
    replace,
)
from jaxlearn._pipeline import PipelineState, Transform, pipeline
from jaxlearn._registry import loadable

__all__ = [
    # the protocols and the types of their functions
    "Learner",
    "BatchLearner",
    "Transform",
    "PipelineState",
    "InitFn",
    "UpdateFn",
    "PredictFn",
    "CheckFn",
    "RunBlockFn",
    "FitFn",
    # running and composing learners
    "run",
    "predict_batch",
    "pipeline",
    # writing a learner: its factory, hyperparameters, valid ranges and io registration
    "learner_factory",
    "hyperparameters",
    "replace",
    "loadable",
    "Interval",
    "POSITIVE",
    "NON_NEGATIVE",
    "NON_NEGATIVE_INT",
    "POSITIVE_INT",
    "UNIT",
    "OPEN_UNIT",
]

Array = jax.Array
PyTree = Any
State = Any
Info = Any
Params = Any
#: [0, inf) integers (``block_size``: 0 is the round-by-round scan).
NON_NEGATIVE_INT = Interval(0, float("inf"), True, False, integer=True)


def _check_stream(learner: Learner, xs: Any, ys: Any) -> int:
    """Checks common to every stream; returns its length."""
    leaves = [leaf for leaf in jax.tree_util.tree_leaves((xs, ys))]
    if not leaves:
        raise ValueError("expected `xs` or `ys` to hold the stream, got None for both")
    lengths = {}
    for name, value in (("xs", xs), ("ys", ys)):
        for leaf in jax.tree_util.tree_leaves(value):
            if np.ndim(leaf) == 0:
                raise ValueError(f"expected `{name}` with a leading time axis, got a scalar")
            lengths.setdefault(name, np.shape(leaf)[0])
    if len(set(lengths.values())) > 1:
        raise ValueError(
            f"expected `xs` and `ys` of the same length, got {lengths['xs']} and {lengths['ys']}"
        )
    n = next(iter(lengths.values()))
    if n == 0:
        raise ValueError("expected a non-empty stream, got `xs`/`ys` of length 0")
    _checks.check_finite("xs", xs)
    _checks.check_finite("ys", ys)
    if learner.check is not None:
        learner.check(xs, ys)
    return int(n)


_init_shapes: dict = {}  # what a learner's init builds, by the learner's tree definition and example shape


def _check_run_state(learner: Learner, state: State, xs: Any, ys: Any) -> None:
    """``state`` against what ``learner.init`` builds from the stream's first example (``xs[0]``, or
    ``ys[0]`` where the rounds have no instance, as Hedge's): structure, shapes and dtype kinds, also
    under a trace; when concrete, finite values (``-inf`` allowed in log-weights) and counters >= 0."""
    source, name = (xs, "xs") if xs is not None else (ys, "ys")
    try:
        example = jax.tree_util.tree_map(_one_round, source)
        key = jax.tree_util.tree_structure(learner)
    except (TypeError, ValueError):  # a ragged stream: the learner's own checks speak
        return

    def own_checks():  # the learner's update on the first round, abstractly (its width checks)
        jax.eval_shape(learner.update, state, *jax.tree_util.tree_map(_one_round, (xs, ys)))

    expected = _eager.expected_state(learner.init, example, _init_shapes, key)
    _eager.check_state(state, expected, name, own_checks)


def _one_round(a) -> jax.ShapeDtypeStruct:
    """The shape and dtype of one round of a stream's leaf (its leading axis dropped)."""
    return jax.ShapeDtypeStruct(
        np.shape(a)[1:], a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype
    )


# --------------------------------------------------------------------------------------------
# The online loop
# --------------------------------------------------------------------------------------------


def run(
    learner: Learner,
    state: State,
    xs: Any,
    ys: Any,
    *,
    trace_fn: Optional[Callable[[Info], Any]] = None,
    progress: bool = False,
    block_size: Optional[int] = None,
    unroll: Optional[int] = None,
    active: Optional[ArrayLike] = None,
) -> tuple[State, Any]:
    """Play the online protocol over a stream, as one ``lax.scan``.

    .. math::  (s_{t+1}, \\mathrm{info}_t) = \\mathrm{update}(s_t, x_t, y_t), \\quad t = 1..T

    Args:
      learner: the online learner.
      state: its state, from ``learner.init`` or from a previous ``run`` (streaming in chunks with
        the carried state gives exactly the result of one call on the whole stream).
      xs: instances, leading axis time (``None`` where the learner ignores them, as Hedge does).
      ys: labels / outcomes / loss vectors, leading axis time (labels are one scalar per round, shape
        ``(T,)``, except for learners whose labels are vectors, as Hedge's loss vectors ``(T, n)``).
      trace_fn: maps each round's ``Info`` to what the trace keeps (default: the whole ``Info``). A
        compiled run is reused for any function of the same code and the same values closed over
        or read from its globals (numbers, strings, tuples of them, ``jax.Array`` objects, functions,
        modules), so a fresh ``lambda`` per call compiles once; one that reads a mutable value (a
        NumPy array, a list) is compared by identity, as ``jax.jit`` compares it.
      progress: show a tqdm progress bar from inside the scan (needs the ``progress`` extra).
      block_size: rounds per block for learners with an exact block rule (``learner.run_block``:
        the mistake-driven perceptrons, Hedge). The block rule is vectorised across a block: the
        perceptrons score it with one matrix-vector product and jump from mistake to mistake; Hedge
        computes its allocations from cumulative losses. Its result equals the round-by-round scan
        (for the perceptrons bitwise, except where a score lies within float rounding of 0).
        ``None`` (default): the learner's own ``block_size`` (the perceptrons use blocks by default;
        others the plain scan); ``0``: always the round-by-round scan.
      unroll: rounds per iteration of the compiled loop (``lax.scan``'s ``unroll``). ``None``
        (default): 4 on streams of at least :data:`UNROLL_FROM` rounds, where it halves the time of
        cheap rounds on CPU (the Perceptron at d=100), else 1: unrolling compiles the round 4 times
        (0.4-1.2 s more on a first call) to save a few milliseconds per 1,000 rounds.
      active: optional ``(T,)`` bools: a round where it is ``False`` leaves the state as it was (its
        ``Info`` is still traced). A stream padded with inactive rounds to a fixed length gives the
        state of its active rounds (to the last bit: XLA may compile an update's arithmetic
        otherwise beside the select), so streams of several lengths run one compiled program. The
        rounds then run one by one (no block rule).

    Returns:
      ``(final_state, trace)``: ``trace`` is ``Info`` (or ``trace_fn(Info)``) stacked over time.

    Raises:
      ValueError: on mismatched lengths, an empty stream, NaN/inf inputs, or inputs the learner's
        ``check`` rejects (checked only when the inputs are concrete, i.e. outside ``jit``/``vmap``);
        on a ``state`` that ``learner.init`` could not have built from ``xs[0]`` (another structure,
        shape or kind of dtype; when concrete, NaN, inf outside log-weights, a negative counter).
    """
    if not isinstance(learner, Learner):
        raise TypeError(f"expected `learner` a core.Learner, got {type(learner).__name__}")
    if ys is None:
        raise ValueError(
            "expected `ys` (the labels, outcomes or loss vectors of the stream, leading axis time), got None"
        )
    xs, ys = _checks.as_array(xs), _checks.as_labels(ys)
    if _checks.is_concrete(xs, ys):
        _check_stream(learner, xs, ys)
    _check_run_state(learner, state, xs, ys)
    trace_fn = _by_code(trace_fn)
    if block_size is None:
        block_size = learner.block_size
    NON_NEGATIVE_INT.check("block_size", block_size)
    length = _stream_length(xs, ys)
    if unroll is None:
        unroll = 4 if length >= UNROLL_FROM else 1
    POSITIVE_INT.check("unroll", unroll)
    if active is not None:
        active = _checks.as_array(active)
        if active.shape != (length,) or active.dtype != jnp.bool_:
            raise ValueError(
                f"expected `active` of shape ({length},) and dtype bool, one flag a round, got "
                f"shape {active.shape} and dtype {active.dtype}"
            )
    if block_size and learner.run_block is not None and active is None:
        result = _run_blocked(learner, state, xs, ys, trace_fn, progress, int(block_size))
    else:
        result = _run_scan(learner, state, xs, ys, active, trace_fn, progress, int(unroll))
    _checks.warn_if_diverged(result[0], "run")
    return result


class _SameCode:
    """A ``trace_fn`` compared by what it computes: its code, globals, defaults and closed-over values.

    ``run``'s compiled programs are cached by ``trace_fn`` (a static argument), so a fresh
    ``lambda info: info.loss`` per call would compile anew every time; two functions equal here
    (the same code, and equal values closed over, as defaults and in the globals it reads) compute
    the same thing, so the second reuses the first's program.
    """

    __slots__ = ("function", "key")

    def __init__(self, function, key):
        self.function, self.key = function, key

    def __call__(self, info):
        return self.function(info)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, _SameCode) and self.key == other.key


class _Identity:
    """A value compared by identity (an immutable array: the same object, the same values)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


_IMMUTABLE = (
    bool,
    int,
    str,
    bytes,
    type(None),
    type(Ellipsis),
    type,
    types.ModuleType,
    types.BuiltinFunctionType,
)


def _value_key(value, depth: int = 0) -> Any:
    """A hashable stand-in for ``value`` that is equal only for values that trace alike, or ``None``
    where there is none that is safe (a mutable value: a NumPy array, a list, a dict, an object)."""
    if isinstance(value, float):
        return (float, value.hex())  # -0.0 is not 0.0; NaN is NaN
    if isinstance(value, complex):
        return (complex, value.real.hex(), value.imag.hex())
    if isinstance(value, _IMMUTABLE):
        return (type(value), value)
    if isinstance(value, tuple):
        parts = tuple(_value_key(v, depth + 1) for v in value)
        return None if any(p is None for p in parts) else (type(value), parts)
    if isinstance(value, types.FunctionType):
        key = _code_key(value, depth + 1)
        return ("function", _Identity(value) if key is None else key)
    if isinstance(value, jax.Array):  # immutable: the same object traces the same constant
        return ("array", _Identity(value))
    return None


def _code_key(function, depth: int = 0) -> Any:
    if depth > 8:  # deeply nested (or recursive) closures: compared by identity
        return None
    cells = []
    for cell in function.__closure__ or ():
        try:
            cells.append(cell.cell_contents)
        except ValueError:  # an empty cell (a name not yet bound)
            return None
    scope = function.__globals__
    read = sorted(name for name in _names(function.__code__) if name in scope)
    values = (
        *(function.__defaults__ or ()),
        *sorted((function.__kwdefaults__ or {}).items()),
        *cells,
        *((name, scope[name]) for name in read),  # the globals it reads, as they are now
    )
    parts = tuple(_value_key(v, depth) for v in values)
    if any(p is None for p in parts):
        return None
    return (function.__code__, _Identity(scope), parts)


def _names(code: types.CodeType) -> set:
    """The global (and attribute) names ``code`` and the code nested in it refer to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _by_code(trace_fn):
    """``trace_fn`` wrapped so that equal code with equal closed-over values compiles once (a plain
    Python function only; any other callable, or one closing over a mutable value, is kept as is)."""
    if not isinstance(trace_fn, types.FunctionType):
        return trace_fn
    key = _code_key(trace_fn)
    return trace_fn if key is None else _SameCode(trace_fn, key)


#: Streams of at least this many rounds are unrolled 4 times by :func:`run` (its ``unroll=None``).
UNROLL_FROM = 65_536


def _stream_length(xs, ys) -> int:
    leaves = [leaf for leaf in jax.tree_util.tree_leaves((xs, ys)) if np.ndim(leaf) > 0]
    return int(np.shape(leaves[0])[0]) if leaves else 0


# The learner is a pytree argument: a new value of a numeric hyperparameter compiles nothing new.
@cpu_jit(static_argnums=(5, 6, 7))
def _run_scan(learner, state, xs, ys, active, trace_fn, progress, unroll):
    def step(s, xya):
        x, y, a = xya
        new, info = learner.update(s, x, y)
        if a is not None:  # an inactive round keeps the state
            new = jax.tree_util.tree_map(lambda n, o: jnp.where(a, n, o), new, s)
        return new, (info if trace_fn is None else trace_fn(info))

    xya = (xs, ys, active)
    return _progress.scan(step, state, xya, progress=progress, desc="jaxlearn.run", unroll=unroll)


@cpu_jit(static_argnums=(4, 5, 6))
def _run_blocked(learner, state, xs, ys, trace_fn, progress, block_size):
    n = jax.tree_util.tree_leaves((xs, ys))[0].shape[0]
    num_blocks, rest = divmod(n, block_size)
    keep = (lambda info: info) if trace_fn is None else jax.vmap(trace_fn)

    def take(a, start, size):  # a slice of the stream, not a copy of it (xs may be None)
        return None if a is None else jax.lax.dynamic_slice_in_dim(a, start, size)

    def block(s, start, size):
        s, info = learner.run_block(s, take(xs, start, size), take(ys, start, size))
        return s, keep(info)

    def step(s, i):
        return block(s, i * block_size, block_size)

    traces = []
    if num_blocks:
        starts = jnp.arange(num_blocks, dtype=jnp.int32)
        state, trace = _progress.scan(step, state, starts, progress=progress, desc="jaxlearn.run")
        traces.append(jax.tree_util.tree_map(lambda a: a.reshape(-1, *a.shape[2:]), trace))
    if rest:
        state, trace = block(state, n - rest, rest)
        traces.append(trace)
    if len(traces) == 1:
        return state, traces[0]
    return state, jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces)


def predict_batch(learner: Learner, state: State, X: ArrayLike) -> Array:
    """Predict a batch: ``jax.vmap(learner.predict, (None, 0))(state, X)``.

    Raises:
      ValueError: when ``X`` has no batch axis, or is concrete and holds NaN/inf (the learner's
        ``predict`` checks the width of each row).
    """
    X = _checks.as_array(X)
    leaves = jax.tree_util.tree_leaves(X)
    if not leaves or any(np.ndim(a) == 0 for a in leaves):
        raise ValueError(
            f"expected `X` with a leading batch axis, got {None if X is None else np.shape(X)}"
        )
    _checks.check_finite("X", X)
    return _predict_batch(learner, state, X)


@cpu_jit  # one program (the learner a pytree argument), not one eager dispatch per primitive
def _predict_batch(learner, state, X):
    return jax.vmap(learner.predict, in_axes=(None, 0))(state, X)


# --------------------------------------------------------------------------------------------
# Names that left this module: they resolve for one release, with a DeprecationWarning
# --------------------------------------------------------------------------------------------

#: name here -> (module, name there)
_MOVED = {
    # jaxlearn._checks
    "NUM_CLASSES_HINT": ("jaxlearn._checks", "NUM_CLASSES_HINT"),
    "PLUS_MINUS_HINT": ("jaxlearn._checks", "PLUS_MINUS_HINT"),
    "ZERO_ONE_HINT": ("jaxlearn._checks", "ZERO_ONE_HINT"),
    "above": ("jaxlearn._checks", "above"),
    "as_array": ("jaxlearn._checks", "as_array"),
    "as_labels": ("jaxlearn._checks", "as_labels"),
    "as_numeric": ("jaxlearn._checks", "as_numeric"),
    "at_least": ("jaxlearn._checks", "at_least"),
    "check_binary_stream": ("jaxlearn._checks", "check_binary_stream"),
    "check_boolean_values": ("jaxlearn._checks", "check_boolean_values"),
    "check_class_labels": ("jaxlearn._checks", "check_class_labels"),
    "check_finite": ("jaxlearn._checks", "check_finite"),
    "check_labels": ("jaxlearn._checks", "check_labels"),
    "check_multiclass_sample": ("jaxlearn._checks", "check_multiclass_sample"),
    "check_ndim": ("jaxlearn._checks", "check_ndim"),
    "check_num_classes": ("jaxlearn._checks", "check_num_classes"),
    "check_positive": ("jaxlearn._checks", "check_positive"),
    "check_positive_int": ("jaxlearn._checks", "check_positive_int"),
    "check_range": ("jaxlearn._checks", "check_range"),
    "check_sample": ("jaxlearn._checks", "check_sample"),
    "check_sample_shapes": ("jaxlearn._checks", "check_sample_shapes"),
    "check_width": ("jaxlearn._checks", "check_width"),
    "is_concrete": ("jaxlearn._checks", "is_concrete"),
    "num_classes_of": ("jaxlearn._checks", "num_classes_of"),
    "warn_if_diverged": ("jaxlearn._checks", "warn_if_diverged"),
    # jaxlearn._eager
    "check_state": ("jaxlearn._eager", "check_state"),
    "expected_state": ("jaxlearn._eager", "expected_state"),
    # jaxlearn._lbfgs
    "LBFGSResult": ("jaxlearn._lbfgs", "LBFGSResult"),
    "check_sample_weight": ("jaxlearn._lbfgs", "check_sample_weight"),
    "minimize_lbfgs": ("jaxlearn._lbfgs", "minimize_lbfgs"),
    # jaxlearn._progress
    "scan": ("jaxlearn._progress", "scan"),
    # jaxlearn._registry
    "registered": ("jaxlearn._registry", "registered"),
    "loadable_entry": ("jaxlearn._registry", "entry"),
    # jaxlearn._regularized
    "average_of_increments": ("jaxlearn._regularized", "average_of_increments"),
    "check_variant": ("jaxlearn._regularized", "check_variant"),
    "hinge_subgradient": ("jaxlearn._regularized", "hinge_subgradient"),
    "regularized_sgd": ("jaxlearn._regularized", "regularized_sgd"),
    "sample_indices": ("jaxlearn._regularized", "sample_indices"),
    "step_scales": ("jaxlearn._regularized", "step_scales"),
    # jaxlearn._sharding
    "RowSplit": ("jaxlearn._sharding", "RowSplit"),
    "block_starts": ("jaxlearn._sharding", "block_starts"),
    "block_weights": ("jaxlearn._sharding", "block_weights"),
    "check_divisible": ("jaxlearn._sharding", "check_divisible"),
    "check_mesh": ("jaxlearn._sharding", "check_mesh"),
    "check_progress": ("jaxlearn._sharding", "check_progress"),
    "device_index": ("jaxlearn._sharding", "device_index"),
    "local_rows": ("jaxlearn._sharding", "local_rows"),
    "row_split": ("jaxlearn._sharding", "row_split"),
    "rows_like": ("jaxlearn._sharding", "rows_like"),
    "stratified_indices": ("jaxlearn._sharding", "stratified_indices"),
    # jaxlearn._threads
    "cpu_parts": ("jaxlearn._threads", "cpu_parts"),
    "join_slices": ("jaxlearn._threads", "join_slices"),
    "run_in_threads": ("jaxlearn._threads", "run_in_threads"),
    "top_level": ("jaxlearn._threads", "top_level"),
    # jaxlearn._shared
    "ScalarOrSchedule": ("jaxlearn._shared", "ScalarOrSchedule"),
    "as_float": ("jaxlearn._shared", "as_float"),
    "check_scalar_label": ("jaxlearn._shared", "check_scalar_label"),
    "check_scalar_labels": ("jaxlearn._shared", "check_scalar_labels"),
    "first_index": ("jaxlearn._shared", "first_index"),
    "float_dtype": ("jaxlearn._shared", "float_dtype"),
    "schedule_value": ("jaxlearn._shared", "schedule_value"),
    "sign_label": ("jaxlearn._shared", "sign_label"),
    "zero_counter": ("jaxlearn._shared", "zero_counter"),
}
#: moved names that have a public home
_PUBLIC_HOME = {"registered": "jaxlearn.io.registered"}


def __getattr__(name: str) -> Any:
    """A name that left ``jaxlearn.core``: the object, with a ``DeprecationWarning`` naming it."""
    if name not in _MOVED:
        raise AttributeError(f"module 'jaxlearn.core' has no attribute {name!r}")
    module, there = _MOVED[name]
    if name in _PUBLIC_HOME:
        advice = f"use {_PUBLIC_HOME[name]}"
    else:
        advice = f"it lives in {module} (as {there}), which is not API and may change"
    warnings.warn(
        f"jaxlearn.core.{name} is private now; {advice}. jaxlearn.core stops providing it "
        "in the next release (jaxlearn.core.__all__ lists the API)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), there)
