"""The one validation layer of jaxlearn (private: the families import it from here).

Shape checks run on tracers too (shapes are static); value checks (labels, NaN/inf, ranges) run only
on concrete inputs, on the host, so nothing here is ever staged into a jitted loop. Every message
names the argument, what was expected and what was found.
"""

from __future__ import annotations

import math
import warnings
import weakref
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

#: Hint shown when binary labels are not in {-1, +1}.
PLUS_MINUS_HINT = "use `2 * y - 1` to convert {0, 1} labels"
#: Hint shown when {0, 1} labels were expected.
ZERO_ONE_HINT = "use `(y + 1) // 2` to convert {-1, +1} labels"
#: Shown when the number of classes cannot be read off a traced ``y``.
NUM_CLASSES_HINT = (
    "pass `num_classes=` to the factory when fitting under `jax.jit`/`jax.vmap` (the number of "
    "classes is structural: it fixes the shapes of the params)"
)


def is_concrete(*trees: Any) -> bool:
    """True when every leaf of ``trees`` can be read on this host, so value checks can run there: no
    tracer, and no ``jax.Array`` split over other processes' devices (a global array of a multi-process
    run, whose values this process cannot fetch; :func:`jaxlearn.parallel.shard_rows` checked them on
    the host before placing them). A replicated array is readable everywhere."""
    return not any(_unreadable(leaf) for leaf in jax.tree_util.tree_leaves(trees))


def _unreadable(leaf: Any) -> bool:
    if isinstance(leaf, jax.core.Tracer):
        return True
    return isinstance(leaf, jax.Array) and not (
        leaf.is_fully_addressable or leaf.is_fully_replicated
    )


def _shown(values: np.ndarray) -> str:
    return ", ".join(f"{v:g}" for v in values[:10].tolist()) + (", ..." if values.size > 10 else "")


# --- containers and divergence ---


def as_array(value: Any) -> Any:
    """A Python list becomes a NumPy array (every entry point takes lists); anything else is kept."""
    if isinstance(value, list):
        try:
            return np.asarray(value)
        except ValueError:  # ragged: a list of sequences, for the learners that take one
            return value
    return value


