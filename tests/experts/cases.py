"""The experts learners' rows of the conformance matrix (run by ``tests/test_conformance.py``)."""

import jax
import jax.numpy as jnp

from jaxlearn import datasets, experts
from tests.conformance import Case


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
