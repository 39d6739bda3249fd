"""``mlp_classifier``: digits against scikit-learn, divergence, bad input (conformance: test_conformance)."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets, nn

K = 3


@functools.partial(jax.jit, static_argnums=(1, 2))
def _blobs(key, n, dtype):
    """Three Gaussian blobs in 4-D, labels 0..2."""
    key_y, key_x = jax.random.split(key)
    y = jax.random.randint(key_y, (n,), 0, K)
    centers = 4.0 * jnp.eye(K, 4, dtype=dtype)
    return centers[y] + jax.random.normal(key_x, (n, 4), dtype), y


def test_digits_accuracy_within_one_point_of_sklearn():
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier

    X, y = datasets.load_digits()
    X = X / 16
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    epochs, batch = 20, 32
    sk = []
    for seed in range(2):  # the same architecture, optimiser, batch size and number of epochs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning: the epoch budget is the point
            model = MLPClassifier((128,), solver="adam", batch_size=batch, max_iter=epochs, random_state=seed,
                                  tol=0, n_iter_no_change=epochs)  # fmt: skip
            sk.append(model.fit(Xtr, ytr).score(Xte, yte))
    steps = epochs * len(Xtr) // batch // 20 * 20  # 780: 20 windows of 39 steps (no shorter last window)
    learner = nn.mlp_classifier(128, steps=steps, batch_size=batch)
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    params = jax.vmap(learner.fit, (0, None, None))(keys, Xtr, ytr)
    ours = jax.vmap(lambda p: jnp.mean(learner.predict(p, Xte) == yte))(params)
    assert not np.asarray(params.diverged).any()
    assert float(ours.mean()) >= np.mean(sk) - 0.01, (np.asarray(ours), sk)
    assert float(ours.mean()) > 0.95


def test_diverging_learning_rate_is_flagged():
    X, y = _blobs(jax.random.PRNGKey(0), 40, jnp.float32)
    learner = nn.mlp_classifier(8, steps=60, num_classes=K, eta=1e30, batch_size=8, eval_every=20)
    params = learner.fit(jax.random.PRNGKey(0), X, y)
    assert bool(params.diverged)
    # the network stays finite; loss_curve records the non-finite window losses that froze it
    assert all(np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree_util.tree_leaves(params.layers))
    assert not np.isfinite(np.asarray(params.loss_curve)).all()


def test_factory_and_fit_errors():
    X, y = _blobs(jax.random.PRNGKey(0), 20, jnp.float32)
    for kwargs, match in (
        (dict(optimizer="rmsprop"), "`optimizer` in"),
        (dict(learning_rate=0.0), r"`eta` a number in \(0, inf\)"),
        (dict(eta=-1.0), r"`eta` a number in \(0, inf\)"),
        (dict(validation_fraction=1.0), r"`validation_fraction` a number in \[0, 1\)"),
        (dict(weight_decay=-1.0), r"`weight_decay` a number in \[0, inf\)"),
        (dict(batch_size=0), r"`batch_size` an integer in \[1, inf\)"),
        (dict(num_classes=1), r"`num_classes` an integer in \[2, inf\)"),
    ):
        with pytest.raises(ValueError, match=match):
            nn.mlp_classifier(4, steps=10, **kwargs)
    with pytest.raises(ValueError, match=r"`hidden` an integer in \[1, inf\)"):
        nn.mlp_classifier((4, 0), steps=10)
    learner = nn.mlp_classifier(4, steps=10)
    with pytest.raises(ValueError, match="cannot infer the number of classes from a traced `y`"):
        jax.jit(learner.fit)(jax.random.PRNGKey(0), X, y)
    with pytest.raises(ValueError, match="expected `X` to be finite"):
        learner.fit(jax.random.PRNGKey(0), X.at[1, 1].set(jnp.nan), y)
    with pytest.raises(ValueError, match=r"expected `y` with labels in 0..2 \(num_classes=3\), found \{-1\}"):
        nn.mlp_classifier(4, steps=10, num_classes=3).fit(jax.random.PRNGKey(0), X, y.at[0].set(-1))
