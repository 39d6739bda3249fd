"""The Weighted Average algorithm: the entropic identity (float64) and the ln n / 2 ln n bounds."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, experts, losses, metrics, theory


def _kl(u, v):
    return jnp.sum(jax.scipy.special.xlogy(u, u) - jax.scipy.special.xlogy(u, v), axis=-1)


def test_entropic_progress_equals_regret_identity(x64):
    T, n = 300, 5
    X = jax.random.uniform(jax.random.PRNGKey(0), (T, n), minval=0.01, maxval=0.99)
    y = jax.random.bernoulli(jax.random.PRNGKey(1), 0.4, (T,)).astype(X.dtype)
    learner = experts.weighted_average(1.0, "entropic")
    state = learner.init(X[0])
    us = jax.random.dirichlet(jax.random.PRNGKey(2), jnp.ones(n), (10,))
    v1 = jnp.exp(state.log_v)
    final, trace = core.run(learner, state, X, y)
    # per round: L(y, y_hat) - sum_i u_i L(y, x_i) = d(u, v_t) - d(u, v_{t+1}); summed it telescopes
    lhs = trace.loss.sum() - us @ trace.expert_losses.sum(axis=0)
    rhs = _kl(us, v1) - _kl(us, jnp.exp(final.log_v))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)
    s = state
    for t in range(5):  # and round by round
        s_next, info = learner.update(s, X[t], y[t])
        left = info.loss - us @ info.expert_losses
        right = _kl(us, jnp.exp(s.log_v)) - _kl(us, jnp.exp(s_next.log_v))
        np.testing.assert_allclose(left, right, rtol=1e-10, atol=1e-12)
        s = s_next


def _adaptive(learner, X):
    """The outcome is the far end from the prediction: y_t = 1 if y_hat < 1/2 else 0."""

    def body(state, x):
        y = jnp.where(learner.predict(state, x) < 0.5, 1.0, 0.0).astype(x.dtype)
        state, info = learner.update(state, x, y)
        return state, info

    return jax.lax.scan(body, learner.init(X[0]), X)


@pytest.mark.parametrize("loss,eta", [("entropic", 1.0), ("square", 0.5)])
@pytest.mark.parametrize("n", [2, 10, 100])
def test_regret_bounds_random_and_adaptive(loss, eta, n):
    T = 1000
    X = jax.random.uniform(jax.random.PRNGKey(n), (T, n), minval=0.02, maxval=0.98)
    y = jax.random.uniform(jax.random.PRNGKey(n + 1), (T,))  # outcomes in [0, 1]
    learner = experts.weighted_average(eta, loss)
    bound = float(theory.weighted_average_regret_bound(n, loss))
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    assert float(metrics.regret(trace.loss, trace.expert_losses)[-1]) <= bound + 1e-4
    _, adv = _adaptive(learner, X)
    assert float(metrics.regret(adv.loss, adv.expert_losses)[-1]) <= bound + 1e-4


def test_entropic_loss_values_and_infinite_losses():
    assert float(losses.entropic(1.0, 0.5)) == pytest.approx(np.log(2))
    assert float(losses.entropic(0.3, 0.3)) == pytest.approx(0.0, abs=1e-7)
    assert float(losses.entropic(0.0, 0.0)) == 0.0
    assert np.isinf(float(losses.entropic(1.0, 0.0)))
    # an expert saying 0 when the outcome is 1 gets weight 0, and nothing becomes NaN
    learner = experts.weighted_average(1.0)
    state, info = learner.update(learner.init(jnp.zeros(2)), jnp.array([0.0, 0.7]), 1.0)
    np.testing.assert_allclose(jnp.exp(state.log_v), [0.0, 1.0])
    assert np.isfinite(float(info.loss))


def test_bad_inputs():
    learner = experts.weighted_average(1.0)
    X = jnp.full((4, 3), 0.5)
    with pytest.raises(ValueError, match=r"`xs` in \[0, 1\]"):
        core.run(learner, learner.init(X[0]), X * 3, jnp.zeros(4))
    with pytest.raises(ValueError, match=r"`ys` in \[0, 1\]"):
        core.run(learner, learner.init(X[0]), X, jnp.full(4, -1.0))
    with pytest.raises(ValueError, match="`loss` in"):
        experts.weighted_average(1.0, "hinge")
