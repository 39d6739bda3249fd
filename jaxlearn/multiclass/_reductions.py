r"""Reductions of multiclass to binary learning: One-versus-All and All-Pairs (UML section 17.1).

Both wrap any binary :class:`~jaxlearn.core.BatchLearner` (labels :math:`\pm1`: ``soft_svm``,
``kernel_svm``, ``batch_perceptron``, ``sgd``, ...) and train all the binary problems as one
``jax.vmap`` of the binary ``fit`` over the relabelled samples (and one key per problem), not a Python
loop over classes: the binary learner's compiled loop runs once, batched over the problems, and a second
fit with inputs of the same shapes compiles nothing.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn._buckets import bucket, fit_bucket, pad_rows
from jaxlearn._checks import check_multiclass_sample, is_concrete
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._sharding import row_split
from jaxlearn.core import BatchLearner, learner_factory
from jaxlearn.multiclass._common import (
    NUM_CLASSES,
    argmax_label,
    as_sample,
    batch_X,
    check_binary,
    check_outputs,
)
from jaxlearn.multiclass._pair_sgd import fit_pairs, soft_svm_options

Array = jax.Array

_SUBSAMPLE = ("pair", "mask", "cycle", "compact")


def _keys(key, num: int):
    return None if key is None else jax.random.split(key, num)


def _fit_all(binary: BatchLearner, keys, X: Array, Y: Array, x_axis=None):
    """``binary.fit`` vmapped over the problems: ``keys`` (num,), labels ``Y`` (num, m), ``X`` shared
    (``x_axis=None``) or one per problem (num, m, d)."""
    return jax.vmap(binary.fit, (None if keys is None else 0, x_axis, 0))(keys, X, Y)


def _binary_outputs(fn, params, X) -> Array:
    """``fn(params_p, X)`` for every problem ``p``, as columns: shape (n, num_problems)."""
    return jax.vmap(fn, (0, None), 1)(params, X)


def _checked_X(fn, params, X) -> Array:
    """``X`` (n, d) as floats, refused (naming ``X``) when one binary problem's ``fn`` cannot take it."""
    X = batch_X(X)
    one_problem = jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), params
    )
    check_outputs(fn, one_problem, X)  # shapes only: nothing sliced or run
    return X


@learner_factory("binary", ranges={"num_classes": NUM_CLASSES}, learners=("binary",))
def one_vs_all(binary: BatchLearner, num_classes: int) -> BatchLearner:
    r"""One-versus-All (UML section 17.1).

    .. math:: h(x) \in \arg\max_{i \in [k]} h_i(x), \qquad h_i \text{ trained on }
        \big((x_j, (-1)^{1[y_j \ne i]})\big)_{j=1}^m

    with :math:`h_i` the binary ``decision_function`` where there is one, else its :math:`\pm1` labels
    (ties: minimal index); the :math:`k` fits are one ``jax.vmap`` over ``jax.random.split(key, k)``.

    Args:
      binary: a binary :class:`~jaxlearn.core.BatchLearner` taking labels :math:`\pm1` (traced leaves).
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y)`` returns the binary params stacked over a
      leading class axis; ``predict`` the labels (int32); ``decision_function`` the scores ``(n, k)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import linear
      >>> X = jnp.array([[2.0, 0.0, 1.0], [0.0, 2.0, 1.0], [-2.0, -2.0, 1.0]])
      >>> ova = one_vs_all(linear.soft_svm(0.1, 500), num_classes=3)
      >>> ova.predict(ova.fit(jax.random.PRNGKey(0), X, jnp.array([0, 1, 2])), X).tolist()
      [0, 1, 2]

    References:
      UML section 17.1.
    """
    check_binary(binary)
    k = int(num_classes)

    def fit(key, X, y):
        X, y = as_sample(X, y)
        Y = jnp.where(y[None, :] == jnp.arange(k, dtype=jnp.int32)[:, None], 1, -1).astype(X.dtype)
        return _fit_all(binary, _keys(key, k), X, Y)

    def decision_function(params, X):
        fn = binary.predict if binary.decision_function is None else binary.decision_function
        return _binary_outputs(fn, params, _checked_X(fn, params, X))

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    check = functools.partial(check_multiclass_sample, num_classes=k)
    return BatchLearner(fit, predict, decision_function, check)


