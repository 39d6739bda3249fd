"""``progress=True`` on the long batch fits: a tqdm bar from inside the compiled loop, the same result."""

import chex
import jax
import jax.numpy as jnp
import optax
import pytest

from jaxlearn import datasets, linear, losses, nn, trees

pytest.importorskip("jax_tqdm")

KEY = jax.random.PRNGKey(0)
X, Y, _ = datasets.separable(KEY, 60, 3, margin=0.1)
LABELS = (Y > 0).astype(jnp.int32)


def _fit(make, y):
    return lambda progress: make(progress).fit(KEY, X, y)


CASES = {
    "soft_svm": _fit(lambda p: linear.soft_svm(0.1, 200, progress=p), Y),
    "sgd": _fit(lambda p: linear.sgd(losses.hinge, steps=200, lam=0.1, progress=p), Y),
    "random_forest": _fit(lambda p: trees.random_forest(10, 1, progress=p), LABELS),
    "nn.train": lambda p: nn.train(
        KEY,
        nn.mlp_init(KEY, [3, 4, 2]),
        X,
        LABELS,
        loss="cross_entropy",
        optimizer=optax.sgd(0.1),
        steps=40,
        batch_size=8,
        progress=p,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_progress_bar_is_drawn_and_changes_nothing(name, capfd):
    plain = CASES[name](False)
    assert "100%" not in capfd.readouterr().err
    with_bar = CASES[name](True)
    chex.assert_trees_all_close(with_bar, plain, rtol=1e-6)
    assert "100%" in capfd.readouterr().err, "no progress bar was drawn"
