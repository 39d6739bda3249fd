"""Neural networks (UML chapter 20): MLPs as parameter pytrees, the book's backpropagation, optax training."""

from jaxlearn.nn._backprop import backprop
from jaxlearn.nn._boolean import boolean_inputs
from jaxlearn.nn._boolean import boolean_network
from jaxlearn.nn._boolean import conjunction_neuron
from jaxlearn.nn._boolean import disjunction_neuron
from jaxlearn.nn._classifier import MLPParams
from jaxlearn.nn._classifier import mlp_classifier
from jaxlearn.nn._epoch import mlp_epoch
from jaxlearn.nn._fit import MLPFit
from jaxlearn.nn._fit import mlp_fit
from jaxlearn.nn._fit import scaled_adam
from jaxlearn.nn._mlp import cross_entropy
from jaxlearn.nn._mlp import glorot_init
from jaxlearn.nn._mlp import identity
from jaxlearn.nn._mlp import mlp_apply
from jaxlearn.nn._mlp import mlp_init
from jaxlearn.nn._mlp import relu
from jaxlearn.nn._mlp import sigmoid
from jaxlearn.nn._mlp import sign
from jaxlearn.nn._mlp import softmax
from jaxlearn.nn._mlp import squared_loss
from jaxlearn.nn._mlp import tanh
from jaxlearn.nn._train import TrainHistory
from jaxlearn.nn._train import train

__all__ = [
    "MLPFit",
    "MLPParams",
    "TrainHistory",
    "backprop",
    "boolean_inputs",
    "boolean_network",
    "conjunction_neuron",
    "cross_entropy",
    "disjunction_neuron",
    "glorot_init",
    "identity",
    "mlp_apply",
    "mlp_classifier",
    "mlp_epoch",
    "mlp_fit",
    "mlp_init",
    "relu",
    "scaled_adam",
    "sigmoid",
    "sign",
    "softmax",
    "squared_loss",
    "tanh",
    "train",
]