def as_numeric(name: str, value: Any) -> Any:
    """``value`` as a numeric (bool, int or float) JAX array, or a ``TypeError`` naming ``name``
    (lists and tuples go through NumPy; strings, ``None`` and ragged sequences are refused)."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"expected `{name}` a numeric array, got {type(value).__name__}")
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        try:
            value = np.asarray(value)
        except ValueError:
            raise TypeError(f"expected `{name}` a numeric array, got a ragged sequence") from None
    if not (value.dtype == np.bool_ or np.issubdtype(value.dtype, np.number)):
        raise TypeError(f"expected `{name}` a numeric array, got dtype {value.dtype}")
    return jnp.asarray(value)


def as_labels(value: Any) -> Any:
    """Labels as :func:`as_array` takes them; concrete boolean labels become int32 0/1 (so ``y > 0``
    from a comparison is a {0, 1} label vector, never a mask)."""
    value = as_array(value)
    if hasattr(value, "dtype") and value.dtype == np.bool_ and is_concrete(value):
        return np.asarray(value, np.int32)
    return value


def warn_if_diverged(result: Any, what: str, stacklevel: int = 3) -> None:
    """Warn (``RuntimeWarning``) when a concrete result carries a set ``diverged`` flag."""
    for part in (result, *(result if isinstance(result, tuple) else ())):
        flag = getattr(part, "diverged", None)
        if flag is not None and is_concrete(flag) and bool(np.any(np.asarray(flag))):
            warnings.warn(
                f"{what} diverged (its iterates became non-finite or exploded): the last finite "
                "iterate was kept and `diverged` is set; use a smaller step size",
                RuntimeWarning,
                stacklevel=stacklevel,
            )
            return


# --- numbers -------------------------------------------------------------------------------------


#: A ``jax.Array`` of at least this many entries on an accelerator is summarised on its own device by
#: one compiled pass (:func:`array_summary`); smaller arrays, host arrays and arrays on the CPU (which
#: NumPy reads where they are) by NumPy, with no program to compile.
ON_DEVICE_FROM = 1 << 20


@jax.jit
def _device_min_max(x):
    # Whether all are finite, asked apart: XLA's CPU reductions of large arrays skip NaN (min and max
    # of a 2^20-entry array holding one NaN come back as those of the other entries).
    return jnp.min(x), jnp.max(x), jnp.all(jnp.isfinite(x))


def on_accelerator(array: jax.Array) -> bool:
    """Whether some of ``array`` lives off the host (a GPU or TPU)."""
    return any(device.platform != "cpu" for device in array.devices())


_last_summary: list = [None]  # (weak reference to a jax.Array, its summary): arrays are immutable


def array_summary(leaf) -> tuple[bool, Any, Any]:
    """``(all finite, min, max)`` of a non-empty array. A large ``jax.Array`` is read in one pass on its
    own device (three scalars come back, no copy of it to the host), and the summary of the last one is
    kept, so that ``check_finite`` and ``check_range`` of the same stream read it once."""
    on_device = isinstance(leaf, jax.Array) and leaf.size >= ON_DEVICE_FROM and on_accelerator(leaf)
    if on_device:
        last = _last_summary[0]
        if last is not None and last[0]() is leaf:
            return last[1]
        with (
            jax.ensure_compile_time_eval()
        ):  # a concrete array closed over inside a trace: run it now
            lo, hi, finite = jax.device_get(_device_min_max(leaf))
    else:
        array = np.asarray(leaf)
        lo, hi = array.min(), array.max()  # NumPy's propagate NaN: finite iff both are
        finite = np.isfinite(lo) and np.isfinite(hi)
    inexact = np.issubdtype(np.asarray(lo).dtype, np.inexact)
    summary = (bool(finite) if inexact else True, lo, hi)
    if on_device:
        _last_summary[0] = (weakref.ref(leaf), summary)
    return summary


def check_finite(name: str, value: Any) -> None:
    """Raise ``ValueError`` if a concrete floating array ``value`` holds NaN or inf."""
    if value is None or not is_concrete(value):
        return
    for leaf in jax.tree_util.tree_leaves(value):
        dtype = leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype
        if np.issubdtype(dtype, np.inexact) and np.size(leaf) and not array_summary(leaf)[0]:
            raise ValueError(f"expected `{name}` to be finite, found NaN or inf values")


def check_range(name: str, value: Any, lo: float, hi: float) -> None:
    """Raise ``ValueError`` unless every value of concrete ``value`` lies in ``[lo, hi]``."""
    if value is None or not is_concrete(value) or not np.size(value):
        return
    finite, low, high = array_summary(value if isinstance(value, jax.Array) else np.asarray(value))
    if not (finite and low >= lo and high <= hi):  # NaN or inf fails, whatever the range's ends
        raise ValueError(
            f"expected `{name}` in [{lo:g}, {hi:g}], found values in [{low:g}, {high:g}]"
        )


def check_positive(name: str, value: Any) -> None:
    """Raise ``ValueError`` if a concrete numeric ``value`` has an entry ``<= 0`` (tracers, ``None`` and
    schedules pass: they are checked where they are evaluated)."""
    if value is None or callable(value) or not is_concrete(value):
        return
    array = np.asarray(value)
    if array.size and not (array > 0).all():
        raise ValueError(f"expected `{name}` > 0, got {value!r}")


def check_positive_int(name: str, value: Any) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` unless it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"expected `{name}` a positive int, got {value!r}")
    return int(value)


class Interval(NamedTuple):
    """The range a numeric hyperparameter must lie in, declared once per factory (``ranges=`` of
    :func:`jaxlearn.core.learner_factory`) and checked whenever the value is a concrete number.

    ``Interval(0.0)`` is (0, inf); closed ends and integer ranges are flags. NaN is in no interval,
    and an infinite value only where an end is a closed infinite one (:data:`POSITIVE_OR_INF`).
    """

    lo: float
    hi: float = math.inf
    lo_closed: bool = False
    hi_closed: bool = False
    integer: bool = False

    def __str__(self) -> str:
        kind = "an integer" if self.integer else "a number"
        left, right = "[" if self.lo_closed else "(", "]" if self.hi_closed else ")"
        return f"{kind} in {left}{self.lo:g}, {self.hi:g}{right}"

    def contains(self, value: Any) -> np.ndarray:
        """Elementwise membership of a concrete numeric ``value``."""
        a = np.asarray(value, dtype=float)
        with np.errstate(invalid="ignore"):
            above = a >= self.lo if self.lo_closed else a > self.lo
            below = a <= self.hi if self.hi_closed else a < self.hi
            whole = (a == np.round(a)) if self.integer else True
        return above & below & whole & ~np.isnan(a)

    def check(self, name: str, value: Any) -> None:
        """Raise unless a concrete ``value`` lies in the interval (``None``, schedules, kernels and
        tracers pass: a traced value is checked by whoever made it concrete)."""
        if value is None or callable(value) or not is_concrete(value):
            return
        array = np.asarray(value)
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
            raise TypeError(
                f"expected `{name}` {self}, got {value!r} of type {type(value).__name__}"
            )
        if self.integer and not np.issubdtype(array.dtype, np.integer):
            raise TypeError(
                f"expected `{name}` {self}, got {value!r} of type {type(value).__name__}"
            )
        if array.size and not self.contains(array).all():
            shown = value if array.size == 1 else f"values in [{array.min():g}, {array.max():g}]"
            raise ValueError(f"expected `{name}` {self}, got {shown!r}")

    def outside(self) -> tuple:
        """Concrete values outside the interval (what the bad-input suite tries)."""
        values = [math.nan, -math.inf]
        values.append(self.lo if not self.lo_closed else self.lo - (1 if self.integer else 0.5))
        if math.isinf(self.hi):
            if not (self.integer or self.hi_closed):
                values.append(math.inf)
        else:
            values.append(self.hi if not self.hi_closed else self.hi + (1 if self.integer else 0.5))
        if self.integer:
            values = [v for v in values if not math.isnan(v) and not math.isinf(v)]
            values = [int(v) for v in values]
        return tuple(values)


#: (0, inf): step sizes, regularisation, kernel widths.
POSITIVE = Interval(0.0)
#: [0, inf): weight decay, margins, tolerances.
NON_NEGATIVE = Interval(0.0, lo_closed=True)
#: (0, inf]: the logistic regressions' inverse regularisation ``C`` (inf: no penalty).
POSITIVE_OR_INF = Interval(0.0, hi_closed=True)
#: [0, 1]: probabilities and fractions.
UNIT = Interval(0.0, 1.0, True, True)
#: (0, 1): confidence parameters (delta).
OPEN_UNIT = Interval(0.0, 1.0)
#: [1, inf) integers: counts, steps, sizes.
POSITIVE_INT = Interval(1, math.inf, True, False, integer=True)


def at_least(lo: float, *, integer: bool = False) -> Interval:
    """[lo, inf), e.g. ``at_least(2, integer=True)`` for a number of classes."""
    return Interval(lo, math.inf, True, False, integer)


def above(lo: float) -> Interval:
    """(lo, inf), e.g. ``above(1.0)`` for Winnow's multiplicative factor."""
    return Interval(lo)


