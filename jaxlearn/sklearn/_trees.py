r"""scikit-learn estimators for the tree learners: ``DecisionTreeClassifier`` and ``RandomForestClassifier``.

jaxlearn grows a tree level by level in one compiled program, its nodes numbered breadth-first (at
most ``2 * n_samples - 1`` of them); ``max_depth=None`` grows until no leaf can split, as scikit-learn's
unlimited trees. A sample of a single class fits a single leaf.

Weights as scikit-learn's: row :math:`i` of class :math:`c` weighs :math:`w_i = s_i\,\kappa_c`
(``sample_weight`` times ``class_weight``; ``"balanced"``: :math:`\kappa_c = n / (K n_c)` on the whole
sample), and every class count of the growth is a sum of these weights: the impurities, gains, leaf
frequencies (``predict_proba``) and ``feature_importances_``. ``min_samples_leaf`` and
``min_samples_split`` count the rows of positive weight; a row of weight 0 takes no part. A forest's
tree weighs row :math:`i` by :math:`w_i` times its bootstrap multiplicity (``"balanced_subsample"``:
:math:`\kappa_c` recomputed on each tree's bootstrap sample).
"""

from __future__ import annotations

import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from jaxlearn import core, trees
from jaxlearn._buckets import fit_bucket, on_bucket_rows, pad_rows
from jaxlearn._checks import on_accelerator
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._shared import on_device
from jaxlearn.sklearn._base import (
    N_JOBS,
    InvalidParameterError,
    LogProbabilities,
    OnlyDefault,
    row_weights,
    sample_weights,
)
from jaxlearn.sklearn._multiclass import MulticlassClassifier

__all__ = ["DecisionTreeClassifier", "RandomForestClassifier"]

TREE_RANGES = trees.decision_tree.ranges  # the factory's own declared ranges

#: scikit-learn's name for the entropy criterion.
_CRITERIA = {"log_loss": "entropy"}


def _tree_votes(params, X):
    """(num_trees, n): each tree's label of each row of ``X``, as ``trees.decision_tree``'s predict
    (the argmax of its leaf counts)."""
    return jax.vmap(lambda tree: jnp.argmax(tree.counts[trees.apply(tree, X)], axis=-1))(
        params.trees
    )


@cpu_jit
def _votes_out_of_bag(params, X, out):
    """(n, K): the votes for each class of the trees whose bag left each row of ``X`` out (``out``
    (num_trees, n), 1 where the row is out of the tree's bag)."""
    k = params.trees.counts.shape[-1]
    votes = jax.nn.one_hot(_tree_votes(params, X), k, dtype=X.dtype)
    return jnp.einsum("tn,tnk->nk", out, votes)


@cpu_jit
def _vote_shares(params, X):
    """The share of the trees voting for each class: (n, K); its argmax is the forest's majority vote
    (the smallest class on a tie), as ``trees.random_forest``'s predict."""
    k = params.trees.counts.shape[-1]
    return jnp.mean(jax.nn.one_hot(_tree_votes(params, X), k, dtype=X.dtype), axis=0)


def _on_host(tree) -> bool:
    """Whether fitted trees live on the host (the CPU), where NumPy walks them down with no program to
    compile; on an accelerator the compiled walk runs where they are."""
    return not (isinstance(tree.feature, jax.Array) and on_accelerator(tree.feature))


def _host_leaves(tree, X) -> np.ndarray:
    """(T, n): the leaf each row of ``X`` reaches in each of the ``T`` trees stacked in ``tree`` (fields
    (T, N, ...)), the leaves of :func:`jaxlearn.trees.apply`, found by NumPy: a level of every tree a
    step, each step on the (tree, row) pairs not yet at a leaf."""
    feature, threshold, is_leaf, children = (
        np.asarray(a) for a in (tree.feature, tree.threshold, tree.is_leaf, tree.children)
    )
    num_trees, num_nodes = feature.shape
    n, d = X.shape
    columns = np.asarray(X, threshold.dtype).T.ravel()  # x_ij at j * n + i
    root = np.repeat(np.arange(num_trees, dtype=np.int64) * num_nodes, n)  # each pair's tree
    rows = np.tile(np.arange(n, dtype=np.int64), num_trees)
    feature, threshold = np.clip(feature.ravel(), 0, d - 1).astype(np.int64), threshold.ravel()
    is_leaf, children = is_leaf.ravel(), children.ravel()
    node = root.copy()  # (tree, row) -> the node it is at, numbered across the trees
    walking = np.flatnonzero(~is_leaf[node])
    for _ in range(num_nodes):  # a path is never longer than its tree's nodes
        if not walking.size:
            break
        at = node[walking]
        right = columns[feature[at] * n + rows[walking]] > threshold[at]
        at = root[walking] + np.clip(children[at] + right, 0, num_nodes - 1)
        node[walking] = at
        walking = walking[~is_leaf[at]]
    return (node - root).astype(np.int32).reshape(num_trees, n)


