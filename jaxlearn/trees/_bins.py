r"""The bins a fit grows its trees on, as few as the data needs (read off concrete data before tracing).

* ``max_bins=B``: the quantile bins of :func:`~jaxlearn.trees._features.bin_features`, renumbered so
  that only the bins in use remain (a quantile edge repeated over several bins is one bin): the
  digits' 256 quantile bins are at most 17 per pixel. The bins keep their order and edges, so the
  trees are those of the 256 bins, at a fifteenth of the histogram work.
* ``max_bins=None`` (exact thresholds): when no feature has more than :data:`MAX_EXACT_BINS` distinct
  values, one bin per distinct value; the histograms then find exactly the splits of the sorted
  sweep (same mid-points, same tie rules), and cheaply.

The number of bins is a shape, so it must be known when the growth is traced: these functions
return ``None`` for traced data (a fit under ``jit`` or ``vmap``), and the fit then bins inside its
program (``max_bins`` bins, or the sorted sweep for exact thresholds).
"""

from __future__ import annotations

from typing import Optional

import jax
import numpy as np

from jaxlearn._buckets import bucket, fit_bucket, pad_rows

Array = jax.Array

#: Exact thresholds are grown by histograms when every feature has at most this many distinct values.
MAX_EXACT_BINS = 256


def fit_bins(X, max_bins: Optional[int], weights=None) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """``(bins, edges)`` of the concrete sample ``X`` (m, d) with only the bins in use, or ``None``.

    ``bins`` (m, d) int32 in ``0..B-1`` and ``edges`` (B, d), :math:`B` the most bins any feature
    uses (the unused tail of a column repeats its last edge). ``None``: ``X`` (or ``weights``) is
    traced, or exact thresholds (``max_bins=None``) on a feature of more than :data:`MAX_EXACT_BINS`
    distinct values. ``weights`` (m,): the quantiles are those of the rows of positive weight (a row
    of weight 0 takes no part; it still gets a bin).
    """
    if isinstance(X, jax.core.Tracer) or isinstance(weights, jax.core.Tracer):
        return None
    if max_bins is None:
        return _distinct_bins(np.asarray(X))
    rows = None if weights is None else np.asarray(weights) > 0
    bins, e = quantile_bins(np.asarray(X), max_bins, rows)
    rank = np.concatenate([np.zeros((1, e.shape[1]), np.int32), np.cumsum(e[1:] > e[:-1], axis=0)])
    used = int(rank[-1].max()) + 1
    compact = np.repeat(e[-1:], used, axis=0)  # the tail of a column: its last edge
    compact[rank, np.arange(e.shape[1])] = e  # the edges of a run of equal edges are equal
    renumbered = np.take_along_axis(rank.astype(np.int32), bins, axis=0)
    return renumbered, compact


def quantile_bins(X: np.ndarray, max_bins: int, rows=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~jaxlearn.trees._features.bin_features` of a concrete sample, in NumPy: the same bins and
    edges (the same float quantile positions, "higher" method), without compiling a sort. ``rows``
    (m,) bool: the quantiles are those of these rows (``None``: all)."""
    sample = X if rows is None else X[rows]
    m = sample.shape[0]
    qs = _quantile_levels(max_bins, X.dtype.name)
    position = np.ceil(qs * np.asarray(m - 1, qs.dtype)).astype(
        np.int64
    )  # as jnp.quantile, "higher"
    edges = np.sort(sample, axis=0)[np.clip(position, 0, m - 1)]
    bins = np.stack([np.searchsorted(e, c, side="left") for e, c in zip(edges.T, X.T)], axis=1)
    return np.clip(bins, 0, max_bins - 1).astype(np.int32), edges


def _quantile_levels(max_bins: int, dtype: str) -> np.ndarray:
    """The quantile levels of :func:`bin_features`, ``jnp.linspace(0, 1, max_bins + 1)[1:]`` in the
    sample's dtype, as NumPy computes them (no program compiled): ``i`` times the rounded ``1 /
    max_bins``, as XLA computes JAX's ``i / max_bins``, and 1 last."""
    dtype = np.dtype(dtype).type
    levels = np.arange(1, max_bins, dtype=dtype) * (dtype(1) / dtype(max_bins))
    return np.append(levels, dtype(1))


def _distinct_bins(X: np.ndarray) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """One bin per distinct value of each feature, or ``None`` if a feature has too many values."""
    m, d = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    ordered = np.take_along_axis(X, order, axis=0)
    new = np.ones((m, d), bool)  # the first of each run of equal values, per column
    new[1:] = ordered[1:] != ordered[:-1]
    rank = np.cumsum(new, axis=0, dtype=np.int32) - 1  # the bin of each sorted value
    if rank[-1].max() >= MAX_EXACT_BINS:
        return None
    num_bins = max(2, int(rank[-1].max()) + 1)
    columns = np.broadcast_to(np.arange(d), (m, d))
    edges = np.repeat(ordered[-1:], num_bins, axis=0)  # a column's unused tail: its last value
    edges[rank[new], columns[new]] = ordered[new]
    bins = np.empty((m, d), np.int32)
    bins[order, columns] = rank
    return bins, edges


def quantized(bins, edges) -> np.ndarray:
    """The sample of :func:`fit_bins`'s ``(bins, edges)`` with each value replaced by its bin's upper
    edge (what :func:`~jaxlearn.trees._features.quantize` gives, with these quantiles)."""
    return np.take_along_axis(np.asarray(edges), np.asarray(bins), axis=0)


def pad_sample(bins, edges, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A binned sample padded to size buckets (:func:`jaxlearn._buckets.bucket`), so that every sample
    size and bin count in a bucket grows its trees with one compiled program: rows of bin 0 and label
    0 that take no part (their weight is 0: only the first ``count`` rows are the sample), and edges
    that repeat each column's last one (bins no example falls in). Returns ``(bins, edges, y, count)``."""
    bins, edges, y = np.asarray(bins), np.asarray(edges), np.asarray(y)
    count = bins.shape[0]
    size = fit_bucket(count)
    bins, y = pad_rows(bins, size), pad_rows(y, size)
    tail = np.repeat(edges[-1:], bucket(edges.shape[0]) - edges.shape[0], axis=0)
    return bins, np.concatenate([edges, tail]), y, np.asarray(count, np.int32)
