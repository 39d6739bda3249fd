"""The MDL description language of decision trees over {0,1}^d (UML section 18.1; SPEC 15.1): n + 1 blocks of
log2(d + 3) bits, decoding gives back the tree, the code is prefix-free (Kraft's sum at most 1), and the
bound (18.1) read off the code's length is theory.tree_mdl_bound."""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import theory, trees


def _cube(d):
    return jnp.asarray(list(itertools.product([0.0, 1.0], repeat=d)), jnp.float32)


@functools.lru_cache(maxsize=None)
def _fitted(d, depth, count=24):
    """Trees fit (ID3, vmapped) to random labellings of a random sample of the cube, and their pruned
    versions (by the MDL bound): params stacked on a leading axis, the sample, and its labels. Built in
    float32 whoever asks first."""
    with jax.enable_x64(False):
        return _fit_and_prune(d, depth, count)


def _fit_and_prune(d, depth, count):
    key_x, key_y = jax.random.split(jax.random.PRNGKey(10 * d + depth))
    X = jax.random.bernoulli(key_x, 0.5, (40, d)).astype(jnp.float32)
    rates = jnp.linspace(0.02, 0.5, count)[:, None]  # from nearly constant labellings to coin flips
    Y = (jax.random.uniform(key_y, (count, 40)) < rates).astype(jnp.int32)
    learner = trees.decision_tree(depth, num_classes=2)
    grown = jax.vmap(lambda y: learner.fit(jax.random.PRNGKey(0), X, y))(Y)
    pruned = [trees.prune(tree, bound=theory.tree_mdl_bound, d=d) for tree in _each(grown)[:4]]
    stacked = jax.tree_util.tree_map(lambda *a: jnp.stack(a), *pruned)
    both = jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a, b]), grown, stacked)
    return both, X, jnp.concatenate([Y, Y[:4]])


def _each(params):
    """The trees of stacked params, one by one."""
    return [
        jax.tree_util.tree_map(functools.partial(_row, i=i), params)
        for i in range(params.feature.shape[0])
    ]


def _row(a, i):
    return a[i]


def _blocks(code, d):
    """The code proper: the symbols through the first end symbol."""
    code = np.asarray(code)
    return tuple(code[: int(np.argmax(code == d + 2)) + 1].tolist())


D, DEPTH = 4, 4  # trees of up to 31 nodes over 4 binary features


def test_code_has_n_plus_one_blocks_of_log2_d_plus_3_bits(d=D, depth=DEPTH):
    """UML 18.1: a tree with n nodes is n + 1 blocks (n nodes in preorder and the end), each a symbol of
    d + 3, so (n + 1) log2(d + 3) bits; every internal node has two children: (n - 1)/2 internal nodes,
    (n + 1)/2 leaves."""
    params, _, _ = _fitted(d, depth)
    codes = jax.vmap(trees.mdl_code)(params)
    n = np.asarray(jax.vmap(trees.num_nodes)(params))
    assert len(set(n.tolist())) >= 4  # trees of several sizes, pruned ones included
    for code, nodes in zip(np.asarray(codes), n):
        blocks = np.asarray(_blocks(code, d))
        assert len(blocks) == nodes + 1
        assert (blocks[:-1] < d + 2).all()
        assert (blocks[:-1] < d).sum() == (nodes - 1) // 2 and (blocks[:-1] >= d).sum() == (
            nodes + 1
        ) // 2
    bits = np.asarray([trees.description_length(p) for p in _each(params)[::12]])
    np.testing.assert_allclose(bits, (n[::12] + 1) * np.log2(d + 3), rtol=1e-6)


def test_decoding_gives_back_the_tree_on_every_input_of_the_cube(d=D, depth=DEPTH):
    """decode(encode(t)) predicts as t on all 2^d inputs (jit and vmap: max_depth given), eagerly with the
    depth read off the code, and encode(decode(c)) = c."""
    params, _, _ = _fitted(d, depth)
    cube = _cube(d)
    predict = trees.decision_tree(depth).predict
    codes = jax.vmap(trees.mdl_code)(params)
    decoded = jax.jit(jax.vmap(lambda c: trees.mdl_decode(c, d, depth)))(codes)
    want = jax.vmap(predict, (0, None))(params, cube)
    np.testing.assert_array_equal(jax.vmap(predict, (0, None))(decoded, cube), want)
    np.testing.assert_array_equal(jax.vmap(trees.mdl_code)(decoded), codes)
    np.testing.assert_array_equal(
        jax.vmap(trees.num_nodes)(decoded), jax.vmap(trees.num_nodes)(params)
    )
    for tree, code, labels in list(zip(_each(params), codes, want))[:3]:
        short = trees.mdl_decode(code, d)  # the smallest arrays that hold the coded tree
        short_depth = int(np.log2(short.feature.shape[0] + 1)) - 1
        np.testing.assert_array_equal(trees.decision_tree(short_depth).predict(short, cube), labels)
        assert short.feature.shape[0] <= tree.feature.shape[0]


