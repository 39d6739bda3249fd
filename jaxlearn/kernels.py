"""Kernels ``k(x, z) -> scalar`` on single examples, and Gram matrices (UML chapter 16).

The kernels built here are ``jax.tree_util.Partial`` pytrees whose leaves are their numeric parameters
(``sigma``: traced, so a new value reuses the compiled program); structural ones (``degree``, ``pad``) are
part of the function. Any plain ``k(x, z) -> scalar`` works too (then static as a whole).
"""

from __future__ import annotations

import functools
from typing import Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._checks import check_finite, check_ndim, check_positive_int
from jaxlearn._shared import float_dtype
from jaxlearn.core import loadable

__all__ = [  # PAD is the pad value; the rest are functions
    "PAD",
    "as_tree",
    "check_kernel",
    "encode_strings",
    "expansion",
    "gaussian",
    "gram",
    "is_psd",
    "linear",
    "min_kernel",
    "polynomial",
    "polynomial_features",
    "substring",
]

Array = jax.Array
Kernel = Callable[[ArrayLike, ArrayLike], Array]


def _pair(x, z):
    """``x`` and ``z`` of one shape, promoted to their (widest) float dtype before any arithmetic."""
    x, z = jnp.asarray(x), jnp.asarray(z)
    if x.shape != z.shape:
        raise ValueError(
            f"expected examples `x` and `z` of the same shape, got {x.shape} and {z.shape}"
        )
    check_finite("x", x)
    check_finite("z", z)
    floats = [a.dtype for a in (x, z) if jnp.issubdtype(a.dtype, jnp.floating)]
    dtype = max(floats, key=lambda t: t.itemsize) if floats else jnp.result_type(float)
    return x.astype(dtype), z.astype(dtype)


