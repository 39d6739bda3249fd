"""Data: generators with known ground truth, and loaders for the data sets bundled with scikit-learn
and river.

Generators take a ``jax.random`` key first and return JAX arrays; each is one compiled program per
size, and their hyperparameters (``margin``, ``flip``) are traced, so a sweep over them is one
vmapped program.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._checks import check_finite, check_ndim
from jaxlearn._shared import drawn_flat, float_dtype, on_device

__all__ = [
    "disjunction",
    "expert_advice",
    "from_river",
    "load_breast_cancer",
    "load_digits",
    "noisy_halfspace",
    "ocr_words",
    "ranking_queries",
    "separable",
    "standardize",
]

Array = jax.Array


def _check_size(**sizes) -> tuple:
    """Positive int sizes (``TypeError`` for a non-integer, ``ValueError`` below 1), as ints."""
    for name, value in sizes.items():
        if value is None:
            raise TypeError(f"expected `{name}` {core.POSITIVE_INT}, got None")
        core.POSITIVE_INT.check(name, value)
    return tuple(int(v) for v in sizes.values())


def _check_key(key) -> None:
    """A single ``jax.random`` key: a typed key of shape () or a raw uint32 key of shape (2,)."""
    dtype = getattr(key, "dtype", None)
    if dtype is None or not (
        jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key) or dtype == np.uint32
    ):
        raise TypeError(
            "expected `key` a jax.random key (jax.random.key(0) or jax.random.PRNGKey(0)), got "
            + (f"dtype {dtype}" if dtype is not None else type(key).__name__)
        )
    typed = jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    if jnp.ndim(key) != (0 if typed else 1):
        raise ValueError(
            f"expected `key` a single key (vmap for a batch of keys), got shape {key.shape}"
        )


def _float_dtype(dtype):
    """``dtype`` as a float dtype (``None``: the default float dtype)."""
    if dtype is None:
        return jnp.result_type(float)
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"expected `dtype` a float dtype, got {dtype!r}") from None
    if not np.issubdtype(dtype, np.floating):
        raise ValueError(f"expected `dtype` a float dtype, got {dtype}")
    return dtype


def _check_scalar(name: str, value, interval) -> None:
    """A parameter that may be traced: a scalar in ``interval`` (checked when concrete)."""
    if value is not None and np.ndim(value) != 0:
        raise ValueError(f"expected `{name}` a scalar, {interval}, got shape {np.shape(value)}")
    interval.check(name, value)


def _unit_ball(key: Array, n: int, d: int, dtype) -> Array:
    """``n`` points uniform in the unit ball of R^d."""
    k_dir, k_rad = jax.random.split(key)
    z = drawn_flat(jax.random.normal, k_dir, (n, d), dtype=dtype)
    z = z / jnp.linalg.norm(z, axis=1, keepdims=True)
    return z * jax.random.uniform(k_rad, (n,), dtype)[:, None] ** (1.0 / d)


def _unit_vector(key: Array, d: int, dtype) -> Array:
    v = jax.random.normal(key, (d,), dtype)
    return v / jnp.linalg.norm(v)


def separable(
    key: Array, n: int, d: int, margin: ArrayLike, *, dtype=None
) -> tuple[Array, Array, Array]:
    r"""A linearly separable sample with a margin, as the Perceptron's bounds assume (Balcan section 1;
    COMP0078).

    Draws a unit :math:`w^*` and points uniform in the unit ball, then pushes each point out of the
    band :math:`|\langle w^*, x\rangle| < \gamma`: its component along :math:`w^*` becomes
    :math:`\pm(\gamma + |s|(1 - \gamma))` and its orthogonal part shrinks so that :math:`\|x\| \le 1`.

    Returns:
      ``(X, y, w_star)`` with ``||x_i|| <= 1``, ``y_i <w_star, x_i> >= margin``, ``||w_star|| = 1``,
      ``y`` in {-1, +1} (same float dtype as ``X``); ``margin`` in [0, 1].
    """
    _check_key(key)
    n, d = _check_size(n=n, d=d)
    _check_scalar("margin", margin, core.UNIT)
    dtype = _float_dtype(dtype)
    return _separable(key, jnp.asarray(margin, dtype), n, d, dtype)


@functools.partial(jax.jit, static_argnums=(2, 3, 4))
def _separable(key, margin, n, d, dtype):  # one program: one compilation per (n, d, dtype)
    k_w, k_x = jax.random.split(key)
    w_star = _unit_vector(k_w, d, dtype)
    X = _unit_ball(k_x, n, d, dtype)
    s = X @ w_star
    y = jnp.where(s >= 0, 1.0, -1.0).astype(dtype)
    along = margin + jnp.abs(s) * (1 - margin)
    perp = X - s[:, None] * w_star
    shrink = jnp.sqrt(jnp.clip((1 - along**2) / jnp.clip(1 - s**2, 1e-12), 0.0, 1.0))
    X = perp * shrink[:, None] + (y * along)[:, None] * w_star
    return X, y, w_star


def noisy_halfspace(
    key: Array, n: int, d: int, flip: ArrayLike, *, dtype=None
) -> tuple[Array, Array, Array]:
    """Points uniform in the unit ball labelled by a random unit halfspace, each label flipped with
    probability ``flip`` in [0, 1].

    Returns:
      ``(X, y, w_star)``, ``y`` in {-1, +1}.
    """
    _check_key(key)
    n, d = _check_size(n=n, d=d)
    _check_scalar("flip", flip, core.UNIT)
    dtype = _float_dtype(dtype)
    return _noisy_halfspace(key, jnp.asarray(flip, dtype), n, d, dtype)


@functools.partial(jax.jit, static_argnums=(2, 3, 4))
def _noisy_halfspace(key, flip, n, d, dtype):  # one program: one compilation per (n, d, dtype)
    k_w, k_x, k_f = jax.random.split(key, 3)
    w_star = _unit_vector(k_w, d, dtype)
    X = _unit_ball(k_x, n, d, dtype)
    y = jnp.where(X @ w_star >= 0, 1.0, -1.0).astype(dtype)
    y = jnp.where(jax.random.bernoulli(k_f, flip, (n,)), -y, y)
    return X, y, w_star


def disjunction(
    key: Array, n: int, d: int, k: int, *, p: float | None = None
) -> tuple[Array, Array, Array]:
    """Boolean examples in {0,1}^d labelled by a monotone disjunction of ``k`` of the ``d`` variables.

    Each bit is 1 with probability ``p`` in [0, 1] (default ``1 - 2 ** (-1 / k)``, so about half the
    examples are positive); 1 <= ``k`` <= ``d``. Returns ``(X, y, relevant)``: ``X`` float {0,1},
    ``y`` in {0, 1}, ``relevant`` the indices of the disjunction's variables.
    """
    _check_key(key)
    n, d, k = _check_size(n=n, d=d, k=k)
    if k > d:
        raise ValueError(f"expected 1 <= `k` <= d={d}, got {k}")
    _check_scalar("p", p, core.UNIT)
    p = 1 - 2 ** (-1 / k) if p is None else p
    return _disjunction(key, jnp.asarray(p).astype(jnp.result_type(float)), n, d, k)


@functools.partial(jax.jit, static_argnums=(2, 3, 4))
def _disjunction(key, p, n, d, k):  # one program (exact: draws, comparisons and counts only)
    k_rel, k_x = jax.random.split(key)
    relevant = jax.random.permutation(k_rel, d)[:k]
    X = drawn_flat(jax.random.bernoulli, k_x, (n, d), p=p).astype(p.dtype)
    y = (X[:, relevant].sum(axis=1) > 0).astype(jnp.int32)
    return X, y, relevant


def expert_advice(
    key: Array, T: int, n: int, error_rates: ArrayLike | None = None
) -> tuple[Array, Array]:
    """Binary outcomes and the advice of ``n`` experts; expert ``i`` errs with probability ``error_rates[i]``.

    Outcomes are fair coins; ``error_rates`` in [0, 1], of shape () or (n,). The default error rates go
    linearly from 0 (expert 0 is perfect: the stream is realizable) to 1/2 (the last expert is a coin).
    Returns ``(X, y)``: advice of shape (T, n) and outcomes of shape (T,), both int32 in {0, 1}.
    """
    _check_key(key)
    T, n = _check_size(T=T, n=n)
    if error_rates is not None:
        error_rates = jnp.asarray(
            np.asarray(error_rates) if isinstance(error_rates, list) else error_rates
        )
        if error_rates.shape not in ((), (n,)):
            raise ValueError(
                f"expected `error_rates` of shape () or ({n},), got {error_rates.shape}"
            )
        core.UNIT.check("error_rates", error_rates)
    rates = (
        jnp.linspace(0.0, 0.5, n)
        if error_rates is None
        else error_rates.astype(jnp.result_type(float))
    )
    return _expert_advice(key, rates, T, n)


@functools.partial(jax.jit, static_argnums=(2, 3))
def _expert_advice(key, rates, T, n):  # one program (exact: draws and comparisons only)
    k_y, k_flip = jax.random.split(key)
    y = jax.random.bernoulli(k_y, 0.5, (T,)).astype(jnp.int32)
    rates = jnp.broadcast_to(rates, (T, n)).ravel()
    wrong = drawn_flat(jax.random.bernoulli, k_flip, (T, n), p=rates).astype(jnp.int32)
    return jnp.abs(y[:, None] - wrong), y


def standardize(X: ArrayLike) -> Array:
    """Scale every column of a finite ``X`` of shape (m, d), m >= 1, to zero mean and unit variance
    (constant columns are left centred); bool/int columns are promoted to the default float dtype."""
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"expected `X` a numeric array of shape (m, d), got {type(X).__name__}")
    X = on_device(np.asarray(X) if isinstance(X, list) else X)
    check_ndim("X", X, 2, "(m, d)")
    if X.shape[0] == 0:
        raise ValueError(f"expected `X` with m >= 1 rows, got shape {X.shape}")
    check_finite("X", X)
    return _standardize(X)


@jax.jit
def _standardize(X):  # one program per shape
    X = X.astype(float_dtype(X))
    std = jnp.std(X, axis=0)
    return (X - jnp.mean(X, axis=0)) / jnp.where(std > 0, std, 1.0)


_SKLEARN_MISSING = (
    "`{name}` loads a data set bundled with scikit-learn, which is not installed; "
    "install it with: pip install 'jaxlearn[sklearn]'"
)


def _sklearn_datasets(name: str):
    try:
        import sklearn.datasets
    except ImportError as err:
        raise ImportError(_SKLEARN_MISSING.format(name=name)) from err
    return sklearn.datasets


def load_breast_cancer(*, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Wisconsin breast cancer (569 x 30), labels mapped to {-1, +1} (+1 = benign, sklearn's 1).

    Features are returned as they are (not scaled); see :func:`standardize`. ``dtype``: a float dtype.
    """
    dtype = _float_dtype(dtype)
    data = _sklearn_datasets("load_breast_cancer").load_breast_cancer()
    return data.data.astype(dtype), (2 * data.target - 1).astype(dtype)