def _all_codes(d, max_nodes):
    """Every code of a tree with at most ``max_nodes`` nodes over d features (preorder, then the end)."""

    def trees_of(n):  # preorders of the trees with exactly n nodes
        if n == 1:
            return [(d,), (d + 1,)]
        out = []
        for left in range(1, n - 1, 2):
            for feature in range(d):
                for a in trees_of(left):
                    for b in trees_of(n - 1 - left):
                        out.append((feature, *a, *b))
        return out

    return [(*body, d + 2) for n in range(1, max_nodes + 1, 2) for body in trees_of(n)]


def test_code_is_prefix_free_and_meets_kraft_over_all_small_trees():
    """Prefix-freeness (UML 18.1), exhaustively: the 714 codes of the trees of at most 7 nodes over d = 2
    features decode to trees whose codes they are, none is a prefix of another (sorted neighbours suffice),
    and Kraft's sum over them of (d + 3)^-(n + 1) = 2^-(description length) stays below 1 (the union bound
    behind (18.1); here it is sum_n #trees(n) 5^-(n+1) = 2/5^2 + 8/5^4 + 64/5^6 + 640/5^8)."""
    d = 2
    codes = _all_codes(d, 7)
    assert len(codes) == len(set(codes)) == 2 + 8 + 64 + 640
    padded = jnp.asarray([c + (d + 2,) * (16 - len(c)) for c in codes], jnp.int32)
    decoded = jax.jit(jax.vmap(lambda c: trees.mdl_decode(c, d, 3)))(padded)
    recoded = np.asarray(jax.vmap(trees.mdl_code)(decoded))
    assert [_blocks(c, d) for c in recoded] == codes
    ordered = sorted(codes)
    assert not any(b[: len(a)] == a for a, b in zip(ordered, ordered[1:]))
    kraft = sum(float(d + 3) ** -len(c) for c in codes)
    assert (
        kraft == pytest.approx(2 / 5**2 + 8 / 5**4 + 64 / 5**6 + 640 / 5**8, rel=1e-12)
        and kraft <= 1
    )


def test_fitted_trees_have_distinct_prefix_free_codes():
    """Prefix-freeness on the codes of fitted (and pruned) trees of d = 4 features: two codes are equal only
    for equal trees (the same predictions on the cube), and no code is a proper prefix of another."""
    d, depth = D, DEPTH
    params, _, _ = _fitted(d, depth)
    codes = [_blocks(c, d) for c in np.asarray(jax.vmap(trees.mdl_code)(params))]
    labels = np.asarray(jax.vmap(trees.decision_tree(depth).predict, (0, None))(params, _cube(d)))
    for i, j in itertools.combinations(range(len(codes)), 2):
        a, b = codes[i], codes[j]
        if a == b:
            np.testing.assert_array_equal(labels[i], labels[j])
        else:
            assert a[: len(b)] != b and b[: len(a)] != a


def test_bound_read_off_the_code_length_is_theory_tree_mdl_bound():
    """(18.1) via Theorem 7.7: L_S(h) + sqrt((|code(h)| + ln(2/delta))/(2m)) with |code(h)| the
    description length in bits equals theory.tree_mdl_bound(n, d, m, delta, L_S) for every fitted tree
    (float64, 1e-12)."""
    d, depth, delta = D, DEPTH, 0.05
    params, X, Y = _fitted(d, depth)
    m = X.shape[0]
    mistakes = np.asarray(jax.vmap(trees.decision_tree(depth).predict, (0, None))(params, X) != Y)
    blocks = [len(_blocks(c, d)) for c in np.asarray(jax.vmap(trees.mdl_code)(params))]
    n = np.asarray(jax.vmap(trees.num_nodes)(params))
    with jax.enable_x64(True):
        train_error = jnp.asarray(mistakes.mean(axis=1), jnp.float64)
        bits = jnp.asarray(blocks, jnp.float64) * jnp.log2(
            jnp.float64(d + 3)
        )  # blocks of log2(d + 3) bits
        from_code = train_error + jnp.sqrt((bits + jnp.log(2 / delta)) / (2 * m))
        bound = theory.tree_mdl_bound(jnp.asarray(n, jnp.int32), d, m, delta, train_error)
        np.testing.assert_allclose(from_code, bound, rtol=1e-12)
