"""The machinery behind "learners are pytrees" (``jaxlearn.core.learner_factory``), on its own.

The conformance harness checks every public learner; these tests pin the mechanism: what is a leaf,
what is structure, hand-built learners, replaced fields, aliases, checks applied by ``fit``, and the
predicted-label dtype rule of the README.
"""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.tree_util import Partial

from jaxlearn import core, experts, kernels, linear, losses, online


def test_numeric_hyperparameters_are_the_leaves():
    assert jax.tree_util.tree_leaves(online.perceptron(0.5)) == [0.5]
    assert jax.tree_util.tree_leaves(online.perceptron(0.5, normalize=True)) == [0.5]
    # A kernel Partial and a projection Partial contribute their own leaves.
    assert jax.tree_util.tree_leaves(online.kernel_perceptron(kernels.gaussian(2.0), 8)) == [2.0]
    ogd = online.online_gradient_descent(losses.hinge, 0.1, projection=online.l2_ball(3.0))
    assert jax.tree_util.tree_leaves(ogd) == [0.1, 3.0]
    # Structure: a new value keeps the tree definition, a new structural option changes it.
    same = jax.tree_util.tree_structure(online.perceptron(0.7))
    assert jax.tree_util.tree_structure(online.perceptron(0.5)) == same
    assert jax.tree_util.tree_structure(online.perceptron(0.5, normalize=True)) != same


def test_schedule_is_structure_not_a_leaf():
    schedule = lambda t: 1.0 / jnp.sqrt(t.astype(jnp.float32) + 1.0)  # noqa: E731
    learner = online.perceptron(schedule)
    assert jax.tree_util.tree_leaves(learner) == []
    X = jnp.eye(3)
    y = jnp.array([1.0, -1.0, 1.0])
    state, _ = jax.jit(lambda lrn, s: core.run(lrn, s, X, y))(learner, learner.init(X[0]))
    np.testing.assert_allclose(state.w, [1.0, -1.0 / np.sqrt(2.0), 1.0 / np.sqrt(3.0)], rtol=1e-6)


def test_static_array_arguments_compare_by_value():
    H = np.array([[0, 1], [1, 0], [1, 1]])
    a, b = experts.soa(H), experts.soa(H.copy())
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    assert jax.tree_util.tree_structure(a) != jax.tree_util.tree_structure(experts.soa(H[:2]))


def test_unflatten_with_new_leaves_rebuilds_the_learner():
    learner = online.perceptron(0.5)
    doubled = jax.tree_util.tree_map(lambda v: 2 * v, learner)
    assert repr(doubled) == "perceptron(eta=1.0, normalize=False, fit_intercept=False)"
    X, y = jnp.array([[1.0, 0.0]]), jnp.array([-1.0])
    state, _ = core.run(doubled, doubled.init(X[0]), X, y)
    np.testing.assert_array_equal(state.w, [-1.0, 0.0])


def test_hand_built_learner_is_a_pytree_with_static_functions():
    def init(x, key=None):
        return jnp.zeros_like(x)

    def update(state, x, y):
        return state + y * x, (jnp.vdot(state, x), jnp.zeros([]))

    def predict(state, x):
        return jnp.vdot(state, x)

    learner = core.Learner(init, update, predict)
    assert jax.tree_util.tree_leaves(learner) == []
    assert "Learner(init=init, update=update, predict=predict" in repr(learner)
    X = jnp.eye(2)
    play = jax.jit(lambda lrn: core.run(lrn, lrn.init(X[0]), X, jnp.ones(2)))
    np.testing.assert_array_equal(play(learner)[0], [1.0, 1.0])
    # Partial fields are pytrees: their arguments are leaves.
    scaled = core.Learner(init, Partial(lambda c, s, x, y: update(s, c * x, y), 3.0), predict)
    assert jax.tree_util.tree_leaves(scaled) == [3.0]
    np.testing.assert_array_equal(play(scaled)[0], [3.0, 3.0])


def test_replacing_a_field_by_hand_keeps_the_replacement():
    learner = online.perceptron(0.5)
    calls = []

    def predict(state, x):
        calls.append(1)
        return jnp.zeros([])

    replaced = learner._replace(predict=predict)
    rebuilt = jax.tree_util.tree_map(lambda v: v, replaced)
    assert rebuilt.predict is predict
    rebuilt.predict(None, None)
    assert calls


def test_aliases_and_conflicts():
    want = "perceptron(eta=0.25, normalize=False, fit_intercept=False)"
    assert repr(online.perceptron(learning_rate=0.25)) == want
    with pytest.raises(TypeError, match="alias"):
        online.perceptron(eta=0.1, learning_rate=0.2)
    with pytest.raises(TypeError):
        online.perceptron(0.1, unknown=3)


def test_help_shows_the_factory_docstring():
    import pydoc

    learner = online.perceptron(0.5)
    assert learner.__doc__ == online.perceptron.__doc__
    assert "The online Perceptron" in pydoc.render_doc(learner)
    assert core.Learner.__doc__.startswith("An online learner")


