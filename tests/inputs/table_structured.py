"""Bad and unusual input to ``jaxlearn.structured``: chain features, (loss-augmented) Viterbi, the Hamming
loss, and the structured SVM's sequence inputs (which the generic suite skips)."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import structured as st
from tests.inputs.rows import Bad, Holds, Same

KEY = jax.random.PRNGKey(0)
Q, N, R = 3, 2, 4  # labels, pixels, letters
_x = np.array([[1.0, 0.0, 0.5, -1.0], [0.0, 2.0, 1.0, 0.5]], np.float32)  # (N, R)
_y = np.array([0, 1, 2, 1], np.int32)
_w = np.linspace(-1.0, 1.0, N * Q + Q * Q).astype(np.float32)
_mask = np.array([True, True, True, False])
_NAN_x = np.where(np.arange(_x.size).reshape(_x.shape) == 3, np.nan, _x)

_X = np.stack([_x, -_x, _x[:, ::-1], 2 * _x])  # (4, N, R)
_Y = np.stack([_y, _y[::-1], (_y + 1) % Q, _y])
_M = np.stack([_mask, np.ones(R, bool), _mask, np.ones(R, bool)])
_SVM = st.structured_svm(0.1, 20, Q)


def _labels(function, *args, **kwargs):
    return lambda: function(*args, **kwargs)


def _fit_predict(X, Y, mask=None):
    return lambda: _SVM.predict(_SVM.fit(KEY, X, Y, mask), X, mask)


def _equal(want):
    return lambda got: np.testing.assert_array_equal(np.asarray(got), want)


def _v(*args, **kwargs):
    return lambda: st.viterbi(*args, **kwargs)


def _lav(*args, **kwargs):
    return lambda: st.loss_augmented_viterbi(*args, **kwargs)


ROWS = [
    # --- viterbi ---------------------------------------------------------------------------------
    Bad(st.viterbi, "NaN pixel", _v(_w, _NAN_x, Q), "x"),
    Bad(st.viterbi, "inf pixel", _v(_w, np.where(_x > 1.5, np.inf, _x), Q), "x"),
    Bad(st.viterbi, "1-D x", _v(_w, _x[0], Q), "x"),
    Bad(st.viterbi, "empty word", _v(_w, _x[:, :0], Q), "x"),
    Bad(st.viterbi, "w of another size", _v(_w[:-1], _x, Q), "w"),
    Bad(st.viterbi, "x of another pixel count", _v(_w, np.ones((3, R)), Q), "w"),
    Bad(st.viterbi, "NaN weight", _v(np.where(_w > 0.9, np.nan, _w), _x, Q), "w"),
    Bad(st.viterbi, "no labels", _v(_w, _x, 0), "num_labels"),
    Bad(st.viterbi, "float num_labels", _v(_w, _x, 3.0), "num_labels", TypeError),
    Bad(st.viterbi, "mask of another length", _v(_w, _x, Q, mask=_mask[:3]), "mask"),
    Bad(st.viterbi, "mask not a prefix", _v(_w, _x, Q, mask=_mask[::-1]), "mask"),
    Bad(st.viterbi, "empty mask", _v(_w, _x, Q, mask=np.zeros(R, bool)), "mask"),
    Bad(st.viterbi, "mask of 2s", _v(_w, _x, Q, mask=2 * _mask.astype(np.int32)), "mask"),
    Same(st.viterbi, "int x", _v(_w, _x.round().astype(np.int32), Q), _v(_w, _x.round(), Q)),
    Same(
        st.viterbi,
        "bool x, value",
        _v(_w, _x > 0, Q, return_value=True),
        _v(_w, (_x > 0).astype(np.float32), Q, return_value=True),
    ),
    Same(st.viterbi, "lists", _v(_w.tolist(), _x.tolist(), Q), _v(_w, _x, Q)),
    Same(
        st.viterbi,
        "0/1 mask",
        _v(_w, _x, Q, mask=_mask.astype(np.int32)),
        _v(_w, _x, Q, mask=_mask),
    ),
    Holds(
        st.viterbi,
        "padding decodes to -1",
        _v(_w, _x, Q, mask=_mask),
        lambda y: np.testing.assert_equal(int(y[-1]), -1),
    ),
    Holds(
        st.viterbi,
        "jit(vmap) over words",
        lambda: jax.jit(jax.vmap(lambda x: st.viterbi(_w, x, Q)))(_X),
        lambda y: np.testing.assert_equal(y.shape, (4, R)),
    ),
    Bad(
        st.viterbi,
        "jit: mask of another length (a shape check)",
        lambda: jax.jit(lambda x: st.viterbi(_w, x, Q, mask=_mask[:3]))(_x),
        "mask",
    ),
    # --- loss_augmented_viterbi and structured_hinge -------------------------------------------------
    Bad(st.loss_augmented_viterbi, "label q", _lav(_w, _x, np.where(_y == 2, 3, _y), Q), "y"),
    Bad(
        st.loss_augmented_viterbi,
        "label -1 without mask",
        _lav(_w, _x, np.where(_y == 2, -1, _y), Q),
        ("y", "mask"),
    ),
    Bad(st.loss_augmented_viterbi, "label 0.5", _lav(_w, _x, _y + 0.5, Q), "y"),
    Bad(
        st.loss_augmented_viterbi, "NaN label", _lav(_w, _x, np.where(_y == 2, np.nan, _y), Q), "y"
    ),
    Same(
        st.loss_augmented_viterbi,
        "bool labels are 0/1",
        _lav(_w, _x, _y > 0, Q),
        _lav(_w, _x, (_y > 0).astype(np.int32), Q),
    ),
    Bad(st.loss_augmented_viterbi, "labels of another length", _lav(_w, _x, _y[:3], Q), "y"),
    Bad(st.loss_augmented_viterbi, "NaN pixel", _lav(_w, _NAN_x, _y, Q), "x"),
    Bad(st.loss_augmented_viterbi, "w of another size", _lav(_w[:5], _x, _y, Q), "w"),
    Same(
        st.loss_augmented_viterbi,
        "float labels",
        _lav(_w, _x, _y.astype(np.float32), Q),
        _lav(_w, _x, _y, Q),
    ),
    Same(
        st.loss_augmented_viterbi,
        "-1 on the padding",
        _lav(_w, _x, np.where(_mask, _y, -1), Q, mask=_mask),
        _lav(_w, _x, _y, Q, mask=_mask),
    ),
    Same(
        st.loss_augmented_viterbi,
        "int x",
        _lav(_w, _x.round().astype(np.int32), _y, Q),
        _lav(_w, _x.round(), _y, Q),
    ),
    Bad(st.structured_hinge, "label q", lambda: st.structured_hinge(_w, _x, _y + 1, Q), "y"),
    Bad(
        st.structured_hinge,
        "NaN weight",
        lambda: st.structured_hinge(np.full_like(_w, np.nan), _x, _y, Q),
        "w",
    ),
    Holds(
        st.structured_hinge,
        "bounds the Hamming loss",
        lambda: (st.structured_hinge(_w, _x, _y, Q), st.hamming_loss(st.viterbi(_w, _x, Q), _y)),
        lambda v: np.testing.assert_array_less(np.asarray(v[1]) - 1e-6, np.asarray(v[0])),
    ),
    # --- chain_features, sequence_score, split_weights ----------------------------------------------
    Bad(st.chain_features, "NaN pixel", lambda: st.chain_features(_NAN_x, _y, Q), "x"),
    Bad(st.chain_features, "label q", lambda: st.chain_features(_x, _y + 1, Q), "y"),
    Bad(st.chain_features, "no labels", lambda: st.chain_features(_x, _y, 0), "num_labels"),
    Bad(st.chain_features, "3-D x", lambda: st.chain_features(_X, _y, Q), "x"),
    Same(
        st.chain_features,
        "int x",
        lambda: st.chain_features(_x.round().astype(np.int32), _y, Q),
        lambda: st.chain_features(_x.round(), _y, Q),
    ),
    Same(
        st.chain_features,
        "lists",
        lambda: st.chain_features(_x.tolist(), _y.tolist(), Q),
        lambda: st.chain_features(_x, _y, Q),
    ),
    Bad(
        st.sequence_score,
        "NaN weight",
        lambda: st.sequence_score(np.where(_w > 0, np.nan, _w), _x, _y, Q),
        "w",
    ),
    Bad(
        st.sequence_score,
        "label -1 without mask",
        lambda: st.sequence_score(_w, _x, _y - 1, Q),
        "y",
    ),
    Bad(
        st.sequence_score,
        "inf pixel",
        lambda: st.sequence_score(_w, np.where(_x > 1.5, np.inf, _x), _y, Q),
        "x",
    ),
    Same(
        st.sequence_score,
        "equals <w, Psi>",
        lambda: st.sequence_score(_w, _x, _y, Q, mask=_mask),
        lambda: jnp.vdot(_w, st.chain_features(_x, _y, Q, mask=_mask)),
        rtol=1e-5,
    ),
    Same(
        st.sequence_score,
        "int weights",
        lambda: st.sequence_score(np.arange(_w.size), _x, _y, Q),
        lambda: st.sequence_score(np.arange(_w.size, dtype=np.float32), _x, _y, Q),
    ),
    Bad(st.split_weights, "w of another size", lambda: st.split_weights(_w[:-1], N, Q), "w"),
    Bad(st.split_weights, "no pixels", lambda: st.split_weights(_w, 0, Q), "n_pixels"),
    Bad(
        st.split_weights,
        "float num_labels",
        lambda: st.split_weights(_w, N, 3.5),
        "num_labels",
        TypeError,
    ),
    Bad(
        st.split_weights,
        "NaN weight",
        lambda: st.split_weights(np.full_like(_w, np.nan), N, Q),
        "w",
    ),
    Same(
        st.split_weights,
        "list",
        lambda: st.split_weights(_w.tolist(), N, Q),
        lambda: st.split_weights(_w, N, Q),
    ),
    # --- hamming_loss ----------------------------------------------------------------------------
    Bad(
        st.hamming_loss, "lengths differ", lambda: st.hamming_loss(_y[:3], _y), ("y_pred", "y_true")
    ),
    Bad(st.hamming_loss, "empty", lambda: st.hamming_loss(_y[:0], _y[:0]), ("y_pred", "y_true")),
    Bad(st.hamming_loss, "scalars", lambda: st.hamming_loss(1, 1), ("y_pred", "y_true")),
    Bad(
        st.hamming_loss,
        "NaN prediction",
        lambda: st.hamming_loss(np.array([0.0, np.nan, 1.0, 1.0]), _y),
        "y_pred",
    ),
    Bad(
        st.hamming_loss,
        "mask of another length",
        lambda: st.hamming_loss(_y, _y, mask=_mask[:3]),
        "mask",
    ),
    Bad(
        st.hamming_loss,
        "empty mask",
        lambda: st.hamming_loss(_y, _y, mask=np.zeros(R, bool)),
        "mask",
    ),
    Bad(
        st.hamming_loss,
        "int dtype",
        lambda: st.hamming_loss(_y, _y, dtype=jnp.int32),
        "dtype",
        TypeError,
    ),
    Holds(
        st.hamming_loss,
        "0.5 is not 0",
        lambda: st.hamming_loss(np.array([0.5, 1.0, 2.0, 1.0]), _y),
        lambda v: np.testing.assert_allclose(v, 0.25),
    ),
    Same(
        st.hamming_loss,
        "int vs float labels",
        lambda: st.hamming_loss(_y[::-1], _y),
        lambda: st.hamming_loss(_y[::-1].astype(np.float32), _y.astype(np.float32)),
    ),
    Same(
        st.hamming_loss,
        "lists, mask",
        lambda: st.hamming_loss(_y[::-1].tolist(), _y.tolist(), mask=_mask.tolist()),
        lambda: st.hamming_loss(_y[::-1], _y, mask=_mask),
    ),
    Holds(
        st.hamming_loss,
        "batch against one word",
        lambda: st.hamming_loss(_Y, _y[None]),
        lambda v: np.testing.assert_allclose(v, [0.0, 1.0, 1.0, 0.0]),
    ),
    # --- structured_svm: sequences (skipped by the generic suite) -------------------------------------
    Bad(
        st.structured_svm,
        "predict, X of another pixel count",
        lambda: _SVM.predict(_SVM.fit(KEY, _X, _Y), np.ones((2, N + 1, R))),
        "X",
    ),
    Bad(
        st.structured_svm,
        "predict, one word (2-D X)",
        lambda: _SVM.predict(_SVM.fit(KEY, _X, _Y), _x),
        "X",
    ),
    Bad(
        st.structured_svm,
        "predict, NaN X",
        lambda: _SVM.predict(_SVM.fit(KEY, _X, _Y), _X * np.nan),
        "X",
    ),
    Bad(
        st.structured_svm,
        "decision_function, inf X",
        lambda: _SVM.decision_function(_SVM.fit(KEY, _X, _Y), np.where(_X > 1.5, np.inf, _X)),
        "X",
    ),
    Bad(st.structured_svm, "fit, label q", lambda: _SVM.fit(KEY, _X, _Y + 1), "Y"),
    Bad(
        st.structured_svm,
        "fit, NaN label",
        lambda: _SVM.fit(KEY, _X, np.where(_Y == 2, np.nan, _Y)),
        "Y",
    ),
    Bad(
        st.structured_svm,
        "fit, mask not a prefix",
        lambda: _SVM.fit(KEY, _X, _Y, _M[:, ::-1]),
        "mask",
    ),
    Bad(st.structured_svm, "fit, empty sample", lambda: _SVM.fit(KEY, _X[:0], _Y[:0]), "X"),
    Bad(
        st.structured_svm, "fit, ragged words", lambda: _SVM.fit(KEY, [_x, _x[:, :3]], _Y[:2]), "X"
    ),
    Bad(st.structured_svm, "no labels", lambda: st.structured_svm(0.1, 10, 0), "num_classes"),
    Bad(
        st.structured_svm,
        "num_labels alias, float",
        lambda: st.structured_svm(0.1, 10, num_labels=2.5),
        "num_classes",
        TypeError,
    ),
    Same(
        st.structured_svm,
        "int X",
        _fit_predict(_X.round().astype(np.int32), _Y),
        _fit_predict(_X.round(), _Y),
    ),
    Same(
        st.structured_svm,
        "lists, masks",
        _fit_predict(_X.tolist(), _Y.tolist(), _M.tolist()),
        _fit_predict(_X, _Y, _M),
    ),
    Same(
        st.structured_svm,
        "float labels, -1 padding",
        _fit_predict(_X, np.where(_M, _Y, -1).astype(np.float32), _M),
        _fit_predict(_X, _Y, _M),
    ),
    Holds(
        st.structured_svm,
        "one word",
        _fit_predict(_X[:1], _Y[:1]),
        lambda y: np.testing.assert_equal(y.shape, (1, R)),
    ),
]
