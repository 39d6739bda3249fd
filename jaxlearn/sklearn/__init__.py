"""scikit-learn estimators over jaxlearn's learners: ``Pipeline``, ``GridSearchCV``, ``clone`` and
scikit-learn's own estimator checks work with each.

Binary estimators take any two labels (strings, {0, 1}, {-1, +1}, ...) and map them to the learner's
own label set inside; for more classes wrap them in :class:`OneVsRestClassifier` or
:class:`OneVsOneClassifier` (one vmapped fit of the K binary problems). :class:`SGDClassifier`,
:class:`Perceptron` and :class:`NearestCentroid` take any number of classes themselves, as
scikit-learn's (the SGD ones one-vs-all, every class in one vmapped program). Inputs are converted to
float32 (float64 when ``jax_enable_x64`` is on), except that :class:`SGDClassifier` and
:class:`Perceptron` compute in float64 on any input but float32, as scikit-learn's SGD does.
Fitted attributes are arrays and jaxlearn params/state NamedTuples, so :mod:`jaxlearn.io` saves and
loads every estimator without pickle.
"""

try:
    import sklearn  # noqa: F401
except ImportError as error:
    raise ImportError(
        "jaxlearn.sklearn needs scikit-learn: pip install 'jaxlearn[sklearn]' (or scikit-learn itself)"
    ) from error

from jaxlearn.sklearn._linear import HardMarginSVC
from jaxlearn.sklearn._linear import KernelRidge
from jaxlearn.sklearn._linear import LinearSVC
from jaxlearn.sklearn._linear import NearestCentroid
from jaxlearn.sklearn._linear import Ridge
from jaxlearn.sklearn._linear import RidgeClassifier
from jaxlearn.sklearn._linear import SGDClassifier
from jaxlearn.sklearn._linear import SVC
from jaxlearn.sklearn._logistic import LogisticRegression
from jaxlearn.sklearn._multiclass import MulticlassPerceptron
from jaxlearn.sklearn._multiclass import MulticlassSVC
from jaxlearn.sklearn._multiclass import OneVsOneClassifier
from jaxlearn.sklearn._multiclass import OneVsRestClassifier
from jaxlearn.sklearn._neighbors import KNeighborsClassifier
from jaxlearn.sklearn._neighbors import KNeighborsRegressor
from jaxlearn.sklearn._nn import MLPClassifier
from jaxlearn.sklearn._online import MarginPerceptron
from jaxlearn.sklearn._online import OnlineGradientDescentClassifier
from jaxlearn.sklearn._online import Perceptron
from jaxlearn.sklearn._online_more import KernelPerceptron
from jaxlearn.sklearn._online_more import Winnow
from jaxlearn.sklearn._search import GridSearchCV, cross_val_score, cross_validate
from jaxlearn.sklearn._trees import DecisionTreeClassifier
from jaxlearn.sklearn._trees import RandomForestClassifier

__all__ = [
    "DecisionTreeClassifier",
    "GridSearchCV",
    "HardMarginSVC",
    "KNeighborsClassifier",
    "KNeighborsRegressor",
    "KernelPerceptron",
    "KernelRidge",
    "LinearSVC",
    "LogisticRegression",
    "MLPClassifier",
    "MarginPerceptron",
    "MulticlassPerceptron",
    "MulticlassSVC",
    "NearestCentroid",
    "OneVsOneClassifier",
    "OneVsRestClassifier",
    "OnlineGradientDescentClassifier",
    "Perceptron",
    "RandomForestClassifier",
    "Ridge",
    "RidgeClassifier",
    "SGDClassifier",
    "SVC",
    "Winnow",
    "cross_val_score",
    "cross_validate",
]
