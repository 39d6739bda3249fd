"""Convex batch learners: SGD (the book's step sizes; Bottou's, in epochs), SVMs, kernel methods, ridge,
batch Perceptrons."""

from jaxlearn.linear._centroid import KernelCentroidParams
from jaxlearn.linear._centroid import kernel_centroid
from jaxlearn.linear._dual_cd import SVMDualCDParams
from jaxlearn.linear._dual_cd import svm_dual_cd
from jaxlearn.linear._inefficient_perceptron import InefficientPerceptronParams
from jaxlearn.linear._inefficient_perceptron import inefficient_perceptron
from jaxlearn.linear._kernel_dual_cd import KernelSVMDualCDParams
from jaxlearn.linear._kernel_dual_cd import kernel_svm_dual_cd
from jaxlearn.linear._kernel_perceptron import KernelBatchPerceptronParams
from jaxlearn.linear._kernel_perceptron import kernel_batch_perceptron
from jaxlearn.linear._kernel_svm import KernelSVMParams
from jaxlearn.linear._kernel_svm import kernel_svm
from jaxlearn.linear._logistic import LogisticRegressionParams
from jaxlearn.linear._logistic import logistic_predict_proba
from jaxlearn.linear._logistic import logistic_regression
from jaxlearn.linear._perceptron import AugmentedPerceptronParams
from jaxlearn.linear._perceptron import BatchPerceptronParams
from jaxlearn.linear._perceptron import augmented_perceptron
from jaxlearn.linear._primal import SVMPrimalParams
from jaxlearn.linear._primal import svm_primal_lbfgs
from jaxlearn.linear._perceptron import batch_perceptron
from jaxlearn.linear._primal_newton import svm_primal_newton
from jaxlearn.linear._ridge import KernelRidgeParams
from jaxlearn.linear._ridge import RidgeParams
from jaxlearn.linear._ridge import kernel_ridge
from jaxlearn.linear._ridge import ridge
from jaxlearn.linear._sgd import SGDParams
from jaxlearn.linear._sgd import sgd
from jaxlearn.linear._sgd_epochs import EpochSGDParams
from jaxlearn.linear._sgd_epochs import epoch_sgd
from jaxlearn.linear._sgd_epochs import epoch_sgd_fits
from jaxlearn.linear._svm import HardSVMParams
from jaxlearn.linear._svm import SoftSVMParams
from jaxlearn.linear._svm import check_separable
from jaxlearn.linear._svm import hard_svm
from jaxlearn.linear._svm import sample_margin
from jaxlearn.linear._svm import soft_svm

__all__ = [
    "AugmentedPerceptronParams",
    "BatchPerceptronParams",
    "EpochSGDParams",
    "HardSVMParams",
    "InefficientPerceptronParams",
    "KernelBatchPerceptronParams",
    "KernelCentroidParams",
    "KernelRidgeParams",
    "KernelSVMDualCDParams",
    "KernelSVMParams",
    "LogisticRegressionParams",
    "RidgeParams",
    "SGDParams",
    "SVMDualCDParams",
    "SVMPrimalParams",
    "SoftSVMParams",
    "augmented_perceptron",
    "batch_perceptron",
    "check_separable",
    "epoch_sgd",
    "epoch_sgd_fits",
    "hard_svm",
    "inefficient_perceptron",
    "kernel_batch_perceptron",
    "kernel_centroid",
    "kernel_ridge",
    "kernel_svm",
    "kernel_svm_dual_cd",
    "logistic_predict_proba",
    "logistic_regression",
    "ridge",
    "sample_margin",
    "sgd",
    "soft_svm",
    "svm_dual_cd",
    "svm_primal_lbfgs",
    "svm_primal_newton",
]
