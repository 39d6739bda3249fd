r"""SOA, the Littlestone and VC dimensions of a finite class, shattered trees (UML section 21.1.1).

A finite class is a {0, 1} label matrix ``H`` of shape ``(num_hypotheses, num_points)`` (row ``i`` is
:math:`h_i`); an instance is a point index. The exact Ldim comes from a host-side table of the version
spaces reachable from ``H`` (:func:`version_space_table`), so these are for small classes.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_labels, check_ndim, is_concrete
from jaxlearn._shared import check_scalar_label, zero_counter
from jaxlearn.core import POSITIVE_INT, Interval, Learner, learner_factory, loadable
from jaxlearn.experts._common import OUTCOME_HINT

Array = jax.Array

#: The most version spaces a table may hold (a (S, N, 2) int32 transition table of that many rows).
MAX_VERSION_SPACES = 1 << 17


class LabelRange(Interval):
    """The range of the entries of a class ``H``: labels in [0, 1] (:func:`check_class` then asks for
    {0, 1}); a boolean label matrix is accepted as it is."""

    __slots__ = ()

    def check(self, name, value) -> None:
        if is_concrete(value) and np.ndim(value) >= 1 and np.asarray(value).dtype == np.bool_:
            return
        Interval.check(self, name, value)


#: The declared range of a factory's ``H``.
LABELS = LabelRange(0.0, 1.0, True, True)


class VersionSpaceTable(NamedTuple):
    """Host-side table of the version spaces reachable from a class (NumPy arrays, Python ints).

    Attributes:
      hypotheses: the distinct rows of ``H``, shape (k, N), uint8.
      masks: bitmask over ``hypotheses`` of each version space, by id.
      index: ``mask -> id``.
      ldim: (S,) int32, Ldim of each version space (-1 for the empty one).
      next_id: (S, N, 2) int32, ``next_id[id, x, y]`` = id of :math:`\\{h \\in V_{id} : h(x) = y\\}`.
    """

    hypotheses: np.ndarray
    masks: list
    index: dict
    ldim: np.ndarray
    next_id: np.ndarray

    root = 0  # the whole class
    empty = 1  # the empty version space


def check_class(H: ArrayLike) -> np.ndarray:
    """Validate a finite class given as a {0, 1} label matrix; return it as a uint8 NumPy array."""
    if not is_concrete(H):
        raise ValueError(
            "expected a concrete `H` (a label matrix known on the host), got a traced value"
        )
    H = np.asarray(H)
    if H.ndim != 2:
        raise ValueError(f"expected `H` of shape (num_hypotheses, num_points), got {H.shape}")
    if H.shape[0] == 0:
        raise ValueError(f"expected `H` with at least one hypothesis, got shape {H.shape}")
    if H.shape[1] == 0:
        raise ValueError(f"expected `H` with at least one point, got shape {H.shape}")
    if H.dtype == bool:
        H = H.astype(np.uint8)
    check_labels("H", H, (0, 1), "a class is a {0, 1} label matrix")
    return H.astype(np.uint8)


def version_space_table(
    H: ArrayLike, max_version_spaces: int = MAX_VERSION_SPACES
) -> VersionSpaceTable:
    r"""Enumerate the version spaces reachable from ``H``, with their Ldim and transitions.

    Every reachable :math:`\{h \in H : h(x) = y\ \forall (x, y) \in S\}` gets an id, its Ldim by the recursion

    .. math:: \mathrm{Ldim}(V) = \max\Big(0, \max_{x:\, V_x^0 \ne \emptyset \ne V_x^1}
        1 + \min(\mathrm{Ldim}(V_x^0), \mathrm{Ldim}(V_x^1))\Big), \qquad \mathrm{Ldim}(\emptyset) = -1,

    with :math:`V_x^r = \{h \in V : h(x) = r\}`, and a transition ``next_id[id, x, y]``, so that SOA runs in
    ``lax.scan`` with two gathers per round. There are at most :math:`\min(2^{|H|}, 3^N)` of them (the
    singletons over :math:`d` points reach all :math:`2^d` subsets).

    Raises:
      ValueError: on an invalid class, or when more than ``max_version_spaces`` (default
        :data:`MAX_VERSION_SPACES` :math:`= 2^{17}`) are reachable.
    """
    H = check_class(H)
    POSITIVE_INT.check("max_version_spaces", max_version_spaces)
    return _table(H.tobytes(), H.shape, int(max_version_spaces))


@functools.lru_cache(maxsize=32)
def _table(data: bytes, shape: tuple, max_version_spaces: int) -> VersionSpaceTable:
    hypotheses = np.unique(np.frombuffer(data, np.uint8).reshape(shape), axis=0)
    k, num_points = hypotheses.shape
    bits = [1 << i for i in range(k)]
    # cols[x][r]: bitmask of the hypotheses labelling x with r.
    cols = [
        [sum(b for b, v in zip(bits, hypotheses[:, x]) if v == r) for r in (0, 1)]
        for x in range(num_points)
    ]
    masks, index, rows = [(1 << k) - 1, 0], {(1 << k) - 1: 0, 0: 1}, []
    for mask in masks:  # breadth-first: `masks` grows while it is walked
        row = []
        for col in cols:
            for c in col:
                child = mask & c
                if child not in index:
                    if len(masks) >= max_version_spaces:
                        raise ValueError(
                            f"`H` has more than {max_version_spaces} reachable version spaces "
                            f"({k} distinct hypotheses over {num_points} points); the exact "
                            "Littlestone-dimension table is for small classes (raise "
                            "`max_version_spaces` to go on)"
                        )
                    index[child] = len(masks)
                    masks.append(child)
                row.append(index[child])
        rows.append(row)
    next_id = np.asarray(rows, np.int32).reshape(len(masks), num_points, 2)
    return VersionSpaceTable(hypotheses, masks, index, _ldim_by_size(masks, next_id), next_id)


def _ldim_by_size(masks: list, next_id: np.ndarray) -> np.ndarray:
    """The Ldim recursion, one cardinality at a time: a split's children are strictly smaller."""
    sizes = np.asarray([m.bit_count() for m in masks])
    ldim = np.full(len(masks), -1, np.int32)
    for size in range(1, sizes.max() + 1):
        ids = np.flatnonzero(sizes == size)
        children = ldim[next_id[ids]].min(
            axis=2
        )  # (G, N): min over the two labels, -1 unless a split
        ldim[ids] = np.maximum(0, np.where(children >= 0, children + 1, 0).max(axis=1))
    return ldim


