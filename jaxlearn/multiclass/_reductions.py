r"""Reductions of multiclass to binary learning: One-versus-All and All-Pairs (UML section 17.1).

Both wrap any binary :class:`~jaxlearn.core.BatchLearner` (labels :math:`\pm1`: ``soft_svm``,
``kernel_svm``, ``batch_perceptron``, ``sgd``, ...) and train all the binary problems as one
``jax.vmap`` of the binary ``fit`` over the relabelled samples (and one key per problem), not a Python
loop over classes: the binary learner's compiled loop runs once, batched over the problems, and a second
fit with inputs of the same shapes compiles nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn.core import BatchLearner, is_concrete
from jaxlearn.multiclass._common import argmax_label, as_sample, check_multiclass_sample, check_num_classes

Array = jax.Array

_SUBSAMPLE = ("mask", "cycle")


def _check_binary(binary) -> None:
    if not isinstance(binary, BatchLearner):
        raise ValueError(
            f"expected `binary` a BatchLearner (e.g. linear.soft_svm(...)), got {type(binary).__name__}"
        )


def _keys(key, num: int):
    return None if key is None else jax.random.split(key, num)


def _fit_all(binary: BatchLearner, keys, X: Array, Y: Array, x_axis=None):
    """``binary.fit`` vmapped over the problems: ``keys`` (num,), labels ``Y`` (num, m), ``X`` shared
    (``x_axis=None``) or one per problem (num, m, d)."""
    return jax.vmap(binary.fit, (None if keys is None else 0, x_axis, 0))(keys, X, Y)


def _binary_outputs(fn, params, X) -> Array:
    """``fn(params_p, X)`` for every problem ``p``, as columns: shape (n, num_problems)."""
    return jax.vmap(fn, (0, None), 1)(params, X)


def one_vs_all(binary: BatchLearner, num_classes: int) -> BatchLearner:
    r"""One-versus-All (UML section 17.1; SPEC 11.1).

    For every class :math:`i`, the binary learner is trained on
    :math:`S_i = ((x_1, (-1)^{1[y_1 \ne i]}), \dots, (x_m, (-1)^{1[y_m \ne i]}))` (label +1 iff
    :math:`y = i`); the prediction is

    .. math:: h(x) \in \arg\max_{i \in [k]} h_i(x)

    applied to real-valued confidences (the binary ``decision_function``, e.g. :math:`\langle w_i, x\rangle`)
    where the binary learner has one, as the book recommends, else to its :math:`\pm1` predictions;
    ties go to the minimal index. The :math:`k` fits are one ``jax.vmap`` of ``binary.fit``; problem
    :math:`i` gets the key ``jax.random.split(key, k)[i]`` (so it equals
    ``binary.fit(keys[i], X, where(y == i, 1, -1))``).

    Args:
      binary: a binary :class:`~jaxlearn.core.BatchLearner` taking labels :math:`\pm1`.
      num_classes: :math:`k \ge 2` (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y)`` with labels in ``0..k-1`` returns the
      binary learner's params stacked over a leading class axis of size :math:`k`; ``predict`` the labels
      (int32); ``decision_function`` the scores, shape ``(n, k)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import linear
      >>> X = jnp.array([[2.0, 0.0, 1.0], [0.0, 2.0, 1.0], [-2.0, -2.0, 1.0]])
      >>> ova = one_vs_all(linear.soft_svm(0.1, 500), 3)
      >>> ova.predict(ova.fit(jax.random.PRNGKey(0), X, jnp.array([0, 1, 2])), X).tolist()
      [0, 1, 2]
    """
    _check_binary(binary)
    k = check_num_classes(num_classes)

    def fit(key, X, y):
        check_multiclass_sample(X, y, k)
        X, y = as_sample(X, y)
        Y = jnp.where(y[None, :] == jnp.arange(k, dtype=jnp.int32)[:, None], 1, -1).astype(X.dtype)
        return _fit_all(binary, _keys(key, k), X, Y)

    def decision_function(params, X):
        fn = binary.predict if binary.decision_function is None else binary.decision_function
        return _binary_outputs(fn, params, X)

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function)


def pairs(num_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs :math:`i < j` of All-Pairs, in the order of their params: ``np.triu_indices(k, 1)``."""
    return np.triu_indices(int(num_classes), 1)


