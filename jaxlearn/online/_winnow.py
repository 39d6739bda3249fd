"""Winnow: Littlestone's multiplicative-update learner for {0,1}^n (Littlestone 1988)."""

from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import above, check_boolean_values, check_ndim, check_width
from jaxlearn._shared import check_scalar_label, float_dtype, on_device, zero_counter, zeros
from jaxlearn.core import POSITIVE, Learner, learner_factory, loadable

Array = jax.Array


@loadable
class WinnowState(NamedTuple):
    """``log_w``: the log of the weights (weights live in log space); ``step``: rounds played."""

    log_w: Array
    step: Array


@loadable
class WinnowInfo(NamedTuple):
    """``prediction`` in {0, 1} made before the update; ``loss`` its 0-1 loss; ``mistake`` the flag."""

    prediction: Array
    loss: Array
    mistake: Array


def _check_boolean_stream(xs, ys):
    check_ndim("xs", xs, 2, "(n, d)")
    check_boolean_values(xs, ys, "Winnow")


@learner_factory("eta", "threshold", ranges={"eta": above(1.0), "threshold": POSITIVE})
def winnow(eta: ArrayLike = 2.0, threshold: Optional[ArrayLike] = None) -> Learner:
    r"""Winnow2, the multiplicative Perceptron: :math:`O(k \log n)` mistakes on k-of-n disjunctions.

    .. math:: \hat y_t = 1[\langle w_t, x_t\rangle \ge \theta], \qquad
        w_{t+1,i} = w_{t,i}\, \eta^{x_{t,i} (y_t - \hat y_t)}, \qquad w_1 = \mathbf 1.

    On a monotone disjunction, with :math:`\theta = n`, :math:`\eta = 2`: at most :math:`2 + 3k(1 + \log_2 n)`
    mistakes (:func:`jaxlearn.theory.winnow_mistake_bound`). The weights are kept as logs (no overflow).

    Args:
      eta: the promotion/demotion factor :math:`\eta > 1` (traced).
      threshold: :math:`\theta > 0` (traced); ``None`` means the number of variables ``n``.

    Returns:
      A :class:`~jaxlearn.core.Learner` over {0,1}^n, labels in {0, 1}; ``Info`` is :class:`WinnowInfo`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, online, theory
      >>> X, y, _ = datasets.disjunction(jax.random.PRNGKey(0), 500, 100, k=3)
      >>> learner = online.winnow()
      >>> state, trace = core.run(learner, learner.init(X[0]), X, y)
      >>> bool(trace.mistake.sum() <= theory.winnow_mistake_bound(3, 100))
      True

    References:
      Littlestone, "Learning quickly when irrelevant attributes abound" (Machine Learning, 1988).
    """

    def init(example_x, key=None):
        x = on_device(example_x)
        check_ndim("example_x", x, 1, "(n,)")
        return WinnowState(log_w=zeros(x.shape, float_dtype(x), like=x), step=zero_counter())

    def log_threshold(state):
        n = state.log_w.shape[0]
        theta = n if threshold is None else threshold
        return jnp.log(jnp.asarray(theta).astype(state.log_w.dtype))

    def active(state, x):  # the variables set in x (bool/int x compared as floats)
        check_width("x", x, state.log_w.shape[0])
        return jnp.asarray(x).astype(state.log_w.dtype) > 0

    # <w, x> >= theta is tested as logsumexp_{i: x_i = 1} log w_i >= log theta: no under/overflow.
    def log_score(state, x):
        return jax.nn.logsumexp(jnp.where(active(state, x), state.log_w, -jnp.inf))

    def predict(state, x):
        return (log_score(state, x) >= log_threshold(state)).astype(jnp.int32)

    def update(state, x, y):
        check_scalar_label(y)
        y_hat = predict(state, x)
        y = jnp.asarray(y).astype(jnp.int32)
        direction = (y - y_hat).astype(state.log_w.dtype)  # +1 promote, -1 demote, 0 correct
        log_eta = jnp.log(jnp.asarray(eta).astype(state.log_w.dtype))
        log_w = state.log_w + direction * log_eta * active(state, x).astype(state.log_w.dtype)
        mistake = y_hat != y
        info = WinnowInfo(prediction=y_hat, loss=mistake.astype(state.log_w.dtype), mistake=mistake)
        return WinnowState(log_w, state.step + 1), info

    return Learner(init, update, predict, _check_boolean_stream)