# --- shapes ----------------------------------------------------------------------------------------


def check_ndim(name: str, value: Any, ndim: int, what: str) -> None:
    """Raise ``ValueError`` unless ``value`` has ``ndim`` dimensions (runs on tracers too)."""
    shape = np.shape(value)
    if len(shape) != ndim:
        raise ValueError(f"expected `{name}` of shape {what}, got {shape}")


def check_width(name: str, x: Any, width: int) -> None:
    """Raise ``ValueError`` unless the last axis of ``x`` has the width the state was built for."""
    shape = np.shape(x)
    if not shape or shape[-1] != width:
        raise ValueError(
            f"expected `{name}` with {width} features (the width the state or params were built "
            f"for), got {shape[-1] if shape else 'a scalar'}"
        )


def check_sample_shapes(X: Any, y: Any) -> None:
    """``X`` of shape (m, d) and ``y`` of shape (m,) with m >= 1 (shapes only, so also under a trace)."""
    check_ndim("X", X, 2, "(m, d)")
    check_ndim("y", y, 1, "(m,)")
    m, n = np.shape(X)[0], np.shape(y)[0]
    if m != n:
        raise ValueError(f"expected `X` and `y` with the same number of examples, got {m} and {n}")
    if m == 0:
        raise ValueError("expected a non-empty sample, got `X` of shape (0, d)")


# --- labels ----------------------------------------------------------------------------------------