def _subclass(H: ArrayLike, mask) -> np.ndarray:
    H = check_class(H)
    if mask is None:
        return H
    mask = np.asarray(mask, bool)
    if mask.shape != (H.shape[0],):
        raise ValueError(f"expected `mask` of shape ({H.shape[0]},), got {mask.shape}")
    return H[mask]


def littlestone_dimension(
    H: ArrayLike, mask=None, *, max_version_spaces: int = MAX_VERSION_SPACES
) -> int:
    r"""The Littlestone dimension of a finite class, exactly (UML Definitions 21.4-21.5).

    :math:`\mathrm{Ldim}(H)` is the largest depth of a tree shattered by ``H``, computed by the recursion of
    :func:`version_space_table` (exponential in general: small classes only). Identical hypotheses count once.
    :math:`\mathrm{VCdim}(H) \le \mathrm{Ldim}(H) \le \log_2 |H|` (UML Theorem 21.9, Example 21.2).

    Args:
      H: {0, 1} label matrix, shape (num_hypotheses, num_points).
      mask: optional boolean mask over the rows: the Ldim of the version space ``H[mask]`` (-1 when it is
        empty, the convention of the recursion).
      max_version_spaces: refuse classes with more reachable version spaces than this.

    Returns:
      A Python int.

    Examples:
      >>> import numpy as np
      >>> from jaxlearn import experts
      >>> experts.littlestone_dimension(np.eye(5, dtype=int))  # UML Example 21.3
      1
      >>> experts.littlestone_dimension(np.tril(np.ones((8, 7), int), -1))  # 8 thresholds on 7 points
      3
    """
    sub = _subclass(H, mask)
    if sub.shape[0] == 0:
        return -1
    return int(version_space_table(sub, max_version_spaces).ldim[VersionSpaceTable.root])


