"""Online learners: the Perceptron family, Winnow and online gradient descent."""

from jaxlearn.online._conjunction import ConjunctionInfo, ConjunctionState, conjunction
from jaxlearn.online._decision_list import DecisionListInfo, DecisionListState, decision_list
from jaxlearn.online._kernel_perceptron import KernelPerceptronInfo, KernelPerceptronState, kernel_perceptron
from jaxlearn.online._ogd import OGDInfo, OGDState, best_fixed_predictor, online_gradient_descent
from jaxlearn.online._perceptron import (
    MarginPerceptronInfo,
    PerceptronInfo,
    PerceptronState,
    margin_perceptron,
    perceptron,
)
from jaxlearn.online._projections import box, l2_ball
from jaxlearn.online._winnow import WinnowInfo, WinnowState, winnow

__all__ = [
    "ConjunctionInfo",
    "ConjunctionState",
    "DecisionListInfo",
    "DecisionListState",
    "KernelPerceptronInfo",
    "KernelPerceptronState",
    "MarginPerceptronInfo",
    "OGDInfo",
    "OGDState",
    "PerceptronInfo",
    "PerceptronState",
    "WinnowInfo",
    "WinnowState",
    "best_fixed_predictor",
    "box",
    "conjunction",
    "decision_list",
    "kernel_perceptron",
    "l2_ball",
    "margin_perceptron",
    "online_gradient_descent",
    "perceptron",
    "winnow",
]