def _host_votes(tree, X) -> np.ndarray:
    """(T, n): each of the ``T`` stacked trees' class (the argmax of its leaf's counts, the smallest on
    a tie) for each row of ``X``, by NumPy (:func:`_host_leaves`)."""
    leaves = _host_leaves(tree, X)
    counts = np.asarray(tree.counts)
    return np.argmax(counts[np.arange(counts.shape[0])[:, None], leaves], axis=-1)


def _count_votes(votes, k: int, weights=None) -> np.ndarray:
    """(n, k): the (``weights``-weighted) number of trees voting for each class, from ``votes`` (T, n)."""
    n = votes.shape[1]
    cells = (np.arange(n) * k + votes).ravel()
    counts = np.bincount(cells, None if weights is None else weights.ravel(), n * k)
    return counts.reshape(n, k).astype(np.int64 if weights is None else weights.dtype)


class _TreeEstimator(LogProbabilities, MulticlassClassifier):
    """The parts the tree and the forest share: the fit (one class or more), class frequencies and
    feature importances."""

    _parameter_constraints = {
        "max_depth": (TREE_RANGES["max_depth"], None),
        "min_samples_leaf": TREE_RANGES["min_samples_leaf"],
        "max_bins": (TREE_RANGES["max_bins"], None),
    }
    #: scikit-learn's growth limits and pruning that jaxlearn's growers do not have
    _only_default = {
        "min_weight_fraction_leaf": OnlyDefault(
            (0.0,), "a leaf's size is limited by `min_samples_leaf` only"
        ),
        "max_leaf_nodes": OnlyDefault((None,), "the tree grows level by level, by `max_depth`"),
        "min_impurity_decrease": OnlyDefault((0.0,), "every split of positive gain is taken"),
        "ccp_alpha": OnlyDefault((0.0,), "the tree is not pruned"),
        "monotonic_cst": OnlyDefault((None,), "the splits are unconstrained"),
    }

    def _criterion(self):
        return _CRITERIA.get(self.criterion, self.criterion)

    def _min_split(self, X) -> int:
        """``min_samples_split`` as a count: an int >= 2 as it is, a fraction ``f`` in (0, 1] as ``ceil(f n)``
        (at least 2)."""
        value = self.min_samples_split
        if (
            isinstance(value, numbers.Integral)
            and not isinstance(value, (bool, np.bool_))
            and value >= 2
        ):
            return int(value)
        if isinstance(value, numbers.Real) and not isinstance(value, (numbers.Integral, np.bool_)):
            if 0 < value <= 1:
                return 2 if X is None else max(2, math.ceil(value * X.shape[0]))
        raise InvalidParameterError(
            f"{type(self).__name__}: expected `min_samples_split` an int in [2, inf) or a float in (0, 1], "
            f"got {value!r}"
        )

    #: the ``class_weight`` presets this estimator takes.
    _CLASS_WEIGHTS = ("balanced",)

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n, d) and labels ``y`` (n,) of one or more values; one value fits one leaf.

        Args:
          sample_weight: (n,) weights >= 0, or ``None`` (all 1); multiplied by ``class_weight``.

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        check_classification_targets(y)
        self._check_class_weight()
        self.classes_, index = np.unique(y, return_inverse=True)
        weights = self._row_weights(X, index, sample_weight)
        learner = self._batch_learner(X, self.classes_.size)
        self.params_ = self._grow(learner, X, index.astype(np.int32), weights)
        return self

    def _check_class_weight(self):
        value = self.class_weight
        if value is None or isinstance(value, dict):
            return
        if isinstance(value, str) and value in self._CLASS_WEIGHTS:
            return
        raise InvalidParameterError(
            f"{type(self).__name__}: expected `class_weight` None, a dict {{label: weight}} or one of "
            f"{self._CLASS_WEIGHTS}, got {value!r}"
        )

    def _row_weights(self, X, index, sample_weight):
        """The rows' weights: ``sample_weight`` times their class's weight, or ``None`` when both are
        ``None`` (every row weighs 1: the growth counts examples)."""
        class_weight = self._row_class_weight()
        if sample_weight is None and class_weight is None:
            return None
        weights = None if sample_weight is None else sample_weights(sample_weight, X)
        if weights is not None and (weights < 0).any():
            raise ValueError(f"expected `sample_weight` >= 0, found {weights.min():g}")
        weights = row_weights(class_weight, self.classes_, index, weights)
        if not np.sum(weights) > 0:
            raise ValueError(
                "expected `sample_weight` and `class_weight` to give some row a positive weight, "
                "got all weights 0"
            )
        return weights

    def _row_class_weight(self):
        """The ``class_weight`` that multiplies each row's ``sample_weight`` before the fit."""
        return self.class_weight

    def _grow(self, learner, X, index, weights=None):
        """The learner's params on the validated sample (eager: ``max_depth=None`` reads ``X``)."""
        return learner.fit(self._fit_key(), X, index, sample_weight=weights)

    @property
    def feature_importances_(self) -> np.ndarray:
        """The mean decrease in impurity of each feature, normalised to sum 1 (shape (d,))."""
        check_is_fitted(self)
        return np.asarray(self.params_.feature_importances)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of the rows of ``X`` (n, d): shape (n, K), columns in ``classes_`` order."""
        return self._evaluate(X)[1][
            :, : self.classes_.size
        ]  # one class: the learner's second is empty


class DecisionTreeClassifier(_TreeEstimator):
    r"""A decision tree (``jaxlearn.trees.decision_tree``: ID3 with mid-point threshold splits, UML 18.2).

    Each node splits on the feature and threshold of largest impurity decrease. Ties go to the first
    feature in an order drawn from ``random_state`` (``None``: the features' own order), then to the
    lowest threshold; scikit-learn draws a new order at every node, so the two agree wherever no two
    splits tie. ``predict_proba`` is the class frequencies of the training examples in the leaf;
    ``feature_importances_`` the normalised mean decrease in impurity, as scikit-learn. With weights
    (``sample_weight`` times ``class_weight``) the class frequencies, impurities and gains are
    weighted, as scikit-learn's; ``min_samples_*`` count the rows of positive weight.

    Args:
      criterion: ``"gini"``, ``"entropy"`` (or ``"log_loss"``) or ``"train_error"`` (the book's).
      max_depth: the depth, in [0, 24]; ``None``: grown until every leaf is pure or too small to split.
      min_samples_split: the fewest training examples a node must hold to split: an int >= 2, or a
        fraction of ``n_samples`` in (0, 1].
      min_samples_leaf: the fewest training examples a leaf may hold (>= 1).
      max_bins: ``None`` (exact thresholds) or quantile bins per feature (>= 2) for large samples.
      random_state: draws the order of the features that breaks ties between equally good splits
        (``None``, an int or a ``RandomState``; ``None``: the features' own order).
      class_weight: ``None`` (all 1), ``{label: weight}`` (missing labels 1) or ``"balanced"``
        (:math:`n / (K n_c)`): multiplies the weight of each row of class :math:`c`.
      max_features: ``None`` (every feature at every node), or the size of a random subset each
        node splits on, drawn from ``random_state`` among the features with a split in it:
        ``"sqrt"``, ``"log2"``, an int or a fraction of ``n_features``, as scikit-learn's.
      splitter: scikit-learn's default only (``"best"``): the best split of the features searched.
      min_weight_fraction_leaf, max_leaf_nodes, min_impurity_decrease, ccp_alpha, monotonic_cst:
        scikit-learn's defaults only (``0.0``, ``None``, ``0.0``, ``0.0``, ``None``): no other limit on
        the growth, no pruning, no constraint.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import DecisionTreeClassifier
      >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]])
      >>> tree = DecisionTreeClassifier(max_depth=2).fit(X, ["no", "no", "yes", "yes"])
      >>> tree.predict([[0.5, 1.0], [2.5, 0.0]]).tolist(), tree.feature_importances_.tolist()
      (['no', 'yes'], [1.0, 0.0])
    """

    _only_default = {
        "splitter": OnlyDefault(("best",), "jaxlearn grows the best split at every node"),
    }

    def __init__(
        self,
        *,
        criterion: str = "gini",
        splitter: str = "best",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf: int = 1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        max_bins=None,
        random_state=None,
        class_weight=None,
        ccp_alpha=0.0,
        monotonic_cst=None,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.max_bins = max_bins
        self.random_state = random_state
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst

    def _fit_key(self):
        # the feature subsets of `max_features` are drawn from this key; without them the tree draws
        # nothing (its tie order is a permutation of the columns)
        return None if self.max_features is None else self._key()

    def _grow(self, learner, X, index, weights=None):
        """The tree grown on the columns of ``X`` in the order drawn from ``random_state`` (ties go to
        the first), its features named back in ``X``'s own order."""
        if self.random_state is None:
            return super()._grow(learner, X, index, weights)
        order = check_random_state(self.random_state).permutation(X.shape[1])
        params = super()._grow(learner, X[:, order], index, weights)
        importances = np.empty_like(np.asarray(params.feature_importances))
        importances[order] = np.asarray(params.feature_importances)
        is_leaf, feature = jax.device_get((params.is_leaf, params.feature))  # named on the host
        return params._replace(
            feature=on_device(np.where(is_leaf, 0, order[feature]).astype(np.int32)),
            feature_importances=on_device(importances),
        )

    def _batch_learner(self, X, n_classes):
        return trees.decision_tree(
            self.max_depth,
            criterion=self._criterion(),
            max_bins=self.max_bins,
            min_samples_leaf=self.min_samples_leaf,
            min_samples_split=self._min_split(X),
            num_classes=max(n_classes, 2),  # one class: a learner of two, whose second never occurs
            max_features=self.max_features,
        )

    def _evaluate(self, X):
        """``(class indices, class frequencies)`` of the rows of ``X``, read off the counts of the leaf
        each row reaches (one pass down the tree; the smallest class on a tie, as the learner's)."""
        queries = self._check_X(X)  # first: the fitted check
        leaves = self._leaves(queries)
        counts = np.asarray(self.params_.counts)[leaves]
        return np.argmax(counts, axis=1), counts / counts.sum(axis=1, keepdims=True)

    def apply(self, X) -> np.ndarray:
        """The index of the leaf (in the breadth-first numbering of ``params_``) each row of ``X`` reaches."""
        return self._leaves(self._check_X(X))

    def _leaves(self, X) -> np.ndarray:
        """The leaf each row of the validated ``X`` reaches: NumPy's walk on the CPU, the compiled one
        (queries padded to their size bucket) where the tree lives on an accelerator."""
        if _on_host(self.params_):
            return _host_leaves(jax.tree.map(lambda a: np.asarray(a)[None], self.params_), X)[0]
        return on_bucket_rows(lambda rows: trees.apply(self.params_, rows), X)

    def get_depth(self) -> int:
        """The depth of the grown tree (of its deepest reachable leaf)."""
        check_is_fitted(self)
        is_leaf, children = jax.device_get((self.params_.is_leaf, self.params_.children))
        level, depth = np.zeros(1, np.int64), 0
        while True:  # down the tree a level at a time
            internal = level[~is_leaf[level]]
            if internal.size == 0:
                return depth
            level, depth = np.concatenate([children[internal], children[internal] + 1]), depth + 1


