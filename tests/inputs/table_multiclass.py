"""Bad and unusual input to ``jaxlearn.multiclass``: feature maps, the loss-augmented argmax, ``pairs``,
and what the generic suite does not see of the learners (the binary learner, ``delta``, custom maps)."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import core, linear, multiclass, online
from tests.inputs.rows import Bad, Holds, Same

KEY = jax.random.PRNGKey(0)
_X = np.array(
    [[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], np.float32
)
_Y = np.array([0, 1, 2, 0, 1, 2], np.int32)
_NAN_X = np.where(np.arange(_X.size).reshape(_X.shape) == 1, np.nan, _X)
_COUNTS = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, 3.0], [1.0, 1.0, 0.0]], np.float32)
_TOPICS = np.array([0, 1, 1])

_mv = multiclass.multivector
_laa = multiclass.loss_augmented_argmax
_S = np.array([0.5, 2.0, -1.0], np.float32)
_C = np.array([1.0, 0.0, 1.0], np.float32)

_SVM = linear.soft_svm(0.1, 20)
_OVA = multiclass.one_vs_all(_SVM, 3)
_AP = multiclass.all_pairs(_SVM, 3)
_MSVM = multiclass.multiclass_svm(0.1, 20, 3)
_MP = multiclass.multiclass_perceptron(3, max_epochs=5)
_MSGD = multiclass.multiclass_sgd(0.1, 20, 3)
_PSI = multiclass.tfidf(_COUNTS, _TOPICS, 2)
_TFSVM = multiclass.multiclass_svm(0.1, 20, 2, feature_map=_PSI)
_TFSGD = multiclass.multiclass_sgd(0.1, 20, 2, feature_map=_PSI)


def _labels_of(learner, X=_X, y=_Y):
    return lambda: learner.predict(learner.fit(KEY, X, y), X)


def _equal(want):
    return lambda got: np.testing.assert_array_equal(np.asarray(got), want)


ROWS = [
    # --- multivector -------------------------------------------------------------------------------
    Bad(_mv, "2-D x", lambda: _mv(_X, 0, 3), "x"),
    Bad(_mv, "NaN x", lambda: _mv(np.array([1.0, np.nan]), 0, 3), "x"),
    Bad(_mv, "inf x", lambda: _mv(np.array([1.0, np.inf]), 0, 3), "x"),
    Bad(_mv, "label k", lambda: _mv(_X[0], 3, 3), "y"),
    Bad(_mv, "label -1", lambda: _mv(_X[0], -1, 3), "y"),
    Bad(_mv, "label 0.5", lambda: _mv(_X[0], 0.5, 3), "y"),
    Bad(_mv, "vector y", lambda: _mv(_X[0], np.array([0, 1]), 3), "y"),
    Bad(_mv, "one class", lambda: _mv(_X[0], 0, 1), "num_classes"),
    Bad(_mv, "float num_classes", lambda: _mv(_X[0], 0, 2.5), "num_classes", TypeError),
    Same(
        _mv,
        "int x",
        lambda: _mv(np.array([1, 2], np.int32), 1, 3),
        lambda: _mv(np.array([1.0, 2.0]), 1, 3),
    ),
    Same(
        _mv,
        "bool x",
        lambda: _mv(np.array([True, False]), 2, 3),
        lambda: _mv(np.array([1.0, 0.0]), 2, 3),
    ),
    Same(_mv, "list x", lambda: _mv([1.0, 2.0], 0, 3), lambda: _mv(np.array([1.0, 2.0]), 0, 3)),
    Holds(
        _mv,
        "float dtype of an int x",
        lambda: _mv(np.array([1, 2], np.int32), 0, 2),
        lambda v: np.testing.assert_equal(jnp.issubdtype(v.dtype, jnp.floating), True),
    ),
    Holds(
        _mv,
        "traced label under jit",
        lambda: jax.jit(lambda y: _mv(_X[0], y, 3))(1),
        _equal([0.0, 0.0, 2.0, 0.0, 0.0, 0.0]),
    ),
    # --- loss_augmented_argmax ---------------------------------------------------------------------
    Bad(_laa, "2-D scores", lambda: _laa(_S[None], _C, 0), "scores"),
    Bad(_laa, "no classes", lambda: _laa(_S[:0], _C[:0], 0), "scores"),
    Bad(_laa, "NaN score", lambda: _laa(np.array([np.nan, 1.0, 0.0]), _C, 0), "scores"),
    Bad(_laa, "costs too short", lambda: _laa(_S, _C[:2], 0), "costs"),
    Bad(_laa, "negative cost", lambda: _laa(_S, -_C, 0), "costs"),
    Bad(_laa, "NaN cost", lambda: _laa(_S, np.array([np.nan, 0.0, 1.0]), 0), "costs"),
    Bad(_laa, "label k", lambda: _laa(_S, _C, 3), "y"),
    Bad(_laa, "label -1", lambda: _laa(_S, _C, -1), "y"),
    Bad(_laa, "label 1.5", lambda: _laa(_S, _C, 1.5), "y"),
    Bad(_laa, "vector y", lambda: _laa(_S, _C, np.array([0, 1])), "y"),
    Same(
        _laa,
        "int scores",
        lambda: _laa(np.array([0, 2, -1]), _C, 1),
        lambda: _laa(np.array([0.0, 2.0, -1.0]), _C, 1),
    ),
    Same(_laa, "lists", lambda: _laa(_S.tolist(), _C.tolist(), 0), lambda: _laa(_S, _C, 0)),
    Holds(_laa, "the margin violator", lambda: _laa(_S, _C, 0), _equal(1)),
    Holds(
        _laa,
        "vmap",
        lambda: jax.vmap(_laa, (0, None, 0))(np.stack([_S, -_S]), _C, jnp.array([1, 0])),
        _equal([1, 2]),
    ),
    # --- pairs ------------------------------------------------------------------------------------
    Bad(multiclass.pairs, "one class", lambda: multiclass.pairs(1), "num_classes"),
    Bad(multiclass.pairs, "float", lambda: multiclass.pairs(2.5), "num_classes", TypeError),
    Bad(multiclass.pairs, "string", lambda: multiclass.pairs("3"), "num_classes", TypeError),
    Holds(
        multiclass.pairs,
        "k = 3",
        lambda: np.stack(multiclass.pairs(np.int64(3))),
        _equal([[0, 0, 1], [1, 2, 2]]),
    ),
    # --- tfidf ------------------------------------------------------------------------------------
    Bad(
        multiclass.tfidf,
        "NaN count",
        lambda: multiclass.tfidf(np.where(_COUNTS > 2, np.nan, _COUNTS), _TOPICS, 2),
        "counts",
    ),
    Bad(
        multiclass.tfidf, "negative count", lambda: multiclass.tfidf(-_COUNTS, _TOPICS, 2), "counts"
    ),
    Bad(multiclass.tfidf, "1-D counts", lambda: multiclass.tfidf(_COUNTS[0], _TOPICS, 2), "counts"),
    Bad(
        multiclass.tfidf,
        "empty corpus",
        lambda: multiclass.tfidf(_COUNTS[:0], _TOPICS[:0], 2),
        "counts",
    ),
    Bad(
        multiclass.tfidf,
        "topic 2 of 2",
        lambda: multiclass.tfidf(_COUNTS, np.array([0, 1, 2]), 2),
        "labels",
    ),
    Bad(
        multiclass.tfidf,
        "fewer labels",
        lambda: multiclass.tfidf(_COUNTS, _TOPICS[:2], 2),
        ("counts", "labels"),
    ),
    Bad(
        multiclass.tfidf,
        "negative smoothing",
        lambda: multiclass.tfidf(_COUNTS, _TOPICS, 2, smoothing=-1.0),
        "smoothing",
    ),
    Bad(
        multiclass.tfidf,
        "NaN smoothing",
        lambda: multiclass.tfidf(_COUNTS, _TOPICS, 2, smoothing=np.nan),
        "smoothing",
    ),
    Bad(
        multiclass.tfidf,
        "string smoothing",
        lambda: multiclass.tfidf(_COUNTS, _TOPICS, 2, smoothing="1"),
        "smoothing",
        TypeError,
    ),
    Bad(
        multiclass.tfidf, "one class", lambda: multiclass.tfidf(_COUNTS, _TOPICS, 1), "num_classes"
    ),
    Bad(
        multiclass.tfidf,
        "unknown df",
        lambda: multiclass.tfidf(_COUNTS, _TOPICS, 2, df="words"),
        "df",
    ),
    Bad(multiclass.tfidf, "map: x too wide", lambda: _PSI(np.ones(4), 0), "x"),
    Bad(multiclass.tfidf, "map: topic 2 of 2", lambda: _PSI(np.ones(3), 2), "y"),
    Bad(multiclass.tfidf, "map: NaN x", lambda: _PSI(np.array([1.0, np.nan, 0.0]), 0), "x"),
    Same(
        multiclass.tfidf,
        "int counts",
        lambda: multiclass.tfidf(_COUNTS.astype(np.int32), _TOPICS, 2)(_COUNTS[0], 1),
        lambda: _PSI(_COUNTS[0], 1),
    ),
    Same(
        multiclass.tfidf,
        "lists",
        lambda: multiclass.tfidf(_COUNTS.tolist(), _TOPICS.tolist(), 2)([1, 0, 2], 0),
        lambda: _PSI(np.array([1.0, 0.0, 2.0]), 0),
    ),
    # --- the reductions: the binary learner, X of another width -------------------------------------
    Bad(
        multiclass.one_vs_all,
        "a function as binary",
        lambda: multiclass.one_vs_all(lambda k, X, y: None, 3),
        "binary",
        TypeError,
    ),
    Bad(
        multiclass.one_vs_all,
        "an online learner as binary",
        lambda: multiclass.one_vs_all(online.perceptron(), 3),
        "binary",
        TypeError,
    ),
    Bad(
        multiclass.all_pairs,
        "None as binary",
        lambda: multiclass.all_pairs(None, 3),
        "binary",
        TypeError,
    ),
    Bad(
        multiclass.all_pairs,
        "unknown subsample",
        lambda: multiclass.all_pairs(_SVM, 3, subsample="x"),
        "subsample",
    ),
    Bad(
        multiclass.all_pairs,
        "subsample None",
        lambda: multiclass.all_pairs(_SVM, 3, subsample=None),
        "subsample",
    ),
    Bad(
        multiclass.all_pairs,
        "subsample 'gather' (not a mode)",
        lambda: multiclass.all_pairs(_SVM, 3, subsample="gather"),
        "subsample",
    ),
    Same(
        multiclass.all_pairs,
        "the default subsample is 'pair'",
        _labels_of(_AP),
        _labels_of(multiclass.all_pairs(_SVM, 3, subsample="pair")),
    ),
    Holds(multiclass.all_pairs, "'pair' fits the sample", _labels_of(_AP), _equal(_Y)),
    Holds(
        multiclass.all_pairs,
        "'pair' over a hand-built binary",
        _labels_of(
            multiclass.all_pairs(core.BatchLearner(lambda *a: _SVM.fit(*a), _SVM.predict), 3)
        ),
        _equal(_Y),
    ),
    Holds(
        multiclass.all_pairs,
        "'pair' with a class absent",
        lambda: _AP.predict(_AP.fit(KEY, _X, np.where(_Y == 2, 0, _Y)), _X),
        lambda got: np.testing.assert_equal(set(np.asarray(got).tolist()) <= {0, 1, 2}, True),
    ),
    Same(
        multiclass.all_pairs,
        "'pair' under jit",
        lambda: jax.jit(_AP.fit)(KEY, _X, _Y),
        lambda: _AP.fit(KEY, _X, _Y),
    ),
    Bad(
        multiclass.one_vs_all,
        "label 3 of 3",
        lambda: _OVA.fit(KEY, _X, np.where(_Y == 2, 3, _Y)),
        "y",
    ),
    Bad(
        multiclass.all_pairs, "label 0.5", lambda: _AP.fit(KEY, _X, np.where(_Y == 2, 0.5, _Y)), "y"
    ),
    Same(
        multiclass.all_pairs,
        "bool labels are 0/1",
        _labels_of(_AP, _X, _Y > 0),
        _labels_of(_AP, _X, (_Y > 0).astype(np.int32)),
    ),
    Bad(
        multiclass.one_vs_all,
        "predict, X too wide",
        lambda: _OVA.predict(_OVA.fit(KEY, _X, _Y), np.ones((2, 3))),
        "X",
    ),
    Bad(
        multiclass.all_pairs,
        "decision_function, 1-D X",
        lambda: _AP.decision_function(_AP.fit(KEY, _X, _Y), _X[0]),
        "X",
    ),
    Same(
        multiclass.one_vs_all,
        "int and bool X",
        _labels_of(_OVA, (_X > 0).astype(np.int32)),
        _labels_of(_OVA, (_X > 0).astype(np.float32)),
    ),
    Same(
        multiclass.all_pairs,
        "bool X",
        _labels_of(_AP, _X > 0),
        _labels_of(_AP, (_X > 0).astype(np.float32)),
    ),
    Same(
        multiclass.all_pairs,
        "float labels",
        _labels_of(_AP, _X, _Y.astype(np.float32)),
        _labels_of(_AP),
    ),
    # --- multiclass SVM and Perceptron ------------------------------------------------------------
    Bad(
        multiclass.multiclass_svm,
        "NaN in delta",
        lambda: multiclass.multiclass_svm(0.1, 10, 3, delta=np.where(np.eye(3) > 0, 0.0, np.nan)),
        "delta",
    ),
    Bad(
        multiclass.multiclass_svm,
        "delta of 2 classes",
        lambda: multiclass.multiclass_svm(0.1, 10, 3, delta=1 - np.eye(2)),
        "delta",
    ),
    Bad(
        multiclass.multiclass_svm,
        "float steps",
        lambda: multiclass.multiclass_svm(0.1, 10.0, 3),
        "steps",
        TypeError,
    ),
    Bad(
        multiclass.multiclass_svm,
        "not a map",
        lambda: multiclass.multiclass_svm(0.1, 10, 3, feature_map=3),
        "feature_map",
        TypeError,
    ),
    Bad(
        multiclass.multiclass_svm,
        "tfidf map, X too wide",
        lambda: _TFSVM.predict(_TFSVM.fit(KEY, _COUNTS, _TOPICS), np.ones((2, 4))),
        "X",
    ),
    Bad(
        multiclass.multiclass_svm,
        "tfidf map, X too narrow",
        lambda: _TFSVM.decision_function(_TFSVM.fit(KEY, _COUNTS, _TOPICS), np.ones((2, 2))),
        "X",
    ),
    Bad(
        multiclass.multiclass_perceptron,
        "float num_classes",
        lambda: multiclass.multiclass_perceptron(3.0),
        "num_classes",
        TypeError,
    ),
    Bad(
        multiclass.multiclass_perceptron,
        "label -1",
        lambda: _MP.fit(None, _X, np.where(_Y == 2, -1, _Y)),
        "y",
    ),
    Same(
        multiclass.multiclass_svm,
        "int delta",
        lambda: _labels_of(
            multiclass.multiclass_svm(0.1, 20, 3, delta=(1 - np.eye(3, dtype=np.int32)))
        )(),
        _labels_of(_MSVM),
    ),
    Same(
        multiclass.multiclass_svm,
        "tfidf map, int counts",
        lambda: _TFSVM.predict(
            _TFSVM.fit(KEY, _COUNTS.astype(np.int32), _TOPICS), _COUNTS.astype(np.int32)
        ),
        lambda: _TFSVM.predict(_TFSVM.fit(KEY, _COUNTS, _TOPICS), _COUNTS),
    ),
    Same(
        multiclass.multiclass_perceptron,
        "bool X",
        _labels_of(_MP, _X > 0),
        _labels_of(_MP, (_X > 0).astype(float)),
    ),
    Holds(
        multiclass.multiclass_perceptron,
        "int X keeps float weights",
        lambda: _MP.fit(None, _X.astype(np.int32), _Y),
        lambda p: np.testing.assert_equal(jnp.issubdtype(p.w.dtype, jnp.floating), True),
    ),
    # --- multiclass SGD (fixed step size, UML Corollary 17.2) ----------------------------------------
    Bad(
        multiclass.multiclass_sgd,
        "NaN in delta",
        lambda: multiclass.multiclass_sgd(0.1, 10, 3, delta=np.where(np.eye(3) > 0, 0.0, np.nan)),
        "delta",
    ),
    Bad(
        multiclass.multiclass_sgd,
        "delta of 2 classes",
        lambda: multiclass.multiclass_sgd(0.1, 10, 3, delta=1 - np.eye(2)),
        "delta",
    ),
    Bad(
        multiclass.multiclass_sgd,
        "float steps",
        lambda: multiclass.multiclass_sgd(0.1, 10.0, 3),
        "steps",
        TypeError,
    ),
    Bad(
        multiclass.multiclass_sgd,
        "not a map",
        lambda: multiclass.multiclass_sgd(0.1, 10, 3, feature_map=3),
        "feature_map",
        TypeError,
    ),
    Bad(
        multiclass.multiclass_sgd,
        "intercept with a tfidf map",
        lambda: multiclass.multiclass_sgd(0.1, 10, 2, feature_map=_PSI, fit_intercept=True),
        "feature_map",
    ),
    Bad(
        multiclass.multiclass_sgd,
        "tfidf map, X too wide",
        lambda: _TFSGD.predict(_TFSGD.fit(KEY, _COUNTS, _TOPICS), np.ones((2, 4))),
        "X",
    ),
    Same(
        multiclass.multiclass_sgd,
        "int delta",
        _labels_of(multiclass.multiclass_sgd(0.1, 20, 3, delta=(1 - np.eye(3, dtype=np.int32)))),
        _labels_of(_MSGD),
    ),
    Same(
        multiclass.multiclass_sgd,
        "fit_intercept is a constant feature",
        lambda: multiclass.multiclass_sgd(0.1, 20, 3, fit_intercept=True).fit(KEY, _X, _Y),
        lambda: (lambda w: multiclass.MulticlassSGDParams(w[:, :-1].reshape(-1), w[:, -1]))(
            _MSGD.fit(KEY, np.c_[_X, np.ones(len(_X), np.float32)], _Y).w.reshape(3, -1)
        ),
    ),
    Holds(multiclass.multiclass_sgd, "fits the sample", _labels_of(_MSGD), _equal(_Y)),
    # multinomial logistic regression: probabilities, sample weights
    Holds(
        multiclass.multinomial_predict_proba,
        "rows are distributions",
        lambda: multiclass.multinomial_predict_proba(
            multiclass.multinomial_logistic_regression(1.0, 3).fit(KEY, _X, _Y), _X
        ),
        lambda p: np.testing.assert_allclose(np.asarray(p).sum(axis=1), 1.0, rtol=1e-6),
    ),
    Bad(
        multiclass.multinomial_predict_proba,
        "params of another learner",
        lambda: multiclass.multinomial_predict_proba(_MP.fit(KEY, _X, _Y), _X),
        "params",
        TypeError,
    ),
    Bad(
        multiclass.multinomial_logistic_regression,
        "sample_weight of shape (m, 1)",
        lambda: multiclass.multinomial_logistic_regression(1.0, 3).fit(
            KEY, _X, _Y, np.ones((6, 1))
        ),
        "sample_weight",
    ),
    Bad(
        multiclass.multinomial_logistic_regression,
        "zero sample_weight",
        lambda: multiclass.multinomial_logistic_regression(1.0, 3).fit(KEY, _X, _Y, np.zeros(6)),
        "sample_weight",
    ),
]
