"""Growth functions and VC bounds (SS10 L8 sections 20-21; UML section 20.4): Sauer's lemma, the growth
function of a finite class by brute force, and the VC bound of sign networks (UML Theorem 20.6)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._checks import as_array, as_numeric, check_ndim, is_concrete
from jaxlearn.theory._common import _check, _require

Array = jax.Array

#: The largest ``num_hypotheses * 2**num_points`` that :func:`growth_function` accepts (one int32 code per
#: hypothesis and subset of points: 64 MiB, sorted once).
MAX_GROWTH_ENTRIES = 2**24


def sauer_bound(d: ArrayLike, m: ArrayLike, *, closed_form: bool = False) -> Array:
    r"""Sauer's lemma: a class of VC dimension :math:`d` has growth function

    .. math:: \tau_H(m) \le \sum_{i=0}^{d} \binom{m}{i} \le \Big(\frac{em}{d}\Big)^d \quad (m \ge d \ge 1).

    Returns the sum (the default; :math:`2^m` when :math:`d \ge m`), or with ``closed_form=True`` the
    power :math:`(em/d)^d` that the proofs use (SS10 Theorem 12: :math:`\tau_H(2m) \le (2em/d)^d`; UML
    Theorem 20.6: :math:`(em/d)^d \le (em)^d`), defined for :math:`m \ge d \ge 1` only. The sum is
    computed in :math:`\min(d, m)` steps of a ``lax.fori_loop`` (so ``d`` and ``m`` may be traced and
    vmapped); it is ``inf`` where it overflows the float dtype.

    Args:
      d: the VC dimension, an integer :math:`\ge 0` (:math:`\ge 1` for the closed form).
      m: the number of points, an integer :math:`\ge 1`.
      closed_form: return :math:`(em/d)^d` instead of the sum.

    Examples:
      >>> from jaxlearn import theory
      >>> theory.sauer_bound(2, [1, 4, 10]).tolist()  # intervals: 1 + m + C(m, 2), met with equality
      [2.0, 11.0, 56.0]
      >>> round(float(theory.sauer_bound(2, 10, closed_form=True)), 2)  # (10 e / 2)^2
      184.73

    References:
      SS10 L8 section 20 (Sauer's lemma in the proof of Theorem 12); UML Theorem 20.6.
    """
    if not isinstance(closed_form, (bool, np.bool_)):
        raise TypeError(f"expected `closed_form` a bool, got {closed_form!r}")
    d_range = core.POSITIVE_INT if closed_form else core.NON_NEGATIVE_INT
    d, m = _check({"d": d_range}, d=d, m=m)
    if closed_form:
        _require(m >= d, "expected `m` >= `d` for the closed form (em/d)^d of Sauer's lemma")
        return jnp.exp(d * (1 + jnp.log(m / d)))
    d, m = jnp.broadcast_arrays(d, m)
    return jnp.vectorize(_binomial_sum)(d, m)


def _binomial_sum(d: Array, m: Array) -> Array:
    """The sum of C(m, i) over i <= min(d, m), each term from the last: C(m, i) = C(m, i-1) (m-i+1)/i."""

    def step(i, carry):
        term, total = carry
        term = term * (m - i + 1) / i
        return term, total + term

    steps = jnp.minimum(d, m).astype(jnp.int32)
    one = jnp.ones_like(m)
    return jax.lax.fori_loop(1, steps + 1, lambda i, c: step(i.astype(m.dtype), c), (one, one))[1]


def growth_function(labelings: ArrayLike) -> Array:
    r"""The growth function of a finite class by brute force: :math:`\tau_H(m)` for every :math:`m`.

    .. math:: \tau_H(m) = \max_{C \subseteq X,\ |C| = m} \big|\{h|_C : h \in H\}\big|,

    over the :math:`N` points of ``labelings``. The class shatters :math:`C` when the count is
    :math:`2^{|C|}`, so :math:`\mathrm{VCdim}(H)` is the largest :math:`m` with :math:`\tau_H(m) = 2^m`,
    and Sauer's lemma (:func:`sauer_bound`) bounds the rest. Entries may be any small non-negative
    integers: a class of functions into a finite set (the product classes of UML Exercise 20.3
    encode :math:`(f_1(x), f_2(x))` as :math:`f_1(x) + 2 f_2(x)`).

    Cost: every one of the :math:`2^N` subsets gets one integer code per hypothesis (the restriction
    written in base :math:`\max + 1`), the codes are sorted and their distinct values counted:
    :math:`O(|H|\, 2^N (N + \log |H|))` work and :math:`|H|\, 2^N` int32 codes of memory, vectorised
    (jittable: the shapes depend on the shape of ``labelings`` only).

    Args:
      labelings: shape (num_hypotheses, num_points), both :math:`\ge 1`, row :math:`h` holding
        :math:`h(x_1), \dots, h(x_N)` (bool, int, or integral floats :math:`\ge 0`); at most
        ``MAX_GROWTH_ENTRIES`` :math:`= 2^{24}` for ``num_hypotheses * 2**num_points``, and codes that fit
        int32 (:math:`(\max + 1)^N \le 2^{31}`).

    Returns:
      int32 array of shape ``(num_points + 1,)``: entry :math:`m` is :math:`\tau_H(m)`, and
      :math:`\tau_H(0) = 1`.

    Examples:
      >>> import numpy as np
      >>> from jaxlearn import theory
      >>> thresholds = np.tril(np.ones((6, 5), int), -1)  # h_a(x_j) = 1[j < a] on 5 points
      >>> theory.growth_function(thresholds).tolist()  # m + 1: VC dimension 1
      [1, 2, 3, 4, 5, 6]

    References:
      SS10 L8 section 20 (the growth function in the proof of Theorem 12); UML Exercises 20.3-20.4.
    """
    H = as_numeric("labelings", as_array(labelings))
    check_ndim("labelings", H, 2, "(num_hypotheses, num_points)")
    n, N = H.shape
    if n == 0 or N == 0:
        raise ValueError(
            f"expected `labelings` of shape (num_hypotheses, num_points) with both >= 1, got {H.shape}"
        )
    if n * 2**N > MAX_GROWTH_ENTRIES:
        raise ValueError(
            f"expected `labelings` with num_hypotheses * 2**num_points <= 2**24 (one code per hypothesis "
            f"and subset of points), got {n} * 2**{N}; the brute force is for small classes"
        )
    if is_concrete(H):
        values = np.asarray(H, dtype=float)
        if not (
            np.isfinite(values).all() and (values >= 0).all() and (values == np.round(values)).all()
        ):
            raise ValueError(
                "expected `labelings` of non-negative integers (a {0, 1} matrix for a binary class)"
            )
        if N * np.log2(values.max() + 1) > 31:
            raise ValueError(
                f"expected `labelings` whose restrictions fit int32 codes ((max + 1)**num_points <= 2**31), "
                f"got max {values.max():g} on {N} points"
            )
    return _growth(H.astype(jnp.int32))


@jax.jit
def _growth(H: Array) -> Array:
    N = H.shape[1]
    subsets = (
        jnp.arange(2**N, dtype=jnp.int32)[:, None] >> jnp.arange(N, dtype=jnp.int32)
    ) & 1  # (2^N, N)
    powers = jnp.cumprod(jnp.full(N, jnp.max(H) + 1, jnp.int32)) // (jnp.max(H) + 1)  # base**j
    codes = jnp.sort(H @ (subsets * powers).T, axis=0)  # (n, 2^N): h restricted to each subset
    distinct = 1 + jnp.sum(codes[1:] != codes[:-1], axis=0, dtype=jnp.int32)
    return jax.ops.segment_max(distinct, jnp.sum(subsets, axis=1), num_segments=N + 1)


def sign_network_vc_bound(num_edges: ArrayLike, *, closed_form: bool = False) -> Array:
    r"""UML Theorem 20.6: :math:`\mathrm{VCdim}(H_{V,E,\mathrm{sign}}) = O(|E| \log |E|)`.

    The proof bounds the growth function of the network by the product over its neurons of Sauer's
    bound for their in-degree, :math:`\tau_H(m) \le (em)^{|E|}`; shattering :math:`m` points needs
    :math:`2^m \le \tau_H(m)`. Returns the largest integer :math:`m \ge 1` with

    .. math:: 2^m \le (em)^{|E|}, \quad\text{i.e.}\quad m \le \frac{|E| \log(em)}{\log 2}

    (a float; Newton's method on the concave :math:`|E|(1 + \ln m) - m \ln 2` from the right, then the
    floor), or with ``closed_form=True`` the explicit :math:`O(|E|\log|E|)` bound it implies by SS10
    Lemma 10 with :math:`a = b = |E|/\ln 2`: :math:`4a\ln(2a) + 2b`. Count the edges from the constant
    neuron (the biases) in :math:`|E|`.

    Examples:
      >>> from jaxlearn import theory
      >>> theory.sign_network_vc_bound([1, 10, 100]).tolist()
      [3.0, 77.0, 1162.0]
      >>> round(float(theory.sign_network_vc_bound(10, closed_form=True)), 1)
      222.9

    References:
      UML section 20.4, Theorem 20.6 and Exercises 20.3-20.4; SS10 L8 Lemma 10.
    """
    if not isinstance(closed_form, (bool, np.bool_)):
        raise TypeError(f"expected `closed_form` a bool, got {closed_form!r}")
    (E,) = _check(num_edges=num_edges)
    a = E / jnp.log(2.0)
    upper = 4 * a * jnp.log(2 * a) + 2 * a
    if closed_form:
        return upper

    def newton(
        _, m
    ):  # g(m) = E (1 + ln m) - m ln 2, concave, decreasing right of its root: no overshoot
        g = E * (1 + jnp.log(m)) - m * jnp.log(2.0)
        return m - g / (E / m - jnp.log(2.0))

    root = jax.lax.fori_loop(0, 60, newton, upper)
    m = jnp.floor(root)

    def fits(m):
        return m * jnp.log(2.0) <= E * (1 + jnp.log(m))

    m = jnp.where(
        fits(m + 1), m + 1, jnp.where(fits(m), m, m - 1)
    )  # the root is exact up to rounding
    return jnp.maximum(m, 1.0)
