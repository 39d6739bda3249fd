"""The conformance checks of DESIGN.md section 6 for batch learners (``BatchLearner``).

A family's test file lists its learners as :class:`BatchCase` rows and subclasses
:class:`BatchConformance` with them (see ``tests/linear/test_linear_conformance.py``). Each row names
a factory of one numeric hyperparameter (``lam``, ``eta``, ``tol``...), the values of a sweep, and a
sample generator. Guarantees and reference agreement live in the per-learner test files.
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

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@dataclasses.dataclass(frozen=True)
class BatchCase:
    """One learner under test.

    Attributes:
      name: the test id.
      make: numeric hyperparameter -> ``BatchLearner`` (called with Python floats and with tracers).
      hparams: the sweep (the brief asks for 32 values); the first is the default.
      data: ``(key, n, dtype) -> (X, y)``.
      compiled: the jitted function ``fit`` calls, if any: its ``_cache_size()`` must not grow on a
        second fit with inputs of the same shapes, even from a learner built with another value.
      small: like ``make`` but cheap (few steps), for the check that interprets ``fit`` op by op
        under ``jax.disable_jit()`` (default: ``make``).
      n: the sample size the checks use.
      labels: the label set ``fit`` accepts (``None``: real targets, no label check).
      rtol, atol: tolerances of the equality checks.
    """

    name: str
    make: Callable
    hparams: tuple
    data: Callable
    compiled: Optional[Callable] = None
    small: Optional[Callable] = None
    n: int = 40
    labels: Optional[tuple] = (-1, 1)
    rtol: float = 1e-5
    atol: float = 1e-6

    def sample(self, dtype=jnp.float32, seed=0, n=None):
        return self.data(jax.random.PRNGKey(seed), self.n if n is None else n, dtype)

    def learner(self, h=None):
        return self.make(self.hparams[0] if h is None else h)


@contextlib.contextmanager
def count_compilations():
    """Count XLA compilations inside the block: ``with count_compilations() as n: ...; n[0]``."""
    count = [0]

    def listener(name, secs, **kwargs):
        if name == _COMPILE_EVENT:
            count[0] += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield count
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def _assert_close(got, want, case):
    chex.assert_trees_all_equal_structs(got, want)
    chex.assert_trees_all_close(got, want, rtol=case.rtol, atol=case.atol)


def check_fit_jit_equals_no_jit(case: BatchCase):
    """``fit`` called as is, under an outer ``jax.jit`` and interpreted under ``jax.disable_jit()``
    (on the ``small`` version) agree."""
    X, y = case.sample()
    key = jax.random.PRNGKey(3)
    learner = case.learner()
    eager = learner.fit(key, X, y)
    _assert_close(jax.jit(learner.fit)(key, X, y), eager, case)
    np.testing.assert_array_equal(jax.jit(learner.predict)(eager, X), learner.predict(eager, X))
    small = learner if case.small is None else case.small(case.hparams[0])
    with jax.disable_jit():
        interpreted = small.fit(key, X, y)
    _assert_close(interpreted, small.fit(key, X, y), case)


def check_vmap_over_hyperparameter(case: BatchCase):
    """``jax.vmap`` over the numeric hyperparameter equals a Python loop of separate fits."""
    X, y = case.sample()
    key = jax.random.PRNGKey(1)
    hs = jnp.asarray(case.hparams, jnp.float32)
    swept = jax.vmap(lambda h: case.make(h).fit(key, X, y))(hs)
    for i, h in enumerate(case.hparams):
        one = case.make(jnp.float32(h)).fit(key, X, y)
        _assert_close(jax.tree_util.tree_map(lambda a, i=i: a[i], swept), one, case)


def check_vmap_over_keys(case: BatchCase, num: int = 4):
    """``fit`` is vmappable over seeds (``key`` first): the batch equals separate fits."""
    X, y = case.sample()
    keys = jax.random.split(jax.random.PRNGKey(5), num)
    learner = case.learner()
    swept = jax.vmap(learner.fit, (0, None, None))(keys, X, y)
    for i in range(num):
        _assert_close(jax.tree_util.tree_map(lambda a, i=i: a[i], swept), learner.fit(keys[i], X, y), case)


def check_no_recompilation(case: BatchCase):
    """A second fit on new data of the same shapes compiles nothing, even from a new learner."""
    X1, y1 = case.sample(seed=1)
    X2, y2 = case.sample(seed=2)
    key = jax.random.PRNGKey(0)
    learner = case.learner()
    jax.block_until_ready(learner.predict(learner.fit(key, X1, y1), X1))
    size = None if case.compiled is None else case.compiled._cache_size()
    with count_compilations() as compiled:
        jax.block_until_ready(learner.predict(learner.fit(jax.random.PRNGKey(1), X2, y2), X2))
        other = case.make(case.hparams[-1])  # another value of the numeric hyperparameter
        jax.block_until_ready(other.fit(key, X2, y2))
    assert compiled[0] == 0, f"{compiled[0]} compilation(s) on the second fit"
    if size is not None:
        assert case.compiled._cache_size() == size


def check_params_dtypes(case: BatchCase, dtype):
    """Params are a NamedTuple whose floats are in the data's dtype (ints int32), finite;
    ``predict`` returns one label per example and ``decision_function`` one score per example (binary:
    the label is +1 iff the score is positive) or one row of ``k`` scores (multiclass: the label is
    their arg-max). Returns ``(params, labels)`` for a family's own further checks."""
    X, y = case.sample(dtype=dtype)
    learner = case.learner()
    params = learner.fit(jax.random.PRNGKey(0), X, y)
    assert isinstance(params, tuple) and hasattr(params, "_fields"), type(params)
    for leaf in jax.tree_util.tree_leaves(params):
        assert leaf.dtype in (dtype, jnp.int32, jnp.bool_), (case.name, leaf.dtype)
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            assert np.isfinite(np.asarray(leaf)).all()
    # the structure does not depend on the data
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
    return params, labels


