r"""Random forests: trees grown on bootstrap samples with random feature subsets, one vmapped program
(UML section 18.3, after Breiman 2001); an eager fit on a multi-core CPU runs that program on one
slice of the trees per core, in threads."""

from __future__ import annotations

import functools
import numbers
from typing import NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from jax.typing import ArrayLike

from jaxlearn._buckets import bucket, fit_bucket, pad_rows
from jaxlearn._checks import is_concrete
from jaxlearn._cpu_jit import NO_YNN_FUSIONS, cpu_jit
from jaxlearn._progress import scan
from jaxlearn._sharding import check_mesh, check_progress
from jaxlearn._threads import cpu_parts, join_slices, run_in_threads
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.trees._bins import fit_bins, pad_sample, quantized
from jaxlearn.trees._common import (
    TREE_RANGES,
    as_int,
    as_tree_sample,
    as_weights,
    check_query,
    check_tree,
    classes_of,
    feature_count,
    tree_sample_check,
)
from jaxlearn.trees._criteria import check_criterion
from jaxlearn.trees._deep_histograms import deep_histograms, grow_binned
from jaxlearn.trees._features import bin_features, presort, quantize
from jaxlearn.trees._grow import heap_uniforms
from jaxlearn.trees._histogram import (
    FOREST_DEEP_LEVELS,
    grow_histograms,
    histograms_cheaper,
)
from jaxlearn.trees._params import DecisionTreeParams
from jaxlearn.trees._sweep import grow
from jaxlearn.trees._tree import leaf_class

Array = jax.Array


@loadable
class RandomForestParams(NamedTuple):
    """``trees``: the :class:`~jaxlearn.trees.DecisionTreeParams` of every tree, stacked on a leading axis.

    ``feature_importances`` (a property, (d,)): the trees' mean decrease in impurity, averaged over
    the trees and normalised to sum 1 (scikit-learn's ``feature_importances_``).
    """

    trees: DecisionTreeParams

    @property
    def feature_importances(self) -> Array:
        mean = jnp.mean(self.trees.feature_importances, axis=0)
        total = jnp.sum(mean)
        return mean / jnp.where(total > 0, total, 1)


