"""The private L-BFGS solver behind the logistic regressions and the primal squared-hinge SVM
(Nocedal & Wright, Algorithms 3.5-3.6 and 7.4-7.5), on problems that exercise its line search."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import minimize

from jaxlearn._lbfgs import minimize_lbfgs


def _rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@pytest.mark.parametrize("start", [[-1.2, 1.0], [2.0, -2.0, 0.5, 3.0]])
def test_rosenbrock_reaches_its_minimiser(start, x64):
    """A curved valley: the first trials overshoot and the line search must bracket and zoom."""
    result = minimize_lbfgs(_rosenbrock, jnp.asarray(start), tol=1e-9, max_iter=500)
    assert bool(result.converged) and float(result.grad_norm) <= 1e-9
    np.testing.assert_allclose(result.x, np.ones(len(start)), atol=1e-7)
    assert float(result.value) <= 1e-14
    theirs = minimize(_rosenbrock, np.asarray(start), jac=jax.grad(_rosenbrock), method="L-BFGS-B")
    assert int(result.n_iter) <= 2 * theirs.nit  # as few iterations as SciPy's, give or take


def test_steep_start_and_pytree(x64):
    """A start where the first gradient is huge (the first trial is 1/|g|), on a pytree of two
    leaves: a separable quartic whose minimiser is known."""
    target = {"a": jnp.arange(3.0), "b": jnp.asarray(-2.0)}

    def f(x):
        return sum(jnp.sum((x[k] - target[k]) ** 4 + (x[k] - target[k]) ** 2) for k in x)

    start = {"a": jnp.full(3, 1e3), "b": jnp.asarray(-1e3)}
    result = minimize_lbfgs(f, start, tol=1e-8, max_iter=500)
    assert bool(result.converged)
    np.testing.assert_allclose(result.x["a"], target["a"], atol=1e-6)
    np.testing.assert_allclose(result.x["b"], target["b"], atol=1e-6)


def test_vmap_over_tolerances_is_the_separate_runs(x64):
    """Each member stops at its own tolerance: vmap runs the loop until the last one stops."""
    tols = jnp.asarray([1e-2, 1e-6, 1e-10])
    start = jnp.asarray([-1.2, 1.0])
    swept = jax.vmap(lambda tol: minimize_lbfgs(_rosenbrock, start, tol=tol, max_iter=500))(tols)
    for i, tol in enumerate(tols.tolist()):
        one = minimize_lbfgs(_rosenbrock, start, tol=tol, max_iter=500)
        assert int(swept.n_iter[i]) == int(one.n_iter)
        np.testing.assert_allclose(swept.x[i], one.x, rtol=1e-12)
    assert len(set(swept.n_iter.tolist())) == 3


def test_max_iter_and_a_function_without_a_minimum(x64):
    result = minimize_lbfgs(_rosenbrock, jnp.asarray([-1.2, 1.0]), tol=1e-9, max_iter=3)
    assert int(result.n_iter) == 3 and not bool(result.converged)
    # unbounded below along x: the line search keeps doubling, then the loop ends unconverged
    result = minimize_lbfgs(lambda x: -jnp.sum(x), jnp.zeros(2), tol=1e-6, max_iter=5)
    assert not bool(result.converged) and np.all(np.isfinite(np.asarray(result.x)))
