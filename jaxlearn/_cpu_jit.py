"""``cpu_jit``: ``jax.jit`` with the XLA CPU compiler options that compile jaxlearn's loop-heavy
programs (trees, L-BFGS, epochs of SGD or Adam) in less time, where JAX accepts them."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import re

import jax

from jaxlearn._threads import top_level

#: XLA's older CPU loop emitters compile these programs in less time than its fusion emitters, and
#: the programs run no slower (jaxlib < 0.11 only: later XLAs keep only the fusion emitters).
CPU_COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False}
#: LLVM's optimisation passes off (XLA's backend level 0): a program compiles faster and runs slower,
#: the better trade on small data, where compiling dominates, for the programs that run a while loop
#: of few, short iterations (``cpu_jit(..., small_data_options=UNOPTIMISED)``: the logistic fits).
UNOPTIMISED = {"xla_backend_optimization_level": 0}
#: The most array elements, all arguments together, that count as small data.
SMALL_DATA = 2**18
#: XLA's fusion emitters after all, for programs of many tiny loop steps (a coordinate descent, one
#: coordinate a step), whose code they make about three times faster: ``cpu_jit(...,
#: extra_options=FUSION_EMITTERS)``.
FUSION_EMITTERS = {"xla_cpu_use_fusion_emitters": True}
#: The trees' programs also leave out YNNPACK's fusions, which run the split scores' short reductions
#: over classes slower (``cpu_jit(..., extra_options=NO_YNN_FUSIONS)``).
NO_YNN_FUSIONS = {"xla_cpu_experimental_ynn_fusion_type": ""}

#: The small-data options of :func:`compile_small_data_with` blocks (``None`` outside them).
_BLOCK_OPTIONS: contextvars.ContextVar = contextvars.ContextVar("jaxlearn_small_data", default=None)

#: The options the running XLA refused ("No such compile option"), left out from then on.
_UNKNOWN: set = set()
_UNKNOWN_OPTION = re.compile(r"No such compile option: '([^']+)'")


@contextlib.contextmanager
def compile_small_data_with(options):
    """Within the block, every :func:`cpu_jit` program of small data compiles with ``options`` (in
    place of its own small-data options; ``None``: as outside): a generic program over a learner,
    such as a reduction's over a binary learner, compiles as that learner's own fit does."""
    token = _BLOCK_OPTIONS.set(options)
    try:
        yield
    finally:
        _BLOCK_OPTIONS.reset(token)


def cpu_jit(fn=None, *, extra_options=None, small_data_options=None, **options):
    """``jax.jit(fn, **options)``, compiled with :data:`CPU_COMPILER_OPTIONS` where JAX's default
    backend is the CPU and the call is not inside another trace (where JAX refuses compiler options;
    other backends never see them); usable as a decorator factory. ``small_data_options`` are added
    where the arguments hold at most :data:`SMALL_DATA` array elements. An option the running XLA does
    not know is left out, the others kept. ``.compile(*args, **kwargs)`` is the compiled program of those
    arguments (``jax.stages.Compiled``: called on the dynamic ones)."""
    if fn is None:
        return functools.partial(
            cpu_jit, extra_options=extra_options, small_data_options=small_data_options, **options
        )
    plain = jax.jit(fn, **options)
    wanted = {**CPU_COMPILER_OPTIONS, **(extra_options or {})}
    every = {**wanted, **(small_data_options or {})}  # the options this function may ask for
    compiled = {}  # the jitted function with the options the running XLA knows, by their names

    def with_known_options(args, kwargs):
        chosen, small = wanted, _BLOCK_OPTIONS.get() or small_data_options
        if small and _size(args, kwargs) <= SMALL_DATA:
            chosen = {**wanted, **small}
        known = {name: value for name, value in chosen.items() if name not in _UNKNOWN}
        key = tuple(sorted(known))
        if key not in compiled:
            compiled[key] = jax.jit(fn, compiler_options=known, **options) if known else plain
        return key, compiled[key]

    usable = [
        top_level() is not None
    ]  # an optimisation only: any JAX lacking what it needs skips it

    def on(use, *args, **kwargs):
        while usable[0] and top_level() and jax.default_backend() == "cpu":
            key, jitted = with_known_options(args, kwargs)
            try:
                return use(jitted, *args, **kwargs)
            except RuntimeError as error:  # XlaRuntimeError
                unknown = _UNKNOWN_OPTION.search(str(error))
                asked = {**every, **(_BLOCK_OPTIONS.get() or {})}
                if unknown is None or unknown.group(1) not in asked:
                    usable[0] = False  # not an option's fault: plain jit
                else:  # a jaxlib without it: the others kept
                    _UNKNOWN.add(unknown.group(1))
                    del compiled[key]
        return use(plain, *args, **kwargs)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return on(lambda jitted, *a, **k: jitted(*a, **k), *args, **kwargs)

    def cache_size():  # as jax.jit's, for tests
        with_options = [jitted for jitted in compiled.values() if jitted is not plain]
        return plain._cache_size() + sum(jitted._cache_size() for jitted in with_options)

    def clear_cache():  # as jax.jit's: the next call traces and compiles again
        for jitted in {id(j): j for j in (plain, *compiled.values())}.values():
            jitted.clear_cache()

    call._cache_size = cache_size
    call.clear_cache = clear_cache
    call.compile = functools.partial(
        on, lambda jitted, *a, **k: jitted.trace(*a, **k).lower().compile()
    )
    return call


def _size(args, kwargs) -> int:
    """The array elements in ``args`` and ``kwargs``."""
    return sum(math.prod(getattr(leaf, "shape", ())) for leaf in jax.tree.leaves((args, kwargs)))