def vc_dimension(H: ArrayLike) -> int:
    r"""The VC dimension of a finite class: the size of the largest set of points it shatters.

    Brute force, level by level: a set of size :math:`k + 1` is shattered only if its first :math:`k` points
    are, so each level extends the shattered sets of the previous one. By Pajor's lemma a class shatters at
    most :math:`|H|` sets, so this takes :math:`O(|H|^2 N)` work.

    Examples:
      >>> import numpy as np
      >>> from jaxlearn import experts
      >>> experts.vc_dimension(np.eye(5, dtype=int))
      1
    """
    H = np.unique(check_class(H), axis=0).astype(np.int64)
    num_points = H.shape[1]
    level, dim = [()], 0
    while level:
        nxt = []
        for points in level:
            for p in range(points[-1] + 1 if points else 0, num_points):
                cand = points + (p,)
                codes = H[:, cand] @ (1 << np.arange(len(cand)))
                if np.unique(codes).size == 1 << len(cand):
                    nxt.append(cand)
        if nxt:
            dim = len(nxt[0])
        level = nxt
    return dim


def shattered_tree(H: ArrayLike, *, max_version_spaces: int = MAX_VERSION_SPACES) -> Array:
    r"""A tree of depth :math:`\mathrm{Ldim}(H)` shattered by ``H`` (UML Definition 21.4).

    Node :math:`i \in [2^d - 1]` (root 1, children :math:`2i` for label 0 and :math:`2i + 1` for
    label 1) is the point at entry ``i - 1``: for every labelling :math:`y \in \{0,1\}^d` of the
    path :math:`i_{t+1} = 2 i_t + y_t` some :math:`h \in H` has :math:`h(v_{i_t}) = y_t`. Walking it
    with :math:`y_t = 1 - p_t` is the adversary of Lemma 21.6: every learner errs :math:`d` times.
    Each node is the first point whose split keeps Ldim at least the remaining depth on both sides.

    Returns:
      int32 array of shape :math:`(2^d - 1,)` (empty when :math:`\mathrm{Ldim}(H) = 0`).
    """
    table = version_space_table(H, max_version_spaces)
    depth = int(table.ldim[table.root])
    nodes = np.zeros((1 << depth) - 1, np.int32)

    def grow(vs, d, i):
        if d == 0:
            return
        both = table.ldim[table.next_id[vs]].min(axis=1)  # (N,)
        x = int(np.argmax(both >= d - 1))  # exists since Ldim(V_vs) >= d
        nodes[i - 1] = x
        grow(table.next_id[vs, x, 0], d - 1, 2 * i)
        grow(table.next_id[vs, x, 1], d - 1, 2 * i + 1)

    grow(table.root, depth, 1)
    return jnp.asarray(nodes)


@loadable
class SOAState(NamedTuple):
    """``node``: int32 id of :math:`V_t` in the version-space table; ``version_space``: the same set as a
    boolean mask over the rows of ``H``; ``step``: rounds played."""

    node: Array
    version_space: Array
    step: Array


@loadable
class SOAInfo(NamedTuple):
    """``prediction`` in {0, 1} made before the outcome; ``loss``/``mistake`` its 0-1 loss;
    ``inconsistent``: no hypothesis of :math:`V_t` agreed with the outcome (the stream is not
    realizable by ``H``); on such a round :math:`V_t` is kept, instead of becoming empty."""

    prediction: Array
    loss: Array
    mistake: Array
    inconsistent: Array


def check_point_indices(name: str, xs, num_points: int) -> None:
    """Concrete ``xs`` must be integer point indices in ``[0, num_points)`` (the columns of ``H``)."""
    if not is_concrete(xs):
        return
    xs = np.asarray(xs)
    if not np.issubdtype(xs.dtype, np.integer):
        raise ValueError(f"expected `{name}` to hold integer point indices, got dtype {xs.dtype}")
    if xs.size and (xs.min() < 0 or xs.max() >= num_points):
        raise ValueError(
            f"expected `{name}` in [0, {num_points}) (the columns of `H`), "
            f"found values in [{xs.min()}, {xs.max()}]"
        )


