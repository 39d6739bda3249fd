"""Generators keep their promises; loaders map labels and fail clearly without scikit-learn."""

import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets
from jaxlearn._shared import drawn_flat
from tests.harness import count_compilations


@pytest.mark.parametrize("margin", [0.0, 0.05, 0.3, 0.9])
@pytest.mark.parametrize("d", [1, 2, 30])
def test_separable_promises(margin, d, dtype):
    X, y, w_star = datasets.separable(jax.random.PRNGKey(0), 500, d, margin, dtype=dtype)
    assert X.shape == (500, d) and y.shape == (500,) and X.dtype == dtype
    assert float(jnp.linalg.norm(w_star)) == pytest.approx(1.0, abs=1e-6)
    assert float(jnp.linalg.norm(X, axis=1).max()) <= 1 + 1e-6
    assert float((y * (X @ w_star)).min()) >= margin - 1e-6
    assert set(np.unique(y).tolist()) <= {-1.0, 1.0}


@pytest.mark.parametrize(
    "generate",
    [
        lambda key, n: datasets.separable(key, n, 3, 0.1),
        lambda key, n: datasets.noisy_halfspace(key, n, 3, 0.1),
        lambda key, n: datasets.ranking_queries(key, n, 4, 3),
        lambda key, n: datasets.standardize(np.arange(3.0 * n).reshape(n, 3) % 7),
    ],
    ids=["separable", "noisy_halfspace", "ranking_queries", "standardize"],
)
def test_a_generator_is_one_program_per_size(generate):
    key = jax.random.PRNGKey(3)
    jax.block_until_ready(generate(key, 29))  # what a first call sets up, once
    for n, programs in ((31, 1), (31, 0)):  # a new size: one program; the same size again: none
        with count_compilations() as compiled:
            jax.block_until_ready(generate(key, n))
        assert compiled[0] == programs


def test_separable_is_traceable_in_margin():
    X, y, w = jax.vmap(lambda m: datasets.separable(jax.random.PRNGKey(0), 100, 3, m))(
        jnp.array([0.1, 0.2])
    )
    assert bool(
        jnp.all(jnp.min(y * jnp.einsum("knd,kd->kn", X, w), axis=1) >= jnp.array([0.1, 0.2]) - 1e-6)
    )


def test_noisy_halfspace_flip_rate():
    X, y, w_star = datasets.noisy_halfspace(jax.random.PRNGKey(1), 20_000, 5, 0.2)
    disagree = float(jnp.mean(jnp.sign(X @ w_star) != y))
    assert disagree == pytest.approx(0.2, abs=0.015)


def test_disjunction_labels():
    X, y, relevant = datasets.disjunction(jax.random.PRNGKey(2), 2000, 30, 3)
    np.testing.assert_array_equal(y, (X[:, relevant].sum(axis=1) > 0).astype(jnp.int32))
    assert 0.3 < float(y.mean()) < 0.7
    with pytest.raises(ValueError, match="1 <= `k` <= d=30"):
        datasets.disjunction(jax.random.PRNGKey(2), 10, 30, 31)


def test_bad_sizes():
    with pytest.raises(ValueError, match=r"`n` an integer in \[1, inf\)"):
        datasets.separable(jax.random.PRNGKey(0), 0, 3, 0.1)


def test_breast_cancer_and_digits():
    X, y = datasets.load_breast_cancer()
    assert X.shape == (569, 30) and X.dtype == np.float32
    assert set(np.unique(y).tolist()) == {-1.0, 1.0}
    X, y = datasets.load_digits()
    assert X.shape == (1797, 64) and set(np.unique(y).tolist()) == set(range(10))
    Z = datasets.standardize(X)
    assert float(jnp.abs(Z.mean(axis=0)).max()) < 1e-4  # constant pixel columns stay finite
    assert bool(jnp.all(jnp.isfinite(Z)))


def test_loaders_need_sklearn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(
        ImportError, match=r"`load_breast_cancer`.*pip install 'jaxlearn\[sklearn\]'"
    ):
        datasets.load_breast_cancer()


@pytest.mark.parametrize("partitionable", [True, False])
def test_flat_draws_are_the_draws_of_the_shape(partitionable):
    # the generators and the networks' initialisations draw flat and reshape (a program XLA compiles
    # faster): JAX's threefry must give the numbers of the shaped draw, in either counter mode
    with jax.threefry_partitionable(partitionable):
        key, shape = jax.random.PRNGKey(3), (50, 10, 3)
        rates = jnp.linspace(0.1, 0.9, 3)
        for sampler, kwargs, flat_kwargs in [
            (jax.random.normal, {}, None),
            (jax.random.uniform, dict(minval=-1.0, maxval=1.0), None),
            (jax.random.bernoulli, dict(p=rates), dict(p=jnp.broadcast_to(rates, shape).ravel())),
            (jax.random.randint, dict(minval=0, maxval=7), None),
        ]:
            flat = drawn_flat(
                sampler, key, shape, **(kwargs if flat_kwargs is None else flat_kwargs)
            )
            np.testing.assert_array_equal(flat, sampler(key, shape=shape, **kwargs))
