r"""Random forests: trees grown on bootstrap samples with random feature subsets, one vmapped program
(SPEC section 15.6; UML section 18.3, after Breiman 2001)."""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import BatchLearner, check_positive_int
from jaxlearn.trees._tree import (
    DecisionTreeParams,
    _check_bins,
    _check_criterion,
    bin_features,
    check_depth,
    check_tree_sample,
    grow,
    grow_binned,
    predict,
    presort,
)

Array = jax.Array


class RandomForestParams(NamedTuple):
    """``trees``: the :class:`~jaxlearn.trees.DecisionTreeParams` of every tree, stacked on a leading axis."""

    trees: DecisionTreeParams


def random_forest(
    num_trees: int,
    max_depth: int,
    *,
    max_features: Union[str, int, float, None] = "sqrt",
    bootstrap: bool = True,
    criterion: str = "gini",
    min_samples_leaf: int = 1,
    max_bins: Optional[int] = 256,
    num_classes: Optional[int] = None,
) -> BatchLearner:
    r"""A random forest: ``num_trees`` trees voting by majority (UML section 18.3).

    Tree :math:`t` is grown by :func:`~jaxlearn.trees.decision_tree`'s rule on its own random
    vector :math:`\theta_t` (UML 18.3): (i) a bootstrap sample :math:`S'` of size :math:`m` drawn
    uniformly with replacement from :math:`S` (``bootstrap=True``; it enters as integer multiplicities
    of the examples), and (ii) at every node a subset :math:`I` of ``max_features`` features drawn
    uniformly without replacement, the node splitting on the best feature of :math:`I` (per node,
    as scikit-learn does; features constant in the node are not drawn). All trees are one program:
    :func:`jax.vmap` of the tree growth over the trees' keys.

    Algorithm (``max_bins=B``, the default 256): every feature is quantised once, at the start of
    ``fit``, to at most :math:`B` quantile bins (:func:`~jaxlearn.trees._tree.bin_features`); the
    binned sample is shared by all trees, since a bootstrap sample only reweights the examples. Each
    level of each tree is then grown by class histograms (as LightGBM and scikit-learn's
    ``HistGradientBoosting``): one scatter-add of the examples' weighted one-hot labels into the
    histograms of every (node, drawn feature, bin), cumulative sums over the bins for the left
    counts of the split "bin :math:`\le b`", the gains and arg-maxes. A level costs
    :math:`O(m\,r\,k + w\,r\,B\,k)` for the :math:`r` drawn features, :math:`w` nodes and
    :math:`k` classes: no sorting, and only the drawn features are touched (the sorted-order
    sweep of :func:`~jaxlearn.trees.decision_tree` costs :math:`O(m\,d\,k)` plus the partition of
    all :math:`d` sorted orders a level). The trees are exactly the single trees of
    ``decision_tree(max_depth, max_bins=B)`` grown on the same weighted sample (tested); split
    thresholds are mid-points between bin edges. ``max_bins=None`` grows the trees on exact
    mid-point thresholds by the sorted sweep instead (slower: every feature's sorted order is
    partitioned at every level).

    The forest predicts the majority vote of its trees' labels; a tie goes to the smallest class.
    (scikit-learn's ``RandomForestClassifier`` averages the trees' class probabilities instead.)
    With ``bootstrap=False`` and ``max_features=None`` every tree is the single tree
    ``decision_tree(max_depth, max_bins=max_bins)`` (tested, binned and exact).

    Args:
      num_trees: the number of trees (structural).
      max_depth: the depth of every tree (structural).
      max_features: the size :math:`k` of the per-node feature subsets: ``"sqrt"``
        (:math:`\lfloor\sqrt d\rfloor`), ``"log2"`` (:math:`\lfloor\log_2 d\rfloor`), an int, a fraction of
        :math:`d` in (0, 1], or ``None`` (all :math:`d` features); at least 1.
      bootstrap: grow each tree on a bootstrap sample (else on :math:`S`).
      criterion, min_samples_leaf, num_classes: as for :func:`~jaxlearn.trees.decision_tree`.
      max_bins: the number of quantile bins per feature (default 256, the histogram algorithm
        above), or ``None`` for exact mid-point thresholds (the sorted sweep).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> RandomForestParams`` and
      ``predict(params, X)`` the int32 majority vote.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X = jnp.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]] * 5)
      >>> y = jnp.array([0, 0, 1, 1] * 5)
      >>> forest = random_forest(8, 2)
      >>> params = forest.fit(jax.random.PRNGKey(0), X, y)
      >>> forest.predict(params, X[:4]).tolist()
      [0, 0, 1, 1]

    References:
      UML section 18.3; Breiman (2001), "Random forests"; SPEC 15.6.
    """
    num_trees = check_positive_int("num_trees", num_trees)
    max_depth = check_depth(max_depth)
    _check_criterion(criterion)
    min_samples_leaf = check_positive_int("min_samples_leaf", min_samples_leaf)
    max_bins = None if max_bins is None else _check_bins(max_bins)
    _feature_count(max_features, 1)  # validates the option

    def fit(key, X, y):
        X, y, k = check_tree_sample(X, y, num_classes)
        size = _feature_count(max_features, X.shape[1])
        return _fit(
            key,
            X,
            y,
            num_trees=num_trees,
            max_depth=max_depth,
            num_classes=k,
            criterion=criterion,
            min_samples_leaf=min_samples_leaf,
            max_features=None if size >= X.shape[1] else size,
            bootstrap=bool(bootstrap),
            max_bins=max_bins,
        )

    def predict_fn(params, X):
        return forest_predict(params, X)

    return BatchLearner(fit, predict_fn)