@learner_factory(ranges={**TREE_RANGES, "num_trees": POSITIVE_INT, "max_samples": POSITIVE})
def random_forest(
    num_trees: int,
    max_depth: Optional[int],
    *,
    max_features: Union[str, int, float, None] = "sqrt",
    bootstrap: bool = True,
    criterion: str = "gini",
    min_samples_leaf: int = 1,
    min_samples_split: int = 2,
    max_bins: Optional[int] = 256,
    num_classes: Optional[int] = None,
    balanced_subsample: bool = False,
    max_samples: Union[int, float, None] = None,
    progress: bool = False,
    mesh: Optional[Mesh] = None,
) -> BatchLearner:
    r"""A random forest: ``num_trees`` trees voting by majority (UML section 18.3).

    Tree :math:`t` is :func:`~jaxlearn.trees.decision_tree` on its random vector :math:`\theta_t`:
    a bootstrap sample, and per node a subset of ``max_features`` features to split on:

    .. math:: h(x) = \arg\max_c\ \big|\{t : h_{\theta_t}(x) = c\}\big| \quad \text{(ties: smallest } c).

    With ``sample_weight`` :math:`s`, example :math:`i` weighs :math:`s_i b_{t,i}` in tree :math:`t`,
    :math:`b_{t,i}` its bootstrap multiplicity (1 without bootstrap), as scikit-learn weighs its
    forest; the bootstrap draws themselves are uniform.

    Args:
      num_trees, max_depth: the number of trees (>= 1) and the most levels of every tree, in
        [0, 24] (structural), or ``None``: every tree grown until no leaf can split (on the
        quantised values when ``max_bins`` is set).
      max_features: per-node subset size: ``"sqrt"``, ``"log2"``, an int, a fraction of :math:`d`, ``None``.
      bootstrap: grow each tree on a bootstrap sample (else on :math:`S`).
      criterion, min_samples_leaf, min_samples_split, num_classes: as for
        :func:`~jaxlearn.trees.decision_tree`.
      max_bins: quantile bins per feature (histogram growth), or ``None`` for exact thresholds.
        An eager fit sizes its histograms by the bins the data fill (17 on the digits); a fit under
        ``jax.jit`` cannot see the data, sizes them by ``max_bins`` and takes the sorted sweep where
        that costs less: pass a ``max_bins`` near the data's (``max_bins=32`` on the digits) to keep
        a traced fit on histograms.
      balanced_subsample: weigh example :math:`i` of class :math:`c` in tree :math:`t` also by
        :math:`n / (K_t\, n_{t,c})`, :math:`n_{t,c}` the draws of class :math:`c` in its bootstrap
        sample of :math:`n` draws and :math:`K_t` the classes drawn (scikit-learn's
        ``class_weight="balanced_subsample"``; without bootstrap: class weights balanced on
        :math:`S`).
      max_samples: the draws of each bootstrap sample: ``None`` (:math:`m`), an int in
        :math:`[1, m]`, or a fraction of :math:`m` in (0, 1] (rounded, at least 1), as
        scikit-learn's; with ``bootstrap=False`` only ``None``.
      progress: a tqdm bar during ``fit``; the trees are then grown in about ten vmapped groups, one
        after the other (the same trees; needs the ``progress`` extra).
      mesh: a ``jax.sharding.Mesh`` (``jaxlearn.parallel.mesh()``) to grow the trees on several
        devices: their keys are split over the mesh's first axis (``X`` and ``y`` copied to every
        device) and ``fit`` returns ``trees`` split over that axis, each device keeping the trees it
        grew (``num_trees`` not a multiple of the axis size: extra trees are grown on the last
        device and dropped, and the trees come back replicated). The same trees as without a mesh:
        splits and counts bit for bit, impurities and importances to float rounding (structural;
        no ``progress`` bar on several devices).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      RandomForestParams`` (``sample_weight`` (m,) >= 0, ``None``: all 1), ``predict(params, X)``
      the int32 majority vote, for ``X`` of the training width.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X, y = jnp.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]] * 5), jnp.array([0, 0, 1, 1] * 5)
      >>> forest = random_forest(8, 2)
      >>> forest.predict(forest.fit(jax.random.PRNGKey(0), X, y), X[:4]).tolist()
      [0, 0, 1, 1]

    References:
      UML section 18.3; Breiman (2001), "Random forests".
    """
    # How the trees are grown (histograms, the sorted sweep, slices in threads): docs/design.md,
    # "Implementation notes on trees.random_forest".
    num_trees, max_depth = as_int(num_trees), as_int(max_depth)
    min_samples_leaf, max_bins = as_int(min_samples_leaf), as_int(max_bins)
    min_samples_split = as_int(min_samples_split)
    check_criterion(criterion)
    feature_count(max_features, 1)  # validates the option
    for name, flag in (("bootstrap", bootstrap), ("balanced_subsample", balanced_subsample)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"expected `{name}` a bool, got {flag!r} of type {type(flag).__name__}")
    check_mesh(mesh)
    check_progress(progress, 1 if mesh is None else mesh.size)
    bootstrap_draws(max_samples)  # validates the option
    if max_samples is not None and not bootstrap:
        raise ValueError(
            f"expected `max_samples` None with bootstrap=False (no bootstrap sample is drawn), "
            f"got {max_samples!r}"
        )

    def fit(key, X, y, sample_weight=None):
        return fit_at(key, X, y, sample_weight, classes_of(y, num_classes), max_depth)

    def fit_at(key, X, y, sample_weight, k, max_depth):
        X, y = as_tree_sample(X, y)
        weights = as_weights(sample_weight, X)
        size = feature_count(max_features, X.shape[1])
        subset = None if size >= X.shape[1] else size
        # Shallow trees on bins: the histograms of every node a level could hold. Deeper ones (any
        # depth): on a CPU, the histograms of each level's nodes when the bins of concrete data
        # give the sorted sweep's trees (multiplicities, no real weights); else the sorted sweep.
        # The sweep also grows exact thresholds with feature subsets and min_samples_leaf > 1: it
        # draws among the features with a split leaving min_samples_leaf a side, which histograms
        # of the drawn features cannot tell.
        deep = (  # whether binning exact thresholds may pay, before the sample is binned
            mesh is None
            and not balanced_subsample
            and deep_histograms(weights, subset, min_samples_leaf)
        )
        sweep = max_depth is None or (
            max_bins is None and size < X.shape[1] and min_samples_leaf > 1
        )
        binned = None if sweep and max_bins is None and not deep else fit_bins(X, max_bins, weights)
        deep = (
            deep
            and binned is not None
            and deep_histograms(weights, subset, min_samples_leaf, binned[1].shape[0], k)
        )
        program_bins = max_bins  # the bins the program makes itself (of traced data)
        if not sweep and (binned is not None or max_bins is not None):
            # deep trees (or, under a trace, all `max_bins` bins): the sweep grows the same trees
            num_bins = max_bins if binned is None else binned[1].shape[0]
            sweep = not histograms_cheaper(max_depth, X.shape[0], X.shape[1], subset, num_bins, k)
        deep = deep and sweep  # where the sweep would grow them
        sweep = sweep and not deep
        if sweep and binned is not None:  # on the values quantised here (the quantiles of the
            if max_bins is not None:  # rows of positive weight, as the histograms')
                X, program_bins = quantized(*binned), None
            binned = None
        count = np.asarray(X.shape[0], np.int32)
        draws = np.asarray(bootstrap_draws(max_samples, X.shape[0]), np.int32)
        # padded to size buckets: one program per bucket (the rows past `count` take no part)
        if binned is not None and is_concrete(y, weights):
            *binned, y, count = pad_sample(*binned, y)
            X = np.zeros((y.shape[0], X.shape[1]), X.dtype)  # only its shape is read on this path
            weights = None if weights is None else pad_rows(weights, y.shape[0])
        elif is_concrete(X, y, weights):
            size_rows = fit_bucket(X.shape[0])
            X, y = pad_rows(np.asarray(X), size_rows), pad_rows(np.asarray(y), size_rows)
            weights = None if weights is None else pad_rows(weights, size_rows)
        # on the device now: under x64 a NumPy float64 argument would be read as float32 in the threads
        args = jax.device_put((key, X, y, None if binned is None else tuple(binned), count, draws))
        weights = jax.device_put(weights)
        options = dict(
            max_depth=max_depth,
            sweep=bool(sweep),
            deep=bool(deep),
            num_classes=k,
            criterion=criterion,
            max_bins=program_bins,
            min_samples_leaf=min_samples_leaf,
            min_samples_split=min_samples_split,
            max_features=subset,
            bootstrap=bool(bootstrap),
            balanced_subsample=bool(balanced_subsample),
            progress=bool(progress),
            mesh=mesh,
        )
        concrete = is_concrete(*args, weights)
        parts = cpu_parts(num_trees) if mesh is None and not progress and concrete else 1
        if parts == 1:
            return _fit(*args, 0, weights, num_trees=num_trees, parts=1, **options)
        return _grow_in_threads((*args, weights), num_trees, parts, options)

    return BatchLearner(fit, forest_predict, check=tree_sample_check(num_classes))