class RandomForestClassifier(_TreeEstimator):
    r"""A random forest (``jaxlearn.trees.random_forest``; Breiman 2001, UML 18.3): all trees one program.

    Tree :math:`t` is grown on a bootstrap sample with a random subset of ``max_features`` features per
    node; the forest predicts the majority vote of its trees (ties: the first class), and
    ``predict_proba`` is the share of the trees voting for each class, so its argmax is ``predict``
    (scikit-learn averages the trees' leaf frequencies instead). Tree :math:`t` weighs row :math:`i`
    by its bootstrap multiplicity times ``sample_weight`` times its class's weight, as scikit-learn's.

    Args:
      n_estimators: the number of trees (>= 1).
      criterion: ``"gini"``, ``"entropy"`` (or ``"log_loss"``) or ``"train_error"``.
      max_depth: the depth of every tree, in [0, 24]; ``None``: grown until every leaf of every tree is pure
        or too small to split.
      min_samples_split: the fewest training examples a node must hold to split: an int >= 2, or a
        fraction of ``n_samples`` in (0, 1].
      min_samples_leaf: the fewest training examples a leaf may hold (>= 1).
      max_features: features drawn per node: ``"sqrt"``, ``"log2"``, an int, a fraction, or ``None`` (all).
      bootstrap: grow each tree on a bootstrap sample (else on the whole sample).
      max_bins: quantile bins per feature (histogram growth; the histograms of a level take
        ``n_estimators * nodes * features drawn * max_bins * classes`` counts), or ``None``: exact.
      random_state: seeds the bootstrap samples and feature draws (``None``, an int, a ``RandomState``).
      class_weight: ``None``, ``{label: weight}``, ``"balanced"`` (:math:`n / (K n_c)` on the whole
        sample) or ``"balanced_subsample"`` (the same on each tree's bootstrap sample: :math:`n` the
        draws, :math:`n_c` those of class :math:`c`, :math:`K` the classes drawn; without bootstrap,
        ``"balanced"``).
      n_jobs, verbose: accepted for scikit-learn's API; jaxlearn grows all trees as one program and
        prints nothing.
      max_samples: the draws of each bootstrap sample: ``None`` (``n_samples``), an int in
        ``[1, n_samples]`` or a fraction of ``n_samples`` in (0, 1], as scikit-learn's.
      oob_score: ``True``: score each training row by the trees whose bootstrap sample left it out
        (``oob_decision_function_``, their vote shares; ``oob_score_``, the accuracy of its argmax,
        as scikit-learn's; with ``bootstrap`` only). A row no tree left out scores 0 in every
        class, with scikit-learn's warning.
      warm_start: scikit-learn's default only (``False``): a new forest each fit.
      min_weight_fraction_leaf, max_leaf_nodes, min_impurity_decrease, ccp_alpha, monotonic_cst:
        scikit-learn's defaults only (``0.0``, ``None``, ``0.0``, ``0.0``, ``None``): no other limit on
        the growth, no pruning, no constraint.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import RandomForestClassifier
      >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]] * 5)
      >>> forest = RandomForestClassifier(n_estimators=8, max_depth=2, random_state=0)
      >>> forest.fit(X, [0, 0, 1, 1] * 5).predict(X[:4]).tolist()
      [0, 0, 1, 1]
    """

    _parameter_constraints = {"n_estimators": core.POSITIVE_INT}
    _no_effect = {"n_jobs": N_JOBS, "verbose": None}
    _only_default = {"warm_start": OnlyDefault((False,), "every fit grows a new forest")}

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: str = "gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf: int = 1,
        min_weight_fraction_leaf=0.0,
        max_features="sqrt",
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        bootstrap: bool = True,
        oob_score=False,
        n_jobs=None,
        max_bins=64,
        random_state=None,
        verbose=0,
        warm_start=False,
        class_weight=None,
        ccp_alpha=0.0,
        max_samples=None,
        monotonic_cst=None,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.max_bins = max_bins
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.max_samples = max_samples
        self.monotonic_cst = monotonic_cst

    _CLASS_WEIGHTS = ("balanced", "balanced_subsample")

    def _subsample(self) -> bool:
        """``class_weight="balanced_subsample"`` with bootstrap: balanced per tree, in the forest."""
        return self.class_weight == "balanced_subsample" and bool(self.bootstrap)

    def _row_class_weight(self):
        if self.class_weight == "balanced_subsample":  # per tree; without bootstrap, on the sample
            return None if self._subsample() else "balanced"
        return self.class_weight

    def _batch_learner(self, X, n_classes):
        return trees.random_forest(
            self.n_estimators,
            self.max_depth,
            max_features=self.max_features,
            bootstrap=self.bootstrap,
            criterion=self._criterion(),
            min_samples_leaf=self.min_samples_leaf,
            min_samples_split=self._min_split(X),
            max_bins=self.max_bins,
            num_classes=max(n_classes, 2),
            balanced_subsample=self._subsample(),
            max_samples=self.max_samples,
        )

    @property
    def estimators_(self) -> list:
        """The forest's trees as fitted :class:`DecisionTreeClassifier` s (each one's ``params_`` a
        slice of ``params_.trees``, grown on its bootstrap sample), as scikit-learn's ``estimators_``."""
        check_is_fitted(self)
        layers = jax.device_get(self.params_.trees)  # one transfer; the trees are views of it
        options = dict(
            criterion=self.criterion,
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            max_features=self.max_features,
            max_bins=self.max_bins,
            class_weight=self.class_weight if self.class_weight != "balanced_subsample" else None,
        )
        fitted = {
            name: getattr(self, name)
            for name in ("classes_", "n_features_in_", "feature_names_in_")
            if hasattr(self, name)
        }
        trees_ = [DecisionTreeClassifier(**options) for _ in range(self.n_estimators)]
        for t, tree in enumerate(trees_):
            vars(tree).update(fitted, params_=jax.tree.map(lambda a, t=t: a[t], layers))
        return trees_

    def __len__(self) -> int:
        """The number of trees, as scikit-learn's ensembles."""
        return self.n_estimators

    def __getitem__(self, index):
        """The ``index``-th tree of :attr:`estimators_`."""
        return self.estimators_[index]

    def __iter__(self):
        return iter(self.estimators_)

    def _grow(self, learner, X, index, weights=None):
        for name in ("oob_score_", "oob_decision_function_"):
            self.__dict__.pop(name, None)
        if self.oob_score and not self.bootstrap:
            raise ValueError(
                "expected `oob_score` False with bootstrap=False: out-of-bag estimation needs "
                "bootstrap samples"
            )
        key = self._fit_key()
        params = learner.fit(key, X, index, sample_weight=weights)
        if self.oob_score:
            self._score_out_of_bag(params, key, X, index)
        return params

    def _score_out_of_bag(self, params, key, X, index):
        """``oob_decision_function_`` and ``oob_score_`` (Breiman's out-of-bag estimate)."""
        n, size = X.shape[0], fit_bucket(X.shape[0])
        counts = np.asarray(trees.bootstrap_counts(key, self.n_estimators, n, self.max_samples))
        out = (counts == 0).astype(X.dtype)  # (trees, n): the row is out of the tree's bag
        if _on_host(params.trees):
            votes = _count_votes(_host_votes(params.trees, X), params.trees.counts.shape[-1], out)
        else:
            votes = _votes_out_of_bag(params, pad_rows(X, size), pad_rows(out.T, size).T)
        votes = np.asarray(votes)
        judges = out.sum(axis=0)
        if not judges.all():
            warnings.warn(
                "Some inputs do not have OOB scores. This probably means too few trees were used "
                "to compute any reliable OOB estimates.",
                UserWarning,
                stacklevel=5,
            )
        shares = votes[:n, : self.classes_.size] / np.maximum(judges, 1)[:, None]
        self.oob_decision_function_ = shares
        self.oob_score_ = float(np.mean(np.argmax(shares, axis=1) == index))

    def _evaluate(self, X):
        """``(class indices, vote shares)`` of the rows of ``X``: one pass down every tree."""
        queries = self._check_X(X)  # first: the fitted check
        forest = self.params_.trees
        if _on_host(forest):
            votes = _count_votes(_host_votes(forest, queries), forest.counts.shape[-1])
            shares = votes.astype(queries.dtype) / queries.dtype.type(forest.feature.shape[0])
        else:
            shares = on_bucket_rows(lambda rows: _vote_shares(self.params_, rows), queries)
        return np.argmax(shares, axis=1), shares
