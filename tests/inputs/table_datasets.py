"""Bad input to :mod:`jaxlearn.datasets`: generators, ``standardize`` and the loaders' ``dtype``.

The scikit-learn loaders run once each here (``ocr_words`` reads the digits once more, cached); every
``Bad`` row of a loader fails before loading.
"""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import datasets as D
from tests.inputs.rows import Bad, Holds, Same

_K = jax.random.PRNGKey(0)
_X = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 2.0]], np.float32)


def _true(condition):
    def check(got):
        assert condition(got), got

    return check


def _key_rows(entry, call, typed=False):
    """``call(key)`` with keys of the wrong kind or shape (and a typed key, where ``typed``)."""
    rows = [
        Bad(entry, "int seed as key", lambda: call(0), "key", TypeError),
        Bad(entry, "float array as key", lambda: call(np.zeros(2, np.float32)), "key", TypeError),
        Bad(entry, "a batch of keys", lambda: call(jax.random.split(_K, 2)), "key"),
    ]
    typed_row = Same(entry, "typed key", lambda: call(jax.random.key(0)), lambda: call(_K))
    return rows + ([typed_row] if typed else [])


def _size_rows(entry, call, name, good):
    """``call(size)`` with the size argument ``name`` out of range; ``good`` as a NumPy int."""
    return [
        Bad(entry, f"{name} 0", lambda: call(0), name),
        Bad(entry, f"negative {name}", lambda: call(-2), name),
        Bad(entry, f"float {name}", lambda: call(2.5), name, TypeError),
        Bad(entry, f"None {name}", lambda: call(None), name, TypeError),
        Same(entry, f"numpy int {name}", lambda: call(np.int64(good)), lambda: call(good)),
    ]


