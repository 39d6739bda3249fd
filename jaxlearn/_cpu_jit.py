"""``cpu_jit``: ``jax.jit`` with the XLA CPU compiler options that compile jaxlearn's loop-heavy
programs (trees, L-BFGS, epochs of SGD or Adam) in less time, where JAX accepts them."""

from __future__ import annotations

import functools

import jax

from jaxlearn._threads import top_level

#: XLA's older CPU loop emitters compile these programs in less time than its fusion emitters, and
#: the programs run no slower.
CPU_COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False}
#: The trees' programs also leave out YNNPACK's fusions, which run the split scores' short reductions
#: over classes slower (``cpu_jit(..., extra_options=NO_YNN_FUSIONS)``).
NO_YNN_FUSIONS = {"xla_cpu_experimental_ynn_fusion_type": ""}


def cpu_jit(fn=None, *, extra_options=None, **options):
    """``jax.jit(fn, **options)``, compiled with :data:`CPU_COMPILER_OPTIONS` where JAX's default
    backend is the CPU and the call is not inside another trace (where JAX refuses compiler options;
    other backends never see them); usable as a decorator factory. ``.compile(*args, **kwargs)`` is
    the compiled program of those arguments (``jax.stages.Compiled``: called on the dynamic ones)."""
    if fn is None:
        return functools.partial(cpu_jit, extra_options=extra_options, **options)
    plain = jax.jit(fn, **options)
    cpu = jax.jit(fn, compiler_options={**CPU_COMPILER_OPTIONS, **(extra_options or {})}, **options)
    usable = [
        top_level() is not None
    ]  # an optimisation only: any JAX lacking what it needs skips it

    def on(use, *args, **kwargs):
        if usable[0] and top_level() and jax.default_backend() == "cpu":
            try:
                return use(cpu, *args, **kwargs)
            except (
                RuntimeError
            ):  # XlaRuntimeError: a jaxlib that does not know the option; plain jit
                usable[0] = False
        return use(plain, *args, **kwargs)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return on(lambda jitted, *a, **k: jitted(*a, **k), *args, **kwargs)

    call._cache_size = lambda: plain._cache_size() + cpu._cache_size()  # as jax.jit's, for tests
    call.compile = functools.partial(
        on, lambda jitted, *a, **k: jitted.trace(*a, **k).lower().compile()
    )
    return call
