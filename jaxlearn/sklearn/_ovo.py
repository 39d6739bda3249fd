"""scikit-learn's one-vs-one decision function, shared by ``OneVsOneClassifier`` and ``SVC``."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlearn import core, multiclass


def ovo_scores(learner, params, X):
    r"""scikit-learn's one-vs-one decision function of the pairs' binary ``learner``, shape (n, K).

    Pair :math:`(i, j)`, :math:`i < j`, votes for :math:`i` where its binary ``predict`` is :math:`+1`
    (a score of exactly 0 included, as scikit-learn's ``score > 0`` votes for :math:`j`), for
    :math:`j` where it is :math:`-1`; its score :math:`s_{ij}` (positive: :math:`i`) adds to the
    confidence of :math:`i` and subtracts from :math:`j`'s. Class :math:`c` scores its votes plus
    :math:`S_c / (3(|S_c| + 1))`, the confidence sum squashed into :math:`(-1/3, 1/3)`.
    """
    options = core.hyperparameters(learner)
    binary, k = options["binary"], options["num_classes"]
    first, second = multiclass.pairs(k)
    to_first = jax.nn.one_hot(first, k, dtype=X.dtype)  # (pairs, K)
    to_second = jax.nn.one_hot(second, k, dtype=X.dtype)
    predicted = jax.vmap(binary.predict, (0, None), 1)(params, X)  # (n, pairs) in {-1, +1}
    votes = (predicted > 0).astype(X.dtype) @ to_first + (predicted < 0).astype(X.dtype) @ to_second
    if binary.decision_function is None:
        return votes
    score = jax.vmap(binary.decision_function, (0, None), 1)(params, X).astype(X.dtype)
    confidence = score @ (to_first - to_second)
    return votes + confidence / (3 * (jnp.abs(confidence) + 1))
