"""The agnostic online learner of UML Theorem 21.10: weighted majority over SOA-simulating experts."""

from __future__ import annotations

import math
from itertools import combinations
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_ndim
from jaxlearn._shared import zero_counter
from jaxlearn.core import POSITIVE, POSITIVE_INT, Learner, learner_factory, loadable
from jaxlearn.experts._soa import (
    LABELS,
    MAX_VERSION_SPACES,
    check_class,
    check_point_indices,
    check_points,
    version_space_table,
)
from jaxlearn.experts._weighted_majority import (
    RandomizedWeightedMajorityState,
    randomized_weighted_majority,
)

Array = jax.Array

#: The most experts :func:`agnostic_experts` builds (their number is exponential in Ldim(H)).
MAX_EXPERTS = 1 << 16


@loadable
class AgnosticState(NamedTuple):
    """``experts``: (d,) int32 version-space ids, :math:`V_t` of each expert; ``rwm``: the randomized
    weighted majority state over the experts; ``step``: rounds played (0-based round of the next
    ``x``)."""

    experts: Array
    rwm: RandomizedWeightedMajorityState
    step: Array


@loadable
class AgnosticInfo(NamedTuple):
    r"""``prediction``: the advice of the expert drawn by weighted majority; ``loss``: its 0-1 loss;
    ``expected_loss``: :math:`|p_t - y_t| = \langle w^{(t)}, v_t\rangle`; ``probability``:
    :math:`p_t`, the probability of predicting 1; ``advice``: (d,) int32, every expert's prediction
    (drop it with ``run(..., trace_fn=...)`` when ``d`` is large)."""

    prediction: Array
    loss: Array
    expected_loss: Array
    probability: Array
    advice: Array


def expert_index_sets(horizon: int, ldim: int) -> np.ndarray:
    r"""Every index set :math:`\{i_1 < \dots < i_L\} \subseteq \{0, \dots, T-1\}` with :math:`L \le`
    ``ldim`` (0-based rounds), one row each, padded with -1: shape
    :math:`(\sum_{L=0}^{\mathrm{ldim}} \binom{T}{L}, \mathrm{ldim})` (UML equation 21.4). Rows are
    ordered by :math:`L`, then lexicographically; row 0 (:math:`L = 0`) is SOA itself."""
    rows = [
        c + (-1,) * (ldim - len(c))
        for L in range(ldim + 1)
        for c in combinations(range(horizon), L)
    ]
    return np.asarray(rows, np.int32).reshape(len(rows), ldim)


