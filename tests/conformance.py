"""The conformance checks of DESIGN.md section 6, shared by every family's test matrix.

A family's test file lists its learners as :class:`Case` rows and parametrizes the ``check_*``
functions over them. ``xs`` may be ``None`` (Hedge's allocation setting).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import chex
import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import core


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: Callable  # numeric hyperparameter -> Learner
    hparams: tuple
    data: Callable  # (key, n, dtype) -> (xs, ys)
    key: Optional[int] = None  # seed of the key `init` needs, for randomized learners

    def stream(self, dtype=jnp.float32, seed=0, n=60):
        return self.data(jax.random.PRNGKey(seed), n, dtype)

    def init(self, learner, xs, ys):
        example = ys[0] if xs is None else xs[0]
        if self.key is None:
            return learner.init(example)
        return learner.init(example, jax.random.PRNGKey(self.key))


def _rows(xs, ys):
    return [(None if xs is None else xs[t], ys[t]) for t in range(ys.shape[0])]


def check_run_equals_python_loop(case: Case):
    xs, ys = case.stream()
    learner = case.make(case.hparams[0])
    state0 = case.init(learner, xs, ys)
    got = core.run(learner, state0, xs, ys)
    update = jax.jit(learner.update)  # one round at a time, driven from Python
    state, infos = state0, []
    for x, y in _rows(xs, ys):
        state, info = update(state, x, y)
        infos.append(info)
    want = (state, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *infos))
    chex.assert_trees_all_close(got, want, rtol=1e-5, atol=1e-6)


def check_vmap_over_hyperparameter(case: Case):
    xs, ys = case.stream()
    state0 = case.init(case.make(case.hparams[0]), xs, ys)
    hs = jnp.asarray(case.hparams, jnp.float32)
    swept = jax.vmap(lambda h: core.run(case.make(h), state0, xs, ys))(hs)
    for i, h in enumerate(case.hparams):
        one = core.run(case.make(jnp.float32(h)), state0, xs, ys)
        chex.assert_trees_all_close(
            jax.tree_util.tree_map(lambda a, i=i: a[i], swept), one, rtol=1e-5, atol=1e-6
        )


def check_no_recompilation(case: Case):
    learner = case.make(case.hparams[0])
    xs1, ys1 = case.stream(seed=1)
    xs2, ys2 = case.stream(seed=2)
    core.run(learner, case.init(learner, xs1, ys1), xs1, ys1)
    size = core._run_scan._cache_size()
    core.run(learner, case.init(learner, xs2, ys2), xs2, ys2)
    assert core._run_scan._cache_size() == size


def check_state_stable(case: Case, dtype):
    xs, ys = case.stream(dtype=dtype)
    learner = case.make(case.hparams[0])
    state = case.init(learner, xs, ys)
    for leaf in jax.tree_util.tree_leaves(state):
        is_key = jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key) or leaf.dtype == jnp.uint32
        assert is_key or leaf.dtype in (dtype, jnp.int32, jnp.bool_), leaf.dtype
    x0 = None if xs is None else xs[0]
    new_state, _ = jax.jit(learner.update)(state, x0, ys[0])
    chex.assert_trees_all_equal_shapes_and_dtypes(state, new_state)
    final, trace = core.run(learner, state, xs, ys)
    chex.assert_trees_all_equal_shapes_and_dtypes(state, final)
    assert trace.loss.shape == (ys.shape[0],)
    assert trace.prediction.shape[0] == ys.shape[0]
    for leaf in jax.tree_util.tree_leaves(final):
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            assert not np.isnan(np.asarray(leaf)).any()


def check_chunked_stream(case: Case):
    xs, ys = case.stream(n=90)
    learner = case.make(case.hparams[0])
    state = case.init(learner, xs, ys)
    whole = core.run(learner, state, xs, ys)
    traces = []
    for lo, hi in [(0, 25), (25, 26), (26, 90)]:
        state, trace = core.run(learner, state, None if xs is None else xs[lo:hi], ys[lo:hi])
        traces.append(trace)
    chunked = (state, jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces))
    chex.assert_trees_all_close(whole, chunked, rtol=1e-6, atol=1e-6)
