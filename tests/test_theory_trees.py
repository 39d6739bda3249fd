"""The bounds of SPEC 15.1 and 16.3 in jaxlearn.theory: (18.1) and Theorems 19.3 / 19.5 by their formulas
(the k-NN rules measured against Theorems 19.3 - 19.5: tests/theory/test_nearest.py); the VC dimension
of trees over the Boolean cube (2^d) with jaxlearn.trees."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import theory, trees


def test_tree_mdl_bound_formula_and_monotonicity():
    # (18.1): L_S + sqrt(((n + 1) log2(d + 3) + ln(2 / delta)) / (2 m))
    want = 0.1 + np.sqrt((6 * np.log2(6) + np.log(20)) / 200)
    np.testing.assert_allclose(
        theory.tree_mdl_bound(5, 3, 100, 0.1, train_error=0.1), want, rtol=1e-6
    )
    ns = jnp.arange(1, 50)
    assert (jnp.diff(theory.tree_mdl_bound(ns, 10, 1000, 0.05)) > 0).all()
    assert (
        jnp.diff(theory.tree_mdl_bound(7, 10, jnp.array([10.0, 100.0, 1000.0]), 0.05)) < 0
    ).all()
    assert float(theory.tree_mdl_bound(7, 10, 100, 0.05, train_error=0.2)) > float(
        theory.tree_mdl_bound(7, 10, 100, 0.05, train_error=0.1)
    )


def test_nearest_neighbour_bound_formulas():
    np.testing.assert_allclose(
        theory.one_nn_bound(0.1, 2.0, 4, 3125), 0.2 + 8 * 2 * 3125 ** (-1 / 5), rtol=1e-6
    )
    want = (1 + np.sqrt(0.8)) * 0.1 + (6 * 2 * 2 + 10) * 3125 ** (-1 / 5)
    np.testing.assert_allclose(theory.knn_bound(0.1, 2.0, 4, 3125, 10), want, rtol=1e-6)


@pytest.mark.parametrize("d", [2, 3])
def test_trees_of_depth_d_shatter_the_boolean_cube_vc_is_2_to_the_d(d):
    """UML 18.6 Ex. 1 (SPEC 15.1): over X = {0,1}^d every Boolean function is a tree with d levels of splits
    (the book's height d + 1), so the class shatters all 2^d points and VCdim = 2^d (|X| = 2^d caps it).
    With d - 1 levels a leaf leaves a bit free, so parity is out of reach: the cube is not shattered."""
    X = jnp.asarray(list(itertools.product([0, 1], repeat=d)), jnp.float32)
    labellings = jnp.asarray(list(itertools.product([0, 1], repeat=2**d)), jnp.int32)  # all 2^(2^d)

    def realised(depth):
        learner = trees.decision_tree(depth, num_classes=2)
        fit_predict = jax.vmap(
            lambda y: learner.predict(learner.fit(jax.random.PRNGKey(0), X, y), X)
        )
        return np.asarray((fit_predict(labellings) == labellings).all(axis=1))

    assert realised(d).all()  # every labelling of the 2^d points: shattered
    shallow = realised(d - 1)
    parity = np.asarray(X.sum(axis=1) % 2, np.int32)
    parity_row = int(np.flatnonzero((np.asarray(labellings) == parity).all(axis=1))[0])
    assert not shallow[parity_row] and shallow.sum() < labellings.shape[0]
