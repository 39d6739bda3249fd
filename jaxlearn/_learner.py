"""The two learner protocols and what makes a learner a pytree (the API is :mod:`jaxlearn.core`'s).

A learner is a ``NamedTuple`` of pure functions, as optax's ``GradientTransformation`` is. A factory
decorated with :func:`learner_factory` returns a learner that is also a pytree: the hyperparameters
it names as traced are the leaves, everything else (which factory, structural options such as the
loss, the number of classes or ``steps``) is the tree definition. So a new value of ``eta`` or
``lam`` compiles nothing new, a learner is an argument of a jitted function, and learners with
stacked leaves ``jax.vmap``. The fields of such a learner call through to the learner the factory
builds from its current leaves (rebuilt once per trace, when the leaves are tracers).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, NamedTuple, Optional, Protocol

import jax
import numpy as np
from jax.tree_util import Partial

from jaxlearn._checks import Interval
from jaxlearn._eager import checked as _checked
from jaxlearn._registry import loadable

Array = jax.Array
State = Any
Info = Any
Params = Any


# --- the protocols -----------------------------------------------------------------------------


class InitFn(Protocol):
    def __call__(self, example_x: Any, key: Optional[Array] = None) -> State:
        """A state shaped and typed from one example; randomized learners require ``key``."""


class UpdateFn(Protocol):
    def __call__(self, state: State, x: Any, y: Any) -> tuple[State, Info]:
        """One round: predict on ``x``, see ``y``, suffer a loss, update. ``Info.prediction`` is the
        prediction made before the update (the prequential record)."""


class PredictFn(Protocol):
    def __call__(self, state_or_params: Any, x: Any) -> Array:
        """Labels: one example for an online learner, a batch ``X`` for a batch learner."""


class CheckFn(Protocol):
    def __call__(self, xs: Any, ys: Any) -> None:
        """Raise ``ValueError`` on inputs this learner cannot take (values only when concrete)."""


class RunBlockFn(Protocol):
    def __call__(self, state: State, xs: Any, ys: Any) -> tuple[State, Info]:
        """An exact block version of ``update`` over a block of rounds ``xs``/``ys``."""


class FitFn(Protocol):
    def __call__(self, key: Array, X: Any, y: Any) -> Params:
        """Fit on a sample; ``key`` first (even if unused) so every fit vmaps over seeds."""


class _FactoryDoc:
    """``learner.__doc__`` is its factory's docstring (so ``help(learner)`` shows it)."""

    def __init__(self, class_doc: str):
        self.class_doc = class_doc

    def __get__(self, obj, cls=None):
        spec = None if obj is None else _spec_of(obj)
        return self.class_doc if spec is None else spec.factory.__doc__


class Learner(NamedTuple):
    """An online learner: pure functions over a state pytree.

    Attributes:
      init: ``init(example_x, key=None) -> State``; shapes and dtypes come from one example.
      update: ``update(state, x, y) -> (State, Info)``; one round of the online protocol.
      predict: ``predict(state, x) -> prediction`` for one example (see ``core.predict_batch``).
      check: optional ``check(xs, ys)``; ``core.run`` calls it on concrete inputs before scanning.
      run_block: optional exact block rule ``run_block(state, xs, ys) -> (State, Info)``.
      block_size: the block size ``core.run`` uses with ``run_block`` by default (``None``: the
        round-by-round scan unless ``run`` is given one).
    """

    init: InitFn
    update: UpdateFn
    predict: PredictFn
    check: Optional[CheckFn] = None
    run_block: Optional[RunBlockFn] = None
    block_size: Optional[int] = None

    __doc__ = _FactoryDoc(__doc__)  # type: ignore[assignment]

    def __repr__(self) -> str:
        return _repr(self)


class BatchLearner(NamedTuple):
    """A batch learner: ``fit(key, X, y) -> Params`` and ``predict(params, X) -> labels``.

    Attributes:
      fit: ``fit(key, X, y) -> Params``; the key comes first so that every fit vmaps over seeds.
      predict: ``predict(params, X) -> labels`` for a batch.
      decision_function: optional ``decision_function(params, X) -> scores``.
      check: optional ``check(X, y)``; the ``fit`` of a factory-built learner applies it first
        (shape checks always, value checks on concrete inputs).
    """

    fit: FitFn
    predict: PredictFn
    decision_function: Optional[PredictFn] = None
    check: Optional[CheckFn] = None

    __doc__ = _FactoryDoc(__doc__)  # type: ignore[assignment]

    def __repr__(self) -> str:
        return _repr(self)


# --- factories whose learners are pytrees --------------------------------------------------------


