"""The conformance matrix (DESIGN.md section 6) over every online learner, experts included.

Each family lists its learners as rows (``tests/online/cases.py``, ``tests/experts/cases.py``); every
row runs the same checks (``tests/conformance.py``). The batch learners' matrix is
``tests/linear/test_linear_conformance.py``.
"""

import jax.numpy as jnp
import pytest

from jaxlearn import core
from tests.conformance import (
    check_chunked_stream,
    check_no_recompilation,
    check_run_equals_python_loop,
    check_state_stable,
    check_vmap_over_hyperparameter,
)
from tests.experts.cases import LEARNERS as EXPERTS
from tests.online.cases import LEARNERS as ONLINE

ALL = ONLINE + EXPERTS
cases = pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])


@cases
def test_run_equals_python_loop(case):
    check_run_equals_python_loop(case)


@cases
def test_vmap_over_hyperparameter_equals_loop(case):
    check_vmap_over_hyperparameter(case)


@cases
def test_no_recompilation_on_second_call(case):
    check_no_recompilation(case)


@cases
def test_state_structure_and_dtype_stable(case, dtype):
    check_state_stable(case, dtype)


@cases
def test_chunked_stream_equals_one_call(case):
    check_chunked_stream(case)


@pytest.mark.parametrize("case", ONLINE, ids=[case.name for case in ONLINE])
def test_predict_batch_matches_predict(case):
    X, y = case.stream()
    learner = case.make(case.hparams[0])
    state, _ = core.run(learner, learner.init(X[0]), X, y)
    batch = core.predict_batch(learner, state, X)
    one = jnp.stack([learner.predict(state, x) for x in X[:5]])
    assert jnp.allclose(batch[:5], one, rtol=1e-5)
    assert batch.shape[0] == X.shape[0]