def load_digits(*, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """The 8x8 handwritten digits (1797 x 64, pixels 0..16 in a float ``dtype``), labels 0..9 (int32)."""
    dtype = _float_dtype(dtype)
    data = _sklearn_datasets("load_digits").load_digits()
    return data.data.astype(dtype), data.target.astype(np.int32)


def from_river(dataset, *, dtype=np.float32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A river stream as arrays, in stream order: ``(X, y, classes)``.

    ``X`` (n, d) holds the features in the order of the first example's keys (each example must have
    the same keys, with numeric values); ``y`` (n,) int32 is each target's index in ``classes``, the
    sorted distinct targets. For a binary learner use ``2 * y - 1`` ({-1, +1}, +1 for ``classes[1]``).
    Needs river (``pip install 'jaxlearn[bench]'``).

    Args:
      dataset: a river data set (``river.datasets.Phishing()``) or any iterable of ``(dict, target)``.
      dtype: the float dtype of ``X``.

    Examples:
      >>> from river import datasets as river_datasets
      >>> from jaxlearn import datasets
      >>> X, y, classes = datasets.from_river(river_datasets.Phishing())
      >>> X.shape, classes.tolist()
      ((1250, 9), [False, True])
    """
    dtype = _float_dtype(dtype)
    if isinstance(dataset, type):
        raise TypeError(
            f"expected `dataset` a river data set instance, got the class {dataset.__name__}"
        )
    rows, targets, names = [], [], None
    for i, pair in enumerate(dataset):
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], dict)):
            raise ValueError(
                f"expected `dataset` to yield (dict of features, target) pairs, got {pair!r}"
            )
        x, target = pair
        if names is None:
            names = list(x)
        elif set(x) != set(names):
            raise ValueError(
                f"expected every example of `dataset` to have the features of the first, "
                f"example {i} has {sorted(set(x) ^ set(names))} in one but not the other"
            )
        rows.append([x[name] for name in names])
        targets.append(target)
    if not rows:
        raise ValueError("expected a non-empty `dataset`, got no examples")
    try:
        X = np.asarray(rows, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise ValueError(f"expected numeric features in `dataset`, got {err}") from None
    classes, y = np.unique(np.asarray(targets), return_inverse=True)
    return X, y.astype(np.int32), classes


# --------------------------------------------------------------------------------------------
# Structured output and ranking (UML sections 17.3-17.5)
# --------------------------------------------------------------------------------------------

_DIGITS_BY_CLASS: dict = {}


def _digit_images(split):
    """Digit images in [0, 1] grouped by class: ``(images (N, 64), index table (10, K), counts (10,))``.

    ``split``: ``None`` all 1797 images, ``"train"`` those at even positions of scikit-learn's order,
    ``"test"`` those at odd positions (disjoint halves, about 90 images per class each).
    """
    if split not in (None, "train", "test"):
        raise ValueError(f"expected `split` in (None, 'train', 'test'), got {split!r}")
    if split not in _DIGITS_BY_CLASS:
        images, labels = load_digits(dtype=np.float32)
        keep = np.arange(labels.size) % 2 == (0 if split == "train" else 1)
        if split is None:
            keep[:] = True
        # every split padded to the shapes of all the images (rows no index points to), so that
        # the splits share one compiled program
        width = np.bincount(labels).max()
        images = np.pad(images[keep] / 16.0, ((0, labels.size - keep.sum()), (0, 0)))
        labels = labels[keep]
        members = [np.flatnonzero(labels == c) for c in range(10)]
        counts = np.array([len(m) for m in members], np.int32)
        table = np.zeros((10, width), np.int32)
        for c, m in enumerate(members):
            table[c, : len(m)] = m
        _DIGITS_BY_CLASS[split] = (images, table, counts)
    return _DIGITS_BY_CLASS[split]


def ocr_words(
    key: Array,
    num_words: int,
    length: int,
    *,
    num_letters: int = 10,
    follow: ArrayLike = 0.9,
    noise: ArrayLike = 0.0,
    split: str | None = None,
    dtype=None,
) -> tuple[Array, Array]:
    r"""OCR-like words (UML section 17.3): scikit-learn's 8x8 digit images as letters, bigram-sequenced.

    The letters are the digit classes ``0..q-1`` (``q = num_letters`` <= 10). A word's first letter is
    uniform; each next letter is :math:`(y_{t-1} + 1) \bmod q` with probability ``follow`` and uniform
    over the ``q`` letters otherwise, so the letter-bigram features of
    :func:`jaxlearn.structured.chain_features` carry most of the information when the images are hard
    to read. Each letter's image is drawn uniformly among the digit images of its class (pixels scaled
    to [0, 1]) plus Gaussian noise of standard deviation ``noise``.

    Args:
      key: a ``jax.random`` key.
      num_words: ``m``, the number of words.
      length: ``r``, the letters per word.
      num_letters: ``q``, the alphabet size (at most 10).
      follow: probability in [0, 1] that a letter is the successor of the previous one (traced).
      noise: standard deviation of the pixel noise, >= 0 (traced).
      split: ``None`` (all images), ``"train"`` or ``"test"`` (disjoint halves of the digit images, so
        that a test set shows unseen images).
      dtype: the float dtype of ``X`` (default float32, float64 under x64).

    Returns:
      ``(X, Y)``: ``X`` of shape ``(m, 64, r)`` (each word ``(n_pixels, r)`` as in the book), ``Y`` of
      shape ``(m, r)`` int32 labels in ``0..q-1``.
    """
    _check_key(key)
    num_words, length, q = _check_size(num_words=num_words, length=length, num_letters=num_letters)
    if not 2 <= q <= 10:
        raise ValueError(f"expected `num_letters` in 2..10 (the digit classes), got {num_letters}")
    _check_scalar("follow", follow, core.UNIT)
    _check_scalar("noise", noise, core.NON_NEGATIVE)
    dtype = _float_dtype(dtype)
    images, table, counts = _digit_images(split)
    follow, noise = jnp.asarray(follow, dtype), jnp.asarray(noise, dtype)
    return _ocr_words(key, images, table, counts, follow, noise, num_words, length, q, dtype)


@functools.partial(jax.jit, static_argnums=(6, 7, 8, 9))
def _ocr_words(key, images, table, counts, follow, noise, num_words, length, q, dtype):
    k_first, k_flip, k_rand, k_img, k_noise = jax.random.split(key, 5)
    first = jax.random.randint(k_first, (num_words,), 0, q)
    flips = drawn_flat(jax.random.bernoulli, k_flip, (length - 1, num_words), p=follow)
    rand = drawn_flat(jax.random.randint, k_rand, (length - 1, num_words), minval=0, maxval=q)

    def next_letter(prev, inputs):
        flip, r = inputs
        letter = jnp.where(flip, (prev + 1) % q, r)
        return letter, letter

    _, rest = jax.lax.scan(next_letter, first, (flips, rand))
    Y = jnp.concatenate([first[None], rest]).T.astype(jnp.int32)  # (m, r)
    # an image of each letter's class, uniform among that class's images
    pick = drawn_flat(
        jax.random.randint, k_img, (num_words, length), minval=0, maxval=counts[Y].ravel()
    )
    X = images.astype(dtype)[table[Y, pick]]  # (m, r, 64)
    X = X + jnp.asarray(noise, dtype) * drawn_flat(jax.random.normal, k_noise, X.shape, dtype=dtype)
    return jnp.transpose(X, (0, 2, 1)), Y


def ranking_queries(
    key: Array,
    num_queries: int,
    num_items: int,
    d: int,
    *,
    levels: int = 4,
    noise: ArrayLike = 0.1,
    dtype=None,
) -> tuple[Array, Array, Array]:
    r"""Ranking queries (UML section 17.4): ``r`` items per query scored by a hidden unit :math:`w^*`.

    Items are standard Gaussian vectors; item :math:`i`'s relevance is its noisy score
    :math:`\langle w^*, x_i\rangle + \text{noise}\cdot z_i` binned by the quantiles of the standard normal
    into ``levels`` >= 2 grades ``0..levels-1`` (``levels=2`` gives relevant / not relevant);
    ``noise`` >= 0.

    Returns:
      ``(X, Y, w_star)``: ``X`` of shape ``(m, r, d)``, ``Y`` of shape ``(m, r)`` grades in ``X``'s float
      dtype, ``w_star`` of shape ``(d,)``.
    """
    _check_key(key)
    num_queries, num_items, d, levels = _check_size(
        num_queries=num_queries, num_items=num_items, d=d, levels=levels
    )
    if levels < 2:
        raise ValueError(f"expected `levels` >= 2 grades, got {levels}")
    _check_scalar("noise", noise, core.NON_NEGATIVE)
    dtype = _float_dtype(dtype)
    noise = jnp.asarray(noise, dtype)
    return _ranking_queries(key, noise, num_queries, num_items, d, levels, dtype)


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5, 6))
def _ranking_queries(key, noise, num_queries, num_items, d, levels, dtype):  # one program
    k_w, k_x, k_z = jax.random.split(key, 3)
    w_star = _unit_vector(k_w, d, dtype)
    X = drawn_flat(jax.random.normal, k_x, (num_queries, num_items, d), dtype=dtype)
    z = drawn_flat(jax.random.normal, k_z, (num_queries, num_items), dtype=dtype)
    s = (X @ w_star + noise * z) / jnp.sqrt(1 + noise**2)
    cuts = jax.scipy.stats.norm.ppf(jnp.arange(1, levels, dtype=dtype) / levels).astype(dtype)
    Y = jnp.sum(s[..., None] > cuts, axis=-1).astype(dtype)
    return X, Y, w_star
