"""The protocols every jaxlearn learner follows, and the one online loop.

An online learner is a :class:`Learner`, a ``NamedTuple`` of pure functions in the style of optax's
``GradientTransformation``: ``init`` builds a state from one example, ``update`` plays one round of the
online protocol (predict on ``x``, see ``y``, suffer a loss, update) and ``predict`` labels one example.
:func:`run` plays a whole stream as one ``lax.scan``. A batch learner is a :class:`BatchLearner`,
``fit(key, X, y) -> params`` and ``predict(params, X)``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

Array = jax.Array
PyTree = Any
State = Any
Info = Any
Params = Any
#: A numeric hyperparameter: a number, an array, or a schedule ``t -> value`` (as in optax).
ScalarOrSchedule = Union[float, ArrayLike, Callable[[Array], Array]]


class Learner(NamedTuple):
    """An online learner: pure functions over a state pytree.

    Attributes:
      init: ``init(example_x, key=None) -> State``; shapes and dtypes come from one example.
      update: ``update(state, x, y) -> (State, Info)``; one round of the online protocol.
        ``Info.prediction`` is the prediction made *before* the update (the prequential record).
      predict: ``predict(state, x) -> prediction`` for one example (see :func:`predict_batch`).
      check: optional ``check(xs, ys)`` raising ``ValueError`` on a stream this learner cannot take;
        :func:`run` calls it on concrete inputs before scanning.
      run_block: optional ``run_block(state, xs, ys) -> (State, Info)``, an exact block version
        of ``update`` scanned over a block ``xs``/``ys`` (used by mistake-driven
        learners to skip blocks they classify correctly; see :func:`run`'s ``block_size``).
    """

    init: Callable[..., State]
    update: Callable[[State, Any, Any], tuple[State, Info]]
    predict: Callable[[State, Any], Array]
    check: Optional[Callable[[Any, Any], None]] = None
    run_block: Optional[Callable[[State, Any, Any], tuple[State, Info]]] = None


class BatchLearner(NamedTuple):
    """A batch learner: ``fit(key, X, y) -> Params`` and ``predict(params, X) -> labels``.

    ``key`` comes first even when unused, so that every fit can be vmapped over seeds.
    """

    fit: Callable[[Array, Any, Any], Params]
    predict: Callable[[Params, Any], Array]
    decision_function: Optional[Callable[[Params, Any], Array]] = None


# --------------------------------------------------------------------------------------------
# Input validation (concrete inputs only; nothing here runs inside a jitted loop)
# --------------------------------------------------------------------------------------------


def is_concrete(*trees: Any) -> bool:
    """True when no leaf of ``trees`` is a tracer, so value checks can run on the host."""
    return not any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(trees))


def check_finite(name: str, value: Any) -> None:
    """Raise ``ValueError`` if a concrete floating array ``value`` holds NaN or inf."""
    if value is None or not is_concrete(value):
        return
    for leaf in jax.tree_util.tree_leaves(value):
        leaf = np.asarray(leaf)  # concrete: checked on the host, never staged into a trace
        if np.issubdtype(leaf.dtype, np.inexact) and not np.isfinite(leaf).all():
            raise ValueError(f"expected `{name}` to be finite, found NaN or inf values")


def check_labels(name: str, y: Any, allowed: tuple, hint: str = "") -> None:
    """Raise ``ValueError`` unless every value of concrete ``y`` is in ``allowed``."""
    if not is_concrete(y):
        return
    found = np.unique(np.asarray(y))
    bad = np.setdiff1d(found, np.asarray(allowed))
    if bad.size:
        shown = ", ".join(f"{v:g}" for v in found[:10].tolist()) + (", ..." if found.size > 10 else "")
        allowed_s = ", ".join(str(a) for a in allowed)
        raise ValueError(
            f"expected `{name}` in {{{allowed_s}}}, found values {{{shown}}}" + (f"; {hint}" if hint else "")
        )


def check_range(name: str, value: Any, lo: float, hi: float) -> None:
    """Raise ``ValueError`` unless every value of concrete ``value`` lies in ``[lo, hi]``."""
    if value is None or not is_concrete(value):
        return
    array = np.asarray(value)
    if array.size and (array.min() < lo or array.max() > hi):
        raise ValueError(
            f"expected `{name}` in [{lo:g}, {hi:g}], found values in [{array.min():g}, {array.max():g}]"
        )


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` unless it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"expected `{name}` a positive int, got {value!r}")
    return int(value)


def check_ndim(name: str, value: Any, ndim: int, what: str) -> None:
    """Raise ``ValueError`` unless ``value`` has ``ndim`` dimensions (a shape check: runs on tracers too)."""
    shape = jnp.shape(value)
    if len(shape) != ndim:
        raise ValueError(f"expected `{name}` of shape {what}, got {shape}")


def check_width(name: str, x: Any, width: int) -> None:
    """Raise ``ValueError`` unless the last axis of ``x`` has the width the state was built for."""
    shape = jnp.shape(x)
    if not shape or shape[-1] != width:
        raise ValueError(
            f"expected `{name}` with {width} features (the width of the example the state was "
            f"initialised from), got {shape[-1] if shape else 'a scalar'}"
        )


#: Hint shown when binary labels are not in {-1, +1}.
PLUS_MINUS_HINT = "use `2 * y - 1` to convert {0, 1} labels"


def check_binary_stream(xs: Any, ys: Any) -> None:
    """The ``check`` of linear learners: ``xs`` of shape (n, d), labels in {-1, +1}."""
    check_ndim("xs", xs, 2, "(n, d)")
    check_labels("ys", ys, (-1, 1), PLUS_MINUS_HINT)


#: Hint shown when {0, 1} labels were expected.
ZERO_ONE_HINT = "use `(y + 1) // 2` to convert {-1, +1} labels"


def check_boolean_values(xs: Any, ys: Any, what: str) -> None:
    """The value checks of the learners over {0,1}^n with {0, 1} labels (Winnow, conjunctions, ...)."""
    check_labels("xs", xs, (0, 1), f"{what} learns over {{0,1}}^n")
    check_labels("ys", ys, (0, 1), f"{what} uses {{0, 1}} labels; {ZERO_ONE_HINT}")


def _check_stream(learner: Learner, xs: Any, ys: Any) -> int:
    """Checks common to every stream; returns its length."""
    leaves = [leaf for leaf in jax.tree_util.tree_leaves((xs, ys))]
    if not leaves:
        raise ValueError("expected `xs` or `ys` to hold the stream, got None for both")
    lengths = {}
    for name, value in (("xs", xs), ("ys", ys)):
        for leaf in jax.tree_util.tree_leaves(value):
            if jnp.ndim(leaf) == 0:
                raise ValueError(f"expected `{name}` with a leading time axis, got a scalar")
            lengths.setdefault(name, jnp.shape(leaf)[0])
    if len(set(lengths.values())) > 1:
        raise ValueError(
            f"expected `xs` and `ys` of the same length, got {lengths['xs']} and {lengths['ys']}"
        )
    n = next(iter(lengths.values()))
    if n == 0:
        raise ValueError("expected a non-empty stream, got `xs`/`ys` of length 0")
    check_finite("xs", xs)
    check_finite("ys", ys)
    if learner.check is not None:
        learner.check(xs, ys)
    return int(n)


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
    unroll: int = 4,
) -> tuple[State, Any]:
    """Play the online protocol over a stream, as one ``lax.scan``.

    .. math::  (s_{t+1}, \\mathrm{info}_t) = \\mathrm{update}(s_t, x_t, y_t), \\quad t = 1..T

    Args:
      learner: the online learner.
      state: its state, from ``learner.init`` or from a previous ``run`` (streaming in chunks with
        the carried state gives exactly the result of one call on the whole stream).
      xs: instances, leading axis time (``None`` where the learner ignores them, as Hedge does).
      ys: labels / outcomes / loss vectors, leading axis time.
      trace_fn: maps each round's ``Info`` to what the trace keeps (default: the whole ``Info``).
      progress: show a tqdm progress bar from inside the scan (needs the ``progress`` extra).
      block_size: for learners with an exact block rule (``learner.run_block``: the mistake-driven
        perceptrons, Hedge), process the stream in blocks of this many rounds, vectorised across
        the block: the perceptrons score a block with one matrix-vector product and jump from
        mistake to mistake; Hedge computes a block of allocations from cumulative losses. The
        result equals the round-by-round scan up to float rounding (for the perceptrons, bitwise
        except where a score lies within rounding of 0). Ignored for other learners.
      unroll: rounds per iteration of the compiled loop (``lax.scan``'s ``unroll``). The default
        halves the time of cheap rounds on CPU (the Perceptron at d=100); rounds dominated by
        arithmetic (Hedge over 1,000 experts) gain little.

    Returns:
      ``(final_state, trace)``: ``trace`` is ``Info`` (or ``trace_fn(Info)``) stacked over time.

    Raises:
      ValueError: on mismatched lengths, an empty stream, NaN/inf inputs, or inputs the learner's
        ``check`` rejects (checked only when the inputs are concrete, i.e. outside ``jit``/``vmap``).
    """
    if is_concrete(xs, ys):
        _check_stream(learner, xs, ys)
    if block_size is not None and learner.run_block is not None:
        if int(block_size) < 1:
            raise ValueError(f"expected `block_size` >= 1, got {block_size}")
        return _run_blocked(learner, state, xs, ys, trace_fn, progress, int(block_size))
    return _run_scan(learner, state, xs, ys, trace_fn, progress, int(unroll))


@functools.partial(jax.jit, static_argnums=(0, 4, 5, 6))
def _run_scan(learner, state, xs, ys, trace_fn, progress, unroll):
    def step(s, xy):
        s, info = learner.update(s, *xy)
        return s, (info if trace_fn is None else trace_fn(info))

    n = jax.tree_util.tree_leaves((xs, ys))[0].shape[0]
    if not progress:
        return jax.lax.scan(step, state, (xs, ys), unroll=unroll)
    return jax.lax.scan(_with_progress(step, n), state, (jnp.arange(n), (xs, ys)), unroll=unroll)


@functools.partial(jax.jit, static_argnums=(0, 4, 5, 6))
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
        if progress:
            state, trace = jax.lax.scan(_with_progress(step, num_blocks), state, (starts, starts))
        else:
            state, trace = jax.lax.scan(step, state, starts)
        traces.append(jax.tree_util.tree_map(lambda a: a.reshape(-1, *a.shape[2:]), trace))
    if rest:
        state, trace = block(state, n - rest, rest)
        traces.append(trace)
    if len(traces) == 1:
        return state, traces[0]
    return state, jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces)


def _with_progress(step, n):
    try:
        from jax_tqdm import scan_tqdm
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("`progress=True` needs jax-tqdm: pip install 'jaxlearn[progress]'") from err
    bar = scan_tqdm(n, desc=f"jaxlearn.run: {n:,} steps")
    return bar(lambda s, ixy: step(s, ixy[1]))


def predict_batch(learner: Learner, state: State, X: ArrayLike) -> Array:
    """Predict a batch: ``jax.vmap(learner.predict, (None, 0))(state, X)``."""
    return jax.vmap(learner.predict, in_axes=(None, 0))(state, X)


# --------------------------------------------------------------------------------------------
# Helpers shared by learners
# --------------------------------------------------------------------------------------------


def schedule_value(value: ScalarOrSchedule, count: Array) -> Array:
    """Evaluate a :data:`ScalarOrSchedule` at step ``count`` (0-based, as optax schedules are)."""
    return value(count) if callable(value) else jnp.asarray(value)


def zero_counter() -> Array:
    """An int32 scalar counter (every counter in a state is one)."""
    return jnp.zeros([], jnp.int32)


def float_dtype(x: ArrayLike):
    """The floating dtype a learner computes in for input ``x`` (x's own if floating, else default)."""
    dtype = jnp.result_type(x)
    return dtype if jnp.issubdtype(dtype, jnp.floating) else jnp.result_type(float)


def first_index(mask: Array) -> Array:
    """Index of the first True entry of a 1-D ``mask``, or ``len(mask)`` when there is none."""
    return jnp.where(jnp.any(mask), jnp.argmax(mask), mask.shape[0]).astype(jnp.int32)
