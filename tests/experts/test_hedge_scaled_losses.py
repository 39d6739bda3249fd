"""Hedge with losses in [0, B] (COMP0078 Hedge question; SPEC: rescale to [0, 1], the regret scales by B).

``experts.hedge`` takes losses in [0, 1] and refuses others; losses in [0, B] are played as l / B. That is
exactly exponential weights with rate eta / B on the raw losses, and the regret in the raw units is B times
the regret on l / B: at most B sqrt(2 T ln n) at the tuned eta.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, experts, theory

B, N, T = 5.0, 8, 2_000


def streams():
    rng = np.random.default_rng(0)
    uniform = rng.uniform(0, B, (T, N))
    one_good = rng.choice(
        [0.0, B], size=(T, N)
    )  # all experts lose 0 or B at random, one a bit less often
    one_good[:, 3] = np.where(rng.uniform(size=T) < 0.45, B, 0.0)
    switching = np.zeros(
        (T, N)
    )  # the leader changes every 100 rounds: near the worst case of the bound
    for block in range(T // 100):
        switching[block * 100 : (block + 1) * 100] = B
        switching[block * 100 : (block + 1) * 100, block % N] = 0.0
    return {"uniform": uniform, "one good expert": one_good, "switching leader": switching}


@pytest.mark.parametrize("name", list(streams()))
def test_rescaled_losses_keep_regret_within_B_times_the_bound(name, x64):
    raw = streams()[name]
    eta = np.sqrt(2 * np.log(N) / T)  # tuned for losses in [0, 1]
    learner = experts.hedge(eta)
    _, trace = core.run(learner, learner.init(jnp.zeros(N)), None, jnp.asarray(raw / B))
    v = np.asarray(trace.prediction)
    # The same allocations as exponential weights at rate eta / B on the raw losses (float64, NumPy).
    cumulative = np.vstack([np.zeros(N), np.cumsum(raw, axis=0)[:-1]])
    z = -(eta / B) * cumulative
    expected = np.exp(z - z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        v, expected / expected.sum(axis=1, keepdims=True), rtol=1e-10, atol=1e-13
    )
    regret = float(np.sum(v * raw) - raw.sum(axis=0).min())  # in the raw units
    bound = B * float(theory.hedge_regret_bound(T, N))
    assert regret <= bound, (regret, bound)
    if name == "switching leader":
        assert regret >= 0.1 * bound  # the construction makes the bound matter


def test_raw_losses_beyond_one_are_refused_with_the_range():
    learner = experts.hedge(0.1)
    raw = jnp.asarray(streams()["uniform"][:10])
    with pytest.raises(
        ValueError, match=r"expected `ys` in \[0, 1\], found values in \[0.\d+, 4.\d+\]"
    ):
        core.run(learner, learner.init(jnp.zeros(N)), None, raw)
    jax.block_until_ready(core.run(learner, learner.init(jnp.zeros(N)), None, raw / B))