def check_points(num_points: int):
    """The ``check`` of learners over point indices: ``xs`` int in [0, num_points), ``ys`` in {0, 1}."""

    def check(xs, ys):
        check_ndim("xs", xs, 1, "(T,) (point indices)")
        check_ndim("ys", ys, 1, "(T,)")
        check_point_indices("xs", xs, num_points)
        check_labels("ys", ys, (0, 1), OUTCOME_HINT)

    return check


def soa_prediction(next_id: Array, ldim: Array, node: Array, x: Array) -> Array:
    """:math:`\\arg\\max_r \\mathrm{Ldim}(V^{(r)})` read from the table, a tie predicting 1 (int32)."""
    children = ldim[next_id[node, x]]
    return (children[1] >= children[0]).astype(jnp.int32)


@learner_factory(
    ranges={"H": LABELS, "max_version_spaces": POSITIVE_INT},
    load_caps={"max_version_spaces": MAX_VERSION_SPACES},
)
def soa(H: ArrayLike, *, max_version_spaces: int = MAX_VERSION_SPACES) -> Learner:
    r"""The Standard Optimal Algorithm: predict the label whose version space has the larger Ldim.

    .. math:: p_t = \arg\max_{r \in \{0,1\}} \mathrm{Ldim}(V_t^{(r)}) \text{ (a tie predicts 1)}, \qquad
        V_t^{(r)} = \{h \in V_t : h(x_t) = r\}, \qquad V_{t+1} = V_t^{(y_t)}.

    Each mistake lowers :math:`\mathrm{Ldim}(V_t)`: on a realizable stream at most :math:`\mathrm{Ldim}(H)`
    mistakes (:func:`littlestone_dimension`), the optimum (Lemma 21.6). ``H`` is static (its Ldim table is
    precomputed, :func:`version_space_table`); the data are traced.

    Args:
      H: {0, 1} label matrix, shape (num_hypotheses, num_points).
      max_version_spaces: refuse classes with more reachable version spaces than this.

    Returns:
      A :class:`~jaxlearn.core.Learner` over point indices ``x`` (int scalars in [0, num_points)) and outcomes
      in {0, 1}; ``Info`` is :class:`SOAInfo`.

    Examples:
      >>> import jax.numpy as jnp, numpy as np
      >>> from jaxlearn import core, experts
      >>> learner = experts.soa(np.eye(4, dtype=int))  # the singletons: Ldim 1
      >>> _, trace = core.run(learner, learner.init(0), jnp.array([0, 1, 2]), jnp.array([0, 0, 0]))
      >>> trace.prediction.tolist(), int(trace.mistake.sum())  # a tie at round 3 predicts 1
      ([0, 0, 1], 1)

    References:
      UML section 21.1.1, Lemmas 21.6-21.7, Corollary 21.8.
    """
    H = check_class(H)
    table = version_space_table(H, max_version_spaces)
    labels = jnp.asarray(H, jnp.int32)
    next_id, ldim = jnp.asarray(table.next_id), jnp.asarray(table.ldim)

    def init(example_x, key=None):
        check_ndim("example_x", example_x, 0, "() (a point index)")
        return SOAState(
            node=jnp.asarray(table.root, jnp.int32),
            version_space=jnp.ones(H.shape[0], bool),
            step=zero_counter(),
        )

    def predict(state, x):
        check_ndim("x", x, 0, "() (a point index)")
        check_point_indices("x", x, H.shape[1])
        return soa_prediction(next_id, ldim, state.node, jnp.asarray(x).astype(jnp.int32))

    def update(state, x, y):
        check_scalar_label(y)
        prediction = predict(state, x)
        x, y = jnp.asarray(x).astype(jnp.int32), jnp.asarray(y).astype(jnp.int32)
        right = state.version_space & (labels[:, x] == y)
        inconsistent = ~jnp.any(right)
        node = jnp.where(inconsistent, state.node, next_id[state.node, x, y])
        version_space = jnp.where(inconsistent, state.version_space, right)
        mistake = prediction != y
        info = SOAInfo(prediction, mistake.astype(jnp.float32), mistake, inconsistent)
        return SOAState(node, version_space, state.step + 1), info

    return Learner(init, update, predict, check_points(H.shape[1]))
