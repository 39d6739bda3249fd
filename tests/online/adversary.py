"""An adaptive adversary for mistake-bound tests.

Each round it shows the pool example that is worst for the learner's current state (the largest
``violation(state, X, y)``), so the learner is pushed to its mistake bound while the stream stays
consistent with the pool's labelling (realizable if the pool is).
"""

import jax
import jax.numpy as jnp


def adversarial_run(learner, state, pool_X, pool_y, rounds, violation):
    def body(state, _):
        i = jnp.argmax(violation(state, pool_X, pool_y))
        return learner.update(state, pool_X[i], pool_y[i])

    return jax.jit(lambda s: jax.lax.scan(body, s, None, length=rounds))(state)


def smallest_margin(state, X, y):
    """Linear learners: the example with the smallest (most negative) margin ``y <w, x> / ||x||``."""
    return -y * (X @ state.w) / jnp.linalg.norm(X, axis=1)
