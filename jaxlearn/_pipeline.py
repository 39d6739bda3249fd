"""Online preprocessing in front of an online learner (re-exported by :mod:`jaxlearn.core`).

A :class:`Transform` is an online preprocessing step with its own state, in the spirit of an optax
``GradientTransformation``: ``init`` shapes the state from one example, ``apply`` maps an instance
with the current state, ``observe`` folds an instance into the state. :func:`pipeline` chains
transforms in front of a learner, ``optax.chain`` style. Each round the learner predicts on the
instance mapped with the statistics of the past rounds only; then the transforms observe it, and the
learner learns on it mapped with the updated statistics (river's order). So a prequential run has no
look-ahead.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax

from jaxlearn._learner import Learner, learner_factory, register_kind
from jaxlearn._registry import loadable

Array = jax.Array


@register_kind
class Transform(NamedTuple):
    """An online preprocessing step: pure functions over its own state.

    Attributes:
      init: ``init(example_x) -> state``; shapes and dtypes come from one example.
      apply: ``apply(state, x) -> x'``; the instance mapped with the statistics seen so far.
      observe: ``observe(state, x) -> state``; the statistics updated with one (raw) instance.
    """

    init: Callable[[Any], Any]
    apply: Callable[[Any, Any], Any]
    observe: Callable[[Any, Any], Any]


@loadable
class PipelineState(NamedTuple):
    """``transforms``: the state of each transform, in order; ``learner``: the learner's state."""

    transforms: tuple
    learner: Any


def _forward(transforms: tuple, states: tuple, x):
    """``x`` through every transform; returns the mapped instance and each transform's input."""
    inputs = []
    for transform, state in zip(transforms, states):  # a loop over the (few) steps, not over data
        inputs.append(x)
        x = transform.apply(state, x)
    return x, tuple(inputs)


@learner_factory("transforms", "learner", learners=("transforms", "learner"))
def _pipeline(transforms: tuple, learner: Learner) -> Learner:
    def init(example_x, key=None):
        states, x = [], example_x
        for transform in transforms:
            states.append(transform.init(x))
            x = transform.apply(states[-1], x)
        inner = learner.init(x) if key is None else learner.init(x, key)
        return PipelineState(tuple(states), inner)

    def update(state, x, y):
        mapped, inputs = _forward(transforms, state.transforms, x)
        prediction = learner.predict(state.learner, mapped)  # the past's statistics only
        observed = tuple(t.observe(s, u) for t, s, u in zip(transforms, state.transforms, inputs))
        inner, info = learner.update(state.learner, _forward(transforms, observed, x)[0], y)
        return PipelineState(observed, inner), info._replace(prediction=prediction)

    def predict(state, x):
        return learner.predict(state.learner, _forward(transforms, state.transforms, x)[0])

    return Learner(init, update, predict, learner.check)


_pipeline.__name__ = "pipeline"  # its repr reads pipeline(transforms=..., learner=...)


def pipeline(*steps) -> Learner:
    """Chain online preprocessing steps in front of an online learner.

    .. math:: \\hat y_t = h_t(T_t(x_t)), \\quad T_{t+1} = \\mathrm{observe}(T_t, x_t), \\quad
              h_{t+1} = \\mathrm{update}(h_t, T_{t+1}(x_t), y_t).

    The prediction maps ``x_t`` with statistics of ``x_1..x_{t-1}`` only, so :func:`run` plays a
    stream with no look-ahead; after it, the transforms observe ``x_t`` and the learner learns on
    ``x_t`` mapped with the updated statistics, the order of river's pipelines (so
    ``pipeline(online.standardize(), online.perceptron(fit_intercept=True))`` plays river's
    ``StandardScaler() | Perceptron()`` round for round). ``Info`` is the learner's ``Info`` of its
    learning step, with ``Info.prediction`` the learner's prequential prediction :math:`\\hat y_t`.
    The pipeline is a learner pytree (the steps' hyperparameters are its leaves) and vmaps like any
    other. It has no block rule: the map changes every round.

    Args:
      *steps: zero or more :class:`Transform` values (``online.standardize()``), then the learner.

    Returns:
      A :class:`Learner` whose state is a :class:`PipelineState`.

    Examples:
      >>> import jax
      >>> from jaxlearn import core, datasets, online
      >>> X, y, _ = datasets.separable(jax.random.PRNGKey(0), 300, 4, margin=0.1)
      >>> learner = core.pipeline(online.standardize(), online.perceptron(fit_intercept=True))
      >>> state, trace = core.run(learner, learner.init(X[0]), 10 * X + 3, y)
      >>> trace.prediction.shape
      (300,)
    """
    if not steps:
        raise TypeError("pipeline() expected at least a learner, got no arguments")
    *transforms, learner = steps
    if not isinstance(learner, Learner):
        kind = type(learner).__name__
        raise TypeError(f"expected the last argument of `pipeline` a core.Learner, got {kind}")
    for i, transform in enumerate(transforms):
        if not isinstance(transform, Transform):
            raise TypeError(
                f"expected argument {i} of `pipeline` a core.Transform (such as online.standardize()), "
                f"got {type(transform).__name__}"
            )
    return _pipeline(tuple(transforms), learner)
