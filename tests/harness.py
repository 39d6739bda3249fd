"""The conformance harness (docs/design.md section 7): one style of row and one set of checks
for every learner.

``tests/test_conformance.py`` lists every public learner as one row (or a few variants) and runs the
checks below on each; ``tests/test_contract.py`` checks the factories' contract (repr, docstrings,
aliases) over the same rows. Rows go through the public API only: a factory builds the learner, a
compile counter (:func:`count_compilations`, on ``jax.monitoring``'s backend-compile event) stands in
for the caches of private jitted functions.

* :class:`Case`: an online learner (``core.Learner``): ``make(h) -> Learner``, three values ``hparams``
  of one numeric hyperparameter (``()`` when it has none), ``data(key, n, dtype) -> (xs, ys)`` and the
  seed of the key ``init`` needs (randomized learners).
* :class:`BatchCase`: a batch learner (``core.BatchLearner``): ``make(h) -> BatchLearner``,
  ``hparams``, ``data(key, n, dtype) -> (X, y)``, a cheap ``small(h)`` version for the check that
  interprets ``fit`` op by op, and the label set ``fit`` accepts.

Guarantees and reference agreement live in the per-learner test files.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Callable, Optional

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
#: Tolerances of the online checks (as the old per-family matrix had them).
RTOL, ATOL = 1e-5, 1e-6


# --- tools ------------------------------------------------------------------------------------------


@contextlib.contextmanager
def count_compilations():
    """Count XLA compilations inside the block: ``with count_compilations() as n: ...; n[0]``."""
    count = [0]

    def listener(name, secs, **kwargs):
        if name == COMPILE_EVENT:
            count[0] += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield count
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def stack_learners(learners):
    """One learner whose leaves (its numeric hyperparameters) are the given learners' stacked."""
    return jax.tree_util.tree_map(lambda *a: jnp.stack([jnp.asarray(v) for v in a]), *learners)


def _index(tree, i):
    return jax.tree_util.tree_map(lambda a: a[i], tree)


def _assert_has_leaves(learner, name):
    assert jax.tree_util.tree_leaves(learner), (
        f"{name}: the learner has no leaves, so its numeric hyperparameter is not traced "
        f"({learner!r}); decorate the factory with core.learner_factory naming it"
    )


def _no_hyperparameter(case):
    if not case.hparams:
        pytest.skip(f"{case.name} has no numeric hyperparameter (its learners have no leaves)")


