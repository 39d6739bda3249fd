r"""The decision tree learner: the factory, its ``fit`` and prediction (UML section 18.2).

``fit`` is one jit-compiled program. Each feature is sorted once and a ``lax.while_loop`` over the
levels finds the best split of every node of a level at once by the sorted sweep of UML section
18.2.3 (:mod:`jaxlearn.trees._sweep`, growth in :mod:`jaxlearn.trees._grow`), until every node is a
leaf. On features of few values (at most 256 distinct values, or ``max_bins`` quantile bins) an eager
fit grows by class histograms over one bin per value in use instead, where they cost less: a
shallow tree (an int ``max_depth``) over every node a level could hold
(:mod:`jaxlearn.trees._histogram`), a tree of any depth over the nodes each level holds
(:mod:`jaxlearn.trees._deep_histograms`); bins from :mod:`jaxlearn.trees._bins`. All find the same
splits (tested); the params are described in :mod:`jaxlearn.trees._params`.

Notes on :func:`decision_tree`:

* As in ID3 and in scikit-learn, an impure node with a valid split is split even when the best
  gain is 0; a node whose features are all constant (no valid split) is a leaf.
* Tie rules: among splits of equal score the lowest feature index wins, then the lowest threshold;
  a majority tie at a leaf goes to the smallest class. scikit-learn visits features in a random
  order, so the trees agree where no two splits of a node have equal gain ("tie-free" data), which
  the tests check.
* Labels: the book's ID3 uses {0, 1}; ``fit`` takes any class labels ``0..k-1``. ``k`` is read off
  concrete labels when ``num_classes`` is ``None``, so pass ``num_classes`` to fit under
  ``jax.jit`` / ``jax.vmap`` over data.
* ``max_bins``: every feature is first quantised to at most ``max_bins`` quantile bins (per-feature
  quantiles of the training data; a value maps to its bin's upper edge, the mid-points between
  bins become the candidate thresholds), as histogram-based learners (LightGBM, scikit-learn's
  ``HistGradientBoosting``) do for large data.
"""

from __future__ import annotations

from typing import Optional, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._buckets import fit_bucket, pad_rows
from jaxlearn._checks import is_concrete
from jaxlearn._cpu_jit import NO_YNN_FUSIONS, cpu_jit
from jaxlearn.core import BatchLearner, learner_factory
from jaxlearn.trees._bins import fit_bins, pad_sample, quantized
from jaxlearn.trees._common import (
    TREE_RANGES,
    as_int,
    as_tree_sample,
    as_weights,
    check_query,
    classes_of,
    feature_count,
    tree_sample_check,
)
from jaxlearn.trees._criteria import check_criterion
from jaxlearn.trees._deep_histograms import deep_histograms, grow_binned
from jaxlearn.trees._features import presort, quantize
from jaxlearn.trees._histogram import grow_histograms, histograms_cheaper
from jaxlearn.trees._params import DecisionTreeParams, child
from jaxlearn.trees._sweep import grow

Array = jax.Array


