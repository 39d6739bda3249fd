"""scikit-learn estimators over the kernel Perceptron and Winnow (the epochs and ``partial_fit`` of
:mod:`jaxlearn.sklearn._online`)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial

from jaxlearn import core, kernels, online
from jaxlearn._buckets import on_bucket_rows
from jaxlearn._checks import check_labels
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn.sklearn._base import FINITE, BinaryClassifier, make_kernel
from jaxlearn.sklearn._online import OnlineClassifier, sign_of

__all__ = ["KernelPerceptron", "Winnow"]


@cpu_jit
def _kernel_scores(kernel, state, X):
    return kernels.expansion(kernel, state.support, state.alpha, X)


_sign_kernel = sign_of(_kernel_scores)


class KernelPerceptron(OnlineClassifier, BinaryClassifier):
    """The kernel Perceptron with a budget (:func:`jaxlearn.online.kernel_perceptron`) as a classifier.

    Args:
      kernel: ``"rbf"`` (:math:`\\exp(-\\gamma\\|x - z\\|^2)`), ``"poly"``
        (:math:`(\\gamma\\langle x, z\\rangle + c_0)^{d}`), ``"sigmoid"``
        (:math:`\\tanh(\\gamma\\langle x, z\\rangle + c_0)`) or ``"linear"``.
      gamma: a positive number, ``"scale"`` (:math:`1/(d\\,\\mathrm{Var}(X))`, from the first fit) or
        ``"auto"`` (:math:`1/d`); ignored by ``"linear"``.
      degree, coef0: :math:`d` and :math:`c_0` of ``"poly"`` (:math:`c_0` also of ``"sigmoid"``).
      budget: the most mistakes stored (a static shape: the state holds ``budget`` rows); a mistake
        past it is not stored.
      max_iter, shuffle, random_state: as for :class:`Perceptron`.

    Attributes:
      state_: the :class:`~jaxlearn.online.KernelPerceptronState`; gamma_: the numeric gamma used
        (0.0 for ``"linear"``, which has none); classes_: the two labels.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import KernelPerceptron
      >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
      >>> KernelPerceptron("poly", gamma=1.0, coef0=1.0, degree=2).fit(X, [1, 0, 0, 1]).predict(X).tolist()
      [1, 0, 0, 1]
    """

    _parameter_constraints = {
        "degree": core.POSITIVE_INT,
        "coef0": FINITE,
        "budget": core.POSITIVE_INT,
    }

    def __init__(
        self,
        kernel="rbf",
        *,
        gamma="scale",
        degree=3,
        coef0=0.0,
        budget=1000,
        max_iter=5,
        shuffle=True,
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.budget = budget
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def _prepare(self, X):
        self.gamma_ = make_kernel(self.kernel, self.gamma, self.degree, self.coef0, X)[1]

    def _kernel(self):
        gamma = self.gamma_ if self.kernel != "linear" else None
        return make_kernel(self.kernel, gamma, self.degree, self.coef0)[0]

    def _learner(self):
        return online.kernel_perceptron(self._kernel(), self.budget)

    def _decision(self, X):
        return _kernel_scores(self._kernel(), self.state_, X)

    def _batch_scores(self):
        kernel = self._kernel()
        return Partial(_sign_kernel, kernel), Partial(_kernel_scores, kernel)


def _binarized(X, threshold):
    X = X if isinstance(X, np.ndarray) else jnp.asarray(X)  # NumPy stays on the host: no programs
    return (X > threshold).astype(X.dtype)


class Winnow(OnlineClassifier):
    """Littlestone's Winnow (:func:`jaxlearn.online.winnow`) over binary features, as a classifier.

    Winnow learns over :math:`\\{0, 1\\}^n`. As scikit-learn's ``BernoulliNB``, the estimator binarises
    its input: a feature is 1 where it exceeds ``binarize``. With ``binarize=None`` the input must
    already be in {0, 1} (anything else is a ``ValueError``). Winnow predicts
    :math:`1[\\langle w, x\\rangle \\ge \\theta]`, so it has no ``decision_function`` (a zero score
    is positive).

    Args:
      eta: the promotion/demotion factor :math:`\\eta > 1`.
      threshold: :math:`\\theta > 0`; ``None``: the number of features.
      binarize: the threshold for binarising features (``None``: input already binary).
      max_iter, shuffle, random_state: as for :class:`Perceptron`.

    Attributes:
      state_: the :class:`~jaxlearn.online.WinnowState` (log-weights); classes_: the two labels
        (``classes_[1]`` is Winnow's 1).

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import Winnow
      >>> X = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]] * 3)
      >>> Winnow(binarize=None, shuffle=False).fit(X, X[:, 0] | X[:, 1]).predict(X[:4]).tolist()
      [1, 1, 0, 0]
    """

    _zero_one = True

    _parameter_constraints = {
        "eta": core.Interval(1.0),
        "threshold": (core.POSITIVE, None),
        "binarize": (FINITE, None),
    }

    def __init__(
        self, eta=2.0, *, threshold=None, binarize=0.0, max_iter=5, shuffle=True, random_state=None
    ):
        self.eta = eta
        self.threshold = threshold
        self.binarize = binarize
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def _inputs(self, X):
        if self.binarize is None:
            check_labels(
                "X", X, (0, 1), "Winnow learns over {0,1}^n; set `binarize` to a threshold"
            )
            return X
        return _binarized(X, float(self.binarize))

    def _learner(self):
        return online.winnow(self.eta, self.threshold)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # a monotone threshold of binarised features
        return tags

    def predict(self, X):
        """The predicted labels (values of ``classes_``) of the rows of ``X``."""
        X = self._inputs(self._check_X(X))
        learner = self._learner()  # the queries padded to their size bucket: one program a bucket
        return self.classes_[
            on_bucket_rows(lambda rows: _predict_all(learner, self.state_, rows), X)
        ]

    def _batch_learner(self, X=None) -> core.BatchLearner:
        """As for the other online estimators, on the binarised input (``binarize=None``: 0.5)."""
        base = super()._batch_learner(X)
        threshold = 0.5 if self.binarize is None else float(self.binarize)
        return core.BatchLearner(
            Partial(_fit_binarized, base.fit, threshold),
            Partial(_winnow_sign, self._learner(), threshold),
        )

    def _batch_scores(self):
        return None, None


@cpu_jit
def _predict_all(learner, state, X):
    return core.predict_batch(learner, state, X)


def _fit_binarized(fit, threshold, key, X, y):
    return fit(key, _binarized(X, threshold), y)


def _winnow_sign(learner, threshold, state, X):
    return 2 * _predict_all(learner, state, _binarized(X, threshold)) - 1
