"""Bad input to :mod:`jaxlearn.kernels`: kernel factories, Gram matrices, expansions, string encodings."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import kernels as K
from tests.inputs.rows import Bad, Holds, Same

_X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]], np.float32)
_Z = np.array([[2.0, 1.0], [0.0, 1.0]], np.float32)
_B = np.array([[True, False], [False, True], [True, True]])
_BF = _B.astype(np.float32)
_NAN = np.where(_X == 2.0, np.nan, _X)
_A = np.array([0.5, -1.0, 2.0], np.float32)
_LIN, _RBF = K.linear(), K.gaussian(1.0)
_S2 = np.zeros((2, 2), np.int32)


def _is(value):
    def check(got):
        assert bool(got) == value, got

    return check


def _true(condition):
    def check(got):
        assert condition(got), got

    return check


ROWS = [
    # kernel factories and the kernels themselves
    Holds(
        K.linear,
        "bool rows: a float Gram matrix, not a bool one",
        lambda: K.gram(_LIN, _B),
        _true(lambda G: jnp.issubdtype(G.dtype, jnp.floating) and np.array_equal(G, _BF @ _BF.T)),
    ),
    Same(
        K.linear,
        "int rows",
        lambda: K.linear()(np.array([1, 2]), np.array([3, 4])),
        lambda: K.linear()(np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)),
    ),
    Bad(
        K.linear,
        "examples of different widths",
        lambda: K.linear()(np.ones(2), np.ones(3)),
        ("x", "z"),
    ),
    Bad(K.linear, "NaN example", lambda: K.linear()(np.array([np.nan, 1.0]), np.ones(2)), "x"),
    Same(
        K.polynomial,
        "bool rows",
        lambda: K.gram(K.polynomial(2), _B),
        lambda: K.gram(K.polynomial(2), _B.astype(np.float32)),
    ),
    Bad(K.polynomial, "degree 0", lambda: K.polynomial(0), "degree"),
    Bad(K.polynomial, "float degree", lambda: K.polynomial(2.5), "degree"),
    Bad(K.polynomial, "bool degree", lambda: K.polynomial(True), "degree"),
    Bad(K.gaussian, "sigma 0", lambda: K.gaussian(0.0), "sigma"),
    Bad(K.gaussian, "negative sigma", lambda: K.gaussian(-1.0), "sigma"),
    Bad(K.gaussian, "NaN sigma", lambda: K.gaussian(float("nan")), "sigma"),
    Bad(K.gaussian, "inf sigma", lambda: K.gaussian(float("inf")), "sigma"),
    Bad(K.gaussian, "string sigma", lambda: K.gaussian("wide"), "sigma", TypeError),
    Bad(K.gaussian, "vector sigma", lambda: K.gaussian(np.ones(2)), "sigma"),
    Same(
        K.gaussian,
        "int rows and int sigma",
        lambda: K.gram(K.gaussian(2), _X.astype(np.int32)),
        lambda: K.gram(K.gaussian(2.0), _X.astype(np.int32).astype(np.float32)),
    ),
    Holds(
        K.gaussian,
        "tiny sigma: finite, identity on distinct rows",
        lambda: K.gram(K.gaussian(1e-30), _X),
        _true(lambda G: np.allclose(G, np.eye(3))),
    ),
    Holds(
        K.gaussian,
        "sigma traced under vmap",
        lambda: jax.vmap(lambda s: K.gram(K.gaussian(s), _X))(jnp.array([0.5, 2.0])),
        _true(lambda G: G.shape == (2, 3, 3) and np.isfinite(G).all()),
    ),
    Same(
        K.min_kernel,
        "bool rows",
        lambda: K.gram(K.min_kernel(), _B),
        lambda: K.gram(K.min_kernel(), _B.astype(np.float32)),
    ),
    Same(K.min_kernel, "int scalars", lambda: K.min_kernel()(3, 5), lambda: jnp.float32(3.0)),
    Bad(
        K.min_kernel,
        "examples of different widths",
        lambda: K.min_kernel()(np.ones(2), np.ones(1)),
        ("x", "z"),
    ),
    # strings
    Bad(
        K.encode_strings,
        "a str, not a list of str",
        lambda: K.encode_strings("abc"),
        "strings",
        TypeError,
    ),
    Bad(K.encode_strings, "an int item", lambda: K.encode_strings(["ab", 3]), "strings", TypeError),
    Bad(
        K.encode_strings,
        "length too short",
        lambda: K.encode_strings(["abc"], length=2),
        ("strings", "length"),
    ),
    Bad(K.encode_strings, "negative length", lambda: K.encode_strings(["a"], length=-1), "length"),
    Bad(
        K.encode_strings,
        "float length",
        lambda: K.encode_strings(["a"], length=2.5),
        "length",
        TypeError,
    ),
    Bad(K.encode_strings, "pad 0 (a code point)", lambda: K.encode_strings(["a"], pad=0), "pad"),
    Bad(K.encode_strings, "float pad", lambda: K.encode_strings(["a"], pad=-1.5), "pad", TypeError),
    Same(
        K.encode_strings,
        "tuple of strings",
        lambda: K.encode_strings(("ab", "")),
        lambda: jnp.array([[97, 98], [-1, -1]], jnp.int32),
    ),
    Holds(
        K.encode_strings,
        "no strings",
        lambda: K.encode_strings([]),
        _true(lambda E: E.shape == (0, 1)),
    ),
    Bad(K.substring, "pad 0", lambda: K.substring(pad=0), "pad"),
    Bad(K.substring, "float pad", lambda: K.substring(pad=-1.0), "pad", TypeError),
    Bad(
        K.substring,
        "include_empty a string",
        lambda: K.substring(include_empty="yes"),
        "include_empty",
        TypeError,
    ),
    Bad(K.substring, "2-D strings", lambda: K.substring()(_S2, _S2), ("x", "z")),
    Holds(
        K.substring,
        "empty strings",
        lambda: K.substring(include_empty=True)(*K.encode_strings(["", ""])),
        _true(lambda v: float(v) == 1.0),
    ),
    # is_psd
    Bad(K.is_psd, "not square", lambda: K.is_psd(np.ones((2, 3))), "G"),
    Bad(K.is_psd, "1-D", lambda: K.is_psd(np.ones(3)), "G"),
    Bad(K.is_psd, "NaN entry", lambda: K.is_psd(np.array([[1.0, np.nan], [np.nan, 1.0]])), "G"),
    Bad(K.is_psd, "negative tol", lambda: K.is_psd(np.eye(2), tol=-1.0), "tol"),
    Bad(K.is_psd, "NaN tol", lambda: K.is_psd(np.eye(2), tol=float("nan")), "tol"),
    Bad(K.is_psd, "string G", lambda: K.is_psd("eye"), "G", TypeError),
    Same(
        K.is_psd,
        "bool identity",
        lambda: K.is_psd(np.eye(2, dtype=bool)),
        lambda: K.is_psd(np.eye(2)),
    ),
    Holds(K.is_psd, "list", lambda: K.is_psd([[2, 1], [1, 2]]), _is(True)),
    Holds(K.is_psd, "tol 0", lambda: K.is_psd(np.eye(2), tol=0.0), _is(True)),
    # as_tree, check_kernel
    Bad(K.as_tree, "a string", lambda: K.as_tree("rbf"), "kernel"),
    Holds(
        K.as_tree,
        "a plain function",
        lambda: K.as_tree(lambda x, z: jnp.vdot(x, z))(_X[0], _X[2]),
        _true(lambda v: float(v) == 1.0),
    ),
    Bad(K.check_kernel, "a string", lambda: K.check_kernel("rbf", _X), "kernel"),
    Bad(
        K.check_kernel,
        "a vector-valued kernel",
        lambda: K.check_kernel(lambda x, z: x * z, _X),
        "kernel",
    ),
    Holds(
        K.check_kernel, "bool rows", lambda: K.check_kernel(_LIN, _B), _true(lambda v: v is None)
    ),
    Holds(
        K.check_kernel,
        "lists",
        lambda: K.check_kernel(_RBF, _X.tolist(), _Z.tolist()),
        _true(lambda v: v is None),
    ),
    # gram
    Bad(K.gram, "1-D X", lambda: K.gram(_LIN, np.ones(3)), "X"),
    Bad(K.gram, "Z of another width", lambda: K.gram(_LIN, _X, np.ones((2, 3))), ("X", "Z")),
    Bad(K.gram, "1-D Z", lambda: K.gram(_LIN, _X, np.ones(2)), "Z"),
    Bad(K.gram, "NaN in X", lambda: K.gram(_RBF, _NAN), "X"),
    Bad(K.gram, "inf in Z", lambda: K.gram(_RBF, _X, np.full((1, 2), np.inf)), "Z"),
    Bad(K.gram, "batch_size 0", lambda: K.gram(_LIN, _X, batch_size=0), "batch_size"),
    Bad(K.gram, "float batch_size", lambda: K.gram(_LIN, _X, batch_size=1.5), "batch_size"),
    Bad(K.gram, "kernel not a function", lambda: K.gram(3.0, _X), "kernel"),
    Bad(K.gram, "string X", lambda: K.gram(_LIN, "X"), "X", TypeError),
    Same(
        K.gram,
        "lists",
        lambda: K.gram(_RBF, _X.tolist(), _Z.tolist()),
        lambda: K.gram(_RBF, _X, _Z),
    ),
    Same(
        K.gram,
        "batch_size larger than n",
        lambda: K.gram(_RBF, _X, _Z, batch_size=64),
        lambda: K.gram(_RBF, _X, _Z),
    ),
    Same(
        K.gram,
        "under jit",
        lambda: jax.jit(lambda X: K.gram(_RBF, X))(_X),
        lambda: K.gram(_RBF, _X),
    ),
    Same(K.gram, "one row", lambda: K.gram(_LIN, _X[:1]), lambda: jnp.array([[1.0]], jnp.float32)),
    # expansion
    Bad(K.expansion, "X of another width", lambda: K.expansion(_RBF, _X, _A, np.ones((2, 3))), "X"),
    Bad(K.expansion, "1-D support", lambda: K.expansion(_RBF, _A, _A, _X), "support"),
    Bad(K.expansion, "alpha of another length", lambda: K.expansion(_RBF, _X, _A[:2], _X), "alpha"),
    Bad(K.expansion, "3-D alpha", lambda: K.expansion(_RBF, _X, np.ones((3, 1, 1)), _X), "alpha"),
    Bad(
        K.expansion,
        "NaN alpha",
        lambda: K.expansion(_RBF, _X, np.array([np.nan, 1, 1]), _X),
        "alpha",
    ),
    Bad(K.expansion, "NaN support", lambda: K.expansion(_RBF, _NAN, _A, _X), "support"),
    Bad(
        K.expansion,
        "batch_size -1",
        lambda: K.expansion(_RBF, _X, _A, _X, batch_size=-1),
        "batch_size",
    ),
    Same(
        K.expansion,
        "int alpha (not truncated kernel values)",
        lambda: K.expansion(_RBF, _X, np.array([1, -1, 2]), _Z),
        lambda: K.expansion(_RBF, _X, np.array([1.0, -1.0, 2.0], np.float32), _Z),
    ),
    Same(
        K.expansion,
        "bool support and X, list alpha",
        lambda: K.expansion(_LIN, _B, _A.tolist(), _B),
        lambda: K.expansion(_LIN, _B.astype(np.float32), _A, _B.astype(np.float32)),
    ),
    Same(
        K.expansion,
        "(m, k) alpha in batches",
        lambda: K.expansion(_RBF, _X, np.c_[_A, -_A], _Z, batch_size=1),
        lambda: K.gram(_RBF, _Z, _X) @ np.c_[_A, -_A],
    ),
    # polynomial_features
    Bad(K.polynomial_features, "2-D x", lambda: K.polynomial_features(np.ones((2, 2)), 2), "x"),
    Bad(K.polynomial_features, "degree 0", lambda: K.polynomial_features(np.ones(2), 0), "degree"),
    Bad(
        K.polynomial_features,
        "NaN x",
        lambda: K.polynomial_features(np.array([np.nan, 1.0]), 2),
        "x",
    ),
    Same(
        K.polynomial_features,
        "int x",
        lambda: K.polynomial_features(np.array([1, 2]), 2),
        lambda: K.polynomial_features(np.array([1.0, 2.0], np.float32), 2),
    ),
    Same(
        K.polynomial_features,
        "bool list x",
        lambda: K.polynomial_features([True, False], 3),
        lambda: K.polynomial_features(np.array([1.0, 0.0], np.float32), 3),
    ),
]