@learner_factory(
    "eta",
    ranges={
        "H": LABELS,
        "horizon": POSITIVE_INT,
        "eta": POSITIVE,
        "max_version_spaces": POSITIVE_INT,
        "max_experts": POSITIVE_INT,
    },
    load_caps={"max_version_spaces": MAX_VERSION_SPACES, "max_experts": MAX_EXPERTS},
)
def agnostic_experts(
    H: ArrayLike,
    horizon: int,
    eta: Optional[ArrayLike] = None,
    *,
    max_version_spaces: int = MAX_VERSION_SPACES,
    max_experts: int = MAX_EXPERTS,
) -> Learner:
    r"""Agnostic online learning: randomized weighted majority over experts that simulate SOA (UML Thm 21.10).

    .. math:: \hat y_t = \arg\max_r \mathrm{Ldim}(V_t^{(r)}) \oplus 1[t \in \{i_1..i_L\}], \qquad
        V_{t+1} = V_t^{(\hat y_t)}, \quad V_1 = H, \quad L \le \mathrm{Ldim}(H), \quad d = \sum_L \binom{T}{L}

    predicted by :math:`\mathrm{Expert}(i_1 < \dots < i_L)`; an expert mimics each :math:`h \in H`, so
    for :math:`T > 2\ln d` the expected regret is at most :math:`\sqrt{2\, \mathrm{Ldim}(H) \ln(eT)\, T}`
    (:func:`jaxlearn.theory.agnostic_regret_bound`). Ties predict 1; rounds after ``horizon`` get no flips.

    Args:
      H, horizon: {0, 1} labels ``(num_hypotheses, num_points)`` (``x``: a point index); :math:`T` (static).
      eta: the weighted-majority rate (traced); ``None`` for :math:`\sqrt{2 \ln(d) / T}`.
      max_version_spaces, max_experts: limits of the Ldim table (see :func:`soa`) and the number of experts.

    Returns:
      A :class:`~jaxlearn.core.Learner`; ``init(x, key)`` needs a key; ``Info`` is :class:`AgnosticInfo`.

    Examples:
      >>> import jax, jax.numpy as jnp, numpy as np
      >>> from jaxlearn import core, experts, theory
      >>> learner = experts.agnostic_experts(np.eye(4, dtype=int), horizon=10)  # Ldim 1: 1 + 10 experts
      >>> xs, ys = jnp.arange(10) % 4, (jnp.arange(10) % 4 == 2).astype(jnp.int32)  # h_2 makes no mistake
      >>> _, trace = core.run(learner, learner.init(xs[0], jax.random.PRNGKey(0)), xs, ys)
      >>> trace.advice.shape, bool(trace.expected_loss.sum() <= theory.rwm_regret_bound(10, 11))
      ((10, 11), True)

    References:
      UML section 21.2.1, Theorem 21.10, Lemma 21.13, Corollary 21.14.
    """
    H = check_class(H)
    table = version_space_table(H, max_version_spaces)
    ldim = int(table.ldim[table.root])
    horizon = int(horizon)
    num_experts = sum(math.comb(horizon, L) for L in range(ldim + 1))
    if num_experts > max_experts:
        raise ValueError(
            f"expected at most {max_experts} experts, got {num_experts} (Ldim(H) = {ldim}, "
            f"horizon {horizon}); shorten `horizon` or raise `max_experts`"
        )
    indices = jnp.asarray(expert_index_sets(horizon, ldim))
    next_id, ldims = jnp.asarray(table.next_id), jnp.asarray(table.ldim)
    rate = math.sqrt(2 * math.log(num_experts) / horizon) if eta is None else eta
    rwm = randomized_weighted_majority(rate)

    def init(example_x, key=None):
        check_ndim("example_x", example_x, 0, "() (a point index)")
        if key is None:
            raise ValueError("agnostic_experts needs a `key` at init: init(x, key)")
        return AgnosticState(
            experts=jnp.full(num_experts, table.root, jnp.int32),
            rwm=rwm.init(jnp.zeros(num_experts, jnp.result_type(float)), key),
            step=zero_counter(),
        )

    def advice(state, x):
        """Every expert's prediction on point ``x``: SOA's on its own version space, flipped at its rounds."""
        check_ndim("x", x, 0, "() (a point index)")
        check_point_indices("x", x, H.shape[1])
        sides = ldims[next_id[state.experts, jnp.asarray(x).astype(jnp.int32)]]  # (d, 2)
        soa_says = (sides[:, 1] >= sides[:, 0]).astype(jnp.int32)
        flip = jnp.any(indices == state.step, axis=1)
        return jnp.where(flip, 1 - soa_says, soa_says)

    def predict(state, x):
        """The probability :math:`p_t` of predicting 1 on ``x``."""
        return rwm.predict(state.rwm, advice(state, x))

    def update(state, x, y):
        says = advice(state, x)
        rwm_state, rwm_info = rwm.update(state.rwm, says, y)
        experts = next_id[state.experts, jnp.asarray(x).astype(jnp.int32), says]
        info = AgnosticInfo(
            prediction=rwm_info.prediction,
            loss=rwm_info.loss,
            expected_loss=rwm_info.expected_loss,
            probability=rwm_info.probability,
            advice=says,
        )
        return AgnosticState(experts, rwm_state, state.step + 1), info

    return Learner(init, update, predict, check_points(H.shape[1]))