def _array(name: str, value, ndim: int, what: str) -> Array:
    """``value`` as an array of ``ndim`` dimensions (lists go through NumPy), finite when concrete."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"expected `{name}` an array of shape {what}, got {type(value).__name__}")
    value = jnp.asarray(np.asarray(value) if isinstance(value, (list, tuple)) else value)
    check_ndim(name, value, ndim, what)
    check_finite(name, value)
    return value


@loadable
def _linear(x, z):
    return jnp.vdot(*_pair(x, z))


def linear() -> Kernel:
    r"""The linear kernel :math:`K(x, x') = \langle x, x'\rangle`."""
    return Partial(_linear)


def polynomial(degree: int) -> Kernel:
    r"""The polynomial kernel :math:`K(x, x') = (1 + \langle x, x'\rangle)^k` (UML Example 16.1).

    Its exact feature map has one coordinate :math:`\prod_{i=1}^k x_{J_i}` per
    :math:`J \in \{0..n\}^k` with :math:`x_0 = 1`. ``degree`` is structural (a Python int).
    """
    degree = check_positive_int("degree", degree)
    return Partial(_polynomial(degree))


@loadable
@functools.lru_cache(maxsize=None)
def _polynomial(degree: int) -> Callable:  # one function per degree: equal tree structures
    def k(x, z):
        return (1 + jnp.vdot(*_pair(x, z))) ** degree

    k.degree = degree  # read by _rows
    return k


def gaussian(sigma: ArrayLike) -> Kernel:
    r"""The Gaussian (RBF) kernel :math:`K(x, x') = \exp(-\|x - x'\|^2 / (2\sigma))` (UML Example 16.2).

    Note the book's parameterisation: :math:`2\sigma`, not :math:`2\sigma^2`. ``sigma`` is a leaf of
    the returned pytree: traced inside the learners, so sweeping it does not recompile.
    ``sigma`` is a number in (0, inf).
    """
    core.POSITIVE.check("sigma", sigma)
    if jnp.ndim(sigma) != 0:
        raise ValueError(f"expected `sigma` a scalar, got shape {jnp.shape(sigma)}")
    return Partial(_gaussian, sigma)


@loadable
def _gaussian(sigma, x, z):
    x, z = _pair(x, z)
    diff = x - z
    return jnp.exp(-jnp.vdot(diff, diff) / (2 * jnp.asarray(sigma).astype(diff.dtype)))


def min_kernel() -> Kernel:
    r"""The min kernel :math:`K(x, x') = \sum_i \min\{x_i, x'_i\}` (UML Exercise 16.4).

    On scalars in :math:`\{1, \dots, N\}` (shape ``()`` or ``(1,)``) it is :math:`\min\{x, x'\}`, the
    inner product of :math:`\psi(x) = (1[x \ge 1], \dots, 1[x \ge N])`; on vectors it sums that
    over coordinates (the histogram-intersection kernel). It is a kernel (PSD Gram matrices) on
    **nonnegative** inputs only: on negative values it is not.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import kernels
      >>> int(kernels.min_kernel()(jnp.array([3, 1]), jnp.array([2, 5])))
      3
    """
    return Partial(_min)


@loadable
def _min(x, z):
    return jnp.sum(jnp.minimum(*_pair(x, z)))


#: The pad value of :func:`encode_strings` and the default of :func:`substring`.
PAD = -1


def encode_strings(
    strings: Sequence[str], length: Optional[int] = None, *, pad: int = PAD
) -> Array:
    """Strings as a padded (n, length) int32 array of Unicode code points, for :func:`substring`.

    Args: ``strings`` (Python strings); ``length``, the padded width (static; by default the longest
    string's); ``pad``, the value past each string's end (negative: never a code point).

    Examples:
      >>> from jaxlearn import kernels
      >>> kernels.encode_strings(["ab", "c"]).tolist()
      [[97, 98], [99, -1]]
    """
    if isinstance(strings, (str, bytes)) or not isinstance(strings, Sequence):
        raise TypeError(f"expected `strings` a sequence of str, got {type(strings).__name__}")
    strings = list(strings)
    odd = [type(s).__name__ for s in strings if not isinstance(s, str)]
    if odd:
        raise TypeError(f"expected `strings` a sequence of str, found an item of type {odd[0]}")
    core.NON_NEGATIVE_INT.check("length", length)
    _check_pad(pad)
    longest = max((len(s) for s in strings), default=0)
    length = longest if length is None else int(length)
    if longest > length:
        raise ValueError(
            f"expected strings of length <= {length}, got one of length {longest} "
            "(`strings` longer than `length`)"
        )
    out = np.full((len(strings), max(length, 1)), pad, np.int32)
    for row, s in enumerate(strings):
        out[row, : len(s)] = [ord(c) for c in s]
    return jnp.asarray(out)


def _common_prefix_lengths(a: Array, b: Array, valid_a: Array, valid_b: Array) -> Array:
    """``C[i, j]``: the length of the longest common prefix of ``a[i:]`` and ``b[j:]`` (pads match nothing).

    The dynamic programme :math:`C_{ij} = 1[a_i = b_j](1 + C_{i+1, j+1})`, one row per step of a
    reverse ``lax.scan``: O(len(a) len(b)) time.
    """
    equal = (a[:, None] == b[None, :]) & valid_a[:, None] & valid_b[None, :]

    def step(below, equal_row):  # below = C[i + 1, :] padded with a trailing 0
        row = jnp.where(equal_row, 1 + below[1:], 0)
        return jnp.concatenate([row, jnp.zeros((1,), row.dtype)]), row

    _, rows = jax.lax.scan(step, jnp.zeros((b.shape[0] + 1,), jnp.int32), equal, reverse=True)
    return rows


def substring(*, pad: int = PAD, include_empty: bool = False) -> Kernel:
    r"""The substring kernel: the number of distinct common substrings (UML section 16.2.1, Exercise 16.1).

    .. math:: K(x, x') = \sum_{v} 1[v \sqsubseteq x] 1[v \sqsubseteq x'] = \langle \psi(x), \psi(x') \rangle,

    over the non-empty strings :math:`v`: each common substring counts once, whatever its number of
    occurrences. Strings are 1-D arrays of nonnegative ints (e.g. code points, :func:`encode_strings`) padded
    to a static length :math:`L` with ``pad`` (in no substring); one evaluation costs :math:`O(L^2)` and
    returns the default float dtype (exact in float32 up to :math:`2^{24}`).

    Args:
      pad: the pad value (static; negative).
      include_empty: count the empty string too (a constant feature: the bias of Exercise 16.1).

    Returns:
      A kernel, a ``jax.tree_util.Partial``.

    Examples:
      >>> from jaxlearn import kernels
      >>> x, z = kernels.encode_strings(["abab", "bab"])
      >>> int(kernels.substring()(x, z))  # a, b, ab, ba, bab
      5

    References:
      UML section 16.2.1, Exercise 16.1.
    """
    _check_pad(pad)
    if not isinstance(include_empty, (bool, np.bool_)):
        raise TypeError(f"expected `include_empty` a bool, got {type(include_empty).__name__}")
    return Partial(_substring(int(pad), bool(include_empty)))


def _check_pad(pad) -> None:
    if isinstance(pad, (bool, np.bool_)) or not isinstance(pad, (int, np.integer)):
        raise TypeError(f"expected a negative int `pad`, got {pad!r} of type {type(pad).__name__}")
    if pad >= 0:
        raise ValueError(f"expected a negative `pad` (symbols are >= 0), got {pad}")


@loadable
@functools.lru_cache(maxsize=None)
def _substring(pad: int, include_empty: bool) -> Callable:
    # O(L^2): with C[i, j] the longest common prefix of x[i:] and z[j:] and D[i', i] that of x[i':] and
    # x[i:], the substrings first occurring in x at i that also occur in z have the lengths
    # max_{i' < i} D[i', i] < l <= max_j C[i, j], so K = sum_i (max_j C[i, j] - max_{i' < i} D[i', i])_+.
    def k(x, z):
        x, z = jnp.asarray(x), jnp.asarray(z)
        if x.ndim != 1 or z.ndim != 1:
            raise ValueError(
                f"expected strings `x` and `z` of shape (L,), got {x.shape} and {z.shape}"
            )
        valid_x, valid_z = x != pad, z != pad
        common = jnp.max(_common_prefix_lengths(x, z, valid_x, valid_z), axis=1, initial=0)
        self_prefix = _common_prefix_lengths(x, x, valid_x, valid_x)
        earlier = jnp.triu(jnp.ones(self_prefix.shape, bool), k=1)  # rows i' < column i
        seen = jnp.max(jnp.where(earlier, self_prefix, 0), axis=0, initial=0)
        count = jnp.sum(jnp.maximum(common - seen, 0)) + int(include_empty)
        return count.astype(jnp.result_type(float))

    return k


def is_psd(G: ArrayLike, tol: Optional[ArrayLike] = None) -> Array:
    r"""Whether ``G`` is a symmetric positive semidefinite matrix (UML Lemma 16.2), up to ``tol``.

    UML Lemma 16.2: a symmetric :math:`K` is a kernel (an inner product in some Hilbert space) iff every
    Gram matrix is PSD. The test: :math:`\|G - G^\top\|_{\max} \le \tau s` and
    :math:`\lambda_{\min}((G + G^\top)/2) \ge -\tau s` (``eigvalsh``), with :math:`s = \max_i |\lambda_i|`
    and :math:`\tau` = ``tol``, by default :math:`n \cdot \varepsilon_{\text{dtype}}` (eigenvalue rounding).
    Pure JAX: it runs under ``jit``/``vmap`` and returns a bool scalar array.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import kernels
      >>> bool(kernels.is_psd(jnp.array([[2.0, 1.0], [1.0, 2.0]]))), bool(kernels.is_psd(-jnp.eye(2)))
      (True, False)
    """
    G = _array("G", G, 2, "(n, n)")
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"expected `G` of shape (n, n), got {G.shape}")
    core.NON_NEGATIVE.check("tol", tol)
    G = G.astype(float_dtype(G))
    tau = (
        G.shape[0] * float(jnp.finfo(G.dtype).eps)
        if tol is None
        else jnp.asarray(tol).astype(G.dtype)
    )
    eigenvalues = jnp.linalg.eigvalsh((G + G.T) / 2)
    scale = jnp.maximum(jnp.max(jnp.abs(eigenvalues), initial=0), jnp.finfo(G.dtype).tiny)
    symmetric = jnp.max(jnp.abs(G - G.T), initial=0) <= tau * scale
    return symmetric & (jnp.min(eigenvalues, initial=jnp.inf) >= -tau * scale)


def as_tree(kernel: Kernel) -> Partial:
    """``kernel`` as a ``jax.tree_util.Partial``, a pytree a jitted function can take as an argument.

    The kernels of this module already are (their numeric parameters are the leaves); a plain function
    becomes a leafless ``Partial``, identified by the function object itself.
    """
    _check_callable(kernel)
    return kernel if isinstance(kernel, Partial) else Partial(kernel)


def _check_callable(kernel) -> None:
    if not callable(kernel):
        raise ValueError(
            f"expected `kernel` a function k(x, z) -> scalar, got {type(kernel).__name__}"
        )


def check_kernel(kernel: Kernel, X: ArrayLike, Z: Optional[ArrayLike] = None) -> None:
    """Raise ``ValueError`` unless ``kernel`` maps one pair of rows of ``X`` and ``Z`` to a scalar.

    A shape check at trace time: ``jax.eval_shape`` on one pair, so no kernel value is computed.
    """
    _check_callable(kernel)
    X = np.asarray(X) if isinstance(X, list) else X
    Z = X if Z is None else (np.asarray(Z) if isinstance(Z, list) else Z)
    x = jax.ShapeDtypeStruct(jnp.shape(X)[1:], jnp.result_type(X))
    z = jax.ShapeDtypeStruct(jnp.shape(Z)[1:], jnp.result_type(Z))
    out = jax.eval_shape(kernel, x, z)
    leaves = jax.tree_util.tree_leaves(out)
    if len(leaves) != 1 or leaves[0].shape != ():
        found = f"shape {leaves[0].shape}" if len(leaves) == 1 else f"{len(leaves)} arrays"
        raise ValueError(
            f"expected `kernel` to return a scalar for one pair of examples of shape {x.shape}, "
            f"got {found}; a kernel is `k(x, z) -> scalar` on single examples (use `gram` for batches)"
        )


def gram(
    kernel: Kernel, X: ArrayLike, Z: Optional[ArrayLike] = None, *, batch_size: Optional[int] = None
) -> Array:
    """The Gram matrix ``G[i, j] = kernel(X[i], Z[j])`` (``Z = X`` by default).

    Args:
      kernel: ``k(x, z) -> scalar`` on single examples (checked once, at trace time).
      X: (n, d) examples (any dtype the kernel takes: strings are padded int arrays).
      Z: (m, d) examples; ``X`` when omitted.
      batch_size: compute this many rows at a time (``lax.map``), so that the kernel's intermediates
        take ``batch_size * m`` rather than ``n * m`` entries; ``None`` vmaps over all rows at once.

    Returns:
      The (n, m) matrix in the kernel's output dtype (this module's kernels promote bool/int to float).
    """
    X = _array("X", X, 2, "(n, d)")
    Z = X if Z is None else _array("Z", Z, 2, f"(m, {X.shape[1]})")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(
            f"expected `X` of shape (n, d) and `Z` of shape (m, d), got {X.shape} and {Z.shape}"
        )
    batch_size = None if batch_size is None else check_positive_int("batch_size", batch_size)
    check_kernel(kernel, X, Z)
    row = _rows(kernel, X, Z)
    return jax.vmap(row)(X) if batch_size is None else jax.lax.map(row, X, batch_size=batch_size)


#: Entries of centred data beyond this size make the Gaussian kernel compute ``||x - z||^2`` directly.
FAR = 2.0**30


def _rows(kernel: Kernel, X: Array, Z: Array) -> Callable[[Array], Array]:
    r"""``x -> [k(x, z_j)]_j``: for :func:`linear`, :func:`polynomial` and :func:`gaussian` a matrix product
    under ``vmap`` (full float precision; :math:`\|x - z\|^2 = \|x'\|^2 + \|z'\|^2 - 2\langle x', z'\rangle`
    with :math:`x' = x - c`, :math:`c` the mean of ``Z``), else the kernel vmapped over ``Z``."""
    func = getattr(kernel, "func", None)
    degree = getattr(func, "degree", None)
    if not (
        isinstance(degree, int) and func is _polynomial(degree)
    ):  # only this module's polynomials
        degree = None
    if func is not _linear and func is not _gaussian and degree is None:
        return lambda x: jax.vmap(lambda z: kernel(x, z))(Z)
    dtype = jax.eval_shape(_pair, *(jax.ShapeDtypeStruct(A.shape[1:], A.dtype) for A in (X, Z)))[
        0
    ].dtype
    center = jnp.mean(Z.astype(dtype), axis=0) if func is _gaussian else jnp.zeros((), dtype)
    Z = Z.astype(dtype) - center
    norms = jnp.sum(Z * Z, axis=1)
    # Far from the origin the expansion's squares overflow, or cancel to nothing on the diagonal: the
    # Gaussian then takes the differences themselves (one branch per call: the test reads no row).
    far = jnp.max(jnp.abs(Z), initial=0.0) > FAR if func is _gaussian else False

    def row(x):
        x = x.astype(dtype) - center
        dots = jnp.matmul(x, Z.T, precision=jax.lax.Precision.HIGHEST)
        if func is not _gaussian:
            return dots if degree is None else (1 + dots) ** degree
        width = 2 * jnp.asarray(kernel.args[0]).astype(dtype)
        expanded = lambda x: jnp.maximum(jnp.vdot(x, x) + norms - 2 * dots, 0)
        direct = lambda x: jnp.sum(jnp.square(x - Z), axis=1)
        return jnp.exp(-jax.lax.cond(far, direct, expanded, x) / width)

    return row


def expansion(
    kernel: Kernel,
    support: ArrayLike,
    alpha: ArrayLike,
    X: ArrayLike,
    *,
    batch_size: Optional[int] = None,
) -> Array:
    r"""The kernel expansion :math:`f(x) = \sum_j \alpha_j K(x_j, x)` on each row of ``X`` (UML (16.3)).

    This is :math:`\langle w, \psi(x)\rangle` for :math:`w = \sum_j \alpha_j \psi(x_j)`, evaluated
    through the kernel only; it never forms ``w`` nor, with ``batch_size``, the whole (n, m) matrix.
    Returns the (n,) or (n, k) scores.

    Args:
      kernel: ``k(x, z) -> scalar``.
      support: (m, d) the examples :math:`x_j`.
      alpha: (m,) or (m, k) coefficients (k expansions at once); their float dtype is the output's
        (bool/int coefficients are promoted to the default float dtype).
      X: (n, d) the points to score.
      batch_size: rows of ``X`` scored at a time (memory ``batch_size * m``); ``None``: all at once.
    """
    support = _array("support", support, 2, "(m, d)")
    X = _array("X", X, 2, f"(n, {support.shape[1]})")
    if X.shape[1] != support.shape[1]:
        raise ValueError(
            f"expected `X` of shape (n, {support.shape[-1]}) (the width of the support), got {X.shape}"
        )
    alpha = _array("alpha", alpha, min(max(np.ndim(alpha), 1), 2), "(m,) or (m, k)")
    if alpha.shape[0] != support.shape[0]:
        raise ValueError(
            f"expected `alpha` of shape ({support.shape[0]},) or ({support.shape[0]}, k), one row per "
            f"`support` example, got {alpha.shape}"
        )
    alpha = alpha.astype(float_dtype(alpha))
    batch_size = None if batch_size is None else check_positive_int("batch_size", batch_size)
    check_kernel(kernel, support, X)

    row = _rows(kernel, X, support)
    score = lambda x: jnp.matmul(
        row(x).astype(alpha.dtype), alpha, precision=jax.lax.Precision.HIGHEST
    )
    return (
        jax.vmap(score)(X) if batch_size is None else jax.lax.map(score, X, batch_size=batch_size)
    )


def polynomial_features(x: ArrayLike, degree: int) -> Array:
    r"""The exact feature map of :func:`polynomial` (UML Example 16.1), for testing.

    With :math:`x_0 = 1`, one coordinate :math:`\prod_{i=1}^k x_{J_i}` per :math:`J \in \{0..n\}^k`, so
    :math:`\langle \psi(x), \psi(x')\rangle = (1 + \langle x, x'\rangle)^k`; dimension :math:`(n+1)^k`
    (small inputs only). ``x`` has shape (n,); vmap for batches.
    """
    degree = check_positive_int("degree", degree)
    x = _array("x", x, 1, "(n,)")
    x = x.astype(float_dtype(x))
    x1 = jnp.concatenate([jnp.ones((1,), x.dtype), x])
    features = x1
    for _ in range(degree - 1):  # degree is a small static int: an outer product per factor
        features = jnp.outer(features, x1).reshape(-1)
    return features