def test_batch_fit_applies_the_declared_check():
    learner = linear.ridge(0.1)
    with pytest.raises(ValueError, match="expected `X` of shape"):
        learner.fit(jax.random.PRNGKey(0), jnp.ones(3), jnp.ones(3))
    with pytest.raises(ValueError, match="finite"):
        learner.fit(jax.random.PRNGKey(0), jnp.full((3, 2), jnp.nan), jnp.ones(3))


def test_batch_learner_under_jit_and_vmap_of_stacked_leaves():
    X = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = jnp.array([1.0, 2.0, 3.0])
    key = jax.random.PRNGKey(0)
    lams = (0.1, 1.0, 10.0)
    stacked = jax.tree_util.tree_map(lambda *v: jnp.stack(v), *[linear.ridge(lam) for lam in lams])
    swept = jax.vmap(lambda learner: learner.fit(key, X, y))(stacked)
    fit = jax.jit(lambda learner: learner.fit(key, X, y))
    for i, lam in enumerate(lams):
        one = fit(linear.ridge(lam))
        chex.assert_trees_all_close(
            jax.tree_util.tree_map(lambda a, i=i: a[i], swept), one, rtol=1e-5
        )


@pytest.mark.parametrize(
    "learner, xs, ys, dtype",
    [
        (online.perceptron(), "reals", "signs", jnp.float32),
        (online.margin_perceptron(0.1), "reals", "signs", jnp.float32),
        (online.kernel_perceptron(kernels.gaussian(1.0), 8), "reals", "signs", jnp.float32),
        (online.winnow(), "bits", "bits", jnp.int32),
        (online.conjunction(4), "bits", "bits", jnp.int32),
        (online.decision_list(4), "bits", "bits", jnp.int32),
        (experts.consistent(), "bits", "bits", jnp.int32),
        (experts.halving(), "bits", "bits", jnp.int32),
        (experts.weighted_majority(0.5), "bits", "bits", jnp.int32),
    ],
    ids=lambda v: repr(v).split("(")[0] if isinstance(v, tuple) else None,
)
def test_predicted_label_dtype_rule(learner, xs, ys, dtype):
    # README "Predicted labels": signs of scores in the float dtype, labels from a finite set int32.
    X = jax.random.normal(jax.random.PRNGKey(0), (12, 4))
    data = {
        "reals": X,
        "bits": (X > 0).astype(jnp.float32),
        "signs": jnp.where(X[:, 0] > 0, 1.0, -1.0),
    }
    data["bits_y"] = data["bits"][:, 0]
    xs, ys = data[xs], data["bits_y"] if ys == "bits" else data[ys]
    state, trace = core.run(learner, learner.init(xs[0]), xs, ys)
    assert trace.prediction.dtype == dtype
    assert learner.predict(state, xs[0]).dtype == dtype


def test_factory_called_under_jit_with_concrete_data_closed_over():
    # Factories validate numbers on the host, so building a learner inside jit(vmap(...)) works; the
    # class count is read off the concrete labels with NumPy, not staged into the trace.
    from jaxlearn import nn

    X = jax.random.normal(jax.random.PRNGKey(0), (40, 3))
    y = (X[:, 0] > 0).astype(jnp.int32)
    keys = jax.random.split(jax.random.PRNGKey(1), 2)
    fits = jax.jit(jax.vmap(lambda k: nn.mlp_classifier(4, steps=5, batch_size=8).fit(k, X, y)))(
        keys
    )
    assert fits.best_step.shape == (2,)


def _batch_dtype_rows():
    from jaxlearn import multiclass, neighbors, nn, trees

    signs, classes = ("signs", jnp.float32), ("classes", jnp.int32)
    return [
        (linear.soft_svm(0.1, 50), *signs),
        (linear.hard_svm(), *signs),
        (linear.sgd(losses.hinge, steps=50, lam=0.1), *signs),
        (linear.kernel_svm(kernels.gaussian(1.0), 0.1, 50), *signs),
        (linear.kernel_centroid(kernels.linear()), *signs),
        (linear.batch_perceptron(), *signs),
        (linear.augmented_perceptron(0.5), *signs),
        (multiclass.one_vs_all(linear.soft_svm(0.1, 50), num_classes=3), *classes),
        (multiclass.multiclass_svm(0.1, 50, num_classes=3), *classes),
        (multiclass.multiclass_perceptron(num_classes=3), *classes),
        (trees.decision_tree(2), *classes),
        (trees.random_forest(2, 2), *classes),
        (neighbors.knn(3), *classes),
        (nn.mlp_classifier(4, steps=5, batch_size=8), *classes),
    ]


@pytest.mark.parametrize("row", range(14))
def test_predicted_label_dtype_rule_batch(row):
    learner, labels, dtype = _batch_dtype_rows()[row]
    X = jax.random.normal(jax.random.PRNGKey(0), (30, 3))
    classes = (X[:, 0] > 0).astype(jnp.int32) + (X[:, 1] > 1).astype(jnp.int32)
    y = jnp.where(X[:, 0] > 0, 1.0, -1.0) if labels == "signs" else classes
    params = learner.fit(jax.random.PRNGKey(1), X, y)
    assert learner.predict(params, X).dtype == dtype, repr(learner)
