"""``core.pipeline``, ``online.standardize`` and ``fit_intercept`` of the online linear learners."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, losses, online

X, Y, _ = datasets.separable(jax.random.PRNGKey(3), 240, 5, margin=0.05)
SHIFTED = 4.0 * X + jnp.arange(5.0)  # off-centre, unscaled: what a bias and standardising are for


def _run(learner, X, y, **kwargs):
    return core.run(learner, learner.init(X[0]), X, y, **kwargs)


# --- fit_intercept -------------------------------------------------------------------------------


def _augmented(X):
    return jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)


@pytest.mark.parametrize("normalize", [False, True])
def test_perceptron_bias_is_a_weight_on_a_constant_feature(normalize):
    state, trace = _run(online.perceptron(0.5, normalize=normalize, fit_intercept=True), SHIFTED, Y)
    plain, plain_trace = _run(online.perceptron(0.5, normalize=normalize), _augmented(SHIFTED), Y)
    # the same updates; x.w + b and [x, 1].[w, b] are summed in different orders (equal bits on the
    # CPU, 1 ulp apart on a GPU), so the weights agree to a few ulps and the mistakes exactly
    np.testing.assert_allclose(np.append(state.w, state.b), plain.w, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(trace.mistake, plain_trace.mistake)
    assert float(state.b) != 0.0


@pytest.mark.parametrize(
    "factory",
    [
        lambda: online.perceptron(fit_intercept=True),
        lambda: online.margin_perceptron(0.1, fit_intercept=True),
    ],
)
def test_block_rule_with_a_bias_equals_the_scan(factory):
    learner = factory()
    blocked, blocked_trace = _run(learner, SHIFTED, Y, block_size=16)
    scanned, scanned_trace = _run(learner, SHIFTED, Y, block_size=0)
    chex.assert_trees_all_close(blocked, scanned, rtol=1e-6)
    np.testing.assert_array_equal(blocked_trace.prediction, scanned_trace.prediction)


def test_the_default_has_no_bias_and_is_unchanged():
    state, _ = _run(online.perceptron(), SHIFTED, Y)
    assert float(state.b) == 0.0
    ogd, _ = _run(online.online_gradient_descent(losses.hinge, 0.1), SHIFTED, Y)
    assert float(ogd.b) == 0.0


def test_bias_lifts_the_perceptron_on_data_off_the_origin():
    kept = X[jnp.abs(X[:, 0]) > 0.3]
    y = jnp.where(kept[:, 0] > 0, 1.0, -1.0)
    X_far = kept.at[:, 0].add(2.0)  # separable by the plane x_0 = 2, not by a plane through 0
    passes = lambda learner: _run(learner, jnp.tile(X_far, (6, 1)), jnp.tile(y, 6))[
        1
    ].mistake.reshape(6, -1)
    with_bias, without = passes(online.perceptron(fit_intercept=True)), passes(online.perceptron())
    assert int(with_bias[-1].sum()) == 0 and int(without[-1].sum()) > 5
    # Novikoff on (x, 1): R^2 = max ||x||^2 + 1, margin of (1, 0, .., -2) / sqrt(5) at least 0.3 / sqrt(5)
    radius2 = float(jnp.max(jnp.sum(X_far**2, axis=1))) + 1.0
    assert int(with_bias.sum()) <= radius2 / (0.3**2 / 5)


def test_ogd_bias_is_unregularised_and_unprojected():
    ball = online.l2_ball(0.5)
    learner = online.online_gradient_descent(losses.hinge, 0.1, projection=ball, fit_intercept=True)
    state, trace = _run(learner, SHIFTED, Y)
    assert float(jnp.linalg.norm(state.w)) <= 0.5 + 1e-6
    # without a projection the bias is the last weight of OGD on (x, 1)
    state, trace = _run(
        online.online_gradient_descent(losses.logistic, 0.1, fit_intercept=True), SHIFTED, Y
    )
    plain, plain_trace = _run(
        online.online_gradient_descent(losses.logistic, 0.1), _augmented(SHIFTED), Y
    )
    np.testing.assert_allclose(np.append(state.w, state.b), plain.w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(trace.prediction, plain_trace.prediction, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(trace.grad_norm, plain_trace.grad_norm, rtol=1e-5, atol=1e-6)


# --- standardize ---------------------------------------------------------------------------------


def test_standardize_uses_the_statistics_of_the_past_only():
    scaler = online.standardize()
    Xn = np.asarray(SHIFTED[:20], np.float64)
    state = scaler.init(SHIFTED[0])
    for t in range(1, 20):  # a test's loop: the reference statistics of each prefix
        state = scaler.observe(state, SHIFTED[t - 1])
        mean, std = Xn[:t].mean(0), Xn[:t].std(0)
        want = np.where(std > 0, (Xn[t] - mean) / np.where(std > 0, std, 1), 0.0)
        np.testing.assert_allclose(scaler.apply(state, SHIFTED[t]), want, rtol=1e-4, atol=1e-5)


# --- pipeline ------------------------------------------------------------------------------------

PIPE = core.pipeline(online.standardize(), online.perceptron(fit_intercept=True))


def test_no_look_ahead_prefix_predictions_ignore_the_future():
    _, whole = _run(PIPE, SHIFTED, Y)
    future = SHIFTED.at[120:].set(1e3 * jax.random.normal(jax.random.PRNGKey(1), (120, 5)))
    _, changed = _run(PIPE, future, Y)
    np.testing.assert_array_equal(whole.prediction[:120], changed.prediction[:120])


def test_chunked_runs_equal_one_run_and_vmap_over_eta():
    state, trace = _run(PIPE, SHIFTED, Y)
    half, first = core.run(PIPE, PIPE.init(SHIFTED[0]), SHIFTED[:100], Y[:100])
    rest, second = core.run(PIPE, half, SHIFTED[100:], Y[100:])
    chex.assert_trees_all_equal(state, rest)
    np.testing.assert_array_equal(
        trace.prediction, np.concatenate([first.prediction, second.prediction])
    )
    etas = jnp.array([0.5, 1.0, 2.0])
    piped = lambda e: core.pipeline(online.standardize(), online.perceptron(e, fit_intercept=True))
    swept = jax.vmap(lambda e: _run(piped(e), SHIFTED, Y)[1].prediction)(etas)
    np.testing.assert_array_equal(swept[1], trace.prediction)


def test_a_pipeline_of_no_transform_is_the_learner():
    learner = online.perceptron(0.5, fit_intercept=True)
    state, trace = _run(core.pipeline(learner), SHIFTED, Y)
    plain, plain_trace = _run(learner, SHIFTED, Y, block_size=0)
    chex.assert_trees_all_equal(state.learner, plain)
    chex.assert_trees_all_equal(trace, plain_trace)


def test_pipeline_is_a_pytree_of_its_steps_hyperparameters():
    leaves = jax.tree_util.tree_leaves(core.pipeline(online.standardize(), online.perceptron(0.25)))
    assert [float(v) for v in leaves] == [0.25]
    assert "standardize()" in repr(PIPE) and "fit_intercept=True" in repr(PIPE)


def test_river_standard_scaler_and_perceptron_round_for_round():
    river_datasets = pytest.importorskip("river.datasets")
    from river import linear_model, preprocessing

    stream = river_datasets.Phishing()
    model = preprocessing.StandardScaler() | linear_model.Perceptron()
    theirs = []
    for x, target in stream:  # river's own prequential loop
        theirs.append(model.predict_one(x))
        model.learn_one(x, target)
    X_river, y_river, classes = datasets.from_river(stream)
    _, trace = _run(PIPE, X_river, 2 * y_river - 1)
    ours = classes[(np.asarray(trace.prediction) > 0).astype(int)]
    mismatch = np.flatnonzero(ours != np.asarray(theirs, dtype=classes.dtype))
    assert mismatch.size <= 2, (
        f"{mismatch.size} of {len(theirs)} predictions differ from river's: {mismatch}"
    )
    accuracy = float(np.mean(ours == classes[y_river]))
    assert accuracy >= 0.855  # river: 0.8584 (the Perceptron alone, without a bias: 0.78)
