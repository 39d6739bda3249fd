"""``cpu_jit`` compiles with the CPU options the running XLA knows and leaves out the others."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import _cpu_jit

UNKNOWN = "xla_cpu_an_option_no_xla_knows"


def _record_jit_options(monkeypatch) -> list:
    """The compiler options of every ``jax.jit`` that ``cpu_jit`` makes from now on, in order."""
    jit = jax.jit
    used = []

    def recording_jit(fn, **options):
        used.append(dict(options.get("compiler_options") or {}))
        return jit(fn, **options)

    monkeypatch.setattr(_cpu_jit.jax, "jit", recording_jit)
    return used


def test_an_unknown_option_is_left_out_and_the_others_kept(monkeypatch):
    used = _record_jit_options(monkeypatch)
    monkeypatch.setattr(_cpu_jit, "_UNKNOWN", set())
    known = {"xla_cpu_enable_fast_math": False}
    double = _cpu_jit.cpu_jit(lambda x: 2 * x, extra_options={UNKNOWN: True, **known})
    np.testing.assert_array_equal(double(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    assert UNKNOWN in _cpu_jit._UNKNOWN <= {UNKNOWN, *_cpu_jit.CPU_COMPILER_OPTIONS}
    assert used[-1] == {**_known_defaults(), **known}  # the last program: all but the unknown one
    assert double._cache_size() == 1
    # a later function leaves the option out from the start: one program, no failed compile
    used.clear()
    triple = _cpu_jit.cpu_jit(lambda x: 3 * x, extra_options={UNKNOWN: True})
    np.testing.assert_array_equal(triple(jnp.arange(3.0)), [0.0, 3.0, 6.0])
    assert [u for u in used if u] == [d for d in [_known_defaults()] if d]  # none: plain jit


def test_another_failure_with_options_falls_back_to_plain_jit(monkeypatch):
    jit = jax.jit
    calls = []

    def failing_with_options(fn, **options):
        if not options.get("compiler_options"):
            return jit(fn, **options)

        def refuse(*args, **kwargs):
            calls.append(options["compiler_options"])
            raise RuntimeError("INTERNAL: a compiler that fails with these options")

        return refuse

    monkeypatch.setattr(_cpu_jit.jax, "jit", failing_with_options)
    monkeypatch.setattr(_cpu_jit, "_UNKNOWN", set())
    double = _cpu_jit.cpu_jit(lambda x: 2 * x, extra_options={"xla_cpu_enable_fast_math": False})
    for _ in range(2):  # plain jit, and the options are not tried again
        np.testing.assert_array_equal(double(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    assert len(calls) == 1 and not _cpu_jit._UNKNOWN


def _known_defaults():
    """The default options the running XLA knows (jax 0.11 and later dropped the fusion emitters')."""
    return {k: v for k, v in _cpu_jit.CPU_COMPILER_OPTIONS.items() if k not in _cpu_jit._UNKNOWN}


def test_small_data_options_apply_up_to_the_size_and_not_past_it(monkeypatch):
    used = _record_jit_options(monkeypatch)
    monkeypatch.setattr(_cpu_jit, "SMALL_DATA", 10)
    monkeypatch.setattr(_cpu_jit, "CPU_COMPILER_OPTIONS", {})  # large data: plain jit
    total = _cpu_jit.cpu_jit(lambda x, y: jnp.sum(x) + y, small_data_options=_cpu_jit.UNOPTIMISED)
    used.clear()
    assert float(total(jnp.ones(9), 1.0)) == 10.0  # 9 elements and a scalar: small
    assert float(total(jnp.ones(11), 0.0)) == 11.0
    assert float(total(jnp.ones(8), 2.0)) == 10.0  # the small program again, no new jit
    assert used == [_cpu_jit.UNOPTIMISED]  # one jit with the options, for the small arguments
    assert total._cache_size() == 3  # its two programs, and the plain jit's one


def test_a_block_gives_its_small_data_options_to_every_program(monkeypatch):
    used = _record_jit_options(monkeypatch)
    monkeypatch.setattr(_cpu_jit, "CPU_COMPILER_OPTIONS", {})
    plain = _cpu_jit.cpu_jit(lambda x: jnp.sum(x) * 2)  # no small-data options of its own
    own = _cpu_jit.cpu_jit(lambda x: jnp.sum(x) * 3, small_data_options=_cpu_jit.UNOPTIMISED)
    used.clear()
    with _cpu_jit.compile_small_data_with(_cpu_jit.UNOPTIMISED):
        assert float(plain(jnp.ones(4))) == 8.0
    with _cpu_jit.compile_small_data_with({"xla_llvm_disable_expensive_passes": True}):
        assert float(own(jnp.ones(4))) == 12.0  # the block's options in place of its own
    assert float(plain(jnp.ones(4))) == 8.0  # outside: plain jit, as before
    assert used == [_cpu_jit.UNOPTIMISED, {"xla_llvm_disable_expensive_passes": True}]


def test_clear_cache_makes_the_next_call_trace_again():
    traced = []

    def double(x):
        traced.append(x.shape)
        return 2 * x

    program = _cpu_jit.cpu_jit(double)
    program(jnp.arange(3.0))
    program(jnp.arange(3.0))
    assert len(traced) == 1 and program._cache_size() == 1
    program.clear_cache()
    assert program._cache_size() == 0
    np.testing.assert_array_equal(program(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    assert len(traced) == 2
