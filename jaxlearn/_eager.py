"""The eager input layer around every factory-built learner (used by :mod:`jaxlearn._learner`).

On concrete inputs (outside ``jit``/``vmap``) it turns lists into arrays, refuses NaN/inf, applies an
online learner's ``check`` to the one example of an eager ``update`` and a batch learner's ``check``
to the sample of ``fit``, and warns when a result's ``diverged`` flag is set. Under a trace only the
learners' own shape checks run, so nothing here is staged into a compiled program.
"""

from __future__ import annotations

import functools

import jax
import numpy as np

from jaxlearn._checks import as_array, as_labels, check_finite, is_concrete, warn_if_diverged


def _check_finite_if_concrete(*named):
    if is_concrete(*(value for _, value in named)):
        for name, value in named:
            check_finite(name, value)


def _renamed(error: ValueError, names: dict) -> ValueError:
    message = str(error)
    for old, new in names.items():
        message = message.replace(f"`{old}`", f"`{new}`")
    return ValueError(message)


def checked(learner):
    """The learner with jaxlearn's eager input layer around its functions.

    Lists become arrays; on concrete inputs (outside ``jit``/``vmap``) NaN/inf are refused, an online
    ``update`` applies the learner's ``check`` to its one example, a batch ``fit`` applies ``check``
    to the sample; a concrete result whose ``diverged`` flag is set gives a ``RuntimeWarning``.
    Under a trace only the learners' own shape checks run.
    """
    fields = getattr(learner, "_fields", ())
    if "fit" in fields:
        return _checked_batch(learner)
    if "update" not in fields:
        return learner
    init, update, predict, check = learner.init, learner.update, learner.predict, learner.check

    def checked_init(example_x, *args, **kwargs):
        return init(as_array(example_x), *args, **kwargs)

    def checked_update(state, x, y):
        x, y = as_array(x), as_labels(y)
        if is_concrete(x, y):
            _check_finite_if_concrete(("x", x), ("y", y))
            if check is not None:
                one = functools.partial(jax.tree_util.tree_map, lambda a: np.asarray(a)[None])
                try:
                    check(one(x), one(y))
                except ValueError as error:
                    raise _renamed(error, {"xs": "x", "ys": "y"}) from None
        return update(state, x, y)

    def checked_predict(state, x=None):  # x=None: Hedge's allocation takes no instance
        x = as_array(x)
        _check_finite_if_concrete(("x", x))
        return predict(state, x)

    return learner._replace(init=checked_init, update=checked_update, predict=checked_predict)


def _checked_batch(learner):
    fit, predict, decision, check = learner.fit, learner.predict, learner.decision_function, learner.check

    def checked_fit(key, X, y, *args, **kwargs):
        X, y = as_array(X), as_labels(y)
        if check is not None:
            check(X, y, *args, **kwargs)
        params = fit(key, X, y, *args, **kwargs)
        warn_if_diverged(params, "fit", stacklevel=4)  # the caller of the learner's `fit` field
        return params

    def with_finite_X(function):
        def checked(params, X, *args, **kwargs):
            X = as_array(X)
            _check_finite_if_concrete(("X", X))
            return function(params, X, *args, **kwargs)

        return checked

    return learner._replace(
        fit=checked_fit,
        predict=with_finite_X(predict),
        decision_function=None if decision is None else with_finite_X(decision),
    )