def check_rejects_bad_input(case: BatchCase):
    """Wrong label set, NaN/inf, a 1-D ``X`` and mismatched lengths raise ``ValueError``s naming the input."""
    X, y = case.sample()
    learner = case.learner()
    key = jax.random.PRNGKey(0)
    if case.labels == (-1, 1):
        with pytest.raises(ValueError, match=r"expected `y` in \{-1, 1\}.*2 \* y - 1"):
            learner.fit(key, X, (y + 1) / 2)
    with pytest.raises(ValueError, match="`X` to be finite"):
        learner.fit(key, X.at[3, 0].set(jnp.nan), y)
    with pytest.raises(ValueError, match="`X` to be finite"):
        learner.fit(key, X.at[0, 1].set(jnp.inf), y)
    with pytest.raises(ValueError, match=r"expected `X` of shape \(m, d\)"):
        learner.fit(key, X[:, 0], y)
    with pytest.raises(ValueError, match="same number of examples"):
        learner.fit(key, X, y[:-1])


class BatchConformance:
    """The six checks above as test methods over a family's rows.

    A family's test file subclasses it as ``Test<Family>Conformance`` with ``CASES = [...]``; a
    family extends a check by overriding its method (calling ``super()``, or ``check_params_dtypes``
    for the params and labels it returns), and drops one that does
    not apply by setting the method to ``None`` with a comment saying where the equivalent test lives.
    """

    CASES: tuple = ()

    def pytest_generate_tests(self, metafunc):
        if "case" in metafunc.fixturenames:
            metafunc.parametrize("case", self.CASES, ids=[case.name for case in self.CASES])

    def test_fit_under_jit_equals_no_jit(self, case):
        check_fit_jit_equals_no_jit(case)

    def test_vmap_over_hyperparameter_equals_loop(self, case):
        check_vmap_over_hyperparameter(case)

    def test_vmap_over_keys_equals_loop(self, case):
        check_vmap_over_keys(case)

    def test_no_recompilation_on_second_fit(self, case):
        check_no_recompilation(case)

    def test_params_dtypes(self, case, dtype):
        check_params_dtypes(case, dtype)

    def test_rejects_bad_input(self, case):
        check_rejects_bad_input(case)
