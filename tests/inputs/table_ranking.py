"""Bad and unusual input to ``jaxlearn.ranking``: the ranking losses and surrogates, the bipartite measures
and their loss-augmented search, and the query learners' inputs (which the generic suite skips)."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxlearn import ranking as rk
from tests.inputs.rows import Bad, Holds, Same

KEY = jax.random.PRNGKey(0)
_P = np.array([0.5, 2.0, -1.0, 1.0], np.float32)  # scores y'
_T = np.array([1.0, 3.0, 0.0, 2.0], np.float32)  # relevance y
_B = np.array([1.0, 1.0, -1.0, -1.0], np.float32)  # bipartite truth
_NAN = np.array([0.5, np.nan, -1.0, 1.0], np.float32)
_E = np.zeros(0, np.float32)

_X = np.array(
    [
        [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]],
        [[0.5, 0.5], [2.0, 0.0], [0.0, -1.0], [1.0, 2.0]],
    ],
    np.float32,
)  # (2 queries, 4 items, 2 features)
_RY = np.array([[2.0, 0.0, 3.0, 1.0], [1.0, 2.0, 0.0, 3.0]], np.float32)
_BY = np.where(_RY >= 2, 1.0, -1.0).astype(np.float32)
_RSVM = rk.ranking_svm(0.1, 20)
_BSVM = rk.bipartite_svm("f1", 0.1, 20)

# the (y_pred, y_true) losses: every one refuses the same things
_PAIRS = (
    rk.zero_one_ranking,
    rk.kendall_tau_loss,
    rk.kendall_tau_hinge,
    rk.ndcg_loss,
    rk.ndcg_hinge,
    rk.ndcg_cost_matrix,
    rk.ndcg_loss_augmented,
)
_NDCG = (rk.ndcg_loss, rk.ndcg_hinge, rk.ndcg_cost_matrix, rk.ndcg_loss_augmented)
_MEASURES = (rk.precision, rk.recall, rk.specificity, rk.f_beta, rk.balanced_accuracy)
_INT_P = np.array([1, 4, -2, 2], np.int32)


def _call(function, *args, **kwargs):
    return lambda: function(*args, **kwargs)


def _close(want):
    return lambda got: np.testing.assert_allclose(
        np.asarray(got, float), want, rtol=1e-6, atol=1e-7
    )


def _fit_scores(learner, X, Y):
    return lambda: learner.decision_function(learner.fit(KEY, X, Y), X)


ROWS = [
    *(
        row
        for f in _PAIRS
        for row in (
            Bad(f, "empty", _call(f, _E, _E), ("y_pred", "y_true")),
            Bad(f, "lengths differ", _call(f, _P, _T[:3]), ("y_pred", "y_true")),
            Bad(f, "scalars", _call(f, 1.0, 1.0), ("y_pred", "y_true")),
            Bad(f, "NaN score", _call(f, _NAN, _T), "y_pred"),
            Bad(f, "inf relevance", _call(f, _P, np.where(_T > 2, np.inf, _T)), "y_true"),
            Same(f, "int scores", _call(f, _INT_P, _T), _call(f, _INT_P.astype(np.float32), _T)),
            Same(f, "lists", _call(f, _P.tolist(), _T.tolist()), _call(f, _P, _T)),
        )
    ),
    *(
        row
        for f in _NDCG
        for row in (
            Bad(f, "negative relevance", _call(f, _P, _T - 1), "y_true"),
            Bad(f, "k = 0", _call(f, _P, _T, k=0), "k"),
            Bad(f, "k > r", _call(f, _P, _T, k=5), "k"),
            Bad(f, "float k", _call(f, _P, _T, k=2.0), "k", TypeError),
            Same(
                f, "bool relevance", _call(f, _P, _T > 1), _call(f, _P, (_T > 1).astype(np.float32))
            ),
        )
    ),
    Holds(rk.kendall_tau_loss, "one item", _call(rk.kendall_tau_loss, _P[:1], _T[:1]), _close(0.0)),
    Holds(rk.ndcg_loss, "no relevant item: 0", _call(rk.ndcg_loss, _P, 0 * _T), _close(0.0)),
    Holds(rk.kendall_tau_loss, "reversed", _call(rk.kendall_tau_loss, -_T, _T), _close(1.0)),
    Holds(
        rk.ndcg_loss_augmented,
        "jit(vmap)",
        lambda: jax.jit(jax.vmap(rk.ndcg_loss_augmented))(_RY, _RY),
        lambda v: np.testing.assert_array_equal(np.sort(v, -1), [[1, 2, 3, 4]] * 2),
    ),
    # --- permutation, discount, ndcg_surrogate_value ---------------------------------------------------
    Bad(rk.permutation, "NaN", _call(rk.permutation, _NAN), "y"),
    Bad(rk.permutation, "empty", _call(rk.permutation, _E), "y"),
    Bad(rk.permutation, "scalar", _call(rk.permutation, 1.0), "y"),
    Same(
        rk.permutation,
        "ints",
        _call(rk.permutation, _INT_P),
        _call(rk.permutation, _INT_P.astype(np.float32)),
    ),
    Same(rk.permutation, "list", _call(rk.permutation, _P.tolist()), _call(rk.permutation, _P)),
    Holds(
        rk.permutation,
        "the book's example",
        _call(rk.permutation, [2.0, 1.0, 6.0, -1.0, 0.5]),
        _close([4, 3, 5, 1, 2]),
    ),
    Bad(rk.discount, "no items", _call(rk.discount, 0), "r"),
    Bad(rk.discount, "float r", _call(rk.discount, 3.0), "r", TypeError),
    Bad(rk.discount, "k = 0", _call(rk.discount, 3, 0), "k"),
    Bad(rk.discount, "k > r", _call(rk.discount, 3, 4), "k"),
    Bad(rk.discount, "float k", _call(rk.discount, 3, 1.5), "k", TypeError),
    Bad(rk.discount, "int dtype", _call(rk.discount, 3, dtype=jnp.int32), "dtype", TypeError),
    Holds(
        rk.discount,
        "top-2 of 3",
        _call(rk.discount, np.int64(3), 2),
        _close([0.0, 1 / np.log2(3), 1.0]),
    ),
    Bad(
        rk.ndcg_surrogate_value,
        "v not a permutation",
        _call(rk.ndcg_surrogate_value, [1, 1, 2, 3], _P, _T),
        "v",
    ),
    Bad(
        rk.ndcg_surrogate_value,
        "v 0-based",
        _call(rk.ndcg_surrogate_value, [0, 1, 2, 3], _P, _T),
        "v",
    ),
    Bad(
        rk.ndcg_surrogate_value,
        "v too short",
        _call(rk.ndcg_surrogate_value, [1, 2, 3], _P, _T),
        "v",
    ),
    Bad(
        rk.ndcg_surrogate_value,
        "NaN score",
        _call(rk.ndcg_surrogate_value, [1, 2, 3, 4], _NAN, _T),
        "y_pred",
    ),
    Bad(
        rk.ndcg_surrogate_value,
        "negative relevance",
        _call(rk.ndcg_surrogate_value, [1, 2, 3, 4], _P, -_T),
        "y_true",
    ),
    Same(
        rk.ndcg_surrogate_value,
        "float v",
        _call(rk.ndcg_surrogate_value, np.array([2.0, 4, 1, 3]), _P, _T),
        _call(rk.ndcg_surrogate_value, np.array([2, 4, 1, 3]), _P, _T),
    ),
    Same(
        rk.ndcg_surrogate_value,
        "at the maximiser: the hinge",
        lambda: rk.ndcg_surrogate_value(rk.ndcg_loss_augmented(_P, _T), _P, _T),
        _call(rk.ndcg_hinge, _P, _T),
    ),
    # --- bipartite measures -------------------------------------------------------------------------
    *(
        row
        for f in _MEASURES
        for row in (
            Bad(f, "negative count", _call(f, 2, -1, 1, 1), "b"),
            Bad(f, "NaN count", _call(f, np.nan, 1, 1, 1), "a"),
            Bad(f, "three numbers", _call(f, 1, 1, 1), "counts"),
            Bad(f, "counts of other shapes", _call(f, np.ones(2), np.ones(3), 1, 1), "counts"),
            Bad(f, "labels 0/1", _call(f, _P, (_B > 0).astype(np.float32)), "y_true"),
            Bad(f, "empty", _call(f, _E, _E), ("y_pred", "y_true")),
            Bad(f, "NaN score", _call(f, _NAN, _B), "y_pred"),
            Bad(f, "NaN theta", _call(f, _P, _B, theta=np.nan), "theta"),
            Bad(f, "string theta", _call(f, _P, _B, theta="0"), "theta", TypeError),
            Same(f, "int counts", _call(f, 2, 1, 1, 3), _call(f, 2.0, 1.0, 1.0, 3.0)),
            Same(
                f,
                "Counts tuple",
                _call(f, rk.Counts(2.0, 1.0, 1.0, 3.0)),
                _call(f, 2.0, 1.0, 1.0, 3.0),
            ),
            Same(
                f,
                "int scores and labels",
                _call(f, _INT_P, _B.astype(np.int32)),
                _call(f, _INT_P.astype(np.float32), _B),
            ),
            Same(
                f,
                "lists",
                _call(f, _P.tolist(), _B.tolist(), theta=0.75),
                _call(f, _P, _B, theta=0.75),
            ),
        )
    ),
    Bad(rk.f_beta, "beta 0", _call(rk.f_beta, 2, 1, 1, 1, beta=0.0), "beta"),
    Bad(rk.f_beta, "NaN beta", _call(rk.f_beta, 2, 1, 1, 1, beta=np.nan), "beta"),
    Bad(rk.f_beta, "string beta", _call(rk.f_beta, 2, 1, 1, 1, beta="1"), "beta", TypeError),
    Holds(rk.precision, "0/0 is 1", _call(rk.precision, 0, 0, 3, 1), _close(1.0)),
    Bad(
        rk.confusion_counts,
        "labels 0/1",
        _call(rk.confusion_counts, _P, (_B > 0).astype(np.float32)),
        "y_true",
    ),
    Bad(rk.confusion_counts, "bool labels", _call(rk.confusion_counts, _P, _B > 0), "y_true"),
    Bad(rk.confusion_counts, "empty", _call(rk.confusion_counts, _E, _E), ("y_pred", "y_true")),
    Bad(rk.confusion_counts, "NaN score", _call(rk.confusion_counts, _NAN, _B), "y_pred"),
    Bad(
        rk.confusion_counts, "inf theta", _call(rk.confusion_counts, _P, _B, theta=np.inf), "theta"
    ),
    Bad(
        rk.confusion_counts,
        "theta of another shape",
        _call(rk.confusion_counts, _P, _B, theta=np.zeros(3)),
        "theta",
    ),
    Same(
        rk.confusion_counts,
        "int scores",
        _call(rk.confusion_counts, _INT_P, _B),
        _call(rk.confusion_counts, _INT_P * 1.0, _B),
    ),
    Holds(
        rk.confusion_counts,
        "counts",
        _call(rk.confusion_counts, _P, _B),
        _close([2.0, 1.0, 0.0, 1.0]),
    ),
    *(
        row
        for f in (rk.top_k_counts, rk.precision_at_k, rk.recall_at_k)
        for row in (
            Bad(f, "k > r", _call(f, _P, _B, 5), "k"),
            Bad(f, "k = -1", _call(f, _P, _B, -1), "k"),
            Bad(f, "float k", _call(f, _P, _B, 2.0), "k", TypeError),
            Bad(f, "empty", _call(f, _E, _E, 0), ("y_pred", "y_true")),
            Bad(f, "NaN score", _call(f, _NAN, _B, 2), "y_pred"),
            Bad(f, "labels 0/1", _call(f, _P, (_B > 0).astype(np.float32), 2), "y_true"),
            Same(
                f, "int scores", _call(f, _INT_P, _B, 2), _call(f, _INT_P.astype(np.float32), _B, 2)
            ),
            Same(f, "lists", _call(f, _P.tolist(), _B.tolist(), 2), _call(f, _P, _B, 2)),
        )
    ),
    Holds(
        rk.precision_at_k,
        "k = 0: nothing predicted",
        _call(rk.precision_at_k, _P, _B, 0),
        _close(1.0),
    ),
    # --- the loss-augmented search --------------------------------------------------------------------
    *(
        row
        for f in (rk.bipartite_loss_augmented, rk.bipartite_hinge)
        for row in (
            Bad(f, "unknown measure", _call(f, _P, _B, "auc"), "measure"),
            Bad(f, "no k for recall@k", _call(f, _P, _B, "recall_at_k"), "k"),
            Bad(f, "k > r", _call(f, _P, _B, "precision_at_k", k=5), "k"),
            Bad(f, "k = -1", _call(f, _P, _B, "recall_at_k", k=-1), "k"),
            Bad(f, "float k", _call(f, _P, _B, "recall_at_k", k=1.5), "k", TypeError),
            Bad(f, "beta 0", _call(f, _P, _B, "f_beta", beta=0.0), "beta"),
            Bad(f, "labels 0/1", _call(f, _P, (_B > 0).astype(np.float32), "f1"), "y_true"),
            Bad(f, "NaN score", _call(f, _NAN, _B, "f1"), "y_pred"),
            Bad(f, "empty", _call(f, _E, _E, "f1"), ("y_pred", "y_true")),
            Bad(f, "lengths differ", _call(f, _P, _B[:3], "f1"), ("y_pred", "y_true")),
            Bad(
                f,
                "a batch (vmap it)",
                _call(f, np.stack([_P, _P]), np.stack([_B, _B]), "f1"),
                "y_pred",
            ),
            Same(
                f,
                "int scores",
                _call(f, _INT_P, _B, "balanced_accuracy"),
                _call(f, _INT_P.astype(np.float32), _B, "balanced_accuracy"),
            ),
            Same(
                f,
                "lists",
                _call(f, _P.tolist(), _B.tolist(), "recall_at_k", k=2),
                _call(f, _P, _B, "recall_at_k", k=2),
            ),
        )
    ),
    Holds(
        rk.bipartite_hinge,
        "bounds the F1 loss",
        _call(rk.bipartite_hinge, _P, _B, "f1"),
        lambda v: np.testing.assert_array_less(1 - float(rk.f_beta(_P, _B)) - 1e-6, float(v)),
    ),
    Holds(
        rk.bipartite_loss_augmented,
        "vmap",
        lambda: jax.vmap(lambda p, b: rk.bipartite_loss_augmented(p, b, "f1"))(
            np.stack([_P, -_P]), np.stack([_B, _B])
        ),
        lambda v: np.testing.assert_equal(v.shape, (2, 4)),
    ),
    # --- the query learners (sequences: skipped by the generic suite) ---------------------------------
    *(
        row
        for learner, Y, entry in ((_RSVM, _RY, rk.ranking_svm), (_BSVM, _BY, rk.bipartite_svm))
        for row in (
            Bad(
                entry,
                "predict, X one feature too wide",
                lambda learner=learner, Y=Y: learner.predict(
                    learner.fit(KEY, _X, Y), np.ones((2, 4, 3))
                ),
                "X",
            ),
            Bad(
                entry,
                "predict, X one feature too narrow",
                lambda learner=learner, Y=Y: learner.predict(learner.fit(KEY, _X, Y), _X[..., :1]),
                "X",
            ),
            Bad(
                entry,
                "decision_function, one query (2-D X)",
                lambda learner=learner, Y=Y: learner.decision_function(
                    learner.fit(KEY, _X, Y), _X[0]
                ),
                "X",
            ),
            Bad(
                entry,
                "predict, NaN X",
                lambda learner=learner, Y=Y: learner.predict(learner.fit(KEY, _X, Y), _X * np.nan),
                "X",
            ),
            Bad(
                entry,
                "fit, empty sample",
                lambda learner=learner, Y=Y: learner.fit(KEY, _X[:0], Y[:0]),
                "X",
            ),
            Bad(
                entry,
                "fit, NaN label",
                lambda learner=learner, Y=Y: learner.fit(KEY, _X, Y * np.nan),
                "Y",
            ),
            Bad(
                entry,
                "fit, labels of another shape",
                lambda learner=learner, Y=Y: learner.fit(KEY, _X, Y[:, :3]),
                "Y",
            ),
            Same(
                entry,
                "int X",
                _fit_scores(learner, _X.round().astype(np.int32), Y),
                _fit_scores(learner, _X.round(), Y),
            ),
            Same(
                entry,
                "lists",
                _fit_scores(learner, _X.tolist(), Y.tolist()),
                _fit_scores(learner, _X, Y),
            ),
            Holds(
                entry,
                "one query",
                _fit_scores(learner, _X[:1], Y[:1]),
                lambda s: np.testing.assert_equal(s.shape, (1, 4)),
            ),
        )
    ),
    Bad(
        rk.ranking_svm,
        "ndcg, k > r",
        lambda: rk.ranking_svm(0.1, 10, loss="ndcg", k=5).fit(KEY, _X, _RY),
        "k",
    ),
    Bad(
        rk.ranking_svm,
        "ndcg, negative relevance",
        lambda: rk.ranking_svm(0.1, 10, loss="ndcg").fit(KEY, _X, -_RY),
        "Y",
    ),
    Bad(rk.ranking_svm, "unknown loss", lambda: rk.ranking_svm(0.1, 10, loss="map"), "loss"),
    Bad(
        rk.bipartite_svm,
        "labels 0/1",
        lambda: _BSVM.fit(KEY, _X, (_BY > 0).astype(np.float32)),
        "Y",
    ),
    Bad(
        rk.bipartite_svm,
        "precision@k, k > r",
        lambda: rk.bipartite_svm("precision_at_k", 0.1, 10, k=5).fit(KEY, _X, _BY),
        "k",
    ),
    Bad(
        rk.bipartite_svm,
        "precision@k, k = 0",
        lambda: rk.bipartite_svm("precision_at_k", 0.1, 10, k=0),
        "k",
    ),
    Bad(
        rk.bipartite_svm,
        "recall@k, k = 0",
        lambda: rk.bipartite_svm("recall_at_k", 0.1, 10, k=0),
        "k",
    ),
    Bad(rk.bipartite_svm, "k with f1 (no k)", lambda: rk.bipartite_svm("f1", 0.1, 10, k=2), "k"),
    Bad(rk.bipartite_svm, "unknown measure", lambda: rk.bipartite_svm("auc", 0.1, 10), "measure"),
    Bad(
        rk.bipartite_svm,
        "recall@k without k",
        lambda: rk.bipartite_svm("recall_at_k", 0.1, 10),
        "k",
    ),
    Same(
        rk.bipartite_svm,
        "int labels",
        _fit_scores(_BSVM, _X, _BY.astype(np.int32)),
        _fit_scores(_BSVM, _X, _BY),
    ),
]