class _Static:
    """A structural argument in a tree definition: equal when the values are equal."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Static) and _equal(self.value, other.value)

    def __hash__(self):
        return hash(type(self.value).__name__)


def _equal(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (np.ndarray, jax.Array)):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_equal(u, v) for u, v in zip(a, b))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable values are different structures
        return False


def _real(value):
    """A Python integer or a NumPy scalar number as a Python float, anything else as it is: a real
    hyperparameter given as ``1`` or ``np.float64(1.0)`` (a value of ``np.logspace``) traces as
    ``1.0`` does (a weak float), so they share one compiled program."""
    if isinstance(value, (int, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    return value


def _is_traced_value(value) -> bool:
    """A traced hyperparameter is a leaf (or a pytree of them, such as a kernel ``Partial``)."""
    return value is not None and (isinstance(value, Partial) or not callable(value))


class _Spec:
    """A factory call: the factory, its static arguments and its traced ones (the leaves), the kind
    of learner it returns and its ``layout``: per field, ``"call"`` (a function), ``None`` or a static
    value (a block size)."""

    __slots__ = ("factory", "static", "traced", "kind", "layout", "_built", "_aux")

    def __init__(self, factory, static: dict, traced: dict, kind, layout: tuple, built=None):
        self.factory, self.static, self.traced, self.kind = factory, static, traced, kind
        self.layout, self._built, self._aux = layout, built, None

    def aux(self) -> tuple:
        """The tree definition's data, computed once (``run`` flattens the learner on every call)."""
        if self._aux is None:
            static = tuple((n, _Static(v)) for n, v in self.static.items())
            self._aux = ("spec", self.factory, tuple(self.traced), static, self.layout)
        return self._aux

    def build(self):
        if self._built is None:
            self._built = _checked(self.factory.__wrapped__(**self.static, **self.traced))
        return self._built


class _Field:
    """One field of a factory-built learner: calls through to the learner built from the spec."""

    __slots__ = ("spec", "name", "__weakref__")

    def __init__(self, spec: _Spec, name: str):
        self.spec, self.name = spec, name

    @property
    def __name__(self) -> str:
        return f"{self.spec.factory.__name__}.{self.name}"

    def __call__(self, *args, **kwargs):
        return getattr(self.spec.build(), self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{_repr_spec(self.spec)}.{self.name}"


def _from_spec(spec: _Spec):
    fields = (
        _Field(spec, name) if isinstance(value, str) else value for name, value in spec.layout
    )
    return spec.kind(*fields)


def _layout(learner) -> tuple:
    return tuple((n, "call" if callable(f) else f) for n, f in zip(learner._fields, learner))


def _spec_of(learner) -> Optional[_Spec]:
    fields = [f for f in learner if isinstance(f, _Field)]
    if not fields:
        return None
    spec = fields[0].spec
    by_hand = any(callable(f) and not isinstance(f, _Field) for f in learner)
    if by_hand or any(f.spec is not spec for f in fields):
        return None  # fields replaced by hand: treat as a hand-built learner
    return spec


def learner_factory(
    *traced: str,
    aliases: Optional[dict] = None,
    ranges: Optional[dict] = None,
    functions: tuple = (),
    learners: tuple = (),
    load_caps: Optional[dict] = None,
):
    """Make a factory's learners pytrees whose leaves are the hyperparameters named in ``traced``.

    The other arguments are structure. ``aliases`` maps old keyword names to current ones
    (``{"learning_rate": "eta"}``) so old call sites keep working. ``ranges`` maps every numeric
    argument to its :class:`~jaxlearn.core.Interval`; a concrete value outside it is a ``ValueError``
    naming the argument when the factory is called (a traced value is not checked).

    The factory is registered for :func:`jaxlearn.io.load`, which reads three more declarations:
    ``functions`` and ``learners`` name the arguments that take a function (a kernel, a loss) or
    learners (a reduction's binary learner); a file may give a function or a learner nowhere else.
    ``load_caps`` maps the arguments that size what the factory computes when called (a table, a
    list of rules) to the largest value a file may ask for.
    """
    aliases, ranges, load_caps = dict(aliases or {}), dict(ranges or {}), dict(load_caps or {})

    def decorate(factory):
        signature = inspect.signature(factory)
        declared = set(traced) | set(ranges) | set(functions) | set(learners) | set(load_caps)
        unknown = declared - set(signature.parameters)
        if unknown:
            raise TypeError(f"{factory.__name__} has no parameters {sorted(unknown)}")
        if not all(isinstance(r, Interval) for r in ranges.values()):
            raise TypeError(
                f"{factory.__name__}: `ranges` maps argument names to core.Interval values"
            )

        @functools.wraps(factory)
        def build(*args, **kwargs):
            for old, new in aliases.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{factory.__name__}() got both `{new}` and its alias `{old}`"
                        )
                    kwargs[new] = kwargs.pop(old)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, interval in ranges.items():
                interval.check(name, bound.arguments[name])
                if name in traced and not interval.integer:
                    bound.arguments[name] = _real(bound.arguments[name])
            learner = _checked(factory(**bound.arguments))
            leaves = {
                n: v for n, v in bound.arguments.items() if n in traced and _is_traced_value(v)
            }
            static = {n: v for n, v in bound.arguments.items() if n not in leaves}
            return _from_spec(
                _Spec(build, static, leaves, type(learner), _layout(learner), learner)
            )

        build.traced_hyperparameters = tuple(traced)
        build.ranges = ranges
        build.function_arguments, build.learner_arguments = tuple(functions), tuple(learners)
        build.load_caps = load_caps
        return loadable(build)

    return decorate


