"""The elimination algorithm for conjunctions of literals over {0,1}^n (Balcan section 2.1)."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn._checks import check_boolean_values, check_ndim
from jaxlearn._shared import check_scalar_label, float_dtype, zero_counter
from jaxlearn.core import POSITIVE_INT, Learner, learner_factory, loadable

Array = jax.Array


#: The most variables ``n`` a file may give :func:`conjunction` or :func:`decision_list` (``io.load``).
MAX_FEATURES = 1 << 20


@loadable
class ConjunctionState(NamedTuple):
    """``literals``: int32 0/1 mask of shape ``(2n,)`` over the literals of :math:`h`, entry ``i`` for
    :math:`x_{i+1}` and entry ``n + i`` for :math:`\\bar x_{i+1}` (int32 rather than bool, as every
    state leaf of the library is a float or an int32); ``step``: rounds played."""

    literals: Array
    step: Array


@loadable
class ConjunctionInfo(NamedTuple):
    """``prediction`` in {0, 1} made before the update; ``loss`` its 0-1 loss; ``mistake`` the flag;
    ``inconsistent``: a false positive, which no conjunction consistent with the positive examples
    seen so far can explain (Balcan's "no consistent conjunction"; the state is left unchanged)."""

    prediction: Array
    loss: Array
    mistake: Array
    inconsistent: Array


def _bits(x: Any) -> Array:
    """``x_i > 0`` as booleans (a bool ``x`` as it is: no bool/int comparison under strict promotion)."""
    x = jnp.asarray(x)
    return x if x.dtype == jnp.bool_ else x > 0


def _check_example(example_x: Any, n: int) -> Array:
    """``example_x`` of shape (n,), as the learner was built for (the ``init`` shape check)."""
    x = jnp.asarray(example_x)
    check_ndim("example_x", x, 1, f"(n,) = ({n},)")
    _check_features("example_x", x, n)
    return x


def _check_features(name: str, x: Any, n: int) -> None:
    width = jnp.shape(x)[-1] if jnp.ndim(x) else None
    if width != n:
        raise ValueError(
            f"expected `{name}` with n={n} features (the `n` the learner was built with), got {width}"
        )


def _boolean_stream_check(n: int, what: str):
    """The ``check`` of the learners over {0,1}^n with {0, 1} labels (conjunctions, decision lists)."""

    def check(xs, ys):
        check_ndim("xs", xs, 2, f"(n_examples, {n})")
        _check_features("xs", xs, n)
        check_boolean_values(xs, ys, what)

    return check


@learner_factory(ranges={"n": POSITIVE_INT}, load_caps={"n": MAX_FEATURES})
def conjunction(n: int) -> Learner:
    r"""The elimination algorithm for conjunctions of (possibly negated) literals.

    .. math:: h_1 = x_1 \bar x_1 \cdots x_n \bar x_n, \qquad
        h_{t+1} = h_t \setminus \{\ell \in h_t : \ell(x_t) = 0\} \text{ if } h_t(x_t) = 0,\ y_t = 1.

    At most :math:`n + 1` mistakes (:func:`jaxlearn.theory.conjunction_bound`) if a conjunction labels the
    data; a false positive proves it does not and only sets ``Info.inconsistent``.

    Args:
      n: the number of boolean variables, a positive int (static).

    Returns:
      A :class:`~jaxlearn.core.Learner` over {0,1}^n, labels in {0, 1}; ``Info`` is :class:`ConjunctionInfo`.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import core, online
      >>> learner = online.conjunction(4)
      >>> X = jnp.array([[1, 0, 0, 1], [1, 0, 0, 0], [0, 0, 0, 1]])
      >>> state, trace = core.run(learner, learner.init(X[0]), X, jnp.array([1, 1, 0]))
      >>> trace.mistake.tolist(), state.literals.reshape(2, 4).tolist()  # h = x1 ~x2 ~x3
      ([True, True, False], [[1, 0, 0, 0], [0, 1, 1, 0]])

    References:
      Balcan, 8803 Machine Learning Theory, Lecture 3, section 2.1.
    """
    n = int(n)

    def init(example_x, key=None):
        _check_example(example_x, n)
        return ConjunctionState(literals=jnp.ones((2 * n,), jnp.int32), step=zero_counter())

    def truth(x):
        _check_features("x", x, n)
        x = _bits(x)
        return jnp.concatenate([x, ~x])  # the value of every literal on x

    def predict(state, x):
        holds = truth(x) | (state.literals == 0)  # literals not in h do not constrain
        return jnp.all(holds).astype(jnp.int32)

    def update(state, x, y):
        check_scalar_label(y)
        y_hat = predict(state, x)
        y = jnp.asarray(y).astype(jnp.int32)
        false_negative = (y_hat == 0) & (y == 1)
        keep = truth(x).astype(jnp.int32)
        literals = jnp.where(false_negative, state.literals * keep, state.literals)
        mistake = y_hat != y
        info = ConjunctionInfo(
            prediction=y_hat,
            loss=mistake.astype(float_dtype(x)),
            mistake=mistake,
            inconsistent=(y_hat == 1) & (y == 0),
        )
        return ConjunctionState(literals, state.step + 1), info

    return Learner(init, update, predict, _boolean_stream_check(n, "conjunction"))