@learner_factory(ranges=TREE_RANGES)
def decision_tree(
    max_depth: Optional[int],
    *,
    criterion: str = "gini",
    max_bins: Optional[int] = None,
    min_samples_leaf: int = 1,
    min_samples_split: int = 2,
    num_classes: Optional[int] = None,
    max_features: Union[str, int, float, None] = None,
) -> BatchLearner:
    r"""A decision tree grown greedily, level by level, to depth ``max_depth`` (ID3, UML 18.2).

    Each node splits on the feature :math:`j` and mid-point threshold :math:`\theta` of maximal gain,
    or is a leaf (its majority class) if pure, at ``max_depth``, with fewer than ``min_samples_split``
    examples or with no split leaving ``min_samples_leaf`` examples a side:

    .. math:: \mathrm{Gain}(S, j, \theta) = C(S) - P_S[x_j \le \theta]\, C(S_{x_j \le \theta})
              - P_S[x_j > \theta]\, C(S_{x_j > \theta}).

    Args:
      max_depth: the most levels :math:`D \in [0, 24]` (structural: at most
        :math:`\min(2^{D+1}, 2m) - 1` nodes; 0 is one leaf), or ``None``: grown until no leaf can
        split (at most :math:`2m - 1` nodes).
      criterion: the impurity :math:`C`: ``"gini"``, ``"entropy"`` or ``"train_error"``.
      max_bins: ``None`` (exact thresholds) or quantile bins per feature (>= 2) before growing.
      min_samples_leaf: the fewest training examples a child may receive.
      min_samples_split: the fewest training examples a node must hold to split (>= 2).
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (structural), or ``None``: ``max(y) + 1`` (>= 2).
      max_features: ``None`` (every feature at every node), or the size of a random subset of
        features each node splits on, drawn from ``key`` among those with a split in it (as in
        :func:`~jaxlearn.trees.random_forest`): ``"sqrt"``, ``"log2"``, an int or a fraction of
        :math:`d`.

    With ``sample_weight`` :math:`s_i \ge 0` every count above is a weighted count
    (:math:`P_S` the weighted shares, :math:`C` the impurity of the weighted class frequencies),
    as scikit-learn weighs a tree; ``min_samples_leaf`` and ``min_samples_split`` still count the
    examples (of positive weight), and an example of weight 0 takes no part. Integer weights grow
    the tree of the sample with each example repeated that many times (where the example counts do
    not bind).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      DecisionTreeParams`` (``key`` draws the feature subsets of ``max_features``, else unused;
      ``sample_weight`` (m,) >= 0, ``None``: all 1),
      ``predict(params, X)`` the int32 labels, for ``X`` of the training width :math:`d`
      (``params.feature_importances`` has length :math:`d`). See also :func:`predict_proba`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X, y = jnp.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]]), jnp.array([0, 0, 1, 1])
      >>> params = decision_tree(2).fit(jax.random.PRNGKey(0), X, y)
      >>> float(params.threshold[0]), int(params.feature[0]), decision_tree(2).predict(params, X).tolist()
      (1.5, 0, [0, 0, 1, 1])
      >>> weighted = decision_tree(0).fit(None, X, y, sample_weight=jnp.array([1.0, 1.0, 2.0, 4.0]))
      >>> predict_proba(weighted, X[:1]).tolist()  # one leaf: the weighted class frequencies
      [[0.25, 0.75]]

    References:
      UML sections 18.2 (ID3), 18.2.1 (gain measures), 18.2.3 (threshold splits).
    """
    max_depth, min_samples_leaf, max_bins = (
        as_int(max_depth),
        as_int(min_samples_leaf),
        as_int(max_bins),
    )
    min_samples_split = as_int(min_samples_split)
    check_criterion(criterion)
    feature_count(max_features, 1)  # validates the option

    def fit(key, X, y, sample_weight=None):
        return fit_at(key, X, y, sample_weight, classes_of(y, num_classes), max_depth)

    def fit_at(key, X, y, sample_weight, k, max_depth):
        X, y = as_tree_sample(X, y)
        weights = as_weights(sample_weight, X)
        size = feature_count(max_features, X.shape[1])
        subset = None if size >= X.shape[1] else size
        if subset is not None and key is None:
            raise ValueError(
                "expected `key` a JAX key to draw the feature subsets of `max_features`"
            )
        binned = fit_bins(X, max_bins, weights)
        if (
            binned is not None
            and subset is None
            and max_depth is not None
            and histograms_cheaper(max_depth, X.shape[0], X.shape[1], None, binned[1].shape[0], k)
        ):
            # few bins in use, or few distinct values, and a shallow tree: histograms, the same tree
            bins, edges = binned
            count = np.int32(bins.shape[0])
            # padded to size buckets: one program for every size in a bucket
            if is_concrete(y, weights):
                bins, edges, y, count = pad_sample(bins, edges, y)
                weights = None if weights is None else pad_rows(weights, y.shape[0])
            return _fit_binned(
                bins,
                edges,
                y,
                count,
                weights,
                max_depth=max_depth,
                num_classes=k,
                criterion=criterion,
                min_samples_leaf=min_samples_leaf,
                min_samples_split=min_samples_split,
            )
        if (
            binned is not None
            and is_concrete(y)
            and deep_histograms(weights, subset, min_samples_leaf, binned[1].shape[0], k)
        ):  # deeper, few bins in use or few distinct values: histograms of each level, the same tree
            bins, edges, y, count = pad_sample(*binned, y)
            return _fit_deep(
                key,
                bins,
                edges,
                y,
                count,
                max_depth=max_depth,
                num_classes=k,
                criterion=criterion,
                min_samples_leaf=min_samples_leaf,
                max_features=subset,
                min_samples_split=min_samples_split,
            )
        if binned is not None and max_bins is not None:  # each value its bin's upper edge, the
            X = quantized(*binned)  # quantiles of the rows of positive weight, as the histograms'
        if weights is None:
            weights = (
                np.ones(X.shape[0], np.int32) if is_concrete(X) else jnp.ones(X.shape[0], jnp.int32)
            )
        if is_concrete(X, y, weights):  # padded to size buckets: rows of weight 0 take no part
            size = fit_bucket(X.shape[0])
            X, y, weights = (pad_rows(a, size) for a in (X, y, weights))
        return _fit(
            key,
            X,
            y,
            weights,
            max_depth=max_depth,
            num_classes=k,
            criterion=criterion,
            min_samples_leaf=min_samples_leaf,
            max_features=subset,
            max_bins=None if binned is not None else max_bins,
            min_samples_split=min_samples_split,
        )

    return BatchLearner(fit, predict, check=tree_sample_check(num_classes))