def check_labels(name: str, y: Any, allowed: tuple, hint: str = "") -> None:
    """Raise ``ValueError`` unless every value of concrete ``y`` is in ``allowed``."""
    if not is_concrete(y):
        return
    found = np.unique(np.asarray(y))
    bad = np.setdiff1d(found, np.asarray(allowed))
    if bad.size:
        allowed_s = ", ".join(str(a) for a in allowed)
        raise ValueError(
            f"expected `{name}` in {{{allowed_s}}}, found values {{{_shown(found)}}}"
            + (f"; {hint}" if hint else "")
        )


def check_num_classes(num_classes: Any) -> int:
    """``num_classes`` as an int >= 2, or a ``ValueError``."""
    k = check_positive_int("num_classes", num_classes)
    if k < 2:
        raise ValueError(f"expected `num_classes` >= 2, got {k}")
    return k


def check_class_labels(name: str, y: Any, num_classes: int) -> None:
    """Raise ``ValueError`` unless every value of concrete ``y`` is an integer in ``0..num_classes-1``."""
    if not is_concrete(y):
        return
    values = np.asarray(y)
    if values.dtype == np.bool_:
        values = values.astype(np.int32)  # {False, True} are the labels {0, 1}
    if not np.issubdtype(values.dtype, np.number):
        raise ValueError(
            f"expected `{name}` with integer labels in 0..{num_classes - 1}, got dtype {values.dtype}"
        )
    with np.errstate(invalid="ignore"):
        bad = (
            (values != np.round(values))
            | (values < 0)
            | (values >= num_classes)
            | ~np.isfinite(values)
        )
    if bad.any():
        raise ValueError(
            f"expected `{name}` with labels in 0..{num_classes - 1} (num_classes={num_classes}), "
            f"found {{{_shown(np.unique(values[bad]))}}}"
        )


def num_classes_of(y: Any, num_classes: Optional[int] = None) -> int:
    """The number of classes ``k``, checking that concrete ``y`` holds labels in ``0..k-1``.

    With ``num_classes=None`` it is read off concrete labels, ``k = max(max(y) + 1, 2)`` (so the
    {0, 1} problems of the book always have two classes); a traced ``y`` then raises.
    """
    if num_classes is not None:
        num_classes = check_positive_int("num_classes", num_classes)
    if not is_concrete(y):
        if num_classes is None:
            raise ValueError(
                "cannot infer the number of classes from a traced `y` (or one split over "
                "several processes); " + NUM_CLASSES_HINT
            )
        return num_classes
    found = np.unique(np.asarray(y))
    k = (
        num_classes
        if num_classes is not None
        else max(2, int(np.max(found)) + 1 if found.size else 2)
    )
    check_class_labels("y", found, k)
    return k


def check_binary_stream(xs: Any, ys: Any) -> None:
    """The ``check`` of online linear learners: ``xs`` of shape (n, d), labels in {-1, +1}."""
    check_ndim("xs", xs, 2, "(n, d)")
    check_labels("ys", ys, (-1, 1), PLUS_MINUS_HINT)


def check_boolean_values(xs: Any, ys: Any, what: str) -> None:
    """The value checks of the learners over {0,1}^n with {0, 1} labels (Winnow, conjunctions, ...)."""
    check_labels("xs", xs, (0, 1), f"{what} learns over {{0,1}}^n")
    check_labels("ys", ys, (0, 1), f"{what} uses {{0, 1}} labels; {ZERO_ONE_HINT}")


def check_sample(X: Any, y: Any, *, labels: Optional[tuple] = (-1, 1)) -> None:
    """The input checks of a batch ``fit``: shapes always, values when ``X``/``y`` are concrete.

    ``X`` of shape (m, d) with m >= 1, ``y`` of shape (m,), both finite, labels in ``labels``
    (``None``: any real value, for regression losses).
    """
    check_sample_shapes(X, y)
    check_finite("X", X)
    check_finite("y", y)
    if labels is not None:
        check_labels("y", y, labels, PLUS_MINUS_HINT if labels == (-1, 1) else "")


def check_multiclass_sample(X: Any, y: Any, num_classes: int) -> None:
    """The input checks of a multiclass ``fit``: shapes always, values when ``X``/``y`` are concrete."""
    check_sample_shapes(X, y)
    check_finite("X", X)
    check_class_labels("y", y, num_classes)