ROWS = [
    # separable
    *_key_rows(D.separable, lambda key: D.separable(key, 4, 2, 0.1), typed=True),
    *_size_rows(D.separable, lambda n: D.separable(_K, n, 2, 0.1), "n", 4),
    *_size_rows(D.separable, lambda d: D.separable(_K, 4, d, 0.1), "d", 2),
    Bad(D.separable, "margin above 1", lambda: D.separable(_K, 4, 2, 1.5), "margin"),
    Bad(D.separable, "negative margin", lambda: D.separable(_K, 4, 2, -0.1), "margin"),
    Bad(D.separable, "NaN margin", lambda: D.separable(_K, 4, 2, float("nan")), "margin"),
    Bad(D.separable, "vector margin", lambda: D.separable(_K, 4, 2, np.ones(2)), "margin"),
    Bad(D.separable, "string margin", lambda: D.separable(_K, 4, 2, "wide"), "margin", TypeError),
    Bad(D.separable, "int dtype", lambda: D.separable(_K, 4, 2, 0.1, dtype=jnp.int32), "dtype"),
    Bad(
        D.separable,
        "not a dtype",
        lambda: D.separable(_K, 4, 2, 0.1, dtype="floaty"),
        "dtype",
        TypeError,
    ),
    Same(
        D.separable,
        "int margin 0",
        lambda: D.separable(_K, 4, 2, 0),
        lambda: D.separable(_K, 4, 2, 0.0),
    ),
    Same(
        D.separable,
        "float32 array margin",
        lambda: D.separable(_K, 4, 2, np.float32(0.25)),
        lambda: D.separable(_K, 4, 2, 0.25),
    ),
    Holds(
        D.separable,
        "margin 1: every point at +-w*",
        lambda: D.separable(_K, 4, 2, 1.0),
        _true(lambda r: np.allclose(np.abs(r[0] @ r[2]), 1.0, atol=1e-5)),
    ),
    Holds(
        D.separable,
        "one point in one dimension",
        lambda: D.separable(_K, 1, 1, 0.5),
        _true(
            lambda r: r[0].shape == (1, 1) and float(r[1][0] * r[0][0, 0] * r[2][0]) >= 0.5 - 1e-6
        ),
    ),
    # noisy_halfspace
    *_key_rows(D.noisy_halfspace, lambda key: D.noisy_halfspace(key, 4, 2, 0.1)),
    *_size_rows(D.noisy_halfspace, lambda n: D.noisy_halfspace(_K, n, 2, 0.1), "n", 4),
    Bad(D.noisy_halfspace, "d 0", lambda: D.noisy_halfspace(_K, 4, 0, 0.1), "d"),
    Bad(D.noisy_halfspace, "flip above 1", lambda: D.noisy_halfspace(_K, 4, 2, 1.5), "flip"),
    Bad(D.noisy_halfspace, "negative flip", lambda: D.noisy_halfspace(_K, 4, 2, -0.5), "flip"),
    Bad(D.noisy_halfspace, "NaN flip", lambda: D.noisy_halfspace(_K, 4, 2, float("nan")), "flip"),
    Bad(
        D.noisy_halfspace,
        "float16 is fine, int8 is not",
        lambda: D.noisy_halfspace(_K, 4, 2, 0.1, dtype=np.int8),
        "dtype",
    ),
    Same(
        D.noisy_halfspace,
        "int flip 0",
        lambda: D.noisy_halfspace(_K, 4, 2, 0),
        lambda: D.noisy_halfspace(_K, 4, 2, 0.0),
    ),
    Holds(
        D.noisy_halfspace,
        "flip 1: every label flipped",
        lambda: D.noisy_halfspace(_K, 4, 2, 1),
        _true(lambda r: bool(np.all(np.where(r[0] @ r[2] >= 0, -1.0, 1.0) == r[1]))),
    ),
    Holds(
        D.noisy_halfspace,
        "flip traced under vmap",
        lambda: jax.vmap(lambda f: D.noisy_halfspace(_K, 4, 2, f)[1])(jnp.array([0.0, 1.0])),
        _true(lambda y: y.shape == (2, 4) and bool(np.all(y[0] == -y[1]))),
    ),
    # disjunction
    *_key_rows(D.disjunction, lambda key: D.disjunction(key, 4, 3, 2)),
    *_size_rows(D.disjunction, lambda n: D.disjunction(_K, n, 3, 2), "n", 4),
    Bad(D.disjunction, "d 0", lambda: D.disjunction(_K, 4, 0, 1), "d"),
    Bad(D.disjunction, "k > d", lambda: D.disjunction(_K, 4, 3, 4), "k"),
    Bad(D.disjunction, "k 0", lambda: D.disjunction(_K, 4, 3, 0), "k"),
    Bad(D.disjunction, "float k", lambda: D.disjunction(_K, 4, 3, 1.5), "k", TypeError),
    Bad(D.disjunction, "p above 1", lambda: D.disjunction(_K, 4, 3, 2, p=1.5), "p"),
    Bad(D.disjunction, "NaN p", lambda: D.disjunction(_K, 4, 3, 2, p=float("nan")), "p"),
    Holds(
        D.disjunction,
        "k = d, p = 0: all-zero examples, negative labels",
        lambda: D.disjunction(_K, 4, 3, 3, p=0),
        _true(lambda r: not np.asarray(r[0]).any() and not np.asarray(r[1]).any()),
    ),
    Same(
        D.disjunction,
        "int p 1",
        lambda: D.disjunction(_K, 4, 3, 2, p=1),
        lambda: D.disjunction(_K, 4, 3, 2, p=1.0),
    ),
    # expert_advice
    *_key_rows(D.expert_advice, lambda key: D.expert_advice(key, 4, 3), typed=True),
    *_size_rows(D.expert_advice, lambda T: D.expert_advice(_K, T, 3), "T", 4),
    Bad(D.expert_advice, "n 0", lambda: D.expert_advice(_K, 4, 0), "n"),
    Bad(
        D.expert_advice,
        "error_rates of the wrong length",
        lambda: D.expert_advice(_K, 4, 3, [0.1, 0.2]),
        "error_rates",
    ),
    Bad(
        D.expert_advice,
        "error rate above 1",
        lambda: D.expert_advice(_K, 4, 3, [0.1, 0.2, 1.5]),
        "error_rates",
    ),
    Bad(
        D.expert_advice,
        "NaN error rate",
        lambda: D.expert_advice(_K, 4, 3, [0.1, np.nan, 0.2]),
        "error_rates",
    ),
    Same(
        D.expert_advice,
        "list error rates",
        lambda: D.expert_advice(_K, 4, 3, [0.0, 0.5, 1.0]),
        lambda: D.expert_advice(_K, 4, 3, np.array([0.0, 0.5, 1.0], np.float32)),
    ),
    Same(
        D.expert_advice,
        "int error rates",
        lambda: D.expert_advice(_K, 4, 3, np.array([0, 1, 1])),
        lambda: D.expert_advice(_K, 4, 3, np.array([0.0, 1.0, 1.0], np.float32)),
    ),
    Same(
        D.expert_advice,
        "one scalar error rate",
        lambda: D.expert_advice(_K, 4, 3, 0.0),
        lambda: D.expert_advice(_K, 4, 3, [0.0, 0.0, 0.0]),
    ),
    # standardize
    Bad(D.standardize, "NaN", lambda: D.standardize(np.where(_X > 4, np.nan, _X)), "X"),
    Bad(D.standardize, "empty", lambda: D.standardize(_X[:0]), "X"),
    Bad(D.standardize, "1-D", lambda: D.standardize(_X[0]), "X"),
    Bad(D.standardize, "string", lambda: D.standardize("X"), "X", TypeError),
    Same(
        D.standardize,
        "int columns",
        lambda: D.standardize(_X.astype(np.int32)),
        lambda: D.standardize(_X),
    ),
    Same(D.standardize, "list", lambda: D.standardize(_X.tolist()), lambda: D.standardize(_X)),
    Same(
        D.standardize,
        "bool columns",
        lambda: D.standardize(_X > 2),
        lambda: D.standardize((_X > 2).astype(np.float32)),
    ),
    Holds(
        D.standardize,
        "one row: centred zeros",
        lambda: D.standardize(_X[:1]),
        _true(lambda Z: np.array_equal(Z, np.zeros((1, 2)))),
    ),
    Same(D.standardize, "under jit", lambda: jax.jit(D.standardize)(_X), lambda: D.standardize(_X)),
    # loaders (each loads once)
    Bad(D.load_breast_cancer, "int dtype", lambda: D.load_breast_cancer(dtype=np.int32), "dtype"),
    Bad(
        D.load_breast_cancer,
        "not a dtype",
        lambda: D.load_breast_cancer(dtype="floaty"),
        "dtype",
        TypeError,
    ),
    Holds(
        D.load_breast_cancer,
        "float64",
        lambda: D.load_breast_cancer(dtype=np.float64),
        _true(
            lambda r: r[0].dtype == r[1].dtype == np.float64 and set(np.unique(r[1])) == {-1.0, 1.0}
        ),
    ),
    Bad(D.load_digits, "bool dtype", lambda: D.load_digits(dtype=bool), "dtype"),
    Bad(D.load_digits, "int dtype", lambda: D.load_digits(dtype="int64"), "dtype"),
    Holds(
        D.load_digits,
        "float64",
        lambda: D.load_digits(dtype=np.float64),
        _true(
            lambda r: (
                r[0].dtype == np.float64 and r[0].shape == (1797, 64) and r[1].dtype == np.int32
            )
        ),
    ),
    # ocr_words (small; split None only, so the digits are read once)
    *_key_rows(D.ocr_words, lambda key: D.ocr_words(key, 2, 2, num_letters=3)),
    *_size_rows(D.ocr_words, lambda m: D.ocr_words(_K, m, 2, num_letters=3), "num_words", 2),
    Bad(D.ocr_words, "length 0", lambda: D.ocr_words(_K, 2, 0), "length"),
    Bad(
        D.ocr_words, "num_letters 11", lambda: D.ocr_words(_K, 2, 2, num_letters=11), "num_letters"
    ),
    Bad(D.ocr_words, "num_letters 1", lambda: D.ocr_words(_K, 2, 2, num_letters=1), "num_letters"),
    Bad(D.ocr_words, "follow above 1", lambda: D.ocr_words(_K, 2, 2, follow=1.5), "follow"),
    Bad(D.ocr_words, "negative noise", lambda: D.ocr_words(_K, 2, 2, noise=-0.1), "noise"),
    Bad(D.ocr_words, "inf noise", lambda: D.ocr_words(_K, 2, 2, noise=float("inf")), "noise"),
    Bad(D.ocr_words, "unknown split", lambda: D.ocr_words(_K, 2, 2, split="valid"), "split"),
    Bad(D.ocr_words, "int dtype", lambda: D.ocr_words(_K, 2, 2, dtype=np.int32), "dtype"),
    Same(
        D.ocr_words,
        "int follow 1",
        lambda: D.ocr_words(_K, 2, 2, num_letters=3, follow=1),
        lambda: D.ocr_words(_K, 2, 2, num_letters=3, follow=1.0),
    ),
    Holds(
        D.ocr_words,
        "follow 1: a chain of successors",
        lambda: D.ocr_words(_K, 2, 2, num_letters=3, follow=1.0),
        _true(lambda r: bool(np.all(np.diff(np.asarray(r[1]), axis=1) % 3 == 1))),
    ),
    # ranking_queries
    *_key_rows(D.ranking_queries, lambda key: D.ranking_queries(key, 2, 3, 2)),
    *_size_rows(D.ranking_queries, lambda m: D.ranking_queries(_K, m, 3, 2), "num_queries", 2),
    Bad(D.ranking_queries, "num_items 0", lambda: D.ranking_queries(_K, 2, 0, 2), "num_items"),
    Bad(D.ranking_queries, "d 0", lambda: D.ranking_queries(_K, 2, 3, 0), "d"),
    Bad(D.ranking_queries, "one grade", lambda: D.ranking_queries(_K, 2, 3, 2, levels=1), "levels"),
    Bad(
        D.ranking_queries,
        "float levels",
        lambda: D.ranking_queries(_K, 2, 3, 2, levels=2.5),
        "levels",
        TypeError,
    ),
    Bad(
        D.ranking_queries,
        "negative noise",
        lambda: D.ranking_queries(_K, 2, 3, 2, noise=-1.0),
        "noise",
    ),
    Bad(
        D.ranking_queries,
        "NaN noise",
        lambda: D.ranking_queries(_K, 2, 3, 2, noise=float("nan")),
        "noise",
    ),
    Bad(
        D.ranking_queries,
        "int dtype",
        lambda: D.ranking_queries(_K, 2, 3, 2, dtype=np.int32),
        "dtype",
    ),
    Same(
        D.ranking_queries,
        "int noise 0",
        lambda: D.ranking_queries(_K, 2, 3, 2, noise=0),
        lambda: D.ranking_queries(_K, 2, 3, 2, noise=0.0),
    ),
    Holds(
        D.ranking_queries,
        "two grades",
        lambda: D.ranking_queries(_K, 2, 3, 2, levels=2),
        _true(lambda r: r[1].shape == (2, 3) and set(np.unique(r[1])) <= {0.0, 1.0}),
    ),
    # from_river: any iterable of (dict, target) pairs
    Holds(
        D.from_river,
        "pairs with string targets",
        lambda: D.from_river([({"a": 1, "b": 2.5}, "x"), ({"b": 0, "a": True}, "y")]),
        _true(
            lambda r: (
                r[0].tolist() == [[1.0, 2.5], [1.0, 0.0]]
                and r[1].tolist() == [0, 1]
                and r[2].tolist() == ["x", "y"]
            )
        ),
    ),
    Bad(D.from_river, "no examples", lambda: D.from_river([]), "dataset"),
    Bad(D.from_river, "a class, not a data set", lambda: D.from_river(dict), "dataset", TypeError),
    Bad(
        D.from_river,
        "features differ",
        lambda: D.from_river([({"a": 1}, 0), ({"b": 1}, 1)]),
        "dataset",
    ),
    Bad(D.from_river, "not pairs", lambda: D.from_river([1, 2]), "dataset"),
    Bad(D.from_river, "text features", lambda: D.from_river([({"a": "red"}, 0)]), "dataset"),
    Bad(D.from_river, "int dtype", lambda: D.from_river([({"a": 1}, 0)], dtype=np.int32), "dtype"),
]
