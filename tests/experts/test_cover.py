"""Cover's impossibility (UML section 21.2; SPEC 3.1) and its remedy.

H = {h_0 = 0, h_1 = 1} as two experts. An adversary who sees a deterministic learner's prediction answers
y_t = 1 - p_t: the learner errs every round, while the better constant errs at most T/2 times, so the
regret is at least T/2 (here, exactly T - min(#ones, #zeros)). A randomised learner's adversary sees
only the probability p_t, not the coin: Randomized Weighted Majority's expected regret then stays
within sqrt(2 ln(n) T) (Theorem 21.11).
"""

import jax
import jax.numpy as jnp
import pytest

from jaxlearn import experts, theory

ADVICE = jnp.array([0.0, 1.0])  # h_0 says 0, h_1 says 1, every round
T = 1_000


def _against_the_adversary(learner, state, answer):
    """T rounds where the label is ``answer(p_t)``; the learner's predictions and the labels."""

    def round_(state, _):
        p = learner.predict(state, ADVICE)
        y = answer(p)
        state, _ = learner.update(state, ADVICE, y)
        return state, (p, y)

    _, (p, y) = jax.lax.scan(round_, state, None, length=T)
    return p, y


def _best_constant_loss(y):
    ones = jnp.sum(y)
    return jnp.minimum(ones, T - ones)


@pytest.mark.parametrize("beta", [0.0, 1 / jnp.e, 0.5, 0.9])
def test_a_deterministic_learner_has_regret_at_least_half_the_rounds(beta):
    learner = experts.weighted_majority(beta)
    p, y = _against_the_adversary(learner, learner.init(ADVICE), lambda p: 1 - p)  # int labels
    mistakes = jnp.sum(p != y)
    assert int(mistakes) == T  # wrong every round
    regret = mistakes - _best_constant_loss(y)
    assert float(regret) >= T / 2


def test_randomisation_makes_the_regret_sublinear():
    eta = jnp.sqrt(2 * jnp.log(2.0) / T)
    learner = experts.randomized_weighted_majority(eta)
    state = learner.init(ADVICE, jax.random.PRNGKey(0))
    # the adversary sees p_t = P[predict 1] (not the coin) and picks the label the learner less expects
    p, y = _against_the_adversary(learner, state, lambda p: jnp.where(p < 0.5, 1.0, 0.0))
    expected_mistakes = jnp.sum(jnp.abs(p - y))
    regret = expected_mistakes - _best_constant_loss(y)
    assert float(regret) <= float(theory.rwm_regret_bound(T, 2))  # measured 4.7; the bound is 37.2
    assert float(regret) < T / 20  # far from the deterministic T/2
