"""Boolean functions as sign networks (UML section 20.3, Claim 20.1 and Lemma 20.4).

The networks are ordinary params ``[(W_0, b_0), (W_1, b_1)]``, evaluated by
``mlp_apply(params, x, activation=sign, output=sign)``.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_labels, check_ndim, is_concrete
from jaxlearn.core import POSITIVE_INT, Interval
from jaxlearn.nn._inputs import check_dtype, static_int
from jaxlearn.nn._mlp import Params, mlp_apply, sign

#: The number of bits ``n`` of :func:`boolean_inputs`: the table has ``2**n`` rows (``2**24 * 24`` entries
#: already take 1.6 GB in float32).
BITS = Interval(1, 24, lo_closed=True, hi_closed=True, integer=True)

Array = jax.Array


def boolean_inputs(n: int, *, dtype=None) -> Array:
    """All of :math:`\\{\\pm1\\}^n`, shape ``(2**n, n)``, in the order of a truth table: row ``i`` has
    :math:`x_j = +1` iff bit ``n - 1 - j`` of ``i`` is set (``itertools.product((-1, 1), repeat=n)``).
    ``n`` in 1..24; ``dtype`` a float or signed int dtype."""
    n = static_int("n", n, BITS)
    dtype = check_dtype("dtype", dtype, signed_ints=True)
    bits = (np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1
    return jnp.asarray(2 * bits - 1, dtype)


def conjunction_neuron(k: int, *, negated: ArrayLike = None, dtype=None) -> tuple[Array, Array]:
    r"""A sign neuron computing the conjunction of :math:`k` literals over :math:`\{\pm1\}` (Lemma 20.4):

    .. math:: f(x) = \mathrm{sign}\Big(1 - k + \sum_{i=1}^k s_i x_i\Big),

    :math:`s_i = -1` for a negated literal (``negated[i]`` True), else +1. It is +1 iff every literal
    is +1 (the sum is :math:`k` then, at most :math:`k - 2` otherwise). Returns ``(w, b)``: evaluate as
    ``sign(w @ x + b)``. ``k >= 1``; ``negated`` of shape ``(k,)`` with values in {0, 1} (bools).
    """
    return _literal_neuron(k, negated, lambda k: 1.0 - k, dtype)


def disjunction_neuron(k: int, *, negated: ArrayLike = None, dtype=None) -> tuple[Array, Array]:
    r"""A sign neuron computing the disjunction of :math:`k` literals (Lemma 20.4):
    :math:`f(x) = \mathrm{sign}(k - 1 + \sum_i s_i x_i)`, which is -1 iff every literal is -1."""
    return _literal_neuron(k, negated, lambda k: k - 1.0, dtype)


def _literal_neuron(k, negated, bias, dtype):
    k = static_int("k", k, POSITIVE_INT)
    dtype = check_dtype("dtype", dtype, signed_ints=True)
    if negated is None:
        return jnp.ones(k, dtype), jnp.asarray(bias(k), dtype)
    negated = np.asarray(negated) if isinstance(negated, (list, tuple)) else negated
    if jnp.shape(negated) != (k,):
        raise ValueError(f"expected `negated` of shape ({k},), got {jnp.shape(negated)}")
    check_labels("negated", negated, (0, 1), "True marks a negated literal")
    signs = jnp.where(jnp.asarray(negated).astype(bool), -1, 1).astype(dtype)
    return signs, jnp.asarray(bias(k), dtype)


def boolean_network(table: ArrayLike) -> tuple[Params, Callable[[Params, Array], Array]]:
    r"""The depth-2 sign network of Claim 20.1 computing a Boolean function given by its truth table.

    .. math:: g_i(x) = \mathrm{sign}(\langle x, u_i\rangle - n + 1), \qquad
        f(x) = \mathrm{sign}\Big(\sum_{i : f(u_i) = 1} g_i(x) + k - 1\Big),

    with :math:`u_1, \dots, u_{2^n}` the points of the cube (:func:`boolean_inputs`), :math:`k` of them with
    :math:`f = 1`: :math:`g_i` fires only on :math:`u_i`, the output is their disjunction (Lemma 20.4). Points
    where :math:`f = -1` get output weight 0, so shapes depend on :math:`n` only (jittable, vmappable over
    tables).

    Args:
      table: :math:`(f(u_1), \dots, f(u_{2^n}))` in :math:`\{\pm1\}`, shape ``(2**n,)``, in the order of
        :func:`boolean_inputs`.

    Returns:
      ``(params, apply)``: ``params = [(W_0, b_0), (W_1, b_1)]`` (``W_0`` is :math:`2^n \times n`, ``W_1`` is
      :math:`1 \times 2^n`); ``apply(params, x)`` is the :math:`\pm1` output on one ``x``, shape ``(1,)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import nn
      >>> xor = jnp.array([-1.0, 1.0, 1.0, -1.0])  # on (-1,-1), (-1,1), (1,-1), (1,1)
      >>> params, apply = nn.boolean_network(xor)
      >>> jax.vmap(lambda x: apply(params, x))(nn.boolean_inputs(2))[:, 0].tolist()
      [-1.0, 1.0, 1.0, -1.0]

    References:
      UML section 20.3, Claim 20.1 and Lemma 20.4.
    """
    table = np.asarray(table) if isinstance(table, (list, tuple)) else table
    if not isinstance(table, jax.core.Tracer) and np.asarray(table).dtype.kind not in "biuf":
        raise TypeError(
            f"expected `table` of numbers in {{-1, +1}}, got dtype {np.asarray(table).dtype}"
        )
    table = jnp.asarray(table)
    check_ndim("table", table, 1, "(2**n,)")
    size = table.shape[0]
    n = size.bit_length() - 1
    if size < 2 or size != 2**n:
        raise ValueError(f"expected `table` of length 2**n (n >= 1), got {size}")
    if is_concrete(table):
        check_labels("table", table, (-1, 1), "a Boolean function's values are in {-1, +1}")
    dtype = table.dtype if jnp.issubdtype(table.dtype, jnp.floating) else jnp.result_type(float)
    positive = (table > 0).astype(dtype)
    U = boolean_inputs(n, dtype=dtype)
    hidden = (U, jnp.full(size, 1.0 - n, dtype))
    out = (positive[None, :], (jnp.sum(positive) - 1)[None])
    return [hidden, out], _apply


def _apply(params: Params, x: ArrayLike) -> Array:
    return mlp_apply(params, x, activation=sign, output=sign)