# --- online learners ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """One online learner under test.

    Attributes:
      name: the test id.
      factory: the public factory the row exercises (for the completeness and contract tests).
      make: numeric hyperparameter -> ``Learner`` (called with Python floats and with tracers); a row
        with ``hparams == ()`` is called with ``None``.
      hparams: three values of the numeric hyperparameter (the first is the row's default), or ``()``.
      data: ``(key, n, dtype) -> (xs, ys)``; ``xs`` may be ``None`` (Hedge's allocation setting).
      key: seed of the key ``init`` needs, for randomized learners.
      block_rtol: tolerance of ``run_block`` against the round-by-round scan.
    """

    name: str
    factory: Callable
    make: Callable
    hparams: tuple
    data: Callable
    key: Optional[int] = None
    block_rtol: float = 1e-5

    def learner(self, h=None):
        return self.make(self.hparams[0] if h is None and self.hparams else h)

    def values(self):
        """Three builds: the ``hparams``, or three builds of the same learner when it has none."""
        return self.hparams or (None, None, None)

    def stream(self, dtype=jnp.float32, seed=0, n=60):
        return self.data(jax.random.PRNGKey(seed), n, dtype)

    def example(self, xs, ys):
        return ys[0] if xs is None else xs[0]

    def init(self, learner, xs, ys):
        if self.key is None:
            return learner.init(self.example(xs, ys))
        return learner.init(self.example(xs, ys), jax.random.PRNGKey(self.key))


def _rows(xs, ys):
    return [(None if xs is None else xs[t], ys[t]) for t in range(ys.shape[0])]


def check_run_equals_python_loop(case: Case):
    """``core.run`` (the jitted round-by-round scan) equals a Python loop over ``update``."""
    xs, ys = case.stream()
    learner = case.learner()
    state0 = case.init(learner, xs, ys)
    got = core.run(learner, state0, xs, ys, block_size=0)
    update = jax.jit(learner.update)  # one round at a time, driven from Python
    state, infos = state0, []
    for x, y in _rows(xs, ys):
        state, info = update(state, x, y)
        infos.append(info)
    want = (state, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *infos))
    chex.assert_trees_all_close(got, want, rtol=RTOL, atol=ATOL)


def check_vmap_over_hyperparameter(case: Case):
    """``jax.vmap`` over the numeric hyperparameter (the learner built inside) equals a Python loop."""
    _no_hyperparameter(case)
    xs, ys = case.stream()
    state0 = case.init(case.learner(), xs, ys)
    hs = jnp.asarray(case.hparams, jnp.float32)
    swept = jax.vmap(lambda h: core.run(case.make(h), state0, xs, ys))(hs)
    for i, h in enumerate(case.hparams):
        one = core.run(case.make(jnp.float32(h)), state0, xs, ys)
        chex.assert_trees_all_close(_index(swept, i), one, rtol=RTOL, atol=ATOL)


def check_no_recompilation(case: Case):
    """After a warm-up, a second and a third learner (new numeric values, same shapes; or the same
    arguments when there are none) on a new stream compile nothing in ``core.run``."""
    xs, ys = case.stream(seed=1)
    learners = [case.make(h) for h in case.values()]
    states = [case.init(learner, xs, ys) for learner in learners]
    jax.block_until_ready(core.run(learners[0], states[0], xs, ys))
    xs2, ys2 = case.stream(seed=2)
    for h, learner, state in zip(case.values()[1:], learners[1:], states[1:]):
        with count_compilations() as compiled:
            jax.block_until_ready(core.run(learner, state, xs2, ys2))
        assert compiled[0] == 0, f"{compiled[0]} compilation(s) in core.run for {learner!r} (h={h})"


def check_learner_as_jit_argument(case: Case):
    """A learner is an argument of a jitted function: the result is ``core.run``'s, and a learner of
    another value goes through the same compiled function."""
    xs, ys = case.stream()
    run = jax.jit(lambda learner, state, xs, ys: core.run(learner, state, xs, ys))
    for i, h in enumerate(case.values()[:2]):
        learner = case.make(h)
        state0 = case.init(learner, xs, ys)
        want = core.run(learner, state0, xs, ys)
        with count_compilations() as compiled:
            got = jax.block_until_ready(run(learner, state0, xs, ys))
        chex.assert_trees_all_close(got, want, rtol=RTOL, atol=ATOL)
        if i:
            assert compiled[0] == 0, (
                f"{compiled[0]} compilation(s) for {learner!r} as a jit argument"
            )


def check_vmap_over_stacked_learners(case: Case):
    """``jax.vmap`` over a learner whose leaves are stacked equals building the learner inside vmap."""
    _no_hyperparameter(case)
    xs, ys = case.stream()
    learners = [case.make(h) for h in case.hparams]
    _assert_has_leaves(learners[0], case.name)
    state0 = case.init(learners[0], xs, ys)
    stacked = jax.vmap(lambda learner: core.run(learner, state0, xs, ys))(stack_learners(learners))
    inside = jax.vmap(lambda h: core.run(case.make(h), state0, xs, ys))(
        jnp.asarray(case.hparams, jnp.float32)
    )
    chex.assert_trees_all_close(stacked, inside, rtol=RTOL, atol=ATOL)


def check_init_with_positional_key(case: Case):
    """``init(x, key)`` takes a key positionally; deterministic learners ignore it."""
    xs, ys = case.stream()
    learner = case.learner()
    x0, key = case.example(xs, ys), jax.random.PRNGKey(0 if case.key is None else case.key)
    positional = learner.init(x0, key)
    chex.assert_trees_all_equal(positional, learner.init(x0, key=key))
    if case.key is None:
        chex.assert_trees_all_equal(positional, learner.init(x0))


def check_state_stable(case: Case, dtype):
    """The state's structure, shapes and dtypes are those of ``init`` (floats in the data's dtype),
    after one ``update`` and after ``core.run``; the trace has one entry per round."""
    xs, ys = case.stream(dtype=dtype)
    learner = case.learner()
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
    """Streaming in chunks with the carried state equals one ``core.run`` over the whole stream."""
    xs, ys = case.stream()
    learner = case.learner()
    state = case.init(learner, xs, ys)
    whole = core.run(learner, state, xs, ys)
    traces = []
    for lo, hi in [
        (0, 30),
        (30, 60),
    ]:  # one program for both chunks; the whole stream's is the others'
        state, trace = core.run(learner, state, None if xs is None else xs[lo:hi], ys[lo:hi])
        traces.append(trace)
    chunked = (state, jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *traces))
    chex.assert_trees_all_close(whole, chunked, rtol=1e-6, atol=1e-6)


def check_run_block_equals_scan(case: Case, block_sizes=(1, 7, 64)):
    """For a learner with an exact block rule, ``core.run(..., block_size=b)`` equals the scan
    (``block_size=0``) for blocks of one round, blocks with a remainder, and one block past the end."""
    xs, ys = case.stream()
    learner = case.learner()
    assert learner.run_block is not None, f"{case.name} has no block rule"
    state0 = case.init(learner, xs, ys)
    scan = core.run(learner, state0, xs, ys, block_size=0)
    for b in block_sizes:
        blocked = core.run(learner, state0, xs, ys, block_size=b)
        chex.assert_trees_all_close(
            blocked, scan, rtol=case.block_rtol, atol=1e-5, custom_message=f"block_size={b}"
        )


# --- batch learners -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BatchCase:
    """One batch learner under test.

    Attributes:
      name: the test id.
      factory: the public factory the row exercises.
      make: numeric hyperparameter -> ``BatchLearner`` (called with Python floats and with tracers);
        called with ``None`` when ``hparams == ()``.
      hparams: three values of the numeric hyperparameter (the first is the default), or ``()``.
      data: ``(key, n, dtype) -> (X, y)``.
      small: like ``make`` but cheap (few steps), for the check that interprets ``fit`` op by op
        under ``jax.disable_jit()`` (default: ``make``).
      n: the sample size the checks use.
      labels: the label set ``fit`` accepts (``None``: real targets or structured outputs).
      rtol, atol: tolerances of the equality checks.
      path_dependent: params fields that count a solver's steps: where a check's two runs may round
        differently (a batched reduction reordered), they may take other paths to the same
        tolerance, so these fields are not compared.
      skips: ``(check, reason)`` pairs: the checks that do not apply, and where their equivalent lives.
      params_type: the ``NamedTuple`` type of the params.
      min_accuracy: the training accuracy the row's learner must reach (it learned something).
      bad_label: ``(label, message)``: setting ``y[0] = label`` makes ``fit`` raise ``message``.
    """

    name: str
    factory: Callable
    make: Callable
    hparams: tuple
    data: Callable
    small: Optional[Callable] = None
    n: int = 40
    labels: Optional[tuple] = (-1, 1)
    rtol: float = 1e-5
    atol: float = 1e-6
    path_dependent: tuple = ()
    skips: tuple = ()
    params_type: Optional[type] = None
    min_accuracy: Optional[float] = None
    bad_label: Optional[tuple] = None

    def sample(self, dtype=jnp.float32, seed=0, n=None):
        return self.data(jax.random.PRNGKey(seed), self.n if n is None else n, dtype)

    def learner(self, h=None):
        return self.make(self.hparams[0] if h is None and self.hparams else h)

    def values(self):
        return self.hparams or (None, None, None)

    def skip_if(self, check: str):
        reason = dict(self.skips).get(check)
        if reason is not None:
            pytest.skip(f"{self.name}: {reason}")


def _assert_close(got, want, case):
    chex.assert_trees_all_equal_structs(got, want)
    if case.path_dependent:
        got = got._replace(**{name: getattr(want, name) for name in case.path_dependent})
    chex.assert_trees_all_close(got, want, rtol=case.rtol, atol=case.atol)


def check_fit_jit_equals_no_jit(case: BatchCase):
    """``fit`` called as is and under an outer ``jax.jit`` agree, and so do their predictions."""
    X, y = case.sample()
    key = jax.random.PRNGKey(3)
    learner = case.learner()
    eager = learner.fit(key, X, y)
    _assert_close(jax.jit(learner.fit)(key, X, y), eager, case)
    np.testing.assert_array_equal(jax.jit(learner.predict)(eager, X), learner.predict(eager, X))


def check_fit_interpreted_equals_compiled(case: BatchCase):
    """``fit`` interpreted under ``jax.disable_jit()`` (on the ``small`` version) agrees with the
    compiled fit. Every primitive then runs as a program of its own: tens of compilations a learner."""
    case.skip_if("interpret")
    X, y = case.sample()
    key = jax.random.PRNGKey(3)
    small = (
        case.learner()
        if case.small is None
        else case.small(case.hparams[0] if case.hparams else None)
    )
    with jax.disable_jit():
        interpreted = small.fit(key, X, y)
    _assert_close(interpreted, small.fit(key, X, y), case)


def check_batch_vmap_over_hyperparameter(case: BatchCase):
    """``jax.vmap`` over the numeric hyperparameter equals a Python loop of separate fits."""
    _no_hyperparameter(case)
    X, y = case.sample()
    key = jax.random.PRNGKey(1)
    swept = jax.vmap(lambda h: case.make(h).fit(key, X, y))(jnp.asarray(case.hparams, jnp.float32))
    for i, h in enumerate(case.hparams):
        _assert_close(_index(swept, i), case.make(jnp.float32(h)).fit(key, X, y), case)


def check_vmap_over_keys(case: BatchCase, num: int = 3):
    """``fit`` vmaps over seeds (``key`` first): the batch equals separate fits."""
    X, y = case.sample()
    keys = jax.random.split(jax.random.PRNGKey(5), num)
    learner = case.learner()
    swept = jax.vmap(learner.fit, (0, None, None))(keys, X, y)
    for i in range(num):
        _assert_close(_index(swept, i), learner.fit(keys[i], X, y), case)


def check_batch_no_recompilation(case: BatchCase):
    """After a warm-up, a second fit on new data of the same shapes, and fits of learners built with
    new numeric values (or the same arguments), compile nothing."""
    X1, y1 = case.sample(seed=1)
    X2, y2 = case.sample(seed=2)
    key = jax.random.PRNGKey(0)
    first, *others = [case.make(h) for h in case.values()]
    jax.block_until_ready(first.predict(first.fit(key, X1, y1), X1))
    with count_compilations() as compiled:
        jax.block_until_ready(first.predict(first.fit(jax.random.PRNGKey(1), X2, y2), X2))
    assert compiled[0] == 0, f"{compiled[0]} compilation(s) on the second fit of {first!r}"
    for learner in others:
        with count_compilations() as compiled:
            jax.block_until_ready(learner.predict(learner.fit(key, X2, y2), X2))
        assert compiled[0] == 0, (
            f"{compiled[0]} compilation(s) on the fit of a new learner {learner!r}"
        )


def check_batch_learner_as_jit_argument(case: BatchCase):
    """A learner is an argument of a jitted function: the result is ``fit``'s, and a learner of
    another value goes through the same compiled function."""
    X, y = case.sample()
    key = jax.random.PRNGKey(2)
    fit = jax.jit(lambda learner, key, X, y: learner.fit(key, X, y))
    for i, h in enumerate(case.values()[:2]):
        learner = case.make(h)
        want = learner.fit(key, X, y)
        with count_compilations() as compiled:
            got = jax.block_until_ready(fit(learner, key, X, y))
        _assert_close(got, want, case)
        if i:
            assert compiled[0] == 0, (
                f"{compiled[0]} compilation(s) for {learner!r} as a jit argument"
            )


def check_batch_vmap_over_stacked_learners(case: BatchCase):
    """``jax.vmap`` over a learner whose leaves are stacked equals building the learner inside vmap."""
    _no_hyperparameter(case)
    X, y = case.sample()
    key = jax.random.PRNGKey(1)
    learners = [case.make(h) for h in case.hparams]
    _assert_has_leaves(learners[0], case.name)
    stacked = jax.vmap(lambda learner: learner.fit(key, X, y))(stack_learners(learners))
    inside = jax.vmap(lambda h: case.make(h).fit(key, X, y))(jnp.asarray(case.hparams, jnp.float32))
    _assert_close(stacked, inside, case)


def check_params_dtypes(case: BatchCase, dtype):
    """Params are a NamedTuple whose floats are in the data's dtype (ints int32), finite, of a structure
    that does not depend on the data; ``predict`` returns one label per example and
    ``decision_function`` one score per example (binary: the label is +1 iff the score is positive) or
    one row of ``k`` scores (multiclass: the label is their arg-max)."""
    case.skip_if("params_dtypes")
    X, y = case.sample(dtype=dtype)
    learner = case.learner()
    params = learner.fit(jax.random.PRNGKey(0), X, y)
    assert isinstance(params, tuple) and hasattr(params, "_fields"), type(params)
    if case.params_type is not None:
        assert isinstance(params, case.params_type), type(params)
    for leaf in jax.tree_util.tree_leaves(params):
        assert leaf.dtype in (dtype, jnp.int32, jnp.bool_), (case.name, leaf.dtype)
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            assert np.isfinite(np.asarray(leaf)).all()
    other = learner.fit(jax.random.PRNGKey(1), *case.sample(dtype=dtype, seed=4))
    chex.assert_trees_all_equal_shapes_and_dtypes(params, other)
    labels = learner.predict(params, X)
    assert labels.shape == (X.shape[0],)
    if learner.decision_function is not None:
        score = learner.decision_function(params, X)
        assert score.dtype == dtype and score.shape[0] == X.shape[0], (score.shape, score.dtype)
        if score.ndim == 2:  # multiclass: (n, k) scores, ties to the minimal index
            assert labels.dtype == jnp.int32
            np.testing.assert_array_equal(labels, np.argmax(np.asarray(score), axis=1))
        else:
            assert score.shape == (X.shape[0],)
            if case.labels == (-1, 1):  # a zero score predicts -1
                np.testing.assert_array_equal(labels, np.where(np.asarray(score) > 0, 1, -1))
    if case.labels is not None:
        assert set(np.unique(np.asarray(labels)).tolist()) <= set(case.labels)
    if case.min_accuracy is not None:
        accuracy = float(np.mean(np.asarray(labels) == np.asarray(y)))
        assert accuracy > case.min_accuracy, accuracy


def check_rejects_bad_input(case: BatchCase):
    """Wrong label set, NaN/inf, a 1-D ``X`` and mismatched lengths raise ``ValueError``s naming the input."""
    case.skip_if("bad_input")
    X, y = case.sample()
    learner = case.learner()
    key = jax.random.PRNGKey(0)
    if case.labels == (-1, 1):
        with pytest.raises(ValueError, match=r"expected `y` in \{-1, 1\}.*2 \* y - 1"):
            learner.fit(key, X, (y + 1) / 2)
    if case.bad_label is not None:
        label, message = case.bad_label
        with pytest.raises(ValueError, match=message):
            learner.fit(key, X, y.at[0].set(label))
    with pytest.raises(ValueError, match="`X` to be finite"):
        learner.fit(key, X.at[3, 0].set(jnp.nan), y)
    with pytest.raises(ValueError, match="`X` to be finite"):
        learner.fit(key, X.at[0, 1].set(jnp.inf), y)
    with pytest.raises(ValueError, match=r"expected `X` of shape \(m, d\)"):
        learner.fit(key, X[:, 0], y)
    with pytest.raises(ValueError, match="same number of examples"):
        learner.fit(key, X, y[:-1])