def hyperparameters(learner) -> dict:
    """The arguments a factory-built learner was made with (numeric leaves and structure alike).

    >>> from jaxlearn import core, online
    >>> core.hyperparameters(online.perceptron(0.5))
    {'eta': 0.5, 'normalize': False, 'fit_intercept': False}
    """
    spec = _spec_of(learner) if isinstance(learner, (Learner, BatchLearner)) else None
    if spec is None:
        raise TypeError(f"expected `learner` built by a jaxlearn factory, got {learner!r}")
    order = inspect.signature(spec.factory).parameters
    values = {**spec.static, **spec.traced}
    return {n: values[n] for n in order if n in values}


def replace(learner, **changes):
    """The same factory called again with some arguments changed (checked as a new call is).

    >>> from jaxlearn import core, online
    >>> core.replace(online.perceptron(0.5), eta=2.0)
    perceptron(eta=2.0, normalize=False, fit_intercept=False)
    """
    arguments = hyperparameters(learner)
    unknown = set(changes) - set(arguments)
    if unknown:
        names = ", ".join(f"`{n}`" for n in sorted(unknown))
        raise TypeError(f"{_spec_of(learner).factory.__name__}() has no argument {names}")
    return _spec_of(learner).factory(**{**arguments, **changes})


def _flatten(learner):
    spec = _spec_of(learner)
    if spec is not None:
        return tuple(spec.traced.values()), spec.aux()
    dynamic = tuple(isinstance(f, Partial) for f in learner)
    children = tuple(f for f, d in zip(learner, dynamic) if d)
    static = tuple(None if d else _Static(f) for f, d in zip(learner, dynamic))
    return children, ("fields", dynamic, static)


def _unflatten(kind, aux, children):
    if aux[0] == "spec":
        _, factory, names, static, layout = aux
        spec = _Spec(
            factory, {n: s.value for n, s in static}, dict(zip(names, children)), kind, layout
        )
        spec._aux = aux  # the same tree definition
        return _from_spec(spec)
    _, dynamic, static = aux
    children = iter(children)
    return kind(*(next(children) if d else s.value for d, s in zip(dynamic, static)))


def register_kind(kind):
    """Make ``kind``, a ``NamedTuple`` of functions, a pytree as :class:`Learner` is (its factory-built
    values flatten to their traced hyperparameters) with the same ``repr``; returns ``kind``."""
    jax.tree_util.register_pytree_node(kind, _flatten, functools.partial(_unflatten, kind))
    kind.__repr__ = _repr
    return kind


# --- repr ------------------------------------------------------------------------------------------


def _short(value) -> str:
    if isinstance(value, jax.core.Tracer):
        return f"<traced {value.aval.str_short()}>"
    if isinstance(value, (np.ndarray, jax.Array)):
        if value.size <= 4:
            return repr(np.asarray(value).tolist())
        return f"<{value.dtype}{list(value.shape)}>"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return repr(value)


def _repr_spec(spec: _Spec) -> str:
    order = inspect.signature(spec.factory).parameters
    values = {**spec.static, **spec.traced}
    args = ", ".join(f"{n}={_short(values[n])}" for n in order if n in values)
    return f"{spec.factory.__name__}({args})"


def _repr(learner) -> str:
    spec = _spec_of(learner)
    if spec is not None:
        return _repr_spec(spec)
    fields = ", ".join(
        f"{n}={_short(f)}" for n, f in zip(learner._fields, learner) if f is not None
    )
    return f"{type(learner).__name__}({fields})"


for _kind in (Learner, BatchLearner):
    register_kind(_kind)