def all_pairs(binary: BatchLearner, num_classes: int, *, subsample: str = "mask") -> BatchLearner:
    r"""All-Pairs (UML section 17.1; SPEC 11.2).

    For every pair :math:`i < j` the binary learner is trained on :math:`S_{i,j}`, the examples with
    :math:`y \in \{i, j\}`, labelled +1 if :math:`y = i` and -1 if :math:`y = j`; the prediction is

    .. math::
        h(x) \in \arg\max_{i \in [k]} \sum_{j \in [k]} \mathrm{sign}(j - i)\, h_{i,j}(x)
        = \arg\max_i \Big(\sum_{j > i} h_{i,j}(x) - \sum_{j < i} h_{j,i}(x)\Big),

    the book's vote count with :math:`h_{i,j}(x) \in \{\pm1\}` (``binary.predict``). The book leaves ties
    open; here they go to the class whose confidences (the same signed sum over the binary
    ``decision_function``), squashed into :math:`(-1/3, 1/3)` by :math:`c/(3(|c| + 1))` and added to the
    votes, are largest (scikit-learn's ``OneVsOneClassifier`` does the same), then to the minimal index.

    The :math:`S_{i,j}` have different sizes, and a vmapped fit needs one shape. ``subsample`` says how
    every problem gets all :math:`m` examples:

    * ``"mask"`` (default): examples outside :math:`S_{i,j}` get the label 0. For the SGD learners
      (``soft_svm``, ``kernel_svm``, ``sgd`` with a margin loss) a label-0 example has a zero
      sub-gradient, so the fit is SGD on :math:`\frac\lambda2\|w\|^2 + \frac1m\sum_{(x, y) \in S_{i,j}}
      \ell(w, (x, y))`, the pair's problem with the same :math:`C = 1/(\lambda m)` for every pair
      (as scikit-learn's ``OneVsOneClassifier(LinearSVC(C=C))``); only :math:`|S_{i,j}|/m` of the steps
      move :math:`w`. Not for learners that need every example classified (``batch_perceptron``,
      ``hard_svm``): use ``"cycle"``.
    * ``"cycle"``: the pair's examples, in their order, repeated cyclically to fill :math:`m` slots. For
      ``batch_perceptron`` this is the same cyclic scan of :math:`S_{i,j}` (the same ``w`` and number of
      updates; epochs count :math:`m` slots), for ``hard_svm`` the same solution (repeated constraints);
      SGD learners would see the examples with weights differing by up to one repetition. Needs every
      pair to have an example (every class present in ``y``).

    Problem :math:`p` (in the order of :func:`pairs`) gets the key ``jax.random.split(key, k(k-1)/2)[p]``.

    Args:
      binary: a binary :class:`~jaxlearn.core.BatchLearner` taking labels :math:`\pm1`.
      num_classes: :math:`k \ge 2` (static).
      subsample: ``"mask"`` or ``"cycle"``.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit`` returns the binary params stacked over the
      :math:`k(k-1)/2` pairs; ``predict`` the labels (int32); ``decision_function`` the scores ``(n, k)``
      (votes plus the squashed confidences).
    """
    _check_binary(binary)
    if subsample not in _SUBSAMPLE:
        raise ValueError(f"expected `subsample` in {_SUBSAMPLE}, got {subsample!r}")
    k = check_num_classes(num_classes)
    first, second = pairs(k)
    num = first.size
    # votes = h @ A: +h_{i,j} for i, -h_{i,j} for j
    signs = np.zeros((num, k))
    signs[np.arange(num), first] = 1.0
    signs[np.arange(num), second] = -1.0

    def fit(key, X, y):
        check_multiclass_sample(X, y, k)
        if subsample == "cycle" and is_concrete(y):
            missing = np.setdiff1d(np.arange(k), np.asarray(y))
            if missing.size and num > 0:
                counts = np.bincount(np.asarray(y).astype(np.int64), minlength=k)
                empty = [(int(i), int(j)) for i, j in zip(first, second) if counts[i] + counts[j] == 0]
                if empty:
                    raise ValueError(
                        f"expected every pair of classes to have examples for subsample='cycle', found none "
                        f"of classes {empty[0]} in `y`"
                    )
        X, y = as_sample(X, y)
        i, j = jnp.asarray(first, jnp.int32)[:, None], jnp.asarray(second, jnp.int32)[:, None]
        Y = jnp.where(y[None, :] == i, 1, jnp.where(y[None, :] == j, -1, 0)).astype(X.dtype)  # (num, m)
        keys = _keys(key, num)
        if subsample == "mask":
            return _fit_all(binary, keys, X, Y)
        slots = jax.vmap(_cycle_slots)(Y != 0)  # (num, m) indices into the sample
        return _fit_all(binary, keys, X[slots], jnp.take_along_axis(Y, slots, axis=1), x_axis=0)

    def decision_function(params, X):
        A = jnp.asarray(signs)
        votes = _binary_outputs(binary.predict, params, X)
        votes = votes @ A.astype(votes.dtype)
        if binary.decision_function is None:
            return votes
        confidence = _binary_outputs(binary.decision_function, params, X)
        confidence = confidence @ A.astype(confidence.dtype)
        return votes.astype(confidence.dtype) + confidence / (3 * (jnp.abs(confidence) + 1))

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function)


def _cycle_slots(member: Array) -> Array:
    """Indices of the members of a pair, in order, repeated to fill ``len(member)`` slots."""
    m = member.shape[0]
    order = jnp.argsort(~member, stable=True)  # members first, in their order
    count = jnp.maximum(jnp.sum(member, dtype=jnp.int32), 1)
    return order[jnp.arange(m, dtype=jnp.int32) % count]