@cpu_jit(
    extra_options=NO_YNN_FUSIONS,
    static_argnames=(
        "num_trees",
        "parts",
        "max_depth",
        "sweep",
        "deep",
        "num_classes",
        "criterion",
        "min_samples_leaf",
        "min_samples_split",
        "max_features",
        "bootstrap",
        "balanced_subsample",
        "max_bins",
        "progress",
        "mesh",
    ),
)
def _fit(
    key,
    X,
    y,
    binned,
    num_rows,
    num_draws,
    part,
    sample_weight=None,
    *,
    num_trees,
    parts,
    max_depth,
    sweep=False,
    deep=False,
    num_classes,
    criterion,
    min_samples_leaf,
    max_features,
    bootstrap,
    min_samples_split=2,
    max_bins,
    balanced_subsample=False,
    progress=False,
    mesh=None,
):
    m, d = X.shape
    if sample_weight is not None:
        sample_weight = sample_weight.astype(X.dtype)
    if max_depth is None:  # as deep as the data allow
        max_depth, sweep = max(m - 1, 0), not deep
    if (
        sweep
    ):  # the sorted sweep, on the quantised values (max_bins=None: quantised before, or exact)
        binned = None
        if max_bins is not None:
            X = quantize(X, max_bins)
    elif binned is None and max_bins is not None:
        binned = bin_features(X, max_bins)  # traced data: all max_bins bins
    if binned is None:
        order = presort(X)  # exact thresholds on traced or many-valued data: the sorted sweep
    count = 1 if mesh is None else mesh.shape[mesh.axis_names[0]]
    padded = -(-num_trees // count) * count  # the keys of extra trees, dropped at the end
    keys = jax.random.split(key, padded)
    if (
        parts > 1
    ):  # part `part` of the trees, in slices of equal size (the last padded with its last tree)
        size = -(-num_trees // parts)
        keys = keys[jnp.minimum(part * size + jnp.arange(size, dtype=jnp.int32), num_trees - 1)]

    def grow_trees(keys):
        draw_keys, grow_keys = jnp.moveaxis(jax.vmap(jax.random.split)(keys), 1, 0)
        n = keys.shape[0]
        real = jnp.broadcast_to(jnp.arange(m, dtype=jnp.int32) < num_rows, (n, m)).astype(
            jnp.int32
        )  # the sample's rows
        if bootstrap:
            weights = _multiplicities(draw_keys, m, num_rows, num_draws)
        else:
            weights = real
        multiplicities = weights
        if sample_weight is not None:  # scikit-learn's weight: the sample's times the multiplicity
            weights = sample_weight[None] * weights.astype(sample_weight.dtype)
        if balanced_subsample:  # times n / (K_t n_{t,c}), from each tree's draws of each class
            drawn = jax.vmap(lambda b: jax.ops.segment_sum(b, y, num_segments=num_classes))(
                multiplicities
            )  # (n, k)
            present = jnp.sum(drawn > 0, axis=1, keepdims=True).astype(X.dtype)
            total = jnp.asarray(num_draws if bootstrap else num_rows).astype(X.dtype)
            share = total / (present * jnp.where(drawn > 0, drawn, 1).astype(X.dtype))
            per_row = jnp.take_along_axis(share, jnp.broadcast_to(y, (n, m)), axis=1)
            weights = weights.astype(X.dtype) * per_row
        static = dict(
            max_depth=max_depth,
            num_classes=num_classes,
            criterion=criterion,
            min_samples_leaf=min_samples_leaf,
            max_features=max_features,
            min_samples_split=min_samples_split,
        )
        if deep:  # one tree after the other (each level's nodes in rounds, per tree)
            return jax.lax.map(
                lambda kw: grow_binned(kw[0], *binned, y, kw[1], **static), (grow_keys, weights)
            )
        if binned is not None:
            uniforms = None
            if max_features is not None:  # the sorted sweep's draws, in heap order
                uniforms = jax.vmap(lambda k: heap_uniforms(k, d, max_depth))(grow_keys)
            return grow_histograms(
                uniforms, *binned, y, weights, **static, deep_levels=FOREST_DEEP_LEVELS
            )
        # on the CPU one tree after the other (a batched sweep runs slower there)
        unbatched = jax.default_backend() == "cpu"

        def one(key_weights):
            return grow(key_weights[0], X, y, key_weights[1], order, **static, unbatched=unbatched)

        if unbatched:
            return jax.lax.map(one, (grow_keys, weights))
        return jax.vmap(one)((grow_keys, weights))

    grow_all = grow_trees if mesh is None else _split_over(grow_trees, mesh)
    if not progress:
        trees = grow_all(keys)
    else:
        group = count * _group_size(
            padded // count
        )  # the trees in groups, one group per tick of the bar
        grouped = keys.reshape(padded // group, group, *keys.shape[1:])
        _, trees = scan(
            lambda _, ks: (None, grow_all(ks)),
            None,
            grouped,
            progress=True,
            desc="jaxlearn.trees.random_forest tree groups",
        )
        trees = jax.tree_util.tree_map(lambda a: a.reshape(padded, *a.shape[2:]), trees)
    if mesh is not None:  # split over the axis; replicated when the trees cannot be split evenly
        spec = P(mesh.axis_names[0]) if padded == num_trees else P()
        trees = jax.tree_util.tree_map(lambda a: a[:num_trees], trees)
        trees = jax.lax.with_sharding_constraint(trees, NamedSharding(mesh, spec))
    return RandomForestParams(trees)


def _multiplicities(draw_keys, m: int, num_rows, num_draws) -> Array:
    """(n, m) int32: the bootstrap multiplicities of the trees drawing with ``draw_keys`` (n, ...):
    ``num_draws`` draws with replacement among the first ``num_rows`` of ``m`` rows (the first
    ``num_draws`` of ``m`` draws count), one segment sum for all trees."""
    n = draw_keys.shape[0]
    counted = jnp.broadcast_to(jnp.arange(m, dtype=jnp.int32) < num_draws, (n, m))
    draws = jax.vmap(lambda k: jax.random.randint(k, (m,), 0, num_rows))(draw_keys)
    draws = draws + m * jnp.arange(n, dtype=draws.dtype)[:, None]
    counts = jax.ops.segment_sum(
        counted.astype(jnp.int32).reshape(-1), draws.reshape(-1), num_segments=n * m
    )
    return counts.reshape(n, m)


def bootstrap_counts(key, num_trees: int, num_rows: int, max_samples=None) -> Array:
    r"""How many times each row is drawn into each tree's bootstrap sample: (``num_trees``,
    ``num_rows``) int32, for ``random_forest(num_trees, ..., max_samples=max_samples).fit(key, X, y)``
    on ``num_rows`` rows of concrete data (an eager fit, no ``mesh``). A row of count 0 is *out of
    the bag* of that tree: Breiman's out-of-bag estimate scores each row by the trees that never saw
    it (``RandomForestClassifier(oob_score=True)``).

    Examples:
      >>> import jax
      >>> counts = bootstrap_counts(jax.random.key(0), num_trees=3, num_rows=10)
      >>> counts.shape, counts.sum(axis=1).tolist()
      ((3, 10), [10, 10, 10])
    """
    num_trees, num_rows = as_int(num_trees), as_int(num_rows)
    POSITIVE_INT.check("num_trees", num_trees)
    POSITIVE_INT.check("num_rows", num_rows)
    num_draws = bootstrap_draws(max_samples, num_rows)
    # the fit's own keys and draws, on its rows padded to their size bucket
    return _bootstrap_counts(key, num_trees, bucket(num_rows), num_rows, num_draws)[:, :num_rows]


@functools.partial(jax.jit, static_argnums=(1, 2))
def _bootstrap_counts(key, num_trees, m, num_rows, num_draws):
    draw_keys = jax.vmap(jax.random.split)(jax.random.split(key, num_trees))[:, 0]
    return _multiplicities(draw_keys, m, num_rows, num_draws)


def bootstrap_draws(max_samples, n: Optional[int] = None) -> int:
    """The draws of a bootstrap sample of ``n`` rows: scikit-learn's ``max_samples`` (``None``: ``n``;
    an int in [1, n]; a fraction in (0, 1] of ``n``, rounded, at least 1). With ``n=None`` only the
    option is checked."""
    rows = "[1, inf)" if n is None else f"[1, {n}]"
    if max_samples is None:
        return n
    if isinstance(max_samples, (bool, np.bool_)) or not isinstance(max_samples, numbers.Real):
        raise TypeError(
            f"expected `max_samples` None, an int or a float, got {max_samples!r} of type "
            f"{type(max_samples).__name__}"
        )
    if isinstance(max_samples, (int, np.integer)):  # (bools were refused above)
        if 1 <= max_samples and (n is None or max_samples <= n):
            return int(max_samples)
    elif isinstance(max_samples, (float, np.floating)) and 0 < max_samples <= 1:
        return None if n is None else max(round(n * float(max_samples)), 1)
    raise ValueError(
        f"expected `max_samples` None, an int in {rows} (the rows) or a float in (0, 1], "
        f"got {max_samples!r}"
    )


def _split_over(grow_all, mesh):
    """``grow_all(keys)`` with the keys split over the mesh's first axis, each device growing its own."""
    trees = P(mesh.axis_names[0])
    return jax.shard_map(grow_all, mesh=mesh, in_specs=trees, out_specs=trees, check_vma=False)


def _group_size(num_trees: int) -> int:
    """The largest divisor of ``num_trees`` of at most ``ceil(num_trees / 10)``."""
    limit = -(-num_trees // 10)
    return max(g for g in range(1, limit + 1) if num_trees % g == 0)


def _grow_in_threads(args, num_trees: int, parts: int, options: dict) -> RandomForestParams:
    """:func:`_fit`'s trees grown as ``parts`` slices, one thread each (the same trees: each slice draws
    from its own trees' keys). The program is traced and compiled here, under the caller's JAX settings
    (``enable_x64`` and the like hold per thread); the threads only run it."""
    *args, weights = args
    slices = [np.int32(part) for part in range(parts)]
    program = _fit.compile(*args, slices[0], weights, num_trees=num_trees, parts=parts, **options)
    runs = [(*args, part, weights) for part in slices]
    return join_slices(run_in_threads(program, runs), num_trees)


def forest_predict(params: RandomForestParams, X: ArrayLike) -> Array:
    """The majority vote of the trees (int32; the smallest class on a tie)."""
    check_tree(params, RandomForestParams)
    return _vote(params.trees, check_query(params.trees, X))


@jax.jit
def _vote(trees, X):
    votes = jax.vmap(leaf_class, in_axes=(0, None))(trees, X)  # (num_trees, n)
    counts = jnp.sum(
        jax.nn.one_hot(votes, trees.counts.shape[-1], dtype=jnp.int32), axis=0, dtype=jnp.int32
    )
    return jnp.argmax(counts, axis=-1).astype(jnp.int32)
