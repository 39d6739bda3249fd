"""An online learner's ``init`` on a concrete example (a NumPy array or a list, as a notebook passes
it) compiles no program: its zeros are made on the host (``jnp.zeros`` and ``jnp.asarray`` run
eagerly compile one small program per shape), and the same state comes back under ``jit``."""

import jax
import numpy as np
import pytest

from jaxlearn import kernels, losses, online
from tests.harness import count_compilations

LEARNERS = {
    "perceptron": lambda: online.perceptron(),
    "perceptron without intercept": lambda: online.perceptron(fit_intercept=False),
    "margin_perceptron": lambda: online.margin_perceptron(0.5),
    "online_gradient_descent": lambda: online.online_gradient_descent(
        losses.hinge, 0.1, fit_intercept=True
    ),
    "winnow": lambda: online.winnow(2.0),
    "kernel_perceptron": lambda: online.kernel_perceptron(kernels.gaussian(1.0), budget=16),
}


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("as_list", [False, True])
def test_init_on_a_concrete_example_compiles_nothing(name, as_list):
    learner = LEARNERS[name]()
    example = np.arange(7, dtype=np.float32) / 7
    jax.clear_caches()  # the eager operations' programs too: a shape seen before proves nothing
    with count_compilations() as compiled:
        state = learner.init(example.tolist() if as_list else example)
    assert compiled[0] == 0
    traced = jax.jit(learner.init)(example)
    assert jax.tree.structure(state) == jax.tree.structure(traced)
    for leaf, want in zip(jax.tree.leaves(state), jax.tree.leaves(traced)):
        assert isinstance(leaf, jax.Array)
        assert leaf.dtype == want.dtype and leaf.shape == want.shape
        np.testing.assert_array_equal(leaf, want)