def _feature_count(max_features, d) -> int:
    if max_features is None:
        return d
    if max_features == "sqrt":
        return max(1, int(math.isqrt(d)))
    if max_features == "log2":
        return max(1, int(math.log2(d))) if d > 1 else 1
    if (
        isinstance(max_features, (int, np.integer))
        and not isinstance(max_features, bool)
        and max_features >= 1
    ):
        return min(int(max_features), d)
    if isinstance(max_features, float) and 0 < max_features <= 1:
        return max(1, int(max_features * d))
    raise ValueError(
        f"expected `max_features` in {{'sqrt', 'log2', None}}, a positive int or a float in (0, 1], "
        f"got {max_features!r}"
    )


@functools.partial(
    jax.jit,
    static_argnames=(
        "num_trees",
        "max_depth",
        "num_classes",
        "criterion",
        "min_samples_leaf",
        "max_features",
        "bootstrap",
        "max_bins",
    ),
)
def _fit(
    key,
    X,
    y,
    *,
    num_trees,
    max_depth,
    num_classes,
    criterion,
    min_samples_leaf,
    max_features,
    bootstrap,
    max_bins,
):
    m = X.shape[0]
    if max_bins is None:
        order = presort(X)  # shared by every tree
    else:
        bins, edges = bin_features(X, max_bins)  # shared by every tree
    keys = jax.random.split(key, num_trees)

    def one(key):
        draw_key, grow_key = jax.random.split(key)
        if bootstrap:
            draws = jax.random.randint(draw_key, (m,), 0, m)
            weights = jax.ops.segment_sum(jnp.ones(m, jnp.int32), draws, num_segments=m)
        else:
            weights = jnp.ones(m, jnp.int32)
        if max_bins is not None:
            return grow_binned(
                grow_key,
                bins,
                edges,
                y,
                weights,
                max_depth=max_depth,
                num_classes=num_classes,
                criterion=criterion,
                min_samples_leaf=min_samples_leaf,
                max_features=max_features,
            )
        return grow(
            grow_key,
            X,
            y,
            weights,
            order,
            max_depth=max_depth,
            num_classes=num_classes,
            criterion=criterion,
            min_samples_leaf=min_samples_leaf,
            max_features=max_features,
        )

    return RandomForestParams(jax.vmap(one)(keys))


def forest_predict(params: RandomForestParams, X: ArrayLike) -> Array:
    """The majority vote of the trees (int32; the smallest class on a tie)."""
    k = params.trees.counts.shape[-1]
    votes = jax.vmap(predict, in_axes=(0, None))(params.trees, X)  # (num_trees, n)
    counts = jnp.sum(jax.nn.one_hot(votes, k, dtype=jnp.int32), axis=0, dtype=jnp.int32)
    return jnp.argmax(counts, axis=-1).astype(jnp.int32)
