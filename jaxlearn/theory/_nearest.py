r"""The price of nearest neighbour in high dimension (UML section 19.2.2).

Theorem 19.3 makes the last term of the 1-NN bound, :math:`4c\sqrt d\, m^{-1/(d+1)}`, at most
:math:`\epsilon` once :math:`m \ge (4c\sqrt d/\epsilon)^{d+1}`: a sample size exponential in the
dimension. Theorem 19.4 shows that no learning rule escapes it: on the grid of spacing :math:`1/c` in
:math:`[0,1]^d`, with labels that are a function of the point (so :math:`\eta` is :math:`c`-Lipschitz and
the Bayes error is 0), a sample of at most half the :math:`(c+1)^d` grid points leaves the learner with
a true error above :math:`1/4` (the No-Free-Lunch argument). :func:`nn_lower_bound_grid` and
:func:`sample_labelled_grid` build that distribution, to run the experiment.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import at_least
from jaxlearn.core import loadable
from jaxlearn.theory._common import _check

Array = jax.Array

#: Theorem 19.4's grid needs :math:`c \ge 1` (the book states :math:`c > 1`; at :math:`c = 1` the grid
#: is the :math:`2^d` corners of the cube, distance 1 apart, and the proof holds word for word).
_AT_LEAST_ONE = at_least(1)
_GRID_INT = at_least(1, integer=True)
#: The largest grid :func:`nn_lower_bound_grid` builds (points, a guard against a memory blow-up).
MAX_GRID_POINTS = 2**24


def nn_lower_bound_sample_size(c: ArrayLike, d: ArrayLike) -> Array:
    r"""UML Theorem 19.4: for every learning rule there is a distribution on
    :math:`[0,1]^d \times \{0,1\}` with :math:`c`-Lipschitz :math:`\eta` and Bayes error 0 on which,
    with :math:`m \le (c+1)^d / 2` examples, the true error exceeds :math:`1/4`. Returns that sample
    size, :math:`(c+1)^d/2`: half the points of the grid of spacing :math:`1/c`.

    Examples:
      >>> from jaxlearn import theory
      >>> float(theory.nn_lower_bound_sample_size(3, 10))  # 4^10 / 2: half a million examples in 10-D
      524288.0
    """
    c, d = _check({"c": _AT_LEAST_ONE}, c=c, d=d)
    return (c + 1) ** d / 2


def curse_of_dimensionality_sample_size(c: ArrayLike, d: ArrayLike, epsilon: ArrayLike) -> Array:
    r"""UML section 19.2.2: the sample size that brings the last term of Theorem 19.3
    (:func:`~jaxlearn.theory.one_nn_bound`) down to :math:`\epsilon`,

    .. math:: 4c\sqrt d\, m^{-1/(d+1)} \le \epsilon \iff m \ge \Big(\frac{4c\sqrt d}{\epsilon}\Big)^{d+1}.

    Examples:
      >>> from jaxlearn import theory
      >>> float(theory.curse_of_dimensionality_sample_size(1.0, 1, 0.1))  # (40)^2
      1600.0
    """
    c, d, epsilon = _check(c=c, d=d, epsilon=epsilon)
    return (4 * c * jnp.sqrt(d) / epsilon) ** (d + 1)


@loadable
class LabelledGrid(NamedTuple):
    r"""The distribution of UML Theorem 19.4: ``points`` (N, d), the :math:`N = (c+1)^d` points of the grid
    of spacing :math:`1/c` in :math:`[0,1]^d`, each of probability :math:`1/N`, and their ``labels`` (N,)
    int32 in {0, 1}. The true error of a rule :math:`h` is exactly
    ``jnp.mean(h(points) != labels)``."""

    points: Array
    labels: Array


def nn_lower_bound_grid(key: ArrayLike, c: int, d: int) -> LabelledGrid:
    r"""The hard distribution of UML Theorem 19.4: uniform on the grid of spacing :math:`1/c` in
    :math:`[0,1]^d`, each point's label drawn once, fair and independent, and then fixed.

    So :math:`y = f(x)`, :math:`\eta \in \{0, 1\}` and the Bayes error is 0; distinct grid points are at
    least :math:`1/c` apart, so :math:`|\eta(x) - \eta(x')| \le 1 \le c\|x - x'\|`: :math:`\eta` is
    :math:`c`-Lipschitz. Averaged over the labelling, a rule's error on a grid point its sample missed
    is exactly 1/2, which gives the theorem's :math:`> 1/4` for :math:`m \le (c+1)^d/2`.

    Args:
      key: a ``jax.random`` key (the labelling).
      c: the Lipschitz constant, an integer :math:`\ge 1` (static: it sets the grid).
      d: the dimension, an integer :math:`\ge 1` (static).

    Returns:
      A :class:`LabelledGrid` of :math:`(c+1)^d` points (at most :data:`MAX_GRID_POINTS`).

    Examples:
      >>> import jax
      >>> from jaxlearn import theory
      >>> grid = theory.nn_lower_bound_grid(jax.random.PRNGKey(0), 2, 2)
      >>> grid.points.shape, grid.points[:3].tolist()
      ((9, 2), [[0.0, 0.0], [0.0, 0.5], [0.0, 1.0]])

    References:
      UML Theorem 19.4 and its proof (UML section 19.2.2).
    """
    c, d = _sizes(c=c, d=d)
    if (c + 1) ** d > MAX_GRID_POINTS:
        raise ValueError(
            f"expected a grid of (c + 1)^d <= {MAX_GRID_POINTS} points, got c = {c}, d = {d}: "
            f"{c + 1}^{d} points; use a smaller `c` or `d`"
        )
    axis = jnp.arange(c + 1, dtype=jnp.result_type(float)) / c
    points = jnp.stack(jnp.meshgrid(*[axis] * d, indexing="ij"), axis=-1).reshape(-1, d)
    labels = jax.random.bernoulli(_key(key), 0.5, (points.shape[0],)).astype(jnp.int32)
    return LabelledGrid(points, labels)


def sample_labelled_grid(key: ArrayLike, grid: LabelledGrid, m: int) -> tuple[Array, Array]:
    r"""``m`` i.i.d. examples ``(X, y)`` of the distribution ``grid`` (:func:`nn_lower_bound_grid`):
    grid points drawn uniformly with replacement, with their labels.

    Args:
      key: a ``jax.random`` key.
      grid: a :class:`LabelledGrid`.
      m: the sample size, a positive integer (static).

    Returns:
      ``X`` (m, d) and ``y`` (m,) int32.

    Examples:
      >>> import jax
      >>> from jaxlearn import theory
      >>> grid = theory.nn_lower_bound_grid(jax.random.PRNGKey(0), 3, 2)
      >>> X, y = theory.sample_labelled_grid(jax.random.PRNGKey(1), grid, 5)
      >>> X.shape, y.shape
      ((5, 2), (5,))
    """
    if not isinstance(grid, LabelledGrid):
        raise TypeError(
            f"expected `grid` a LabelledGrid (from nn_lower_bound_grid), got {type(grid).__name__}"
        )
    (m,) = _sizes(m=m)
    index = jax.random.randint(_key(key), (m,), 0, grid.labels.shape[0])
    return grid.points[index], grid.labels[index]


def _sizes(**sizes):
    """Integers >= 1 that set shapes (``TypeError`` for anything but an integer, ``ValueError`` below 1)."""
    for name, value in sizes.items():
        if value is None:
            raise TypeError(f"expected `{name}` {_GRID_INT}, got None")
        _GRID_INT.check(name, value)
    return tuple(int(v) for v in sizes.values())


def _key(key):
    """A single ``jax.random`` key: a typed key of shape () or a raw uint32 key of shape (2,)."""
    dtype = getattr(key, "dtype", None)
    typed = dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    if not (typed or dtype == jnp.uint32):
        raise TypeError(
            "expected `key` a jax.random key (jax.random.key(0) or jax.random.PRNGKey(0)), got "
            + (f"dtype {dtype}" if dtype is not None else type(key).__name__)
        )
    if jnp.ndim(key) != (0 if typed else 1):
        raise ValueError(
            f"expected `key` a single key (vmap for a batch of keys), got shape {key.shape}"
        )
    return key
