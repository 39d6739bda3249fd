"""Multiclass learning: reductions to binary, class-sensitive feature maps, multiclass SVM and Perceptron."""

from jaxlearn.multiclass._crammer_singer import MulticlassSVMDualCDParams
from jaxlearn.multiclass._crammer_singer import multiclass_svm_dual_cd
from jaxlearn.multiclass._feature_maps import multivector
from jaxlearn.multiclass._feature_maps import tfidf
from jaxlearn.multiclass._logistic import MultinomialLogisticParams
from jaxlearn.multiclass._logistic import multinomial_logistic_regression
from jaxlearn.multiclass._logistic import multinomial_predict_proba
from jaxlearn.multiclass._perceptron import MulticlassPerceptronParams
from jaxlearn.multiclass._perceptron import multiclass_perceptron
from jaxlearn.multiclass._reductions import all_pairs
from jaxlearn.multiclass._reductions import one_vs_all
from jaxlearn.multiclass._reductions import pairs
from jaxlearn.multiclass._sgd import MulticlassSGDParams
from jaxlearn.multiclass._sgd import multiclass_sgd
from jaxlearn.multiclass._svm import MulticlassSVMParams
from jaxlearn.multiclass._svm import loss_augmented_argmax
from jaxlearn.multiclass._svm import multiclass_svm

__all__ = [
    "MulticlassPerceptronParams",
    "MulticlassSGDParams",
    "MulticlassSVMDualCDParams",
    "MulticlassSVMParams",
    "MultinomialLogisticParams",
    "all_pairs",
    "loss_augmented_argmax",
    "multiclass_perceptron",
    "multiclass_sgd",
    "multiclass_svm",
    "multiclass_svm_dual_cd",
    "multinomial_logistic_regression",
    "multinomial_predict_proba",
    "multivector",
    "one_vs_all",
    "pairs",
    "tfidf",
]