def apply(params: DecisionTreeParams, X: ArrayLike) -> Array:
    """The index of the leaf each row of ``X`` (n, d) reaches (from the root, down to a leaf)."""
    return _apply(params, check_query(params, X))


@cpu_jit(extra_options=NO_YNN_FUSIONS)
def _apply(params, X):
    num_nodes = params.is_leaf.shape[-1]

    def step(carry):
        node, steps = carry
        down = jnp.clip(child(params, X, node), 0, num_nodes - 1)
        return jnp.where(params.is_leaf[node], node, down), steps + 1

    def going(carry):  # a row not at a leaf yet (a path is never longer than the tree's nodes)
        node, steps = carry
        return jnp.any(~params.is_leaf[node]) & (steps < num_nodes)

    node = jnp.zeros(X.shape[0], jnp.int32)
    return jax.lax.while_loop(going, step, (node, jnp.zeros([], jnp.int32)))[0]


def predict(params: DecisionTreeParams, X: ArrayLike) -> Array:
    """The majority class of the leaf each row of ``X`` reaches (int32; smallest class on a tie)."""
    return leaf_class(params, check_query(params, X))


def predict_proba(params: DecisionTreeParams, X: ArrayLike) -> Array:
    """The class frequencies of the training examples in the leaf each row of ``X`` reaches."""
    return _leaf_frequencies(params, check_query(params, X))


@jax.jit
def leaf_class(params, X):
    """:func:`predict` without the checks of ``X`` (one program: no operation compiled one by one)."""
    return jnp.argmax(params.counts[_apply(params, X)], axis=-1).astype(jnp.int32)


@jax.jit
def _leaf_frequencies(params, X):
    counts = params.counts[_apply(params, X)]
    return counts / jnp.sum(counts, axis=-1, keepdims=True)


@cpu_jit(
    extra_options=NO_YNN_FUSIONS,
    static_argnames=(
        "max_depth",
        "num_classes",
        "criterion",
        "min_samples_leaf",
        "max_features",
        "max_bins",
        "min_samples_split",
    ),
)
def _fit(
    key,
    X,
    y,
    weights,
    *,
    max_depth,
    num_classes,
    criterion,
    min_samples_leaf,
    max_features,
    max_bins,
    min_samples_split=2,
):
    if max_bins is not None:
        X = quantize(X, max_bins)
    if max_depth is None:  # as deep as the data allow: a node splits only when it holds 2 examples
        max_depth = max(X.shape[0] - 1, 0)
    return grow(
        key,
        X,
        y,
        weights,
        presort(X),
        max_depth=max_depth,
        num_classes=num_classes,
        criterion=criterion,
        min_samples_leaf=min_samples_leaf,
        max_features=max_features,
        min_samples_split=min_samples_split,
    )


@cpu_jit(
    extra_options=NO_YNN_FUSIONS,
    static_argnames=(
        "max_depth",
        "num_classes",
        "criterion",
        "min_samples_leaf",
        "max_features",
        "min_samples_split",
    ),
)
def _fit_deep(
    key,
    bins,
    edges,
    y,
    count,
    *,
    max_depth,
    num_classes,
    criterion,
    min_samples_leaf,
    max_features,
    min_samples_split,
):
    m = bins.shape[0]
    return grow_binned(
        key,
        bins,
        edges,
        y,
        (jnp.arange(m, dtype=jnp.int32) < count).astype(jnp.int32),  # the padding weighs 0
        max_depth=max(m - 1, 0) if max_depth is None else max_depth,
        num_classes=num_classes,
        criterion=criterion,
        min_samples_leaf=min_samples_leaf,
        max_features=max_features,
        min_samples_split=min_samples_split,
    )


@cpu_jit(
    extra_options=NO_YNN_FUSIONS,
    static_argnames=(
        "max_depth",
        "num_classes",
        "criterion",
        "min_samples_leaf",
        "min_samples_split",
    ),
)
def _fit_binned(
    bins,
    edges,
    y,
    count,
    weights=None,
    *,
    max_depth,
    num_classes,
    criterion,
    min_samples_leaf,
    min_samples_split=2,
):
    if weights is None:  # the padding weighs 0
        weights = (jnp.arange(bins.shape[0], dtype=jnp.int32) < count).astype(jnp.int32)
    params = grow_histograms(
        None,
        bins,
        edges,
        y,
        weights[None],
        max_depth=max_depth,
        num_classes=num_classes,
        criterion=criterion,
        min_samples_leaf=min_samples_leaf,
        max_features=None,
        min_samples_split=min_samples_split,
    )
    return jax.tree_util.tree_map(lambda a: a[0], params)
