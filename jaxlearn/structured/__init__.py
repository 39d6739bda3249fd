"""Structured output over chains: the OCR features, Viterbi, loss-augmented Viterbi and the structured SVM."""

from jaxlearn.structured._chain import chain_features
from jaxlearn.structured._chain import hamming_loss
from jaxlearn.structured._chain import loss_augmented_viterbi
from jaxlearn.structured._chain import sequence_score
from jaxlearn.structured._chain import split_weights
from jaxlearn.structured._chain import structured_hinge
from jaxlearn.structured._chain import viterbi
from jaxlearn.structured._svm import StructuredSVMParams
from jaxlearn.structured._svm import structured_svm

__all__ = [
    "StructuredSVMParams",
    "chain_features",
    "hamming_loss",
    "loss_augmented_viterbi",
    "sequence_score",
    "split_weights",
    "structured_hinge",
    "structured_svm",
    "viterbi",
]