def pairs(num_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs :math:`i < j` of All-Pairs, in the order of their params: ``np.triu_indices(k, 1)``
    (``num_classes`` an int >= 2)."""
    NUM_CLASSES.check("num_classes", num_classes)
    return np.triu_indices(int(num_classes), 1)


@learner_factory("binary", ranges={"num_classes": NUM_CLASSES}, learners=("binary",))
def all_pairs(binary: BatchLearner, num_classes: int, *, subsample: str = "pair") -> BatchLearner:
    r"""All-Pairs (UML section 17.1).

    .. math:: h(x) \in \arg\max_{i \in [k]} \sum_{j \in [k]} \mathrm{sign}(j - i)\, h_{i,j}(x), \qquad
        h_{i,j} \text{ trained on } \{(x, +1): y = i\} \cup \{(x, -1): y = j\}

    over ``binary.predict``; ties go to the signed sum of the binary ``decision_function``, squashed into
    :math:`(-1/3, 1/3)` (as ``OneVsOneClassifier``), then to the minimal index; one ``vmap`` fits all pairs.

    Args:
      binary: a binary :class:`~jaxlearn.core.BatchLearner` taking labels :math:`\pm1` (traced leaves).
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (static).
      subsample: how pair :math:`(i, j)` leaves out the other classes. ``"pair"`` (default, for the SGD
        learners): the pair's SGD draws from its own :math:`n_{ij}` examples :math:`S_{ij}` (per pair the
        book's :math:`C = 1/(\lambda n_{ij})`). Over ``linear.soft_svm`` (``batch_size=1``, ``X`` on one
        device) it is exactly ``soft_svm.fit(key_ij, X[S_ij], y_ij)``, by index into the shared ``X``;
        any other binary learner fits :math:`S_{ij}` repeated :math:`r = \lfloor m/n_{ij}\rfloor` times in
        :math:`m` slots, the other slots label 0 (a uniform draw over the slots is uniform over
        :math:`S_{ij}`, or a skipped step with probability :math:`1 - r n_{ij}/m < n_{ij}/m`).
        ``"mask"``: the sample as it is, other examples label 0 (a zero sub-gradient): every pair gets
        :math:`C = 1/(\lambda m)`, as ``OneVsOneClassifier(LinearSVC(C))``, but only :math:`n_{ij}/m` of
        its SGD steps move it; the mode that stays data-parallel over an ``X`` split by rows.
        ``"cycle"``: :math:`S_{ij}` repeated to fill the :math:`m` slots (for ``batch_perceptron``,
        ``hard_svm``, which take no label 0). ``"compact"``: the minimiser of ``"mask"`` from fewer
        rows, for the exact solvers (``svm_dual_cd``, ``svm_primal_newton``, ``svm_primal_lbfgs``,
        ``kernel_svm_dual_cd``), on which an example of label 0 takes no part: each pair's examples
        in their order, then label-0 slots, in as many slots as the largest pair has examples
        (rounded up to a size bucket), so that each pair is fitted on its own examples, as
        scikit-learn's ``OneVsOneClassifier`` fits it; with a traced ``y`` (the pairs' sizes
        unknown) or ``X`` split by rows, ``"mask"``.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit`` returns the binary params stacked over the pairs;
      ``predict`` the labels (int32); ``decision_function`` the votes plus confidences ``(n, k)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import linear
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
      >>> ap = all_pairs(linear.soft_svm(0.1, 500), num_classes=3)
      >>> ap.predict(ap.fit(jax.random.PRNGKey(0), X, jnp.array([0, 1, 2])), X).tolist()
      [0, 1, 2]

    References:
      UML section 17.1.
    """
    check_binary(binary)
    if subsample not in _SUBSAMPLE:
        raise ValueError(f"expected `subsample` in {_SUBSAMPLE}, got {subsample!r}")
    k = int(num_classes)
    first, second = pairs(k)
    num = first.size
    by_index = soft_svm_options(binary)  # soft_svm's hyperparameters: the fast path of "pair"
    # votes = h @ A: +h_{i,j} for i, -h_{i,j} for j
    signs = np.zeros((num, k))
    signs[np.arange(num), first] = 1.0
    signs[np.arange(num), second] = -1.0

    def check(X, y):
        check_multiclass_sample(X, y, k)
        if subsample == "cycle" and is_concrete(y) and num > 0:
            counts = np.bincount(np.asarray(y).astype(np.int64), minlength=k)
            empty = [(int(i), int(j)) for i, j in zip(first, second) if counts[i] + counts[j] == 0]
            if empty:
                raise ValueError(
                    f"expected every pair of classes to have examples for subsample='cycle', found none "
                    f"of classes {empty[0]} in `y`"
                )

    def fit(key, X, y):
        if subsample == "compact" and is_concrete(y) and row_split(X) is None:
            # concrete rows are padded to their size bucket (rows no pair holds): one program a bucket
            size = fit_bucket(len(y)) if is_concrete(X) else len(y)
            labels = pad_rows(np.asarray(y).astype(np.int32), size, -1)
            Y = np.where(labels == first[:, None], 1, np.where(labels == second[:, None], -1, 0))
            slots = _own_slots(Y != 0)
            Y = np.take_along_axis(Y, slots, axis=1)  # 0 past a pair's own examples
            X = pad_rows(np.asarray(X), size) if is_concrete(X) else X
            return _fit_packed(binary, key, X, slots, Y)
        X, y = as_sample(X, y)
        i, j = jnp.asarray(first, jnp.int32)[:, None], jnp.asarray(second, jnp.int32)[:, None]
        Y = jnp.where(y[None, :] == i, 1, jnp.where(y[None, :] == j, -1, 0)).astype(
            X.dtype
        )  # (num, m)
        keys = _keys(key, num)
        # "pair" over soft_svm: each pair's SGD indexes its own examples in the shared X (the fast path).
        # "mask": SGD on the pair's problem with the same C = 1/(lam m) for every pair (as
        # OneVsOneClassifier(LinearSVC(C))), but only |S_ij|/m of the steps move w. "cycle": the same
        # cyclic scan of S_ij for batch_perceptron (epochs count m slots), the same solution for hard_svm.
        if subsample == "pair" and by_index is not None and row_split(X) is None:
            return fit_pairs(by_index, keys, X, Y)
        if subsample in ("mask", "compact"):
            return _fit_all(binary, keys, X, Y)
        slots, used = jax.vmap(functools.partial(_pair_slots, cycle=subsample == "cycle"))(Y != 0)
        labels = jnp.where(used, jnp.take_along_axis(Y, slots, axis=1), jnp.zeros((), Y.dtype))
        return _fit_all(binary, keys, X[slots], labels, x_axis=0)

    def decision_function(params, X):
        A = jnp.asarray(signs)
        X = _checked_X(binary.predict, params, X)
        votes = _binary_outputs(binary.predict, params, X)
        votes = votes @ A.astype(votes.dtype)
        if binary.decision_function is None:
            return votes
        confidence = _binary_outputs(binary.decision_function, params, X)
        confidence = confidence @ A.astype(confidence.dtype)
        return votes.astype(confidence.dtype) + confidence / (3 * (jnp.abs(confidence) + 1))

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function, check)


@cpu_jit
def _fit_packed(binary: BatchLearner, key, X: Array, slots: Array, Y: Array):
    """:func:`_fit_all` on each problem's rows ``X[slots]`` (num, n, d), labels ``Y`` (num, n), the
    keys split from ``key``, as one compiled program."""
    X = as_sample(X, jnp.zeros(0))[0]
    return _fit_all(binary, _keys(key, slots.shape[0]), X[slots], Y.astype(X.dtype), x_axis=0)


def _own_slots(member: np.ndarray) -> np.ndarray:
    """(num, n) indices into the sample: each pair's examples (``member``, (num, m) bool) first, in
    their order, then other examples (to be labelled 0), ``n`` the largest pair's count rounded up
    to a size bucket (at most ``m``), so that samples of nearby sizes share one program."""
    size = min(bucket(max(int(member.sum(axis=1).max()), 1)), member.shape[1])
    return np.argsort(~member, axis=1, kind="stable")[:, :size].astype(np.int32)


def _pair_slots(member: Array, cycle: bool) -> tuple[Array, Array]:
    """The examples of a pair (``member``) in ``m = len(member)`` slots, in order and repeated:
    ``(slots, used)``, ``slots`` indices into the sample, ``used`` which slots keep their label. ``cycle``:
    every slot is used (the last repeat cut short); else only the ``r = m // n`` whole repeats."""
    m = member.shape[0]
    order = jnp.argsort(~member, stable=True)  # members first, in their order
    count = jnp.maximum(jnp.sum(member, dtype=jnp.int32), 1)
    slot = jnp.arange(m, dtype=jnp.int32)
    used = jnp.ones(m, bool) if cycle else slot < (m // count) * count
    return order[slot % count], used
