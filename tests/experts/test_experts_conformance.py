"""The conformance matrix (DESIGN.md section 6) over the experts learners."""

import jax
import jax.numpy as jnp
import pytest

from jaxlearn import datasets, experts
from tests.conformance import (
    Case,
    check_chunked_stream,
    check_no_recompilation,
    check_run_equals_python_loop,
    check_state_stable,
    check_vmap_over_hyperparameter,
)


def _realizable(key, n, dtype):
    return datasets.expert_advice(key, n, 8)


def _noisy(key, n, dtype):
    return datasets.expert_advice(key, n, 8, jnp.linspace(0.1, 0.5, 8))


def _losses(key, n, dtype):
    return None, jax.random.uniform(key, (n, 6), dtype)


def _soft(key, n, dtype):
    k_x, k_y = jax.random.split(key)
    return jax.random.uniform(k_x, (n, 5), dtype, 0.05, 0.95), jax.random.uniform(k_y, (n,), dtype)


LEARNERS = [
    Case("consistent", lambda _: experts.consistent(), (0.0, 1.0), _realizable),
    Case("halving", lambda _: experts.halving(), (0.0, 1.0), _realizable),
    Case("weighted_majority", lambda b: experts.weighted_majority(b), (0.2, 0.37, 0.8), _noisy),
    Case("rwm", lambda e: experts.randomized_weighted_majority(e), (0.1, 0.5, 2.0), _noisy, key=0),
    Case("hedge", lambda e: experts.hedge(e), (0.1, 0.5, 2.0), _losses),
    Case("hedge_sample", lambda e: experts.hedge(e, sample=True), (0.1, 2.0), _losses, key=1),
    Case("wa_entropic", lambda e: experts.weighted_average(e), (0.5, 1.0), _soft),
    Case("wa_square", lambda e: experts.weighted_average(e, "square"), (0.25, 0.5), _soft),
]
IDS = [case.name for case in LEARNERS]
cases = pytest.mark.parametrize("case", LEARNERS, ids=IDS)


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
