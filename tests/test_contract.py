"""The factories' contract over every conformance row: ``repr`` names the algorithm and its arguments,
``learner.__doc__`` is the factory's docstring, and renamed arguments keep their old names as aliases."""

from __future__ import annotations

import chex
import jax
import pytest

from jaxlearn import core, datasets, losses, nn, online, structured
from tests.test_conformance import BATCH, ONLINE

ROWS = ONLINE + BATCH
rows = pytest.mark.parametrize("case", ROWS, ids=[row.name for row in ROWS])


@rows
def test_repr_names_the_algorithm(case):
    learner = case.learner()
    name = case.factory.__name__
    assert repr(learner).startswith(f"{name}("), repr(learner)
    for field in learner:  # the functions name it too
        if callable(field) and not isinstance(field, jax.tree_util.Partial):
            assert name in repr(field), (repr(field), name)


@rows
def test_doc_is_the_factorys(case):
    learner = case.learner()
    assert case.factory.__doc__, f"{case.factory.__name__} has no docstring"
    assert learner.__doc__ == case.factory.__doc__


def test_repr_shows_the_arguments():
    assert (
        repr(online.perceptron(eta=0.5))
        == "perceptron(eta=0.5, normalize=False, fit_intercept=False)"
    )
    assert (
        repr(online.perceptron(0.5)) == "perceptron(eta=0.5, normalize=False, fit_intercept=False)"
    )


def _stream():
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(0), 40, 4, 0.1)
    return X, y


def _run(learner):
    X, y = _stream()
    return core.run(learner, learner.init(X[0]), X, y)


@pytest.mark.parametrize(
    "old,new",
    [
        (lambda: online.perceptron(learning_rate=0.5), lambda: online.perceptron(eta=0.5)),
        (
            lambda: online.online_gradient_descent(losses.hinge, learning_rate=0.1),
            lambda: online.online_gradient_descent(losses.hinge, eta=0.1),
        ),
    ],
    ids=["perceptron", "online_gradient_descent"],
)
def test_aliases_give_the_same_learner(old, new):
    a, b = old(), new()
    assert repr(a) == repr(b)
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    chex.assert_trees_all_equal(_run(a), _run(b))


@pytest.mark.parametrize(
    "old,new",
    [
        (
            lambda: structured.structured_svm(0.1, 10, num_labels=4),
            lambda: structured.structured_svm(0.1, 10, num_classes=4),
        ),
        (
            lambda: nn.mlp_classifier(4, steps=10, learning_rate=0.01),
            lambda: nn.mlp_classifier(4, steps=10, eta=0.01),
        ),
    ],
    ids=["structured_svm", "mlp_classifier"],
)
def test_batch_aliases_give_the_same_learner(old, new):
    a, b = old(), new()
    assert repr(a) == repr(b)
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    chex.assert_trees_all_equal(a, b)


@pytest.mark.parametrize(
    "build",
    [
        lambda: online.perceptron(eta=0.5, learning_rate=0.5),
        lambda: online.online_gradient_descent(losses.hinge, eta=0.1, learning_rate=0.1),
        lambda: structured.structured_svm(0.1, 10, num_classes=4, num_labels=4),
        lambda: nn.mlp_classifier(4, steps=10, eta=0.01, learning_rate=0.01),
    ],
    ids=["perceptron", "online_gradient_descent", "structured_svm", "mlp_classifier"],
)
def test_a_name_and_its_alias_is_a_type_error(build):
    with pytest.raises(TypeError, match="alias"):
        build()
