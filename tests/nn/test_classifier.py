"""``mlp_classifier``: digits against scikit-learn, divergence, bad input (conformance: test_conformance)."""

from __future__ import annotations

import functools
import inspect
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
            model = MLPClassifier(
                (128,),
                solver="adam",
                batch_size=batch,
                max_iter=epochs,
                random_state=seed,
                tol=0,
                n_iter_no_change=epochs,
            )
            sk.append(model.fit(Xtr, ytr).score(Xte, yte))
    steps = (
        epochs * len(Xtr) // batch // 20 * 20
    )  # 780: 20 windows of 39 steps (no shorter last window)
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
    assert all(
        np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree_util.tree_leaves(params.layers)
    )
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
    with pytest.raises(
        ValueError, match=r"expected `y` with labels in 0..2 \(num_classes=3\), found \{-1\}"
    ):
        nn.mlp_classifier(4, steps=10, num_classes=3).fit(jax.random.PRNGKey(0), X, y.at[0].set(-1))


def test_history_has_one_entry_a_window_and_decreases_on_easy_blobs():
    X, y = _blobs(jax.random.PRNGKey(1), 120, jnp.float32)
    learner = nn.mlp_classifier(8, steps=95, num_classes=K, eta=0.02, batch_size=8, eval_every=10)
    params = learner.fit(jax.random.PRNGKey(2), X, y)
    curve, valid = np.asarray(params.loss_curve), np.asarray(params.validation_loss)
    assert curve.shape == valid.shape == (10,)  # ceil(95 / 10) windows, the last one of 5 steps
    assert np.isfinite(curve).all() and np.isfinite(valid).all() and not bool(params.diverged)
    assert curve[-3:].mean() < 0.5 * curve[:3].mean()  # the training loss falls overall
    assert valid[-1] < 0.5 * valid[0]
    # the returned iterate: the smallest validation loss, scored at the end of its window
    ends = np.minimum(10 * np.arange(1, 11), 95)
    assert int(params.best_step) in ends and valid[ends == int(params.best_step)] == valid.min()
    # many seeds: one history a seed; validation_fraction=0 keeps no validation history
    keys = jax.random.split(jax.random.PRNGKey(3), 3)
    many = jax.vmap(learner.fit, (0, None, None))(keys, X, y)
    assert many.loss_curve.shape == many.validation_loss.shape == (3, 10)
    learner = nn.mlp_classifier(8, steps=20, num_classes=K, batch_size=8, validation_fraction=0.0)
    params = learner.fit(jax.random.PRNGKey(2), X, y)
    assert params.validation_loss is None  # no held-out rows
    assert params.loss_curve.shape == (20,)  # eval_every: 20 // 20


def test_history_equals_the_loss_recomputed_from_the_parameters(x64):
    # Every row is the same example with the same label: each minibatch loss and the held-out loss
    # are the loss of that one example, so with eval_every=1 the loss of window e + 1 (at the
    # parameters step e + 2 starts from) is the validation loss recorded after step e + 1.
    x0 = jnp.asarray([0.5, -1.0, 2.0, 0.25])
    X, y = jnp.tile(x0, (20, 1)), jnp.zeros(20, jnp.int32)
    learner = nn.mlp_classifier(
        6,
        steps=12,
        num_classes=2,
        eta=0.01,
        batch_size=4,
        eval_every=1,
        weight_decay=0.0,
        validation_fraction=0.25,
    )
    params = learner.fit(jax.random.PRNGKey(0), X, y)
    curve, valid = np.asarray(params.loss_curve), np.asarray(params.validation_loss)
    assert curve.dtype == np.float64 and curve.shape == valid.shape == (12,)
    np.testing.assert_allclose(curve[1:], valid[:-1], rtol=1e-12)
    assert np.all(np.diff(curve) < 0)  # one example, one label: every step lowers its loss
    # the validation loss of the returned iterate, recomputed from its parameters
    assert int(params.best_step) == 12
    logits = nn.mlp_apply(params.layers, x0)  # the default activation, as mlp_classifier's
    np.testing.assert_allclose(valid[-1], nn.cross_entropy(logits, 0), rtol=1e-12)


def test_history_round_trips_through_io(tmp_path):
    from jaxlearn import io

    X, y = _blobs(jax.random.PRNGKey(4), 40, jnp.float32)
    for fraction in (0.1, 0.0):
        learner = nn.mlp_classifier(
            4, steps=8, num_classes=K, batch_size=8, eval_every=4, validation_fraction=fraction
        )
        params = learner.fit(jax.random.PRNGKey(5), X, y)
        io.save(tmp_path / "mlp.npz", params)
        got = io.load(tmp_path / "mlp.npz")
        assert type(got) is nn.MLPParams and (got.validation_loss is None) == (fraction == 0)
        for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(params)):
            np.testing.assert_array_equal(a, b)


def test_one_default_activation_in_every_function_of_nn():
    # relu, as scikit-learn's MLPClassifier: mlp_apply(params.layers, X) is a default fit's logits
    functions = (
        nn.mlp_classifier,
        nn.mlp_apply,
        nn.train,
        nn.backprop,
        nn.mlp_epoch,
        nn._train.example_loss,
        nn._train.zero_one_error,
    )
    defaults = {f.__name__: inspect.signature(f).parameters["activation"] for f in functions}
    defaults = {name: parameter.default for name, parameter in defaults.items()}
    assert all(d is nn.relu for d in defaults.values()), defaults
    X, y = _blobs(jax.random.PRNGKey(6), 30, jnp.float32)
    learner = nn.mlp_classifier(4, steps=4, num_classes=K, batch_size=8, eval_every=2)
    params = learner.fit(jax.random.PRNGKey(7), X, y)
    logits = learner.decision_function(params, X)
    np.testing.assert_allclose(logits, nn.mlp_apply(params.layers, X), rtol=1e-6, atol=1e-6)
