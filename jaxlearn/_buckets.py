"""Size buckets: many sample sizes share one padded size, so they share one compiled program.

JAX compiles a program per input shape. Cross-validation folds, grid searches and notebook cells on
subsets meet a new number of rows every time; rounding the rows up to a bucket (the next of
:math:`2^k, 1.25 \\cdot 2^k, 1.5 \\cdot 2^k, 1.75 \\cdot 2^k`) and marking the added rows as absent (label 0,
weight 0) makes every size in a bucket run the same program, at most 25% more rows.
"""

from __future__ import annotations

import contextlib
import contextvars

import jax
import jax.numpy as jnp
import numpy as np

#: Sizes up to this are their own bucket's multiple of 8 (tiny samples waste nothing to speak of).
SMALLEST = 8


def bucket(n: int) -> int:
    """The padded size of ``n`` rows: the smallest of :math:`2^k, 1.25 \\cdot 2^k, 1.5 \\cdot 2^k,
    1.75 \\cdot 2^k` (integers) that is at least ``n``; at least 8.

    >>> [bucket(n) for n in (1, 9, 100, 1437, 1438, 1500)]
    [8, 10, 112, 1536, 1536, 1536]
    """
    n = int(n)
    if n <= SMALLEST:
        return SMALLEST
    k = (n - 1).bit_length() - 1  # 2^k < n <= 2^(k+1)
    for quarter in (5, 6, 7, 8):
        size = -(-(quarter << k) // 4)
        if size >= n:
            return size
    raise AssertionError("unreachable: 2^(k+1) >= n")


#: The rows of the whole sample while fits on its parts run (:func:`parts_of`), else ``None``.
_WHOLE_ROWS: contextvars.ContextVar = contextvars.ContextVar("jaxlearn_whole_rows", default=None)


@contextlib.contextmanager
def parts_of(num_rows: int):
    """Within the block, fits on parts of a sample of ``num_rows`` rows pad their rows as a fit on the
    whole sample does (:func:`fit_bucket`): the folds of a grid search and its refit on every row run
    one compiled program. The added rows take no part in a fit: what changes is the programs
    compiled (and, where the padded size reorders a solver's sums, the last bits of its result)."""
    token = _WHOLE_ROWS.set(int(num_rows))
    try:
        yield
    finally:
        _WHOLE_ROWS.reset(token)


def fit_bucket(count: int, rows: int | None = None) -> int:
    """The padded size of ``count`` rows of a fit on a sample of ``rows`` rows (``count`` itself by
    default): :func:`bucket` of ``count``, or inside :func:`parts_of` of the count it scales to on the
    whole sample (``count * whole / rows``, rounded up).

    >>> fit_bucket(333), bucket(500)
    (384, 512)
    >>> with parts_of(500):
    ...     fit_bucket(333)
    512
    """
    rows = count if rows is None else int(rows)
    whole = _WHOLE_ROWS.get()
    if whole is not None and 0 < rows < whole:
        count = -(-int(count) * whole // rows)
    return bucket(count)


#: Up to this many rows, the fits of a search (:func:`parts_of`) pad their per-example arrays to the
#: whole sample's bucket (:func:`example_slots`): on small data a compiled program costs more than
#: the padding's arithmetic.
SMALL_SAMPLE = 4096


def example_slots(count: int) -> int:
    """The padded length of a fitted model's ``count`` per-example entries (an SVM's support
    vectors): the next power of two, at least 8, so that refits with other counts share programs;
    inside :func:`parts_of` a sample of at most :data:`SMALL_SAMPLE` rows, that sample's bucket, the
    same for every fit of the search (a fit keeps at most the sample's rows).

    >>> example_slots(100), example_slots(300)
    (128, 512)
    >>> with parts_of(500):
    ...     example_slots(100), example_slots(300)
    (512, 512)
    """
    whole = _WHOLE_ROWS.get()
    if whole is not None and count <= whole <= SMALL_SAMPLE:
        return bucket(whole)
    return max(SMALLEST, 1 << (int(count) - 1).bit_length())


def pad_rows(array, size: int, value=0, axis: int = 0) -> np.ndarray:
    """``array`` with rows of ``value`` appended along ``axis`` up to ``size`` (unchanged if it has them)."""
    array = np.asarray(array)
    missing = size - array.shape[axis]
    if missing <= 0:
        return array
    shape = list(array.shape)
    shape[axis] = missing
    return np.concatenate([array, np.full(shape, value, dtype=array.dtype)], axis=axis)


def on_bucket_rows(fn, X, *args, **kwargs):
    """``fn(X, ...)`` on the rows of ``X`` padded with zeros to their bucket, every array of its result
    (a pytree) cut back to ``X``'s rows, as NumPy: predicting on 359 rows, then on 360, runs one program."""
    n = X.shape[0]
    out = fn(pad_rows(X, bucket(n)), *args, **kwargs)
    return jax.tree.map(lambda a: np.asarray(a)[:n], out)


def shuffled(key, n: int) -> jax.Array:
    """A random order of ``range(n)`` in which the first rows keep their relative order whatever rows
    follow them: each row's rank comes from its own draw (prefix-stable with JAX's partitionable
    Threefry), so appending left-out rows to a sample leaves the order of its own rows as it was."""
    return jnp.argsort(jax.random.bits(key, (n,)), stable=True)
